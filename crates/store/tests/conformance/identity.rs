//! What every storage backend must do for the identity provider, through the
//! `Store` trait only: SQLite unless `TEST_BACKEND=postgres` (with
//! `TEST_POSTGRES_URL`). Two stores on one database
//! stand for two instances: a code or refresh token is accepted once
//! whichever instance sees it.

use std::sync::Arc;

use lendhub_store::*;

use crate::common::Database;

/// A code issued on its own: no sign-in ticket spent, no consent recorded.
fn alone(code: AuthCodeRecord) -> CodeIssue {
    CodeIssue {
        code,
        ticket_id: None,
        consent: None,
    }
}

fn user(id: &str, email: &str) -> SsoUserRecord {
    SsoUserRecord {
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
    }
}

fn client(id: &str) -> SsoClientRecord {
    SsoClientRecord {
        client_id: id.into(),
        name: "Portal".into(),
        secret_hash: Some(vec![7; 32]),
        redirect_uris: vec![
            "https://rp.example/cb".into(),
            "https://rp.example/b".into(),
        ],
        post_logout_redirect_uris: vec!["https://rp.example/bye".into()],
        created_at_ms: 1,
    }
}

fn ticket(id: &str, now: i64) -> TicketRecord {
    TicketRecord {
        ticket_id: id.into(),
        client_id: "rp_a".into(),
        redirect_uri: "https://rp.example/cb".into(),
        scope: "openid email".into(),
        state: "s".into(),
        nonce: Some("n".into()),
        code_challenge: "c".into(),
        prompt: None,
        max_age: Some(60),
        login_hint: None,
        browser_hash: vec![1; 32],
        user_id: None,
        auth_time_ms: None,
        session_selector: None,
        created_at_ms: now,
        expires_at_ms: now + 120_000,
    }
}

fn session(selector: u8, user_id: &str, now: i64) -> SessionRecord {
    SessionRecord {
        selector: vec![selector; 16],
        verifier_hash: vec![selector; 32],
        user_id: user_id.into(),
        auth_time_ms: now,
        created_at_ms: now,
        expires_at_ms: now + 3_600_000,
        ended_at_ms: None,
    }
}

fn code(selector: u8, session: Option<u8>, now: i64) -> AuthCodeRecord {
    AuthCodeRecord {
        selector: vec![selector; 16],
        verifier_hash: vec![selector; 32],
        client_id: "rp_a".into(),
        redirect_uri: "https://rp.example/cb".into(),
        code_challenge: "challenge".into(),
        user_id: "usr_a".into(),
        scope: "openid email".into(),
        nonce: Some("n".into()),
        auth_time_ms: now - 5,
        session_selector: session.map(|s| vec![s; 16]),
        created_at_ms: now,
        expires_at_ms: now + 60_000,
    }
}

fn key(selector: u8, expires_at_ms: i64) -> TokenKey {
    TokenKey {
        selector: vec![selector; 16],
        verifier_hash: vec![selector; 32],
        expires_at_ms,
    }
}

fn tokens(access: u8, refresh: u8, now: i64) -> IssuedTokens {
    IssuedTokens {
        access: key(access, now + 3_600_000),
        access_scope: None,
        refresh: key(refresh, now + 86_400_000),
    }
}

fn redemption(selector: u8, family: &str, access: u8, refresh: u8, now: i64) -> CodeRedemption {
    CodeRedemption {
        selector: vec![selector; 16],
        verifier_hash: vec![selector; 32],
        client_id: "rp_a".into(),
        redirect_uri: "https://rp.example/cb".into(),
        code_challenge: "challenge".into(),
        now_ms: now,
        family_id: family.into(),
        tokens: tokens(access, refresh, now),
    }
}

fn rotation(
    refresh: u8,
    client: &str,
    access_new: u8,
    refresh_new: u8,
    now: i64,
) -> RefreshRotation {
    RefreshRotation {
        selector: vec![refresh; 16],
        verifier_hash: vec![refresh; 32],
        client_id: client.into(),
        scope: None,
        now_ms: now,
        tokens: tokens(access_new, refresh_new, now),
    }
}

