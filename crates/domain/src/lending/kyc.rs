//! Identity checks of a person (KYC/AML; hub seed, `POST /identity/checks`
//! and the `identity.verified` / `identity.review_required` events): the
//! request's rules, and the outcome from what the person register says.
//!
//! The register itself is an adapter outside the domain; [`synthetic`] is the
//! built-in one, whose magic values `docs/guide/src/simulators.md` lists.

use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime};

use crate::ids::{ApplicationId, VerificationId};
pub use crate::problem::Problem;
use crate::problem::Problems;
use crate::tenant::Tenant;

pub const MAX_NAME: usize = 100;
/// The youngest a director may be checked at (UK company law: 16).
pub const MIN_AGE_YEARS: i32 = 16;

/// What the person register found, check by check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Findings {
    /// The identity (name, date of birth, address) matches a record.
    pub identity_matched: bool,
    pub sanctions_match: bool,
    pub politically_exposed: bool,
    /// The person is an officer of the company, where one was named.
    pub director: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every check passed (`identity.verified`).
    Verified,
    /// A check needs a person to look at it (`identity.review_required`).
    ReviewRequired,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::ReviewRequired => "review_required",
        }
    }
}

/// Why a check needs review: the seed's reason catalogue has no identity
/// codes beyond `director_risk`, so these are the verification's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    IdentityNotMatched,
    SanctionsMatch,
    PoliticallyExposed,
    NotADirector,
}

impl Flag {
    pub fn as_str(self) -> &'static str {
        match self {
            Flag::IdentityNotMatched => "identity_not_matched",
            Flag::SanctionsMatch => "sanctions_match",
            Flag::PoliticallyExposed => "politically_exposed",
            Flag::NotADirector => "not_a_director",
        }
    }
}

/// The outcome of `findings`: verified only with no flag.
pub fn judge(findings: &Findings) -> (Status, Vec<Flag>) {
    let mut flags = Vec::new();
    if !findings.identity_matched {
        flags.push(Flag::IdentityNotMatched);
    }
    if findings.sanctions_match {
        flags.push(Flag::SanctionsMatch);
    }
    if findings.politically_exposed {
        flags.push(Flag::PoliticallyExposed);
    }
    if findings.director == Some(false) {
        flags.push(Flag::NotADirector);
    }
    let status = if flags.is_empty() {
        Status::Verified
    } else {
        Status::ReviewRequired
    };
    (status, flags)
}

/// The person checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub first_name: String,
    pub last_name: String,
    pub date_of_birth: Date,
    pub postcode: Option<String>,
}

/// A request as received.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub date_of_birth: Option<String>,
    pub postcode: Option<String>,
    pub company_number: Option<String>,
    pub application_id: Option<String>,
}

/// A request whose rules hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub person: Person,
    pub company_number: Option<String>,
    pub application_id: Option<ApplicationId>,
}

/// A person's name: trimmed, not blank (`required`), at most `MAX_NAME`
/// characters (`max_length`, without a bound: this answer never gave one).
fn name(value: Option<&str>, field: &'static str, problems: &mut Problems) -> String {
    match value.map(str::trim) {
        None | Some("") => problems.push(field, "required"),
        Some(v) if v.chars().count() > MAX_NAME => problems.push(field, "max_length"),
        Some(v) => return v.to_owned(),
    }
    String::new()
}

/// Every rule at once; `today` decides the minimum age.
pub fn check(request: &Request, today: Date) -> Result<Checked, Vec<Problem>> {
    let mut problems = Problems::new();
    let first_name = name(
        request.first_name.as_deref(),
        "person.first_name",
        &mut problems,
    );
    let last_name = name(
        request.last_name.as_deref(),
        "person.last_name",
        &mut problems,
    );
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let born = problems.required_parsed(
        "person.date_of_birth",
        request.date_of_birth.as_deref(),
        "format",
        |raw| Date::parse(raw, format).ok(),
    );
    let date_of_birth = match born {
        Some(born) if age_on(born, today) < MIN_AGE_YEARS => {
            problems.push("person.date_of_birth", "too_young");
            None
        }
        born => born,
    };
    problems.parsed(
        "company_number",
        request.company_number.as_deref(),
        "pattern",
        |n| crate::lending::register::well_formed(n).then_some(()),
    );
    let application_id = problems.parsed(
        "application_id",
        request.application_id.as_deref(),
        "pattern",
        <ApplicationId as crate::ids::HubId>::parse,
    );
    if request
        .postcode
        .as_ref()
        .is_some_and(|p| p.chars().count() > 10)
    {
        problems.push("person.postcode", "max_length");
    }
    let checked = date_of_birth.map(|date_of_birth| Checked {
        person: Person {
            first_name,
            last_name,
            date_of_birth,
            postcode: request.postcode.clone(),
        },
        company_number: request.company_number.clone(),
        application_id,
    });
    problems.finish(checked)
}

/// Whole years from `born` to `today`.
pub fn age_on(born: Date, today: Date) -> i32 {
    let mut years = today.year() - born.year();
    if (today.month() as u8, today.day()) < (born.month() as u8, born.day()) {
        years -= 1;
    }
    years
}

