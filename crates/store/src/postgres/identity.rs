//! The identity provider's storage on PostgreSQL, where several instances
//! share the tables. What may be used once (a code, a refresh token, a
//! ticket) is spent by a conditional `UPDATE`/`DELETE`: under READ COMMITTED a
//! second transaction racing for the same row waits for the first, re-checks
//! the condition and finds it spent, so exactly one of them wins.

use async_trait::async_trait;
use deadpool_postgres::Transaction;
use tokio_postgres::Row;

use super::PgStore;
use super::errors::{db, internal};
use super::reads::{from_json, get};
use crate::error::StoreError;
use crate::identity::*;
use crate::public::MailRecord;

use crate::sql::{ACCESS as ACCESS_SQL, USER_COLUMNS};

/// Columns `USER_COLUMNS`, from `at`.
fn user_row(r: &Row, at: usize) -> Result<SsoUserRecord, StoreError> {
    Ok(SsoUserRecord {
        user_id: get(r, at)?,
        email: get(r, at + 1)?,
        password_hash: get(r, at + 2)?,
        given_name: get(r, at + 3)?,
        family_name: get(r, at + 4)?,
        email_verified: get(r, at + 5)?,
        company_number: get(r, at + 6)?,
        company_name: get(r, at + 7)?,
        company_role: get(r, at + 8)?,
        created_at_ms: get(r, at + 9)?,
        updated_at_ms: get(r, at + 10)?,
    })
}

const TICKET_COLUMNS: &str = "ticket_id, client_id, redirect_uri, scope, state, nonce, code_challenge, \
     prompt, max_age, login_hint, browser_hash, user_id, auth_time_ms, session_selector, \
     created_at_ms, expires_at_ms";

fn ticket_row(r: &Row) -> Result<TicketRecord, StoreError> {
    Ok(TicketRecord {
        ticket_id: get(r, 0)?,
        client_id: get(r, 1)?,
        redirect_uri: get(r, 2)?,
        scope: get(r, 3)?,
        state: get(r, 4)?,
        nonce: get(r, 5)?,
        code_challenge: get(r, 6)?,
        prompt: get(r, 7)?,
        max_age: get(r, 8)?,
        login_hint: get(r, 9)?,
        browser_hash: get(r, 10)?,
        user_id: get(r, 11)?,
        auth_time_ms: get(r, 12)?,
        session_selector: get(r, 13)?,
        created_at_ms: get(r, 14)?,
        expires_at_ms: get(r, 15)?,
    })
}

const CODE_COLUMNS: &str = "selector, verifier_hash, client_id, redirect_uri, code_challenge, user_id, \
     scope, nonce, auth_time_ms, session_selector, created_at_ms, expires_at_ms";

fn code_row(r: &Row) -> Result<AuthCodeRecord, StoreError> {
    Ok(AuthCodeRecord {
        selector: get(r, 0)?,
        verifier_hash: get(r, 1)?,
        client_id: get(r, 2)?,
        redirect_uri: get(r, 3)?,
        code_challenge: get(r, 4)?,
        user_id: get(r, 5)?,
        scope: get(r, 6)?,
        nonce: get(r, 7)?,
        auth_time_ms: get(r, 8)?,
        session_selector: get(r, 9)?,
        created_at_ms: get(r, 10)?,
        expires_at_ms: get(r, 11)?,
    })
}

const FAMILY_COLUMNS: &str = "f.family_id, f.client_id, f.user_id, f.scope, f.auth_time_ms, \
     f.session_selector, f.created_at_ms, f.revoked_at_ms";

/// Columns `FAMILY_COLUMNS`, from `at`.
fn family_row(r: &Row, at: usize) -> Result<TokenFamily, StoreError> {
    Ok(TokenFamily {
        family_id: get(r, at)?,
        client_id: get(r, at + 1)?,
        user_id: get(r, at + 2)?,
        scope: get(r, at + 3)?,
        auth_time_ms: get(r, at + 4)?,
        session_selector: get(r, at + 5)?,
        created_at_ms: get(r, at + 6)?,
        revoked_at_ms: get(r, at + 7)?,
    })
}

