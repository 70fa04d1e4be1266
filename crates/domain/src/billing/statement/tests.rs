use proptest::prelude::*;
use time::macros::datetime;

use super::*;

const NOV: Period = Period {
    year: 2026,
    month: Month::November,
};

fn owner() -> Tenant {
    Tenant::partner("pk_live_statement", true, None)
}

fn loan(
    n: u128,
    company: &str,
    applied: OffsetDateTime,
    funded: OffsetDateTime,
    pounds: i64,
) -> Loan {
    let principal = pounds * POUND;
    let offer = loan::offer(principal, 1_200, 24);
    Loan {
        account_id: AccountId::generate(1, n),
        company_number: company.into(),
        sub_account_id: None,
        partner_ref: Some(format!("merchant:{n}")),
        applied_at: applied,
        funded_at: funded,
        principal: Money::pence(principal),
        total_repayable: offer.total_repayable_pence,
        term_months: 24,
    }
}

fn close_with(terms: &Terms, loans: &[Loan]) -> Statement {
    close(
        &owner(),
        NOV,
        terms,
        loans,
        &|_| 500,
        &WorkingDays::bundled(),
    )
    .unwrap()
}

const FEE: Terms = Terms::IntegrationFee {
    custom_fee_pence: None,
};
const SHARE: Terms = Terms::RevenueShare {
    strategic_share_bps: 2_500,
};

#[test]
fn periods_parse_and_invoice_on_the_second_working_day() {
    assert_eq!(Period::parse("2026-11"), Some(NOV));
    for bad in ["2026-13", "2026-1", "26-11", "2026/11", "2026-00"] {
        assert_eq!(Period::parse(bad), None, "{bad}");
    }
    assert_eq!(NOV.to_string(), "2026-11");
    assert_eq!(NOV.start(), datetime!(2026-11-01 00:00 UTC));
    assert_eq!(NOV.end(), datetime!(2026-12-01 00:00 UTC));
    let dec = NOV.next();
    assert_eq!(dec.next().to_string(), "2027-01");
    // December 2026 is invoiced on Tuesday 5 January 2027: New Year's Day
    // is a Friday, so Monday the 4th is the first working day.
    assert_eq!(
        dec.invoice_date(&WorkingDays::bundled()),
        time::macros::date!(2027 - 01 - 05)
    );
}

#[test]
fn the_fee_rates_every_origination_of_the_month_at_its_tier() {
    let day = |d: i64| NOV.start() + Duration::days(d);
    let loans: Vec<Loan> = (0..4)
        .map(|n| {
            loan(
                n,
                &format!("0000040{n}"),
                day(0),
                day(2 + 7 * n as i64),
                150_000,
            )
        })
        .collect();
    let s = close_with(&FEE, &loans);
    assert_eq!(s.model, "integration_fee");
    assert_eq!(s.tier, "up_to_2m", "600 k crossed 500 k mid-month");
    assert_eq!(s.funded_originations, 4);
    assert_eq!(s.funded_volume_pence, 600_000 * POUND);
    assert_eq!(s.fee_per_origination_pence, 3_200);
    assert_eq!(s.payable_pence, 4 * 3_200);
    assert_eq!(s.payable_by, Payer::Partner);
    assert!(
        s.lines
            .iter()
            .all(|l| l.kind == LineKind::IntegrationFee && l.amount_pence == 3_200)
    );
    assert!(s.payouts.is_empty());
    assert_eq!(s.share_rate_bps, 0);
}

#[test]
fn net_margin_is_interest_less_funding_and_expected_loss() {
    let l = loan(1, "00000401", NOV.start(), NOV.start(), 10_000);
    let interest = l.total_repayable.as_pence() - 10_000 * POUND;
    let funding = loan::offer(10_000 * POUND, COST_OF_FUNDS_BPS, 24)
        .total_repayable_pence
        .as_pence()
        - 10_000 * POUND;
    let loss = 10_000 * POUND * EXPECTED_LOSS_BPS / 10_000;
    assert_eq!(
        net_margin(&l).unwrap().as_pence(),
        interest - funding - loss
    );
    let mut thin = l.clone();
    thin.total_repayable = thin.principal;
    assert_eq!(net_margin(&thin), Some(Money::ZERO), "never below nothing");
}