async fn seeded() -> (Arc<dyn Store>, Arc<dyn Store>, Database) {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    assert!(
        a.insert_sso_user(user("usr_a", "ada@example.com"))
            .await
            .unwrap()
    );
    a.put_sso_client(client("rp_a")).await.unwrap();
    a.put_sso_client(client("rp_b")).await.unwrap();
    (a, b, db)
}

#[tokio::test]
async fn users_and_clients() {
    let (a, b, _db) = seeded().await;
    assert!(
        !b.insert_sso_user(user("usr_b", "ada@example.com"))
            .await
            .unwrap(),
        "emails are unique"
    );
    assert_eq!(
        b.sso_user_by_email("ada@example.com").await.unwrap(),
        Some(user("usr_a", "ada@example.com"))
    );
    assert_eq!(
        b.sso_user("usr_a").await.unwrap().unwrap().email,
        "ada@example.com"
    );
    assert!(b.sso_user("usr_b").await.unwrap().is_none());
    assert_eq!(b.sso_client("rp_a").await.unwrap(), Some(client("rp_a")));
    let mut public = client("rp_public");
    public.secret_hash = None;
    public.post_logout_redirect_uris = vec![];
    a.put_sso_client(public.clone()).await.unwrap();
    assert_eq!(b.sso_client("rp_public").await.unwrap(), Some(public));
    assert!(b.sso_client("rp_none").await.unwrap().is_none());
}

#[tokio::test]
async fn tickets_sessions_consents_and_codes() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    a.insert_ticket(ticket("t1", now)).await.unwrap();
    assert_eq!(b.ticket("t1").await.unwrap(), Some(ticket("t1", now)));
    assert!(b.sign_in("t1", session(3, "usr_a", now)).await.unwrap());
    let signed = a.ticket("t1").await.unwrap().unwrap();
    assert_eq!(signed.user_id.as_deref(), Some("usr_a"));
    assert_eq!(signed.session_selector, Some(vec![3; 16]));
    assert_eq!(
        a.session(&[3; 16]).await.unwrap(),
        Some(session(3, "usr_a", now))
    );
    assert!(
        !a.sign_in("nope", session(4, "usr_a", now)).await.unwrap(),
        "no ticket, no session"
    );
    assert!(a.session(&[4; 16]).await.unwrap().is_none());

    // Completing the ticket spends it, records consent and stores the code,
    // once: a second completion writes nothing.
    let consent = ConsentRecord {
        user_id: "usr_a".into(),
        client_id: "rp_a".into(),
        scope: "openid email".into(),
        granted_at_ms: now,
    };
    assert!(
        a.issue_code(CodeIssue {
            code: code(10, Some(3), now),
            ticket_id: Some("t1".into()),
            consent: Some(consent.clone())
        })
        .await
        .unwrap()
    );
    assert!(
        !b.issue_code(CodeIssue {
            code: code(11, Some(3), now),
            ticket_id: Some("t1".into()),
            consent: None
        })
        .await
        .unwrap()
    );
    assert!(b.ticket("t1").await.unwrap().is_none());
    assert_eq!(b.consent("usr_a", "rp_a").await.unwrap(), Some(consent));
    let wider = ConsentRecord {
        scope: "openid email profile".into(),
        granted_at_ms: now + 1,
        ..b.consent("usr_a", "rp_a").await.unwrap().unwrap()
    };
    assert!(
        b.issue_code(CodeIssue {
            code: code(12, None, now),
            ticket_id: None,
            consent: Some(wider.clone())
        })
        .await
        .unwrap()
    );
    assert_eq!(a.consent("usr_a", "rp_a").await.unwrap(), Some(wider));
    assert!(a.consent("usr_a", "rp_b").await.unwrap().is_none());

    a.insert_ticket(ticket("t2", now)).await.unwrap();
    assert!(b.cancel_ticket("t2").await.unwrap());
    assert!(!a.cancel_ticket("t2").await.unwrap());

    // A code without its ticket spent stays unissued: code 11 does not exist.
    let r = a
        .redeem_code(redemption(11, "f11", 20, 21, now))
        .await
        .unwrap();
    assert_eq!(r, Redeemed::Refused(GrantRefusal::Unknown));
}

