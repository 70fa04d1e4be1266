//! The company register: what a company number resolves to, and whether
//! that entity may borrow (hub seed, Overview: UK incorporated bodies
//! corporate — limited companies and LLPs; sole traders, partnerships and
//! dissolved entities are ineligible).
//!
//! A real register (Companies House) is reached through an adapter outside
//! the domain; [`synthetic`] is the built-in, deterministic one whose
//! magic numbers `docs/guide/src/simulators.md` lists; [`companies_house`] reads
//! and writes the register's own shapes.

use serde::Serialize;

/// What kind of entity a number belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    PrivateLimitedCompany,
    PublicLimitedCompany,
    LimitedLiabilityPartnership,
    /// Another UK-incorporated body corporate on the register: an unlimited
    /// company, a company limited by guarantee, a European public company,
    /// a charitable incorporated organisation.
    OtherBodyCorporate,
    SoleTrader,
    Partnership,
    /// On the register but not a body the service lends to: overseas
    /// companies and their UK establishments, societies, investment
    /// companies, royal charters, unregistered companies.
    NotServed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Jurisdiction {
    EnglandWales,
    Scotland,
    NorthernIreland,
    /// Registered outside the United Kingdom's three registers.
    Elsewhere,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegisterStatus {
    Active,
    /// Active, but the register has a proposal to strike it off.
    StrikeOffProposed,
    Dissolved,
    /// In liquidation, administration, receivership, a voluntary
    /// arrangement or other insolvency proceedings.
    Insolvent,
    /// Converted or closed, or removed from the register.
    Closed,
}

/// An entity as the register describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegisteredEntity {
    pub company_number: String,
    pub name: String,
    pub kind: EntityKind,
    pub jurisdiction: Jurisdiction,
    pub status: RegisterStatus,
    /// Its date of incorporation, when the register gives it.
    pub incorporated_on: Option<time::Date>,
    /// Its SIC 2007 codes (five digits), as the register lists them.
    pub sic_codes: Vec<String>,
}

impl RegisteredEntity {
    /// Whole months from incorporation to `today`.
    pub fn age_months(&self, today: time::Date) -> Option<u32> {
        let born = self.incorporated_on?;
        let months = (today.year() - born.year()) * 12 + i32::from(u8::from(today.month()))
            - i32::from(u8::from(born.month()))
            - i32::from(today.day() < born.day());
        u32::try_from(months).ok()
    }

    /// The sector the credit model knows its first SIC code by.
    pub fn sector(&self) -> Option<&'static str> {
        let division: u32 = self.sic_codes.first()?.get(..2)?.parse().ok()?;
        Some(match division {
            10..=33 => "manufacturing",
            41..=43 => "construction",
            45..=47 => "wholesale_retail",
            49..=53 => "transport",
            55 | 56 => "hospitality",
            62 | 63 | 69..=75 => "professional_services",
            _ => "other",
        })
    }
}

/// Why an entity may not borrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Ineligible {
    #[error("sole traders cannot borrow: the service lends to limited companies and LLPs")]
    SoleTrader,
    #[error("partnerships cannot borrow: the service lends to limited companies and LLPs")]
    Partnership,
    #[error("the service lends to UK limited companies, LLPs and other UK bodies corporate")]
    NotServed,
    #[error("the company is dissolved")]
    Dissolved,
    #[error("the company is in insolvency proceedings")]
    Insolvent,
    #[error("the company is closed or removed from the register")]
    Closed,
    #[error("the register has a proposal to strike the company off")]
    StrikeOffProposed,
}

