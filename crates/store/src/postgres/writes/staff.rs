//! The dashboard's staff writes within a group commit: members, their
//! roles and invitations. None takes a lock: a role is a row replaced as a
//! whole, a removal and an invitation's end happen at most once.

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;

use super::{Bound, Param};
use crate::error::StoreError;
use crate::sql::dashboard as sql;
use crate::*;

pub(crate) struct Statements {
    put: Statement,
    remove: Statement,
    end_sessions: Statement,
    invite: Statement,
    mail: Statement,
    end_invitation: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(super::db) };
        Ok(Self {
            put: p(sql::PUT_STAFF).await?,
            remove: p(sql::REMOVE_STAFF).await?,
            end_sessions: p(sql::END_STAFF_SESSIONS).await?,
            invite: p(sql::INSERT_INVITATION).await?,
            mail: p(crate::sql::identity::MAIL_PERSON).await?,
            end_invitation: p(sql::END_INVITATION).await?,
        })
    }

    pub fn write<'a>(&self, write: &'a StaffWrite, out: &mut Vec<Bound<'a>>) {
        match write {
            StaffWrite::Put(s) => out.push((
                self.put.clone(),
                vec![
                    Box::new(s.partner_client_id.as_str()) as Param<'a>,
                    Box::new(s.user_id.as_str()),
                    Box::new(s.role.as_str()),
                    Box::new(s.created_at_ms),
                ],
            )),
            StaffWrite::Remove {
                partner_client_id,
                user_id,
                at_ms,
            } => {
                out.push((
                    self.remove.clone(),
                    vec![
                        Box::new(partner_client_id.as_str()) as Param<'a>,
                        Box::new(user_id.as_str()),
                    ],
                ));
                out.push((
                    self.end_sessions.clone(),
                    vec![
                        Box::new(partner_client_id.as_str()) as Param<'a>,
                        Box::new(user_id.as_str()),
                        Box::new(*at_ms),
                    ],
                ));
            }
            StaffWrite::Invite {
                invitation: i,
                mail,
            } => {
                out.push((
                    self.invite.clone(),
                    vec![
                        Box::new(i.id.as_str()) as Param<'a>,
                        Box::new(i.partner_client_id.as_str()),
                        Box::new(i.email.as_str()),
                        Box::new(i.role.as_str()),
                        Box::new(i.invited_by.as_str()),
                        Box::new(i.created_at_ms),
                        Box::new(i.expires_at_ms),
                    ],
                ));
                out.push((
                    self.mail.clone(),
                    vec![
                        Box::new(mail.id.as_str()) as Param<'a>,
                        Box::new(mail.recipient.as_str()),
                        Box::new(mail.subject.as_str()),
                        Box::new(mail.body.as_str()),
                        Box::new(mail.due_ms),
                    ],
                ));
            }
            StaffWrite::EndInvitation {
                id,
                partner_client_id,
                accepted_by,
                at_ms,
            } => out.push((
                self.end_invitation.clone(),
                vec![
                    Box::new(id.as_str()) as Param<'a>,
                    Box::new(partner_client_id.as_str()),
                    Box::new(accepted_by.as_deref()),
                    Box::new(*at_ms),
                ],
            )),
        }
    }
}
