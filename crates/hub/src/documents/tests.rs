use lendhub_domain::lending::agreement::{Figures, Instalment, Lender, Signed};
use lendhub_domain::money::Money;
use time::macros::datetime;

use super::markup::{Block, parse};
use super::*;

/// Whether `signed` still renders, byte for byte, from its figures with
/// its template, and its hash is its text's.
fn renders_again(signed: &Signed) -> bool {
    matches!(
        agreement_text(&signed.template, &signed.figures),
        Ok(text) if text == signed.content
    ) && sha256_hex(&signed.content) == signed.content_sha256
}

fn lender() -> Lender {
    Lender {
        legal_name: "Example Lender Ltd".into(),
        address: "1 Example Street, London EC1A 1AA".into(),
        registration: "Registered in England and Wales, company number 00000000".into(),
        complaints: "complaints@lender.example".into(),
    }
}

fn figures(signer: Option<&str>) -> Figures {
    let row = |number, amount, interest, principal, balance| Instalment {
        number,
        amount: Money::pence(amount),
        interest: Money::pence(interest),
        principal: Money::pence(principal),
        balance: Money::pence(balance),
    };
    Figures {
        lender: lender(),
        borrower_name: "WIDGETS LTD".into(),
        borrower_number: "00000401".into(),
        signer: signer.map(str::to_owned),
        application_id: "app_01JD0000000000000000000000".into(),
        decision_id: "dec_01JD0000000000000000000000".into(),
        reference: Some("INV-2026-0042".into()),
        amount: Money::pence(200_000),
        term_months: 2,
        annual_rate_bps: 1_200,
        apr: 12.68,
        monthly: Money::pence(100_751),
        total_repayable: Money::pence(201_502),
        total_interest: Money::pence(1_502),
        schedule: vec![
            row(1, 100_751, 2_000, 98_751, 101_249),
            row(2, 100_751, 1_012, 99_739, 1_510),
        ],
    }
}

/// Version 1 of the loan agreement, rendered from fixed figures, is kept
/// here as it was first signed: an edit of the template fails this, and
/// the change belongs in a new version (`loan-agreement.v2.txt`) so that
/// every agreement signed with version 1 still renders as signed.
#[test]
fn version_1_of_the_agreement_never_changes() {
    let text = agreement_text("loan-agreement/1", &figures(Some("Ada Lovelace"))).unwrap();
    let golden = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/documents/golden/loan-agreement.v1.txt"
    );
    // Set only when a new version's golden file is first written.
    if std::env::var_os("WRITE_NEW_GOLDEN").is_some() && !std::path::Path::new(golden).exists() {
        std::fs::write(golden, &text).unwrap();
    }
    assert_eq!(text, std::fs::read_to_string(golden).unwrap());
}

#[test]
fn the_agreement_states_the_figures_and_the_schedule() {
    let text = agreement_text(AGREEMENT, &figures(None)).unwrap();
    for needle in [
        "| Lender | Example Lender Ltd | 1 Example Street, London EC1A 1AA.",
        "| Borrower | WIDGETS LTD | Company number 00000401 |",
        "reference for this loan is INV-2026-0042.",
        "| Amount lent | £2,000.00 |",
        "| Interest rate | 12.00 % a year, fixed |",
        "| Representative APR | 12.7 % |",
        "| Monthly repayment | £1,007.51 |",
        "| Total repayable | £2,015.02 |",
        "| 2 | £1,007.51 | £10.12 | £997.39 | £15.10 |",
        "law of England and Wales",
        "Not yet signed.",
    ] {
        assert!(text.contains(needle), "{needle} is not in\n{text}");
    }
    let headings = parse(&text)
        .into_iter()
        .filter(|b| matches!(b, Block::Heading(_)))
        .count();
    assert_eq!(headings, 10);
}

/// A name typed with a line break or a `|` cannot add a heading or a
/// column to what is signed.
#[test]
fn a_signers_name_cannot_change_the_documents_shape() {
    let mut f = figures(Some("Ada\n## 11. Nothing is owed | x"));
    f.borrower_name = "A | B LTD".into();
    let text = agreement_text(AGREEMENT, &f).unwrap();
    let headings = parse(&text)
        .into_iter()
        .filter(|b| matches!(b, Block::Heading(_)))
        .count();
    assert_eq!(headings, 10);
    assert!(text.contains("by Ada ## 11. Nothing is owed / x, who"));
    assert!(text.contains("| Borrower | A / B LTD | Company number"));
}

#[test]
fn a_signed_agreement_renders_again_byte_for_byte_and_a_changed_one_does_not() {
    let at = datetime!(2026-12-02 10:30 UTC);
    let signed = sign(
        "agr_01".into(),
        figures(Some("Ada Lovelace")),
        "Ada Lovelace",
        at,
        Some("203.0.113.9".into()),
    )
    .unwrap();
    assert_eq!(signed.template, "loan-agreement/1");
    assert_eq!(signed.content_sha256, sha256_hex(&signed.content));
    assert!(renders_again(&signed));
    let mut altered = signed.clone();
    altered.figures.amount = Money::pence(300_000);
    assert!(!renders_again(&altered));
    let mut unknown = signed;
    unknown.template = "loan-agreement/99".into();
    assert!(!renders_again(&unknown));
    assert!(matches!(
        agreement_text("loan-agreement/99", &figures(None)),
        Err(DocumentError::UnknownTemplate(_))
    ));
}

#[test]
fn the_terms_and_the_privacy_notice_name_the_lender() {
    for text in [
        terms_text(&lender()).unwrap(),
        privacy_text(&lender()).unwrap(),
    ] {
        assert!(text.starts_with("# "));
        assert!(text.contains("Example Lender Ltd"));
        assert!(text.contains("complaints@lender.example"));
    }
}
