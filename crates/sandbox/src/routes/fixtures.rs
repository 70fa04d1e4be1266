use axum::Json;
use lendhub_domain::sandbox::decisioning::{Outcome, UNDERWRITING_DELAY, decide, review};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::fixtures::{DECISION_RULE, REFERRAL_RULE, RESERVED, VERSION};
use lendhub_domain::sandbox::payment::{BankAccount, REPAYMENT_TEST_AMOUNTS};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::Reader;
use crate::error::SandboxError;
use crate::views::{ErrorEnvelope, ReasonView};

#[derive(Serialize, ToSchema)]
pub struct Fixtures {
    #[schema(example = "fixtures")]
    object: &'static str,
    version: &'static str,
    companies: Vec<Company>,
    /// How every company number not listed is decided.
    decision_rule: &'static str,
    /// How a referred application is settled, and when.
    referral_rule: &'static str,
    bank_accounts: Vec<Described>,
    repayment_test_amounts: Vec<RepaymentTestAmount>,
    /// Any other repayment amount settles.
    repayment_default_status: &'static str,
    event_types: Vec<Described>,
}

#[derive(Serialize, ToSchema)]
struct Company {
    company_number: &'static str,
    name: &'static str,
    scenario: &'static str,
    credit_limit_pence: i64,
    /// The engine's outcome for a £10,000 (1000000 pence) application.
    outcome: String,
    reasons: Vec<ReasonView>,
    /// For a referred company: how the underwriter settles that application.
    referral: Option<Referral>,
}

#[derive(Serialize, ToSchema)]
struct Referral {
    /// Seconds after the decision, on the client's test clock.
    resolves_after_seconds: i64,
    /// `approved` or `declined`.
    outcome: String,
    reasons: Vec<ReasonView>,
}

fn outcome_name(o: Outcome) -> String {
    serde_json::to_value(o)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[derive(Serialize, ToSchema)]
struct Described {
    value: &'static str,
    description: &'static str,
}

#[derive(Serialize, ToSchema)]
struct RepaymentTestAmount {
    amount_pence: i64,
    status: &'static str,
    failure_reason: &'static str,
}

/// The versioned synthetic fixtures.
#[utoipa::path(get, operation_id = "fixtures", path = "/v1/fixtures", tag = "fixtures", security(("oauth2" = ["sandbox:read"])),
    responses((status = 200, body = Fixtures), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
pub async fn fixtures(_: Reader) -> Result<Json<Fixtures>, SandboxError> {
    let companies = RESERVED
        .iter()
        .map(|c| {
            let d = decide(c.company_number, 1_000_000);
            let referral = (d.outcome == Outcome::Referred).then(|| {
                let settled = review(c.company_number, 1_000_000);
                Referral {
                    resolves_after_seconds: UNDERWRITING_DELAY.whole_seconds(),
                    outcome: outcome_name(settled.outcome),
                    reasons: settled.reasons.iter().map(ReasonView::from).collect(),
                }
            });
            Company {
                company_number: c.company_number,
                name: c.name,
                scenario: c.scenario,
                credit_limit_pence: c.profile.credit_limit_pence,
                outcome: outcome_name(d.outcome),
                reasons: d.reasons.iter().map(ReasonView::from).collect(),
                referral,
            }
        })
        .collect();
    Ok(Json(Fixtures {
        object: "fixtures",
        version: VERSION,
        companies,
        decision_rule: DECISION_RULE,
        referral_rule: REFERRAL_RULE,
        bank_accounts: BankAccount::ALL
            .iter()
            .map(|b| Described {
                value: b.as_str(),
                description: b.describe(),
            })
            .collect(),
        repayment_test_amounts: REPAYMENT_TEST_AMOUNTS
            .iter()
            .map(|(amount, reason)| RepaymentTestAmount {
                amount_pence: *amount,
                status: "failed",
                failure_reason: reason.as_str(),
            })
            .collect(),
        repayment_default_status: "settled",
        event_types: EventType::SANDBOX
            .iter()
            .map(|t| Described {
                value: t.as_str(),
                description: t.describe(),
            })
            .collect(),
    }))
}
