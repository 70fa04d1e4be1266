//! The records that cross the storage interface.

use lendhub_domain::application::Application;
use lendhub_domain::events::Event;
use lendhub_domain::payment::Payment;
use lendhub_domain::webhook::WebhookEndpoint;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientStatus {
    Active,
    Revoked,
}

#[derive(Clone, Debug)]
pub struct ClientRecord {
    pub client_id: String,
    pub name: String,
    pub secret_hash: Vec<u8>,
    /// Space-delimited scopes the client holds.
    pub scopes: String,
    pub status: ClientStatus,
    pub created_at_ms: i64,
}

#[derive(Clone, Debug)]
pub struct TokenRecord {
    /// Finds the row; see `lendhub_domain::credentials::AccessToken`.
    pub selector: [u8; 16],
    pub verifier_hash: [u8; 32],
    pub client_id: String,
    pub scopes: String,
    pub expires_at_ms: i64,
    pub created_at_ms: i64,
    /// The client's test-clock offset, read with the token (one read gives a
    /// request both its caller and the caller's clock); ignored on insert.
    pub clock_offset_ms: i64,
}

#[derive(Clone, Debug)]
pub struct IdempotencyRecord {
    pub owner: String,
    pub key: String,
    pub fingerprint: [u8; 32],
    pub status: u16,
    pub body: Vec<u8>,
    /// On the owner's clock. A record older than
    /// `lendhub_domain::idempotency::RETENTION` by that clock has expired:
    /// committing a new record under its key replaces it.
    pub created_at_ms: i64,
}

#[derive(Clone, Debug)]
pub struct EndpointRecord {
    pub endpoint: WebhookEndpoint,
    pub sealed_secret: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
pub struct EventQuery {
    pub limit: u32,
    pub starting_after: Option<String>,
    pub ending_before: Option<String>,
    pub event_type: Option<String>,
}

impl EventQuery {
    /// The event a page is anchored to, and whether the page runs toward newer
    /// events (`ending_before`) rather than older ones (`starting_after`, which
    /// wins when both are given).
    pub fn anchor(&self) -> (Option<&str>, bool) {
        match (&self.starting_after, &self.ending_before) {
            (Some(id), _) => (Some(id), false),
            (None, Some(id)) => (Some(id), true),
            (None, None) => (None, false),
        }
    }
}

#[derive(Clone, Debug)]
pub enum EventPage {
    Page {
        events: Vec<Event>,
        has_more: bool,
    },
    /// The cursor names no event of this owner.
    UnknownCursor,
}

/// An application and its JSON representation, rendered once when it is
/// written so reads serve it without rebuilding it.
#[derive(Clone, Debug)]
pub struct ApplicationRecord {
    pub application: Application,
    pub rendered: String,
}

/// One row change within a [`WriteSet`].
#[derive(Clone, Debug)]
pub enum Write {
    InsertApplication(ApplicationRecord),
    /// Succeeds only if the stored version is `application.version - 1`.
    UpdateApplication(ApplicationRecord),
    InsertPayment(Payment),
    InsertEndpoint(EndpointRecord),
    /// Also queues one delivery per enabled endpoint of the owner subscribed to its type.
    InsertEvent(Event),
    /// Succeeds only while the token's client is active; otherwise `Conflict`.
    InsertToken(TokenRecord),
    /// Moves the owner's test clock. Succeeds only if its offset is still
    /// `from_offset_ms`; otherwise `Conflict`.
    SetClock {
        owner: String,
        from_offset_ms: i64,
        to_offset_ms: i64,
    },
    /// Stores `endpoint` (its status changed) if the stored status is still
    /// `from`; otherwise `Conflict`. Disabling also ends the endpoint's
    /// pending deliveries (`failed`): a disabled endpoint is not attempted.
    SetEndpointStatus {
        endpoint: WebhookEndpoint,
        from: lendhub_domain::webhook::EndpointStatus,
    },
    /// Removes everything the owner has in the sandbox — applications,
    /// payments, events, deliveries, webhook endpoints, idempotency records
    /// (but `keep_key`, the reset's own) — and puts its clock back to zero.
    /// The client and its tokens stay.
    ResetOwner {
        owner: String,
        keep_key: Option<String>,
    },
}

/// Everything one request changes. Committed atomically, or not at all.
#[derive(Clone, Debug, Default)]
pub struct WriteSet {
    pub writes: Vec<Write>,
    /// Recorded in the same transaction; a key already taken fails the whole set.
    pub idempotency: Option<IdempotencyRecord>,
}

impl WriteSet {
    pub fn push(&mut self, write: Write) -> &mut Self {
        self.writes.push(write);
        self
    }

