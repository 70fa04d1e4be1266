//! A partner's monthly statement (hub seed, Commercial model; issue #17):
//! the integration fee it owes on the month's funded originations, or the
//! revenue share it earns on their net margin — never both on one loan —
//! and the payouts to its sub-accounts out of that share. Pure: a function
//! of the period, the partner's terms and its funded loans, so a month
//! closed again from the same facts gives the same statement, byte for
//! byte. docs/decisions.md records every choice the seed leaves open.

use serde::{Deserialize, Serialize};
use time::{Date, Duration, Month, OffsetDateTime, Time};

use crate::billing::economics::{self, FeeTier, Origination};
use crate::ids::{AccountId, HubId, StatementId, SubAccountId};
use crate::loan;
use crate::money::Money;
use crate::tenant::Tenant;
use crate::working_days::WorkingDays;

pub mod agreement;

/// A calendar month, `YYYY-MM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Period {
    pub year: i32,
    pub month: Month,
}

impl Period {
    pub fn parse(raw: &str) -> Option<Self> {
        let (y, m) = raw.split_once('-')?;
        let digits = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(y, 4) || !digits(m, 2) {
            return None;
        }
        let year: i32 = y.parse().ok()?;
        let month = Month::try_from(m.parse::<u8>().ok()?).ok()?;
        (2000..=9999)
            .contains(&year)
            .then_some(Self { year, month })
    }

    pub fn of(at: OffsetDateTime) -> Self {
        Self::of_date(at.date())
    }

    pub fn of_date(day: Date) -> Self {
        Self {
            year: day.year(),
            month: day.month(),
        }
    }

    /// Its first day.
    pub fn first_day(self) -> Date {
        self.start().date()
    }

    pub fn next(self) -> Self {
        match self.month {
            Month::December => Self {
                year: self.year + 1,
                month: Month::January,
            },
            m => Self {
                year: self.year,
                month: m.next(),
            },
        }
    }

    /// Midnight UTC on its first day.
    pub fn start(self) -> OffsetDateTime {
        Date::from_calendar_date(self.year, self.month, 1)
            .map(|d| d.with_time(Time::MIDNIGHT).assume_utc())
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }

    pub fn end(self) -> OffsetDateTime {
        self.next().start()
    }

    /// The invoice date: the 2nd working day of the next month in England
    /// and Wales.
    pub fn invoice_date(self, days: &WorkingDays) -> Date {
        let next = self.next();
        days.nth_working_day(next.year, next.month, 2)
            .unwrap_or_else(|| next.start().date())
    }
}

impl From<Period> for String {
    fn from(period: Period) -> Self {
        period.to_string()
    }
}

impl TryFrom<String> for Period {
    type Error = String;

    fn try_from(raw: String) -> Result<Self, Self::Error> {
        Period::parse(&raw).ok_or_else(|| format!("{raw:?} is not a month, YYYY-MM"))
    }
}

impl std::fmt::Display for Period {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month as u8)
    }
}

/// How a partner is paid for (seed: the integration fee, or the revenue
/// share, "mutually exclusive … on a given loan"). A partner is on one
/// model at a time; a change applies from the month it is agreed from
/// ([`agreement`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum Terms {
    /// The partner pays a fee per funded origination; above 10 m GBP of
    /// trailing volume, its own rate if one was agreed.
    IntegrationFee {
        #[serde(default)]
        custom_fee_pence: Option<i64>,
    },
    /// The lender pays the partner a share of each qualifying loan's net
    /// margin; the Strategic tier's share is agreed per partner.
    RevenueShare {
        #[serde(default = "default_strategic")]
        strategic_share_bps: u32,
    },
}

fn default_strategic() -> u32 {
    STRATEGIC_MIN_BPS
}

impl Default for Terms {
    /// A partner without an agreement pays the integration fee: the
    /// revenue share is negotiated.
    fn default() -> Self {
        Terms::IntegrationFee {
            custom_fee_pence: None,
        }
    }
}

