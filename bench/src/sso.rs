//! The identity provider's scenarios, which carry state from one request to
//! the next: a code must be obtained (an unmeasured `GET /authorize` with a
//! signed-in, consented session cookie) before each measured exchange, and
//! each refresh presents the refresh token the previous one returned.
//!
//! Every worker keeps its own chain on its own connection; what a worker
//! needs before its first measured request it fetches unmeasured.

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD as BASE64, URL_SAFE_NO_PAD};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, HOST, HeaderValue, LOCATION};
use hyper::{Method, Request, StatusCode};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::target::{Sender, Target};

/// What a relying party and a signed-in browser bring.
pub struct SsoInputs {
    pub client_id: String,
    pub client_secret: String,
    /// The browser's cookies after one sign-in and consent, e.g.
    /// `lendhub_sso_browser=…; lendhub_sso_session=…`.
    pub cookie: String,
    pub redirect_uri: String,
}

/// One worker's chain: the refresh token to present next, and an access
/// token for UserInfo.
#[derive(Default)]
pub struct Chain {
    pub refresh_token: Option<String>,
    pub access_token: Option<String>,
}

pub struct Sso {
    inputs: SsoInputs,
    host: HeaderValue,
    prefix: String,
    basic: HeaderValue,
    cookie: HeaderValue,
    verifier: String,
    authorize_path: String,
}

/// RFC 3986 percent-encoding of everything but the unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A query parameter of a URL (values here are base64url or plain).
fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| v.to_owned())
    })
}

impl Sso {
    pub fn new(inputs: SsoInputs, target: &Target) -> Result<Self> {
        // One verifier for the run: each code is bound to its challenge, and
        // only the exchange is measured.
        let verifier = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let authorize_path = format!(
            "{}/authorize?response_type=code&client_id={}&redirect_uri={}&scope=openid%20profile%20email%20business&state=bench&code_challenge={challenge}&code_challenge_method=S256",
            target.prefix,
            encode(&inputs.client_id),
            encode(&inputs.redirect_uri),
        );
        let basic = BASE64.encode(format!(
            "{}:{}",
            encode(&inputs.client_id),
            encode(&inputs.client_secret)
        ));
        Ok(Self {
            host: target.host.clone(),
            prefix: target.prefix.clone(),
            basic: HeaderValue::from_str(&format!("Basic {basic}"))?,
            cookie: HeaderValue::from_str(&inputs.cookie).context("--cookie")?,
            verifier,
            authorize_path,
            inputs,
        })
    }

    fn token_request(&self, form: String) -> Result<Request<Full<Bytes>>> {
        Ok(Request::builder()
            .method(Method::POST)
            .uri(format!("{}/token", self.prefix))
            .header(HOST, self.host.clone())
            .header(AUTHORIZATION, self.basic.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Full::new(Bytes::from(form)))?)
    }

    /// `POST /token` redeeming `code`.
    pub fn exchange_request(&self, code: &str) -> Result<Request<Full<Bytes>>> {
        self.token_request(format!(
            "grant_type=authorization_code&code={}&redirect_uri={}&code_verifier={}",
            encode(code),
            encode(&self.inputs.redirect_uri),
            self.verifier
        ))
    }

    /// `POST /token` rotating `refresh_token`.
    pub fn refresh_request(&self, refresh_token: &str) -> Result<Request<Full<Bytes>>> {
        self.token_request(format!(
            "grant_type=refresh_token&refresh_token={}",
            encode(refresh_token)
        ))
    }

    /// `GET /userinfo` with `access_token`.
    pub fn userinfo_request(&self, access_token: &str) -> Result<Request<Full<Bytes>>> {
        Ok(Request::builder()
            .method(Method::GET)
            .uri(format!("{}/userinfo", self.prefix))
            .header(HOST, self.host.clone())
            .header(
                AUTHORIZATION,
                HeaderValue::from_str(&format!("Bearer {access_token}"))?,
            )
            .body(Full::new(Bytes::new()))?)
    }

    /// A fresh code: the session is signed in and has consented, so
    /// `/authorize` answers at once with a redirect carrying one.
    pub async fn code(&self, sender: &mut Sender) -> Result<String> {
        let request = Request::builder()
            .method(Method::GET)
            .uri(self.authorize_path.as_str())
            .header(HOST, self.host.clone())
            .header(COOKIE, self.cookie.clone())
            .body(Full::new(Bytes::new()))?;
        sender.ready().await?;
        let response = sender.send_request(request).await?;
        let status = response.status();
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        response.into_body().collect().await?;
        if status != StatusCode::SEE_OTHER || !location.starts_with(&self.inputs.redirect_uri) {
            bail!(
                "GET /authorize answered {status} to {location:?}: is the --cookie session signed in and consented?"
            );
        }
        query_param(&location, "code").ok_or_else(|| anyhow!("no code in {location}"))
    }

    /// Redeems a fresh code (unmeasured) to start this worker's chain.
    pub async fn prime(&self, sender: &mut Sender, chain: &mut Chain) -> Result<()> {
        let code = self.code(sender).await?;
        sender.ready().await?;
        let response = sender.send_request(self.exchange_request(&code)?).await?;
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        if status != StatusCode::OK {
            bail!(
                "priming exchange answered {status}: {}",
                String::from_utf8_lossy(&body)
            );
        }
        observe(chain, &body);
        Ok(())
    }
}

/// Takes the next refresh token and the access token from a token response.
pub fn observe(chain: &mut Chain, body: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    if let Some(r) = v["refresh_token"].as_str() {
        chain.refresh_token = Some(r.to_owned());
    }
    if let Some(a) = v["access_token"].as_str() {
        chain.access_token = Some(a.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_everything_but_unreserved() {
        assert_eq!(
            encode("http://127.0.0.1:9/cb"),
            "http%3A%2F%2F127.0.0.1%3A9%2Fcb"
        );
        assert_eq!(encode("a-b.c_d~e"), "a-b.c_d~e");
    }

    #[test]
    fn finds_the_code() {
        let url = "http://127.0.0.1:9/cb?code=abc-_1&state=bench&iss=http%3A%2F%2Fx";
        assert_eq!(query_param(url, "code").as_deref(), Some("abc-_1"));
        assert_eq!(query_param(url, "none"), None);
    }
}
