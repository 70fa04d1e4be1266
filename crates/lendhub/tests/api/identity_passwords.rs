//! Passwords people set themselves (issue #19): a forgotten one reset by a
//! single-use link mailed through the SMTP outbox to a real SMTP server,
//! and a change made while signed in; both sign the person out of
//! everywhere the old password had let them in.

use reqwest::StatusCode;

use crate::support::oidc::*;
use crate::support::smtp::SmtpServer;
use crate::support::{App, Site, eventually, test_config};

const NEW_PASSWORD: &str = "a much longer passphrase";

fn mailing(site: &Site, port: u16) -> lendhub::config::Config {
    let mut config = test_config(site);
    config.smtp.host = Some("127.0.0.1".into());
    config.smtp.port = port;
    config.smtp.from = "lendhub <no-reply@lendhub.test>".into();
    config
}

/// The reset link in the one reset mail sent to `email`.
async fn reset_link(smtp: &SmtpServer, email: &str) -> String {
    let to_them = |m: &String| m.contains(email) && m.contains("Reset your lendhub password");
    eventually("the reset mail", || smtp.texts().iter().any(to_them)).await;
    let mails: Vec<String> = smtp.texts().into_iter().filter(to_them).collect();
    assert_eq!(mails.len(), 1, "{mails:?}");
    let start = mails[0].find("http://").unwrap();
    let end = mails[0][start..]
        .find(|c: char| c.is_whitespace())
        .map_or(mails[0].len(), |n| start + n);
    let link = mails[0][start..end].to_owned();
    assert!(link.contains("/password/reset?token="), "{link}");
    link
}

async fn notice_sent(smtp: &SmtpServer, email: &str) {
    eventually("the notice of the change", || {
        smtp.texts()
            .iter()
            .any(|m| m.contains(email) && m.contains("Your lendhub password was changed"))
    })
    .await;
}

async fn ask_for_link(b: &Browser, email: &str) -> Page {
    let form = b.get("/password/forgot").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    let csrf = form.hidden("csrf_token").unwrap();
    b.post(
        "/password/forgot",
        &[("csrf_token", csrf.as_str()), ("email", email)],
    )
    .await
}

async fn sign_in_with(app: &App, rp: &Rp, email: &str, password: &str) -> StatusCode {
    let pkce = pkce();
    let b = Browser::new(app);
    let started = b.get(&Authorize::new(rp, &pkce).url()).await;
    let form = b.get(started.location()).await;
    let (ticket, csrf) = (
        form.hidden("ticket").unwrap(),
        form.hidden("csrf_token").unwrap(),
    );
    b.post(
        "/sign-in",
        &[
            ("ticket", ticket.as_str()),
            ("csrf_token", csrf.as_str()),
            ("email", email),
            ("password", password),
        ],
    )
    .await
    .status
}

