//! The documents an applicant agrees to (issue #51 item 1), through the
//! real pages in headless Chromium and the partner's API: the terms and
//! the privacy notice linked from the consents, the agreement shown in
//! full before signing, the signed copy as a PDF on the signed page, by
//! e-mail and to the partner — the same bytes each way, and the text as
//! signed with its SHA-256.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::rest_journey::{EMAIL, applicant, application, browse, returned_to_partner, test_key};
use crate::rest_tier::{rest_app_mailing, rest_get};
use crate::support::*;

const TEST: &str = "/sandbox/v1";

/// The partner's GET of the agreement with `accept`: status, content
/// type, body.
async fn fetch(app: &App, id: &str, key: &str, accept: &str) -> (u16, String, Vec<u8>) {
    let r = app
        .http
        .get(format!("{}{TEST}/applications/{id}/agreement", app.hub))
        .bearer_auth(key)
        .header("accept", accept)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let kind = r.headers()["content-type"].to_str().unwrap().to_owned();
    (status, kind, r.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn the_agreement_is_read_before_signing_and_kept_as_signed() {
    let (app, smtp) = rest_app_mailing().await;
    let key = test_key(&app).await;
    applicant(&app).await;
    let (id, link) = application(&app, &key, "AG-0001").await;

    // Nothing is signed yet: the partner's GET is a 404 in the envelope.
    let none = rest_get(
        &app,
        &format!("{TEST}/applications/{id}/agreement"),
        Some(&key),
    )
    .await;
    assert_eq!(none.status, 404, "{}", none.body);
    assert_eq!(none.body["error"]["code"], "not_found", "{}", none.body);

    let r = browse(&link, "strong", true).await;
    assert_eq!(r["outcome"], "approved", "{r}");
    // The consents link the two documents; each is a page of its own.
    assert_eq!(
        r["consent_links"],
        serde_json::json!(["/legal/application-terms", "/legal/privacy-notice"]),
        "{r}"
    );
    for path in ["/legal/application-terms", "/legal/privacy-notice"] {
        let page = app
            .http
            .get(format!("{}{path}", app.hub))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        assert!(
            page.headers()["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("default-src 'none'")
        );
        let html = page.text().await.unwrap();
        assert!(html.contains("Example Lender Ltd"), "{html}");
        assert!(html.contains("complaints@lender.example"), "{html}");
    }
    // The offer page shows the agreement in full, with the offer's figures.
    let shown = r["agreement"].as_str().unwrap();
    for needle in [
        "The parties",
        "Healthy Widgets Ltd",
        "AG-0001",
        "£10,000.00",
        "24 months",
        "Total repayable",
        "Late payment and default",
        "Paying early",
        "Governing law",
        "Not yet signed.",
    ] {
        assert!(
            shown.contains(needle),
            "{needle} is not in the shown agreement:\n{shown}"
        );
    }

    // Signed: the signed page offers the copy, a PDF with the figures.
    assert_eq!(r["signed_outcome"], "signed", "{r}");
    returned_to_partner(&r, &id);
    let pdf = &r["pdf"];
    assert_eq!(pdf["status"], 200, "{r}");
    assert_eq!(pdf["content_type"], "application/pdf", "{r}");
    let text = pdf["text"].as_str().unwrap();

    // The partner's copy: the text as signed, its hash, who and when.
    let json = rest_get(
        &app,
        &format!("{TEST}/applications/{id}/agreement"),
        Some(&key),
    )
    .await;
    assert_eq!(json.status, 200, "{}", json.body);
    let a = &json.body;
    assert_eq!(a["object"], "agreement");
    assert_eq!(a["application_id"], id.as_str());
    assert_eq!(a["template"], "loan-agreement/1");
    assert_eq!(a["signed_by"], "Ada Lovelace");
    assert_eq!(a["reference"], "AG-0001");
    assert_eq!(a["amount_pence"], 1_000_000);
    assert_eq!(a["livemode"], false);
    assert!(a.get("ip_address").is_none(), "{a}");
    let content = a["content"].as_str().unwrap();
    assert_eq!(
        a["content_sha256"],
        hex::encode(Sha256::digest(content.as_bytes())),
        "the hash is the text's"
    );
    assert!(
        content.contains("Signed for Healthy Widgets Ltd by Ada Lovelace"),
        "{content}"
    );
    // The offer's stored figures are the agreement's.
    let stored = rest_get(&app, &format!("{TEST}/applications/{id}"), Some(&key)).await;
    let offer: &Value = &stored.body["decision"]["offer"];
    let money = |pence: i64| {
        let pounds = pence / 100;
        let grouped = if pounds >= 1000 {
            format!("{},{:03}", pounds / 1000, pounds % 1000)
        } else {
            pounds.to_string()
        };
        format!("£{grouped}.{:02}", pence % 100)
    };
    let monthly = money(offer["monthly_repayment_pence"].as_i64().unwrap());
    let total = money(offer["total_repayable_pence"].as_i64().unwrap());
    for needle in [
        format!("| Monthly repayment | {monthly} |"),
        format!("| Total repayable | {total} |"),
        "| Amount lent | £10,000.00 |".to_owned(),
        "| Term | 24 months |".to_owned(),
    ] {
        assert!(content.contains(&needle), "{needle} is not in\n{content}");
    }
    // The PDF carries the same figures, the signer and the hash.
    for needle in [
        "Loan agreement",
        "Healthy Widgets Ltd",
        "£10,000.00",
        monthly.as_str(),
        total.as_str(),
        "Ada Lovelace",
        "Signature record",
        "England and Wales",
    ] {
        assert!(text.contains(needle), "{needle} is not in the PDF:\n{text}");
    }
    let hash = a["content_sha256"].as_str().unwrap();
    assert!(
        text.replace(char::is_whitespace, "").contains(hash),
        "the PDF names the text's hash:\n{text}"
    );

    // With Accept: application/pdf, the very bytes the applicant got.
    let (status, kind, bytes) = fetch(&app, &id, &key, "application/pdf").await;
    assert_eq!((status, kind.as_str()), (200, "application/pdf"));
    assert_eq!(
        hex::encode(Sha256::digest(&bytes)),
        pdf["sha256"].as_str().unwrap()
    );
    let (status, kind, _) = fetch(&app, &id, &key, "*/*").await;
    assert_eq!((status, kind.as_str()), (200, "application/json"));

    // The applicant is e-mailed a link to their copy.
    let mail = || {
        smtp.texts()
            .into_iter()
            .find(|m| m.contains(&format!("To: {EMAIL}")) && m.contains("signed loan agreement"))
    };
    eventually("the signed copy's e-mail", || mail().is_some()).await;
    let mail = mail().unwrap();
    assert!(
        mail.contains("Subject: [TEST] Your signed loan agreement with Example Lender Ltd")
            && mail.contains(&format!("{}/apply/{id}/agreement.pdf", app.hub))
            && mail.contains(hash),
        "{mail}"
    );
    // Without the applicant's session the copy is not handed out.
    let anonymous = app
        .http
        .get(format!("{}/apply/{id}/agreement.pdf", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 403);
    assert_ne!(anonymous.headers()["content-type"], "application/pdf");
}
