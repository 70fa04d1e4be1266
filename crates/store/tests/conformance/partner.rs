//! The partner ring and the signing keys.

use lendhub_store::*;

use crate::support::*;

fn signing_key(kid: &str, at: i64) -> SigningKeyRecord {
    SigningKeyRecord {
        kid: kid.into(),
        purpose: "partner".into(),
        state: KeyState::Current,
        sealed_private: vec![1],
        public_key: vec![2],
        created_at_ms: at,
    }
}

/// Partner projects, the signing-key ring and revoked token ids.
#[tokio::test]
async fn partner_clients_signing_keys_and_revocations() {
    use lendhub_domain::partner::project::{PartnerStatus, Tier};
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    let mut epoch = b.partner_epoch().await.unwrap();
    // Every partner change, made through either handle, moves the epoch
    // both see.
    let mut moved = async |why: &str| {
        let now = a.partner_epoch().await.unwrap();
        assert!(now > epoch, "{why} moves the partner epoch");
        assert_eq!(b.partner_epoch().await.unwrap(), now);
        epoch = now;
    };
    a.insert_partner_client(PartnerClientRecord {
        name: "acme".into(),
        ..partner_client("pk_live_a", "mcp.read")
    })
    .await
    .unwrap();
    moved("a new client").await;
    let change = PartnerClientChange::Status(PartnerStatus::Suspended);
    assert!(
        b.update_partner_client("pk_live_a", change, 2)
            .await
            .unwrap()
    );
    moved("a suspension").await;
    assert!(
        !b.update_partner_client("pk_live_none", PartnerClientChange::EndPreviousSecret, 2)
            .await
            .unwrap()
    );
    let stored = a.partner_client("pk_live_a").await.unwrap().unwrap();
    assert_eq!(
        (stored.tier, stored.status),
        (Tier::Launch, PartnerStatus::Suspended)
    );
    assert!(!stored.white_label, "off until the operator switches it on");
    assert!(
        b.update_partner_client("pk_live_a", PartnerClientChange::WhiteLabel(true), 3)
            .await
            .unwrap()
    );
    let switched = a.partner_client("pk_live_a").await.unwrap().unwrap();
    assert!(switched.white_label);
    let (with_revocation, _) = a
        .partner_client_and_revocation("pk_live_a", "no-such-jti")
        .await
        .unwrap();
    assert!(
        with_revocation.is_some_and(|c| c.white_label),
        "the token path reads the same record"
    );
    assert_eq!(b.list_partner_clients().await.unwrap().len(), 1);

    // Two instances racing to create the first key agree on one.
    let (x, y) = tokio::join!(
        a.ensure_signing_key(signing_key("k1", 10)),
        b.ensure_signing_key(signing_key("k1b", 10))
    );
    x.unwrap();
    y.unwrap();
    let ring = a.signing_keys("partner").await.unwrap();
    assert_eq!(ring.len(), 1);
    let first = ring[0].kid.clone();
    b.rotate_signing_key(signing_key("k2", 20)).await.unwrap();
    let ring = a.signing_keys("partner").await.unwrap();
    let kids: Vec<(&str, KeyState)> = ring.iter().map(|k| (k.kid.as_str(), k.state)).collect();
    assert_eq!(
        kids,
        vec![
            ("k2", KeyState::Current),
            (first.as_str(), KeyState::Previous)
        ]
    );
    a.rotate_signing_key(signing_key("k3", 30)).await.unwrap();
    let kids: Vec<String> = b
        .signing_keys("partner")
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.kid)
        .collect();
    assert_eq!(kids, vec!["k3", "k2"], "only one previous key is kept");

    assert!(
        !b.partner_client_and_revocation("pk_live_a", "jti-1")
            .await
            .unwrap()
            .1
    );
    let revoked = RevokedToken {
        jti: "jti-1".into(),
        client_id: "pk_live_a".into(),
        expires_at_ms: 1_000,
        revoked_at_ms: 500,
    };
    a.revoke_jwt(revoked.clone()).await.unwrap();
    moved("a revocation").await;
    a.revoke_jwt(revoked).await.unwrap();
    assert!(
        b.partner_client_and_revocation("pk_live_a", "jti-1")
            .await
            .unwrap()
            .1,
        "seen by every instance"
    );
    b.prune(Retention {
        idempotency_before_ms: 0,
        tokens_expired_before_ms: 1_001,
        events_before_ms: 0,
        journeys_before_ms: 0,
    })
    .await
    .unwrap();
    assert!(
        !a.partner_client_and_revocation("pk_live_a", "jti-1")
            .await
            .unwrap()
            .1,
        "pruned once it would have expired"
    );
}

