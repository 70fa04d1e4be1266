//! The dashboard's script: the Copy buttons beside one-time secrets. Pages
//! load it from here (the dashboard's CSP allows scripts from lendhub's own
//! origin and nowhere else, and no inline script).

use std::sync::LazyLock;

use axum::http::HeaderMap;
use axum::response::Response;

use crate::static_asset::{Asset, asset, serve};

pub const SCRIPT_PATH: &str = "/dashboard/assets/dashboard.js";

static SCRIPT: LazyLock<Asset> = LazyLock::new(|| {
    asset(
        include_str!("../../assets/dashboard.js"),
        "text/javascript; charset=utf-8",
    )
});

/// `GET /dashboard/assets/dashboard.js`
pub async fn script(headers: HeaderMap) -> Response {
    serve(&SCRIPT, &headers)
}
