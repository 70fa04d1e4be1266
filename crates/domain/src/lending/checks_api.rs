//! lendhub's JSON-over-HTTP shapes for the two counterparties no public
//! standard describes: identity and AML checks of a person (a KYC
//! provider) and a company's credit report (a credit reference agency).
//! A provider's own API is met by an adapter that speaks it; these shapes
//! are what the built-in adapters send and the model servers answer
//! (docs/guide/src/counterparties.md, "Identity checks" and "Credit bureau").

use serde::{Deserialize, Serialize};
use time::Date;

use super::kyc::{Findings, Person};
use super::underwriting::CreditFile;

/// `POST /v1/person-checks`: who to check, and the company whose officer
/// they should be, if any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonCheckRequest {
    pub first_name: String,
    pub last_name: String,
    #[serde(with = "iso_date")]
    pub date_of_birth: Date,
    pub postcode: Option<String>,
    pub company_number: Option<String>,
}

/// What the provider found. Read tolerantly: a provider may add fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonCheckAnswer {
    /// The provider's id for the check, for a dispute or an audit.
    pub id: String,
    pub identity_matched: bool,
    pub sanctions_match: bool,
    pub politically_exposed: bool,
    /// An officer of `company_number`; null when none was named.
    pub director: Option<bool>,
}

impl PersonCheckRequest {
    pub fn of(person: &Person, company_number: Option<&str>) -> Self {
        Self {
            first_name: person.first_name.clone(),
            last_name: person.last_name.clone(),
            date_of_birth: person.date_of_birth,
            postcode: person.postcode.clone(),
            company_number: company_number.map(str::to_owned),
        }
    }

    pub fn person(&self) -> Person {
        Person {
            first_name: self.first_name.clone(),
            last_name: self.last_name.clone(),
            date_of_birth: self.date_of_birth,
            postcode: self.postcode.clone(),
        }
    }
}

impl PersonCheckAnswer {
    pub fn findings(&self) -> Findings {
        Findings {
            identity_matched: self.identity_matched,
            sanctions_match: self.sanctions_match,
            politically_exposed: self.politically_exposed,
            director: self.director,
        }
    }
}

/// `GET /v1/companies/{company_number}/credit-report`. Read tolerantly:
/// an agency may add fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreditReport {
    pub company_number: String,
    /// 300 to 899, higher is better: the scale the decision engine's
    /// cut-offs read (below 400 declines, below 500 refers).
    pub score: u32,
    /// What the agency would lend the company, in pence.
    pub credit_limit_pence: i64,
}

impl CreditReport {
    pub fn file(&self) -> CreditFile {
        CreditFile {
            score: self.score,
            limit_pence: self.credit_limit_pence,
        }
    }
}

/// The problem document both answer with: `{"error": {"code", "message"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemDocument {
    pub error: ProblemBody,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemBody {
    pub code: String,
    pub message: String,
}

mod iso_date {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::Date;
    use time::format_description::well_known::Iso8601;

    pub fn serialize<S: Serializer>(d: &Date, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{d}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
        let text = String::deserialize(d)?;
        Date::parse(&text, &Iso8601::DATE).map_err(serde::de::Error::custom)
    }
}
