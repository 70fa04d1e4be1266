//! A white-label journey's connection to the applicant's bank, as the API
//! answers it.

use lendhub_domain::lending::bank_connection::{BankConnection, Status};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// The account read at the bank, as much of it as the partner needs to
/// show the applicant which one they shared.
#[derive(Serialize, ToSchema)]
pub struct SharedAccountView {
    /// The account's name at the bank, when it gave one.
    name: Option<String>,
    #[schema(example = "04-00-04")]
    sort_code: String,
    /// The last four digits of the account number.
    #[schema(example = "0010")]
    account_number_last4: String,
}

/// A bank connection: the applicant authorises lendhub at their bank to
/// read the business account, and the submission names the connection.
#[derive(Serialize, ToSchema)]
pub struct BankConnectionView {
    #[schema(example = "bcn_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "bank_connection")]
    object: &'static str,
    application_id: String,
    /// The bank's id (`GET /banks`).
    #[schema(example = "model_bank")]
    bank: String,
    /// `awaiting_authorisation`, `connected`, `failed` (see
    /// `failure_reason`) or `expired` (the applicant did not come back
    /// before `expires_at`).
    #[schema(example = "awaiting_authorisation")]
    status: &'static str,
    /// Send the applicant here (a full-page redirect, not a frame) while
    /// the status is `awaiting_authorisation`; null after.
    authorisation_url: Option<String>,
    /// Where lendhub sends the applicant back, with `bank_connection` and
    /// `status` appended; null: lendhub's own page.
    return_url: Option<String>,
    /// `consent_refused`, `consent_not_honoured`, `no_usable_account` or
    /// `bank_unavailable` when `failed`.
    failure_reason: Option<&'static str>,
    /// The account shared, once `connected`.
    account: Option<SharedAccountView>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    /// The end of the applicant's time to authorise at the bank.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    connected_at: Option<OffsetDateTime>,
}

impl BankConnectionView {
    pub fn new(c: &BankConnection, now: OffsetDateTime) -> Self {
        let status = c.status(now);
        Self {
            id: c.id.to_string(),
            object: "bank_connection",
            application_id: c.application_id.to_string(),
            bank: c.bank.clone(),
            status: status.as_str(),
            authorisation_url: (status == Status::AwaitingAuthorisation)
                .then(|| c.authorisation_url.clone()),
            return_url: c.return_url.clone(),
            failure_reason: c.failure.map(|f| f.as_str()),
            account: c.connected.as_ref().map(|done| SharedAccountView {
                name: done.account.name.clone(),
                sort_code: sort_code(&done.payout),
                account_number_last4: done.payout.chars().skip(10).collect(),
            }),
            livemode: matches!(
                c.owner.kind(),
                lendhub_domain::tenant::TenantKind::Partner { livemode: true, .. }
            ),
            created_at: c.created_at,
            expires_at: c.expires_at(),
            connected_at: c.connected.as_ref().map(|done| done.at),
        }
    }
}

/// `040004` of a 14-digit payout as `04-00-04`.
fn sort_code(payout: &str) -> String {
    let digits: Vec<char> = payout.chars().take(6).collect();
    digits
        .chunks(2)
        .map(|pair| pair.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// A bank an applicant may connect, in this environment (`GET /banks`
/// documents it in the list's description).
#[derive(Serialize)]
pub struct BankView {
    pub id: String,
    pub object: &'static str,
    /// Shown to the applicant when they choose.
    pub name: String,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_sort_code_reads_in_pairs() {
        assert_eq!(super::sort_code("04000410000010"), "04-00-04");
    }
}
