//! lendhub's own surfaces (the hosted journey, the partner dashboard) as
//! relying parties of lendhub's own identity provider
//! (OpenID Connect, authorization code with PKCE S256; hub seed,
//! Authentication → Identity provider). It talks to the provider over HTTP
//! as any other relying party does: the browser to `/authorize`, this
//! server to `/token` and `/.well-known/jwks.json`. Applicants are the
//! provider's users; the journey keeps no user store of its own.

use std::time::Duration;

use base64::Engine;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::lending::journey::{Applicant, PendingSignIn};
use lendhub_domain::secret::Secret;
use lendhub_system::random_token;
use serde::Deserialize;

/// The journey's fixed client id at the provider, registered (or brought up
/// to date) at every start-up with the hub's current callback address.
pub const JOURNEY_CLIENT_ID: &str = "rp_lendhub_apply";
pub const JOURNEY_CLIENT_NAME: &str = "lendhub business loan application";
/// The dashboard's fixed client id at the provider, registered at every
/// start-up with this hub's callback address.
pub const DASHBOARD_CLIENT_ID: &str = "rp_lendhub_dashboard";
pub const DASHBOARD_CLIENT_NAME: &str = "lendhub partner dashboard";
/// What the journey asks for: who the applicant is, their e-mail and the
/// company they act for. The e-mail (or, when the partner named nobody, the
/// company) binds the journey to the person the application is for
/// (`Applicant::may_apply`); the director check then ties them to the
/// company on the register.
pub const JOURNEY_SCOPE: &str = "openid profile email business";

/// A registration of lendhub's own at its provider (the journey's, the
/// dashboard's) and where the provider is.
#[derive(Clone)]
pub struct RelyingParty {
    /// The fixed client id at the provider.
    pub client_id: &'static str,
    scope: &'static str,
    /// `sso.public_url`: the provider's issuer.
    pub issuer: String,
    /// `{apply_url}/callback`.
    pub redirect_uri: String,
    /// Where the provider may send the browser after signing out (the
    /// dashboard's signed-out pages, which offer signing in again).
    pub post_logout_redirect_uris: Vec<String>,
    /// Derived from the master key, so every instance holds the same one and
    /// the provider keeps only its hash.
    pub client_secret: Secret<String>,
    http: reqwest::Client,
}

/// Why the sign-in could not be finished.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error("the identity provider could not be reached: {0}")]
    Unreachable(String),
    #[error("the identity provider refused the code: {0}")]
    Refused(String),
    #[error("the ID token did not verify: {0}")]
    BadToken(String),
}

#[derive(Deserialize)]
struct TokenResponse {
    id_token: String,
    access_token: String,
}

/// What the ID token proves: who, for whom, for which sign-in.
#[derive(Deserialize)]
struct IdClaims {
    sub: String,
    nonce: Option<String>,
}

/// The profile the provider answers at `/userinfo` (it keeps profile claims
/// out of the ID token).
#[derive(Deserialize)]
struct Profile {
    sub: String,
    #[serde(default)]
    given_name: String,
    #[serde(default)]
    family_name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    email_verified: bool,
    #[serde(default)]
    company_number: String,
}

