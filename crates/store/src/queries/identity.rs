//! The identity provider's storage, where several instances may share the
//! tables. What may be used once (a code, a refresh token, a ticket, a reset
//! link) is spent by a conditional `UPDATE`/`DELETE`: of two transactions
//! racing for the same row, the second finds it spent (SQLite's one writer
//! runs them in turn; under PostgreSQL's READ COMMITTED the second waits for
//! the first and re-checks the condition), so exactly one of them wins.
//!
//! A plan runs its statements without deciding anything between them but
//! whether the one before changed a row. So a write whose outcome rests on
//! the domain's judgement (`judge_code`, `judge_refresh`) reads the facts,
//! judges them, then writes on condition that what it judged has not
//! changed meanwhile, and judges again if it has.

use async_trait::async_trait;

use crate::error::StoreError;
use crate::exec::{Backend, Done, Exec, Plan, Row, Statement, to_json};
use crate::identity::*;
use crate::public::MailRecord;
use crate::sql::identity as sql;
use crate::{params, values};

/// Columns `crate::sql::USER_COLUMNS`, from `at`.
fn user_at(r: &Row, at: usize) -> Result<SsoUserRecord, StoreError> {
    Ok(SsoUserRecord {
        user_id: r.get(at)?,
        email: r.get(at + 1)?,
        password_hash: r.get(at + 2)?,
        given_name: r.get(at + 3)?,
        family_name: r.get(at + 4)?,
        email_verified: r.get(at + 5)?,
        company_number: r.get(at + 6)?,
        company_name: r.get(at + 7)?,
        company_role: r.get(at + 8)?,
        created_at_ms: r.get(at + 9)?,
        updated_at_ms: r.get(at + 10)?,
    })
}

fn user(r: &Row) -> Result<SsoUserRecord, StoreError> {
    user_at(r, 0)
}

fn client(r: &Row) -> Result<SsoClientRecord, StoreError> {
    Ok(SsoClientRecord {
        client_id: r.get(0)?,
        name: r.get(1)?,
        secret_hash: r.get(2)?,
        redirect_uris: r.json(3)?,
        post_logout_redirect_uris: r.json(4)?,
        created_at_ms: r.get(5)?,
    })
}

fn user_listing(r: &Row) -> Result<SsoUserListing, StoreError> {
    Ok(SsoUserListing {
        user_id: r.get(0)?,
        email: r.get(1)?,
        given_name: r.get(2)?,
        family_name: r.get(3)?,
        company_number: r.get(4)?,
        company_name: r.get(5)?,
        company_role: r.get(6)?,
        created_at_ms: r.get(7)?,
        disabled_at_ms: r.get(8)?,
    })
}

fn client_listing(r: &Row) -> Result<SsoClientListing, StoreError> {
    Ok(SsoClientListing {
        client_id: r.get(0)?,
        name: r.get(1)?,
        confidential: r.get(2)?,
        redirect_uris: r.json(3)?,
        created_at_ms: r.get(4)?,
        disabled_at_ms: r.get(5)?,
    })
}

fn password_reset(r: &Row) -> Result<PasswordResetRecord, StoreError> {
    Ok(PasswordResetRecord {
        reset_id: r.get(0)?,
        token_hash: r.get(1)?,
        user_id: r.get(2)?,
        created_at_ms: r.get(3)?,
        expires_at_ms: r.get(4)?,
        used_at_ms: r.get(5)?,
    })
}

fn ticket(r: &Row) -> Result<TicketRecord, StoreError> {
    Ok(TicketRecord {
        ticket_id: r.get(0)?,
        client_id: r.get(1)?,
        redirect_uri: r.get(2)?,
        scope: r.get(3)?,
        state: r.get(4)?,
        nonce: r.get(5)?,
        code_challenge: r.get(6)?,
        prompt: r.get(7)?,
        max_age: r.get(8)?,
        login_hint: r.get(9)?,
        browser_hash: r.get(10)?,
        user_id: r.get(11)?,
        auth_time_ms: r.get(12)?,
        session_selector: r.get(13)?,
        created_at_ms: r.get(14)?,
        expires_at_ms: r.get(15)?,
    })
}

fn session(r: &Row) -> Result<SessionRecord, StoreError> {
    Ok(SessionRecord {
        selector: r.get(0)?,
        verifier_hash: r.get(1)?,
        user_id: r.get(2)?,
        auth_time_ms: r.get(3)?,
        created_at_ms: r.get(4)?,
        expires_at_ms: r.get(5)?,
        ended_at_ms: r.get(6)?,
    })
}

