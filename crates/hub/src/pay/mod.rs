//! The hosted pay page on `{pay_url}` (hub seed, Partner-facing flows 3;
//! issue #16): the payer of a payment link picks their bank and authorises
//! the payment by open-banking payment initiation. Server-rendered, no
//! JavaScript. The link (`{pay_url}/{pay_id}.{token}`) is the only
//! credential: an HMAC of the payment id, so it cannot be made for another.

mod mandate;
mod page;
pub(crate) mod state;

use axum::Router;
use axum::routing::get;

use state::PayState;

/// Where the payer lands back from their bank (`bank_callback` sends them).
pub const RETURN: &str = "/pay/return";

pub fn router(state: PayState) -> Router {
    Router::new()
        .route(RETURN, get(page::returned))
        .route("/pay/{link}", get(page::show).post(page::pay))
        .route(
            "/pay/mandates/{link}",
            get(mandate::show).post(mandate::revoke),
        )
        .layer(axum::extract::DefaultBodyLimit::max(4 * 1024))
        .with_state(state)
}
