//! The Companies House Public Data API's company profile
//! (`GET /company/{company_number}`), as far as lendhub reads it, and how it
//! maps onto [`RegisteredEntity`]. The enumerations are the register's own
//! (`companieshouse/api-enumerations`, `constants.yml`: `company_type`,
//! `company_summary`, `company_status`, `company_status_detail`,
//! `jurisdiction`); a value this mapping does not know reads as the most
//! cautious one (not served, closed), never as eligible.

use serde::{Deserialize, Serialize};

use super::register::{EntityKind, Jurisdiction, RegisterStatus, RegisteredEntity};

/// A company profile; fields lendhub does not read are ignored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompanyProfile {
    pub company_number: String,
    pub company_name: String,
    #[serde(rename = "type")]
    pub company_type: String,
    pub company_status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub company_status_detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jurisdiction: Option<String>,
    /// `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_of_creation: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sic_codes: Vec<String>,
}

/// `company_type` values of UK-incorporated companies and LLPs.
const COMPANIES: [(&str, EntityKind); 11] = [
    ("ltd", EntityKind::PrivateLimitedCompany),
    (
        "private-limited-shares-section-30-exemption",
        EntityKind::PrivateLimitedCompany,
    ),
    ("plc", EntityKind::PublicLimitedCompany),
    ("old-public-company", EntityKind::PublicLimitedCompany),
    ("llp", EntityKind::LimitedLiabilityPartnership),
    ("private-unlimited", EntityKind::OtherBodyCorporate),
    ("private-unlimited-nsc", EntityKind::OtherBodyCorporate),
    (
        "private-limited-guarant-nsc",
        EntityKind::OtherBodyCorporate,
    ),
    (
        "private-limited-guarant-nsc-limited-exemption",
        EntityKind::OtherBodyCorporate,
    ),
    (
        "european-public-limited-liability-company-se",
        EntityKind::OtherBodyCorporate,
    ),
    (
        "charitable-incorporated-organisation",
        EntityKind::OtherBodyCorporate,
    ),
];

/// `company_type` values of partnerships (a limited partnership is not a
/// body corporate; a Scottish one has legal personality but partners who
/// answer for its debts).
const PARTNERSHIPS: [&str; 2] = ["limited-partnership", "scottish-partnership"];

impl CompanyProfile {
    pub fn entity(&self) -> RegisteredEntity {
        let kind = COMPANIES
            .iter()
            .find(|(t, _)| *t == self.company_type)
            .map(|(_, kind)| *kind)
            .or_else(|| {
                (self.company_type == "scottish-charitable-incorporated-organisation")
                    .then_some(EntityKind::OtherBodyCorporate)
            })
            .or_else(|| {
                PARTNERSHIPS
                    .contains(&self.company_type.as_str())
                    .then_some(EntityKind::Partnership)
            })
            .unwrap_or(EntityKind::NotServed);
        RegisteredEntity {
            company_number: self.company_number.clone(),
            name: self.company_name.clone(),
            kind,
            jurisdiction: jurisdiction(self.jurisdiction.as_deref(), &self.company_number),
            status: status(&self.company_status, self.company_status_detail.as_deref()),
            // A date the register writes otherwise is left unread.
            incorporated_on: self.date_of_creation.as_deref().and_then(|d| {
                time::Date::parse(d, time::macros::format_description!("[year]-[month]-[day]")).ok()
            }),
            sic_codes: self.sic_codes.clone(),
        }
    }

    /// The profile the register would give for `entity`: what the model
    /// register serves. A sole trader is on no register; the model gives
    /// such magic numbers the type `other`, which reads back as not served.
    pub fn of(entity: &RegisteredEntity) -> Self {
        let company_type = match entity.kind {
            EntityKind::PrivateLimitedCompany => "ltd",
            EntityKind::PublicLimitedCompany => "plc",
            EntityKind::LimitedLiabilityPartnership => "llp",
            EntityKind::OtherBodyCorporate => "private-limited-guarant-nsc",
            EntityKind::Partnership => "limited-partnership",
            EntityKind::SoleTrader | EntityKind::NotServed => "other",
        };
        let (company_status, detail) = match entity.status {
            RegisterStatus::Active => ("active", None),
            RegisterStatus::StrikeOffProposed => ("active", Some("active-proposal-to-strike-off")),
            RegisterStatus::Dissolved => ("dissolved", None),
            RegisterStatus::Insolvent => ("liquidation", None),
            RegisterStatus::Closed => ("converted-closed", None),
        };
        let jurisdiction = match entity.jurisdiction {
            Jurisdiction::EnglandWales => "england-wales",
            Jurisdiction::Scotland => "scotland",
            Jurisdiction::NorthernIreland => "northern-ireland",
            Jurisdiction::Elsewhere => "noneu",
        };
        Self {
            company_number: entity.company_number.clone(),
            company_name: entity.name.clone(),
            company_type: company_type.to_owned(),
            company_status: company_status.to_owned(),
            company_status_detail: detail.map(str::to_owned),
            jurisdiction: Some(jurisdiction.to_owned()),
            date_of_creation: entity
                .incorporated_on
                .map(|d| format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())),
            sic_codes: entity.sic_codes.clone(),
        }
    }
}

fn status(status: &str, detail: Option<&str>) -> RegisterStatus {
    match (status, detail) {
        ("active", Some("active-proposal-to-strike-off")) => RegisterStatus::StrikeOffProposed,
        ("active", _) => RegisterStatus::Active,
        ("dissolved", _) => RegisterStatus::Dissolved,
        (
            "liquidation"
            | "receivership"
            | "administration"
            | "voluntary-arrangement"
            | "insolvency-proceedings",
            _,
        ) => RegisterStatus::Insolvent,
        _ => RegisterStatus::Closed,
    }
}

