//! The partner dashboard's tables: staff, invitations, sessions, usage and
//! the audit log.

use async_trait::async_trait;

use crate::context::dashboard::*;
use crate::error::StoreError;
use crate::exec::{Backend, Row, Statement};
use crate::sql::dashboard as sql;
use crate::{params, values};

fn member(r: &Row) -> Result<StaffMember, StoreError> {
    Ok(StaffMember {
        staff: StaffRecord {
            partner_client_id: r.get(0)?,
            user_id: r.get(1)?,
            role: r.get(2)?,
            created_at_ms: r.get(3)?,
        },
        email: r.get(4)?,
        partner_name: r.get(5)?,
    })
}

fn invitation(r: &Row) -> Result<InvitationRecord, StoreError> {
    Ok(InvitationRecord {
        id: r.get(0)?,
        partner_client_id: r.get(1)?,
        email: r.get(2)?,
        role: r.get(3)?,
        invited_by: r.get(4)?,
        created_at_ms: r.get(5)?,
        expires_at_ms: r.get(6)?,
    })
}

fn usage(r: &Row) -> Result<UsageCount, StoreError> {
    Ok(UsageCount {
        owner: r.get(0)?,
        day: r.get(1)?,
        metric: r.get(2)?,
        count: r.get(3)?,
    })
}

fn audit(r: &Row) -> Result<AuditRecord, StoreError> {
    Ok(AuditRecord {
        id: r.get(0)?,
        partner_client_id: r.get(1)?,
        user_id: r.get(2)?,
        email: r.get(3)?,
        action: r.get(4)?,
        target: r.get(5)?,
        environment: r.get(6)?,
        at_ms: r.get(7)?,
    })
}

/// Columns: the session's six, then the member's role, since, e-mail and
/// partner name.
fn session(r: &Row) -> Result<(DashboardSessionRecord, StaffMember), StoreError> {
    let session = DashboardSessionRecord {
        token_hash: r.get(0)?,
        user_id: r.get(1)?,
        partner_client_id: r.get(2)?,
        csrf: r.get(3)?,
        created_at_ms: r.get(4)?,
        expires_at_ms: r.get(5)?,
    };
    let member = StaffMember {
        staff: StaffRecord {
            partner_client_id: session.partner_client_id.clone(),
            user_id: session.user_id.clone(),
            role: r.get(6)?,
            created_at_ms: r.get(7)?,
        },
        email: r.get(8)?,
        partner_name: r.get(9)?,
    };
    Ok((session, member))
}

#[async_trait]
impl<B: Backend> DashboardStore for B {
    async fn add_usage(&self, counts: Vec<UsageCount>) -> Result<(), StoreError> {
        if counts.is_empty() {
            return Ok(());
        }
        let plan = counts
            .iter()
            .map(|u| {
                Statement::change(
                    sql::ADD_USAGE,
                    values![u.owner.as_str(), u.day.as_str(), u.metric.as_str(), u.count],
                )
            })
            .collect();
        self.write(plan).await.map(drop)
    }

    async fn usage_since(
        &self,
        owner: &str,
        since_day: &str,
    ) -> Result<Vec<UsageCount>, StoreError> {
        self.all(sql::USAGE_SINCE, &params![owner, since_day], usage)
            .await
    }

    async fn open_invitations_of_partner(
        &self,
        partner_client_id: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        let params = params![partner_client_id, now_ms];
        self.all(sql::OPEN_INVITATIONS_OF_PARTNER, &params, invitation)
            .await
    }

    async fn open_invitations_for_email(
        &self,
        email: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        let params = params![email, now_ms];
        self.all(sql::OPEN_INVITATIONS_FOR_EMAIL, &params, invitation)
            .await
    }

    async fn put_staff(&self, s: StaffRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::PUT_STAFF,
            values![s.partner_client_id, s.user_id, s.role, s.created_at_ms],
        )];
        self.write(plan).await.map(drop)
    }

    async fn remove_staff(
        &self,
        partner_client_id: &str,
        user_id: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let plan = vec![
            Statement::change(sql::REMOVE_STAFF, values![partner_client_id, user_id]),
            Statement::change(
                sql::END_STAFF_SESSIONS,
                values![partner_client_id, user_id, at_ms],
            ),
        ];
        let done = self.write(plan).await?;
        Ok(done.first().is_some_and(|d| d.changed == 1))
    }

    async fn staff_of_user(&self, user_id: &str) -> Result<Vec<StaffMember>, StoreError> {
        self.all(sql::STAFF_OF_USER, &params![user_id], member)
            .await
    }

    async fn staff_of_partner(
        &self,
        partner_client_id: &str,
    ) -> Result<Vec<StaffMember>, StoreError> {
        self.all(sql::STAFF_OF_PARTNER, &params![partner_client_id], member)
            .await
    }

    async fn create_dashboard_session(&self, s: DashboardSessionRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::INSERT_SESSION,
            values![
                s.token_hash,
                s.user_id,
                s.partner_client_id,
                s.csrf,
                s.created_at_ms,
                s.expires_at_ms
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn dashboard_session(
        &self,
        token_hash: &[u8],
        now_ms: i64,
    ) -> Result<Option<(DashboardSessionRecord, StaffMember)>, StoreError> {
        self.one(sql::SESSION, &params![token_hash, now_ms], session)
            .await
    }

    async fn end_dashboard_session(&self, token_hash: &[u8], at_ms: i64) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::END_SESSION,
            values![token_hash.to_vec(), at_ms],
        )];
        self.write(plan).await.map(drop)
    }

    async fn create_operator_session(&self, s: OperatorSessionRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::INSERT_OPERATOR_SESSION,
            values![
                s.token_hash,
                s.user_id,
                s.csrf,
                s.created_at_ms,
                s.expires_at_ms
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn operator_session(
        &self,
        token_hash: &[u8],
        now_ms: i64,
    ) -> Result<Option<(OperatorSessionRecord, String)>, StoreError> {
        self.one(sql::OPERATOR_SESSION, &params![token_hash, now_ms], |r| {
            Ok((
                OperatorSessionRecord {
                    token_hash: r.get(0)?,
                    user_id: r.get(1)?,
                    csrf: r.get(2)?,
                    created_at_ms: r.get(3)?,
                    expires_at_ms: r.get(4)?,
                },
                r.get(5)?,
            ))
        })
        .await
    }

    async fn end_operator_session(&self, token_hash: &[u8], at_ms: i64) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::END_OPERATOR_SESSION,
            values![token_hash.to_vec(), at_ms],
        )];
        self.write(plan).await.map(drop)
    }

    async fn audit_log(
        &self,
        partner_client_id: &str,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let params = params![partner_client_id, limit];
        self.all(sql::AUDIT_LOG, &params, audit).await
    }
}
