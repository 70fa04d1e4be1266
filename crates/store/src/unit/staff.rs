//! The dashboard's staff: members, their roles and invitations. None has a
//! condition: a role is a row replaced as a whole, a removal and an
//! invitation's end happen at most once.

use super::Unit;
use crate::context::dashboard::StaffWrite;
use crate::sql::dashboard as sql;
use crate::values;

pub(super) fn plan(write: &StaffWrite, unit: &mut Unit) {
    match write {
        StaffWrite::Put(s) => unit.step(
            sql::PUT_STAFF,
            values![
                s.partner_client_id.as_str(),
                s.user_id.as_str(),
                s.role.as_str(),
                s.created_at_ms
            ],
        ),
        StaffWrite::Remove {
            partner_client_id,
            user_id,
            at_ms,
        } => {
            unit.step(
                sql::REMOVE_STAFF,
                values![partner_client_id.as_str(), user_id.as_str()],
            );
            unit.step(
                sql::END_STAFF_SESSIONS,
                values![partner_client_id.as_str(), user_id.as_str(), *at_ms],
            );
        }
        StaffWrite::Invite {
            invitation: i,
            mail,
        } => {
            unit.step(
                sql::INSERT_INVITATION,
                values![
                    i.id.as_str(),
                    i.partner_client_id.as_str(),
                    i.email.as_str(),
                    i.role.as_str(),
                    i.invited_by.as_str(),
                    i.created_at_ms,
                    i.expires_at_ms
                ],
            );
            unit.steps.push(crate::queries::identity::queue_mail(mail));
        }
        StaffWrite::EndInvitation {
            id,
            partner_client_id,
            accepted_by,
            at_ms,
        } => unit.step(
            sql::END_INVITATION,
            values![
                id.as_str(),
                partner_client_id.as_str(),
                accepted_by.as_deref(),
                *at_ms
            ],
        ),
    }
}