#[test]
fn the_share_follows_the_tier_and_its_attribution_window() {
    let start = NOV.start();
    let history = loan(
        1,
        "A",
        start - Duration::days(200),
        start - Duration::days(100),
        50_000,
    );
    let repeat = loan(
        2,
        "A",
        start + Duration::days(1),
        start + Duration::days(2),
        50_000,
    );
    let slow = loan(
        3,
        "B",
        start - Duration::days(120),
        start + Duration::days(3),
        50_000,
    );
    let fresh = loan(4, "C", start, start + Duration::days(4), 50_000);
    let loans = [history, repeat, slow, fresh.clone()];
    // 150 k in the month: Referral, on first loans within 90 days only.
    let s = close_with(&SHARE, &loans);
    assert_eq!(
        (s.model.as_str(), s.tier.as_str()),
        ("revenue_share", "referral")
    );
    assert_eq!(s.share_rate_bps, 1_000);
    let paid: Vec<_> = s.lines.iter().map(|l| l.account_id.clone()).collect();
    assert_eq!(paid, vec![fresh.account_id.clone()]);
    let margin = net_margin(&fresh).unwrap().as_pence();
    assert_eq!(s.net_margin_pence, margin);
    assert_eq!(s.payable_pence, margin * 1_000 / 10_000);
    assert_eq!(s.payable_by, Payer::Lender);
    assert_eq!(s.fee_per_origination_pence, 0, "never both on one loan");

    // Over 250 k: Embedded, every loan within 12 months of the borrower's first.
    let big: Vec<Loan> = loans
        .iter()
        .map(|l| Loan {
            principal: Money::pence(l.principal.as_pence() * 2),
            ..l.clone()
        })
        .collect();
    let s = close_with(&SHARE, &big);
    assert_eq!((s.tier.as_str(), s.share_rate_bps), ("embedded", 1_800));
    assert_eq!(
        s.lines.len(),
        3,
        "the repeat and the slow first loan now qualify"
    );
    // 250 k exactly is still Referral.
    assert_eq!(
        ShareTier::for_volume(Money::pence(250_000 * POUND)),
        ShareTier::Referral
    );
    assert_eq!(
        ShareTier::for_volume(Money::pence(1_500_000 * POUND)),
        ShareTier::Embedded
    );
    assert_eq!(ShareTier::Strategic.share_bps(1_000), STRATEGIC_MIN_BPS);
}

#[test]
fn sub_accounts_are_paid_out_of_the_partners_share() {
    let start = NOV.start();
    let mut introduced = loan(1, "A", start, start + Duration::days(1), 40_000);
    introduced.sub_account_id = Some(SubAccountId::generate(1, 9));
    let direct = loan(2, "B", start, start + Duration::days(2), 40_000);
    let s = close_with(&SHARE, &[introduced.clone(), direct]);
    let margin = net_margin(&introduced).unwrap().as_pence();
    assert_eq!(s.payouts.len(), 1);
    assert_eq!(s.payouts[0].gross_pence, margin * 500 / 10_000);
    assert_eq!(s.payouts[0].introductions, 1);
    let share: i64 = s.lines.iter().map(|l| l.amount_pence).sum();
    assert_eq!(s.payable_pence, share - s.payouts[0].gross_pence);
}

/// Finalized, the statement owes one payout per sub-account and, when the
/// lender owes it the payable, one to the partner itself for exactly that;
/// an invoice the partner pays owes the partner nothing.
#[test]
fn the_partners_own_share_is_paid_out_beside_its_sub_accounts() {
    let start = NOV.start();
    let mut introduced = loan(1, "A", start, start + Duration::days(1), 40_000);
    introduced.sub_account_id = Some(SubAccountId::generate(1, 9));
    let direct = loan(2, "B", start, start + Duration::days(2), 40_000);
    let mut s = close_with(&SHARE, &[introduced, direct]);
    s.status = Status::Finalized;
    let now = s.pay_date.midnight().assume_utc();
    let records = s.payout_records(now);
    assert_eq!(records.len(), 2);
    assert_eq!(
        records[0].sub_account_id,
        Some(SubAccountId::generate(1, 9))
    );
    assert_eq!(records[0].gross_pence, s.payouts[0].gross_pence);
    let own = &records[1];
    assert_eq!(own.sub_account_id, None);
    assert_eq!((own.gross_pence, own.introductions), (s.payable_pence, 2));
    assert_eq!(own.due_at, Some(now));
    assert_ne!(own.id, records[0].id);
    assert_eq!(
        s.payout_records(now),
        records,
        "the same ids on every close"
    );

    let fee = close_with(
        &FEE,
        &[loan(3, "C", start, start + Duration::days(1), 10_000)],
    );
    assert_eq!(fee.payable_by, Payer::Partner);
    assert!(fee.payout_records(now).is_empty());
}

