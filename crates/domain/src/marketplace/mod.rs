//! The marketplace (hub seed, Marketplace; issue #17): third-party vendors'
//! app listings, reviewed by the lender before they may subscribe to events
//! or publish signals, and the signals themselves, which the decision
//! engine weighs (`underwriting::Signals`) while an application's decision
//! is unresolved. The allowed values and their effects are this module's
//! and docs/decisions.md's; the seed leaves them open.

pub mod app_request;
pub mod signal_request;
pub mod subscription_request;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::{ApplicationId, MarketplaceAppId, MarketplaceSubscriptionId, SignalId};
use crate::lending::application::Status;
use crate::lending::underwriting::{MAX_SIGNAL_ADJUST_BPS, Signals};
use crate::tenant::Tenant;

pub const MAX_NAME: usize = 200;
pub const MAX_REDIRECT_URIS: usize = 10;
/// The serialized evidence object, at most (bytes).
pub const MAX_EVIDENCE_BYTES: usize = 8 * 1024;

/// What an app does: the seed's five vendor kinds. A signal's `kind` is one
/// of these too: the kind of check that produced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    OpenBanking,
    Identity,
    ESign,
    Accounting,
    Fraud,
}

impl Category {
    pub const ALL: [Category; 5] = [
        Category::OpenBanking,
        Category::Identity,
        Category::ESign,
        Category::Accounting,
        Category::Fraud,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::OpenBanking => "open_banking",
            Category::Identity => "identity",
            Category::ESign => "e_sign",
            Category::Accounting => "accounting",
            Category::Fraud => "fraud",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == raw)
    }
}

/// A listing's review by the lender's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Review {
    PendingReview,
    Approved,
    Rejected,
}

impl Review {
    pub const ALL: [Review; 3] = [Review::PendingReview, Review::Approved, Review::Rejected];

    pub fn as_str(self) -> &'static str {
        match self {
            Review::PendingReview => "pending_review",
            Review::Approved => "approved",
            Review::Rejected => "rejected",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == raw)
    }
}

/// A vendor's app listing, owned by the partner (in one environment) that
/// registered it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct App {
    pub id: MarketplaceAppId,
    pub owner: Tenant,
    pub name: String,
    pub category: Category,
    pub redirect_uris: Vec<String>,
    /// Where its subscriptions' events are delivered.
    pub webhook_url: Option<String>,
    pub review: Review,
    /// The operator's note on approval, or the reason for a rejection.
    pub review_note: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub reviewed_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Bumped by every change; a review commits only over the version read.
    pub version: i64,
}

/// Why a review cannot be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the app was already {}", .0.as_str())]
pub struct AlreadyReviewed(pub Review);

impl App {
    /// The operator's ruling on a listing pending review; once made it is
    /// final (a rejected vendor registers again, and is reviewed again).
    pub fn review(
        &self,
        ruling: Review,
        note: &str,
        now: OffsetDateTime,
    ) -> Result<Self, AlreadyReviewed> {
        if self.review != Review::PendingReview || ruling == Review::PendingReview {
            return Err(AlreadyReviewed(self.review));
        }
        Ok(Self {
            review: ruling,
            review_note: Some(note.to_owned()),
            reviewed_at: Some(now),
            version: self.version + 1,
            ..self.clone()
        })
    }
}

/// An approved app's subscription: the webhook endpoint its events are
/// delivered to, under a secret of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    pub id: MarketplaceSubscriptionId,
    pub owner: Tenant,
    pub app_id: MarketplaceAppId,
    /// The `whe_…` endpoint that carries its deliveries.
    pub endpoint_id: String,
    pub enabled_events: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// What a check concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Review,
    Fail,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Pass, Verdict::Review, Verdict::Fail];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Review => "review",
            Verdict::Fail => "fail",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == raw)
    }
}

/// A score is a confidence from 0 to 1, kept in thousandths so the
/// arithmetic on it is exact.
pub const SCORE_SCALE: u32 = 1_000;
/// A `fraud` signal that fails with at least this confidence (0.9) is a
/// high-confidence fraud marker: the application is declined.
pub const FRAUD_MARKER_SCORE: u32 = 900;
/// The most one soft signal moves the annual rate, at full confidence, in
/// basis points: `pass` lowers it, `review` raises it by this, `fail` by
/// twice this. The total is bounded by `MAX_SIGNAL_ADJUST_BPS`.
pub const SOFT_SIGNAL_BPS: i64 = 50;

