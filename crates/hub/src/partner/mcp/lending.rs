//! The partner MCP tools over the REST tier's applications and decisions
//! (issue #15): read-only, each behind the scope its REST route needs, in
//! the live environment unless `environment` says `test`.

use lendhub_domain::ids::{ApplicationId, DecisionId, HubId};
use lendhub_domain::lending::application::{Application, Decision, Status};
use lendhub_domain::lending::list_filters;
use lendhub_domain::lending::underwriting::free_cash_pence;
use lendhub_domain::sandbox::decisioning::ReasonCode;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{ApplicationPage, ApplicationQuery, DecisionPage, DecisionQuery, PageQuery};
use serde_json::{Map, Value, json};

use super::reply::{failure, invalid_params, result};
use super::state::McpState;
use crate::partner::error::PartnerError;
use crate::partner::tokens::Verified;
use crate::views::application::ApplicationView;
use crate::views::decision::DecisionView;
use crate::views::explanation;

pub const MAX_LIMIT: u32 = 100;
const DEFAULT_LIMIT: u32 = 10;

/// The `environment` argument: live unless `test`.
fn owner(caller: &Verified, args: &Map<String, Value>) -> Result<Tenant, PartnerError> {
    let livemode = match args.get("environment") {
        None => true,
        Some(Value::String(e)) if e == "live" => true,
        Some(Value::String(e)) if e == "test" => false,
        Some(_) => return Err(invalid_params("arguments.environment", "one_of")),
    };
    Ok(Tenant::partner(&caller.client.client_id, livemode, None))
}

fn text<'a>(args: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, PartnerError> {
    match args.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(invalid_params(&format!("arguments.{name}"), "invalid_type")),
    }
}

fn required<'a>(args: &'a Map<String, Value>, name: &str) -> Result<&'a str, PartnerError> {
    text(args, name)?.ok_or_else(|| invalid_params(&format!("arguments.{name}"), "required"))
}

fn limit(args: &Map<String, Value>) -> Result<u32, PartnerError> {
    match args.get("limit") {
        None => Ok(DEFAULT_LIMIT),
        Some(Value::Number(n)) => n
            .as_u64()
            .filter(|l| (1..=u64::from(MAX_LIMIT)).contains(l))
            .map(|l| l as u32)
            .ok_or_else(|| invalid_params("arguments.limit", "out_of_range")),
        Some(_) => Err(invalid_params("arguments.limit", "invalid_type")),
    }
}

fn page(limit: u32) -> PageQuery {
    PageQuery {
        limit,
        starting_after: None,
        ending_before: None,
    }
}

fn to_value(view: &impl serde::Serialize) -> Result<Value, PartnerError> {
    serde_json::to_value(view).map_err(|e| PartnerError::Internal(e.to_string()))
}

async fn view(state: &McpState, a: &Application) -> Result<Value, PartnerError> {
    let mut v = ApplicationView::new(a, &state.links);
    if let Some(id) = &a.decision_id
        && let Some(d) = state.lending.hub_decision(&a.owner, id).await?
    {
        v = v.with_decision(DecisionView::new(&d));
    }
    to_value(&v)
}

pub async fn list_applications(
    state: &McpState,
    caller: &Verified,
    args: &Map<String, Value>,
) -> Result<Value, PartnerError> {
    let owner = owner(caller, args)?;
    let status = match text(args, "status")? {
        None => None,
        Some(s) => {
            Some(Status::parse(s).ok_or_else(|| invalid_params("arguments.status", "one_of"))?)
        }
    };
    let query = ApplicationQuery {
        page: page(limit(args)?),
        status,
        reference: text(args, "reference")?.map(str::to_owned),
        search: None,
        after_id: None,
    };
    let ApplicationPage::Page(p) = state.lending.hub_applications(&owner, &query).await? else {
        return Ok(result(json!({"data": [], "has_more": false})));
    };
    let mut data = Vec::with_capacity(p.items.len());
    for a in &p.items {
        data.push(view(state, a).await?);
    }
    Ok(result(json!({"data": data, "has_more": p.has_more})))
}

/// The caller's environment and the `id` argument, if well formed.
fn owner_and_id<I: HubId>(
    caller: &Verified,
    args: &Map<String, Value>,
) -> Result<(Tenant, I), PartnerError> {
    let owner = owner(caller, args)?;
    let id = required(args, "id")?;
    let id = I::parse(id).ok_or_else(|| invalid_params("arguments.id", "pattern"))?;
    Ok((owner, id))
}

/// The tool result for a lookup: the object, or `not_found` for one that
/// is not the caller's in that environment.
fn found(kind: &str, object: Option<Value>) -> Value {
    object.map_or_else(
        || {
            failure(&format!(
                "not_found: no {kind} of yours has this id in this environment"
            ))
        },
        result,
    )
}

pub async fn get_application(
    state: &McpState,
    caller: &Verified,
    args: &Map<String, Value>,
) -> Result<Value, PartnerError> {
    let (owner, id) = owner_and_id::<ApplicationId>(caller, args)?;
    let object = match state.lending.hub_application(&owner, &id).await? {
        Some(a) => Some(view(state, &a).await?),
        None => None,
    };
    Ok(found("application", object))
}