fn consent(r: &Row) -> Result<ConsentRecord, StoreError> {
    Ok(ConsentRecord {
        user_id: r.get(0)?,
        client_id: r.get(1)?,
        scope: r.get(2)?,
        granted_at_ms: r.get(3)?,
    })
}

fn code(r: &Row) -> Result<AuthCodeRecord, StoreError> {
    Ok(AuthCodeRecord {
        selector: r.get(0)?,
        verifier_hash: r.get(1)?,
        client_id: r.get(2)?,
        redirect_uri: r.get(3)?,
        code_challenge: r.get(4)?,
        user_id: r.get(5)?,
        scope: r.get(6)?,
        nonce: r.get(7)?,
        auth_time_ms: r.get(8)?,
        session_selector: r.get(9)?,
        created_at_ms: r.get(10)?,
        expires_at_ms: r.get(11)?,
    })
}

/// A family's columns, from `at`.
fn family_at(r: &Row, at: usize) -> Result<TokenFamily, StoreError> {
    Ok(TokenFamily {
        family_id: r.get(at)?,
        client_id: r.get(at + 1)?,
        user_id: r.get(at + 2)?,
        scope: r.get(at + 3)?,
        auth_time_ms: r.get(at + 4)?,
        session_selector: r.get(at + 5)?,
        created_at_ms: r.get(at + 6)?,
        revoked_at_ms: r.get(at + 7)?,
    })
}

fn access_grant(r: &Row) -> Result<AccessGrant, StoreError> {
    Ok(AccessGrant {
        verifier_hash: r.get(0)?,
        scope: r.get(1)?,
        expires_at_ms: r.get(2)?,
        client_id: r.get(3)?,
        family_revoked: r.get(4)?,
        user: user_at(r, 5)?,
    })
}

/// A person's mail, queued in the outbox.
pub(crate) fn queue_mail(mail: &MailRecord) -> Statement {
    Statement::change(
        sql::MAIL_PERSON,
        values![
            mail.id.as_str(),
            mail.recipient.as_str(),
            mail.subject.as_str(),
            mail.body.as_str(),
            mail.due_ms
        ],
    )
}

/// The access and refresh token of one grant, each written only if the
/// statement before it changed a row.
fn insert_tokens(
    family_id: &str,
    family_scope: &str,
    t: &IssuedTokens,
    now_ms: i64,
) -> [Statement; 2] {
    let scope = t.access_scope.as_deref().unwrap_or(family_scope);
    [
        Statement::change(
            sql::SSO_ACCESS_TOKENS_INSERT,
            values![
                t.access.selector.clone(),
                t.access.verifier_hash.clone(),
                family_id,
                scope,
                now_ms,
                t.access.expires_at_ms
            ],
        )
        .if_changed(),
        Statement::change(
            sql::SSO_REFRESH_TOKENS_INSERT,
            values![
                t.refresh.selector.clone(),
                t.refresh.verifier_hash.clone(),
                family_id,
                now_ms,
                t.refresh.expires_at_ms
            ],
        )
        .if_changed(),
    ]
}

fn revoke_family(family_id: String, now_ms: i64) -> Plan {
    vec![Statement::change(
        sql::REVOKE_FAMILY,
        values![family_id, now_ms],
    )]
}

/// How many rows statement `i` of a plan's outcome changed.
fn changed(done: &[Done], i: usize) -> u64 {
    done.get(i).map_or(0, |d| d.changed)
}

/// What a redemption found when it read the code.
enum Redemption {
    /// Refused before it was spent (unknown, or a replay).
    Refused(GrantRefusal),
    /// Spent by this presentation, with the verdict on its bindings.
    Spends(Box<AuthCodeRecord>, Option<GrantRefusal>),
}

