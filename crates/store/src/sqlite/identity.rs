//! The identity provider's storage on SQLite. Writes run on the single writer
//! thread, so a read-check-write inside one job is atomic: nothing else
//! writes between the check and the write.

use std::sync::LazyLock;

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::rows::{from_json, to_json};
use super::{SqliteStore, dialect, unavailable};
use crate::error::StoreError;
use crate::identity::*;
use crate::public::MailRecord;

use crate::sql::USER_COLUMNS;

static ACCESS_SQL: LazyLock<String> = LazyLock::new(|| dialect(crate::sql::ACCESS));

/// Columns `USER_COLUMNS`, from `at`.
fn user_row(r: &Row<'_>, at: usize) -> rusqlite::Result<SsoUserRecord> {
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

const TICKET_COLUMNS: &str = "ticket_id, client_id, redirect_uri, scope, state, nonce, code_challenge, \
     prompt, max_age, login_hint, browser_hash, user_id, auth_time_ms, session_selector, \
     created_at_ms, expires_at_ms";

fn ticket_row(r: &Row<'_>) -> rusqlite::Result<TicketRecord> {
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

const CODE_COLUMNS: &str = "selector, verifier_hash, client_id, redirect_uri, code_challenge, user_id, \
     scope, nonce, auth_time_ms, session_selector, created_at_ms, expires_at_ms";

fn code_row(r: &Row<'_>) -> rusqlite::Result<AuthCodeRecord> {
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

const FAMILY_COLUMNS: &str = "f.family_id, f.client_id, f.user_id, f.scope, f.auth_time_ms, \
     f.session_selector, f.created_at_ms, f.revoked_at_ms";

/// Columns `FAMILY_COLUMNS`, from `at`.
fn family_row(r: &Row<'_>, at: usize) -> rusqlite::Result<TokenFamily> {
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

fn insert_family(c: &Connection, f: &TokenFamily) -> rusqlite::Result<()> {
    c.prepare_cached(shared!(crate::sql::identity::SSO_FAMILIES_INSERT))?
        .execute(params![
            f.family_id,
            f.client_id,
            f.user_id,
            f.scope,
            f.auth_time_ms,
            f.session_selector,
            f.created_at_ms
        ])?;
    Ok(())
}

fn insert_tokens(
    c: &Connection,
    family: &TokenFamily,
    t: &IssuedTokens,
    now_ms: i64,
) -> rusqlite::Result<()> {
    let family_id = &family.family_id;
    let scope = t.access_scope.as_deref().unwrap_or(&family.scope);
    c.prepare_cached(shared!(crate::sql::identity::SSO_ACCESS_TOKENS_INSERT))?
        .execute(params![
            t.access.selector,
            t.access.verifier_hash,
            family_id,
            scope,
            now_ms,
            t.access.expires_at_ms
        ])?;
    c.prepare_cached(shared!(crate::sql::identity::SSO_REFRESH_TOKENS_INSERT))?
        .execute(params![
            t.refresh.selector,
            t.refresh.verifier_hash,
            family_id,
            now_ms,
            t.refresh.expires_at_ms
        ])?;
    Ok(())
}

fn revoke_family(c: &Connection, family_id: &str, now_ms: i64) -> rusqlite::Result<()> {
    c.prepare_cached(shared!(crate::sql::identity::REVOKE_FAMILY))?
        .execute(params![family_id, now_ms])?;
    Ok(())
}

fn redeem(c: &Connection, r: &CodeRedemption) -> rusqlite::Result<Redeemed> {
    let found = c
        .prepare_cached(&format!(
            "SELECT {CODE_COLUMNS}, used_at_ms, family_id FROM sso_codes WHERE selector = ?1"
        ))?
        .query_row([&r.selector], |row| {
            Ok((
                code_row(row)?,
                row.get::<_, Option<i64>>(12)?,
                row.get::<_, Option<String>>(13)?,
            ))
        })
        .optional()?;
    let Some((code, used_at, family)) = found else {
        return Ok(Redeemed::Refused(GrantRefusal::Unknown));
    };
    if code.verifier_hash != r.verifier_hash {
        return Ok(Redeemed::Refused(GrantRefusal::Unknown));
    }
    if used_at.is_some() {
        if let Some(family) = family {
            revoke_family(c, &family, r.now_ms)?;
        }
        return Ok(Redeemed::Refused(GrantRefusal::Replayed));
    }
    let refusal = judge_code(&code, r);
    // Spent by this presentation whatever the verdict; the family is named
    // only when it is started.
    c.prepare_cached("UPDATE sso_codes SET used_at_ms = ?2, family_id = ?3 WHERE selector = ?1")?
        .execute(params![
            r.selector,
            r.now_ms,
            refusal.is_none().then_some(&r.family_id)
        ])?;
    if let Some(refusal) = refusal {
        return Ok(Redeemed::Refused(refusal));
    }
    let family = TokenFamily {
        family_id: r.family_id.clone(),
        client_id: code.client_id.clone(),
        user_id: code.user_id.clone(),
        scope: code.scope.clone(),
        auth_time_ms: code.auth_time_ms,
        session_selector: code.session_selector.clone(),
        created_at_ms: r.now_ms,
        revoked_at_ms: None,
    };
    insert_family(c, &family)?;
    insert_tokens(c, &family, &r.tokens, r.now_ms)?;
    Ok(Redeemed::Issued(Box::new(code)))
}

fn rotate(c: &Connection, r: &RefreshRotation) -> rusqlite::Result<Rotated> {
    let found = c
        .prepare_cached(&format!(
            "SELECT r.verifier_hash, r.used_at_ms, r.expires_at_ms, {FAMILY_COLUMNS}
             FROM sso_refresh_tokens r JOIN sso_families f ON f.family_id = r.family_id
             WHERE r.selector = ?1"
        ))?
        .query_row([&r.selector], |row| {
            Ok((
                row.get::<_, Vec<u8>>(0)?,
                row.get::<_, Option<i64>>(1)?,
                row.get::<_, i64>(2)?,
                family_row(row, 3)?,
            ))
        })
        .optional()?;
    let Some((verifier_hash, used_at, expires_at_ms, family)) = found else {
        return Ok(Rotated::Refused(GrantRefusal::Unknown));
    };
    if verifier_hash != r.verifier_hash {
        return Ok(Rotated::Refused(GrantRefusal::Unknown));
    }
    if let Some(refusal) = judge_refresh(&family, used_at.is_some(), expires_at_ms, r) {
        if refusal.revokes_family() {
            revoke_family(c, &family.family_id, r.now_ms)?;
        }
        return Ok(Rotated::Refused(refusal));
    }
    c.prepare_cached("UPDATE sso_refresh_tokens SET used_at_ms = ?2 WHERE selector = ?1")?
        .execute(params![r.selector, r.now_ms])?;
    insert_tokens(c, &family, &r.tokens, r.now_ms)?;
    Ok(Rotated::Issued(family))
}

fn issue_code(
    c: &Connection,
    code: &AuthCodeRecord,
    ticket_id: Option<&str>,
    consent: Option<&ConsentRecord>,
) -> rusqlite::Result<bool> {
    if let Some(ticket) = ticket_id {
        let spent = c
            .prepare_cached(shared!(
                crate::sql::identity::SSO_TICKETS_DELETE_BY_TICKET_ID
            ))?
            .execute([ticket])?;
        if spent == 0 {
            return Ok(false);
        }
    }
    if let Some(k) = consent {
        c.prepare_cached(shared!(crate::sql::identity::SSO_CONSENTS_INSERT))?
            .execute(params![k.user_id, k.client_id, k.scope, k.granted_at_ms])?;
    }
    c.prepare_cached(shared!(crate::sql::identity::SSO_CODES_INSERT))?
        .execute(params![
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
        ])?;
    Ok(true)
}

fn prune(c: &Connection, before_ms: i64) -> rusqlite::Result<u64> {
    let mut n = 0;
    for sql in [
        shared!(crate::sql::identity::SSO_TICKETS_DELETE_BY_EXPIRES_AT_MS),
        shared!(crate::sql::identity::SSO_CODES_DELETE_BY_EXPIRES_AT_MS),
        shared!(crate::sql::identity::SSO_SESSIONS_DELETE_BY_EXPIRES_AT_MS),
        shared!(crate::sql::identity::SSO_ACCESS_TOKENS_DELETE_BY_EXPIRES_AT_MS),
        shared!(crate::sql::identity::SSO_REFRESH_TOKENS_DELETE_BY_EXPIRES_AT_MS),
        shared!(crate::sql::identity::PASSWORD_RESETS_DELETE_BY_EXPIRES_AT_MS),
        shared!(crate::sql::dashboard::PRUNE_SESSIONS),
        "DELETE FROM sso_families WHERE created_at_ms < ?1
           AND NOT EXISTS (SELECT 1 FROM sso_refresh_tokens r WHERE r.family_id = sso_families.family_id)
           AND NOT EXISTS (SELECT 1 FROM sso_access_tokens a WHERE a.family_id = sso_families.family_id)",
    ] {
        n += c.execute(sql, [before_ms])? as u64;
    }
    Ok(n)
}

impl SqliteStore {
    /// Runs `f` in the next group commit; an `Err` undoes only its own changes.
    pub(super) async fn write<R: Send + 'static>(
        &self,
        f: impl Fn(&Connection) -> rusqlite::Result<R> + Send + 'static,
    ) -> Result<R, StoreError> {
        self.writer.run(move |c| f(c).map_err(unavailable)).await
    }
}

#[async_trait]
impl IdentityDirectory for SqliteStore {
    async fn insert_sso_user(&self, u: SsoUserRecord) -> Result<bool, StoreError> {
        self
            .write(move |c| {
                c.execute(
                    &format!(
                        "INSERT INTO sso_users ({USER_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                         ON CONFLICT (email) DO NOTHING"
                    ),
                    params![
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
                )
                .map(|n| n > 0)
            })
            .await
    }

    async fn sso_user(&self, user_id: &str) -> Result<Option<SsoUserRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(&format!(
                "SELECT {USER_COLUMNS} FROM sso_users WHERE user_id = ?1"
            ))?
            .query_row([user_id], |r| user_row(r, 0))
            .optional()
        })
    }

    async fn sso_user_by_email(&self, email: &str) -> Result<Option<SsoUserRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(&format!(
                "SELECT {USER_COLUMNS} FROM sso_users WHERE email = ?1 AND disabled_at_ms IS NULL"
            ))?
            .query_row([email], |r| user_row(r, 0))
            .optional()
        })
    }

    async fn put_sso_client(&self, k: SsoClientRecord) -> Result<(), StoreError> {
        self.write(move |c| {
            c.execute(
                shared!(crate::sql::identity::SSO_CLIENTS_PUT),
                params![
                    k.client_id,
                    k.name,
                    k.secret_hash,
                    to_json(&k.redirect_uris)?,
                    to_json(&k.post_logout_redirect_uris)?,
                    k.created_at_ms
                ],
            )
            .map(|_| ())
        })
        .await
    }

    async fn sso_client(&self, client_id: &str) -> Result<Option<SsoClientRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(
                crate::sql::identity::SSO_CLIENTS_SELECT_BY_CLIENT_ID
            ))?
            .query_row([client_id], |r| {
                Ok(SsoClientRecord {
                    client_id: r.get(0)?,
                    name: r.get(1)?,
                    secret_hash: r.get(2)?,
                    redirect_uris: from_json(&r.get::<_, String>(3)?)?,
                    post_logout_redirect_uris: from_json(&r.get::<_, String>(4)?)?,
                    created_at_ms: r.get(5)?,
                })
            })
            .optional()
        })
    }

    async fn sso_users(&self) -> Result<Vec<SsoUserListing>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(crate::sql::identity::SSO_USERS_LIST))?
                .query_map([], |r| {
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
                })?
                .collect()
        })
    }

    async fn sso_clients(&self) -> Result<Vec<SsoClientListing>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(crate::sql::identity::SSO_CLIENTS_LIST))?
                .query_map([], |r| {
                    Ok(SsoClientListing {
                        client_id: r.get(0)?,
                        name: r.get(1)?,
                        confidential: r.get(2)?,
                        redirect_uris: from_json(&r.get::<_, String>(3)?)?,
                        created_at_ms: r.get(4)?,
                        disabled_at_ms: r.get(5)?,
                    })
                })?
                .collect()
        })
    }

    async fn disable_sso_user(&self, user_id: &str, now_ms: i64) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        let user_id = user_id.to_owned();
        // The writer runs this in its transaction: all of it, or none.
        self.write(move |c| {
            let disabled = c.execute(shared!(DISABLE_USER), params![user_id, now_ms])? > 0;
            if disabled {
                for sql in [END_USER_SESSIONS, REVOKE_USER_FAMILIES, SPEND_USER_CODES] {
                    c.execute(&crate::sqlite::dialect(sql), params![user_id, now_ms])?;
                }
            }
            Ok(disabled)
        })
        .await
    }

    async fn disable_sso_client(&self, client_id: &str, now_ms: i64) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        let client_id = client_id.to_owned();
        // The writer runs this in its transaction: all of it, or none.
        self.write(move |c| {
            let disabled = c.execute(shared!(DISABLE_CLIENT), params![client_id, now_ms])? > 0;
            if disabled {
                for sql in [REVOKE_CLIENT_FAMILIES, SPEND_CLIENT_CODES] {
                    c.execute(&crate::sqlite::dialect(sql), params![client_id, now_ms])?;
                }
            }
            Ok(disabled)
        })
        .await
    }

    async fn request_password_reset(
        &self,
        r: PasswordResetRecord,
        mail: Option<MailRecord>,
    ) -> Result<(), StoreError> {
        use crate::sql::identity::*;
        self.write(move |c| {
            c.prepare_cached(shared!(PASSWORD_RESET_INSERT))?
                .execute(params![
                    r.reset_id,
                    r.token_hash,
                    r.user_id,
                    r.created_at_ms,
                    r.expires_at_ms
                ])?;
            if let Some(mail) = &mail {
                queue_mail(c, mail)?;
            }
            Ok(())
        })
        .await
    }

    async fn password_reset(
        &self,
        token_hash: &[u8],
    ) -> Result<Option<PasswordResetRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(crate::sql::identity::PASSWORD_RESET_SELECT))?
                .query_row([token_hash], |r| {
                    Ok(PasswordResetRecord {
                        reset_id: r.get(0)?,
                        token_hash: r.get(1)?,
                        user_id: r.get(2)?,
                        created_at_ms: r.get(3)?,
                        expires_at_ms: r.get(4)?,
                        used_at_ms: r.get(5)?,
                    })
                })
                .optional()
        })
    }

    async fn reset_password(
        &self,
        token_hash: &[u8],
        change: NewPassword,
    ) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        let token_hash = token_hash.to_vec();
        // The writer runs this in its transaction: all of it, or none.
        self.write(move |c| {
            let spent = c
                .prepare_cached(shared!(SPEND_PASSWORD_RESET))?
                .execute(params![token_hash, change.now_ms, change.user_id])?
                > 0;
            if !spent || !set_password(c, &change)? {
                return Ok(false);
            }
            for sql in [END_USER_SESSIONS, REVOKE_USER_FAMILIES, SPEND_USER_CODES] {
                c.execute(&dialect(sql), params![change.user_id, change.now_ms])?;
            }
            Ok(true)
        })
        .await
    }

    async fn change_password(
        &self,
        change: NewPassword,
        keep_session: &[u8],
    ) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        let keep_session = keep_session.to_vec();
        self.write(move |c| {
            if !set_password(c, &change)? {
                return Ok(false);
            }
            for sql in [END_OTHER_SESSIONS, REVOKE_OTHER_FAMILIES] {
                c.execute(
                    &dialect(sql),
                    params![change.user_id, change.now_ms, keep_session],
                )?;
            }
            Ok(true)
        })
        .await
    }
}

