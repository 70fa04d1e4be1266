//! Events on demand (`POST /v1/test_helpers/events`): for each event type, a
//! default `data.object` built from the fixtures, and the caller's overrides
//! merged into it and checked against the shape of that object, so a
//! synthetic event is indistinguishable in form from one the sandbox emits.
//!
//! The shapes here mirror the JSON the sandbox renders (its views); the
//! sandbox's tests check every default it renders against them.
//!
//! The REST tier's test environment (`/sandbox/v1/test_helpers/events`)
//! uses the same merge and check over its own defaults ([`hub_default`]),
//! whose shape is open: its resources gain members as their issues land.

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::money::Money;
use crate::sandbox::application::{Application, TransitionError};
use crate::sandbox::decisioning::decide;
use crate::sandbox::events::{ALL_EVENTS, EventType, ObjectKind};
use crate::sandbox::ids::{SandboxId, kind};
use crate::sandbox::payment::{BankAccount, Payment, RepaymentRequest};
use crate::tenant::Tenant;
use crate::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};

/// The company and amount every default payload describes.
pub const SAMPLE_COMPANY: &str = "00000401";
pub const SAMPLE_AMOUNT_PENCE: i64 = 1_000_000;
pub const SAMPLE_ENDPOINT_URL: &str = "https://partner.example/webhooks/lendhub";

/// The form of a JSON value.
#[derive(Debug)]
pub enum Shape {
    Text,
    Integer,
    Number,
    Boolean,
    /// Only `false` (`livemode` in the sandbox).
    False,
    /// 26 Crockford base32 characters.
    Id,
    /// An RFC 3339 timestamp.
    Timestamp,
    /// Exactly 8 ASCII digits.
    CompanyNumber,
    /// Exactly this string (`object`, `currency`).
    Const(&'static str),
    OneOf(&'static [&'static str]),
    Nullable(&'static Shape),
    List(&'static Shape),
    Object(&'static [(&'static str, Shape)]),
    /// These members, and any others.
    Open(&'static [(&'static str, Shape)]),
}

pub const REASON_CODES: &[&str] = &[
    "affordability_ok",
    "affordability_low",
    "credit_ok",
    "credit_adverse",
    "thin_file",
    "banking_data_insufficient",
    "director_risk",
    "ineligible_entity",
    "amount_exceeds_limit",
    "manual_review_required",
];

const REASON: Shape = Shape::Object(&[
    ("code", Shape::OneOf(REASON_CODES)),
    (
        "category",
        Shape::OneOf(&[
            "affordability",
            "credit",
            "identity",
            "eligibility",
            "policy",
        ]),
    ),
]);

const OFFER: Shape = Shape::Object(&[
    ("amount_pence", Shape::Integer),
    ("term_months", Shape::Integer),
    ("apr", Shape::Number),
    ("monthly_repayment_pence", Shape::Integer),
    ("total_repayable_pence", Shape::Integer),
    ("is_indicative", Shape::Boolean),
]);

pub const DECISION: Shape = Shape::Object(&[
    ("object", Shape::Const("decision")),
    ("application_id", Shape::Id),
    (
        "outcome",
        Shape::OneOf(&["approved", "referred", "declined"]),
    ),
    ("reasons", Shape::List(&REASON)),
    ("offer", Shape::Nullable(&OFFER)),
    ("expires_at", Shape::Nullable(&Shape::Timestamp)),
    ("decided_at", Shape::Timestamp),
]);

pub const PAYMENT: Shape = Shape::Object(&[
    ("id", Shape::Id),
    ("object", Shape::Const("payment")),
    ("application_id", Shape::Id),
    ("direction", Shape::OneOf(&["disbursement", "collection"])),
    ("amount_pence", Shape::Integer),
    ("currency", Shape::Const("GBP")),
    ("status", Shape::OneOf(&["settled", "failed"])),
    (
        "failure_reason",
        Shape::Nullable(&Shape::OneOf(&[
            "insufficient_funds",
            "payer_cancelled",
            "mandate_revoked",
            "bank_unavailable",
        ])),
    ),
    (
        "bank_account",
        Shape::Nullable(&Shape::OneOf(&["bank_settle", "bank_fail"])),
    ),
    ("livemode", Shape::False),
    ("created_at", Shape::Timestamp),
]);