/// A score given as a number, to thousandths: `None` outside 0–1.
pub fn score_thousandths(score: f64) -> Option<u32> {
    if !score.is_finite() || !(0.0..=1.0).contains(&score) {
        return None;
    }
    Some((score * f64::from(SCORE_SCALE)).round() as u32)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    pub id: SignalId,
    pub owner: Tenant,
    pub application_id: ApplicationId,
    /// The approved app that published it, when named.
    pub app_id: Option<MarketplaceAppId>,
    pub kind: Category,
    /// Confidence, in thousandths.
    pub score: u32,
    pub verdict: Verdict,
    pub evidence: serde_json::Value,
    /// Whether it counts: it arrived while the decision was unresolved.
    pub accepted: bool,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl Signal {
    pub fn is_fraud_marker(&self) -> bool {
        self.kind == Category::Fraud
            && self.verdict == Verdict::Fail
            && self.score >= FRAUD_MARKER_SCORE
    }

    /// Its move of the annual rate, in basis points (a fraud marker moves
    /// nothing: it declines).
    fn rate_adjust_bps(&self) -> i64 {
        if self.is_fraud_marker() {
            return 0;
        }
        let weight = match self.verdict {
            Verdict::Pass => -1,
            Verdict::Review => 1,
            Verdict::Fail => 2,
        };
        // Rounded half away from zero, in exact integers.
        let scaled = weight * SOFT_SIGNAL_BPS * i64::from(self.score);
        let half = i64::from(SCORE_SCALE) / 2;
        (scaled + scaled.signum() * half) / i64::from(SCORE_SCALE)
    }
}

/// Whether a signal arriving now counts: only while the application's
/// decision is unresolved (not yet submitted, or referred to an
/// underwriter).
pub fn counts_now(status: Status) -> bool {
    matches!(
        status,
        Status::Created | Status::Submitted | Status::InReview
    )
}

/// What an application's signals add to its facts: any accepted fraud
/// marker, and the sum of the soft signals' moves, bounded.
pub fn weigh<'a>(signals: impl IntoIterator<Item = &'a Signal>) -> Signals {
    let mut out = Signals::default();
    let mut adjust = 0i64;
    for s in signals.into_iter().filter(|s| s.accepted) {
        out.fraud |= s.is_fraud_marker();
        adjust = adjust.saturating_add(s.rate_adjust_bps());
    }
    let bound = i64::from(MAX_SIGNAL_ADJUST_BPS);
    out.rate_adjust_bps = adjust.clamp(-bound, bound) as i32;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HubId;
    use proptest::prelude::*;

    fn signal(kind: Category, verdict: Verdict, score: u32, accepted: bool) -> Signal {
        Signal {
            id: SignalId::generate(1, 1),
            owner: Tenant::partner("c", false, None),
            application_id: ApplicationId::generate(1, 2),
            app_id: None,
            kind,
            score,
            verdict,
            evidence: serde_json::json!({}),
            accepted,
            created_at: OffsetDateTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn a_confident_fraud_failure_is_a_marker_and_a_weak_one_is_soft() {
        let marker = signal(Category::Fraud, Verdict::Fail, 900, true);
        assert!(weigh([&marker]).fraud);
        let weak = signal(Category::Fraud, Verdict::Fail, 899, true);
        let w = weigh([&weak]);
        assert!(!w.fraud);
        assert_eq!(w.rate_adjust_bps, 90, "2 × 50 bps × 0.899, rounded");
        let identity_fail = signal(Category::Identity, Verdict::Fail, 1000, true);
        assert!(
            !weigh([&identity_fail]).fraud,
            "only a fraud check marks fraud"
        );
    }

    #[test]
    fn soft_signals_move_the_rate_within_bounds() {
        let pass = signal(Category::OpenBanking, Verdict::Pass, 800, true);
        assert_eq!(weigh([&pass]).rate_adjust_bps, -40);
        let review = signal(Category::Accounting, Verdict::Review, 500, true);
        assert_eq!(weigh([&review]).rate_adjust_bps, 25);
        let fails: Vec<_> = (0..5)
            .map(|_| signal(Category::Identity, Verdict::Fail, 1000, true))
            .collect();
        assert_eq!(weigh(&fails).rate_adjust_bps, MAX_SIGNAL_ADJUST_BPS);
    }

    #[test]
    fn signals_not_accepted_weigh_nothing() {
        let late = signal(Category::Fraud, Verdict::Fail, 1000, false);
        assert_eq!(weigh([&late]), Signals::default());
    }

    #[test]
    fn only_an_unresolved_decision_takes_signals() {
        assert!(counts_now(Status::Created));
        assert!(counts_now(Status::InReview));
        for s in [
            Status::Approved,
            Status::Declined,
            Status::Funded,
            Status::Withdrawn,
            Status::Expired,
        ] {
            assert!(!counts_now(s), "{s:?}");
        }
    }

    #[test]
    fn scores_are_confidences() {
        assert_eq!(score_thousandths(0.9), Some(900));
        assert_eq!(score_thousandths(1.0), Some(1000));
        assert_eq!(score_thousandths(-0.1), None);
        assert_eq!(score_thousandths(f64::NAN), None);
        assert_eq!(score_thousandths(1.5), None);
    }

    #[test]
    fn a_review_is_made_once() {
        let app = App {
            id: MarketplaceAppId::generate(1, 3),
            owner: Tenant::partner("c", false, None),
            name: "Fraudscope".into(),
            category: Category::Fraud,
            redirect_uris: vec![],
            webhook_url: None,
            review: Review::PendingReview,
            review_note: None,
            reviewed_at: None,
            created_at: OffsetDateTime::UNIX_EPOCH,
            version: 1,
        };
        let approved = app
            .review(Review::Approved, "checked", OffsetDateTime::UNIX_EPOCH)
            .unwrap();
        assert_eq!((approved.review, approved.version), (Review::Approved, 2));
        assert_eq!(
            approved.review(Review::Rejected, "no", OffsetDateTime::UNIX_EPOCH),
            Err(AlreadyReviewed(Review::Approved))
        );
    }

    proptest! {
        /// However many signals, the move stays within the documented bound.
        #[test]
        fn the_move_is_bounded(raw in proptest::collection::vec((0u32..=1000, 0usize..3, 0usize..5), 0..20)) {
            let signals: Vec<_> = raw.iter().map(|(score, v, k)| signal(Category::ALL[*k], Verdict::ALL[*v], *score, true)).collect();
            let w = weigh(&signals);
            prop_assert!(w.rate_adjust_bps.abs() <= MAX_SIGNAL_ADJUST_BPS);
            prop_assert_eq!(w.fraud, signals.iter().any(Signal::is_fraud_marker));
        }
    }
}
