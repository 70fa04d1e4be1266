//! An introduction (beta), as the API shows it.

use lendhub_domain::lending::application::Application;
use lendhub_domain::lending::introduction::{Introduction, Stage};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// An introduction.
#[derive(Serialize, ToSchema)]
pub struct IntroductionView {
    #[schema(example = "intro_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "introduction")]
    object: &'static str,
    sub_account_id: String,
    application_id: String,
    /// started, decisioned, funded or declined (no revenue share accrues).
    stage: &'static str,
    /// The account the loan opened, once funded.
    account_id: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    introduced_at: OffsetDateTime,
}

impl IntroductionView {
    pub fn new(i: &Introduction, application: &Application) -> Self {
        Self {
            id: i.id.to_string(),
            object: "introduction",
            sub_account_id: i.sub_account_id.to_string(),
            application_id: i.application_id.to_string(),
            stage: Stage::of(application).as_str(),
            account_id: application.account_id.as_ref().map(ToString::to_string),
            introduced_at: i.introduced_at,
        }
    }
}
