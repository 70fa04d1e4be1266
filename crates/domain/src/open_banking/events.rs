//! The Event Notification API (v3.1.11, `event-notifications-openapi.json`):
//! a bank tells its client that a resource changed by posting a signed
//! Security Event Token (RFC 8417; `application/jwt`) to the client's
//! notification URL. The token names the resource, not what became of it:
//! the client reads the resource to learn that.

use serde::{Deserialize, Serialize};

/// The one event v3.1.11 defines.
pub const RESOURCE_UPDATE: &str = "urn:uk:org:openbanking:events:resource-update";

/// The subject's type: a resource id and a resource type.
pub const SUBJECT_TYPE: &str = "http://openbanking.org.uk/rid_http://openbanking.org.uk/rty";

/// The resource types lendhub acts on (`http://openbanking.org.uk/rty`).
pub const DOMESTIC_PAYMENT: &str = "domestic-payment";
pub const DOMESTIC_VRP: &str = "domestic-vrp";

/// `OBEventNotification1`: the token's claims.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Notification {
    /// The bank (its discovery document's `issuer`).
    pub iss: String,
    pub iat: i64,
    pub jti: String,
    /// The client the bank notifies (its `client_id`).
    pub aud: String,
    /// The changed resource's URL.
    pub sub: String,
    /// The interaction that changed it.
    pub txn: String,
    /// When it changed.
    pub toe: i64,
    pub events: Events,
}

/// `OBEvent1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Events {
    #[serde(rename = "urn:uk:org:openbanking:events:resource-update")]
    pub resource_update: ResourceUpdate,
}

/// `OBEventResourceUpdate1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceUpdate {
    pub subject: Subject,
}

/// `OBEventSubject1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subject {
    pub subject_type: String,
    #[serde(rename = "http://openbanking.org.uk/rid")]
    pub resource_id: String,
    #[serde(rename = "http://openbanking.org.uk/rty")]
    pub resource_type: String,
    #[serde(rename = "http://openbanking.org.uk/rlk")]
    pub links: Vec<Link>,
}

/// `OBEventLink1`: the resource at one version of the API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub version: String,
    pub link: String,
}

impl Notification {
    pub fn subject(&self) -> &Subject {
        &self.events.resource_update.subject
    }
}
