//! The partner dashboard: staff and their roles, sessions that end when the
//! person leaves the staff, is disabled or the session expires.

use lendhub_store::*;

use crate::support::*;

async fn partner(store: &dyn Store, id: &str, name: &str) {
    store
        .insert_partner_client(PartnerClientRecord {
            name: name.into(),
            ..partner_client(id, "mcp.read")
        })
        .await
        .unwrap();
}

async fn person(store: &dyn Store, id: &str, email: &str) {
    assert!(
        store
            .insert_sso_user(SsoUserRecord {
                user_id: id.into(),
                email: email.into(),
                password_hash: "$argon2id$…".into(),
                given_name: "Ada".into(),
                family_name: "Lovelace".into(),
                email_verified: true,
                company_number: "01234567".into(),
                company_name: "Analytical Engines Ltd".into(),
                company_role: "director".into(),
                created_at_ms: 1,
                updated_at_ms: 2,
            })
            .await
            .unwrap()
    );
}

fn staff(partner: &str, user: &str, role: &str) -> StaffRecord {
    StaffRecord {
        partner_client_id: partner.into(),
        user_id: user.into(),
        role: role.into(),
        created_at_ms: 10,
    }
}

fn session(hash: u8, user: &str, partner: &str, expires_at_ms: i64) -> DashboardSessionRecord {
    DashboardSessionRecord {
        token_hash: vec![hash; 32],
        user_id: user.into(),
        partner_client_id: partner.into(),
        csrf: format!("csrf-{hash}"),
        created_at_ms: 100,
        expires_at_ms,
    }
}

#[tokio::test]
async fn staff_hold_one_role_per_partner_and_sessions_follow_it() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    partner(a.as_ref(), "pk_live_a", "Acme").await;
    partner(a.as_ref(), "pk_live_b", "Bravo").await;
    person(a.as_ref(), "usr_ada", "ada@example.com").await;
    person(a.as_ref(), "usr_bob", "bob@example.com").await;

    a.put_staff(staff("pk_live_a", "usr_ada", "owner"))
        .await
        .unwrap();
    a.put_staff(staff("pk_live_b", "usr_ada", "read_only"))
        .await
        .unwrap();
    a.put_staff(staff("pk_live_a", "usr_bob", "developer"))
        .await
        .unwrap();
    // A new role replaces the old.
    b.put_staff(staff("pk_live_a", "usr_bob", "finance"))
        .await
        .unwrap();
    let of_ada = b.staff_of_user("usr_ada").await.unwrap();
    let partners: Vec<_> = of_ada
        .iter()
        .map(|m| (m.partner_name.as_str(), m.staff.role.as_str()))
        .collect();
    assert_eq!(partners, [("Acme", "owner"), ("Bravo", "read_only")]);
    let of_a = b.staff_of_partner("pk_live_a").await.unwrap();
    let emails: Vec<_> = of_a
        .iter()
        .map(|m| (m.email.as_str(), m.staff.role.as_str()))
        .collect();
    assert_eq!(
        emails,
        [("ada@example.com", "owner"), ("bob@example.com", "finance")]
    );
    assert!(
        a.put_staff(staff("pk_live_nobody", "usr_ada", "owner"))
            .await
            .is_err(),
        "staff of a partner that exists"
    );

    a.create_dashboard_session(session(1, "usr_bob", "pk_live_a", 1_000))
        .await
        .unwrap();
    a.create_dashboard_session(session(2, "usr_ada", "pk_live_a", 1_000))
        .await
        .unwrap();
    let (found, member) = b.dashboard_session(&[1; 32], 999).await.unwrap().unwrap();
    assert_eq!(found, session(1, "usr_bob", "pk_live_a", 1_000));
    assert_eq!(member.staff.role, "finance");
    assert_eq!(member.email, "bob@example.com");
    assert!(
        b.dashboard_session(&[1; 32], 1_000)
            .await
            .unwrap()
            .is_none(),
        "expired"
    );
    assert!(b.dashboard_session(&[9; 32], 0).await.unwrap().is_none());

    // A role change shows at once; leaving the staff ends the session.
    a.put_staff(staff("pk_live_a", "usr_bob", "read_only"))
        .await
        .unwrap();
    let (_, member) = b.dashboard_session(&[1; 32], 500).await.unwrap().unwrap();
    assert_eq!(member.staff.role, "read_only");
    assert!(a.remove_staff("pk_live_a", "usr_bob", 600).await.unwrap());
    assert!(!a.remove_staff("pk_live_a", "usr_bob", 600).await.unwrap());
    assert!(b.dashboard_session(&[1; 32], 601).await.unwrap().is_none());
    a.put_staff(staff("pk_live_a", "usr_bob", "owner"))
        .await
        .unwrap();
    assert!(
        b.dashboard_session(&[1; 32], 602).await.unwrap().is_none(),
        "rejoining does not bring an ended session back"
    );

    // Signing out ends only that session.
    b.end_dashboard_session(&[2; 32], 700).await.unwrap();
    assert!(a.dashboard_session(&[2; 32], 701).await.unwrap().is_none());

    // Expired sessions go with the identity provider's expired records.
    a.create_dashboard_session(session(3, "usr_ada", "pk_live_a", 5_000))
        .await
        .unwrap();
    assert_eq!(a.prune_identity(1_001).await.unwrap(), 2);
    assert!(
        b.dashboard_session(&[3; 32], 4_999)
            .await
            .unwrap()
            .is_some()
    );
}

