//! `lendhub ledger trial-balance` (issue #47) against a running server's
//! database, over transfers written through the store.

use lendhub_domain::ids::{AccountId, HubId};
use lendhub_domain::ledger::movements as m;
use lendhub_domain::money::Money;
use lendhub_store::{LedgerWrite, Write, WriteSet};
use serde_json::Value;
use time::macros::datetime;

use crate::rest_tier::rest_app;
use crate::support::process::cli;

#[tokio::test]
async fn the_trial_balance_lists_every_account_and_equal_totals_now_and_as_of_a_day() {
    let app = rest_app().await;
    let loan = AccountId::generate(1, 1);
    let day_one = datetime!(2026-11-28 10:00 UTC);
    let day_two = datetime!(2026-11-29 10:00 UTC);
    let drawdown = m::drawdown("tr_2", &loan, Money::pence(250_000), day_one).unwrap();
    let transfers = [
        m::capital("tr_1", Money::pence(1_000_000), day_one).unwrap(),
        drawdown.clone(),
        drawdown.post("tr_3", day_one).unwrap(),
        m::accrual("tr_4", &loan, Money::pence(1_234), day_two).unwrap(),
    ];
    for t in transfers {
        let writes = WriteSet {
            writes: vec![Write::Ledger(LedgerWrite::Post(t))],
            ..WriteSet::default()
        };
        app.server().store.commit(writes).await.unwrap();
    }

    let now: Value =
        serde_json::from_str(&cli(&app._site, &["ledger", "trial-balance", "--json"])).unwrap();
    assert_eq!(now["total_debits_pence"], 1_251_234);
    assert_eq!(now["total_credits_pence"], 1_251_234);
    assert_eq!(now["balanced"], true);
    let account = |v: &Value, name: &str| {
        v["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["account"] == name)
            .cloned()
    };
    let funding = account(&now, "lender:funding").unwrap();
    assert_eq!(funding["balance_pence"], 750_000);
    assert_eq!(funding["normal"], "debit");
    let principal = format!("loan:{loan}:principal");
    assert_eq!(account(&now, &principal).unwrap()["balance_pence"], 250_000);
    assert_eq!(
        account(&now, "lender:interest_income").unwrap()["balance_pence"],
        1_234
    );

    let then: Value = serde_json::from_str(&cli(
        &app._site,
        &["ledger", "trial-balance", "--json", "--as-of", "2026-11-28"],
    ))
    .unwrap();
    assert_eq!(then["total_debits_pence"], 1_250_000);
    assert_eq!(then["total_credits_pence"], 1_250_000);
    assert_eq!(account(&then, "lender:interest_income"), None);

    let text = cli(&app._site, &["ledger", "trial-balance"]);
    let total = text.lines().last().unwrap();
    assert!(
        total.starts_with("total") && total.matches("12,512.34").count() == 2,
        "{text}"
    );
}