impl RegisteredEntity {
    /// `Ok` for an active UK limited company, LLP or other body corporate.
    pub fn eligibility(&self) -> Result<(), Ineligible> {
        match (self.kind, self.jurisdiction, self.status) {
            (EntityKind::SoleTrader, ..) => Err(Ineligible::SoleTrader),
            (EntityKind::Partnership, ..) => Err(Ineligible::Partnership),
            (EntityKind::NotServed, ..) | (_, Jurisdiction::Elsewhere, _) => {
                Err(Ineligible::NotServed)
            }
            (.., RegisterStatus::Dissolved) => Err(Ineligible::Dissolved),
            (.., RegisterStatus::Insolvent) => Err(Ineligible::Insolvent),
            (.., RegisterStatus::Closed) => Err(Ineligible::Closed),
            (.., RegisterStatus::StrikeOffProposed) => Err(Ineligible::StrikeOffProposed),
            (.., RegisterStatus::Active) => Ok(()),
        }
    }
}

/// A company number as the seed writes it: 8 characters, upper-case letters
/// or digits, which "may start with letters" — a two-letter register prefix
/// (`SC`, `NI`, `OC`, …) and six digits, or eight digits.
pub fn well_formed(number: &str) -> bool {
    let b = number.as_bytes();
    b.len() == 8
        && b[2..].iter().all(u8::is_ascii_digit)
        && (b[..2].iter().all(u8::is_ascii_digit) || b[..2].iter().all(u8::is_ascii_uppercase))
}

/// The built-in register's magic numbers (`docs/guide/src/simulators.md`), each with
/// the entity it resolves to.
pub const MAGIC: [(&str, &str, EntityKind, Jurisdiction, RegisterStatus); 7] = {
    use EntityKind::*;
    use Jurisdiction::*;
    use RegisterStatus::*;
    [
        (
            "00000405",
            "Sole Trader Example",
            SoleTrader,
            EnglandWales,
            Active,
        ),
        (
            "00000408",
            "Closed Doors Ltd",
            PrivateLimitedCompany,
            EnglandWales,
            Dissolved,
        ),
        (
            "00000409",
            "Smith & Jones (a partnership)",
            Partnership,
            EnglandWales,
            Active,
        ),
        (
            "00000410",
            "Jo Bloggs Plumbing (sole trader)",
            SoleTrader,
            EnglandWales,
            Active,
        ),
        (
            "OC000401",
            "Healthy Partners LLP",
            LimitedLiabilityPartnership,
            EnglandWales,
            Active,
        ),
        (
            "SC000401",
            "Highland Widgets Ltd",
            PrivateLimitedCompany,
            Scotland,
            Active,
        ),
        (
            "NI000401",
            "Lough Trading Ltd",
            PrivateLimitedCompany,
            NorthernIreland,
            Active,
        ),
    ]
};

/// The number the built-in register has no entity for.
pub const NOT_ON_REGISTER: &str = "00000000";

/// What the built-in register says of `number` (already well formed):
/// a magic number's entity; otherwise a company whose kind and
/// jurisdiction follow its prefix (eight digits or `SC`/`NI`: a private
/// limited company; `OC`/`SO`/`NC`: an LLP). `None` for numbers it has no
/// entity for: [`NOT_ON_REGISTER`] and prefixes of bodies the service does
/// not serve (`FC` overseas companies, `IP`/`RS` societies, …).
pub fn synthetic(number: &str) -> Option<RegisteredEntity> {
    if number == NOT_ON_REGISTER {
        return None;
    }
    if let Some((_, name, kind, jurisdiction, status)) = MAGIC.iter().find(|m| m.0 == number) {
        return Some(RegisteredEntity {
            company_number: number.to_owned(),
            name: (*name).to_owned(),
            kind: *kind,
            jurisdiction: *jurisdiction,
            status: *status,
            incorporated_on: None,
            sic_codes: Vec::new(),
        });
    }
    use EntityKind::*;
    use Jurisdiction::*;
    let (kind, jurisdiction) = match &number[..2] {
        "SC" => (PrivateLimitedCompany, Scotland),
        "NI" => (PrivateLimitedCompany, NorthernIreland),
        "OC" => (LimitedLiabilityPartnership, EnglandWales),
        "SO" => (LimitedLiabilityPartnership, Scotland),
        "NC" => (LimitedLiabilityPartnership, NorthernIreland),
        prefix if prefix.bytes().all(|b| b.is_ascii_digit()) => {
            (PrivateLimitedCompany, EnglandWales)
        }
        _ => return None,
    };
    let name = match kind {
        LimitedLiabilityPartnership => format!("Synthetic Partners {number} LLP"),
        _ => crate::sandbox::fixtures::company_name(number),
    };
    Some(RegisteredEntity {
        company_number: number.to_owned(),
        name,
        kind,
        jurisdiction,
        status: RegisterStatus::Active,
        incorporated_on: founded(number),
        sic_codes: founded(number)
            .map(|_| {
                vec![SYNTHETIC_SIC[digest(number, 1) as usize % SYNTHETIC_SIC.len()].to_owned()]
            })
            .unwrap_or_default(),
    })
}