#[tokio::test]
async fn a_code_is_redeemed_once_and_a_replay_revokes_its_family() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    a.issue_code(CodeIssue {
        code: code(10, Some(3), now),
        ticket_id: None,
        consent: None,
    })
    .await
    .unwrap();
    let Redeemed::Issued(issued) = a
        .redeem_code(redemption(10, "fam1", 20, 21, now + 1))
        .await
        .unwrap()
    else {
        panic!("the first redemption issues")
    };
    assert_eq!(*issued, code(10, Some(3), now));
    let grant = b.sso_access(&[20; 16]).await.unwrap().unwrap();
    assert_eq!(grant.user.user_id, "usr_a");
    assert_eq!(grant.client_id, "rp_a");
    assert_eq!(grant.scope, "openid email", "the code's scope");
    assert!(!grant.family_revoked);
    assert_eq!(grant.verifier_hash, vec![20; 32]);

    let epoch = a.sso_epoch().await.unwrap();
    let replay = b
        .redeem_code(redemption(10, "fam2", 22, 23, now + 2))
        .await
        .unwrap();
    assert_eq!(replay, Redeemed::Refused(GrantRefusal::Replayed));
    let moved = a.sso_epoch().await.unwrap();
    assert!(
        moved > epoch,
        "the revocation moves the epoch every instance polls"
    );
    assert_eq!(b.sso_epoch().await.unwrap(), moved);
    assert!(
        a.sso_access(&[20; 16])
            .await
            .unwrap()
            .unwrap()
            .family_revoked
    );
    assert!(
        b.sso_access(&[22; 16]).await.unwrap().is_none(),
        "nothing issued"
    );
    let r = a
        .rotate_refresh(rotation(21, "rp_a", 24, 25, now + 3))
        .await
        .unwrap();
    assert_eq!(r, Rotated::Refused(GrantRefusal::Revoked));

    // A wrong verifier hash is an unknown code; it spends nothing.
    a.issue_code(alone(code(30, None, now))).await.unwrap();
    let mut wrong = redemption(30, "fam3", 31, 32, now);
    wrong.verifier_hash = vec![0; 32];
    assert_eq!(
        b.redeem_code(wrong).await.unwrap(),
        Redeemed::Refused(GrantRefusal::Unknown)
    );
    // A binding mismatch spends the code: the right request then fails too.
    let mut other_uri = redemption(30, "fam3", 31, 32, now);
    other_uri.redirect_uri = "https://rp.example/b".into();
    assert_eq!(
        b.redeem_code(other_uri).await.unwrap(),
        Redeemed::Refused(GrantRefusal::Mismatch)
    );
    assert_eq!(
        a.redeem_code(redemption(30, "fam3", 31, 32, now))
            .await
            .unwrap(),
        Redeemed::Refused(GrantRefusal::Replayed)
    );
    assert!(a.sso_access(&[31; 16]).await.unwrap().is_none());

    // Expiry is judged at the time given.
    a.issue_code(alone(code(40, None, now))).await.unwrap();
    assert_eq!(
        b.redeem_code(redemption(40, "fam4", 41, 42, now + 60_000))
            .await
            .unwrap(),
        Redeemed::Refused(GrantRefusal::Expired)
    );
}

#[tokio::test]
async fn instances_racing_for_one_code_issue_once() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    for round in 0..5u8 {
        let selector = 50 + round;
        a.issue_code(alone(code(selector, None, now)))
            .await
            .unwrap();
        let base = 100 + round * 12;
        let attempts = (0..6u8).map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let r = redemption(
                selector,
                &format!("race{round}-{i}"),
                base + i,
                base + 6 + i,
                now,
            );
            async move { store.redeem_code(r).await.unwrap() }
        });
        let outcomes = futures_util::future::join_all(attempts).await;
        let issued = outcomes
            .iter()
            .filter(|o| matches!(o, Redeemed::Issued(_)))
            .count();
        assert_eq!(issued, 1, "round {round}: {outcomes:?}");
    }
}