pub const APPLICATION: Shape = Shape::Object(&[
    ("id", Shape::Id),
    ("object", Shape::Const("application")),
    (
        "status",
        Shape::OneOf(&[
            "approved",
            "referred",
            "declined",
            "funded",
            "funding_failed",
            "repaid",
        ]),
    ),
    (
        "business",
        Shape::Object(&[
            ("company_number", Shape::CompanyNumber),
            ("name", Shape::Text),
        ]),
    ),
    ("amount_pence", Shape::Integer),
    ("decision", DECISION),
    ("funding", Shape::Nullable(&PAYMENT)),
    ("outstanding_pence", Shape::Integer),
    ("livemode", Shape::False),
    ("created_at", Shape::Timestamp),
    ("updated_at", Shape::Timestamp),
]);

pub const WEBHOOK_ENDPOINT: Shape = Shape::Object(&[
    ("id", Shape::Id),
    ("object", Shape::Const("webhook_endpoint")),
    ("url", Shape::Text),
    ("enabled_events", Shape::List(&Shape::Text)),
    ("description", Shape::Nullable(&Shape::Text)),
    ("status", Shape::OneOf(&["enabled", "disabled"])),
    ("created_at", Shape::Timestamp),
]);

/// What every REST-tier object says of itself; the rest is open.
pub const HUB_OBJECT: Shape = Shape::Open(&[("id", Shape::Text), ("object", Shape::Text)]);

/// Members a REST-tier object may lack (an account has no `created_at`, a
/// mandate no `livemode`), checked where it has them.
const HUB_OBJECT_IF_PRESENT: [(&str, Shape); 2] =
    [("livemode", Shape::False), ("created_at", Shape::Timestamp)];

/// [`build_object`] for a REST-tier test event: also refuses an `object`
/// other than the type's, and an id without the kind's prefix.
pub fn build_hub_object(
    t: EventType,
    default: Value,
    data: Option<&Value>,
) -> Result<Value, Vec<Issue>> {
    let mut issues = Vec::new();
    let object = merged(default, data, &mut issues);
    check(&HUB_OBJECT, &object, "data.object", &mut issues);
    for (name, shape) in &HUB_OBJECT_IF_PRESENT {
        if let Some(value) = object.get(*name) {
            check(shape, value, &format!("data.object.{name}"), &mut issues);
        }
    }
    let (kind, prefix) = t.hub_object();
    if object["object"].as_str().is_some_and(|o| o != kind) {
        issue(&mut issues, "data.object.object", "const");
    }
    if object["id"]
        .as_str()
        .is_some_and(|id| !id.starts_with(prefix))
    {
        issue(&mut issues, "data.object.id", "pattern");
    }
    if issues.is_empty() {
        Ok(object)
    } else {
        Err(issues)
    }
}

/// The shape of a sandbox event's `data.object`.
pub fn shape_of(kind: ObjectKind) -> &'static Shape {
    match kind {
        ObjectKind::Application => &APPLICATION,
        ObjectKind::Decision => &DECISION,
        ObjectKind::Payment => &PAYMENT,
        ObjectKind::WebhookEndpoint => &WEBHOOK_ENDPOINT,
    }
}

/// A field the caller's overrides got wrong. `field` is the dotted path from
/// the request body (`data.object.amount_pence`, `data.object.decision.reasons[0].code`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub field: String,
    pub reason: &'static str,
}

fn issue(issues: &mut Vec<Issue>, field: &str, reason: &'static str) {
    issues.push(Issue {
        field: field.to_owned(),
        reason,
    });
}

