//! Owners manage their partner's staff from the dashboard (issue #18): an
//! invitation mailed through the SMTP outbox to a real SMTP server, accepted
//! by signing in with the verified address; a role changed, a member
//! removed (their session ends), an invitation withdrawn; the last owner
//! kept; other roles refused; every change audited.

use lendhub_domain::partner::project::Tier;

use crate::dashboard::{sign_in, staff};
use crate::rest_tier::rest_partner;
use crate::support::oidc::{self, Browser, Page, Person};
use crate::support::{App, eventually};

/// A person the operator created without a verified address.
async fn unverified(app: &App) -> Person {
    let email = format!(
        "unverified-{}@example.com",
        crate::support::uuidish().to_lowercase()
    );
    let sub = lendhub_idp::users::create(
        app.server().store.as_ref(),
        lendhub_idp::users::NewUser {
            email: &email,
            password: oidc::PASSWORD,
            given_name: "Eve",
            family_name: "Example",
            email_verified: false,
            company_number: "01234567",
            company_name: "Analytical Engines Ltd",
            company_role: "director",
        },
        0,
    )
    .await
    .unwrap();
    Person { email, sub }
}

async fn post(hub: &Browser, page: &Page, action: &str, extra: &[(&str, &str)]) -> Page {
    let csrf = page.hidden("csrf_token").unwrap();
    let form_id = page.hidden("form_id").unwrap_or_default();
    let mut fields = vec![
        ("csrf_token", csrf.as_str()),
        ("env", "live"),
        ("form_id", form_id.as_str()),
    ];
    fields.extend_from_slice(extra);
    hub.post(action, &fields).await
}

#[tokio::test]
async fn an_owner_invites_changes_and_removes_staff() {
    let (app, smtp) = crate::rest_tier::rest_app_mailing().await;
    let (client, _) = rest_partner(&app, "applications.read", Tier::Build).await;
    let owner = oidc::person(&app).await;
    staff(&app, &client, &owner, "owner");
    let (hub, _) = sign_in(&app, &owner).await;
    let page = hub.get("/dashboard/staff").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body
            .contains(&format!("data-id=\"{}\" data-role=\"owner\"", owner.sub))
    );
    assert!(page.body.contains("id=\"no-invitations\""));

    // Invited: listed, and mailed with the dashboard's address; the same
    // form again invites no one twice.
    let newcomer = oidc::person(&app).await;
    let email = newcomer.email.to_uppercase();
    let invited = post(
        &hub,
        &page,
        "/dashboard/staff/invite",
        &[("email", &email), ("role", "finance")],
    )
    .await;
    assert_eq!(invited.status, 303, "{}", invited.body);
    let again = post(
        &hub,
        &page,
        "/dashboard/staff/invite",
        &[("email", &email), ("role", "finance")],
    )
    .await;
    assert_eq!(again.status, 303);
    let page = hub.get("/dashboard/staff").await;
    assert_eq!(
        page.body.matches(&newcomer.email).count(),
        1,
        "{}",
        page.body
    );
    app.advance(time::Duration::seconds(2));
    let to_them = |m: &String| m.contains(&newcomer.email) && m.contains("invited");
    eventually("the invitation mail", || {
        smtp.messages().iter().any(to_them)
    })
    .await;
    let mail = smtp.messages().into_iter().find(to_them).unwrap();
    assert!(
        mail.contains(&format!("{}/dashboard", app.server().hub_url)),
        "{mail}"
    );
    assert!(
        mail.contains(&owner.email) && mail.contains("Finance"),
        "{mail}"
    );

    // Accepted by signing in with the (verified) address.
    let (newcomer_hub, back) = sign_in(&app, &newcomer).await;
    assert_eq!(back.status, 303, "{}", back.body);
    let home = newcomer_hub.get("/dashboard").await;
    assert_eq!(home.status, 200);
    assert!(home.body.contains("Finance"), "{}", home.body);
    let page = hub.get("/dashboard/staff").await;
    assert!(page.body.contains(&format!(
        "data-id=\"{}\" data-role=\"finance\"",
        newcomer.sub
    )));
    assert!(
        page.body.contains("id=\"no-invitations\""),
        "accepted, so no longer open"
    );

    // A member is not invited again: their role is changed in the list.
    let member_again = post(
        &hub,
        &page,
        "/dashboard/staff/invite",
        &[("email", &owner.email), ("role", "read_only")],
    )
    .await;
    assert_eq!(member_again.status, 422, "{}", member_again.body);

    // An unverified address does not accept an invitation to it.
    let eve = unverified(&app).await;
    let invited = post(
        &hub,
        &page,
        "/dashboard/staff/invite",
        &[("email", &eve.email), ("role", "owner")],
    )
    .await;
    assert_eq!(invited.status, 303);
    let (_, refused) = sign_in(&app, &eve).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    // And a withdrawn invitation is gone.
    let page = hub.get("/dashboard/staff").await;
    let invitation = page.body.split("<tr data-id=\"dsi_").nth(1).unwrap();
    let invitation = format!("dsi_{}", &invitation[..invitation.find('"').unwrap()]);
    let withdrawn = post(
        &hub,
        &page,
        &format!("/dashboard/staff/invitations/{invitation}/withdraw"),
        &[],
    )
    .await;
    assert_eq!(withdrawn.status, 303);
    assert!(
        hub.get("/dashboard/staff")
            .await
            .body
            .contains("id=\"no-invitations\"")
    );

    // Someone the operator added meanwhile keeps the role they were given.
    let late = oidc::person(&app).await;
    let page = hub.get("/dashboard/staff").await;
    let invited = post(
        &hub,
        &page,
        "/dashboard/staff/invite",
        &[("email", &late.email), ("role", "read_only")],
    )
    .await;
    assert_eq!(invited.status, 303);
    staff(&app, &client, &late, "developer");
    let (late_hub, _) = sign_in(&app, &late).await;
    assert!(late_hub.get("/dashboard").await.body.contains("Developer"));
    assert!(
        hub.get("/dashboard/staff")
            .await
            .body
            .contains("id=\"no-invitations\"")
    );

    // Roles: only owners manage staff; the last owner stays one.
    let finance_page = newcomer_hub.get("/dashboard/staff").await;
    assert_eq!(finance_page.status, 403);
    let refused = post(
        &newcomer_hub,
        &home,
        "/dashboard/staff/invite",
        &[("email", "someone@example.com"), ("role", "owner")],
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let page = hub.get("/dashboard/staff").await;
    let demote_self = post(
        &hub,
        &page,
        &format!("/dashboard/staff/{}/role", owner.sub),
        &[("role", "developer")],
    )
    .await;
    assert_eq!(demote_self.status, 409, "{}", demote_self.body);
    let remove_self = post(
        &hub,
        &page,
        &format!("/dashboard/staff/{}/remove", owner.sub),
        &[],
    )
    .await;
    assert_eq!(remove_self.status, 409);

    // A new role holds at once in the member's session; a removal ends it.
    let changed = post(
        &hub,
        &page,
        &format!("/dashboard/staff/{}/role", newcomer.sub),
        &[("role", "developer")],
    )
    .await;
    assert_eq!(changed.status, 303);
    assert!(
        newcomer_hub
            .get("/dashboard")
            .await
            .body
            .contains("Developer")
    );
    let removed = post(
        &hub,
        &page,
        &format!("/dashboard/staff/{}/remove", newcomer.sub),
        &[],
    )
    .await;
    assert_eq!(removed.status, 303);
    assert_eq!(
        newcomer_hub.get("/dashboard").await.status,
        303,
        "signed out"
    );
    assert_eq!(
        post(
            &hub,
            &page,
            &format!("/dashboard/staff/{}/remove", newcomer.sub),
            &[]
        )
        .await
        .status,
        404,
        "already gone"
    );

    let audit = hub.get("/dashboard/audit").await;
    for action in [
        "staff.invite",
        "staff.accept_invitation",
        "staff.withdraw_invitation",
        "staff.change_role",
        "staff.remove",
    ] {
        assert!(audit.body.contains(action), "{action}: {}", audit.body);
    }
    assert_eq!(
        audit.body.matches("staff.invite").count(),
        3,
        "one per invitation, the resubmitted form's counted once"
    );
}