#[tokio::test]
async fn refresh_tokens_rotate_once_and_reuse_revokes_the_family() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    a.issue_code(CodeIssue {
        code: code(10, Some(3), now),
        ticket_id: None,
        consent: None,
    })
    .await
    .unwrap();
    a.redeem_code(redemption(10, "fam", 20, 21, now))
        .await
        .unwrap();

    // Another client: refused, nothing spent.
    assert_eq!(
        b.rotate_refresh(rotation(21, "rp_b", 22, 23, now))
            .await
            .unwrap(),
        Rotated::Refused(GrantRefusal::Mismatch)
    );
    // More scope than the family has: refused, nothing spent.
    let mut wider = rotation(21, "rp_a", 22, 23, now);
    wider.scope = Some("openid profile".into());
    assert_eq!(
        b.rotate_refresh(wider).await.unwrap(),
        Rotated::Refused(GrantRefusal::ScopeExceeded)
    );
    // Narrower: the access token gets the narrower scope.
    let mut narrower = rotation(21, "rp_a", 22, 23, now + 1);
    narrower.tokens.access_scope = Some("openid".into());
    narrower.scope = Some("openid".into());
    let Rotated::Issued(family) = b.rotate_refresh(narrower).await.unwrap() else {
        panic!("rotates")
    };
    assert_eq!(family.family_id, "fam");
    assert_eq!(family.scope, "openid email");
    assert_eq!(family.session_selector, Some(vec![3; 16]));
    assert_eq!(
        a.sso_access(&[22; 16]).await.unwrap().unwrap().scope,
        "openid"
    );

    let Rotated::Issued(_) = a
        .rotate_refresh(rotation(23, "rp_a", 24, 25, now + 2))
        .await
        .unwrap()
    else {
        panic!("the newest rotates")
    };
    // The spent token again: the whole family is revoked.
    assert_eq!(
        b.rotate_refresh(rotation(21, "rp_a", 26, 27, now + 3))
            .await
            .unwrap(),
        Rotated::Refused(GrantRefusal::Replayed)
    );
    assert!(
        a.sso_access(&[24; 16])
            .await
            .unwrap()
            .unwrap()
            .family_revoked
    );
    assert_eq!(
        a.rotate_refresh(rotation(25, "rp_a", 28, 29, now + 4))
            .await
            .unwrap(),
        Rotated::Refused(GrantRefusal::Revoked)
    );
    assert_eq!(
        a.rotate_refresh(rotation(99, "rp_a", 28, 29, now + 4))
            .await
            .unwrap(),
        Rotated::Refused(GrantRefusal::Unknown)
    );

    // Expiry.
    a.issue_code(alone(code(60, None, now))).await.unwrap();
    a.redeem_code(redemption(60, "fam6", 61, 62, now))
        .await
        .unwrap();
    assert_eq!(
        b.rotate_refresh(rotation(62, "rp_a", 63, 64, now + 86_400_000))
            .await
            .unwrap(),
        Rotated::Refused(GrantRefusal::Expired)
    );

    // Racing rotations of one token: exactly one wins.
    a.issue_code(alone(code(70, None, now))).await.unwrap();
    a.redeem_code(redemption(70, "fam7", 71, 72, now))
        .await
        .unwrap();
    let attempts = (0..6u8).map(|i| {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        let r = rotation(72, "rp_a", 150 + i, 160 + i, now + 1);
        async move { store.rotate_refresh(r).await.unwrap() }
    });
    let outcomes = futures_util::future::join_all(attempts).await;
    let issued = outcomes
        .iter()
        .filter(|o| matches!(o, Rotated::Issued(_)))
        .count();
    assert_eq!(issued, 1, "{outcomes:?}");
}