pub async fn list_decisions(
    state: &McpState,
    caller: &Verified,
    args: &Map<String, Value>,
) -> Result<Value, PartnerError> {
    let owner = owner(caller, args)?;
    let outcome = match text(args, "outcome")? {
        None => None,
        Some(o) => Some(
            list_filters::outcome(o)
                .ok_or_else(|| invalid_params("arguments.outcome", "one_of"))?,
        ),
    };
    let query = DecisionQuery {
        page: page(limit(args)?),
        outcome,
        after_id: None,
    };
    let DecisionPage::Page(p) = state.lending.hub_decisions(&owner, &query).await? else {
        return Ok(result(json!({"data": [], "has_more": false})));
    };
    let data = p
        .items
        .iter()
        .map(|d| to_value(&DecisionView::new(d)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(result(json!({"data": data, "has_more": p.has_more})))
}

pub async fn get_decision(
    state: &McpState,
    caller: &Verified,
    args: &Map<String, Value>,
) -> Result<Value, PartnerError> {
    let (owner, id) = owner_and_id::<DecisionId>(caller, args)?;
    let object = match state.lending.hub_decision(&owner, &id).await? {
        Some(d) => Some(to_value(&DecisionView::new(&d))?),
        None => None,
    };
    Ok(found("decision", object))
}

/// The caller's REST-tier application named by `reference` (an `app_` id,
/// or the partner's own `reference`, newest first), live before test.
pub async fn find(
    state: &McpState,
    caller: &Verified,
    reference: &str,
) -> Result<Option<Application>, PartnerError> {
    for livemode in [true, false] {
        let owner = Tenant::partner(&caller.client.client_id, livemode, None);
        if let Some(id) = ApplicationId::parse(reference) {
            if let Some(a) = state.lending.hub_application(&owner, &id).await? {
                return Ok(Some(a));
            }
            continue;
        }
        let query = ApplicationQuery {
            page: page(1),
            reference: Some(reference.to_owned()),
            ..ApplicationQuery::default()
        };
        if let ApplicationPage::Page(p) = state.lending.hub_applications(&owner, &query).await?
            && let Some(a) = p.items.into_iter().next()
        {
            return Ok(Some(a));
        }
    }
    Ok(None)
}

/// What a reason means on the REST tier, where affordability is read from
/// the connected bank account.
pub fn explanation(code: ReasonCode) -> &'static str {
    use ReasonCode::*;
    match code {
        AffordabilityOk => {
            "The cash flow the connected bank account shows supports the monthly repayment."
        }
        AffordabilityLow => {
            "The cash flow the connected bank account shows weighs against the repayment: too little free cash for it, takings that vary, days overdrawn or payments returned unpaid."
        }
        CreditOk => "The business's credit file supports the loan.",
        CreditAdverse => "The business's credit score is below what the lender accepts.",
        ThinFile => "There is too little credit history to decide automatically.",
        BankingDataInsufficient => {
            "No bank account was connected, or it shows too few months of transactions to judge affordability."
        }
        DirectorRisk => "A check on a director needs attention.",
        IneligibleEntity => "The company is not an eligible UK limited company or LLP.",
        AmountExceedsLimit => "The amount requested is above the business's credit limit.",
        ManualReviewRequired => "A person at the lender reviews, or reviewed, the application.",
        MarketplaceSignal => {
            "A marketplace app's signal moved the decision: a fraud marker declines, softer signals move the price."
        }
    }
}

/// The explanation of `d`, from the facts and the model's contributions
/// stored with it: never recomputed.
pub fn explain(reference: &str, a: &Application, d: &Decision) -> Result<Value, PartnerError> {
    let f = &d.facts;
    let reasons: Vec<Value> = d
        .verdict
        .reasons
        .iter()
        .map(|r| json!({"code": r.code.as_str(), "category": r.category, "explanation": explanation(r.code)}))
        .collect();
    let view = to_value(&DecisionView::new(d))?;
    Ok(json!({
        "reference": reference,
        "application_id": a.id.as_str(),
        "decision_id": d.id.as_str(),
        "livemode": view["livemode"],
        "company_number": a.company_number,
        "amount_pence": a.amount.as_pence(),
        "outcome": d.verdict.outcome.as_str(),
        "decided_at": view["decided_at"],
        "reasons": reasons,
        "facts": {
            "eligible_entity": f.eligible,
            "credit_score": f.credit.score,
            "credit_limit_pence": f.credit.limit_pence,
            "banking": f.banking.map(|b| json!({
                "months": b.months,
                "average_monthly_inflow_pence": b.average_monthly_inflow_pence,
                "average_monthly_outflow_pence": b.average_monthly_outflow_pence,
                "free_cash_pence": free_cash_pence(&b),
            })),
            "identity": f.identity.map(|s| s.as_str()),
            "signals": {"fraud": f.signals.fraud, "rate_adjust_bps": f.signals.rate_adjust_bps},
        },
        "offer": view["offer"],
        // The model's part, from the contributions stored with the decision.
        "model": d.verdict.scored.as_ref().map(|s| json!({
            "id": s.model.id,
            "version": s.model.version,
            "probability_of_default": s.score.probability,
            "cutoffs": {"approve_below": s.cutoffs.approve_below,
                        "decline_from": s.cutoffs.decline_from},
        })),
        "factors": d.verdict.scored.as_ref().map(explanation::factors).unwrap_or_default(),
    }))
}