#[async_trait]
impl SignInStore for SqliteStore {
    async fn insert_ticket(&self, t: TicketRecord) -> Result<(), StoreError> {
        self.write(move |c| {
            c.prepare_cached(&format!(
                    "INSERT INTO sso_tickets ({TICKET_COLUMNS})
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
                ))?
            .execute(params![
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
            ])
            .map(|_| ())
        })
        .await
    }

    async fn ticket(&self, ticket_id: &str) -> Result<Option<TicketRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(&format!(
                "SELECT {TICKET_COLUMNS} FROM sso_tickets WHERE ticket_id = ?1"
            ))?
            .query_row([ticket_id], ticket_row)
            .optional()
        })
    }

    async fn sign_in(&self, ticket_id: &str, s: SessionRecord) -> Result<bool, StoreError> {
        let ticket_id = ticket_id.to_owned();
        self.write(move |c| {
            let updated = c
                .prepare_cached(shared!(crate::sql::identity::SIGN_IN_TICKET))?
                .execute(params![ticket_id, s.user_id, s.auth_time_ms, s.selector])?;
            if updated == 0 {
                return Ok(false);
            }
            c.prepare_cached(shared!(crate::sql::identity::SSO_SESSIONS_INSERT))?
                .execute(params![
                    s.selector,
                    s.verifier_hash,
                    s.user_id,
                    s.auth_time_ms,
                    s.created_at_ms,
                    s.expires_at_ms
                ])?;
            Ok(true)
        })
        .await
    }

    async fn cancel_ticket(&self, ticket_id: &str) -> Result<bool, StoreError> {
        let ticket_id = ticket_id.to_owned();
        self.write(move |c| {
            c.prepare_cached(shared!(
                crate::sql::identity::SSO_TICKETS_DELETE_BY_TICKET_ID
            ))?
            .execute([&ticket_id])
            .map(|n| n > 0)
        })
        .await
    }

    async fn session(&self, selector: &[u8]) -> Result<Option<SessionRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(
                crate::sql::identity::SSO_SESSIONS_SELECT_BY_SELECTOR
            ))?
            .query_row([selector], |r| {
                Ok(SessionRecord {
                    selector: r.get(0)?,
                    verifier_hash: r.get(1)?,
                    user_id: r.get(2)?,
                    auth_time_ms: r.get(3)?,
                    created_at_ms: r.get(4)?,
                    expires_at_ms: r.get(5)?,
                    ended_at_ms: r.get(6)?,
                })
            })
            .optional()
        })
    }

    async fn end_session(&self, selector: &[u8], now_ms: i64) -> Result<(), StoreError> {
        let selector = selector.to_vec();
        self.write(move |c| {
            c.prepare_cached(shared!(crate::sql::identity::END_SESSION))?
                .execute(params![selector, now_ms])?;
            c.prepare_cached(shared!(crate::sql::identity::REVOKE_FAMILIES_OF_SESSION))?
                .execute(params![selector, now_ms])?;
            Ok(())
        })
        .await
    }

    async fn consent(
        &self,
        user_id: &str,
        client_id: &str,
    ) -> Result<Option<ConsentRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(
                crate::sql::identity::SSO_CONSENTS_SELECT_BY_USER_ID
            ))?
            .query_row([user_id, client_id], |r| {
                Ok(ConsentRecord {
                    user_id: r.get(0)?,
                    client_id: r.get(1)?,
                    scope: r.get(2)?,
                    granted_at_ms: r.get(3)?,
                })
            })
            .optional()
        })
    }

    async fn issue_code(&self, issue: CodeIssue) -> Result<bool, StoreError> {
        self.write(move |c| {
            issue_code(
                c,
                &issue.code,
                issue.ticket_id.as_deref(),
                issue.consent.as_ref(),
            )
        })
        .await
    }

    async fn redeem_code(&self, redemption: CodeRedemption) -> Result<Redeemed, StoreError> {
        self.write(move |c| redeem(c, &redemption)).await
    }

    async fn rotate_refresh(&self, rotation: RefreshRotation) -> Result<Rotated, StoreError> {
        self.write(move |c| rotate(c, &rotation)).await
    }

    async fn sso_epoch(&self) -> Result<i64, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(crate::sql::identity::SSO_EPOCH))?
                .query_row([], |r| r.get(0))
        })
    }

    async fn sso_access(&self, selector: &[u8]) -> Result<Option<AccessGrant>, StoreError> {
        self.read(|c| {
            c.prepare_cached(&ACCESS_SQL)?
                .query_row([selector], |r| {
                    Ok(AccessGrant {
                        verifier_hash: r.get(0)?,
                        scope: r.get(1)?,
                        expires_at_ms: r.get(2)?,
                        client_id: r.get(3)?,
                        family_revoked: r.get(4)?,
                        user: user_row(r, 5)?,
                    })
                })
                .optional()
        })
    }

    async fn prune_identity(&self, before_ms: i64) -> Result<u64, StoreError> {
        self.write(move |c| prune(c, before_ms)).await
    }
}

/// Sets the password, spends the person's reset links and queues the
/// notice; `false` (nothing written) if the person is disabled.
fn set_password(c: &Connection, change: &NewPassword) -> rusqlite::Result<bool> {
    use crate::sql::identity::*;
    let set = c.prepare_cached(shared!(SET_PASSWORD))?.execute(params![
        change.user_id,
        change.password_hash,
        change.now_ms
    ])? > 0;
    if set {
        c.prepare_cached(shared!(SPEND_USER_RESETS))?
            .execute(params![change.user_id, change.now_ms])?;
        queue_mail(c, &change.notice)?;
    }
    Ok(set)
}

fn queue_mail(c: &Connection, mail: &MailRecord) -> rusqlite::Result<()> {
    c.prepare_cached(shared!(crate::sql::identity::MAIL_PERSON))?
        .execute(params![
            mail.id,
            mail.recipient,
            mail.subject,
            mail.body,
            mail.due_ms
        ])?;
    Ok(())
}
