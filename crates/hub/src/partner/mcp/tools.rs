//! The partner MCP tools: each read-only, behind one scope, described by an
//! input and an output JSON Schema, answering `structuredContent` and the
//! same JSON as text.

use lendhub_domain::ids::HubId;
use lendhub_domain::partner::scope::{PartnerScope, PartnerScopes, Scope};
use lendhub_domain::sandbox::decisioning::ReasonCode;
use lendhub_domain::sandbox::ids::ApplicationId as SandboxApplicationId;
use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::lending;
use super::reply::{failure, invalid_params, result};
use super::state::McpState;
use crate::partner::error::PartnerError;
use crate::partner::tokens::Verified;
use lendhub_domain::tenant::Tenant;

/// A tool's handler: the whole `tools/call` result (content, structured
/// content, `isError`) for validated arguments.
type Run = for<'a> fn(
    &'a McpState,
    &'a Verified,
    &'a Map<String, Value>,
) -> Pin<Box<dyn Future<Output = Result<Value, PartnerError>> + Send + 'a>>;

/// One tool: what `tools/list` says of it and what `tools/call` runs, in one
/// value, so adding a tool is adding an entry here.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub scope: PartnerScope,
    /// The argument names it takes; any other is refused as `unknown_field`.
    arguments: &'static [&'static str],
    input_schema: fn() -> Value,
    output_schema: fn() -> Value,
    run: Run,
}

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "decisioning_explanation",
        title: "Explain a decision",
        description: "Why one of your applications got its decision: the outcome, each reason in plain words, the facts the engine weighed and, where the credit model decided, its probability of default and each factor's weight, as stored with the decision. `reference` is a REST-tier application id (`app_…`) or your own `reference` (live first, then test), or a sandbox application id.",
        scope: PartnerScope::McpRead,
        arguments: &["reference"],
        input_schema: || {
            json!({
                "type": "object",
                "properties": { "reference": { "type": "string", "description": "An application id (app_…, or a sandbox id) or your reference", "minLength": 1, "maxLength": 100 } },
                "required": ["reference"],
                "additionalProperties": false,
            })
        },
        output_schema: || {
            let (string, integer) = (json!({"type": "string"}), json!({"type": "integer"}));
            json!({
                "type": "object",
                "properties": {
                    "reference": string, "company_number": string, "amount_pence": integer,
                    "application_id": string, "decision_id": string, "livemode": {"type": "boolean"},
                    "offer": {"type": ["object", "null"]},
                    "outcome": {"type": "string", "enum": ["approved", "referred", "declined"]},
                    "decided_at": string,
                    "reasons": {"type": "array", "items": {"type": "object", "properties": {
                        "code": string, "category": string, "explanation": string}, "required": ["code", "category", "explanation"]}},
                    "facts": {"type": ["object", "null"],
                        "description": "What the engine weighed, as stored with the decision; null for decisions made before lendhub kept them."},
                    "model": {"type": ["object", "null"],
                        "description": "The credit model that decided (null when a policy rule or an underwriter did): its id and version, the probability of default it gave and the cut-offs in force.",
                        "properties": {"id": string, "version": string,
                            "probability_of_default": {"type": "number", "minimum": 0, "maximum": 1},
                            "cutoffs": {"type": "object", "properties": {
                                "approve_below": {"type": "number"}, "decline_from": {"type": "number"}}}},
                        "required": ["id", "version", "probability_of_default", "cutoffs"]},
                    "factors": {"type": "array",
                        "description": "Each feature the model weighed, the heaviest either way first: its value, its weight in log-odds (positive raised the probability of default) and a sentence.",
                        "items": {"type": "object", "properties": {
                            "feature": string, "value": string, "weight": {"type": "number"},
                            "effect": {"type": "string", "enum": ["raised", "lowered"]}, "explanation": string},
                            "required": ["feature", "value", "weight", "effect", "explanation"]}},
                },
                "required": ["reference", "outcome", "reasons", "facts"],
            })
        },
        run: |state, caller, arguments| Box::pin(explain(state, caller, arguments)),
    },
    Tool {
        name: "service_status",
        title: "Service status",
        description: "Whether the partner ring and its database are up, and the rate limits that apply to you.",
        scope: PartnerScope::OpsRead,
        arguments: &[],
        input_schema: no_arguments,
        output_schema: || {
            let string = json!({"type": "string"});
            json!({
                "type": "object",
                "properties": {"status": string, "database": string, "rate_limit": {"type": "object"}},
                "required": ["status", "database", "rate_limit"],
            })
        },
        run: |state, caller, _| Box::pin(async move { Ok(result(status(state, caller).await)) }),
    },
    Tool {
        name: "account_profile",
        title: "Your partner profile",
        description: "Your partner project: name, tier and its limits, status, granted scopes, and current usage of your rate limit.",
        scope: PartnerScope::AccountRead,
        arguments: &[],
        input_schema: no_arguments,
        output_schema: || {
            let string = json!({"type": "string"});
            json!({
                "type": "object",
                "properties": {"client_id": string, "name": string, "tier": string, "status": string,
                    "scopes": {"type": "array", "items": string}, "limits": {"type": "object"},
                    "usage": {"type": "object"}},
                "required": ["client_id", "tier", "status"],
            })
        },
        run: |state, caller, _| Box::pin(async move { Ok(result(profile_of(state, caller))) }),
    },
    Tool {
        name: "owner_clients",
        title: "Your clients and keys",
        description: "The API clients of your project (live and sandbox) and their public key ids. Never secrets.",
        scope: PartnerScope::OwnerRead,
        arguments: &[],
        input_schema: no_arguments,
        output_schema: || {
            json!({
                "type": "object",
                "properties": {"clients": {"type": "array", "items": {"type": "object"}}},
                "required": ["clients"],
            })
        },
        run: |state, caller, _| Box::pin(async move { Ok(result(clients(state, caller).await?)) }),
    },
    Tool {
        name: "list_applications",
        title: "Your applications",
        description: "Your REST-tier applications, newest first, each with its decision once decided. `environment` is `live` (default) or `test`; filter by `status` or your `reference`.",
        scope: PartnerScope::ApplicationsRead,
        arguments: &["environment", "status", "reference", "limit"],
        input_schema: || {
            let statuses: Vec<&str> = lendhub_domain::lending::application::Status::ALL
                .iter()
                .map(|s| s.as_str())
                .collect();
            list_input(json!({
                "status": {"type": "string", "enum": statuses},
                "reference": {"type": "string", "maxLength": 100},
            }))
        },
        output_schema: list_schema,
        run: |state, caller, arguments| {
            Box::pin(lending::list_applications(state, caller, arguments))
        },
    },
    by_id(
        "get_application",
        "One application",
        "One of your REST-tier applications by id (`app_…`), with its decision once decided.",
        PartnerScope::ApplicationsRead,
        |state, caller, arguments| Box::pin(lending::get_application(state, caller, arguments)),
    ),
    Tool {
        name: "list_decisions",
        title: "Your decisions",
        description: "The decisions on your REST-tier applications, newest first. `environment` is `live` (default) or `test`; filter by `outcome`.",
        scope: PartnerScope::DecisionsRead,
        arguments: &["environment", "outcome", "limit"],
        input_schema: || {
            list_input(
                json!({"outcome": {"type": "string", "enum": ["approved", "referred", "declined"]}}),
            )
        },
        output_schema: list_schema,
        run: |state, caller, arguments| Box::pin(lending::list_decisions(state, caller, arguments)),
    },
    by_id(
        "get_decision",
        "One decision",
        "One decision on your REST-tier applications by id (`dec_…`), rendered verbatim.",
        PartnerScope::DecisionsRead,
        |state, caller, arguments| Box::pin(lending::get_decision(state, caller, arguments)),
    ),
];

