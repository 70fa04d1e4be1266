//! The public pricing configuration: one versioned document from which the
//! quotes, the product catalogue, the loyalty ladder and the public MCP tools
//! all compute. The shipped default lives in a data file; an operator may
//! replace it. No pricing figure is written anywhere else in the code.

use serde::{Deserialize, Serialize};

/// Rates are in basis points of a percent-per-period figure: 25 bps = 0.25 %.
pub type Bps = u32;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricingConfig {
    /// Changes whenever any figure changes; quotes carry it.
    pub version: String,
    pub currency: String,
    pub business_loan: BusinessLoan,
    pub slice: Slice,
    pub flex: Flex,
    pub loyalty_tiers: Vec<LoyaltyTier>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Frequency {
    Weekly,
    Fortnightly,
    Monthly,
}

impl Frequency {
    pub const ALL: [Frequency; 3] = [Self::Weekly, Self::Fortnightly, Self::Monthly];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Weekly => "weekly",
            Self::Fortnightly => "fortnightly",
            Self::Monthly => "monthly",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusinessLoan {
    pub name: String,
    pub summary: String,
    /// Simple interest per day on the outstanding principal.
    pub daily_interest_bps: Bps,
    /// Payable with the first instalment.
    pub establishment_fee_pence: i64,
    /// Interest and fees together never exceed this share of the principal.
    pub total_cost_cap_percent: u32,
    pub principal_min_pence: i64,
    pub principal_max_pence: i64,
    pub term_min_days: u32,
    pub term_max_days: u32,
    pub frequencies: Vec<Frequency>,
    pub default_frequency: Frequency,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slice {
    pub name: String,
    pub summary: String,
    /// A flat fee on the amount paid to the biller.
    pub fee_bps: Bps,
    pub instalments_min: u32,
    pub instalments_max: u32,
    pub instalment_interval_days: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flex {
    pub name: String,
    pub summary: String,
    /// Simple interest per day on the drawn balance; nothing on the undrawn limit.
    pub daily_interest_bps: Bps,
    pub limit_min_pence: i64,
    pub limit_max_pence: i64,
    pub representative: FlexExample,
}

/// The representative example: a drawing repaid like a Business Loan of the
/// same amount and term, at Flex's rate and without the establishment fee.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlexExample {
    pub limit_pence: i64,
    pub drawn_pence: i64,
    pub term_days: u32,
    pub frequency: Frequency,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoyaltyTier {
    pub name: String,
    /// Loans repaid on time needed to reach the tier.
    pub threshold_loans_repaid: u32,
    pub benefits: Vec<String>,
    /// Days to wait after repaying before the next loan.
    pub cooldown_days: u32,
    /// Off the establishment fee, in percent units (10 = 10 %).
    pub arrangement_fee_discount_percent: u32,
}

/// A configuration that cannot price anything sensibly, and why.
#[derive(Debug, thiserror::Error)]
#[error("pricing configuration: {0}")]
pub struct InvalidPricing(pub String);

impl PricingConfig {
    pub fn parse(json: &str) -> Result<Self, InvalidPricing> {
        let config: Self = serde_json::from_str(json).map_err(|e| InvalidPricing(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), InvalidPricing> {
        let bad = |why: &str| Err(InvalidPricing(why.to_owned()));
        let b = &self.business_loan;
        if self.version.trim().is_empty() {
            return bad("version must not be empty");
        }
        if self.currency != "GBP" {
            return bad("currency must be GBP");
        }
        if b.principal_min_pence <= 0 || b.principal_min_pence > b.principal_max_pence {
            return bad("business_loan principal bounds must satisfy 0 < min <= max");
        }
        if b.principal_min_pence % 100 != 0 || b.principal_max_pence % 100 != 0 {
            return bad("business_loan principal bounds must be whole pounds");
        }
        if b.term_min_days == 0 || b.term_min_days > b.term_max_days {
            return bad("business_loan term bounds must satisfy 0 < min <= max");
        }
        if b.establishment_fee_pence < 0 {
            return bad("business_loan establishment_fee_pence must not be negative");
        }
        if b.frequencies.is_empty() || !b.frequencies.contains(&b.default_frequency) {
            return bad("business_loan default_frequency must be one of its frequencies");
        }
        let s = &self.slice;
        if s.instalments_min == 0
            || s.instalments_min > s.instalments_max
            || s.instalment_interval_days == 0
        {
            return bad("slice instalments must satisfy 0 < min <= max and a positive interval");
        }
        let f = &self.flex;
        let r = &f.representative;
        if f.limit_min_pence <= 0
            || f.limit_min_pence > f.limit_max_pence
            || r.drawn_pence <= 0
            || r.drawn_pence > r.limit_pence
            || r.limit_pence < f.limit_min_pence
            || r.limit_pence > f.limit_max_pence
            || r.term_days == 0
        {
            return bad("flex representative example must draw within a limit inside the bounds");
        }
        if self.loyalty_tiers.is_empty() {
            return bad("loyalty_tiers must not be empty");
        }
        let ascending = self
            .loyalty_tiers
            .windows(2)
            .all(|w| w[0].threshold_loans_repaid < w[1].threshold_loans_repaid);
        if !ascending {
            return bad("loyalty_tiers thresholds must ascend");
        }
        if self
            .loyalty_tiers
            .iter()
            .any(|t| t.arrangement_fee_discount_percent > 100)
        {
            return bad("a loyalty discount cannot exceed 100 percent");
        }
        Ok(())
    }

    /// The Slice fee on `amount_pence`, rounded half up.
    pub fn slice_fee_pence(&self, amount_pence: i64) -> i64 {
        (amount_pence * i64::from(self.slice.fee_bps) + 5_000) / 10_000
    }
}

/// A rate in basis points as a percent string: 25 → "0.25".
pub fn bps_percent(bps: Bps) -> String {
    format!("{}.{:02}", bps / 100, bps % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: &str = include_str!("../../../hub/data/pricing.json");

    #[test]
    fn the_shipped_configuration_is_valid() {
        let c = PricingConfig::parse(SHIPPED).unwrap();
        assert_eq!(c.business_loan.daily_interest_bps, 25);
        assert_eq!(c.business_loan.establishment_fee_pence, 500);
        assert_eq!(c.slice_fee_pence(10_000), 600);
        let names: Vec<&str> = c.loyalty_tiers.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Bronze", "Silver", "Gold", "Platinum"]);
    }

    #[test]
    fn nonsense_is_refused_with_a_reason() {
        let mut c = PricingConfig::parse(SHIPPED).unwrap();
        c.business_loan.term_min_days = 100;
        let json = serde_json::to_string(&c).unwrap();
        let e = PricingConfig::parse(&json).unwrap_err();
        assert!(e.0.contains("term bounds"), "{e}");
        assert!(PricingConfig::parse(r#"{"version": "x"}"#).is_err());
    }

    #[test]
    fn percent_strings() {
        assert_eq!(bps_percent(25), "0.25");
        assert_eq!(bps_percent(600), "6.00");
    }
}