/// Judges the presented code from its row and plans the redemption: the
/// code spent whatever the verdict, and the family started only when its
/// bindings hold; a replay revokes the family the first presentation
/// started (none if that one was refused).
fn plan_redemption(
    row: Option<&Row>,
    r: &CodeRedemption,
) -> Result<(Redemption, Plan), StoreError> {
    let Some(row) = row else {
        return Ok((Redemption::Refused(GrantRefusal::Unknown), Vec::new()));
    };
    let code = code(row)?;
    if code.verifier_hash != r.verifier_hash {
        return Ok((Redemption::Refused(GrantRefusal::Unknown), Vec::new()));
    }
    if row.get::<Option<i64>>(12)?.is_some() {
        let plan = match row.get::<Option<String>>(13)? {
            Some(family) => revoke_family(family, r.now_ms),
            None => Vec::new(),
        };
        return Ok((Redemption::Refused(GrantRefusal::Replayed), plan));
    }
    let refusal = judge_code(&code, r);
    let mut plan = vec![Statement::change(
        sql::SPEND_CODE,
        values![
            r.selector.clone(),
            r.verifier_hash.clone(),
            r.now_ms,
            refusal.is_none().then(|| r.family_id.clone())
        ],
    )];
    if refusal.is_none() {
        plan.push(
            Statement::change(
                sql::SSO_FAMILIES_INSERT,
                values![
                    r.family_id.as_str(),
                    code.client_id.as_str(),
                    code.user_id.as_str(),
                    code.scope.as_str(),
                    code.auth_time_ms,
                    code.session_selector.clone(),
                    r.now_ms
                ],
            )
            .if_changed(),
        );
        plan.extend(insert_tokens(
            &r.family_id,
            &code.scope,
            &r.tokens,
            r.now_ms,
        ));
    }
    Ok((Redemption::Spends(Box::new(code), refusal), plan))
}

/// One attempt at a redemption, read and written in one transaction:
/// `None` if another presentation spent the code first (on PostgreSQL,
/// between the read and the spend; the next attempt finds it spent).
async fn redeem<B: Backend>(store: &B, r: &CodeRedemption) -> Result<Option<Redeemed>, StoreError> {
    let read = Statement::read(sql::CODE, values![r.selector.clone()]);
    let redemption = r.clone();
    let (found, done) = store
        .write_after(read, move |row| plan_redemption(row, &redemption))
        .await?;
    Ok(match found {
        Redemption::Refused(refusal) => Some(Redeemed::Refused(refusal)),
        Redemption::Spends(..) if changed(&done, 0) == 0 => None,
        Redemption::Spends(_, Some(refusal)) => Some(Redeemed::Refused(refusal)),
        Redemption::Spends(code, None) => Some(Redeemed::Issued(code)),
    })
}

/// What a rotation found when it read the token: refused, or the family
/// whose next tokens the plan issues.
enum Rotation {
    Refused(GrantRefusal),
    Spends(TokenFamily),
}

/// Judges the presented token from its row and plans the rotation: spend it
/// and issue the family's next tokens, or revoke the family a replay
/// betrayed, or nothing.
fn plan_rotation(row: Option<&Row>, r: &RefreshRotation) -> Result<(Rotation, Plan), StoreError> {
    let refused = |refusal| Ok((Rotation::Refused(refusal), Vec::new()));
    let Some(row) = row else {
        return refused(GrantRefusal::Unknown);
    };
    let verifier_hash: Vec<u8> = row.get(0)?;
    if verifier_hash != r.verifier_hash {
        return refused(GrantRefusal::Unknown);
    }
    let used = row.get::<Option<i64>>(1)?.is_some();
    let expires_at_ms: i64 = row.get(2)?;
    let family = family_at(row, 3)?;
    if let Some(refusal) = judge_refresh(&family, used, expires_at_ms, r) {
        let plan = match refusal.revokes_family() {
            true => revoke_family(family.family_id, r.now_ms),
            false => Vec::new(),
        };
        return Ok((Rotation::Refused(refusal), plan));
    }
    let mut plan = vec![Statement::change(
        sql::SPEND_REFRESH_TOKEN,
        values![r.selector.clone(), r.verifier_hash.clone(), r.now_ms],
    )];
    plan.extend(insert_tokens(
        &family.family_id,
        &family.scope,
        &r.tokens,
        r.now_ms,
    ));
    Ok((Rotation::Spends(family), plan))
}

/// One attempt at a rotation, read and written in one transaction: `None`
/// if another presentation spent the token first (on PostgreSQL, between
/// the read and the spend; the next attempt finds it spent).
async fn rotate<B: Backend>(store: &B, r: &RefreshRotation) -> Result<Option<Rotated>, StoreError> {
    let read = Statement::read(sql::REFRESH_TOKEN, values![r.selector.clone()]);
    let rotation = r.clone();
    let (found, done) = store
        .write_after(read, move |row| plan_rotation(row, &rotation))
        .await?;
    Ok(match found {
        Rotation::Refused(refusal) => Some(Rotated::Refused(refusal)),
        Rotation::Spends(_) if changed(&done, 0) == 0 => None,
        Rotation::Spends(family) => Some(Rotated::Issued(family)),
    })
}