/// An operator's session is bound to no partner: it is read with its
/// person's address (the console checks it against the configured
/// operators), ends when signed out or expired, and goes with the
/// identity provider's expired records.
#[tokio::test]
async fn operator_sessions_are_no_partners_and_end_when_signed_out_or_expired() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    person(a.as_ref(), "usr_grace", "operator@lender.example").await;
    let operator = |hash: u8, expires_at_ms: i64| OperatorSessionRecord {
        token_hash: vec![hash; 32],
        user_id: "usr_grace".into(),
        csrf: format!("csrf-{hash}"),
        created_at_ms: 100,
        expires_at_ms,
    };
    a.create_operator_session(operator(1, 1_000)).await.unwrap();
    a.create_operator_session(operator(2, 5_000)).await.unwrap();
    let (found, email) = b.operator_session(&[1; 32], 999).await.unwrap().unwrap();
    assert_eq!(found, operator(1, 1_000));
    assert_eq!(email, "operator@lender.example");
    assert!(
        b.operator_session(&[1; 32], 1_000).await.unwrap().is_none(),
        "expired"
    );
    assert!(b.operator_session(&[9; 32], 0).await.unwrap().is_none());
    assert!(
        b.dashboard_session(&[2; 32], 0).await.unwrap().is_none(),
        "no partner's dashboard session"
    );
    b.end_operator_session(&[2; 32], 700).await.unwrap();
    assert!(a.operator_session(&[2; 32], 701).await.unwrap().is_none());
    assert_eq!(a.prune_identity(1_001).await.unwrap(), 1, "the expired one");
}

#[tokio::test]
async fn audit_lines_commit_with_the_action_and_read_newest_first() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    partner(a.as_ref(), "pk_live_a", "Acme").await;
    partner(a.as_ref(), "pk_live_b", "Bravo").await;
    let line = |n: i64, partner: &str| AuditRecord {
        id: format!("aud_{n}"),
        partner_client_id: partner.into(),
        user_id: "usr_ada".into(),
        email: "ada@example.com".into(),
        action: "webhook_endpoint.enable".into(),
        target: format!("whe_{n}"),
        environment: "test".into(),
        at_ms: n,
    };
    for (n, p) in [(1, "pk_live_a"), (2, "pk_live_b"), (3, "pk_live_a")] {
        a.commit(set(vec![line(n, p).into()], None)).await.unwrap();
    }
    assert_eq!(
        b.audit_log("pk_live_a", 10).await.unwrap(),
        [line(3, "pk_live_a"), line(1, "pk_live_a")]
    );
    assert_eq!(b.audit_log("pk_live_a", 1).await.unwrap().len(), 1);
    // A set that fails writes no audit line.
    let failing = set(
        vec![line(4, "pk_live_a").into(), line(1, "pk_live_a").into()],
        None,
    );
    assert!(a.commit(failing).await.is_err());
    assert_eq!(b.audit_log("pk_live_a", 10).await.unwrap().len(), 2);
}

