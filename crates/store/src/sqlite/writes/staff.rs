//! The dashboard's staff changes within a unit of work, on SQLite.

use rusqlite::params;

use crate::context::dashboard::StaffWrite;
use crate::sql::dashboard as sql;

/// A staff change of a unit of work.
pub(crate) fn apply(c: &rusqlite::Connection, w: &StaffWrite) -> rusqlite::Result<()> {
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
