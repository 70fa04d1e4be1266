//! A partner's brand (issue #51 item 2): set on the dashboard by owners
//! and developers (a display name, an accent colour white text stays
//! readable on, a PNG or JPEG logo checked by its bytes), audited, served
//! with a strict content type, and shown on the hosted journey (in
//! Chromium) and the pay page, above the lender's legal footer.

use lendhub_domain::partner::project::Tier;
use serde_json::json;

use crate::dashboard::{sign_in, staff};
use crate::rest_accounts::fund;
use crate::rest_journey::{applicant, browse};
use crate::rest_payments::{link, pay_page};
use crate::rest_tier::{api_key, rest_app_mailing, rest_partner, rest_post};
use crate::support::oidc;

/// A PNG of `width` by `height` (its signature and header chunk are what
/// the check reads; the rest is a valid empty image's).
fn png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 2, 0, 0, 0, 0, 0, 0, 0]);
    bytes.extend_from_slice(b"\0\0\0\0IEND\xaeB`\x82");
    bytes
}

#[tokio::test]
async fn a_partners_brand_is_set_on_the_dashboard_and_shown_to_its_customers() {
    let (app, smtp) = rest_app_mailing().await;
    let (client, _) = rest_partner(
        &app,
        "applications.read applications.write decisions.read accounts.read payments.read \
         payments.write events.read",
        Tier::Platform,
    )
    .await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let developer = oidc::person(&app).await;
    staff(&app, &client, &developer, "developer");
    let (hub, _) = sign_in(&app, &developer).await;
    let form = hub.get("/dashboard/branding?env=test").await;
    assert_eq!(form.status, 200, "{}", form.body);
    assert!(form.body.contains("id=\"save-branding\""), "{}", form.body);
    assert!(
        form.body.contains("id=\"legal-footer\""),
        "the footer on the dashboard"
    );
    let csrf = form.hidden("csrf_token").unwrap();

    // Refused, each field saying why, and nothing kept: a colour white
    // text is unreadable on, and an SVG called a PNG.
    let svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>";
    let refused = hub
        .post_multipart(
            "/dashboard/branding",
            &[
                ("csrf_token", &csrf),
                ("env", "test"),
                ("display_name", "Acme Books"),
                ("accent", "#ffdd00"),
            ],
            Some(("logo", "logo.png", "image/png", svg)),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains("contrast of at least 4.5 to 1"),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("must be a PNG or JPEG file"),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("value=\"Acme Books\""),
        "what was typed stays"
    );
    // A form from elsewhere is refused.
    let forged = hub
        .post_multipart(
            "/dashboard/branding",
            &[("csrf_token", "forged"), ("display_name", "Evil")],
            None,
        )
        .await;
    assert_eq!(forged.status, 403, "{}", forged.body);
    // Too large a file is refused before it is read whole.
    let huge = vec![0_u8; 600 * 1024];
    let too_large = hub
        .post_multipart(
            "/dashboard/branding",
            &[("csrf_token", &csrf), ("env", "test")],
            Some(("logo", "logo.png", "image/png", &huge)),
        )
        .await;
    assert_eq!(too_large.status, 413, "{}", too_large.body);

    let logo = png(240, 80);
    let saved = hub
        .post_multipart(
            "/dashboard/branding",
            &[
                ("csrf_token", &csrf),
                ("env", "test"),
                ("display_name", " Acme Books "),
                ("accent", "#0B5CAD"),
            ],
            Some(("logo", "acme.png", "image/png", &logo)),
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.body);
    assert_eq!(saved.location(), "/dashboard/branding?env=test&saved=1");
    let shown = hub.get(saved.location()).await;
    assert!(
        shown.body.contains("value=\"Acme Books\"") && shown.body.contains("value=\"#0b5cad\"")
    );
    let src = {
        let start = shown.body.find("id=\"current-logo\" src=\"").unwrap() + 23;
        let end = shown.body[start..].find('"').unwrap() + start;
        shown.body[start..end].to_owned()
    };
    assert!(src.starts_with("/brand/logos/"), "{src}");
    // The change is in the audit log, which owners read.
    let owner = oidc::person_of(&app, "00000403", "Third Widgets Ltd").await;
    staff(&app, &client, &owner, "owner");
    let (owning, _) = sign_in(&app, &owner).await;
    let audit = owning.get("/dashboard/audit?env=test").await;
    assert!(
        audit.body.contains("branding.update") && audit.body.contains(&developer.email),
        "{}",
        audit.body
    );

    // The logo is served as what its bytes are, never sniffed or run.
    let served = app
        .http
        .get(format!("{}{src}", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    let h = served.headers().clone();
    assert_eq!(h["content-type"], "image/png");
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["content-security-policy"], "default-src 'none'; sandbox");
    assert!(h["cache-control"].to_str().unwrap().contains("immutable"));
    assert_eq!(served.bytes().await.unwrap().to_vec(), logo);
    let missing = app
        .http
        .get(format!("{}/brand/logos/{}", app.hub, "0".repeat(64)))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);

    // A read-only member sees the brand and cannot change it.
    let reader = oidc::person_of(&app, "00000402", "Other Widgets Ltd").await;
    staff(&app, &client, &reader, "read_only");
    let (reading, _) = sign_in(&app, &reader).await;
    let page = reading.get("/dashboard/branding?env=test").await;
    assert!(page.body.contains("id=\"not-yours\"") && page.body.contains("Acme Books"));
    let csrf = page.hidden("csrf_token").unwrap();
    let denied = reading
        .post_multipart(
            "/dashboard/branding",
            &[("csrf_token", &csrf), ("display_name", "Mine")],
            None,
        )
        .await;
    assert_eq!(denied.status, 403, "{}", denied.body);

    // The pay page shows the brand, its accent on the button, and the footer.
    let account = fund(&app, &key).await;
    let r = link(
        &app,
        &key,
        "brand-link-1",
        json!({"account_id": account, "amount_pence": 5_000}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let (status, html) = pay_page(&app, r.body["url"].as_str().unwrap(), None).await;
    assert_eq!(status, 200, "{html}");
    assert!(
        html.contains("Acme Books") && html.contains("Loan repayment"),
        "{html}"
    );
    assert!(html.contains(".primary { background: #0b5cad; }"), "{html}");
    assert!(html.contains(&src), "{html}");
    assert!(
        html.contains("Example Lender Ltd") && html.contains("/legal/privacy-notice"),
        "{html}"
    );

    // The hosted journey, in Chromium: the brand at the top, the footer.
    applicant(&app).await;
    app.advance(time::Duration::seconds(1));
    let created = rest_post(
        &app,
        "/sandbox/v1/applications",
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "redirect_uri": "https://partner.example/done"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let r = browse(
        created.body["handoff_url"].as_str().unwrap(),
        "strong",
        false,
    )
    .await;
    assert_eq!(r["brand_name"], "Acme Books", "{r}");
    assert_eq!(r["brand_logo"]["status"], 200, "{r}");
    assert_eq!(r["brand_logo"]["content_type"], "image/png", "{r}");
    let footer = r["footer"].as_str().unwrap();
    assert!(
        footer.contains("Example Lender Ltd, 1 Example Street, London EC1A 1AA")
            && footer.contains("complaints@lender.example"),
        "{footer}"
    );

    // The e-mail that carries a handoff link names the partner so too.
    app.advance(time::Duration::seconds(1));
    let mailed = rest_post(
        &app,
        "/sandbox/v1/applications",
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 500_000,
               "term_months": 12, "applicant": {"email": "bea@healthy-widgets.example"}}),
    )
    .await;
    assert_eq!(mailed.status, 201, "{}", mailed.body);
    let handoff = || {
        smtp.texts()
            .into_iter()
            .find(|m| m.contains("To: bea@healthy-widgets.example"))
    };
    crate::support::eventually("the handoff e-mail", || handoff().is_some()).await;
    let text = handoff().unwrap();
    assert!(
        text.contains("Acme Books has started an application"),
        "{text}"
    );

    // The identity provider's pages and the status page carry the same
    // footer, linking the documents on the hub.
    let status = format!("http://{}/", app.server().status_addr);
    let sso = format!("{}/sign-in?ticket=unknown", app.sso);
    for url in [status, sso] {
        let html = app
            .http
            .get(&url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            html.contains("id=\"legal-footer\"")
                && html.contains(&format!("{}/legal/application-terms", app.hub)),
            "{url}: {html}"
        );
    }
}
