//! Where the hub is reached, and the links it hands out that carry their own
//! credential: a payment's or a mandate's page on `{pay_url}`, and an
//! application's handoff to the hosted journey on `{apply_url}`. Each such
//! link ends in an HMAC of the object's id, so it can be shown again
//! without being stored and made for no other id.

use lendhub_domain::crypto::{DerivedKey, MasterKey};
use lendhub_domain::ids::{ApplicationId, HubId, PaymentId};
use lendhub_domain::lending::application::handoff_token;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::servicing::mandate::Mandate;

/// Where the hub is reached; tokens name these as issuer and audience.
#[derive(Clone, Debug)]
pub struct Urls {
    /// The hub's public base URL, e.g. `https://hub.lendhub.example`: the issuer.
    pub base: String,
    partner: String,
    sandbox: String,
    apply: String,
    pay: String,
}

impl Urls {
    pub fn new(base: &str) -> Self {
        let base = base.trim_end_matches('/').to_owned();
        Self {
            partner: format!("{base}/partner/v1"),
            sandbox: format!("{base}/sandbox/v1"),
            apply: format!("{base}/apply"),
            pay: format!("{base}/pay"),
            base,
        }
    }

    pub fn issuer(&self) -> &str {
        &self.base
    }

    /// The partner ring: the audience of partner access tokens and the
    /// protected resource of RFC 9728.
    pub fn partner(&self) -> &str {
        &self.partner
    }

    /// `{apply_url}`: where the hosted application journey runs.
    pub fn apply(&self) -> &str {
        &self.apply
    }

    /// `{pay_url}`: where payers pay payment links.
    pub fn pay(&self) -> &str {
        &self.pay
    }

    /// Where the REST tier serves an environment: the partner ring for live,
    /// `/sandbox/v1` for test. Also the audience of that environment's tokens.
    pub fn environment(&self, env: Environment) -> &str {
        match env {
            Environment::Live => &self.partner,
            Environment::Test => &self.sandbox,
        }
    }
}

/// The hub's addresses with the keys of the links that carry their own
/// credential. Views render links with it; the pay page and the journey
/// check a presented link against it.
#[derive(Clone)]
pub struct Links {
    pub urls: Urls,
    /// Signs payment and mandate links (`{pay_url}/{id}.{token}`).
    pay_link_key: DerivedKey,
    /// Signs applications' handoff links (`lending::handoff_token`).
    handoff_key: DerivedKey,
}

impl Links {
    pub fn new(urls: Urls, master_key: &MasterKey) -> Self {
        Self {
            urls,
            pay_link_key: master_key.derive("pay-link"),
            handoff_key: master_key.derive("handoff-link"),
        }
    }

    /// The unguessable part of a payment's or a mandate's link.
    pub fn pay_token(&self, id: &impl HubId) -> String {
        use base64::Engine;
        use hmac::{Hmac, Mac};
        let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(self.pay_link_key.expose())
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(id.as_str().as_bytes());
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    /// A payment link's page, where its payer pays.
    pub fn payment_url(&self, id: &PaymentId) -> String {
        format!("{}/{id}.{}", self.urls.pay(), self.pay_token(id))
    }

    /// The payer's page for a mandate, where they see and revoke it.
    pub fn mandate_url(&self, m: &Mandate) -> String {
        format!(
            "{}/mandates/{}.{}",
            self.urls.pay(),
            m.id,
            self.pay_token(&m.id)
        )
    }

    /// The payment or mandate a presented link (`{id}.{token}`) names, if
    /// the link is genuine.
    pub fn open_pay_link<I: HubId>(&self, link: &str) -> Option<I> {
        let (id, token) = link.split_once('.')?;
        let id = I::parse(id)?;
        same(&self.pay_token(&id), token).then_some(id)
    }

    /// Where the partner sends the applicant to start the hosted journey.
    pub fn handoff_url(&self, id: &ApplicationId) -> String {
        let token = handoff_token(self.handoff_key.expose(), id);
        format!("{}/start/{id}.{token}", self.urls.apply())
    }

    /// The application a presented handoff link (`{id}.{token}`) names, if
    /// the link is genuine.
    pub fn open_handoff(&self, link: &str) -> Option<ApplicationId> {
        let (id, token) = link.split_once('.')?;
        let id = ApplicationId::parse(id)?;
        same(&handoff_token(self.handoff_key.expose(), &id), token).then_some(id)
    }
}

/// Compared in constant time: a link's token is a credential.
fn same(expected: &str, presented: &str) -> bool {
    subtle::ConstantTimeEq::ct_eq(expected.as_bytes(), presented.as_bytes()).into()
}
