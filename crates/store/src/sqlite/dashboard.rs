//! The partner dashboard's tables on SQLite.

use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::{SqliteStore, unavailable};
use crate::context::dashboard::*;
use crate::error::StoreError;
use crate::sql::dashboard as sql;

fn member(r: &rusqlite::Row<'_>) -> rusqlite::Result<StaffMember> {
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

fn invitation(r: &rusqlite::Row<'_>) -> rusqlite::Result<InvitationRecord> {
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

/// A staff change of a unit of work.
pub(crate) fn apply_staff(c: &rusqlite::Connection, w: &StaffWrite) -> rusqlite::Result<()> {
    match w {
        StaffWrite::Put(s) => c.prepare_cached(shared!(sql::PUT_STAFF))?.execute(params![
            s.partner_client_id,
            s.user_id,
            s.role,
            s.created_at_ms
        ])?,
        StaffWrite::Remove {
            partner_client_id,
            user_id,
            at_ms,
        } => {
            c.prepare_cached(shared!(sql::REMOVE_STAFF))?
                .execute(params![partner_client_id, user_id])?;
            c.prepare_cached(shared!(sql::END_STAFF_SESSIONS))?
                .execute(params![partner_client_id, user_id, at_ms])?
        }
        StaffWrite::Invite {
            invitation: i,
            mail,
        } => {
            c.prepare_cached(shared!(sql::INSERT_INVITATION))?
                .execute(params![
                    i.id,
                    i.partner_client_id,
                    i.email,
                    i.role,
                    i.invited_by,
                    i.created_at_ms,
                    i.expires_at_ms
                ])?;
            c.prepare_cached(shared!(crate::sql::identity::MAIL_PERSON))?
                .execute(params![
                    mail.id,
                    mail.recipient,
                    mail.subject,
                    mail.body,
                    mail.due_ms
                ])?
        }
        StaffWrite::EndInvitation {
            id,
            partner_client_id,
            accepted_by,
            at_ms,
        } => c
            .prepare_cached(shared!(sql::END_INVITATION))?
            .execute(params![id, partner_client_id, accepted_by, at_ms])?,
    };
    Ok(())
}

#[async_trait]
impl DashboardStore for SqliteStore {
    async fn add_usage(&self, counts: Vec<UsageCount>) -> Result<(), StoreError> {
        if counts.is_empty() {
            return Ok(());
        }
        self.writer
            .run(move |c| {
                let mut add = c
                    .prepare_cached(shared!(sql::ADD_USAGE))
                    .map_err(unavailable)?;
                for u in &counts {
                    add.execute(params![u.owner, u.day, u.metric, u.count])
                        .map_err(unavailable)?;
                }
                Ok(())
            })
            .await
    }

    async fn usage_since(
        &self,
        owner: &str,
        since_day: &str,
    ) -> Result<Vec<UsageCount>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::USAGE_SINCE))?
                .query_map([owner, since_day], |r| {
                    Ok(UsageCount {
                        owner: r.get(0)?,
                        day: r.get(1)?,
                        metric: r.get(2)?,
                        count: r.get(3)?,
                    })
                })?
                .collect()
        })
    }

    async fn open_invitations_of_partner(
        &self,
        partner_client_id: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::OPEN_INVITATIONS_OF_PARTNER))?
                .query_map(params![partner_client_id, now_ms], invitation)?
                .collect()
        })
    }

    async fn open_invitations_for_email(
        &self,
        email: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::OPEN_INVITATIONS_FOR_EMAIL))?
                .query_map(params![email, now_ms], invitation)?
                .collect()
        })
    }

    async fn put_staff(&self, s: StaffRecord) -> Result<(), StoreError> {
        self.writer
            .run(move |c| {
                c.prepare_cached(shared!(sql::PUT_STAFF))
                    .and_then(|mut q| {
                        q.execute(params![
                            s.partner_client_id,
                            s.user_id,
                            s.role,
                            s.created_at_ms
                        ])
                    })
                    .map(drop)
                    .map_err(unavailable)
            })
            .await
    }

    async fn remove_staff(
        &self,
        partner_client_id: &str,
        user_id: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let (partner, user) = (partner_client_id.to_owned(), user_id.to_owned());
        self.writer
            .run(move |c| {
                let removed = c
                    .prepare_cached(shared!(sql::REMOVE_STAFF))
                    .and_then(|mut q| q.execute(params![partner, user]))
                    .map_err(unavailable)?;
                c.prepare_cached(shared!(sql::END_STAFF_SESSIONS))
                    .and_then(|mut q| q.execute(params![partner, user, at_ms]))
                    .map_err(unavailable)?;
                Ok(removed == 1)
            })
            .await
    }

    async fn staff_of_user(&self, user_id: &str) -> Result<Vec<StaffMember>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::STAFF_OF_USER))?
                .query_map([user_id], member)?
                .collect()
        })
    }

    async fn staff_of_partner(
        &self,
        partner_client_id: &str,
    ) -> Result<Vec<StaffMember>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::STAFF_OF_PARTNER))?
                .query_map([partner_client_id], member)?
                .collect()
        })
    }

    async fn create_dashboard_session(&self, s: DashboardSessionRecord) -> Result<(), StoreError> {
        self.writer
            .run(move |c| {
                c.prepare_cached(shared!(sql::INSERT_SESSION))
                    .and_then(|mut q| {
                        q.execute(params![
                            s.token_hash,
                            s.user_id,
                            s.partner_client_id,
                            s.csrf,
                            s.created_at_ms,
                            s.expires_at_ms
                        ])
                    })
                    .map(drop)
                    .map_err(unavailable)
            })
            .await
    }

    async fn dashboard_session(
        &self,
        token_hash: &[u8],
        now_ms: i64,
    ) -> Result<Option<(DashboardSessionRecord, StaffMember)>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::SESSION))?
                .query_row(params![token_hash, now_ms], |r| {
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
                })
                .optional()
        })
    }

    async fn end_dashboard_session(&self, token_hash: &[u8], at_ms: i64) -> Result<(), StoreError> {
        let hash = token_hash.to_vec();
        self.writer
            .run(move |c| {
                c.prepare_cached(shared!(sql::END_SESSION))
                    .and_then(|mut q| q.execute(params![hash, at_ms]))
                    .map(drop)
                    .map_err(unavailable)
            })
            .await
    }

    async fn audit_log(
        &self,
        partner_client_id: &str,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::AUDIT_LOG))?
                .query_map(params![partner_client_id, limit], |r| {
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
                })?
                .collect()
        })
    }
}