    /// Whether the set removes an owner's rows wholesale, so that it must not
    /// share a transaction with other requests' writes (whose rows it could
    /// remove or miss depending on their order within it).
    pub fn resets(&self) -> bool {
        self.writes
            .iter()
            .any(|w| matches!(w, Write::ResetOwner { .. }))
    }
}

/// A request to lease due deliveries. Due times are on their owner's clock:
/// a delivery is due when `due_ms <= due_before_ms + the owner's clock offset`,
/// `due_before_ms` being the service clock's now. The lease reads real time,
/// since it only guards against a crashed worker.
#[derive(Clone, Debug)]
pub struct DeliveryClaim {
    pub due_before_ms: i64,
    pub real_now_ms: i64,
    pub lease_until_ms: i64,
    pub limit: u32,
}

#[derive(Clone, Debug)]
pub struct ClaimedDelivery {
    pub delivery: lendhub_domain::webhook::Delivery,
    pub url: String,
    pub sealed_secret: Vec<u8>,
    pub body: String,
    /// The endpoint as stored when the delivery was claimed.
    pub endpoint: WebhookEndpoint,
    /// The owner's test-clock offset when the delivery was claimed: the
    /// delivery's times (and its retry's) are on that clock.
    pub clock_offset_ms: i64,
}

/// A referred application whose review has fallen due on its owner's clock.
#[derive(Clone, Debug)]
pub struct DueReferral {
    pub application: Application,
    pub clock_offset_ms: i64,
}

#[derive(Clone, Debug)]
pub enum DeliveryResult {
    Delivered {
        id: i64,
        status: u16,
        at_ms: i64,
    },
    /// `retry_at_ms: None` means the schedule is exhausted.
    Failed {
        id: i64,
        status: Option<u16>,
        error: String,
        retry_at_ms: Option<i64>,
        at_ms: i64,
    },
}

/// A project on the live partner ring.
#[derive(Clone, Debug)]
pub struct PartnerClientRecord {
    pub client_id: String,
    pub name: String,
    pub secret_hash: Vec<u8>,
    /// Space-delimited scopes the client may request.
    pub scopes: String,
    pub tier: lendhub_domain::partner::Tier,
    pub status: lendhub_domain::partner::PartnerStatus,
    /// The same project's sandbox client, if linked: its applications are
    /// the partner's decisions today.
    pub sandbox_client_id: Option<String>,
    pub created_at_ms: i64,
}

#[derive(Clone, Debug)]
pub enum PartnerClientChange {
    Status(lendhub_domain::partner::PartnerStatus),
    SecretHash(Vec<u8>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyState {
    /// Signs new tokens; one per purpose.
    Current,
    /// Verifies tokens issued before the last rotation.
    Previous,
}

impl KeyState {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyState::Current => "current",
            KeyState::Previous => "previous",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "current" => Some(KeyState::Current),
            "previous" => Some(KeyState::Previous),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct SigningKeyRecord {
    pub kid: String,
    /// Which issuer uses it, e.g. `partner`.
    pub purpose: String,
    pub state: KeyState,
    /// The private key, sealed with the master key.
    pub sealed_private: Vec<u8>,
    pub public_key: Vec<u8>,
    pub created_at_ms: i64,
}

#[derive(Clone, Debug)]
pub struct RevokedToken {
    pub jti: String,
    pub client_id: String,
    pub expires_at_ms: i64,
    pub revoked_at_ms: i64,
}
