//! A payout (a sub-account's, or the partner's own remittance) on its way
//! over the payout rail (issue #47 item 4): due on its statement's pay date, claimed by a worker and sent
//! under its own id (the rail's end-to-end id and duplicate check, so a
//! resend after a crash is never a second payment), and ended only by the
//! rail's word. Its states are the disbursement's outbox
//! (`lending::disbursement::State`); the status the API shows follows them.

use time::OffsetDateTime;

use crate::billing::statement::{PayoutRecord, PayoutStatus};
use crate::lending::disbursement::{RESEND_AFTER, State};

impl PayoutRecord {
    fn moved(&self, rail: State, status: PayoutStatus) -> Self {
        let due_at = match rail {
            State::Sending { claimed_at } => Some(claimed_at + RESEND_AFTER),
            State::Due => self.due_at,
            _ => None,
        };
        Self {
            status,
            rail: Some(rail),
            due_at,
            version: self.version + 1,
            ..self.clone()
        }
    }

    /// Claimed by a worker at `now`, to send (or, a claim's
    /// `RESEND_AFTER` later, to ask the rail after): `None` if it is not
    /// due, or another worker holds it.
    pub fn claim(&self, now: OffsetDateTime) -> Option<Self> {
        if self.due_at.is_none_or(|at| at > now) {
            return None;
        }
        let next = self.rail.as_ref()?.claim(now).ok()?;
        Some(self.moved(next, PayoutStatus::InTransit))
    }

    /// The rail paid it at `at`.
    pub fn settle(&self, rail_payment_id: &str, at: OffsetDateTime) -> Option<Self> {
        let next = self.rail.as_ref()?.settle(rail_payment_id, at).ok()?;
        Some(Self {
            paid_at: Some(at),
            ..self.moved(next, PayoutStatus::Paid)
        })
    }

    /// The receiving bank refused it, for `reason`.
    pub fn reject(&self, reason: &str, at: OffsetDateTime) -> Option<Self> {
        let next = self.rail.as_ref()?.reject(reason, at).ok()?;
        Some(Self {
            failure_reason: Some(reason.to_owned()),
            ..self.moved(next, PayoutStatus::Failed)
        })
    }

    /// Not sent at all, for `reason` (the sub-account names no account to
    /// pay): only a payout no worker has sent can end so.
    pub fn unpayable(&self, reason: &str, at: OffsetDateTime) -> Option<Self> {
        matches!(self.rail, Some(State::Due)).then(|| Self {
            failure_reason: Some(reason.to_owned()),
            ..self.moved(
                State::Rejected {
                    reason: reason.to_owned(),
                    at,
                },
                PayoutStatus::Failed,
            )
        })
    }

    /// Whether a worker sent it and may have reached the rail.
    pub fn sending(&self) -> bool {
        matches!(self.rail, Some(State::Sending { .. }))
    }

    /// The id the rail knows this issue by (its end-to-end id and duplicate
    /// check, and the ledger's hold): the payout's own id, then `po_….2`,
    /// `po_….3` for each issue after a failure, so a new issue is never
    /// taken by the rail for a repeat of the one it refused.
    pub fn end_to_end_id(&self) -> String {
        match self.attempt {
            0 => self.id.to_string(),
            n => format!("{}.{}", self.id, n + 1),
        }
    }

    /// A failed payout issued again at `now` (its sub-account's payout
    /// account was changed): due at once, pending, under a new end-to-end
    /// id. `None` unless it failed.
    pub fn reissue(&self, now: OffsetDateTime) -> Option<Self> {
        (self.status == PayoutStatus::Failed).then(|| Self {
            status: PayoutStatus::Pending,
            rail: Some(State::Due),
            due_at: Some(now),
            hold: None,
            failure_reason: None,
            paid_at: None,
            version: self.version + 1,
            attempt: self.attempt + 1,
            ..self.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use time::Duration;
    use time::macros::datetime;

    use super::*;
    use crate::ids::{HubId, PayoutId, SubAccountId};
    use crate::tenant::Tenant;

    const NOW: OffsetDateTime = datetime!(2027-04-02 09:00 UTC);

    fn due() -> PayoutRecord {
        PayoutRecord {
            id: PayoutId::generate(1, 1),
            owner: Tenant::partner("client", false, None),
            sub_account_id: Some(SubAccountId::generate(1, 2)),
            period: "2027-03".into(),
            status: PayoutStatus::Pending,
            gross_pence: 12_345,
            introductions: 1,
            paid_at: None,
            rail: Some(State::Due),
            due_at: Some(NOW),
            hold: None,
            failure_reason: None,
            version: 0,
            attempt: 0,
        }
    }

    #[test]
    fn a_failed_payout_is_issued_again_under_a_new_end_to_end_id() {
        let due = due();
        assert_eq!(due.end_to_end_id(), due.id.to_string());
        assert_eq!(due.reissue(NOW), None, "only a failed payout");
        let failed = due.unpayable("no_payout_account", NOW).unwrap();
        let again = failed.reissue(NOW + Duration::days(3)).unwrap();
        assert_eq!(again.status, PayoutStatus::Pending);
        assert_eq!(again.failure_reason, None);
        assert_eq!(again.version, failed.version + 1);
        assert_eq!(again.end_to_end_id(), format!("{}.2", due.id));
        assert!(again.end_to_end_id().len() <= 35, "ClearBank's limit");
        let sent = again.claim(NOW + Duration::days(3)).unwrap();
        assert!(sent.sending());
    }

    #[test]
    fn a_payout_is_sent_on_its_day_once_until_its_claim_lapses_and_ends_once() {
        let due = due();
        assert_eq!(
            due.claim(NOW - Duration::seconds(1)),
            None,
            "not before its day"
        );
        let sent = due.claim(NOW).unwrap();
        assert_eq!(sent.status, PayoutStatus::InTransit);
        assert_eq!(sent.version, 1);
        assert!(sent.sending());
        assert_eq!(sent.claim(NOW + Duration::seconds(59)), None);
        let again = sent.claim(NOW + RESEND_AFTER).unwrap();
        assert_eq!(again.version, 2);
        let paid = again.settle("txn-1", NOW + RESEND_AFTER).unwrap();
        assert_eq!(paid.status, PayoutStatus::Paid);
        assert_eq!(paid.paid_at, Some(NOW + RESEND_AFTER));
        assert_eq!(paid.due_at, None);
        assert_eq!(paid.reject("AC07", NOW), None);
        assert_eq!(paid.claim(NOW + Duration::days(9)), None);
        assert_eq!(due.settle("txn-1", NOW), None, "sent first");
        let failed = sent.reject("account_closed", NOW).unwrap();
        assert_eq!(failed.status, PayoutStatus::Failed);
        assert_eq!(failed.failure_reason.as_deref(), Some("account_closed"));
        assert_eq!(failed.settle("txn-1", NOW), None);
    }

    #[test]
    fn only_an_unsent_payout_fails_unsent() {
        let failed = due().unpayable("no_payout_account", NOW).unwrap();
        assert_eq!(failed.status, PayoutStatus::Failed);
        assert_eq!(failed.claim(NOW + Duration::days(1)), None);
        assert_eq!(due().claim(NOW).unwrap().unpayable("x", NOW), None);
        let draft = PayoutRecord {
            rail: None,
            due_at: None,
            ..due()
        };
        assert_eq!(draft.claim(NOW), None, "a draft's payout is not sent");
        assert_eq!(draft.unpayable("x", NOW), None);
    }
}