/// The seed's "22 % or more".
pub const STRATEGIC_MIN_BPS: u32 = 2_200;
/// What the lender's money costs it, a year: the net margin's deduction.
pub const COST_OF_FUNDS_BPS: u32 = 500;
/// The expected loss on a loan, once, as a share of its principal.
pub const EXPECTED_LOSS_BPS: i64 = 200;
const POUND: i64 = 100;

/// The revenue-share tiers, by the month's qualifying funded volume; each
/// upper bound belongs to the lower tier (250 k exactly is Referral).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ShareTier {
    Referral,
    Embedded,
    Strategic,
}

impl ShareTier {
    pub fn for_volume(volume: Money) -> Self {
        let pence = volume.as_pence();
        if pence <= 250_000 * POUND {
            ShareTier::Referral
        } else if pence <= 1_500_000 * POUND {
            ShareTier::Embedded
        } else {
            ShareTier::Strategic
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ShareTier::Referral => "referral",
            ShareTier::Embedded => "embedded",
            ShareTier::Strategic => "strategic",
        }
    }

    pub fn share_bps(self, strategic_bps: u32) -> u32 {
        match self {
            ShareTier::Referral => 1_000,
            ShareTier::Embedded => 1_800,
            ShareTier::Strategic => strategic_bps.max(STRATEGIC_MIN_BPS),
        }
    }

    /// Whether a loan earns the share under this tier's attribution
    /// window: Referral, the borrower's first funded loan within 90 days
    /// of the application; Embedded, every loan within 12 months of the
    /// borrower's first; Strategic, every loan for the relationship's life.
    ///
    /// `first` is the borrower's first funded loan: when, and its account.
    pub fn qualifies(self, loan: &Loan, first: (OffsetDateTime, &str)) -> bool {
        let (first_funded_at, first_account) = first;
        match self {
            ShareTier::Referral => {
                loan.account_id.as_str() == first_account
                    && loan.funded_at - loan.applied_at <= Duration::days(90)
            }
            ShareTier::Embedded => loan.funded_at - first_funded_at <= Duration::days(365),
            ShareTier::Strategic => true,
        }
    }
}

/// A funded loan, as the statement sees it: the stored facts of its
/// account, frozen at funding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loan {
    pub account_id: AccountId,
    /// The borrower, across its loans with this partner.
    pub company_number: String,
    pub sub_account_id: Option<SubAccountId>,
    /// The partner's own attribution of the deal.
    pub partner_ref: Option<String>,
    /// When its application was made: where the attribution window opens.
    pub applied_at: OffsetDateTime,
    pub funded_at: OffsetDateTime,
    pub principal: Money,
    pub total_repayable: Money,
    pub term_months: u32,
}

/// A loan's net margin: the interest its signed schedule earns, less what
/// the same principal costs the lender over the same schedule at
/// [`COST_OF_FUNDS_BPS`], less the expected loss ([`EXPECTED_LOSS_BPS`] of
/// the principal, rounded to the penny); never below nothing. Counted once,
/// in the month the loan funds. `None` on overflow.
pub fn net_margin(loan: &Loan) -> Option<Money> {
    let principal = loan.principal.as_pence();
    let interest = loan.total_repayable.as_pence().checked_sub(principal)?;
    let funding = loan::offer(principal, COST_OF_FUNDS_BPS, loan.term_months)
        .total_repayable_pence
        .as_pence()
        .checked_sub(principal)?;
    let loss = principal
        .checked_mul(EXPECTED_LOSS_BPS)?
        .checked_add(5_000)?
        / 10_000;
    Some(Money::pence(
        interest.checked_sub(funding)?.checked_sub(loss)?.max(0),
    ))
}

/// `amount` × `bps` / 10 000, rounded down to the penny.
fn share_of(amount: Money, bps: u32) -> Option<Money> {
    Some(Money::pence(
        amount.as_pence().checked_mul(i64::from(bps))? / 10_000,
    ))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Draft,
    Finalized,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::Finalized => "finalized",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    IntegrationFee,
    RevenueShare,
}