fn environment_schema() -> Value {
    json!({"type": "string", "enum": ["live", "test"], "default": "live"})
}

/// A list tool's arguments: the environment, its `filters`, and a limit.
fn list_input(filters: Value) -> Value {
    let mut properties = json!({
        "environment": environment_schema(),
        "limit": {"type": "integer", "minimum": 1, "maximum": lending::MAX_LIMIT, "default": 10},
    });
    if let (Some(all), Value::Object(more)) = (properties.as_object_mut(), filters) {
        all.extend(more);
    }
    json!({"type": "object", "properties": properties, "additionalProperties": false})
}

/// A tool that reads one REST-tier object of the caller's by id.
const fn by_id(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    scope: PartnerScope,
    run: Run,
) -> Tool {
    Tool {
        name,
        title,
        description,
        scope,
        arguments: &["environment", "id"],
        input_schema: id_schema,
        output_schema: object_schema,
        run,
    }
}

fn id_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"environment": environment_schema(), "id": {"type": "string"}},
        "required": ["id"],
        "additionalProperties": false,
    })
}

fn list_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"data": {"type": "array", "items": {"type": "object"}}, "has_more": {"type": "boolean"}},
        "required": ["data", "has_more"],
    })
}

fn object_schema() -> Value {
    json!({"type": "object", "properties": {"id": {"type": "string"}, "object": {"type": "string"}}, "required": ["id", "object"]})
}