/// Secret API keys: found by selector, listed per client, brought to an end
/// (never pushed later), and every change moves the partner epoch.
#[tokio::test]
async fn api_keys_are_found_listed_and_expired() {
    use lendhub_domain::partner::credentials::Environment;
    use lendhub_domain::partner::project::Tier;
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    a.insert_partner_client(PartnerClientRecord {
        name: "keys".into(),
        tier: Tier::Build,
        ..partner_client("pk_live_k", "applications.read")
    })
    .await
    .unwrap();
    let key = |selector: u8, env, at| ApiKeyRecord {
        selector: vec![selector; 16],
        verifier_hash: vec![selector; 32],
        client_id: "pk_live_k".into(),
        environment: env,
        scopes: "applications.read".into(),
        created_at_ms: at,
        expires_at_ms: None,
    };
    let before = b.partner_epoch().await.unwrap();
    a.insert_api_key(key(1, Environment::Live, 10))
        .await
        .unwrap();
    a.insert_api_key(key(2, Environment::Test, 20))
        .await
        .unwrap();
    let after_insert = b.partner_epoch().await.unwrap();
    assert!(after_insert > before, "a new key moves the epoch");
    let found = b.api_key(&[2; 16]).await.unwrap().unwrap();
    assert_eq!(
        (
            found.environment,
            found.verifier_hash.clone(),
            found.expires_at_ms
        ),
        (Environment::Test, vec![2; 32], None)
    );
    assert!(found.active_at(i64::MAX));
    assert!(b.api_key(&[3; 16]).await.unwrap().is_none());
    let listed: Vec<_> = b
        .list_api_keys("pk_live_k")
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.selector[0])
        .collect();
    assert_eq!(listed, vec![1, 2], "oldest first");
    assert!(b.list_api_keys("pk_live_none").await.unwrap().is_empty());

    assert!(a.expire_api_key(&[1; 16], 500).await.unwrap());
    assert!(
        b.partner_epoch().await.unwrap() > after_insert,
        "an expiry moves the epoch"
    );
    assert!(
        a.expire_api_key(&[1; 16], 900).await.unwrap(),
        "a later end is not an error"
    );
    let ended = b.api_key(&[1; 16]).await.unwrap().unwrap();
    assert_eq!(
        ended.expires_at_ms,
        Some(500),
        "but never pushes the end later"
    );
    assert!(ended.active_at(499) && !ended.active_at(500));
    assert!(a.expire_api_key(&[1; 16], 100).await.unwrap());
    assert_eq!(
        b.api_key(&[1; 16]).await.unwrap().unwrap().expires_at_ms,
        Some(100),
        "an earlier end (a revocation during an overlap) wins"
    );
    assert!(
        !a.expire_api_key(&[3; 16], 100).await.unwrap(),
        "no such key"
    );
}