/// One funded loan on the statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub account_id: AccountId,
    pub kind: LineKind,
    pub funded_at: OffsetDateTime,
    pub principal_pence: i64,
    /// The loan's net margin.
    pub net_margin_pence: i64,
    /// The fee, or the partner's share (before its sub-account's payout).
    pub amount_pence: i64,
    pub sub_account_id: Option<SubAccountId>,
    #[serde(default)]
    pub partner_ref: Option<String>,
}

/// What a sub-account is paid for a month: its share of the net margin of
/// the qualifying loans it introduced, out of the partner's share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payout {
    pub sub_account_id: SubAccountId,
    pub gross_pence: i64,
    /// Introduced loans funded in the month that earned it.
    pub introductions: u32,
}

/// Who pays the statement's `payable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Payer {
    /// An invoice: the partner pays the lender its integration fees.
    Partner,
    /// A remittance: the lender pays the partner its revenue share.
    Lender,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    /// Derived from the owner and the period, so a re-close names it again.
    pub id: StatementId,
    pub owner: Tenant,
    pub period: String,
    /// `integration_fee` or `revenue_share`.
    pub model: String,
    /// The fee tier (`up_to_500k` …) or the share tier (`referral` …).
    pub tier: String,
    pub funded_originations: u32,
    pub funded_volume_pence: i64,
    /// The net margin of the loans the share is paid on (all the month's
    /// loans under the integration fee, for information).
    pub net_margin_pence: i64,
    /// The share, in basis points; 0 under the integration fee.
    pub share_rate_bps: u32,
    /// The fee per origination; 0 under the revenue share.
    pub fee_per_origination_pence: i64,
    /// What settles the statement, exclusive of VAT: the fees, or the
    /// share less what the sub-accounts are paid directly.
    pub payable_pence: i64,
    pub payable_by: Payer,
    pub payouts: Vec<Payout>,
    pub lines: Vec<Line>,
    pub invoice_date: Date,
    /// When it is paid: the invoice date (collected, or remitted, then).
    pub pay_date: Date,
    pub status: Status,
    /// Corrections of finalized months, settled with this one.
    #[serde(default)]
    pub adjustments: Vec<Adjustment>,
    /// The terms it was closed under: a finalized month is checked again
    /// under these, not under terms agreed since.
    #[serde(default)]
    pub terms: Terms,
}

/// A correction of a finalized month (a finalized statement never
/// changes): made by the lender's operator, settled with the owner's next
/// statement that is still open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjustment {
    pub id: crate::ids::AdjustmentId,
    pub owner: Tenant,
    /// The finalized month it corrects.
    pub corrects: String,
    /// The month whose statement settles it.
    pub applies_to: String,
    /// Signed: positive when the partner owes the lender more (a fee
    /// under-billed, a share over-paid), negative the other way.
    pub amount_pence: i64,
    pub reason: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl Statement {
    /// What the partner owes the lender on it: negative when the lender
    /// owes the partner.
    fn owed_by_partner(&self) -> i64 {
        match self.payable_by {
            Payer::Partner => self.payable_pence,
            Payer::Lender => -self.payable_pence,
        }
    }

    /// The statement with `adjustments` settled on it: the payable moves by
    /// their sum, and turns to the other party if it crosses nothing.
    pub fn with_adjustments(mut self, adjustments: Vec<Adjustment>) -> Result<Self, Overflow> {
        let owed = adjustments
            .iter()
            .try_fold(self.owed_by_partner(), |sum, a| {
                sum.checked_add(a.amount_pence)
            })
            .ok_or(Overflow)?;
        // A month with nothing but corrections is settled the way they go.
        self.payable_by = match owed {
            o if o > 0 => Payer::Partner,
            o if o < 0 => Payer::Lender,
            _ => self.payable_by,
        };
        self.payable_pence = owed.checked_abs().ok_or(Overflow)?;
        self.adjustments = adjustments;
        Ok(self)
    }
}