/// The profile's `jurisdiction`; without one, the register the number's
/// prefix names.
fn jurisdiction(given: Option<&str>, number: &str) -> Jurisdiction {
    match given {
        Some("england-wales" | "england" | "wales" | "united-kingdom") => {
            Jurisdiction::EnglandWales
        }
        Some("scotland") => Jurisdiction::Scotland,
        Some("northern-ireland") => Jurisdiction::NorthernIreland,
        Some(_) => Jurisdiction::Elsewhere,
        None => match number.get(..2) {
            Some("SC" | "SO" | "SL") => Jurisdiction::Scotland,
            Some("NI" | "NC" | "R0") => Jurisdiction::NorthernIreland,
            _ => Jurisdiction::EnglandWales,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lending::register::{Ineligible, synthetic};

    fn profile(company_type: &str, status: &str, detail: Option<&str>) -> CompanyProfile {
        CompanyProfile {
            company_number: "01234567".into(),
            company_name: "Example Ltd".into(),
            company_type: company_type.into(),
            company_status: status.into(),
            company_status_detail: detail.map(str::to_owned),
            jurisdiction: Some("england-wales".into()),
            date_of_creation: None,
            sic_codes: Vec::new(),
        }
    }

    /// The register's date of creation and SIC codes reach the entity, and
    /// the model's sector and age follow from them.
    #[test]
    fn a_profiles_date_of_creation_and_sic_codes_are_read() {
        let json = r#"{"company_name":"TESCO PLC","company_number":"00445790","company_status":"active","type":"plc","date_of_creation":"1947-11-27","sic_codes":["47110"]}"#;
        let entity = serde_json::from_str::<CompanyProfile>(json)
            .unwrap()
            .entity();
        let nov_1948 = time::macros::date!(1948 - 11 - 26);
        assert_eq!(entity.age_months(nov_1948), Some(11));
        assert_eq!(entity.age_months(nov_1948.next_day().unwrap()), Some(12));
        assert_eq!(entity.sector(), Some("wholesale_retail"));
        let back = CompanyProfile::of(&entity);
        assert_eq!(back.date_of_creation.as_deref(), Some("1947-11-27"));
        assert_eq!(back.sic_codes, ["47110"]);
        assert_eq!(
            synthetic("00000401").unwrap().incorporated_on,
            None,
            "reserved"
        );
        let derived = synthetic("12345678").unwrap();
        assert!(derived.incorporated_on.is_some() && derived.sector().is_some());
    }

    #[test]
    fn active_companies_and_llps_may_borrow() {
        for t in [
            "ltd",
            "plc",
            "llp",
            "private-unlimited",
            "private-limited-guarant-nsc",
        ] {
            assert_eq!(
                profile(t, "active", None).entity().eligibility(),
                Ok(()),
                "{t}"
            );
        }
    }

    #[test]
    fn the_register_says_why_a_body_may_not() {
        let why = |t: &str, s: &str, d: Option<&str>| profile(t, s, d).entity().eligibility();
        assert_eq!(why("ltd", "dissolved", None), Err(Ineligible::Dissolved));
        assert_eq!(why("ltd", "liquidation", None), Err(Ineligible::Insolvent));
        assert_eq!(
            why("plc", "administration", None),
            Err(Ineligible::Insolvent)
        );
        assert_eq!(
            why("ltd", "converted-closed", None),
            Err(Ineligible::Closed)
        );
        assert_eq!(
            why("ltd", "active", Some("active-proposal-to-strike-off")),
            Err(Ineligible::StrikeOffProposed)
        );
        assert_eq!(
            why("limited-partnership", "active", None),
            Err(Ineligible::Partnership)
        );
        assert_eq!(
            why("oversea-company", "active", None),
            Err(Ineligible::NotServed)
        );
        assert_eq!(
            why("royal-charter", "active", None),
            Err(Ineligible::NotServed)
        );
        assert_eq!(
            why("a-type-not-yet-published", "active", None),
            Err(Ineligible::NotServed)
        );
        assert_eq!(
            why("ltd", "a-status-not-yet-published", None),
            Err(Ineligible::Closed)
        );
    }

    #[test]
    fn a_profile_from_abroad_is_not_served() {
        let mut p = profile("ltd", "active", None);
        p.jurisdiction = Some("noneu".into());
        assert_eq!(p.entity().eligibility(), Err(Ineligible::NotServed));
    }

    #[test]
    fn the_model_registers_profiles_read_back_as_the_same_outcome() {
        for number in [
            "00000401", "OC000401", "SC000401", "NI000401", "00000405", "00000408", "00000409",
            "00000410",
        ] {
            let Some(entity) = synthetic(number) else {
                panic!("{number}")
            };
            let back = CompanyProfile::of(&entity).entity();
            assert_eq!(
                back.eligibility().is_ok(),
                entity.eligibility().is_ok(),
                "{number}"
            );
            assert_eq!(back.name, entity.name);
            assert_eq!(back.jurisdiction, entity.jurisdiction);
        }
    }

    #[test]
    fn a_profile_parses_from_the_registers_json() {
        let json = r#"{"company_name":"TESCO PLC","company_number":"00445790","company_status":"active","type":"plc","jurisdiction":"england-wales","date_of_creation":"1947-11-27","has_charges":true,"links":{"self":"/company/00445790"}}"#;
        let p: CompanyProfile = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.entity().kind, EntityKind::PublicLimitedCompany);
        assert_eq!(p.entity().eligibility(), Ok(()));
    }
}