/// The dashboard's access changes commit in a unit of work: a key made and
/// another ended in one set, a client secret rolled with an overlap (the
/// replaced one kept until then) or without (dropped), and the overlap cut
/// short. Each moves the partner epoch; a failing set changes nothing.
#[tokio::test]
async fn access_changes_commit_in_a_unit_of_work() {
    use lendhub_domain::partner::credentials::Environment;
    use lendhub_domain::partner::project::Tier;
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    a.insert_partner_client(PartnerClientRecord {
        name: "units".into(),
        secret_hash: vec![1; 32],
        tier: Tier::Build,
        ..partner_client("pk_live_u", "applications.read")
    })
    .await
    .unwrap();
    let key = |selector: u8| ApiKeyRecord {
        selector: vec![selector; 16],
        verifier_hash: vec![selector; 32],
        client_id: "pk_live_u".into(),
        environment: Environment::Live,
        scopes: "applications.read".into(),
        created_at_ms: 10,
        expires_at_ms: None,
    };
    a.insert_api_key(key(1)).await.unwrap();
    let epoch = b.partner_epoch().await.unwrap();
    let roll = vec![
        AccessWrite::InsertApiKey(key(2)).into(),
        AccessWrite::ExpireApiKey {
            selector: vec![1; 16],
            at_ms: 5_000,
        }
        .into(),
    ];
    a.commit(set(roll, Some("roll-1"))).await.unwrap();
    assert!(
        b.partner_epoch().await.unwrap() > epoch,
        "the roll moves the epoch"
    );
    assert_eq!(
        b.api_key(&[1; 16]).await.unwrap().unwrap().expires_at_ms,
        Some(5_000)
    );
    assert!(
        b.api_key(&[2; 16])
            .await
            .unwrap()
            .unwrap()
            .active_at(i64::MAX)
    );
    // The same form again: its key is taken, and nothing is written.
    let again = vec![AccessWrite::InsertApiKey(key(3)).into()];
    assert!(a.commit(set(again, Some("roll-1"))).await.is_err());
    assert!(b.api_key(&[3; 16]).await.unwrap().is_none());

    let rolled = |hash: u8, until| AccessWrite::RollClientSecret {
        partner_client_id: "pk_live_u".into(),
        client_id: "pk_live_u".into(),
        hash: vec![hash; 32],
        previous_until_ms: until,
        at_ms: 20,
    };
    a.commit(set(vec![rolled(2, Some(9_000)).into()], None))
        .await
        .unwrap();
    let client = b.partner_client("pk_live_u").await.unwrap().unwrap();
    assert_eq!(client.secret_hash, vec![2; 32]);
    assert_eq!(client.previous_secret_at(8_999), Some(&[1u8; 32][..]));
    assert_eq!(client.previous_secret_at(9_000), None, "ends at its expiry");
    let (on_token_path, _) = b
        .partner_client_and_revocation("pk_live_u", "jti")
        .await
        .unwrap();
    assert_eq!(
        on_token_path.unwrap().previous_secret_expires_at_ms,
        Some(9_000),
        "the token path reads the same record"
    );
    let end = AccessWrite::EndPreviousClientSecret {
        partner_client_id: "pk_live_u".into(),
        client_id: "pk_live_u".into(),
        at_ms: 30,
    };
    a.commit(set(vec![end.into()], None)).await.unwrap();
    let client = b.partner_client("pk_live_u").await.unwrap().unwrap();
    assert_eq!(
        (client.secret_hash, client.previous_secret_hash),
        (vec![2; 32], None)
    );
    a.commit(set(vec![rolled(3, Some(9_000)).into()], None))
        .await
        .unwrap();
    a.commit(set(vec![rolled(4, None).into()], None))
        .await
        .unwrap();
    let client = b.partner_client("pk_live_u").await.unwrap().unwrap();
    assert_eq!(
        (
            client.previous_secret_at(0).is_none(),
            &client.secret_hash,
            &client.previous_secret_hash
        ),
        (true, &vec![4; 32], &None),
        "a roll without an overlap drops the replaced secret"
    );
}