/// Owners' staff changes commit in a unit of work: an invitation with the
/// mail that tells its person, open until it is accepted, withdrawn or
/// expires (ended once); a member's new role; a removal that ends their
/// sessions.
#[tokio::test]
async fn invitations_open_and_end_once_and_staff_change_in_a_unit_of_work() {
    let (store, _db) = store().await;
    let s = store.as_ref();
    partner(s, "pk_live_a", "Acme").await;
    partner(s, "pk_live_b", "Bravo").await;
    person(s, "usr_ada", "ada@example.com").await;
    person(s, "usr_bob", "bob@example.com").await;
    let invitation = |id: &str, partner: &str, expires_at_ms| InvitationRecord {
        id: id.into(),
        partner_client_id: partner.into(),
        email: "bob@example.com".into(),
        role: "finance".into(),
        invited_by: "usr_ada".into(),
        created_at_ms: 100,
        expires_at_ms,
    };
    let mail = |id: &str| MailRecord {
        id: id.into(),
        enquiry_id: None,
        recipient: "bob@example.com".into(),
        subject: "You are invited".into(),
        body: "Sign in".into(),
        due_ms: 100,
    };
    for (id, partner, expires, mail_id) in [
        ("dsi_1", "pk_live_a", 10_000, "mail_1"),
        ("dsi_2", "pk_live_b", 500, "mail_2"),
    ] {
        let write = StaffWrite::Invite {
            invitation: invitation(id, partner, expires),
            mail: mail(mail_id),
        };
        store.commit(set(vec![write.into()], None)).await.unwrap();
    }
    assert_eq!(
        s.open_invitations_of_partner("pk_live_a", 200)
            .await
            .unwrap(),
        [invitation("dsi_1", "pk_live_a", 10_000)]
    );
    let open = |now| async move {
        s.open_invitations_for_email("bob@example.com", now)
            .await
            .unwrap()
            .into_iter()
            .map(|i| i.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(open(200).await, ["dsi_1", "dsi_2"]);
    assert_eq!(open(500).await, ["dsi_1"], "an expired one is not open");
    let queued = s.claim_mail(&claim_at(1_000, 0)).await.unwrap();
    assert_eq!(queued.len(), 2, "each invitation's mail is queued with it");

    // Accepted: a member with the invitation's role, and the invitation
    // ends; ending it again (a second sign-in) changes nothing.
    let accept = |at_ms| {
        set(
            vec![
                StaffWrite::Put(staff("pk_live_a", "usr_bob", "finance")).into(),
                StaffWrite::EndInvitation {
                    id: "dsi_1".into(),
                    partner_client_id: "pk_live_a".into(),
                    accepted_by: Some("usr_bob".into()),
                    at_ms,
                }
                .into(),
            ],
            None,
        )
    };
    store.commit(accept(300)).await.unwrap();
    store.commit(accept(400)).await.unwrap();
    assert_eq!(open(300).await, ["dsi_2"]);
    let members = s.staff_of_partner("pk_live_a").await.unwrap();
    assert_eq!(members.len(), 1);
    assert_eq!(members[0].staff.role, "finance");
    // Withdrawn by its partner only.
    let withdraw = |partner: &str| {
        set(
            vec![
                StaffWrite::EndInvitation {
                    id: "dsi_2".into(),
                    partner_client_id: partner.into(),
                    accepted_by: None,
                    at_ms: 300,
                }
                .into(),
            ],
            None,
        )
    };
    store.commit(withdraw("pk_live_a")).await.unwrap();
    assert_eq!(
        open(300).await,
        ["dsi_2"],
        "not another partner's to withdraw"
    );
    store.commit(withdraw("pk_live_b")).await.unwrap();
    assert!(open(300).await.is_empty());

    // A new role, then a removal that ends the member's sessions.
    store
        .commit(set(
            vec![StaffWrite::Put(staff("pk_live_a", "usr_bob", "developer")).into()],
            None,
        ))
        .await
        .unwrap();
    assert_eq!(
        s.staff_of_partner("pk_live_a").await.unwrap()[0].staff.role,
        "developer"
    );
    s.create_dashboard_session(session(7, "usr_bob", "pk_live_a", 100_000))
        .await
        .unwrap();
    assert!(
        s.dashboard_session(&[7; 32], 1_000)
            .await
            .unwrap()
            .is_some()
    );
    let remove = StaffWrite::Remove {
        partner_client_id: "pk_live_a".into(),
        user_id: "usr_bob".into(),
        at_ms: 2_000,
    };
    store.commit(set(vec![remove.into()], None)).await.unwrap();
    assert!(s.staff_of_partner("pk_live_a").await.unwrap().is_empty());
    assert!(
        s.dashboard_session(&[7; 32], 2_001)
            .await
            .unwrap()
            .is_none()
    );
}

/// The charts' counts add up per owner, day and metric, from any number of
/// batches, and read back by day from a first day on.
#[tokio::test]
async fn usage_counts_add_up_per_owner_day_and_metric() {
    let (store, _db) = store().await;
    let count = |owner: &str, day: &str, metric: &str, count| UsageCount {
        owner: owner.into(),
        day: day.into(),
        metric: metric.into(),
        count,
    };
    store
        .add_usage(vec![
            count("pk_live_a/test", "2026-11-01", "requests", 10),
            count("pk_live_a/test", "2026-11-01", "client_errors", 2),
            count("pk_live_a/test", "2026-11-02", "requests", 5),
            count("pk_live_b/test", "2026-11-02", "requests", 7),
        ])
        .await
        .unwrap();
    store
        .add_usage(vec![count("pk_live_a/test", "2026-11-02", "requests", 3)])
        .await
        .unwrap();
    store.add_usage(vec![]).await.unwrap();
    assert_eq!(
        store
            .usage_since("pk_live_a/test", "2026-11-01")
            .await
            .unwrap(),
        [
            count("pk_live_a/test", "2026-11-01", "client_errors", 2),
            count("pk_live_a/test", "2026-11-01", "requests", 10),
            count("pk_live_a/test", "2026-11-02", "requests", 8),
        ]
    );
    assert_eq!(
        store
            .usage_since("pk_live_a/test", "2026-11-02")
            .await
            .unwrap(),
        [count("pk_live_a/test", "2026-11-02", "requests", 8)]
    );
}

/// A partner's brand (issue #51 item 2): replaced as a whole; a logo kept
/// by the hash of its bytes, byte for byte, and the same bytes uploaded
/// again are the same logo.
#[tokio::test]
async fn a_partners_brand_is_replaced_whole_and_its_logo_kept_by_hash() {
    use lendhub_domain::partner::branding::{Branding, Logo};
    let (store, _db) = store().await;
    assert_eq!(store.branding("pc_brand").await.unwrap(), None);
    let bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x08".to_vec();
    let logo = Logo {
        sha256: "ab".repeat(32),
        content_type: "image/png".into(),
        width: 16,
        height: 8,
    };
    let branded = Branding {
        display_name: Some("Acme Books".into()),
        accent: Some("#0b5cad".into()),
        logo: Some(logo.clone()),
    };
    for _ in 0..2 {
        store
            .commit(set(
                vec![Write::Brand(BrandWrite::Set {
                    partner_client_id: "pc_brand".into(),
                    branding: branded.clone(),
                    logo: Some(bytes.clone()),
                    at_ms: 1_000,
                })],
                None,
            ))
            .await
            .unwrap();
    }
    assert_eq!(store.branding("pc_brand").await.unwrap(), Some(branded));
    assert_eq!(
        store.logo(&logo.sha256).await.unwrap(),
        Some(("image/png".to_owned(), bytes))
    );
    let plain = Branding {
        display_name: Some("Acme".into()),
        ..Branding::default()
    };
    store
        .commit(set(
            vec![Write::Brand(BrandWrite::Set {
                partner_client_id: "pc_brand".into(),
                branding: plain.clone(),
                logo: None,
                at_ms: 2_000,
            })],
            None,
        ))
        .await
        .unwrap();
    assert_eq!(store.branding("pc_brand").await.unwrap(), Some(plain));
    assert_eq!(store.branding("pc_other").await.unwrap(), None);
    assert_eq!(store.logo(&"cd".repeat(32)).await.unwrap(), None);
}