fn no_arguments() -> Value {
    json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

fn describe(tool: &Tool) -> Value {
    json!({
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": (tool.input_schema)(),
        "outputSchema": (tool.output_schema)(),
        "annotations": { "title": tool.title, "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false },
        "_meta": { "scope": tool.scope.as_str() },
    })
}

/// The `tools/list` result for every combination of scopes, serialised once:
/// agents list tools often, and the answer depends only on the scopes.
static LISTS: LazyLock<Vec<Box<RawValue>>> = LazyLock::new(|| {
    (0..1usize << PartnerScope::MCP.len())
        .map(|mask| {
            let tools: Vec<Value> = TOOLS
                .iter()
                .filter(|t| mask & bit(t.scope) != 0)
                .map(describe)
                .collect();
            RawValue::from_string(json!({ "tools": tools }).to_string())
                .unwrap_or_else(|_| unreachable!("serde_json output is valid JSON"))
        })
        .collect()
});

/// A scope's bit in the lists' index; scopes no tool answers to have none.
fn bit(scope: PartnerScope) -> usize {
    PartnerScope::MCP
        .iter()
        .position(|s| *s == scope)
        .map_or(0, |i| 1 << i)
}

/// The tools the token's scopes allow.
pub fn list(scopes: &PartnerScopes) -> &'static RawValue {
    let mask = scopes.iter().map(bit).fold(0, |m, b| m | b);
    &LISTS[mask]
}

pub async fn call(
    state: &McpState,
    caller: &Verified,
    params: &Map<String, Value>,
) -> Result<Value, PartnerError> {
    let name = match params.get("name") {
        Some(Value::String(n)) => n.as_str(),
        None => return Err(invalid_params("params.name", "required")),
        Some(_) => return Err(invalid_params("params.name", "invalid_type")),
    };
    // A tool outside the token's scopes does not exist for it.
    let Some(tool) = TOOLS
        .iter()
        .find(|t| t.name == name && caller.scopes.contains(t.scope))
    else {
        return Err(PartnerError::McpToolNotFound(name.to_owned()));
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => return Err(invalid_params("params.arguments", "must_be_object")),
    };
    if let Some(extra) = arguments
        .keys()
        .find(|k| !tool.arguments.contains(&k.as_str()))
    {
        return Err(invalid_params(
            &format!("arguments.{extra}"),
            "unknown_field",
        ));
    }
    (tool.run)(state, caller, &arguments).await
}

fn explanation(code: ReasonCode) -> &'static str {
    use ReasonCode::*;
    match code {
        AffordabilityOk => {
            "The repayments fit within the share of the credit limit the business can afford."
        }
        AffordabilityLow => {
            "The amount is more than the affordable share of the business's credit limit."
        }
        CreditOk => "The business's credit score is in the band that is approved automatically.",
        CreditAdverse => "The business's credit score is below the lowest band the lender accepts.",
        ThinFile => "There is too little credit history to decide automatically.",
        BankingDataInsufficient => "There is not enough banking data to assess affordability.",
        DirectorRisk => "A check on a director needs attention.",
        IneligibleEntity => "The company is not an eligible UK limited company or LLP.",
        AmountExceedsLimit => "The amount requested is above the business's credit limit.",
        ManualReviewRequired => "An underwriter will review the application.",
        // The sandbox's engine takes no signals; the code is the REST tier's.
        MarketplaceSignal => "A marketplace app's signal moved the decision.",
    }
}

