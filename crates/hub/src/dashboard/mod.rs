//! The partner dashboard at `{base_url}/dashboard` (issue #18): partner staff
//! sign in through lendhub's own identity provider and see their partner's
//! integration, one environment at a time. Server-rendered; every read works
//! without JavaScript; every form carries the session's CSRF token.

mod assets;
mod audit;
mod branding;
mod charts;
mod credentials;
mod forms;
mod model_monitoring;
mod money;
mod operations;
mod pages;
mod paging;
mod partners;
mod refusals;
pub mod session;

pub use operations::SIGNED_OUT as OPERATIONS_SIGNED_OUT;
pub use pages::SIGNED_OUT;
mod sign_in;
mod staff;
pub(crate) mod state;
mod statements;
mod webhooks;

use axum::Router;
use axum::routing::{get, post};

use state::DashboardState;

pub fn router(state: DashboardState) -> Router {
    Router::new()
        .route("/dashboard", get(pages::home))
        .route(assets::SCRIPT_PATH, get(assets::script))
        .route("/dashboard/sign-in", get(sign_in::start))
        .route("/dashboard/callback", get(sign_in::callback))
        .route("/dashboard/sign-out", post(pages::sign_out))
        .route(pages::SIGNED_OUT, get(pages::signed_out))
        .route("/dashboard/applications", get(pages::applications))
        .route("/dashboard/applications/{id}", get(pages::application))
        .route("/dashboard/accounts", get(money::accounts))
        .route("/dashboard/accounts/{id}", get(money::account))
        .route("/dashboard/payments", get(money::payments))
        .route("/dashboard/webhooks", get(webhooks::list))
        .route("/dashboard/webhooks/{id}/enable", post(webhooks::enable))
        .route(
            "/dashboard/webhooks/{id}/roll-secret",
            post(webhooks::roll_secret),
        )
        .route(
            "/dashboard/webhooks/{id}/deliveries",
            get(webhooks::deliveries),
        )
        .route(
            "/dashboard/webhooks/{id}/events/{event}/replay",
            post(webhooks::replay),
        )
        .route(
            "/dashboard/webhooks/{id}/deliveries/{delivery}/retry",
            post(webhooks::retry),
        )
        .route("/dashboard/credentials", get(credentials::list))
        .route("/dashboard/credentials/api-keys", post(credentials::create))
        .route(
            "/dashboard/credentials/api-keys/{id}/roll",
            post(credentials::roll),
        )
        .route(
            "/dashboard/credentials/api-keys/{id}/revoke",
            post(credentials::revoke),
        )
        .route(
            "/dashboard/credentials/client/roll-secret",
            post(credentials::roll_client_secret),
        )
        .route(
            "/dashboard/credentials/client/end-previous-secret",
            post(credentials::end_previous_secret),
        )
        .route(
            "/dashboard/credentials/clients",
            post(credentials::create_oauth_client),
        )
        .route(
            "/dashboard/credentials/clients/{id}/roll-secret",
            post(credentials::roll_oauth_client_secret),
        )
        .route(
            "/dashboard/credentials/clients/{id}/end-previous-secret",
            post(credentials::end_previous_oauth_client_secret),
        )
        .route(
            "/dashboard/credentials/clients/{id}/revoke",
            post(credentials::revoke_oauth_client),
        )
        .route("/dashboard/statements", get(statements::list))
        .route(
            "/dashboard/statements/{id}/invoice",
            get(statements::invoice),
        )
        .route("/dashboard/statements/{id}/csv", get(statements::csv))
        .route("/dashboard/staff", get(staff::list))
        .route("/dashboard/staff/invite", post(staff::invite))
        .route("/dashboard/staff/{user_id}/role", post(staff::change_role))
        .route("/dashboard/staff/{user_id}/remove", post(staff::remove))
        .route(
            "/dashboard/staff/invitations/{id}/withdraw",
            post(staff::withdraw),
        )
        .route("/dashboard/partners", get(partners::list))
        .route(
            "/dashboard/partners/{client_id}/switch",
            post(partners::switch),
        )
        .route("/dashboard/audit", get(audit::audit))
        .route(
            "/dashboard/branding",
            get(branding::show)
                .post(branding::save)
                .layer(axum::extract::DefaultBodyLimit::max(
                    branding::MAX_FORM_BYTES,
                )),
        )
        .route("/dashboard/operations", get(operations::home))
        .route("/dashboard/operations/sign-in", get(operations::start))
        .route("/dashboard/operations/sign-out", post(operations::sign_out))
        .route(operations::SIGNED_OUT, get(operations::signed_out))
        .route("/dashboard/{*rest}", get(pages::fallback))
        .with_state(state)
}