/// The built-in person register's magic values (`docs/guide/src/simulators.md`): the
/// last name decides the finding, case-insensitively; anyone else is
/// matched, clear of sanctions and PEP lists, and a director of the company.
pub const MAGIC_LAST_NAMES: [(&str, &str); 4] = [
    ("Mismatch", "identity not matched to a record"),
    ("Sanctioned", "a sanctions-list match"),
    ("Exposed", "a politically exposed person"),
    ("Outsider", "not an officer of the named company"),
];

/// What the built-in register finds for `person`, with `company_named`
/// saying whether a company was named to check directorship against.
pub fn synthetic(person: &Person, company_named: bool) -> Findings {
    let is = |magic: &str| person.last_name.eq_ignore_ascii_case(magic);
    Findings {
        identity_matched: !is("Mismatch"),
        sanctions_match: is("Sanctioned"),
        politically_exposed: is("Exposed"),
        director: company_named.then(|| !is("Outsider")),
    }
}

/// A completed identity check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    pub id: VerificationId,
    pub owner: Tenant,
    pub application_id: Option<ApplicationId>,
    /// Echoed from the application, when one is named.
    pub reference: Option<String>,
    pub person: Person,
    pub company_number: Option<String>,
    pub findings: Findings,
    pub status: Status,
    pub flags: Vec<Flag>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// The identity provider's id for its check, for a dispute or an
    /// audit; none for a verification made before it was kept
    /// (2026-11-30) or by a test helper without a provider.
    #[serde(default)]
    pub provider_check_id: Option<String>,
}

/// What the identity provider answered: its id for the check, and what it
/// found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderCheck {
    pub id: String,
    pub findings: Findings,
}

impl Verification {
    pub fn new(
        id: VerificationId,
        owner: Tenant,
        checked: Checked,
        reference: Option<String>,
        findings: Findings,
        now: OffsetDateTime,
    ) -> Self {
        let (status, flags) = judge(&findings);
        Self {
            id,
            owner,
            application_id: checked.application_id,
            reference,
            person: checked.person,
            company_number: checked.company_number,
            findings,
            status,
            flags,
            created_at: now,
            provider_check_id: None,
        }
    }

    /// `new`, from the provider's answer, which it records.
    pub fn from_provider(
        id: VerificationId,
        owner: Tenant,
        checked: Checked,
        reference: Option<String>,
        answer: ProviderCheck,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            provider_check_id: Some(answer.id),
            ..Self::new(id, owner, checked, reference, answer.findings, now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    const TODAY: Date = date!(2026 - 11 - 25);

    fn request(last_name: &str) -> Request {
        Request {
            first_name: Some("Ada".into()),
            last_name: Some(last_name.into()),
            date_of_birth: Some("1985-04-12".into()),
            company_number: Some("00000401".into()),
            ..Request::default()
        }
    }

    #[test]
    fn a_clear_director_is_verified_and_each_magic_name_needs_review() {
        let verdict = |last: &str| {
            let checked = check(&request(last), TODAY).unwrap();
            judge(&synthetic(
                &checked.person,
                checked.company_number.is_some(),
            ))
        };
        assert_eq!(verdict("Lovelace"), (Status::Verified, vec![]));
        assert_eq!(
            verdict("Mismatch"),
            (Status::ReviewRequired, vec![Flag::IdentityNotMatched])
        );
        assert_eq!(
            verdict("sanctioned"),
            (Status::ReviewRequired, vec![Flag::SanctionsMatch])
        );
        assert_eq!(
            verdict("Exposed"),
            (Status::ReviewRequired, vec![Flag::PoliticallyExposed])
        );
        assert_eq!(
            verdict("Outsider"),
            (Status::ReviewRequired, vec![Flag::NotADirector])
        );
        let no_company = Request {
            company_number: None,
            ..request("Outsider")
        };
        let checked = check(&no_company, TODAY).unwrap();
        assert_eq!(
            judge(&synthetic(&checked.person, false)).0,
            Status::Verified,
            "directorship is checked only against a named company"
        );
    }

    #[test]
    fn the_request_names_every_problem() {
        let bad = Request {
            first_name: Some(" ".into()),
            last_name: None,
            date_of_birth: Some("12/04/1985".into()),
            company_number: Some("123".into()),
            application_id: Some("dec_01KQ000000000000000000000A".into()),
            postcode: Some("SW1A 1AA EXTRA".into()),
        };
        let problems = check(&bad, TODAY).unwrap_err();
        let fields: Vec<(&str, &str)> = problems
            .iter()
            .map(|p| (p.field.as_str(), p.reason))
            .collect();
        assert_eq!(
            fields,
            vec![
                ("person.first_name", "required"),
                ("person.last_name", "required"),
                ("person.date_of_birth", "format"),
                ("company_number", "pattern"),
                ("application_id", "pattern"),
                ("person.postcode", "max_length"),
            ]
        );
    }

    #[test]
    fn a_person_under_sixteen_on_the_day_is_refused() {
        let on = |dob: &str| {
            check(
                &Request {
                    date_of_birth: Some(dob.into()),
                    ..request("Lovelace")
                },
                TODAY,
            )
            .is_ok()
        };
        assert!(on("2010-11-25"), "sixteen today");
        assert!(!on("2010-11-26"), "sixteen tomorrow");
        assert_eq!(age_on(date!(2000 - 02 - 29), date!(2001 - 02 - 28)), 0);
    }
}
