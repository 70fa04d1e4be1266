//! What the cases share: a fresh store and records to put in it.

use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::decisioning::decide;
use lendhub_domain::sandbox::events::{Event, EventType};
use lendhub_domain::sandbox::ids::SandboxId;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use lendhub_store::*;
use lendhub_system::NewRandom;
use std::sync::Arc;
use time::OffsetDateTime;

pub use crate::common::Database;

pub const OWNER: &str = "pk_test_owner";

/// The sandbox client `id` as a tenant.
pub fn tenant(id: &str) -> Tenant {
    Tenant::sandbox_client(id)
}

pub async fn store() -> (Arc<dyn Store>, Database) {
    let db = Database::fresh().await;
    (db.open().await, db)
}

pub fn at(ms: i64) -> OffsetDateTime {
    lendhub_domain::clock::from_unix_ms(ms)
}

pub fn application(now_ms: i64) -> Application {
    let id = SandboxId::new_random(now_ms as u64);
    Application::new(
        id,
        tenant(OWNER),
        "00000401".into(),
        lendhub_domain::money::Money::pence(5_000),
        decide("00000401", 5_000),
        at(now_ms),
    )
}

pub fn record(app: &Application) -> ApplicationRecord {
    ApplicationRecord {
        application: app.clone(),
        rendered: format!("{{\"id\":\"{}\"}}", app.id),
    }
}

pub fn event(kind: EventType, now_ms: i64) -> Event {
    let id: lendhub_domain::sandbox::ids::EventId = SandboxId::new_random(now_ms as u64);
    Event {
        body: format!("{{\"id\":\"{id}\"}}"),
        id: id.into(),
        owner: tenant(OWNER),
        event_type: kind,
        created_at: at(now_ms),
    }
}

pub fn idempotency(key: &str, now_ms: i64) -> IdempotencyRecord {
    IdempotencyRecord {
        owner: tenant(OWNER),
        key: key.into(),
        fingerprint: [1; 32],
        status: 201,
        body: b"{}".to_vec(),
        created_at_ms: now_ms,
    }
}

pub fn set(writes: Vec<Write>, key: Option<&str>) -> WriteSet {
    WriteSet {
        writes,
        idempotency: key.map(|k| idempotency(k, 1_000)),
    }
}

pub fn active_client() -> ClientRecord {
    ClientRecord {
        client_id: OWNER.into(),
        name: "t".into(),
        secret_hash: vec![0; 32],
        scopes: "sandbox:read".into(),
        status: ClientStatus::Active,
        created_at_ms: 0,
    }
}

pub async fn event_count(store: &dyn Store) -> usize {
    match store
        .list_events(
            &tenant(OWNER),
            &EventQuery {
                page: PageQuery {
                    limit: 100,
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap()
    {
        EventPage::Page { events, .. } => events.len(),
        EventPage::UnknownCursor => panic!("no cursor was given"),
    }
}

pub fn endpoint_record() -> Write {
    Write::Events(EventWrite::InsertEndpoint {
        record: EndpointRecord {
            endpoint: WebhookEndpoint {
                id: lendhub_domain::sandbox::ids::EndpointId::new_random(0).into(),
                owner: tenant(OWNER),
                url: "https://example.com/h".into(),
                enabled_events: vec!["*".into()],
                description: None,
                status: EndpointStatus::Enabled,
                created_at: at(0),
                api_version: None,
                metadata: Default::default(),
            },
            sealed_secret: vec![1, 2, 3],
        },
        max_per_owner: 16,
    })
}

pub const OTHER: &str = "pk_test_other";

pub fn client_named(id: &str) -> ClientRecord {
    ClientRecord {
        client_id: id.into(),
        ..active_client()
    }
}

pub fn set_clock(owner: &str, from: i64, to: i64) -> WriteSet {
    set(
        vec![Write::Sandbox(SandboxWrite::SetClock {
            owner: tenant(owner),
            from_offset_ms: from,
            to_offset_ms: to,
        })],
        None,
    )
}

pub fn endpoint_of(owner: &str) -> WebhookEndpoint {
    WebhookEndpoint {
        id: lendhub_domain::sandbox::ids::EndpointId::new_random(0).into(),
        owner: tenant(owner),
        url: "https://example.com/h".into(),
        enabled_events: vec!["*".into()],
        description: None,
        status: EndpointStatus::Enabled,
        created_at: at(0),
        api_version: None,
        metadata: Default::default(),
    }
}

pub fn event_of(owner: &str, kind: EventType, now_ms: i64) -> Event {
    Event {
        owner: tenant(owner),
        ..event(kind, now_ms)
    }
}

pub fn claim_at(service_now_ms: i64, real: i64) -> Lease {
    Lease {
        holder: "worker".into(),
        due_before_ms: service_now_ms,
        real_now_ms: real,
        lease_until_ms: real + 60_000,
        limit: 100,
    }
}

/// An active partner client as the operator's CLI makes it, with `id` as
/// its name, secret hash `[9; 32]` and `scopes`.
pub fn partner_client(id: &str, scopes: &str) -> PartnerClientRecord {
    use lendhub_domain::partner::project::{PartnerStatus, Tier};
    PartnerClientRecord {
        client_id: id.into(),
        name: id.into(),
        secret_hash: vec![9; 32],
        scopes: scopes.into(),
        tier: Tier::Launch,
        status: PartnerStatus::Active,
        sandbox_client_id: None,
        created_at_ms: 1,
        contact_email: None,
        white_label: false,
        previous_secret_hash: None,
        previous_secret_expires_at_ms: None,
        acting_client_id: None,
    }
}