/// Never prints the secret.
impl std::fmt::Debug for RelyingParty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelyingParty")
            .field("issuer", &self.issuer)
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// The relying party's HTTP client could not be built (no TLS backend).
#[derive(Debug, thiserror::Error)]
#[error("the relying party's HTTP client: {0}")]
pub struct ClientError(#[from] reqwest::Error);

impl RelyingParty {
    /// The journey's registration for a hub whose journey is at `apply_url`;
    /// the caller registers it at the provider (`lendhub_idp::clients::register_own`).
    pub fn new(issuer: &str, apply_url: &str, master_key: &MasterKey) -> Result<Self, ClientError> {
        Self::own(
            (JOURNEY_CLIENT_ID, JOURNEY_SCOPE),
            issuer,
            &format!("{apply_url}/callback"),
            ("apply-rp-client-secret", master_key),
        )
    }

    /// The partner dashboard's registration, for a hub at `hub_url`.
    pub fn dashboard(
        issuer: &str,
        hub_url: &str,
        master_key: &MasterKey,
    ) -> Result<Self, ClientError> {
        let hub = hub_url.trim_end_matches('/');
        let mut rp = Self::own(
            (DASHBOARD_CLIENT_ID, "openid email"),
            issuer,
            &format!("{hub}/dashboard/callback"),
            ("dashboard-rp-client-secret", master_key),
        )?;
        rp.post_logout_redirect_uris = [
            crate::dashboard::SIGNED_OUT,
            crate::dashboard::OPERATIONS_SIGNED_OUT,
        ]
        .map(|path| format!("{hub}{path}"))
        .to_vec();
        Ok(rp)
    }

    fn own(
        (client_id, scope): (&'static str, &'static str),
        issuer: &str,
        redirect_uri: &str,
        (purpose, master_key): (&str, &MasterKey),
    ) -> Result<Self, ClientError> {
        let secret = master_key.derive(purpose).into_exposed();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Self {
            client_id,
            scope,
            issuer: issuer.trim_end_matches('/').to_owned(),
            redirect_uri: redirect_uri.to_owned(),
            post_logout_redirect_uris: Vec::new(),
            client_secret: Secret::new(format!(
                "rpsk_{}",
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret)
            )),
            http,
        })
    }

    /// A fresh sign-in for the journey of `application_id`: its `state`
    /// carries the application id so the callback finds the journey.
    pub fn begin(application_id: &str) -> PendingSignIn {
        PendingSignIn {
            state: format!("{application_id}.{}", random_token(24)),
            nonce: random_token(24),
            code_verifier: random_token(48),
        }
    }

    /// A fresh sign-in whose `state` carries nothing but its randomness.
    pub fn begin_plain() -> PendingSignIn {
        PendingSignIn {
            state: random_token(24),
            nonce: random_token(24),
            code_verifier: random_token(48),
        }
    }

    /// Where to send the browser to sign in.
    pub fn authorize_url(&self, pending: &PendingSignIn) -> String {
        self.authorize_url_hinting(pending, None)
    }

    /// `authorize_url`, with the e-mail the sign-in form starts with (OpenID
    /// Connect Core §3.1.2.1 `login_hint`): the applicant the partner named.
    pub fn authorize_url_hinting(
        &self,
        pending: &PendingSignIn,
        login_hint: Option<&str>,
    ) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        if let Some(hint) = login_hint {
            query.append_pair("login_hint", hint);
        }
        let query = query
            .append_pair("response_type", "code")
            .append_pair("client_id", self.client_id)
            .append_pair("redirect_uri", &self.redirect_uri)
            .append_pair("scope", self.scope)
            .append_pair("state", &pending.state)
            .append_pair("nonce", &pending.nonce)
            .append_pair(
                "code_challenge",
                &lendhub_domain::identity::pkce::s256(&pending.code_verifier),
            )
            .append_pair("code_challenge_method", "S256")
            .finish();
        format!("{}/authorize?{query}", self.issuer)
    }

    /// Exchanges the code (with the PKCE verifier) and verifies the ID
    /// token: signature against the JWKS, `iss`, `aud`, `exp`, `nonce`.
    pub async fn finish(
        &self,
        code: &str,
        pending: &PendingSignIn,
    ) -> Result<Applicant, SignInError> {
        let unreachable = |e: reqwest::Error| SignInError::Unreachable(e.to_string());
        let answer = self
            .http
            .post(format!("{}/token", self.issuer))
            // Both are URL-safe already, so RFC 6749's form-encoding of them
            // before Basic changes nothing.
            .basic_auth(self.client_id, Some(self.client_secret.expose()))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", &self.redirect_uri),
                ("code_verifier", &pending.code_verifier),
            ])
            .send()
            .await
            .map_err(unreachable)?;
        if !answer.status().is_success() {
            let status = answer.status();
            let body = answer.text().await.unwrap_or_default();
            return Err(SignInError::Refused(format!("{status}: {body}")));
        }
        let tokens: TokenResponse = answer.json().await.map_err(unreachable)?;
        let claims = self.verify(&tokens.id_token).await?;
        if claims.nonce.as_deref() != Some(pending.nonce.as_str()) {
            return Err(SignInError::BadToken("the nonce does not match".into()));
        }
        let profile: Profile = self
            .http
            .get(format!("{}/userinfo", self.issuer))
            .bearer_auth(&tokens.access_token)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(unreachable)?
            .json()
            .await
            .map_err(unreachable)?;
        // OpenID Connect Core §5.3.2: the answer must be about the same person.
        if profile.sub != claims.sub {
            return Err(SignInError::BadToken(
                "userinfo describes another subject".into(),
            ));
        }
        Ok(Applicant {
            subject: claims.sub,
            given_name: profile.given_name,
            family_name: profile.family_name,
            email: profile.email,
            email_verified: profile.email_verified,
            company_number: profile.company_number,
        })
    }

    async fn verify(&self, id_token: &str) -> Result<IdClaims, SignInError> {
        let bad = |e: jsonwebtoken::errors::Error| SignInError::BadToken(e.to_string());
        let header = jsonwebtoken::decode_header(id_token).map_err(bad)?;
        let kid = header
            .kid
            .ok_or_else(|| SignInError::BadToken("the ID token names no key".into()))?;
        let keys: JwkSet = self
            .http
            .get(format!("{}/.well-known/jwks.json", self.issuer))
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| SignInError::Unreachable(e.to_string()))?
            .json()
            .await
            .map_err(|e| SignInError::Unreachable(e.to_string()))?;
        let jwk = keys
            .find(&kid)
            .ok_or_else(|| SignInError::BadToken(format!("no published key {kid}")))?;
        let key = DecodingKey::from_jwk(jwk).map_err(bad)?;
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[self.client_id]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        jsonwebtoken::decode::<IdClaims>(id_token, &key, &validation)
            .map(|d| d.claims)
            .map_err(bad)
    }
}