/// Every way `value` departs from `shape`, with paths under `path`.
pub fn check(shape: &Shape, value: &Value, path: &str, issues: &mut Vec<Issue>) {
    let text = value.as_str();
    match shape {
        Shape::Text if text.is_none() => issue(issues, path, "invalid_type"),
        Shape::Integer if value.as_i64().is_none() => issue(issues, path, "invalid_type"),
        Shape::Number if !value.is_number() => issue(issues, path, "invalid_type"),
        Shape::Boolean if !value.is_boolean() => issue(issues, path, "invalid_type"),
        Shape::False => match value.as_bool() {
            None => issue(issues, path, "invalid_type"),
            Some(true) => issue(issues, path, "const"),
            Some(false) => {}
        },
        Shape::Id => match text {
            None => issue(issues, path, "invalid_type"),
            Some(t) if SandboxId::<kind::Any>::parse(t).is_none() => issue(issues, path, "pattern"),
            Some(_) => {}
        },
        Shape::Timestamp => match text {
            None => issue(issues, path, "invalid_type"),
            Some(t) if OffsetDateTime::parse(t, &Rfc3339).is_err() => issue(issues, path, "format"),
            Some(_) => {}
        },
        Shape::CompanyNumber => match text {
            None => issue(issues, path, "invalid_type"),
            Some(t) if t.len() != 8 || !t.bytes().all(|b| b.is_ascii_digit()) => {
                issue(issues, path, "pattern")
            }
            Some(_) => {}
        },
        Shape::Const(want) => match text {
            None => issue(issues, path, "invalid_type"),
            Some(t) if t != *want => issue(issues, path, "const"),
            Some(_) => {}
        },
        Shape::OneOf(allowed) => match text {
            None => issue(issues, path, "invalid_type"),
            Some(t) if !allowed.contains(&t) => issue(issues, path, "one_of"),
            Some(_) => {}
        },
        Shape::Nullable(inner) if !value.is_null() => check(inner, value, path, issues),
        Shape::List(inner) => match value.as_array() {
            None => issue(issues, path, "invalid_type"),
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    check(inner, item, &format!("{path}[{i}]"), issues);
                }
            }
        },
        Shape::Object(fields) | Shape::Open(fields) => match value.as_object() {
            None => issue(issues, path, "invalid_type"),
            Some(members) => {
                for (name, field) in fields.iter() {
                    let at = format!("{path}.{name}");
                    match members.get(*name) {
                        None => issue(issues, &at, "required"),
                        Some(v) => check(field, v, &at, issues),
                    }
                }
                if matches!(shape, Shape::Object(_)) {
                    for name in members.keys() {
                        if !fields.iter().any(|(n, _)| n == name) {
                            issue(issues, &format!("{path}.{name}"), "unknown_field");
                        }
                    }
                }
            }
        },
        _ => {}
    }
}

/// Overrides merged into `base`: objects member by member, recursively;
/// anything else (a list, a scalar, `null`) replaces what was there.
pub fn merge(base: Value, overrides: Value) -> Value {
    match (base, overrides) {
        (Value::Object(mut base), Value::Object(overrides)) => {
            // In place, so members keep their order.
            for (name, value) in overrides {
                match base.get_mut(&name) {
                    Some(slot) => {
                        let old = slot.take();
                        *slot = merge(old, value);
                    }
                    None => {
                        base.insert(name, value);
                    }
                }
            }
            Value::Object(base)
        }
        (_, overrides) => overrides,
    }
}

/// The `data.object` of a synthetic event: `default` with the request's
/// `data` merged in, checked against `shape`. The request's `data` mirrors
/// the event's: `{"object": {…overrides}}`.
pub fn build_object(
    shape: &Shape,
    default: Value,
    data: Option<&Value>,
) -> Result<Value, Vec<Issue>> {
    let mut issues = Vec::new();
    let object = merged(default, data, &mut issues);
    check(shape, &object, "data.object", &mut issues);
    if issues.is_empty() {
        Ok(object)
    } else {
        Err(issues)
    }
}

/// `default` with the request's `data` (`{"object": {…overrides}}`) merged
/// in; what is wrong with `data` itself goes to `issues`.
fn merged(default: Value, data: Option<&Value>, issues: &mut Vec<Issue>) -> Value {
    let overrides = match data {
        None | Some(Value::Null) => None,
        Some(Value::Object(members)) => {
            for name in members.keys().filter(|n| *n != "object") {
                issue(issues, &format!("data.{name}"), "unknown_field");
            }
            members.get("object").cloned()
        }
        Some(_) => {
            issue(issues, "data", "invalid_type");
            None
        }
    };
    match overrides {
        None => default,
        Some(o @ Value::Object(_)) => merge(default, o),
        Some(_) => {
            issue(issues, "data.object", "invalid_type");
            default
        }
    }
}