/// A person on two partners' staffs works on one at a time and switches
/// to the other, with the role held there; never to a partner they are not
/// staff of.
#[tokio::test]
async fn a_person_on_two_staffs_switches_partner() {
    let app = crate::rest_tier::rest_app().await;
    let (a, _) = rest_partner(&app, "applications.read", Tier::Build).await;
    let (b, _) = rest_partner(&app, "applications.read", Tier::Build).await;
    let (stranger, _) = rest_partner(&app, "applications.read", Tier::Build).await;
    let person = oidc::person(&app).await;
    staff(&app, &a, &person, "read_only");
    staff(&app, &b, &person, "owner");
    let (hub, _) = sign_in(&app, &person).await;
    let page = hub.get("/dashboard/partners").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let current = |page: &Page| {
        let marker = "\" data-current=\"true\"";
        let end = page.body.find(marker).unwrap();
        let start = page.body[..end].rfind("data-id=\"").unwrap() + 9;
        page.body[start..end].to_owned()
    };
    let first = current(&page);
    let other = if first == a { b.clone() } else { a.clone() };
    assert!(page.body.contains(&other) && !page.body.contains(&stranger));

    let csrf = page.hidden("csrf_token").unwrap();
    let forged = hub
        .post(
            &format!("/dashboard/partners/{other}/switch"),
            &[("csrf_token", "no")],
        )
        .await;
    assert_eq!(forged.status, 403);
    let refused = hub
        .post(
            &format!("/dashboard/partners/{stranger}/switch"),
            &[("csrf_token", &csrf)],
        )
        .await;
    assert_eq!(refused.status, 404);
    let switched = hub
        .post(
            &format!("/dashboard/partners/{other}/switch"),
            &[("csrf_token", &csrf), ("env", "test")],
        )
        .await;
    assert_eq!(switched.status, 303, "{}", switched.body);
    assert_eq!(switched.location(), "/dashboard?env=test");
    let page = hub.get("/dashboard/partners").await;
    assert_eq!(current(&page), other);
    let role = if other == b { "Owner" } else { "Read-only" };
    assert!(
        hub.get("/dashboard")
            .await
            .body
            .contains(&format!("· {role}")),
        "the role held at {other}"
    );
}
