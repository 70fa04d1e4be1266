//! The versioned synthetic fixtures: reserved companies with fixed outcomes,
//! the simulated bank accounts, the repayment test amounts and the event types.
//! `GET /v1/fixtures` renders exactly this data.

use serde::{Deserialize, Serialize};

/// Bumped whenever the fixtures change (`.2`: the referral that resolves to
/// a decline, 00000407, and the referral rule).
pub const VERSION: &str = "2026-08-11.2";

/// What derived company profiles are hashed with. It was the fixtures
/// version when derived profiles were introduced and is kept fixed, so that
/// adding fixtures never reshuffles the outcome of every other number.
pub const DECISION_SEED: &str = "2026-08-11.1";

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompanyProfile {
    pub eligible: bool,
    pub credit_score: u32,
    pub credit_limit_pence: i64,
    /// Share of the limit the company can afford to borrow, in percent.
    pub affordability_ratio_pct: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReservedCompany {
    pub company_number: &'static str,
    pub name: &'static str,
    pub scenario: &'static str,
    pub profile: CompanyProfile,
}

const fn profile(
    eligible: bool,
    credit_score: u32,
    credit_limit_pence: i64,
    affordability_ratio_pct: u32,
) -> CompanyProfile {
    CompanyProfile {
        eligible,
        credit_score,
        credit_limit_pence,
        affordability_ratio_pct,
    }
}

pub static RESERVED: [ReservedCompany; 7] = [
    ReservedCompany {
        company_number: "00000401",
        name: "Healthy Widgets Ltd",
        scenario: "approved: strong credit, affordable, limit covers every valid amount",
        profile: profile(true, 850, 250_000_000, 100),
    },
    ReservedCompany {
        company_number: "00000402",
        name: "Thin File Trading Ltd",
        scenario: "referred: thin credit file, manual review required; the underwriter approves it a day later (up to its £500,000 limit, affordable up to £300,000)",
        profile: profile(true, 450, 50_000_000, 60),
    },
    ReservedCompany {
        company_number: "00000403",
        name: "Adverse Credit Holdings Ltd",
        scenario: "declined: adverse credit",
        profile: profile(true, 320, 50_000_000, 60),
    },
    ReservedCompany {
        company_number: "00000404",
        name: "Stretched Cashflow Ltd",
        scenario: "declined: low affordability for every valid amount",
        profile: profile(true, 700, 250_000_000, 0),
    },
    ReservedCompany {
        company_number: "00000405",
        name: "Sole Trader Example",
        scenario: "declined: ineligible entity (not a limited company or LLP)",
        profile: profile(false, 700, 50_000_000, 60),
    },
    ReservedCompany {
        company_number: "00000406",
        name: "Modest Limits Ltd",
        scenario: "approved up to its £25,000 limit (2500000 pence); declined amount_exceeds_limit above it",
        profile: profile(true, 780, 2_500_000, 100),
    },
    ReservedCompany {
        company_number: "00000407",
        name: "Borderline Ventures Ltd",
        scenario: "referred: thin credit file, manual review required; the underwriter declines it a day later (credit_adverse)",
        profile: profile(true, 420, 50_000_000, 60),
    },
];

pub fn reserved(company_number: &str) -> Option<&'static ReservedCompany> {
    RESERVED.iter().find(|c| c.company_number == company_number)
}

/// The display name of a company: reserved ones are named in the fixtures,
/// others get a stable synthetic name.
pub fn company_name(company_number: &str) -> String {
    reserved(company_number)
        .map(|c| c.name.to_owned())
        .unwrap_or_else(|| format!("Synthetic Company {company_number} Ltd"))
}

pub const DECISION_RULE: &str = "Reserved companies use their listed profile. Any other 8-digit number gets a profile from \
SHA-256(\"lendhub-sandbox-decision\\0\" + \"2026-08-11.1\" + \"\\0\" + company_number): credit score 300 + (bytes 0-1 as u16 mod 600), \
credit limit £10,000 × (1 + byte 2 mod 50), affordability 20 + (byte 3 mod 60) percent of the limit. Then, in order: \
ineligible → declined ineligible_entity; score < 400 → declined credit_adverse; score < 500 → referred thin_file + \
manual_review_required; amount > limit → declined amount_exceeds_limit; amount > limit × affordability% → declined \
affordability_low; otherwise approved credit_ok + affordability_ok with an offer for the full amount at 900–2500 bps \
nominal (better score, lower rate) over 12/24/36/60 months by amount (≤ £10k, ≤ £50k, ≤ £250k, above).";

pub const REFERRAL_RULE: &str = "A referred application is settled by a simulated underwriter 24 hours (86400 s) after its \
decision, on the client's test clock, with a second decision.completed event. Score 450 or more: the remaining checks run as \
for any application (amount > limit → declined amount_exceeds_limit; amount > limit × affordability% → declined \
affordability_low; otherwise approved credit_ok + affordability_ok with an offer priced as for a score of 500, 2500 bps). \
Score below 450: declined credit_adverse. The settled decision is dated when the review fell due, so its offer lapses 30 \
days after that.";