async fn explain(
    state: &McpState,
    caller: &Verified,
    arguments: &Map<String, Value>,
) -> Result<Value, PartnerError> {
    let reference = match arguments.get("reference") {
        Some(Value::String(r)) if (1..=100).contains(&r.chars().count()) => r.as_str(),
        Some(Value::String(_)) => return Err(invalid_params("arguments.reference", "pattern")),
        Some(_) => return Err(invalid_params("arguments.reference", "invalid_type")),
        None => return Err(invalid_params("arguments.reference", "required")),
    };
    if let Some(a) = lending::find(state, caller, reference).await? {
        let decision = match &a.decision_id {
            Some(id) => state.lending.hub_decision(&a.owner, id).await?,
            None => None,
        };
        return Ok(match decision {
            Some(d) => result(lending::explain(reference, &a, &d)?),
            None => failure(&format!(
                "not_decided: application {} has not been decided yet",
                a.id.as_str()
            )),
        });
    }
    if reference.len() != 26 {
        return Ok(failure(&format!(
            "not_found: no application of yours has the id or reference {reference}"
        )));
    }
    let Some(owner) = caller.client.sandbox_client_id.as_deref() else {
        return Ok(failure(
            "not_found: this partner project has no sandbox client linked, so it has no decisions to explain. \
             Create the partner with `lendhub partner clients create … --sandbox-client-id pk_test_…`.",
        ));
    };
    let tenant = Tenant::sandbox_client(owner);
    let app = match SandboxApplicationId::parse(reference) {
        Some(id) => state.sandbox.application(&tenant, &id).await?,
        // Not in the sandbox's alphabet: no application of its has it.
        None => None,
    };
    let Some(app) = app else {
        return Ok(failure(&format!(
            "not_found: no application {reference} belongs to this project's sandbox client {owner}"
        )));
    };
    let outcome = app.decision.outcome.as_str();
    let reasons: Vec<Value> = app
        .decision
        .reasons
        .iter()
        .map(
            |r| json!({"code": r.code, "category": r.category, "explanation": explanation(r.code)}),
        )
        .collect();
    let decided_at = app
        .decided_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    Ok(result(json!({
        "reference": reference,
        "company_number": app.company_number,
        "amount_pence": app.amount_pence,
        "outcome": outcome,
        "decided_at": decided_at,
        "reasons": reasons,
        // What the engine weighed when it decided, as stored with the
        // decision: a later change to the fixtures does not rewrite it.
        "facts": app.decision.facts.map(|facts| json!({
            "eligible_entity": facts.eligible,
            "credit_score": facts.credit_score,
            "credit_limit_pence": facts.credit_limit_pence,
            "affordability_ratio_pct": facts.affordability_ratio_pct,
            "affordable_amount_pence": facts.credit_limit_pence * i64::from(facts.affordability_ratio_pct) / 100,
        })),
        "offer": app.decision.offer,
    })))
}

async fn status(state: &McpState, caller: &Verified) -> Value {
    let database = if state.health.ping().await.is_ok() {
        "ok"
    } else {
        "down"
    };
    let limits = caller.client.tier.limits();
    json!({
        "status": if database == "ok" { "ok" } else { "degraded" },
        "database": database,
        "rate_limit": {
            "tier": caller.client.tier.as_str(),
            "per_second": limits.per_second,
            "burst": limits.burst,
            "concurrent": limits.concurrent,
        },
    })
}

fn profile_of(state: &McpState, caller: &Verified) -> Value {
    let c = &caller.client;
    let limits = c.tier.limits();
    let usage = state
        .limiter
        .usage(&c.client_id, c.tier, state.clock.now_ms());
    json!({
        "client_id": c.client_id,
        "name": c.name,
        "tier": c.tier.as_str(),
        "status": c.status.as_str(),
        "scopes": c.scopes.split_ascii_whitespace().collect::<Vec<_>>(),
        "limits": {"per_second": limits.per_second, "burst": limits.burst, "concurrent": limits.concurrent},
        // This instance's view: buckets are per instance (docs/guide/src/deployment.md).
        "usage": {"rate_limit_remaining": usage.remaining, "requests_in_flight": usage.in_flight},
        "created_at_ms": c.created_at_ms,
    })
}

async fn clients(state: &McpState, caller: &Verified) -> Result<Value, PartnerError> {
    let c = &caller.client;
    let mut clients = vec![json!({
        "client_id": c.client_id, "environment": "live", "name": c.name,
        "status": c.status.as_str(), "scopes": c.scopes,
    })];
    if let Some(sandbox) = &c.sandbox_client_id
        && let Some(s) = state.sandbox.client(sandbox).await?
    {
        let status = if s.status == lendhub_store::ClientStatus::Active {
            "active"
        } else {
            "revoked"
        };
        clients.push(json!({
            "client_id": s.client_id, "environment": "test", "name": s.name,
            "status": status, "scopes": s.scopes,
        }));
    }
    Ok(json!({ "clients": clients }))
}