/// The domain object a default payload is rendered from.
#[derive(Clone, Debug, PartialEq)]
pub enum Sample {
    /// Rendered as the application (for `decision.completed`, its decision).
    Application(Box<Application>),
    Payment(Payment),
    Endpoint(WebhookEndpoint),
}

/// The default object of an event of type `t`, built from the fixtures: the
/// sample company's £10,000 application at the stage the event reports. Its
/// ids are drawn from `random` (80 bits), one apart.
pub fn sample(
    t: EventType,
    owner: &Tenant,
    now: OffsetDateTime,
    random: u128,
) -> Result<Sample, SampleError> {
    let ms = crate::clock::unix_ms(now).max(0) as u64;
    let approved = Application::new(
        SandboxId::generate(ms, random.wrapping_add(1)),
        owner.clone(),
        SAMPLE_COMPANY.to_owned(),
        Money::pence(SAMPLE_AMOUNT_PENCE),
        decide(SAMPLE_COMPANY, SAMPLE_AMOUNT_PENCE),
        now,
    );
    let funded = || {
        approved.accept(
            BankAccount::BankSettle,
            SandboxId::generate(ms, random.wrapping_add(2)),
            now,
        )
    };
    let collect = |amount_pence| {
        funded()?
            .repay(
                RepaymentRequest { amount_pence },
                SandboxId::generate(ms, random.wrapping_add(3)),
                now,
            )
            .map(|(_, payment)| payment)
    };
    let endpoint = |status| {
        Sample::Endpoint(WebhookEndpoint {
            id: SandboxId::<crate::sandbox::ids::kind::Endpoint>::generate(
                ms,
                random.wrapping_add(4),
            )
            .into(),
            owner: owner.clone(),
            url: SAMPLE_ENDPOINT_URL.to_owned(),
            enabled_events: vec![ALL_EVENTS.to_owned()],
            description: None,
            status,
            created_at: now,
            api_version: None,
            metadata: Default::default(),
        })
    };
    Ok(match t {
        EventType::ApplicationCreated | EventType::DecisionCompleted => {
            Sample::Application(Box::new(approved))
        }
        EventType::OfferAccepted | EventType::AccountActivated => {
            Sample::Application(Box::new(funded()?))
        }
        EventType::AccountClosed => {
            let f = funded()?;
            let owed = f.outstanding_pence;
            let (repaid, _) = f.repay(
                RepaymentRequest { amount_pence: owed },
                SandboxId::generate(ms, random.wrapping_add(5)),
                now,
            )?;
            Sample::Application(Box::new(repaid))
        }
        EventType::PaymentSettled => {
            let monthly = approved
                .decision
                .offer
                .as_ref()
                .map_or(Money::pence(10_000), |o| o.monthly_repayment_pence);
            Sample::Payment(collect(monthly)?)
        }
        EventType::PaymentFailed => Sample::Payment(collect(Money::pence(4001))?),
        EventType::WebhookEndpointDisabled => endpoint(EndpointStatus::Disabled),
        EventType::WebhookEndpointEnabled => endpoint(EndpointStatus::Enabled),
        other => return Err(SampleError::NotSandbox(other)),
    })
}