/// Whatever the close could not compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the statement's arithmetic overflowed")]
pub struct Overflow;

/// The statement of `owner` for `period`, from every loan it ever funded
/// (`loans`, in any order: history decides the fee's trailing window and
/// the share's first loans), its terms, and each sub-account's share.
pub fn close(
    owner: &Tenant,
    period: Period,
    terms: &Terms,
    loans: &[Loan],
    sub_share_bps: &dyn Fn(&SubAccountId) -> u32,
    days: &WorkingDays,
) -> Result<Statement, Overflow> {
    let (from, to) = (period.start(), period.end());
    let mut month: Vec<&Loan> = loans
        .iter()
        .filter(|l| l.funded_at >= from && l.funded_at < to)
        .collect();
    month.sort_by(|a, b| {
        (a.funded_at, a.account_id.as_str()).cmp(&(b.funded_at, b.account_id.as_str()))
    });
    let volume = Money::sum(month.iter().map(|l| l.principal)).ok_or(Overflow)?;
    let margins: Vec<Money> = month
        .iter()
        .map(|l| net_margin(l).ok_or(Overflow))
        .collect::<Result<_, _>>()?;
    let invoice_date = period.invoice_date(days);
    let mut statement = Statement {
        id: statement_id(owner, period),
        owner: owner.clone(),
        period: period.to_string(),
        model: String::new(),
        tier: String::new(),
        funded_originations: month.len() as u32,
        funded_volume_pence: volume.as_pence(),
        net_margin_pence: 0,
        share_rate_bps: 0,
        fee_per_origination_pence: 0,
        payable_pence: 0,
        payable_by: Payer::Partner,
        payouts: Vec::new(),
        lines: Vec::new(),
        invoice_date,
        pay_date: invoice_date,
        status: Status::Draft,
        adjustments: Vec::new(),
        terms: terms.clone(),
    };
    match terms {
        Terms::IntegrationFee { custom_fee_pence } => {
            let originations: Vec<Origination> = loans
                .iter()
                .map(|l| Origination {
                    account_id: l.account_id.clone(),
                    funded_at: l.funded_at,
                    principal: l.principal,
                })
                .collect();
            let fees =
                economics::month_fees(&originations, from, to, custom_fee_pence.map(Money::pence))
                    .ok_or(Overflow)?;
            statement.model = "integration_fee".into();
            statement.tier = fees.tier.as_str().into();
            statement.fee_per_origination_pence = fees.rate.as_pence();
            statement.net_margin_pence = Money::sum(margins.iter().copied())
                .ok_or(Overflow)?
                .as_pence();
            statement.payable_pence = fees.total.as_pence();
            statement.lines = month
                .iter()
                .zip(&margins)
                .map(|(l, m)| Line {
                    account_id: l.account_id.clone(),
                    kind: LineKind::IntegrationFee,
                    funded_at: l.funded_at,
                    principal_pence: l.principal.as_pence(),
                    net_margin_pence: m.as_pence(),
                    amount_pence: fees.rate.as_pence(),
                    sub_account_id: l.sub_account_id.clone(),
                    partner_ref: l.partner_ref.clone(),
                })
                .collect();
            debug_assert_eq!(fees.lines.len(), statement.lines.len());
            let _: FeeTier = fees.tier;
        }
        Terms::RevenueShare {
            strategic_share_bps,
        } => {
            let tier = ShareTier::for_volume(volume);
            let bps = tier.share_bps(*strategic_share_bps);
            // Each borrower's first funded loan with this partner (ties, to
            // the millisecond, go to the smaller account id).
            let mut first: std::collections::HashMap<&str, (OffsetDateTime, &str)> =
                std::collections::HashMap::new();
            for l in loans {
                let key = (l.funded_at, l.account_id.as_str());
                first
                    .entry(l.company_number.as_str())
                    .and_modify(|t| *t = (*t).min(key))
                    .or_insert(key);
            }
            let mut payouts: std::collections::BTreeMap<String, Payout> = Default::default();
            let (mut margin_total, mut share_total) = (Money::ZERO, Money::ZERO);
            for (l, m) in month.iter().zip(&margins) {
                let first = first
                    .get(l.company_number.as_str())
                    .copied()
                    .unwrap_or((l.funded_at, l.account_id.as_str()));
                if !tier.qualifies(l, first) {
                    continue;
                }
                let share = share_of(*m, bps).ok_or(Overflow)?;
                margin_total = margin_total.checked_add(*m).ok_or(Overflow)?;
                share_total = share_total.checked_add(share).ok_or(Overflow)?;
                if let Some(sub) = &l.sub_account_id {
                    // Paid out of the partner's share: never more than it.
                    let sub_bps = sub_share_bps(sub).min(bps);
                    let gross = share_of(*m, sub_bps).ok_or(Overflow)?;
                    let p = payouts.entry(sub.to_string()).or_insert_with(|| Payout {
                        sub_account_id: sub.clone(),
                        gross_pence: 0,
                        introductions: 0,
                    });
                    p.gross_pence = p
                        .gross_pence
                        .checked_add(gross.as_pence())
                        .ok_or(Overflow)?;
                    p.introductions += 1;
                }
                statement.lines.push(Line {
                    account_id: l.account_id.clone(),
                    kind: LineKind::RevenueShare,
                    funded_at: l.funded_at,
                    principal_pence: l.principal.as_pence(),
                    net_margin_pence: m.as_pence(),
                    amount_pence: share.as_pence(),
                    sub_account_id: l.sub_account_id.clone(),
                    partner_ref: l.partner_ref.clone(),
                });
            }
            let paid_out = payouts
                .values()
                .try_fold(0i64, |sum, p| sum.checked_add(p.gross_pence))
                .ok_or(Overflow)?;
            statement.model = "revenue_share".into();
            statement.tier = tier.as_str().into();
            statement.share_rate_bps = bps;
            statement.net_margin_pence = margin_total.as_pence();
            statement.payable_pence = share_total
                .as_pence()
                .checked_sub(paid_out)
                .ok_or(Overflow)?;
            statement.payable_by = Payer::Lender;
            statement.payouts = payouts.into_values().collect();
        }
    }
    Ok(statement)
}