async fn execute(
    tx: &Transaction<'_>,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<u64, StoreError> {
    let statement = tx.prepare_cached(sql).await.map_err(db)?;
    tx.execute(&statement, params).await.map_err(db)
}

/// The access and refresh token of one grant, sent together (pipelined).
async fn insert_tokens(
    tx: &Transaction<'_>,
    family_id: &str,
    family_scope: &str,
    t: &IssuedTokens,
    now_ms: i64,
) -> Result<(), StoreError> {
    let scope = t.access_scope.as_deref().unwrap_or(family_scope);
    let access: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
        &t.access.selector,
        &t.access.verifier_hash,
        &family_id,
        &scope,
        &now_ms,
        &t.access.expires_at_ms,
    ];
    let refresh: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [
        &t.refresh.selector,
        &t.refresh.verifier_hash,
        &family_id,
        &now_ms,
        &t.refresh.expires_at_ms,
    ];
    tokio::try_join!(
        execute(tx, crate::sql::identity::SSO_ACCESS_TOKENS_INSERT, &access,),
        execute(
            tx,
            crate::sql::identity::SSO_REFRESH_TOKENS_INSERT,
            &refresh,
        ),
    )?;
    Ok(())
}

async fn revoke_family(
    tx: &Transaction<'_>,
    family_id: &str,
    now_ms: i64,
) -> Result<(), StoreError> {
    execute(
        tx,
        crate::sql::identity::REVOKE_FAMILY,
        &[&family_id, &now_ms],
    )
    .await
    .map(|_| ())
}

async fn redeem(tx: &Transaction<'_>, r: &CodeRedemption) -> Result<Redeemed, StoreError> {
    // Spend it first: only the transaction whose UPDATE matched may go on.
    // The family is named now so a replay can find it; if the verdict below
    // refuses the code, no family of that id is ever created.
    let sql = format!(
        "UPDATE sso_codes SET used_at_ms = $3, family_id = $4
         WHERE selector = $1 AND verifier_hash = $2 AND used_at_ms IS NULL
         RETURNING {CODE_COLUMNS}"
    );
    let statement = tx.prepare_cached(&sql).await.map_err(db)?;
    let spent = tx
        .query_opt(
            &statement,
            &[&r.selector, &r.verifier_hash, &r.now_ms, &r.family_id],
        )
        .await
        .map_err(db)?;
    let Some(row) = spent else {
        let statement = tx
            .prepare_cached(
                "SELECT family_id FROM sso_codes WHERE selector = $1 AND verifier_hash = $2",
            )
            .await
            .map_err(db)?;
        let earlier = tx
            .query_opt(&statement, &[&r.selector, &r.verifier_hash])
            .await
            .map_err(db)?;
        return match earlier {
            None => Ok(Redeemed::Refused(GrantRefusal::Unknown)),
            Some(row) => {
                if let Some(family) = get::<Option<String>>(&row, 0)? {
                    revoke_family(tx, &family, r.now_ms).await?;
                }
                Ok(Redeemed::Refused(GrantRefusal::Replayed))
            }
        };
    };
    let code = code_row(&row)?;
    if let Some(refusal) = judge_code(&code, r) {
        return Ok(Redeemed::Refused(refusal));
    }
    execute(
        tx,
        crate::sql::identity::SSO_FAMILIES_INSERT,
        &[
            &r.family_id,
            &code.client_id,
            &code.user_id,
            &code.scope,
            &code.auth_time_ms,
            &code.session_selector,
            &r.now_ms,
        ],
    )
    .await?;
    insert_tokens(tx, &r.family_id, &code.scope, &r.tokens, r.now_ms).await?;
    Ok(Redeemed::Issued(Box::new(code)))
}

