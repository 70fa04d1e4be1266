use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_store::{IdentityDirectory, KeyStore, SignInStore, Store};

use crate::keys::KeyRing;

/// Where the identity provider is reached: the issuer and its endpoints.
#[derive(Clone, Debug)]
pub struct Urls {
    /// `sso.public_url`, e.g. `https://sso.lendhub.example`: the `iss` of
    /// every ID token.
    pub issuer: String,
}

impl Urls {
    pub fn new(issuer: &str) -> Self {
        Self {
            issuer: issuer.trim_end_matches('/').to_owned(),
        }
    }

    pub fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.issuer)
    }

    /// Cookies are `Secure` when the provider is served over HTTPS.
    pub fn secure(&self) -> bool {
        self.issuer.starts_with("https://")
    }
}

/// What every handler shares; cloned per request, so one `Arc`.
#[derive(Clone)]
pub struct IdpState(Arc<Idp>);

impl std::ops::Deref for IdpState {
    type Target = Idp;

    fn deref(&self) -> &Idp {
        &self.0
    }
}

pub struct Idp {
    /// People and relying parties.
    pub directory: Arc<dyn IdentityDirectory>,
    /// Sign-ins, sessions, codes and token families.
    pub sign_ins: Arc<dyn SignInStore>,
    /// The ID-token signing keys the key ring reads.
    pub key_store: Arc<dyn KeyStore>,
    pub clock: Arc<dyn Clock>,
    pub keys: Arc<KeyRing>,
    pub urls: Urls,
    /// Peppers client-secret hashes.
    pub secret_pepper: lendhub_domain::crypto::DerivedKey,
    /// Keys the CSRF tokens of the sign-in, consent and sign-out forms.
    pub csrf_key: lendhub_domain::crypto::DerivedKey,
    /// A password hash to verify against when the email is unknown, so a
    /// wrong email takes as long as a wrong password.
    pub decoy_hash: tokio::sync::OnceCell<String>,
    /// Access-token grants remembered for `/userinfo`.
    pub grants: Arc<crate::grants::Grants>,
    /// Sign-in attempts per account and per client address.
    pub sign_in_throttle: crate::throttle::SignInThrottle,
    /// Password-reset requests per address typed and per client address.
    pub reset_throttle: crate::throttle::SignInThrottle,
    /// Proxies whose `X-Forwarded-For` is believed for the client address.
    pub trusted_proxies: Vec<ipnet::IpNet>,
}

impl IdpState {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        master_key: &MasterKey,
        keys: Arc<KeyRing>,
        urls: Urls,
        trusted_proxies: Vec<ipnet::IpNet>,
    ) -> Self {
        Self(Arc::new(Idp {
            secret_pepper: crate::clients::pepper(master_key),
            csrf_key: master_key.derive("sso-csrf"),
            key_store: store.clone(),
            directory: store.clone(),
            sign_ins: store,
            clock,
            keys,
            urls,
            decoy_hash: tokio::sync::OnceCell::new(),
            grants: Arc::default(),
            sign_in_throttle: Default::default(),
            reset_throttle: Default::default(),
            trusted_proxies,
        }))
    }
}