/// One statement per owner and period, whenever it is closed.
fn statement_id(owner: &Tenant, period: Period) -> StatementId {
    derived_id(&format!("{}|{period}", owner.as_str()), Some(period))
}

#[cfg(test)]
mod tests;

/// A month of one owner's to close: drafted once the month is over on the
/// owner's clock, finalized on its invoice date. Made when the owner's
/// first loan of the month funds, so an owner with no loans has nothing
/// to close.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Close {
    pub owner: Tenant,
    pub period: String,
    /// When, on the owner's clock: the month's end, then its invoice date.
    pub due_at_ms: i64,
    /// Bumped by every close that moves it: a close commits only over the
    /// version it read, even when the due time stays the same.
    #[serde(default)]
    pub version: i64,
}

impl Close {
    /// Its row's key, for the store's conditional change.
    pub fn key(&self) -> String {
        format!("{}|{}", self.owner.as_str(), self.period)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayoutStatus {
    /// Its statement is a draft, or final and the payout not yet sent.
    Pending,
    /// Handed to the payout rail; not yet confirmed.
    InTransit,
    /// The rail confirmed it reached the sub-account's bank (`payout.paid`).
    Paid,
    /// Not paid (`payout.failed`): the receiving bank refused it, or the
    /// sub-account named no account to pay. The share stays owed.
    Failed,
    /// Its month was drafted again without it (the loans it was for no
    /// longer earn a share): never paid.
    Void,
}

impl PayoutStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PayoutStatus::Pending => "pending",
            PayoutStatus::InTransit => "in_transit",
            PayoutStatus::Paid => "paid",
            PayoutStatus::Failed => "failed",
            PayoutStatus::Void => "void",
        }
    }
}