/// `Ok(None)` asks the caller to roll back: the token stays unspent.
async fn rotate(tx: &Transaction<'_>, r: &RefreshRotation) -> Result<Option<Rotated>, StoreError> {
    let sql = format!(
        "UPDATE sso_refresh_tokens r SET used_at_ms = $3
         FROM sso_families f
         WHERE r.selector = $1 AND r.verifier_hash = $2 AND r.used_at_ms IS NULL
           AND r.expires_at_ms > $3 AND f.family_id = r.family_id
           AND f.client_id = $4 AND f.revoked_at_ms IS NULL
         RETURNING {FAMILY_COLUMNS}"
    );
    let statement = tx.prepare_cached(&sql).await.map_err(db)?;
    let spent = tx
        .query_opt(
            &statement,
            &[&r.selector, &r.verifier_hash, &r.now_ms, &r.client_id],
        )
        .await
        .map_err(db)?;
    if let Some(row) = spent {
        let family = family_row(&row, 0)?;
        if r.scope
            .as_deref()
            .is_some_and(|s| !scope_within(s, &family.scope))
        {
            return Ok(None);
        }
        insert_tokens(tx, &family.family_id, &family.scope, &r.tokens, r.now_ms).await?;
        return Ok(Some(Rotated::Issued(family)));
    }
    // Not spent by us: say why, and revoke the family if it was spent before.
    let sql = format!(
        "SELECT r.used_at_ms, r.expires_at_ms, {FAMILY_COLUMNS}
         FROM sso_refresh_tokens r JOIN sso_families f ON f.family_id = r.family_id
         WHERE r.selector = $1 AND r.verifier_hash = $2"
    );
    let statement = tx.prepare_cached(&sql).await.map_err(db)?;
    let Some(row) = tx
        .query_opt(&statement, &[&r.selector, &r.verifier_hash])
        .await
        .map_err(db)?
    else {
        return Ok(Some(Rotated::Refused(GrantRefusal::Unknown)));
    };
    let used_at: Option<i64> = get(&row, 0)?;
    let expires_at_ms: i64 = get(&row, 1)?;
    let family = family_row(&row, 2)?;
    let Some(refusal) = judge_refresh(&family, used_at.is_some(), expires_at_ms, r) else {
        return Err(internal("a refresh token was neither spent nor refusable"));
    };
    if refusal.revokes_family() {
        revoke_family(tx, &family.family_id, r.now_ms).await?;
    }
    Ok(Some(Rotated::Refused(refusal)))
}

#[async_trait]
impl IdentityDirectory for PgStore {
    async fn insert_sso_user(&self, u: SsoUserRecord) -> Result<bool, StoreError> {
        let c = self.conn().await?;
        let sql = format!(
            "INSERT INTO sso_users ({USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
             ON CONFLICT (email) DO NOTHING"
        );
        let n = c
            .execute(
                &sql,
                &[
                    &u.user_id,
                    &u.email,
                    &u.password_hash,
                    &u.given_name,
                    &u.family_name,
                    &u.email_verified,
                    &u.company_number,
                    &u.company_name,
                    &u.company_role,
                    &u.created_at_ms,
                    &u.updated_at_ms,
                ],
            )
            .await
            .map_err(db)?;
        Ok(n > 0)
    }

    async fn sso_user(&self, user_id: &str) -> Result<Option<SsoUserRecord>, StoreError> {
        let c = self.conn().await?;
        let sql = format!("SELECT {USER_COLUMNS} FROM sso_users WHERE user_id = $1");
        let statement = c.prepare_cached(&sql).await.map_err(db)?;
        c.query_opt(&statement, &[&user_id])
            .await
            .map_err(db)?
            .map(|r| user_row(&r, 0))
            .transpose()
    }