#[test]
fn only_the_months_loans_are_on_it() {
    let start = NOV.start();
    let before = loan(1, "A", start, start - Duration::seconds(1), 10_000);
    let after = loan(2, "B", start, NOV.end(), 10_000);
    let s = close_with(&FEE, &[before, after]);
    assert_eq!((s.funded_originations, s.payable_pence), (0, 0));
}

proptest! {
    /// Closed again from the same facts, in any order: the same statement,
    /// byte for byte; the fee is the tier's rate times the month's loans,
    /// each billed once; a share is never paid on a loan that also pays a
    /// fee, and sub-accounts never get more than the share.
    #[test]
    fn statements_are_functions_of_their_facts(
        fundings in proptest::collection::vec((0i64..70 * 24, 1i64..600_000, 0u8..6, any::<bool>()), 0..50),
        share in any::<bool>(),
    ) {
        let origin = NOV.start() - Duration::days(40);
        let loans: Vec<Loan> = fundings
            .iter()
            .enumerate()
            .map(|(n, (hours, pounds, company, introduced))| {
                let funded = origin + Duration::hours(*hours);
                let mut l = loan(n as u128, &company.to_string(), funded - Duration::days(10), funded, *pounds);
                if *introduced {
                    l.sub_account_id = Some(SubAccountId::generate(1, u128::from(*company)));
                }
                l
            })
            .collect();
        let terms = if share { SHARE } else { FEE };
        let s = close_with(&terms, &loans);
        let mut reversed = loans.clone();
        reversed.reverse();
        let again = close_with(&terms, &reversed);
        prop_assert_eq!(serde_json::to_vec(&s).unwrap(), serde_json::to_vec(&again).unwrap());
        let in_month = loans.iter().filter(|l| l.funded_at >= NOV.start() && l.funded_at < NOV.end()).count();
        prop_assert_eq!(s.funded_originations as usize, in_month);
        let mut ids: Vec<_> = s.lines.iter().map(|l| l.account_id.to_string()).collect();
        ids.sort();
        ids.dedup();
        prop_assert_eq!(ids.len(), s.lines.len(), "each loan at most once");
        if share {
            prop_assert!(s.lines.iter().all(|l| l.kind == LineKind::RevenueShare));
            let total: i64 = s.lines.iter().map(|l| l.amount_pence).sum();
            let paid_out: i64 = s.payouts.iter().map(|p| p.gross_pence).sum();
            prop_assert!(paid_out <= total);
            prop_assert_eq!(s.payable_pence, total - paid_out);
        } else {
            prop_assert_eq!(s.lines.len(), in_month);
            prop_assert_eq!(s.payable_pence, s.fee_per_origination_pence * in_month as i64);
        }
    }
}

#[test]
fn adjustments_move_the_payable_and_may_turn_it_around() {
    let start = NOV.start();
    let fee = close_with(
        &FEE,
        &[loan(1, "A", start, start + Duration::days(1), 10_000)],
    );
    assert_eq!((fee.payable_pence, fee.payable_by), (4_500, Payer::Partner));
    let adjustment = |amount: i64| Adjustment {
        id: crate::ids::AdjustmentId::generate(1, amount.unsigned_abs().into()),
        owner: owner(),
        corrects: "2026-10".into(),
        applies_to: "2026-11".into(),
        amount_pence: amount,
        reason: "a refunded fee".into(),
        created_at: start,
    };
    let credited = fee
        .clone()
        .with_adjustments(vec![adjustment(-4_500), adjustment(-1_000)])
        .unwrap();
    assert_eq!(
        (credited.payable_pence, credited.payable_by),
        (1_000, Payer::Lender)
    );
    assert_eq!(credited.adjustments.len(), 2);
    let empty = close_with(&FEE, &[])
        .with_adjustments(vec![adjustment(3_200)])
        .unwrap();
    assert_eq!(
        (empty.payable_pence, empty.payable_by),
        (3_200, Payer::Partner)
    );
    let share = close_with(
        &SHARE,
        &[loan(2, "B", start, start + Duration::days(1), 10_000)],
    );
    let owed = share.payable_pence;
    let less = share.with_adjustments(vec![adjustment(100)]).unwrap();
    assert_eq!(
        (less.payable_pence, less.payable_by),
        (owed - 100, Payer::Lender)
    );
}
