//! The standard's `OBActiveOrHistoricCurrencyAndAmount`: a decimal string
//! (`^\d{1,13}$|^\d{1,13}\.\d{1,5}$`) and an ISO 4217 currency. lendhub
//! reads and writes pounds sterling only, in whole pence.

use serde::{Deserialize, Serialize};

use crate::money::Money;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Amount {
    #[serde(rename = "Amount")]
    pub amount: String,
    #[serde(rename = "Currency")]
    pub currency: String,
}

impl Amount {
    /// `pence` (not negative) as the standard writes it: `"1234.56"`.
    pub fn gbp(pence: u64) -> Self {
        Self {
            amount: format!("{}.{:02}", pence / 100, pence % 100),
            currency: "GBP".to_owned(),
        }
    }

    pub fn of(money: Money) -> Option<Self> {
        u64::try_from(money.as_pence()).ok().map(Self::gbp)
    }

    /// The amount in pence: `None` for another currency, a malformed
    /// amount, fractions of a penny or more than `i64` holds.
    pub fn pence(&self) -> Option<i64> {
        if self.currency != "GBP" {
            return None;
        }
        let (whole, fraction) = self.amount.split_once('.').unwrap_or((&self.amount, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || whole.len() > 13 || !digits(whole) {
            return None;
        }
        if fraction.len() > 5
            || !digits(fraction)
            || (self.amount.contains('.') && fraction.is_empty())
        {
            return None;
        }
        // Digits beyond the penny must be zeros.
        let (pennies, rest) = fraction.split_at(fraction.len().min(2));
        if rest.bytes().any(|b| b != b'0') {
            return None;
        }
        let pennies: i64 = format!("{pennies:0<2}").parse().ok()?;
        whole
            .parse::<i64>()
            .ok()?
            .checked_mul(100)?
            .checked_add(pennies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gbp(s: &str) -> Amount {
        Amount {
            amount: s.to_owned(),
            currency: "GBP".to_owned(),
        }
    }

    #[test]
    fn amounts_read_in_whole_pence() {
        assert_eq!(gbp("1234.56").pence(), Some(123_456));
        assert_eq!(gbp("10").pence(), Some(1_000));
        assert_eq!(gbp("0.5").pence(), Some(50));
        assert_eq!(gbp("7.50000").pence(), Some(750));
        for bad in [
            "",
            ".5",
            "1.",
            "1.001",
            "-1",
            "1e3",
            "12345678901234",
            "1.234567",
        ] {
            assert_eq!(gbp(bad).pence(), None, "{bad}");
        }
        let euros = Amount {
            currency: "EUR".into(),
            ..gbp("1")
        };
        assert_eq!(euros.pence(), None);
    }

    #[test]
    fn amounts_write_as_the_standard_does() {
        assert_eq!(Amount::gbp(123_456).amount, "1234.56");
        assert_eq!(Amount::gbp(5).amount, "0.05");
        for pence in [0u64, 1, 99, 100, 1_000_001] {
            assert_eq!(Amount::gbp(pence).pence(), i64::try_from(pence).ok());
        }
    }
}