#[tokio::test]
async fn ending_a_session_revokes_what_was_issued_under_it() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    a.insert_ticket(ticket("t", now)).await.unwrap();
    a.sign_in("t", session(3, "usr_a", now)).await.unwrap();
    a.issue_code(CodeIssue {
        code: code(10, Some(3), now),
        ticket_id: None,
        consent: None,
    })
    .await
    .unwrap();
    a.redeem_code(redemption(10, "fam", 20, 21, now))
        .await
        .unwrap();
    a.issue_code(alone(code(11, None, now))).await.unwrap();
    a.redeem_code(redemption(11, "other", 30, 31, now))
        .await
        .unwrap();

    b.end_session(&[3; 16], now + 5).await.unwrap();
    assert_eq!(
        a.session(&[3; 16]).await.unwrap().unwrap().ended_at_ms,
        Some(now + 5)
    );
    assert!(
        a.sso_access(&[20; 16])
            .await
            .unwrap()
            .unwrap()
            .family_revoked
    );
    assert!(
        !a.sso_access(&[30; 16])
            .await
            .unwrap()
            .unwrap()
            .family_revoked
    );
    b.end_session(&[3; 16], now + 9).await.unwrap();
    assert_eq!(
        a.session(&[3; 16]).await.unwrap().unwrap().ended_at_ms,
        Some(now + 5),
        "ending twice keeps the first time"
    );
}

#[tokio::test]
async fn pruning_drops_what_ended_and_keeps_what_lives() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    a.insert_ticket(ticket("old", now)).await.unwrap();
    a.insert_ticket(ticket("new", now + 10_000_000))
        .await
        .unwrap();
    a.issue_code(alone(code(10, None, now))).await.unwrap();
    a.redeem_code(redemption(10, "fam", 20, 21, now))
        .await
        .unwrap();
    let pruned = b.prune_identity(now + 200_000).await.unwrap();
    assert!(pruned >= 2, "the old ticket and the spent code: {pruned}");
    assert!(a.ticket("old").await.unwrap().is_none());
    assert!(a.ticket("new").await.unwrap().is_some());
    assert!(
        a.sso_access(&[20; 16]).await.unwrap().is_some(),
        "still valid"
    );
    // Long after the tokens expired, they and their family go.
    b.prune_identity(now + 100 * 86_400_000).await.unwrap();
    assert!(a.sso_access(&[20; 16]).await.unwrap().is_none());
    assert_eq!(
        a.rotate_refresh(rotation(21, "rp_a", 22, 23, now))
            .await
            .unwrap(),
        Rotated::Refused(GrantRefusal::Unknown)
    );
}

#[tokio::test]
async fn disabling_a_person_or_a_client_closes_every_way_in() {
    let (store, _db) = crate::support::store().await;
    let user = lendhub_store::SsoUserRecord {
        user_id: "usr_disable0000000000000000".into(),
        email: "off@example.com".into(),
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
        given_name: "Off".into(),
        family_name: "Switch".into(),
        email_verified: true,
        company_number: "00000401".into(),
        company_name: "Healthy Widgets Ltd".into(),
        company_role: "director".into(),
        created_at_ms: 1_000,
        updated_at_ms: 1_000,
    };
    assert!(store.insert_sso_user(user.clone()).await.unwrap());
    let client = lendhub_store::SsoClientRecord {
        client_id: "rp_disable".into(),
        name: "Off Portal".into(),
        secret_hash: None,
        redirect_uris: vec!["https://rp.example/cb".into()],
        post_logout_redirect_uris: vec![],
        created_at_ms: 1_000,
    };
    store.put_sso_client(client.clone()).await.unwrap();
    let listed = store.sso_users().await.unwrap();
    let me = listed.iter().find(|u| u.user_id == user.user_id).unwrap();
    assert_eq!(
        (me.email.as_str(), me.disabled_at_ms),
        ("off@example.com", None)
    );
    assert!(
        store
            .sso_user_by_email("off@example.com")
            .await
            .unwrap()
            .is_some()
    );

    assert!(store.disable_sso_user(&user.user_id, 2_000).await.unwrap());
    assert!(
        !store.disable_sso_user(&user.user_id, 3_000).await.unwrap(),
        "once"
    );
    assert!(!store.disable_sso_user("usr_nobody", 3_000).await.unwrap());
    assert_eq!(
        store.sso_user_by_email("off@example.com").await.unwrap(),
        None
    );
    let me = store
        .sso_users()
        .await
        .unwrap()
        .into_iter()
        .find(|u| u.user_id == user.user_id)
        .unwrap();
    assert_eq!(me.disabled_at_ms, Some(2_000));

    let listed = store.sso_clients().await.unwrap();
    let rp = listed.iter().find(|c| c.client_id == "rp_disable").unwrap();
    assert!(!rp.confidential);
    assert!(store.sso_client("rp_disable").await.unwrap().is_some());
    assert!(store.disable_sso_client("rp_disable", 2_000).await.unwrap());
    assert_eq!(store.sso_client("rp_disable").await.unwrap(), None);
    let rp = store
        .sso_clients()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.client_id == "rp_disable")
        .unwrap();
    assert_eq!(rp.disabled_at_ms, Some(2_000));
}

