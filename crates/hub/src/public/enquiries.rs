//! `POST /public/v1/enquiries`: the enquiry and its department notification
//! are committed together; the 201 follows the commit. The mail goes out
//! from the outbox afterwards, so an SMTP failure never touches the record
//! or the answer. An `Idempotency-Key` makes a retried submission answer
//! the first one's 201 instead of recording (and mailing) it twice.

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use lendhub_domain::ids::{EnquiryId, HubId};
use lendhub_domain::public::enquiry::{self, Dept, Enquiry};
use lendhub_domain::sandbox::ids::SandboxId;
use lendhub_domain::tenant::Tenant;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_store::{EnquiryRecord, MailRecord, PublicWrite, WriteSet};
use serde_json::{Map, Value, json};

use super::error::PublicError;
use crate::public::state::PublicState;
use lendhub_system::NewRandom;

/// The whole body's cap: the 16 KiB of fields, their keys and the envelope.
pub const BODY_CAP: usize = 32 * 1024;

/// The outbox row's id: internal, so not one of the seed's prefixed kinds.
fn mail_id(now_ms: i64) -> String {
    let id: SandboxId = SandboxId::new_random(u64::try_from(now_ms).unwrap_or(0));
    format!("mail_{}", id.as_str())
}

async fn read_body(request: Request) -> Result<(Bytes, Map<String, Value>), PublicError> {
    match request.headers().get(header::CONTENT_TYPE) {
        None => return Err(PublicError::MissingContentType),
        Some(v) => {
            let essence = v.to_str().unwrap_or("").split(';').next().unwrap_or("");
            if !essence.trim().eq_ignore_ascii_case("application/json") {
                return Err(PublicError::UnsupportedMediaType);
            }
        }
    }
    let bytes = axum::body::to_bytes(request.into_body(), BODY_CAP)
        .await
        .map_err(|_| PublicError::RequestBodyTooLarge(BODY_CAP))?;
    match lendhub_http::strict_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => Ok((bytes, map)),
        Ok(_) => Err(PublicError::InvalidJson(
            "the body must be a JSON object".into(),
        )),
        Err(e) => Err(PublicError::InvalidJson(e.to_string())),
    }
}

/// The notification's text: plain, one field per line, values as sent.
fn notification(id: &str, e: &Enquiry) -> (String, String) {
    let dept = e.dept.map_or("general", Dept::as_str);
    let subject = format!("New enquiry {id} ({} / {dept})", e.form);
    let mut body = format!("Enquiry {id}\nForm: {}\nDepartment: {dept}\n\n", e.form);
    for (key, value) in &e.fields {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        body.push_str(&format!("{key}: {value}\n"));
    }
    (subject, body)
}

/// Record an enquiry; the department is notified by email.
/// An enquiry as the document describes it: the handler reads the body as
/// JSON and applies `lendhub_domain::public::enquiry::validate`, which these bounds
/// restate (the derives give the document `additionalProperties: false`;
/// nothing deserialises into these types).
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct EnquiryRequest {
    /// The form's slug: 1 to 64 of `a-z 0-9 _ -`.
    #[schema(pattern = "^[a-z0-9_-]{1,64}$", example = "contact-us")]
    form: String,
    /// The department to notify; the default inbox without it.
    #[schema(value_type = Option<String>, pattern = "^(support|payments|hardship|complaints)$")]
    dept: Option<String>,
    fields: EnquiryFields,
}

/// What the person filled in: at most 60 strings, numbers or booleans;
/// `consent` must be `"yes"`, and `email`, if given, an address.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[schema(max_properties = 60)]
#[allow(dead_code)]
pub struct EnquiryFields {
    #[schema(pattern = "^yes$")]
    consent: String,
    #[schema(format = Email, nullable = false)]
    email: Option<String>,
}

#[utoipa::path(post, operation_id = "create_enquiry", path = "/enquiries", tag = "public",
    params(("Idempotency-Key" = Option<String>, Header, description = "optional; the same key and body answer the first 201 again")),
    request_body(content = EnquiryRequest, content_type = "application/json",
        description = "`{form, dept?, fields}`: see /docs/guide/public-ring.html"),
    responses((status = 201, description = "`{id: \"enq_…\", status: \"new\"}`"),
        (status = 400, description = "invalid_json, missing_content_type, unknown_field or idempotency_key_malformed"),
        (status = 409, description = "idempotency_key_reused or idempotency_key_in_progress"),
        (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "form_required, invalid_dept, invalid_email, consent_required, payload_too_large, invalid_value_type, validation_failed or request_body_too_large"),
        (status = 429, description = "rate_limited")))]
pub async fn create(
    State(state): State<PublicState>,
    MaybeIdempotent(key): MaybeIdempotent,
    request: Request,
) -> Result<Response, PublicError> {
    let (raw, body) = read_body(request).await?;
    let owner = Tenant::public_ring();
    let now = state.clock.now();
    let guarded = key.as_ref().map(|k| k.by(&owner, &raw, now));
    let response = state
        .idempotency
        .run_maybe(guarded, || async {
            let enquiry = enquiry::validate(body).map_err(PublicError::Enquiry)?;
            let now_ms = state.clock.now_ms();
            let id =
                EnquiryId::generate(u64::try_from(now_ms).unwrap_or(0), rand::random()).to_string();
            let (subject, text) = notification(&id, &enquiry);
            let recipient = state
                .ring
                .settings
                .inboxes
                .for_dept(enquiry.dept)
                .to_owned();
            let record = EnquiryRecord {
                id: id.clone(),
                form: enquiry.form,
                dept: enquiry.dept.map(|d| d.as_str().to_owned()),
                fields: Value::Object(enquiry.fields).to_string(),
                status: "new".into(),
                created_at_ms: now_ms,
            };
            let mail = MailRecord {
                id: mail_id(now_ms),
                enquiry_id: Some(id.clone()),
                recipient,
                subject,
                body: text,
                due_ms: now_ms,
            };
            let mut writes = WriteSet::default();
            writes.push(PublicWrite::InsertEnquiry {
                enquiry: record,
                mail,
            });
            Ok(Prepared::json(
                StatusCode::CREATED,
                &json!({"id": id, "status": "new"}),
                writes,
            )?)
        })
        .await?;
    state.ring.mail_wake.notify_one();
    Ok(response)
}