#[async_trait]
impl<B: Backend> IdentityDirectory for B {
    async fn insert_sso_user(&self, u: SsoUserRecord) -> Result<bool, StoreError> {
        let plan = vec![Statement::change(
            sql::INSERT_USER.as_str(),
            values![
                u.user_id,
                u.email,
                u.password_hash,
                u.given_name,
                u.family_name,
                u.email_verified,
                u.company_number,
                u.company_name,
                u.company_role,
                u.created_at_ms,
                u.updated_at_ms
            ],
        )];
        Ok(changed(&self.write(plan).await?, 0) > 0)
    }

    async fn sso_user(&self, user_id: &str) -> Result<Option<SsoUserRecord>, StoreError> {
        self.one(sql::SSO_USER.as_str(), &params![user_id], user)
            .await
    }

    async fn sso_user_by_email(&self, email: &str) -> Result<Option<SsoUserRecord>, StoreError> {
        self.one(sql::SSO_USER_BY_EMAIL.as_str(), &params![email], user)
            .await
    }

    async fn put_sso_client(&self, k: SsoClientRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::SSO_CLIENTS_PUT,
            values![
                k.client_id,
                k.name,
                k.secret_hash,
                to_json(&k.redirect_uris)?,
                to_json(&k.post_logout_redirect_uris)?,
                k.created_at_ms
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn sso_client(&self, client_id: &str) -> Result<Option<SsoClientRecord>, StoreError> {
        self.one(
            sql::SSO_CLIENTS_SELECT_BY_CLIENT_ID,
            &params![client_id],
            client,
        )
        .await
    }

    async fn sso_users(&self) -> Result<Vec<SsoUserListing>, StoreError> {
        self.all(sql::SSO_USERS_LIST, &[], user_listing).await
    }

    async fn sso_clients(&self) -> Result<Vec<SsoClientListing>, StoreError> {
        self.all(sql::SSO_CLIENTS_LIST, &[], client_listing).await
    }

    async fn disable_sso_user(&self, user_id: &str, now_ms: i64) -> Result<bool, StoreError> {
        // All of it, or none. The sessions and codes go first, on the
        // condition the disable itself has; the families are revoked only
        // after the disable changed a row (on PostgreSQL even an `UPDATE`
        // of no family moves `sso_epoch`).
        let plan = vec![
            Statement::change(sql::END_USER_SESSIONS_IF_ENABLED, values![user_id, now_ms]),
            Statement::change(sql::SPEND_USER_CODES_IF_ENABLED, values![user_id, now_ms]),
            Statement::change(sql::DISABLE_USER, values![user_id, now_ms]),
            Statement::change(sql::REVOKE_USER_FAMILIES, values![user_id, now_ms]).if_changed(),
        ];
        Ok(changed(&self.write(plan).await?, 2) > 0)
    }

    async fn disable_sso_client(&self, client_id: &str, now_ms: i64) -> Result<bool, StoreError> {
        // All of it, or none, in the order `disable_sso_user` explains.
        let plan = vec![
            Statement::change(
                sql::SPEND_CLIENT_CODES_IF_ENABLED,
                values![client_id, now_ms],
            ),
            Statement::change(sql::DISABLE_CLIENT, values![client_id, now_ms]),
            Statement::change(sql::REVOKE_CLIENT_FAMILIES, values![client_id, now_ms]).if_changed(),
        ];
        Ok(changed(&self.write(plan).await?, 1) > 0)
    }

    async fn request_password_reset(
        &self,
        r: PasswordResetRecord,
        mail: Option<MailRecord>,
    ) -> Result<(), StoreError> {
        let mut plan = vec![Statement::change(
            sql::PASSWORD_RESET_INSERT,
            values![
                r.reset_id,
                r.token_hash,
                r.user_id,
                r.created_at_ms,
                r.expires_at_ms
            ],
        )];
        plan.extend(mail.as_ref().map(queue_mail));
        self.write(plan).await.map(drop)
    }

    async fn password_reset(
        &self,
        token_hash: &[u8],
    ) -> Result<Option<PasswordResetRecord>, StoreError> {
        self.one(
            sql::PASSWORD_RESET_SELECT,
            &params![token_hash],
            password_reset,
        )
        .await
    }

    async fn reset_password(
        &self,
        token_hash: &[u8],
        change: NewPassword,
    ) -> Result<bool, StoreError> {
        // All of it, or none: nothing is written (the link stays unspent)
        // unless the link is live and the person not disabled. What may
        // change no row carries that condition and runs first; spending the
        // links (the presented one among them) then decides the rest.
        let (user_id, now_ms) = (change.user_id.as_str(), change.now_ms);
        let link = || values![user_id, now_ms, token_hash.to_vec()];
        let plan = vec![
            Statement::change(sql::END_USER_SESSIONS_IF_LINK_LIVE, link()),
            Statement::change(sql::SPEND_USER_CODES_IF_LINK_LIVE, link()),
            Statement::change(sql::SPEND_USER_RESETS_IF_LINK_LIVE, link()),
            Statement::change(
                sql::SET_PASSWORD,
                values![user_id, change.password_hash.as_str(), now_ms],
            )
            .if_changed(),
            queue_mail(&change.notice).if_changed(),
            Statement::change(sql::REVOKE_USER_FAMILIES, values![user_id, now_ms]).if_changed(),
        ];
        Ok(changed(&self.write(plan).await?, 3) > 0)
    }

    async fn change_password(
        &self,
        change: NewPassword,
        keep_session: &[u8],
    ) -> Result<bool, StoreError> {
        // All of it, or none: nothing is written if the person is disabled.
        // What may change no row carries that condition and runs first; the
        // notice, one row or none, then decides the rest (the password set
        // by an `UPDATE` of `sso_users` would move `sso_epoch` on
        // PostgreSQL even when it changed no row).
        let (user_id, now_ms) = (change.user_id.as_str(), change.now_ms);
        let mail = &change.notice;
        let plan = vec![
            Statement::change(
                sql::END_OTHER_SESSIONS_IF_ENABLED,
                values![user_id, now_ms, keep_session.to_vec()],
            ),
            Statement::change(sql::SPEND_USER_RESETS_IF_ENABLED, values![user_id, now_ms]),
            Statement::change(
                sql::MAIL_PERSON_IF_ENABLED,
                values![
                    mail.id.as_str(),
                    mail.recipient.as_str(),
                    mail.subject.as_str(),
                    mail.body.as_str(),
                    mail.due_ms,
                    user_id
                ],
            ),
            Statement::change(
                sql::SET_PASSWORD,
                values![user_id, change.password_hash.as_str(), now_ms],
            )
            .if_changed(),
            Statement::change(
                sql::REVOKE_OTHER_FAMILIES,
                values![user_id, now_ms, keep_session.to_vec()],
            )
            .if_changed(),
        ];
        Ok(changed(&self.write(plan).await?, 3) > 0)
    }
}

#[async_trait]
impl<B: Backend> SignInStore for B {
    async fn insert_ticket(&self, t: TicketRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::INSERT_TICKET,
            values![
                t.ticket_id,
                t.client_id,
                t.redirect_uri,
                t.scope,
                t.state,
                t.nonce,
                t.code_challenge,
                t.prompt,
                t.max_age,
                t.login_hint,
                t.browser_hash,
                t.user_id,
                t.auth_time_ms,
                t.session_selector,
                t.created_at_ms,
                t.expires_at_ms
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn ticket(&self, ticket_id: &str) -> Result<Option<TicketRecord>, StoreError> {
        self.one(sql::TICKET, &params![ticket_id], ticket).await
    }

    async fn sign_in(&self, ticket_id: &str, s: SessionRecord) -> Result<bool, StoreError> {
        // The session opens only if the ticket is still there.
        let plan = vec![
            Statement::change(
                sql::SIGN_IN_TICKET,
                values![
                    ticket_id,
                    s.user_id.as_str(),
                    s.auth_time_ms,
                    s.selector.clone()
                ],
            ),
            Statement::change(
                sql::SSO_SESSIONS_INSERT,
                values![
                    s.selector,
                    s.verifier_hash,
                    s.user_id,
                    s.auth_time_ms,
                    s.created_at_ms,
                    s.expires_at_ms
                ],
            )
            .if_changed(),
        ];
        Ok(changed(&self.write(plan).await?, 0) > 0)
    }

    async fn cancel_ticket(&self, ticket_id: &str) -> Result<bool, StoreError> {
        let plan = vec![Statement::change(
            sql::SSO_TICKETS_DELETE_BY_TICKET_ID,
            values![ticket_id],
        )];
        Ok(changed(&self.write(plan).await?, 0) > 0)
    }

    async fn session(&self, selector: &[u8]) -> Result<Option<SessionRecord>, StoreError> {
        self.one(
            sql::SSO_SESSIONS_SELECT_BY_SELECTOR,
            &params![selector],
            session,
        )
        .await
    }

    async fn end_session(&self, selector: &[u8], now_ms: i64) -> Result<(), StoreError> {
        let plan = vec![
            Statement::change(sql::END_SESSION, values![selector.to_vec(), now_ms]),
            Statement::change(
                sql::REVOKE_FAMILIES_OF_SESSION,
                values![selector.to_vec(), now_ms],
            ),
        ];
        self.write(plan).await.map(drop)
    }

    async fn consent(
        &self,
        user_id: &str,
        client_id: &str,
    ) -> Result<Option<ConsentRecord>, StoreError> {
        self.one(
            sql::SSO_CONSENTS_SELECT_BY_USER_ID,
            &params![user_id, client_id],
            consent,
        )
        .await
    }

    async fn issue_code(&self, issue: CodeIssue) -> Result<bool, StoreError> {
        let CodeIssue {
            code,
            ticket_id,
            consent,
        } = issue;
        let mut plan = Vec::with_capacity(3);
        // Spending the ticket decides the rest: the code is stored, and the
        // consent recorded, only if this spent it.
        let spends_ticket = ticket_id.is_some();
        plan.extend(ticket_id.map(|ticket| {
            Statement::change(sql::SSO_TICKETS_DELETE_BY_TICKET_ID, values![ticket])
        }));
        plan.push(
            Statement::change(
                sql::SSO_CODES_INSERT,
                values![
                    code.selector,
                    code.verifier_hash,
                    code.client_id,
                    code.redirect_uri,
                    code.code_challenge,
                    code.user_id,
                    code.scope,
                    code.nonce,
                    code.auth_time_ms,
                    code.session_selector,
                    code.created_at_ms,
                    code.expires_at_ms
                ],
            )
            .if_changed(),
        );
        plan.extend(consent.map(|k| {
            Statement::change(
                sql::SSO_CONSENTS_INSERT,
                values![k.user_id, k.client_id, k.scope, k.granted_at_ms],
            )
            .if_changed()
        }));
        let done = self.write(plan).await?;
        Ok(!spends_ticket || changed(&done, 0) > 0)
    }

    async fn redeem_code(&self, redemption: CodeRedemption) -> Result<Redeemed, StoreError> {
        // A code once spent stays spent, so a second attempt always settles.
        for _ in 0..2 {
            if let Some(outcome) = redeem(self, &redemption).await? {
                return Ok(outcome);
            }
        }
        Err(StoreError::Internal(
            "a code was neither spent nor refusable".into(),
        ))
    }

    async fn rotate_refresh(&self, rotation: RefreshRotation) -> Result<Rotated, StoreError> {
        // A token once spent stays spent and a family once revoked stays
        // revoked, so a second attempt always settles.
        for _ in 0..2 {
            if let Some(outcome) = rotate(self, &rotation).await? {
                return Ok(outcome);
            }
        }
        Err(StoreError::Internal(
            "a refresh token was neither spent nor refusable".into(),
        ))
    }

    async fn sso_access(&self, selector: &[u8]) -> Result<Option<AccessGrant>, StoreError> {
        self.one(crate::sql::ACCESS, &params![selector], access_grant)
            .await
    }

    async fn sso_epoch(&self) -> Result<i64, StoreError> {
        let mut c = self.connection().await?;
        c.query_one(sql::SSO_EPOCH, &[]).await?.get(0)
    }

    async fn prune_identity(&self, before_ms: i64) -> Result<u64, StoreError> {
        let plan = [
            sql::SSO_TICKETS_DELETE_BY_EXPIRES_AT_MS,
            sql::SSO_CODES_DELETE_BY_EXPIRES_AT_MS,
            sql::SSO_SESSIONS_DELETE_BY_EXPIRES_AT_MS,
            sql::SSO_ACCESS_TOKENS_DELETE_BY_EXPIRES_AT_MS,
            sql::SSO_REFRESH_TOKENS_DELETE_BY_EXPIRES_AT_MS,
            sql::PASSWORD_RESETS_DELETE_BY_EXPIRES_AT_MS,
            crate::sql::dashboard::PRUNE_SESSIONS,
            crate::sql::dashboard::PRUNE_OPERATOR_SESSIONS,
            sql::SSO_FAMILIES_DELETE_EMPTY,
        ]
        .into_iter()
        .map(|statement| Statement::change(statement, values![before_ms]))
        .collect();
        Ok(self.write(plan).await?.iter().map(|d| d.changed).sum())
    }
}