/// Two sessions of `usr_a`: 3 with family `fam3` under it, 4 with `fam4`;
/// and a family `free` under no session.
async fn two_sessions(a: &Arc<dyn Store>, now: i64) {
    for (t, s, c, fam) in [("t3", 3u8, 10u8, "fam3"), ("t4", 4, 11, "fam4")] {
        a.insert_ticket(ticket(t, now)).await.unwrap();
        a.sign_in(t, session(s, "usr_a", now)).await.unwrap();
        a.issue_code(alone(code(c, Some(s), now))).await.unwrap();
        a.redeem_code(redemption(c, fam, c + 20, c + 40, now))
            .await
            .unwrap();
    }
    a.issue_code(alone(code(12, None, now))).await.unwrap();
    a.redeem_code(redemption(12, "free", 32, 52, now))
        .await
        .unwrap();
}

fn reset(id: &str, token: Option<u8>, user: Option<&str>, now: i64) -> PasswordResetRecord {
    PasswordResetRecord {
        reset_id: id.into(),
        token_hash: token.map(|t| vec![t; 32]),
        user_id: user.map(Into::into),
        created_at_ms: now,
        expires_at_ms: now + 1_800_000,
        used_at_ms: None,
    }
}

fn new_password(hash: &str, now: i64) -> NewPassword {
    NewPassword {
        user_id: "usr_a".into(),
        password_hash: hash.into(),
        now_ms: now,
        notice: MailRecord {
            id: format!("mail_{hash}"),
            enquiry_id: None,
            recipient: "ada@example.com".into(),
            subject: "changed".into(),
            body: "Your password was changed".into(),
            due_ms: now,
        },
    }
}

async fn revoked(store: &Arc<dyn Store>, access: u8) -> bool {
    store
        .sso_access(&[access; 16])
        .await
        .unwrap()
        .unwrap()
        .family_revoked
}

