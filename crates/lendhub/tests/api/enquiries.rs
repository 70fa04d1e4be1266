//! `POST /public/v1/enquiries`: each rule's code, the record committed
//! before the 201, and the department notification delivered by real SMTP
//! (aiosmtpd) from the outbox — also after an SMTP outage.

use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::support::smtp::{SmtpServer, free_port};
use crate::support::{App, Reply, Site, eventually, eventually_async, reply, test_config};

async fn enquire(app: &App, body: &Value) -> Reply {
    reply(
        app.http
            .post(format!("{}/public/v1/enquiries", app.hub))
            .json(body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

fn good() -> Value {
    json!({"form": "contact-us", "dept": "support",
           "fields": {"name": "Ada", "email": "ada@example.test", "message": "Hello", "consent": "yes", "employees": 12}})
}

fn mailing_app_config(site: &Site, port: u16) -> lendhub::config::Config {
    let mut config = test_config(site);
    config.smtp.host = Some("127.0.0.1".into());
    config.smtp.port = port;
    config.smtp.from = "lendhub <no-reply@lendhub.test>".into();
    config.enquiries.default_inbox = "general@example.test".into();
    config
        .enquiries
        .inboxes
        .insert("support".into(), "support@example.test".into());
    config
}

#[tokio::test]
async fn an_enquiry_is_stored_and_its_department_notified_by_smtp() {
    let site = Site::new().await;
    let smtp = SmtpServer::start(site.path().join("maildir"));
    let port = smtp.port;
    let app = App::spawn_with(mailing_app_config(&site, port), site).await;

    let r = enquire(&app, &good()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("enq_") && id.len() == 30, "{id}");
    assert_eq!(r.body, json!({"id": id, "status": "new"}));
    let stored = app.server().store.enquiry(&id).await.unwrap().unwrap();
    assert_eq!(
        (stored.form.as_str(), stored.dept.as_deref()),
        ("contact-us", Some("support"))
    );
    let fields: Value = serde_json::from_str(&stored.fields).unwrap();
    assert_eq!(fields["employees"], 12);

    let mut general = good();
    general.as_object_mut().unwrap().remove("dept");
    let other = enquire(&app, &general).await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();

    eventually("both notifications", || smtp.messages().len() == 2).await;
    let messages = smtp.messages();
    let to_support = messages.iter().find(|m| m.contains(&id)).unwrap();
    assert!(
        to_support.contains("To: support@example.test"),
        "{to_support}"
    );
    assert!(
        to_support.contains("From: lendhub <no-reply@lendhub.test>"),
        "{to_support}"
    );
    assert!(to_support.contains("message: Hello") && to_support.contains("employees: 12"));
    let to_general = messages.iter().find(|m| m.contains(&other)).unwrap();
    assert!(
        to_general.contains("To: general@example.test"),
        "{to_general}"
    );
    // The outbox marks a message sent after the server has taken it, so
    // the mark may land a moment after the message does.
    let store = &app.server().store;
    eventually_async("the notification marked sent", || async {
        store.mail_status(&id).await.unwrap().unwrap().state == "sent"
    })
    .await;
    let status = store.mail_status(&id).await.unwrap().unwrap();
    assert_eq!((status.state.as_str(), status.attempts), ("sent", 1));
}

/// With the mail server down the enquiry is stored and answered at once;
/// the notification goes out when the server is back and the retry falls due.
#[tokio::test]
async fn an_smtp_outage_loses_nothing() {
    let site = Site::new().await;
    let port = free_port();
    let maildir = site.path().join("maildir");
    let app = App::spawn_with(mailing_app_config(&site, port), site).await;

    let r = enquire(&app, &good()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    assert!(app.server().store.enquiry(&id).await.unwrap().is_some());
    let store = app.server().store.clone();
    let mut attempts = 0;
    for _ in 0..400 {
        let status = store.mail_status(&id).await.unwrap().unwrap();
        attempts = status.attempts;
        if attempts >= 1 {
            assert_eq!(status.state, "pending");
            assert!(status.last_error.is_some());
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(
        attempts, 1,
        "the first attempt failed and a retry is scheduled"
    );

    let smtp = SmtpServer::start_on(port, maildir);
    // The retry is 30 s after the failure on the service clock.
    app.advance(time::Duration::seconds(31));
    eventually("the notification after the outage", || {
        smtp.messages().len() == 1
    })
    .await;
    assert!(smtp.messages()[0].contains(&id));
    let mut sent = false;
    for _ in 0..200 {
        if store.mail_status(&id).await.unwrap().unwrap().state == "sent" {
            sent = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(sent);
}

#[tokio::test]
async fn each_enquiry_rule_has_its_own_code() {
    let app = App::spawn().await;
    let with = |path: &[&str], value: Value| {
        let mut v = good();
        let mut at = &mut v;
        for p in &path[..path.len() - 1] {
            at = at.get_mut(*p).unwrap();
        }
        at[path[path.len() - 1]] = value;
        v
    };
    let cases = [
        (with(&["form"], json!(null)), 422, "form_required", "form"),
        (
            with(&["form"], json!("Contact Us!")),
            422,
            "validation_failed",
            "form",
        ),
        (with(&["dept"], json!("sales")), 422, "invalid_dept", "dept"),
        (
            with(&["fields", "email"], json!("not-an-address")),
            422,
            "invalid_email",
            "fields.email",
        ),
        (
            with(&["fields", "consent"], json!("no")),
            422,
            "consent_required",
            "fields.consent",
        ),
        (
            with(&["fields", "tags"], json!(["a"])),
            422,
            "invalid_value_type",
            "fields.tags",
        ),
        (
            with(&["fields", "message"], json!("x".repeat(17 * 1024))),
            422,
            "payload_too_large",
            "fields",
        ),
        (with(&["extra"], json!(1)), 400, "unknown_field", "extra"),
    ];
    for (body, status, code, field) in cases {
        let r = enquire(&app, &body).await;
        assert_hub_error(&r, status, code);
        assert_eq!(r.body["error"]["detail"][0]["field"], field, "{}", r.body);
    }
    let mut many = good();
    for i in 0..60 {
        many["fields"][format!("k{i}")] = json!(i);
    }
    let r = enquire(&app, &many).await;
    assert_hub_error(&r, 422, "payload_too_large");
    assert_eq!(
        r.body["error"]["detail"][0],
        json!({"field": "fields", "reason": "too_many_keys", "bound": 60})
    );

    let raw = |body: &'static str, content_type: Option<&'static str>| {
        let app = &app;
        async move {
            let mut request = app
                .http
                .post(format!("{}/public/v1/enquiries", app.hub))
                .body(body);
            if let Some(ct) = content_type {
                request = request.header("content-type", ct);
            }
            reply(request.send().await.unwrap()).await
        }
    };
    assert_hub_error(
        &raw("{\"form\": ", Some("application/json")).await,
        400,
        "invalid_json",
    );
    assert_hub_error(
        &raw("[1]", Some("application/json")).await,
        400,
        "invalid_json",
    );
    assert_hub_error(&raw("{}", None).await, 400, "missing_content_type");
    assert_hub_error(
        &raw("{}", Some("text/plain")).await,
        415,
        "unsupported_media_type",
    );
    let huge = Box::leak(
        format!(
            "{{\"form\": \"x\", \"pad\": \"{}\"}}",
            "y".repeat(40 * 1024)
        )
        .into_boxed_str(),
    );
    assert_hub_error(
        &raw(huge, Some("application/json")).await,
        422,
        "request_body_too_large",
    );
    // Nothing was stored by any of them: the window saw them, the store did not.
}

#[tokio::test]
async fn browsers_may_post_enquiries_only_from_configured_origins() {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.public.enquiry_origins = vec!["https://partner.example".into()];
    let app = App::spawn_with(config, site).await;
    let preflight = |origin: &'static str| {
        let app = &app;
        async move {
            app.http
                .request(
                    reqwest::Method::OPTIONS,
                    format!("{}/public/v1/enquiries", app.hub),
                )
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header("access-control-request-headers", "content-type")
                .send()
                .await
                .unwrap()
        }
    };
    let allowed = preflight("https://partner.example").await;
    assert!(allowed.status().is_success());
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "https://partner.example"
    );
    let refused = preflight("https://evil.example").await;
    assert!(
        refused
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
}

/// The same Idempotency-Key and body answer the first 201 again: one
/// enquiry, one e-mail. Another body under the key is refused.
#[tokio::test]
async fn a_retried_enquiry_with_its_key_is_recorded_and_mailed_once() {
    let site = Site::new().await;
    let smtp = SmtpServer::start(site.path().join("maildir"));
    let port = smtp.port;
    let app = App::spawn_with(mailing_app_config(&site, port), site).await;
    let send = |body: Value, key: &'static str| {
        let app = &app;
        async move {
            reply(
                app.http
                    .post(format!("{}/public/v1/enquiries", app.hub))
                    .header("Idempotency-Key", key)
                    .json(&body)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    let first = send(good(), "enquiry-retry-1").await;
    assert_eq!(first.status, 201, "{}", first.body);
    let again = send(good(), "enquiry-retry-1").await;
    assert_eq!(again.status, 201);
    assert_eq!(again.body, first.body, "the same enquiry id");
    assert_eq!(again.header("idempotent-replayed"), "true");
    let mut other = good();
    other["fields"]["message"] = json!("Something else");
    assert_hub_error(
        &send(other, "enquiry-retry-1").await,
        409,
        "idempotency_key_reused",
    );
    assert_hub_error(
        &send(good(), "short").await,
        400,
        "idempotency_key_malformed",
    );
    eventually("the notification", || smtp.messages().len() == 1).await;
    // Another (unkeyed) enquiry is mailed too; the retried one never was.
    assert_eq!(enquire(&app, &good()).await.status, 201);
    eventually("the second notification", || smtp.messages().len() == 2).await;
    let id = first.body["id"].as_str().unwrap();
    assert_eq!(
        smtp.messages().iter().filter(|m| m.contains(id)).count(),
        1,
        "one e-mail for the retried enquiry"
    );
}
