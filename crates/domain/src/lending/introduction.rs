//! Introductions (beta; hub seed, Resources → Introduction; States →
//! Introduction; issue #17): an application a partner's sub-account
//! introduced (`introduction_id` on the application names the
//! sub-account). Its stage is read from the application, never stored, so
//! the two cannot disagree.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::{ApplicationId, IntroductionId, SubAccountId};
use crate::lending::application::{Application, Status};
use crate::tenant::Tenant;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Introduction {
    pub id: IntroductionId,
    pub owner: Tenant,
    pub sub_account_id: SubAccountId,
    pub application_id: ApplicationId,
    #[serde(with = "time::serde::rfc3339")]
    pub introduced_at: OffsetDateTime,
}

/// The seed's stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The application is created and not yet decided (or was withdrawn or
    /// lapsed before it was).
    Started,
    /// Decided (approved or referred), not funded.
    Decisioned,
    Funded,
    /// Declined: no revenue share accrues.
    Declined,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Started => "started",
            Stage::Decisioned => "decisioned",
            Stage::Funded => "funded",
            Stage::Declined => "declined",
        }
    }

    /// Where the introduced application has got to.
    pub fn of(application: &Application) -> Self {
        match application.status {
            Status::Funded => Stage::Funded,
            Status::Declined => Stage::Declined,
            _ if application.decision_id.is_some() => Stage::Decisioned,
            _ => Stage::Started,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{AccountId, DecisionId, HubId};
    use crate::lending::application::{Applicant, Request, check};
    use time::macros::datetime;

    #[test]
    fn the_stage_follows_the_application() {
        let request = Request {
            company_number: Some("00000401".into()),
            amount_pence: Some(1_000_000),
            term_months: Some(12),
            applicant: Applicant {
                email: Some("founder@example.com".into()),
                first_name: None,
            },
            ..Request::default()
        };
        let created = Application::new(
            ApplicationId::generate(1, 1),
            Tenant::partner("pk_live_x", false, None),
            "pk_live_x",
            check(request).expect("valid"),
            &crate::lending::register::synthetic("00000401").expect("on the register"),
            datetime!(2026-11-26 10:00 UTC),
        );
        assert_eq!(Stage::of(&created), Stage::Started);
        let withdrawn_early = Application {
            status: Status::Withdrawn,
            ..created.clone()
        };
        assert_eq!(Stage::of(&withdrawn_early), Stage::Started);
        let decided = Application {
            status: Status::Approved,
            decision_id: Some(DecisionId::generate(1, 2)),
            ..created.clone()
        };
        assert_eq!(Stage::of(&decided), Stage::Decisioned);
        let referred = Application {
            status: Status::InReview,
            ..decided.clone()
        };
        assert_eq!(Stage::of(&referred), Stage::Decisioned);
        let declined = Application {
            status: Status::Declined,
            ..decided.clone()
        };
        assert_eq!(Stage::of(&declined), Stage::Declined);
        let funded = Application {
            status: Status::Funded,
            account_id: Some(AccountId::generate(1, 3)),
            ..decided
        };
        assert_eq!(Stage::of(&funded).as_str(), "funded");
    }
}