#[tokio::test]
async fn a_reset_link_sets_the_password_once_and_signs_out_everywhere() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    two_sessions(&a, now).await;
    let link = MailRecord {
        id: "mail_link".into(),
        enquiry_id: None,
        recipient: "ada@example.com".into(),
        subject: "Reset".into(),
        body: "link".into(),
        due_ms: now,
    };
    a.request_password_reset(reset("pwr_1", Some(1), Some("usr_a"), now), Some(link))
        .await
        .unwrap();
    a.request_password_reset(reset("pwr_2", Some(2), Some("usr_a"), now), None)
        .await
        .unwrap();
    // Nobody's: a row, no token, no mail.
    a.request_password_reset(reset("pwr_3", None, None, now), None)
        .await
        .unwrap();
    let stored = b.password_reset(&[1; 32]).await.unwrap().unwrap();
    assert_eq!(stored, reset("pwr_1", Some(1), Some("usr_a"), now));
    assert_eq!(b.password_reset(&[9; 32]).await.unwrap(), None);

    // The link's mail is in the outbox, due now.
    let lease = |at: i64| Lease {
        holder: "conformance".into(),
        due_before_ms: at + 1,
        real_now_ms: at,
        lease_until_ms: at + 60_000,
        limit: 10,
    };
    let queued = a.claim_mail(&lease(now)).await.unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].mail.recipient, "ada@example.com");

    // Not someone else's link, and not after it expires.
    let mut wrong = new_password("$argon2id$other", now + 1);
    wrong.user_id = "usr_b".into();
    assert!(!a.reset_password(&[1; 32], wrong).await.unwrap());
    assert!(
        !a.reset_password(&[1; 32], new_password("$late", now + 1_800_000))
            .await
            .unwrap()
    );
    assert_eq!(
        a.sso_user("usr_a").await.unwrap().unwrap().password_hash,
        "$argon2id$…"
    );

    assert!(
        b.reset_password(&[1; 32], new_password("$argon2id$new", now + 10))
            .await
            .unwrap()
    );
    let ada = a.sso_user("usr_a").await.unwrap().unwrap();
    assert_eq!(
        (ada.password_hash.as_str(), ada.updated_at_ms),
        ("$argon2id$new", now + 10)
    );
    assert_eq!(
        a.password_reset(&[1; 32])
            .await
            .unwrap()
            .unwrap()
            .used_at_ms,
        Some(now + 10)
    );
    // Once only, and the person's other link is spent with it.
    assert!(
        !a.reset_password(&[1; 32], new_password("$again", now + 11))
            .await
            .unwrap()
    );
    assert!(
        !a.reset_password(&[2; 32], new_password("$again", now + 11))
            .await
            .unwrap()
    );
    for s in [3u8, 4] {
        assert_eq!(
            a.session(&[s; 16]).await.unwrap().unwrap().ended_at_ms,
            Some(now + 10)
        );
    }
    for access in [30u8, 31, 32] {
        assert!(revoked(&a, access).await, "family of access {access}");
    }
    // The notice is queued with the change.
    let queued = a.claim_mail(&lease(now + 10)).await.unwrap();
    assert!(
        queued
            .iter()
            .any(|m| m.mail.id == "mail_$argon2id$new" && m.mail.body.contains("changed")),
        "{queued:?}"
    );

    // Pruned an hour after it expires, like every other credential.
    a.prune_identity(now + 1_800_000 + 1).await.unwrap();
    assert_eq!(a.password_reset(&[1; 32]).await.unwrap(), None);
}

#[tokio::test]
async fn a_password_change_keeps_its_own_session_and_ends_the_others() {
    let (a, b, _db) = seeded().await;
    let now = 1_000_000;
    two_sessions(&a, now).await;
    a.request_password_reset(reset("pwr_9", Some(9), Some("usr_a"), now), None)
        .await
        .unwrap();

    assert!(
        b.change_password(new_password("$argon2id$changed", now + 5), &[3; 16])
            .await
            .unwrap()
    );
    assert_eq!(
        a.sso_user("usr_a").await.unwrap().unwrap().password_hash,
        "$argon2id$changed"
    );
    assert_eq!(
        a.session(&[3; 16]).await.unwrap().unwrap().ended_at_ms,
        None,
        "the session it was made in"
    );
    assert!(!revoked(&a, 30).await, "issued under the kept session");
    assert_eq!(
        a.session(&[4; 16]).await.unwrap().unwrap().ended_at_ms,
        Some(now + 5)
    );
    assert!(revoked(&a, 31).await);
    assert!(revoked(&a, 32).await, "under no session");
    assert_eq!(
        a.password_reset(&[9; 32])
            .await
            .unwrap()
            .unwrap()
            .used_at_ms,
        Some(now + 5),
        "an outstanding link is spent"
    );

    assert!(a.disable_sso_user("usr_a", now + 6).await.unwrap());
    assert!(
        !a.change_password(new_password("$argon2id$late", now + 7), &[3; 16])
            .await
            .unwrap(),
        "not once disabled"
    );
    assert_eq!(
        a.sso_user("usr_a").await.unwrap().unwrap().password_hash,
        "$argon2id$changed"
    );
}