/// A month's payout (beta; seed: Payout): a sub-account's, or the
/// partner's own remittance when its statement is payable by the lender.
/// Once its statement is final it is money owed and goes out over the
/// payout rail (`billing::payout`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayoutRecord {
    pub id: crate::ids::PayoutId,
    pub owner: Tenant,
    /// The sub-account paid; `None` for the partner's own remittance.
    pub sub_account_id: Option<SubAccountId>,
    pub period: String,
    pub status: PayoutStatus,
    pub gross_pence: i64,
    pub introductions: u32,
    #[serde(with = "time::serde::rfc3339::option")]
    pub paid_at: Option<OffsetDateTime>,
    /// Its way over the rail, from its statement's finalization: the
    /// disbursement's outbox states.
    #[serde(default)]
    pub rail: Option<crate::lending::disbursement::State>,
    /// When it is to be sent: its statement's pay date (on the owner's
    /// clock), or the finalization if that came later.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub due_at: Option<OffsetDateTime>,
    /// The ledger's hold of the money while the rail carries it.
    #[serde(default)]
    pub hold: Option<crate::ledger::transfer::Transfer>,
    /// Why it failed, as `funding_failure_reason` words a rejection.
    #[serde(default)]
    pub failure_reason: Option<String>,
    /// Bumped by every move after finalization: a move commits only over
    /// the version it read.
    #[serde(default)]
    pub version: i64,
    /// How many times it was issued again after failing (`reissue`): each
    /// issue goes over the rail under an end-to-end id of its own.
    #[serde(default)]
    pub attempt: u32,
}

impl Statement {
    /// Its payouts as records: each sub-account's, then the partner's own
    /// remittance if the lender owes it the statement's payable. Pending
    /// while it is a draft; once it is finalized at `now`, due over the
    /// rail on its pay date.
    pub fn payout_records(&self, now: OffsetDateTime) -> Vec<PayoutRecord> {
        let finalized = self.status == Status::Finalized;
        let due_at = now.max(self.pay_date.midnight().assume_offset(now.offset()));
        let record = |sub_account_id: Option<&SubAccountId>, gross_pence, introductions| {
            let payee = sub_account_id.map_or("partner", SubAccountId::as_str);
            PayoutRecord {
                id: derived_id(
                    &format!("{}|{payee}|{}", self.owner.as_str(), self.period),
                    Period::parse(&self.period),
                ),
                owner: self.owner.clone(),
                sub_account_id: sub_account_id.cloned(),
                period: self.period.clone(),
                status: PayoutStatus::Pending,
                gross_pence,
                introductions,
                paid_at: None,
                rail: finalized.then_some(crate::lending::disbursement::State::Due),
                due_at: finalized.then_some(due_at),
                hold: None,
                failure_reason: None,
                version: 0,
                attempt: 0,
            }
        };
        let mut records: Vec<PayoutRecord> = self
            .payouts
            .iter()
            .map(|p| record(Some(&p.sub_account_id), p.gross_pence, p.introductions))
            .collect();
        if self.payable_by == Payer::Lender && self.payable_pence > 0 {
            // The partner's own share: of the loans that earned one.
            let earning = self.lines.iter().filter(|l| l.amount_pence > 0).count();
            records.push(record(
                None,
                self.payable_pence,
                u32::try_from(earning).unwrap_or(u32::MAX),
            ));
        }
        records
    }
}

/// An id that names the same thing whenever it is made: the period's start
/// as its time, a digest of what it names as its randomness.
fn derived_id<I: HubId>(names: &str, period: Option<Period>) -> I {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(names);
    let mut random = [0u8; 16];
    random.copy_from_slice(&digest[..16]);
    let ms = period.map_or(0, |p| {
        (p.start().unix_timestamp_nanos() / 1_000_000).max(0) as u64
    });
    I::generate(ms, u128::from_be_bytes(random))
}
