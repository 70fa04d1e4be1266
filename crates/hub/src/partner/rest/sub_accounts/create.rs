use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::ids::SubAccountId;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::partner::sub_account::{self, SubAccount};
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{CommercialWrite, WriteSet};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::sub_account::SubAccountView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSubAccount {
    #[schema(required = true, schema_with = crate::partner::rest::schemas::name_200, example = "Northern Brokers Ltd")]
    name: Option<String>,
    /// Basis points of net margin, 0 to the master rate (1000, 10 %), which
    /// it defaults to.
    #[schema(value_type = Option<u32>, minimum = 0, maximum = 1000, example = 500)]
    revenue_share_bps: Option<Value>,
    /// Where its payouts are paid (a UK account, modulus-checked). Without
    /// one, a payout due to it fails with `no_payout_account`.
    payout_account: Option<PayoutAccountInput>,
}

/// A UK bank account to pay a sub-account's payouts to.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PayoutAccountInput {
    /// The account holder's name, as the bank holds it.
    #[schema(required = true, schema_with = crate::partner::rest::schemas::holder_name, example = "Northern Brokers Ltd")]
    name: Option<String>,
    /// Six digits, in pairs that a hyphen or a space may separate.
    #[schema(
        required = true,
        example = "04-00-04",
        pattern = "^[0-9]{2}[- ]?[0-9]{2}[- ]?[0-9]{2}$"
    )]
    sort_code: Option<String>,
    /// Eight digits, which must pass the sort code's modulus check
    /// (`modulus_check_failed`).
    #[schema(required = true, example = "10000010", pattern = "^[0-9]{8}$")]
    account_number: Option<String>,
}

impl PayoutAccountInput {
    pub(super) fn request(&self) -> sub_account::AccountRequest {
        sub_account::AccountRequest {
            name: self.name.clone(),
            sort_code: self.sort_code.clone(),
            account_number: self.account_number.clone(),
        }
    }
}

/// Add a sub-account (beta): a distribution partner of yours. Name it in an
/// application's `introduction_id` to attribute the deal to it.
#[utoipa::path(post, operation_id = "createSubAccount", path = "/sub-accounts", tag = "sub-accounts",
    security(("oauth2" = ["accounts.manage"]), ("api_key" = [])),
    params(("Idempotency-Key" = String, Header, description = "required; 8 to 128 characters")),
    request_body = CreateSubAccount,
    responses((status = 201, body = SubAccountView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed (also when the required key is missing)"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 409, description = "idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed (detail names each field)")))]
pub async fn create(
    State(state): State<PartnerState>,
    caller: RestCaller,
    key: Idempotent,
    body: JsonBody<CreateSubAccount>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::AccountsManage)?;
    let (owner, now) = (&write.owner, write.now);
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let input = &body.value;
            let checked = sub_account::check(&sub_account::Request {
                name: input.name.clone(),
                revenue_share_bps: input.revenue_share_bps.clone(),
                payout_account: input
                    .payout_account
                    .as_ref()
                    .map(PayoutAccountInput::request),
            })?;
            let id: SubAccountId =
                lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
            let sub = SubAccount {
                id,
                owner: owner.clone(),
                name: checked.name,
                revenue_share_bps: checked.revenue_share_bps,
                created_at: now,
                payout_account: checked.payout_account,
            };
            let view = SubAccountView::new(&sub);
            let mut writes = WriteSet::default();
            writes.push(CommercialWrite::InsertSubAccount(sub));
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