#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error(transparent)]
    Transition(#[from] TransitionError),
    #[error("the sandbox does not emit {0:?}")]
    NotSandbox(EventType),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::application::ApplicationStatus;
    use crate::sandbox::decisioning::ReasonCode;
    use crate::sandbox::payment::PaymentStatus;
    use serde_json::json;

    fn issues(r: Result<Value, Vec<Issue>>) -> Vec<(String, &'static str)> {
        r.err()
            .unwrap_or_default()
            .into_iter()
            .map(|i| (i.field, i.reason))
            .collect()
    }

    fn payment() -> Value {
        json!({"id": "01M8033R8T42QFHH8S4DB824MG", "object": "payment",
               "application_id": "01M8033JVX3JGXW0FWVDK5H72F", "direction": "collection",
               "amount_pence": 116473, "currency": "GBP", "status": "settled",
               "failure_reason": null, "bank_account": null, "livemode": false,
               "created_at": "2026-11-21T22:19:58.618515081Z"})
    }

    #[test]
    fn overrides_merge_member_by_member() {
        let merged = build_object(
            &PAYMENT,
            payment(),
            Some(
                &json!({"object": {"amount_pence": 12345, "status": "failed",
                                    "failure_reason": "payer_cancelled"}}),
            ),
        )
        .unwrap();
        assert_eq!(merged["amount_pence"], 12345);
        assert_eq!(merged["failure_reason"], "payer_cancelled");
        assert_eq!(
            merged["currency"], "GBP",
            "untouched members keep their default"
        );
        assert_eq!(build_object(&PAYMENT, payment(), None).unwrap(), payment());
        assert_eq!(
            build_object(&PAYMENT, payment(), Some(&json!({}))).unwrap(),
            payment()
        );
    }

    #[test]
    fn a_bad_override_is_named_with_its_reason() {
        let bad = |o: Value| issues(build_object(&PAYMENT, payment(), Some(&o)));
        assert_eq!(
            bad(json!({"object": {"amount_pence": "lots"}})),
            vec![("data.object.amount_pence".to_owned(), "invalid_type")]
        );
        assert_eq!(
            bad(json!({"object": {"status": "pending"}})),
            vec![("data.object.status".to_owned(), "one_of")]
        );
        assert_eq!(
            bad(json!({"object": {"nickname": "x"}})),
            vec![("data.object.nickname".to_owned(), "unknown_field")]
        );
        assert_eq!(
            bad(json!({"object": {"currency": "EUR", "livemode": true}})),
            vec![
                ("data.object.currency".to_owned(), "const"),
                ("data.object.livemode".to_owned(), "const")
            ]
        );
        assert_eq!(
            bad(json!({"object": {"id": "app_123", "created_at": "yesterday"}})),
            vec![
                ("data.object.id".to_owned(), "pattern"),
                ("data.object.created_at".to_owned(), "format")
            ]
        );
        assert_eq!(
            bad(json!({"object": {"status": null}})),
            vec![("data.object.status".to_owned(), "invalid_type")]
        );
        assert_eq!(
            bad(json!({"object": 5})),
            vec![("data.object".to_owned(), "invalid_type")]
        );
        assert_eq!(
            bad(json!({"previous_attributes": {}})),
            vec![("data.previous_attributes".to_owned(), "unknown_field")]
        );
        assert_eq!(
            issues(build_object(&PAYMENT, payment(), Some(&json!([1])))),
            vec![("data".to_owned(), "invalid_type")]
        );
    }

    #[test]
    fn nested_objects_and_lists_are_checked_in_depth() {
        let s = sample(
            EventType::ApplicationCreated,
            &Tenant::sandbox_client("pk_test_a"),
            OffsetDateTime::UNIX_EPOCH,
            7,
        );
        assert!(matches!(s, Ok(Sample::Application(_))));
        let app = json!({"id": "01M8033JVX3JGXW0FWVDK5H72F", "object": "application", "status": "approved",
            "business": {"company_number": "00000401", "name": "Healthy Widgets Ltd"}, "amount_pence": 5000,
            "decision": {"object": "decision", "application_id": "01M8033JVX3JGXW0FWVDK5H72F", "outcome": "approved",
                "reasons": [{"code": "credit_ok", "category": "credit"}], "offer": null, "expires_at": null,
                "decided_at": "2026-11-21T22:19:53Z"},
            "funding": null, "outstanding_pence": 0, "livemode": false,
            "created_at": "2026-11-21T22:19:53Z", "updated_at": "2026-11-21T22:19:53Z"});
        let bad = |o: Value| issues(build_object(&APPLICATION, app.clone(), Some(&o)));
        assert_eq!(
            bad(
                json!({"object": {"decision": {"reasons": [{"code": "nope", "category": "credit"}]}}})
            ),
            vec![("data.object.decision.reasons[0].code".to_owned(), "one_of")]
        );
        assert_eq!(
            bad(json!({"object": {"business": {"company_number": "1234"}}})),
            vec![("data.object.business.company_number".to_owned(), "pattern")]
        );
        // A member whose default is null takes a whole object, checked in full.
        let partial = bad(json!({"object": {"funding": {"amount_pence": 5}}}));
        assert!(partial.contains(&("data.object.funding.id".to_owned(), "required")));
        assert!(bad(json!({"object": {"funding": payment()}})).is_empty());
    }

    #[test]
    fn every_type_has_a_sample_at_the_stage_it_reports() {
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        for t in EventType::SANDBOX {
            let s = sample(t, &Tenant::sandbox_client("pk_test_a"), now, 7).unwrap();
            match (t.object_kind(), &s) {
                (Some(ObjectKind::Application | ObjectKind::Decision), Sample::Application(a)) => {
                    assert_eq!(a.company_number, SAMPLE_COMPANY);
                    let want = match t {
                        EventType::AccountClosed => ApplicationStatus::Repaid,
                        EventType::OfferAccepted | EventType::AccountActivated => {
                            ApplicationStatus::Funded
                        }
                        _ => ApplicationStatus::Approved,
                    };
                    assert_eq!(a.status, want, "{t:?}");
                }
                (Some(ObjectKind::Payment), Sample::Payment(p)) => {
                    let want = if t == EventType::PaymentFailed {
                        PaymentStatus::Failed
                    } else {
                        PaymentStatus::Settled
                    };
                    assert_eq!(p.status, want);
                }
                (Some(ObjectKind::WebhookEndpoint), Sample::Endpoint(e)) => {
                    assert_eq!(
                        e.status == EndpointStatus::Disabled,
                        t == EventType::WebhookEndpointDisabled
                    );
                }
                other => panic!("{t:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn the_reason_codes_are_the_engines() {
        use ReasonCode::*;
        for code in [
            AffordabilityOk,
            AffordabilityLow,
            CreditOk,
            CreditAdverse,
            ThinFile,
            BankingDataInsufficient,
            DirectorRisk,
            IneligibleEntity,
            AmountExceedsLimit,
            ManualReviewRequired,
        ] {
            let name = serde_json::to_value(code).unwrap();
            assert!(REASON_CODES.contains(&name.as_str().unwrap()), "{name}");
        }
        assert_eq!(REASON_CODES.len(), 10);
    }

    /// The least a REST-tier object of type `t` holds.
    fn hub_default(t: EventType, _now: OffsetDateTime, _random: u128) -> Value {
        let (object, prefix) = t.hub_object();
        json!({"id": format!("{prefix}01KQ3V1Y2C8WZ3R5T6Y7X8V9W0"), "object": object})
    }

    #[test]
    fn a_hub_object_keeps_its_types_kind_and_overrides_extend_it() {
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        for t in EventType::HUB {
            let (kind, prefix) = t.hub_object();
            let object = build_hub_object(t, hub_default(t, now, 9), None).unwrap();
            assert_eq!(object["object"], kind);
            assert!(object["id"].as_str().unwrap().starts_with(prefix), "{t:?}");
        }
        let t = EventType::PaymentPaid;
        let paid = build_hub_object(
            t,
            hub_default(t, now, 9),
            Some(&json!({"object": {"amount_pence": 4200, "account_id": "acc_x"}})),
        )
        .unwrap();
        assert_eq!(paid["amount_pence"], 4200, "the shape is open");
        let wrong = |o: Value| issues(build_hub_object(t, hub_default(t, now, 9), Some(&o)));
        assert_eq!(
            wrong(json!({"object": {"object": "account"}})),
            vec![("data.object.object".to_owned(), "const")]
        );
        assert_eq!(
            wrong(json!({"object": {"id": "app_1"}})),
            vec![("data.object.id".to_owned(), "pattern")]
        );
        assert_eq!(
            wrong(json!({"object": {"livemode": true}})),
            vec![("data.object.livemode".to_owned(), "const")]
        );
    }
}