/// A partner's additional OAuth clients: made, listed oldest first, their
/// secret rolled with an overlap and the overlap ended, revoked once. Each
/// change moves the partner epoch; a change naming another partner, or a
/// revoked client, changes nothing.
#[tokio::test]
async fn additional_oauth_clients_are_made_rolled_and_revoked() {
    use lendhub_domain::partner::project::Tier;
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    for id in ["pk_live_o", "pk_live_p"] {
        a.insert_partner_client(PartnerClientRecord {
            secret_hash: vec![1; 32],
            tier: Tier::Build,
            ..partner_client(id, "applications.read applications.write")
        })
        .await
        .unwrap();
    }
    let made = |id: &str, at: i64| OAuthClientRecord {
        client_id: id.into(),
        partner_client_id: "pk_live_o".into(),
        name: format!("deploy {id}"),
        scopes: "applications.read".into(),
        secret_hash: vec![7; 32],
        previous_secret_hash: None,
        previous_secret_expires_at_ms: None,
        created_at_ms: at,
        revoked_at_ms: None,
    };
    let epoch = b.partner_epoch().await.unwrap();
    a.commit(set(
        vec![
            AccessWrite::InsertOAuthClient(made("pk_live_c2", 20)).into(),
            AccessWrite::InsertOAuthClient(made("pk_live_c1", 10)).into(),
        ],
        Some("make-1"),
    ))
    .await
    .unwrap();
    assert!(
        b.partner_epoch().await.unwrap() > epoch,
        "making moves the epoch"
    );
    assert_eq!(
        b.oauth_client("pk_live_c1").await.unwrap(),
        Some(made("pk_live_c1", 10))
    );
    assert!(
        b.oauth_client("pk_live_o").await.unwrap().is_none(),
        "a partner is not one"
    );
    let listed: Vec<_> = b
        .list_oauth_clients("pk_live_o")
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.client_id)
        .collect();
    assert_eq!(listed, ["pk_live_c1", "pk_live_c2"], "oldest first");
    assert!(b.list_oauth_clients("pk_live_p").await.unwrap().is_empty());

    let roll = |partner: &str, hash: u8, until| AccessWrite::RollClientSecret {
        partner_client_id: partner.into(),
        client_id: "pk_live_c1".into(),
        hash: vec![hash; 32],
        previous_until_ms: until,
        at_ms: 30,
    };
    a.commit(set(vec![roll("pk_live_p", 9, None).into()], None))
        .await
        .unwrap();
    let c1 = b.oauth_client("pk_live_c1").await.unwrap().unwrap();
    assert_eq!(
        c1.secret_hash,
        vec![7; 32],
        "another partner's roll changes nothing"
    );
    let epoch = b.partner_epoch().await.unwrap();
    a.commit(set(vec![roll("pk_live_o", 8, Some(5_000)).into()], None))
        .await
        .unwrap();
    assert!(
        b.partner_epoch().await.unwrap() > epoch,
        "a roll moves the epoch"
    );
    let c1 = b.oauth_client("pk_live_c1").await.unwrap().unwrap();
    assert_eq!(c1.secret_hash, vec![8; 32]);
    assert_eq!(c1.previous_secret_at(4_999), Some(&[7u8; 32][..]));
    assert_eq!(c1.previous_secret_at(5_000), None);
    let end = AccessWrite::EndPreviousClientSecret {
        partner_client_id: "pk_live_o".into(),
        client_id: "pk_live_c1".into(),
        at_ms: 40,
    };
    a.commit(set(vec![end.into()], None)).await.unwrap();
    let c1 = b.oauth_client("pk_live_c1").await.unwrap().unwrap();
    assert_eq!(c1.previous_secret_hash, None, "the overlap ended");

    let revoke = |partner: &str, at_ms| AccessWrite::RevokeOAuthClient {
        partner_client_id: partner.into(),
        client_id: "pk_live_c1".into(),
        at_ms,
    };
    a.commit(set(vec![revoke("pk_live_p", 50).into()], None))
        .await
        .unwrap();
    assert_eq!(
        b.oauth_client("pk_live_c1")
            .await
            .unwrap()
            .unwrap()
            .revoked_at_ms,
        None,
        "another partner cannot revoke it"
    );
    a.commit(set(vec![revoke("pk_live_o", 60).into()], None))
        .await
        .unwrap();
    a.commit(set(
        vec![
            revoke("pk_live_o", 70).into(),
            roll("pk_live_o", 3, None).into(),
        ],
        None,
    ))
    .await
    .unwrap();
    let c1 = b.oauth_client("pk_live_c1").await.unwrap().unwrap();
    assert_eq!(
        (c1.revoked_at_ms, c1.secret_hash),
        (Some(60), vec![8; 32]),
        "revoked once; a revoked client's secret never changes"
    );
    assert_eq!(
        b.oauth_client("pk_live_c2")
            .await
            .unwrap()
            .unwrap()
            .revoked_at_ms,
        None
    );
}