/// A signed-in person's tokens, from browser `b`.
async fn tokens(app: &App, b: &Browser, rp: &Rp, person: &Person) -> (String, String) {
    let pkce = pkce();
    let code = code(b, &Authorize::new(rp, &pkce), person).await;
    let t = exchange(app, rp, &code, &pkce.verifier).await;
    assert_eq!(t.status, 200, "{}", t.body);
    (
        t.body["access_token"].as_str().unwrap().to_owned(),
        t.body["refresh_token"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn a_forgotten_password_is_reset_by_a_single_use_link_sent_by_mail() {
    let site = Site::new().await;
    let smtp = SmtpServer::start(site.path().join("maildir"));
    let port = smtp.port;
    let app = App::spawn_with(mailing(&site, port), site).await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let elsewhere = Browser::new(&app);
    let (access, refresh_token) = tokens(&app, &elsewhere, &rp, &person).await;

    // The sign-in page links to the reset, keeping the sign-in to go back to.
    let b = Browser::new(&app);
    let pkce = pkce();
    let started = b.get(&Authorize::new(&rp, &pkce).url()).await;
    let sign_in_page = b.get(started.location()).await;
    let ticket = sign_in_page.hidden("ticket").unwrap();
    let forgot = format!("/password/forgot?ticket={ticket}");
    assert!(sign_in_page.body.contains(&forgot), "{}", sign_in_page.body);
    let form = b.get(&forgot).await;
    assert_eq!(form.status, StatusCode::OK);
    let csrf = form.hidden("csrf_token").unwrap();
    assert_eq!(form.hidden("ticket").as_deref(), Some(ticket.as_str()));

    // Without the form's CSRF token: refused, nothing sent.
    let forged = b
        .post("/password/forgot", &[("email", person.email.as_str())])
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert_eq!(forged.error_code(), Some("csrf_token_invalid"));
    let empty = b
        .post(
            "/password/forgot",
            &[("csrf_token", csrf.as_str()), ("email", "")],
        )
        .await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        empty.body.contains("Enter your email address"),
        "{}",
        empty.body
    );

    // Known and unknown addresses get the same page.
    let sent = b
        .post(
            "/password/forgot",
            &[
                ("csrf_token", csrf.as_str()),
                ("email", person.email.to_uppercase().as_str()),
                ("ticket", ticket.as_str()),
            ],
        )
        .await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    assert!(sent.body.contains("Check your email"), "{}", sent.body);
    assert!(sent.body.contains(&format!("/sign-in?ticket={ticket}")));
    let nobody = "nobody-at-all@example.com";
    let unknown = b
        .post(
            "/password/forgot",
            &[
                ("csrf_token", csrf.as_str()),
                ("email", nobody),
                ("ticket", ticket.as_str()),
            ],
        )
        .await;
    assert_eq!(unknown.status, sent.status);
    assert_eq!(
        unknown.body.replace(nobody, "…"),
        sent.body.replace(&person.email.to_uppercase(), "…"),
        "the same answer either way"
    );

    let link = reset_link(&smtp, &person.email).await;
    assert!(
        !smtp.texts().iter().any(|m| m.contains(nobody)),
        "no mail to an address without an account"
    );

    // The link, opened in a browser that has never seen the provider.
    let fresh = Browser::new(&app);
    let form = fresh.get(&link).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    let csrf = form.hidden("csrf_token").unwrap();
    let token = form.hidden("token").unwrap();
    let set = |password: &'static str, confirmation: &'static str| {
        let (fresh, csrf, token) = (&fresh, csrf.clone(), token.clone());
        async move {
            fresh
                .post(
                    "/password/reset",
                    &[
                        ("csrf_token", csrf.as_str()),
                        ("token", token.as_str()),
                        ("password", password),
                        ("confirmation", confirmation),
                    ],
                )
                .await
        }
    };
    let short = set("short", "short").await;
    assert_eq!(short.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        short.body.contains("at least 8 characters"),
        "{}",
        short.body
    );
    let mismatch = set(NEW_PASSWORD, "something else entirely").await;
    assert_eq!(mismatch.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(mismatch.body.contains("do not match"), "{}", mismatch.body);
    let other_browser = Browser::new(&app)
        .post(
            "/password/reset",
            &[
                ("csrf_token", csrf.as_str()),
                ("token", token.as_str()),
                ("password", NEW_PASSWORD),
                ("confirmation", NEW_PASSWORD),
            ],
        )
        .await;
    assert_eq!(other_browser.status, StatusCode::FORBIDDEN);

    let done = set(NEW_PASSWORD, NEW_PASSWORD).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(done.body.contains("Your password has been changed"));

    // Once only.
    let again = fresh.get(&link).await;
    assert_eq!(again.status, StatusCode::GONE);
    assert_eq!(again.error_code(), Some("password_reset_link_invalid"));
    assert!(again.body.contains("/password/forgot"), "offers a new link");
    assert_eq!(
        set(NEW_PASSWORD, NEW_PASSWORD).await.status,
        StatusCode::GONE
    );

    // Whoever held the old password is signed out everywhere.
    assert_oauth_error(
        &refresh(&app, &rp, &refresh_token).await,
        400,
        "invalid_grant",
    );
    assert_eq!(userinfo(&app, &access).await.status, 401);
    assert_eq!(
        sign_in_with(&app, &rp, &person.email, PASSWORD).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        sign_in_with(&app, &rp, &person.email, NEW_PASSWORD).await,
        StatusCode::SEE_OTHER
    );
    notice_sent(&smtp, &person.email).await;
}

#[tokio::test]
async fn a_reset_link_lapses_after_thirty_minutes_and_requests_are_throttled() {
    let site = Site::new().await;
    let smtp = SmtpServer::start(site.path().join("maildir"));
    let port = smtp.port;
    let app = App::spawn_with(mailing(&site, port), site).await;
    app.clock.freeze();
    let person = person(&app).await;
    let b = Browser::new(&app);
    assert_eq!(ask_for_link(&b, &person.email).await.status, StatusCode::OK);
    let link = reset_link(&smtp, &person.email).await;
    app.advance(time::Duration::minutes(29));
    assert_eq!(b.get(&link).await.status, StatusCode::OK, "still live");
    app.advance(time::Duration::minutes(1));
    let lapsed = b.get(&link).await;
    assert_eq!(lapsed.status, StatusCode::GONE);
    assert_eq!(lapsed.error_code(), Some("password_reset_link_invalid"));

    // Five more requests for one address, then a doubling wait; the same
    // for an address without an account.
    let mut throttled = Vec::new();
    for (email, free) in [(person.email.as_str(), 4), ("nobody@example.com", 5)] {
        for _ in 0..free {
            assert_eq!(ask_for_link(&b, email).await.status, StatusCode::OK);
        }
        let r = ask_for_link(&b, email).await;
        assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.body);
        assert_eq!(r.headers["retry-after"], "1");
        assert!(r.body.contains("Wait 1 second"), "{}", r.body);
        throttled.push(r.body.replace(email, "…"));
    }
    assert_eq!(throttled[0], throttled[1], "the same answer either way");
    app.advance(time::Duration::seconds(1));
    assert_eq!(ask_for_link(&b, &person.email).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_signed_in_person_changes_their_password_and_other_sessions_end() {
    let site = Site::new().await;
    let smtp = SmtpServer::start(site.path().join("maildir"));
    let port = smtp.port;
    let app = App::spawn_with(mailing(&site, port), site).await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let here = Browser::new(&app);
    let there = Browser::new(&app);
    let (_, here_refresh) = tokens(&app, &here, &rp, &person).await;
    let (there_access, there_refresh) = tokens(&app, &there, &rp, &person).await;

    let anonymous = Browser::new(&app).get("/password/change").await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert_eq!(anonymous.error_code(), Some("not_signed_in"));

    let form = here.get("/password/change").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains(&person.email));
    let csrf = form.hidden("csrf_token").unwrap();
    let change = |current: &'static str, new: &'static str| {
        let (here, csrf) = (&here, csrf.clone());
        async move {
            here.post(
                "/password/change",
                &[
                    ("csrf_token", csrf.as_str()),
                    ("current_password", current),
                    ("password", new),
                    ("confirmation", new),
                ],
            )
            .await
        }
    };
    let wrong = change("not my password", NEW_PASSWORD).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(wrong.body.contains("current password"), "{}", wrong.body);
    // Another person's browser cannot post this person's form.
    let forged = there
        .post(
            "/password/change",
            &[
                ("csrf_token", csrf.as_str()),
                ("current_password", PASSWORD),
                ("password", NEW_PASSWORD),
                ("confirmation", NEW_PASSWORD),
            ],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);

    let done = change(PASSWORD, NEW_PASSWORD).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(done.body.contains("still signed in here"), "{}", done.body);

    // This browser's session and tokens live on; the other's end.
    assert_eq!(here.get("/password/change").await.status, StatusCode::OK);
    assert_eq!(refresh(&app, &rp, &here_refresh).await.status, 200);
    assert_oauth_error(
        &refresh(&app, &rp, &there_refresh).await,
        400,
        "invalid_grant",
    );
    assert_eq!(userinfo(&app, &there_access).await.status, 401);
    assert_eq!(
        there.get("/password/change").await.error_code(),
        Some("not_signed_in")
    );
    assert_eq!(
        sign_in_with(&app, &rp, &person.email, NEW_PASSWORD).await,
        StatusCode::SEE_OTHER
    );
    notice_sent(&smtp, &person.email).await;
}
