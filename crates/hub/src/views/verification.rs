//! An identity check of a person (a `verification`), as answers and events
//! show it.

use lendhub_domain::lending::kyc::{Findings, Verification};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct PersonView {
    first_name: String,
    last_name: String,
    /// YYYY-MM-DD.
    #[schema(example = "1985-04-12")]
    date_of_birth: String,
    postcode: Option<String>,
}

/// Each check the register ran: `pass`, `review`, or `not_run` (no company
/// named, so no directorship check).
#[derive(Serialize, ToSchema)]
pub struct ChecksView {
    identity: &'static str,
    sanctions: &'static str,
    politically_exposed: &'static str,
    director: &'static str,
}

/// A verification: the outcome of one identity check.
#[derive(Serialize, ToSchema)]
pub struct VerificationView {
    #[schema(example = "ver_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "verification")]
    object: &'static str,
    /// `verified`, or `review_required` (a person looks at it).
    #[schema(example = "verified")]
    status: &'static str,
    /// Why review is required: identity_not_matched, sanctions_match,
    /// politically_exposed, not_a_director. Empty when verified.
    flags: Vec<&'static str>,
    checks: ChecksView,
    person: PersonView,
    company_number: Option<String>,
    application_id: Option<String>,
    /// The application's reference, when one is named.
    reference: Option<String>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl VerificationView {
    pub fn new(v: &Verification) -> Self {
        Self {
            id: v.id.to_string(),
            object: "verification",
            status: v.status.as_str(),
            flags: v.flags.iter().map(|f| f.as_str()).collect(),
            checks: ChecksView::from(&v.findings),
            person: PersonView {
                first_name: v.person.first_name.clone(),
                last_name: v.person.last_name.clone(),
                date_of_birth: v.person.date_of_birth.to_string(),
                postcode: v.person.postcode.clone(),
            },
            company_number: v.company_number.clone(),
            application_id: v.application_id.as_ref().map(ToString::to_string),
            reference: v.reference.clone(),
            livemode: matches!(
                v.owner.kind(),
                lendhub_domain::tenant::TenantKind::Partner { livemode: true, .. }
            ),
            created_at: v.created_at,
        }
    }
}

impl From<&Findings> for ChecksView {
    fn from(f: &Findings) -> Self {
        let pass = |ok: bool| if ok { "pass" } else { "review" };
        Self {
            identity: pass(f.identity_matched),
            sanctions: pass(!f.sanctions_match),
            politically_exposed: pass(!f.politically_exposed),
            director: f.director.map_or("not_run", pass),
        }
    }
}
