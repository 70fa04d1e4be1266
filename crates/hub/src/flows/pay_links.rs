//! A payment's or a mandate's link on the pay page: `{pay_url}/{id}.{token}`,
//! where the token is an HMAC of the id, so a link can be shown again
//! without being stored and made for no other id.

use lendhub_domain::ids::{HubId, PaymentId};
use lendhub_domain::servicing::mandate::Mandate;

use crate::partner::state::PartnerState;

/// The unguessable part of a payment's link: an HMAC of its id, so the
/// link can be shown again without being stored, and made for no other id.
pub fn link_token(state: &PartnerState, id: &impl HubId) -> String {
    use base64::Engine;
    use hmac::{Hmac, Mac};
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(state.pay_link_key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(id.as_str().as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

pub fn link_url(state: &PartnerState, id: &PaymentId) -> String {
    format!("{}/{id}.{}", state.urls.pay(), link_token(state, id))
}

/// The payer's page for a mandate: like a payment's link, an HMAC of its
/// id is the only credential.
pub fn mandate_url(state: &PartnerState, m: &Mandate) -> String {
    format!(
        "{}/mandates/{}.{}",
        state.urls.pay(),
        m.id,
        link_token(state, &m.id)
    )
}