    async fn sso_user_by_email(&self, email: &str) -> Result<Option<SsoUserRecord>, StoreError> {
        let c = self.conn().await?;
        let sql = format!(
            "SELECT {USER_COLUMNS} FROM sso_users WHERE email = $1 AND disabled_at_ms IS NULL"
        );
        let statement = c.prepare_cached(&sql).await.map_err(db)?;
        c.query_opt(&statement, &[&email])
            .await
            .map_err(db)?
            .map(|r| user_row(&r, 0))
            .transpose()
    }

    async fn put_sso_client(&self, k: SsoClientRecord) -> Result<(), StoreError> {
        let c = self.conn().await?;
        let uris = serde_json::to_string(&k.redirect_uris).map_err(internal)?;
        let logout = serde_json::to_string(&k.post_logout_redirect_uris).map_err(internal)?;
        c.execute(
            crate::sql::identity::SSO_CLIENTS_PUT,
            &[
                &k.client_id,
                &k.name,
                &k.secret_hash,
                &uris,
                &logout,
                &k.created_at_ms,
            ],
        )
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn sso_client(&self, client_id: &str) -> Result<Option<SsoClientRecord>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(crate::sql::identity::SSO_CLIENTS_SELECT_BY_CLIENT_ID)
            .await
            .map_err(db)?;
        let Some(r) = c.query_opt(&statement, &[&client_id]).await.map_err(db)? else {
            return Ok(None);
        };
        Ok(Some(SsoClientRecord {
            client_id: get(&r, 0)?,
            name: get(&r, 1)?,
            secret_hash: get(&r, 2)?,
            redirect_uris: from_json(get(&r, 3)?)?,
            post_logout_redirect_uris: from_json(get(&r, 4)?)?,
            created_at_ms: get(&r, 5)?,
        }))
    }

