use axum::Json;
use lendhub_domain::decisioning::decide;
use lendhub_domain::events::EventType;
use lendhub_domain::fixtures::{DECISION_RULE, RESERVED, VERSION};
use lendhub_domain::payment::{BankAccount, REPAYMENT_TEST_AMOUNTS};
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
            Company {
                company_number: c.company_number,
                name: c.name,
                scenario: c.scenario,
                credit_limit_pence: c.profile.credit_limit_pence,
                outcome: serde_json::to_value(d.outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                reasons: d.reasons.iter().map(ReasonView::from).collect(),
            }
        })
        .collect();
    Ok(Json(Fixtures {
        object: "fixtures",
        version: VERSION,
        companies,
        decision_rule: DECISION_RULE,
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
        event_types: EventType::ALL
            .iter()
            .map(|t| Described {
                value: t.as_str(),
                description: t.describe(),
            })
            .collect(),
    }))
}
