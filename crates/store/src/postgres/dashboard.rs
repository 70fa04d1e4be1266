//! The partner dashboard's tables on PostgreSQL.

use async_trait::async_trait;
use tokio_postgres::Row;

use super::PgStore;
use super::errors::db;
use super::reads::get;
use crate::context::dashboard::*;
use crate::error::StoreError;
use crate::sql::dashboard as sql;

fn member(r: &Row) -> Result<StaffMember, StoreError> {
    Ok(StaffMember {
        staff: StaffRecord {
            partner_client_id: get(r, 0)?,
            user_id: get(r, 1)?,
            role: get(r, 2)?,
            created_at_ms: get(r, 3)?,
        },
        email: get(r, 4)?,
        partner_name: get(r, 5)?,
    })
}

fn invitation(r: &Row) -> Result<InvitationRecord, StoreError> {
    Ok(InvitationRecord {
        id: get(r, 0)?,
        partner_client_id: get(r, 1)?,
        email: get(r, 2)?,
        role: get(r, 3)?,
        invited_by: get(r, 4)?,
        created_at_ms: get(r, 5)?,
        expires_at_ms: get(r, 6)?,
    })
}

impl PgStore {
    async fn invitations(
        &self,
        query: &str,
        key: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(query).await.map_err(db)?;
        c.query(&statement, &[&key, &now_ms])
            .await
            .map_err(db)?
            .iter()
            .map(invitation)
            .collect()
    }
}

#[async_trait]
impl DashboardStore for PgStore {
    async fn add_usage(&self, counts: Vec<UsageCount>) -> Result<(), StoreError> {
        if counts.is_empty() {
            return Ok(());
        }
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        let add = tx.prepare_cached(sql::ADD_USAGE).await.map_err(db)?;
        for u in &counts {
            tx.execute(&add, &[&u.owner, &u.day, &u.metric, &u.count])
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)
    }

    async fn usage_since(
        &self,
        owner: &str,
        since_day: &str,
    ) -> Result<Vec<UsageCount>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(sql::USAGE_SINCE).await.map_err(db)?;
        c.query(&statement, &[&owner, &since_day])
            .await
            .map_err(db)?
            .iter()
            .map(|r| {
                Ok(UsageCount {
                    owner: get(r, 0)?,
                    day: get(r, 1)?,
                    metric: get(r, 2)?,
                    count: get(r, 3)?,
                })
            })
            .collect()
    }

    async fn open_invitations_of_partner(
        &self,
        partner_client_id: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        self.invitations(sql::OPEN_INVITATIONS_OF_PARTNER, partner_client_id, now_ms)
            .await
    }

    async fn open_invitations_for_email(
        &self,
        email: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        self.invitations(sql::OPEN_INVITATIONS_FOR_EMAIL, email, now_ms)
            .await
    }

    async fn put_staff(&self, s: StaffRecord) -> Result<(), StoreError> {
        let c = self.conn().await?;
        c.execute(
            sql::PUT_STAFF,
            &[&s.partner_client_id, &s.user_id, &s.role, &s.created_at_ms],
        )
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn remove_staff(
        &self,
        partner_client_id: &str,
        user_id: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        let removed = tx
            .execute(sql::REMOVE_STAFF, &[&partner_client_id, &user_id])
            .await
            .map_err(db)?;
        tx.execute(
            sql::END_STAFF_SESSIONS,
            &[&partner_client_id, &user_id, &at_ms],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(removed == 1)
    }

    async fn staff_of_user(&self, user_id: &str) -> Result<Vec<StaffMember>, StoreError> {
        let c = self.conn().await?;
        let rows = c.query(sql::STAFF_OF_USER, &[&user_id]).await.map_err(db)?;
        rows.iter().map(member).collect()
    }

    async fn staff_of_partner(
        &self,
        partner_client_id: &str,
    ) -> Result<Vec<StaffMember>, StoreError> {
        let c = self.conn().await?;
        let rows = c
            .query(sql::STAFF_OF_PARTNER, &[&partner_client_id])
            .await
            .map_err(db)?;
        rows.iter().map(member).collect()
    }

    async fn create_dashboard_session(&self, s: DashboardSessionRecord) -> Result<(), StoreError> {
        let c = self.conn().await?;
        c.execute(
            sql::INSERT_SESSION,
            &[
                &s.token_hash,
                &s.user_id,
                &s.partner_client_id,
                &s.csrf,
                &s.created_at_ms,
                &s.expires_at_ms,
            ],
        )
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn dashboard_session(
        &self,
        token_hash: &[u8],
        now_ms: i64,
    ) -> Result<Option<(DashboardSessionRecord, StaffMember)>, StoreError> {
        let c = self.conn().await?;
        let Some(r) = c
            .query_opt(sql::SESSION, &[&token_hash, &now_ms])
            .await
            .map_err(db)?
        else {
            return Ok(None);
        };
        let session = DashboardSessionRecord {
            token_hash: get(&r, 0)?,
            user_id: get(&r, 1)?,
            partner_client_id: get(&r, 2)?,
            csrf: get(&r, 3)?,
            created_at_ms: get(&r, 4)?,
            expires_at_ms: get(&r, 5)?,
        };
        let member = StaffMember {
            staff: StaffRecord {
                partner_client_id: session.partner_client_id.clone(),
                user_id: session.user_id.clone(),
                role: get(&r, 6)?,
                created_at_ms: get(&r, 7)?,
            },
            email: get(&r, 8)?,
            partner_name: get(&r, 9)?,
        };
        Ok(Some((session, member)))
    }

    async fn end_dashboard_session(&self, token_hash: &[u8], at_ms: i64) -> Result<(), StoreError> {
        let c = self.conn().await?;
        c.execute(sql::END_SESSION, &[&token_hash, &at_ms])
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn audit_log(
        &self,
        partner_client_id: &str,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let c = self.conn().await?;
        let rows = c
            .query(sql::AUDIT_LOG, &[&partner_client_id, &i64::from(limit)])
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                Ok(AuditRecord {
                    id: get(r, 0)?,
                    partner_client_id: get(r, 1)?,
                    user_id: get(r, 2)?,
                    email: get(r, 3)?,
                    action: get(r, 4)?,
                    target: get(r, 5)?,
                    environment: get(r, 6)?,
                    at_ms: get(r, 7)?,
                })
            })
            .collect()
    }
}