    async fn sso_users(&self) -> Result<Vec<SsoUserListing>, StoreError> {
        let c = self.conn().await?;
        let rows = c
            .query(crate::sql::identity::SSO_USERS_LIST, &[])
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                Ok(SsoUserListing {
                    user_id: r.try_get(0).map_err(db)?,
                    email: r.try_get(1).map_err(db)?,
                    given_name: r.try_get(2).map_err(db)?,
                    family_name: r.try_get(3).map_err(db)?,
                    company_number: r.try_get(4).map_err(db)?,
                    company_name: r.try_get(5).map_err(db)?,
                    company_role: r.try_get(6).map_err(db)?,
                    created_at_ms: r.try_get(7).map_err(db)?,
                    disabled_at_ms: r.try_get(8).map_err(db)?,
                })
            })
            .collect()
    }

    async fn sso_clients(&self) -> Result<Vec<SsoClientListing>, StoreError> {
        let c = self.conn().await?;
        let rows = c
            .query(crate::sql::identity::SSO_CLIENTS_LIST, &[])
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                let uris: String = r.try_get(3).map_err(db)?;
                Ok(SsoClientListing {
                    client_id: r.try_get(0).map_err(db)?,
                    name: r.try_get(1).map_err(db)?,
                    confidential: r.try_get(2).map_err(db)?,
                    redirect_uris: serde_json::from_str(&uris).map_err(internal)?,
                    created_at_ms: r.try_get(4).map_err(db)?,
                    disabled_at_ms: r.try_get(5).map_err(db)?,
                })
            })
            .collect()
    }

    async fn disable_sso_user(&self, user_id: &str, now_ms: i64) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        self.disable(
            DISABLE_USER,
            &[END_USER_SESSIONS, REVOKE_USER_FAMILIES, SPEND_USER_CODES],
            user_id,
            now_ms,
        )
        .await
    }

    async fn disable_sso_client(&self, client_id: &str, now_ms: i64) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        self.disable(
            DISABLE_CLIENT,
            &[REVOKE_CLIENT_FAMILIES, SPEND_CLIENT_CODES],
            client_id,
            now_ms,
        )
        .await
    }

    async fn request_password_reset(
        &self,
        r: PasswordResetRecord,
        mail: Option<MailRecord>,
    ) -> Result<(), StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        execute(
            &tx,
            crate::sql::identity::PASSWORD_RESET_INSERT,
            &[
                &r.reset_id,
                &r.token_hash,
                &r.user_id,
                &r.created_at_ms,
                &r.expires_at_ms,
            ],
        )
        .await?;
        if let Some(mail) = mail {
            queue_mail(&tx, &mail).await?;
        }
        tx.commit().await.map_err(db)
    }

    async fn password_reset(
        &self,
        token_hash: &[u8],
    ) -> Result<Option<PasswordResetRecord>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(crate::sql::identity::PASSWORD_RESET_SELECT)
            .await
            .map_err(db)?;
        let Some(r) = c.query_opt(&statement, &[&token_hash]).await.map_err(db)? else {
            return Ok(None);
        };
        Ok(Some(PasswordResetRecord {
            reset_id: get(&r, 0)?,
            token_hash: get(&r, 1)?,
            user_id: get(&r, 2)?,
            created_at_ms: get(&r, 3)?,
            expires_at_ms: get(&r, 4)?,
            used_at_ms: get(&r, 5)?,
        }))
    }

    async fn reset_password(
        &self,
        token_hash: &[u8],
        change: NewPassword,
    ) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        let spent = execute(
            &tx,
            SPEND_PASSWORD_RESET,
            &[&token_hash, &change.now_ms, &change.user_id],
        )
        .await?
            > 0;
        // Dropped without a commit, the transaction writes nothing.
        if !spent || !set_password(&tx, &change).await? {
            return Ok(false);
        }
        for sql in [END_USER_SESSIONS, REVOKE_USER_FAMILIES, SPEND_USER_CODES] {
            execute(&tx, sql, &[&change.user_id, &change.now_ms]).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    async fn change_password(
        &self,
        change: NewPassword,
        keep_session: &[u8],
    ) -> Result<bool, StoreError> {
        use crate::sql::identity::*;
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        if !set_password(&tx, &change).await? {
            return Ok(false);
        }
        for sql in [END_OTHER_SESSIONS, REVOKE_OTHER_FAMILIES] {
            execute(&tx, sql, &[&change.user_id, &change.now_ms, &keep_session]).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(true)
    }
}

#[async_trait]
impl SignInStore for PgStore {
    async fn insert_ticket(&self, t: TicketRecord) -> Result<(), StoreError> {
        let c = self.conn().await?;
        let sql = format!(
            "INSERT INTO sso_tickets ({TICKET_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
        );
        let statement = c.prepare_cached(&sql).await.map_err(db)?;
        c.execute(
            &statement,
            &[
                &t.ticket_id,
                &t.client_id,
                &t.redirect_uri,
                &t.scope,
                &t.state,
                &t.nonce,
                &t.code_challenge,
                &t.prompt,
                &t.max_age,
                &t.login_hint,
                &t.browser_hash,
                &t.user_id,
                &t.auth_time_ms,
                &t.session_selector,
                &t.created_at_ms,
                &t.expires_at_ms,
            ],
        )
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn ticket(&self, ticket_id: &str) -> Result<Option<TicketRecord>, StoreError> {
        let c = self.conn().await?;
        let sql = format!("SELECT {TICKET_COLUMNS} FROM sso_tickets WHERE ticket_id = $1");
        let statement = c.prepare_cached(&sql).await.map_err(db)?;
        c.query_opt(&statement, &[&ticket_id])
            .await
            .map_err(db)?
            .as_ref()
            .map(ticket_row)
            .transpose()
    }

    async fn sign_in(&self, ticket_id: &str, s: SessionRecord) -> Result<bool, StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        let updated = execute(
            &tx,
            crate::sql::identity::SIGN_IN_TICKET,
            &[&ticket_id, &s.user_id, &s.auth_time_ms, &s.selector],
        )
        .await?;
        if updated == 0 {
            return Ok(false);
        }
        execute(
            &tx,
            crate::sql::identity::SSO_SESSIONS_INSERT,
            &[
                &s.selector,
                &s.verifier_hash,
                &s.user_id,
                &s.auth_time_ms,
                &s.created_at_ms,
                &s.expires_at_ms,
            ],
        )
        .await?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    async fn cancel_ticket(&self, ticket_id: &str) -> Result<bool, StoreError> {
        let c = self.conn().await?;
        let n = c
            .execute(
                crate::sql::identity::SSO_TICKETS_DELETE_BY_TICKET_ID,
                &[&ticket_id],
            )
            .await
            .map_err(db)?;
        Ok(n > 0)
    }

    async fn session(&self, selector: &[u8]) -> Result<Option<SessionRecord>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(crate::sql::identity::SSO_SESSIONS_SELECT_BY_SELECTOR)
            .await
            .map_err(db)?;
        let Some(r) = c.query_opt(&statement, &[&selector]).await.map_err(db)? else {
            return Ok(None);
        };
        Ok(Some(SessionRecord {
            selector: get(&r, 0)?,
            verifier_hash: get(&r, 1)?,
            user_id: get(&r, 2)?,
            auth_time_ms: get(&r, 3)?,
            created_at_ms: get(&r, 4)?,
            expires_at_ms: get(&r, 5)?,
            ended_at_ms: get(&r, 6)?,
        }))
    }

    async fn end_session(&self, selector: &[u8], now_ms: i64) -> Result<(), StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        execute(
            &tx,
            crate::sql::identity::END_SESSION,
            &[&selector, &now_ms],
        )
        .await?;
        execute(
            &tx,
            crate::sql::identity::REVOKE_FAMILIES_OF_SESSION,
            &[&selector, &now_ms],
        )
        .await?;
        tx.commit().await.map_err(db)
    }

    async fn consent(
        &self,
        user_id: &str,
        client_id: &str,
    ) -> Result<Option<ConsentRecord>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(crate::sql::identity::SSO_CONSENTS_SELECT_BY_USER_ID)
            .await
            .map_err(db)?;
        let Some(r) = c
            .query_opt(&statement, &[&user_id, &client_id])
            .await
            .map_err(db)?
        else {
            return Ok(None);
        };
        Ok(Some(ConsentRecord {
            user_id: get(&r, 0)?,
            client_id: get(&r, 1)?,
            scope: get(&r, 2)?,
            granted_at_ms: get(&r, 3)?,
        }))
    }

    async fn issue_code(&self, issue: CodeIssue) -> Result<bool, StoreError> {
        let CodeIssue {
            code,
            ticket_id,
            consent,
        } = issue;
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        if let Some(ticket) = &ticket_id {
            let spent = execute(
                &tx,
                crate::sql::identity::SSO_TICKETS_DELETE_BY_TICKET_ID,
                &[ticket],
            )
            .await?;
            if spent == 0 {
                return Ok(false);
            }
        }
        if let Some(k) = &consent {
            execute(
                &tx,
                crate::sql::identity::SSO_CONSENTS_INSERT,
                &[&k.user_id, &k.client_id, &k.scope, &k.granted_at_ms],
            )
            .await?;
        }
        execute(
            &tx,
            crate::sql::identity::SSO_CODES_INSERT,
            &[
                &code.selector,
                &code.verifier_hash,
                &code.client_id,
                &code.redirect_uri,
                &code.code_challenge,
                &code.user_id,
                &code.scope,
                &code.nonce,
                &code.auth_time_ms,
                &code.session_selector,
                &code.created_at_ms,
                &code.expires_at_ms,
            ],
        )
        .await?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    async fn redeem_code(&self, redemption: CodeRedemption) -> Result<Redeemed, StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        let outcome = redeem(&tx, &redemption).await?;
        tx.commit().await.map_err(db)?;
        Ok(outcome)
    }

    async fn rotate_refresh(&self, rotation: RefreshRotation) -> Result<Rotated, StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        match rotate(&tx, &rotation).await? {
            Some(outcome) => {
                tx.commit().await.map_err(db)?;
                Ok(outcome)
            }
            None => {
                tx.rollback().await.map_err(db)?;
                Ok(Rotated::Refused(GrantRefusal::ScopeExceeded))
            }
        }
    }

    async fn sso_epoch(&self) -> Result<i64, StoreError> {
        super::partner::epoch(&*self.conn().await?, crate::sql::identity::SSO_EPOCH).await
    }

    async fn sso_access(&self, selector: &[u8]) -> Result<Option<AccessGrant>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(ACCESS_SQL).await.map_err(db)?;
        let Some(r) = c.query_opt(&statement, &[&selector]).await.map_err(db)? else {
            return Ok(None);
        };
        Ok(Some(AccessGrant {
            verifier_hash: get(&r, 0)?,
            scope: get(&r, 1)?,
            expires_at_ms: get(&r, 2)?,
            client_id: get(&r, 3)?,
            family_revoked: get(&r, 4)?,
            user: user_row(&r, 5)?,
        }))
    }

    async fn prune_identity(&self, before_ms: i64) -> Result<u64, StoreError> {
        let c = self.conn().await?;
        let mut n = 0;
        for sql in [
            crate::sql::identity::SSO_TICKETS_DELETE_BY_EXPIRES_AT_MS,
            crate::sql::identity::SSO_CODES_DELETE_BY_EXPIRES_AT_MS,
            crate::sql::identity::SSO_SESSIONS_DELETE_BY_EXPIRES_AT_MS,
            crate::sql::identity::SSO_ACCESS_TOKENS_DELETE_BY_EXPIRES_AT_MS,
            crate::sql::identity::SSO_REFRESH_TOKENS_DELETE_BY_EXPIRES_AT_MS,
            crate::sql::identity::PASSWORD_RESETS_DELETE_BY_EXPIRES_AT_MS,
            crate::sql::dashboard::PRUNE_SESSIONS,
            "DELETE FROM sso_families f WHERE f.created_at_ms < $1
               AND NOT EXISTS (SELECT 1 FROM sso_refresh_tokens r WHERE r.family_id = f.family_id)
               AND NOT EXISTS (SELECT 1 FROM sso_access_tokens a WHERE a.family_id = f.family_id)",
        ] {
            n += c.execute(sql, &[&before_ms]).await.map_err(db)?;
        }
        Ok(n)
    }
}