/// SIC codes the built-in register gives its derived companies: one of
/// each sector the credit model knows.
const SYNTHETIC_SIC: [&str; 7] = [
    "62020", "25990", "47190", "43390", "56101", "49410", "96090",
];

fn digest(number: &str, byte: usize) -> u8 {
    use sha2::{Digest, Sha256};
    Sha256::digest(format!("lendhub-register\0{number}"))
        .get(byte)
        .copied()
        .unwrap_or(0)
}

/// The derived date of incorporation: 6 months to 20 years before 2026-01-01.
/// The sandbox's reserved companies (`00000401` …) have none, nor SIC
/// codes, so their documented decisions weigh neither.
fn founded(number: &str) -> Option<time::Date> {
    if crate::sandbox::fixtures::reserved(number).is_some() {
        return None;
    }
    let days = 180 + u16::from_be_bytes([digest(number, 2), digest(number, 3)]) % 7_120;
    time::Date::from_calendar_date(2026, time::Month::January, 1)
        .ok()?
        .checked_sub(time::Duration::days(i64::from(days)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_eight_characters_that_may_start_with_two_letters() {
        for ok in ["00000401", "SC123456", "NI000401", "OC000401"] {
            assert!(well_formed(ok), "{ok}");
        }
        for bad in [
            "0000040",
            "000004011",
            "sc123456",
            "S1234567",
            "SC12345X",
            "1A234567",
            "",
        ] {
            assert!(!well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn the_magic_numbers_resolve_as_documented() {
        let eligibility = |n: &str| synthetic(n).map(|e| e.eligibility());
        assert_eq!(eligibility("00000401"), Some(Ok(())));
        assert_eq!(eligibility("OC000401"), Some(Ok(())));
        assert_eq!(
            synthetic("OC000401").map(|e| e.kind),
            Some(EntityKind::LimitedLiabilityPartnership)
        );
        assert_eq!(
            synthetic("SC000401").map(|e| e.jurisdiction),
            Some(Jurisdiction::Scotland)
        );
        assert_eq!(
            synthetic("NI000401").map(|e| e.jurisdiction),
            Some(Jurisdiction::NorthernIreland)
        );
        assert_eq!(eligibility("00000405"), Some(Err(Ineligible::SoleTrader)));
        assert_eq!(eligibility("00000408"), Some(Err(Ineligible::Dissolved)));
        assert_eq!(eligibility("00000409"), Some(Err(Ineligible::Partnership)));
        assert_eq!(eligibility("00000410"), Some(Err(Ineligible::SoleTrader)));
        assert_eq!(synthetic(NOT_ON_REGISTER), None);
        assert_eq!(
            synthetic("FC000001"),
            None,
            "overseas companies are not served"
        );
        assert_eq!(
            synthetic("12345678").map(|e| e.name),
            Some("Synthetic Company 12345678 Ltd".to_owned())
        );
    }

    #[test]
    fn every_magic_number_is_well_formed_and_the_sandboxs_ineligible_one_agrees() {
        for (number, ..) in MAGIC {
            assert!(well_formed(number), "{number}");
        }
        let sandbox = crate::sandbox::fixtures::reserved("00000405").map(|c| c.profile.eligible);
        assert_eq!(sandbox, Some(false));
        assert!(synthetic("00000405").is_some_and(|e| e.eligibility().is_err()));
    }
}