impl PgStore {
    /// `disable` by `key` at `now_ms`, then, if it changed a row, each of
    /// `then` in the same transaction.
    async fn disable(
        &self,
        disable: &str,
        then: &[&str],
        key: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        let disabled = tx.execute(disable, &[&key, &now_ms]).await.map_err(db)? > 0;
        if disabled {
            for sql in then {
                tx.execute(*sql, &[&key, &now_ms]).await.map_err(db)?;
            }
        }
        tx.commit().await.map_err(db)?;
        Ok(disabled)
    }
}

/// Sets the password, spends the person's reset links and queues the
/// notice; `false` if the person is disabled.
async fn set_password(tx: &Transaction<'_>, change: &NewPassword) -> Result<bool, StoreError> {
    use crate::sql::identity::*;
    let set = execute(
        tx,
        SET_PASSWORD,
        &[&change.user_id, &change.password_hash, &change.now_ms],
    )
    .await?
        > 0;
    if set {
        execute(tx, SPEND_USER_RESETS, &[&change.user_id, &change.now_ms]).await?;
        queue_mail(tx, &change.notice).await?;
    }
    Ok(set)
}

async fn queue_mail(tx: &Transaction<'_>, mail: &MailRecord) -> Result<(), StoreError> {
    execute(
        tx,
        crate::sql::identity::MAIL_PERSON,
        &[
            &mail.id,
            &mail.recipient,
            &mail.subject,
            &mail.body,
            &mail.due_ms,
        ],
    )
    .await?;
    Ok(())
}
