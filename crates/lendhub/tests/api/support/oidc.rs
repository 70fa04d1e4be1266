//! Driving the identity provider over HTTP as a browser and as a relying
//! party would: a cookie-keeping browser that does not follow redirects, the
//! forms of the sign-in and consent pages, PKCE, and the token endpoint.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use parking_lot::Mutex;
use reqwest::StatusCode;
use serde_json::Value;

use super::{App, Reply, reply};

pub const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";
pub const LOGOUT_URI: &str = "http://127.0.0.1:9/signed-out";
pub const PASSWORD: &str = "correct horse battery";

#[derive(Clone)]
pub struct Person {
    pub email: String,
    pub sub: String,
}

/// A user with every claim filled in.
pub async fn person(app: &App) -> Person {
    person_of(app, "01234567", "Analytical Engines Ltd").await
}

/// `person`, a director of the given company.
pub async fn person_of(app: &App, company_number: &str, company_name: &str) -> Person {
    let email = format!("director-{}@example.com", super::uuidish().to_lowercase());
    let sub = lendhub_idp::users::create(
        app.server().store.as_ref(),
        lendhub_idp::users::NewUser {
            email: &email,
            password: PASSWORD,
            given_name: "Ada",
            family_name: "Lovelace",
            email_verified: true,
            company_number,
            company_name,
            company_role: "director",
        },
        0,
    )
    .await
    .unwrap();
    Person { email, sub }
}

/// The lender operator every test server names (`lender.operators`, given
/// in capitals there: addresses compare without regard to case).
pub const OPERATOR: &str = "operator@lender.example";

/// The identity provider's account of the lender's operator, or of
/// someone else at `email`, with its address verified or not.
pub async fn operator(app: &App, email: &str, email_verified: bool) -> Person {
    let sub = lendhub_idp::users::create(
        app.server().store.as_ref(),
        lendhub_idp::users::NewUser {
            email,
            password: PASSWORD,
            given_name: "Grace",
            family_name: "Hopper",
            email_verified,
            // The identity provider keeps a company for everyone: the
            // lender's own.
            company_number: "09446231",
            company_name: "Lender Ltd",
            company_role: "operations",
        },
        0,
    )
    .await
    .unwrap();
    Person {
        email: email.to_owned(),
        sub,
    }
}

pub struct Rp {
    pub client_id: String,
    pub client_secret: Option<String>,
}

/// A client registered for [`REDIRECT_URI`] and [`LOGOUT_URI`].
pub async fn rp(app: &App, public: bool) -> Rp {
    let server = app.server();
    let created = lendhub_idp::clients::create(
        server.store.as_ref(),
        &server.master_key,
        lendhub_idp::clients::NewClient {
            name: "Acme Lending Portal",
            redirect_uris: &[REDIRECT_URI.to_owned()],
            post_logout_redirect_uris: &[LOGOUT_URI.to_owned()],
            public,
        },
        0,
    )
    .await
    .unwrap();
    Rp {
        client_id: created.client_id,
        client_secret: created.client_secret.map(|s| s.into_exposed()),
    }
}

pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

pub fn pkce() -> Pkce {
    let verifier = lendhub_system::random_token(32);
    Pkce {
        challenge: lendhub_domain::identity::pkce::s256(&verifier),
        verifier,
    }
}

/// One answer from the provider, seen as a browser sees it.
pub struct Page {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Page {
    pub fn location(&self) -> &str {
        self.headers
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The value of the hidden form field `name`.
    pub fn hidden(&self, name: &str) -> Option<String> {
        let marker = format!("name=\"{name}\" value=\"");
        let start = self.body.find(&marker)? + marker.len();
        let end = self.body[start..].find('"')? + start;
        Some(self.body[start..end].to_owned())
    }

    /// The `Set-Cookie` headers, whole.
    pub fn set_cookies(&self) -> Vec<String> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(str::to_owned)
            .collect()
    }

    /// The page's stable error code, if it is an error page.
    pub fn error_code(&self) -> Option<&str> {
        let marker = "<code id=\"error-code\">";
        let start = self.body.find(marker)? + marker.len();
        let end = self.body[start..].find('<')? + start;
        Some(&self.body[start..end])
    }
}

/// A parameter of a URL's query.
pub fn query_param(url: &str, name: &str) -> Option<String> {
    let url = url::Url::parse(url)
        .or_else(|_| url::Url::parse(&format!("http://x{url}")))
        .ok()?;
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// A browser: keeps cookies, follows nothing.
pub struct Browser {
    http: reqwest::Client,
    base: String,
    pub cookies: Mutex<HashMap<String, String>>,
}

impl Browser {
    pub fn new(app: &App) -> Browser {
        Browser::at(&app.sso)
    }

    /// A browser talking to the provider at `base`.
    pub fn at(base: &str) -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            base: base.to_owned(),
            cookies: Mutex::default(),
        }
    }

    fn url(&self, path: &str) -> String {
        if path.starts_with("http") {
            path.to_owned()
        } else {
            format!("{}{path}", self.base)
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .lock()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn keep(&self, r: reqwest::Response) -> Page {
        let page = Page {
            status: r.status(),
            headers: r.headers().clone(),
            body: r.text().await.unwrap(),
        };
        for set in page.set_cookies() {
            let pair = set.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() || set.contains("Max-Age=0") {
                self.cookies.lock().remove(name);
            } else {
                self.cookies
                    .lock()
                    .insert(name.to_owned(), value.to_owned());
            }
        }
        page
    }

    pub async fn get(&self, path: &str) -> Page {
        let r = self
            .http
            .get(self.url(path))
            .header("cookie", self.cookie_header())
            .send()
            .await
            .unwrap();
        self.keep(r).await
    }

    /// A `multipart/form-data` POST of `fields` and, if given, one file
    /// (field name, file name, content type, bytes), encoded as a browser
    /// sends it.
    pub async fn post_multipart(
        &self,
        path: &str,
        fields: &[(&str, &str)],
        file: Option<(&str, &str, &str, &[u8])>,
    ) -> Page {
        let boundary = "----lendhubTestBoundary7MA4YWxkTrZu0gW";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
                )
                .as_bytes(),
            );
        }
        if let Some((name, filename, content_type, bytes)) = file {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n"
                )
                .as_bytes(),
            );
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let r = self
            .http
            .post(self.url(path))
            .header("cookie", self.cookie_header())
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body)
            .send()
            .await
            .unwrap();
        self.keep(r).await
    }

    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        let r = self
            .http
            .post(self.url(path))
            .header("cookie", self.cookie_header())
            .form(form)
            .send()
            .await
            .unwrap();
        self.keep(r).await
    }
}

/// An authorization request's parameters, with the usual defaults.
pub struct Authorize<'a> {
    pub client_id: &'a str,
    pub scope: &'a str,
    pub state: &'a str,
    pub nonce: Option<&'a str>,
    pub challenge: &'a str,
    pub extra: Vec<(&'a str, &'a str)>,
}

impl<'a> Authorize<'a> {
    pub fn new(rp: &'a Rp, pkce: &'a Pkce) -> Self {
        Authorize {
            client_id: &rp.client_id,
            scope: "openid profile email business",
            state: "state-123",
            nonce: Some("nonce-456"),
            challenge: &pkce.challenge,
            extra: Vec::new(),
        }
    }

    pub fn url(&self) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("response_type", "code")
            .append_pair("client_id", self.client_id)
            .append_pair("redirect_uri", REDIRECT_URI)
            .append_pair("scope", self.scope)
            .append_pair("state", self.state)
            .append_pair("code_challenge", self.challenge)
            .append_pair("code_challenge_method", "S256");
        if let Some(n) = self.nonce {
            q.append_pair("nonce", n);
        }
        for (k, v) in &self.extra {
            q.append_pair(k, v);
        }
        format!("/authorize?{}", q.finish())
    }
}

/// `/authorize`, then the sign-in form with the right password: where the
/// browser is sent next.
pub async fn start_and_sign_in(b: &Browser, req: &Authorize<'_>, person: &Person) -> Page {
    let started = b.get(&req.url()).await;
    sign_in(b, &started, person).await
}

/// The sign-in form `started` (an answer from `/authorize`) led to, filled in.
pub async fn sign_in(b: &Browser, started: &Page, person: &Person) -> Page {
    assert_eq!(started.status, 303, "{}", started.body);
    assert!(
        started.location().starts_with("/sign-in?ticket="),
        "{}",
        started.location()
    );
    let form = b.get(started.location()).await;
    assert_eq!(form.status, 200, "{}", form.body);
    let ticket = form.hidden("ticket").unwrap();
    let csrf = form.hidden("csrf_token").unwrap();
    b.post(
        "/sign-in",
        &[
            ("ticket", &ticket),
            ("csrf_token", &csrf),
            ("email", &person.email),
            ("password", PASSWORD),
        ],
    )
    .await
}

/// Approves (or not) on the consent page the browser was sent to.
pub async fn decide(b: &Browser, consent_location: &str, approve: bool) -> Page {
    assert!(
        consent_location.starts_with("/consent?ticket="),
        "{consent_location}"
    );
    let page = b.get(consent_location).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let ticket = page.hidden("ticket").unwrap();
    let csrf = page.hidden("csrf_token").unwrap();
    let decision = if approve { "approve" } else { "deny" };
    b.post(
        "/consent",
        &[
            ("ticket", &ticket),
            ("csrf_token", &csrf),
            ("decision", decision),
        ],
    )
    .await
}

/// The whole browser journey: sign in, approve, and the code the client receives.
/// Within a consented session `/authorize` answers at once.
pub async fn code(b: &Browser, req: &Authorize<'_>, person: &Person) -> String {
    let started = b.get(&req.url()).await;
    if started.location().starts_with(REDIRECT_URI) {
        return code_from(&started, req.state);
    }
    let signed_in = sign_in(b, &started, person).await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let back = if signed_in.location().starts_with("/consent") {
        decide(b, signed_in.location(), true).await
    } else {
        signed_in
    };
    code_from(&back, req.state)
}

/// The code in a redirect to the client, checking `state` and `iss` came back.
pub fn code_from(page: &Page, state: &str) -> String {
    assert_eq!(page.status, 303, "{}", page.body);
    let location = page.location();
    assert!(location.starts_with(REDIRECT_URI), "{location}");
    assert_eq!(query_param(location, "state").as_deref(), Some(state));
    assert!(query_param(location, "iss").is_some());
    query_param(location, "code").unwrap()
}

/// `POST /token` with the client's own authentication (Basic when it has a
/// secret, `client_id` in the form when public).
pub async fn token(app: &App, rp: &Rp, form: &[(&str, &str)]) -> Reply {
    let mut form: Vec<(&str, &str)> = form.to_vec();
    let mut request = app.http.post(format!("{}/token", app.sso));
    match &rp.client_secret {
        Some(secret) => request = request.basic_auth(&rp.client_id, Some(secret)),
        None => form.push(("client_id", &rp.client_id)),
    }
    reply(request.form(&form).send().await.unwrap()).await
}

pub async fn exchange(app: &App, rp: &Rp, code: &str, verifier: &str) -> Reply {
    token(
        app,
        rp,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT_URI),
            ("code_verifier", verifier),
        ],
    )
    .await
}

pub async fn refresh(app: &App, rp: &Rp, refresh_token: &str) -> Reply {
    token(
        app,
        rp,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
        ],
    )
    .await
}

pub async fn userinfo(app: &App, access_token: &str) -> Reply {
    reply(
        app.http
            .get(format!("{}/userinfo", app.sso))
            .bearer_auth(access_token)
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// An RFC 6749 error body with `status` and `error`.
pub fn assert_oauth_error(r: &Reply, status: u16, error: &str) {
    assert_eq!(r.status.as_u16(), status, "{}", r.body);
    assert_eq!(r.body["error"], error, "{}", r.body);
    assert!(r.body["error_description"].is_string(), "{}", r.body);
}

/// Verifies an ID token against the published JWKS as a relying party
/// must: ES256 signature by a listed key, `iss`, `aud`, `exp`.
pub async fn verify_id_token(app: &App, id_token: &str, audience: &str) -> Result<Value, String> {
    let jwks: Value = app
        .http
        .get(format!("{}/.well-known/jwks.json", app.sso))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let header = jsonwebtoken::decode_header(id_token).map_err(|e| e.to_string())?;
    if header.alg != jsonwebtoken::Algorithm::ES256 {
        return Err(format!("alg {:?}", header.alg));
    }
    let kid = header.kid.ok_or("no kid")?;
    let jwk = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == kid.as_str())
        .ok_or("kid not in the JWKS")?;
    let key = jsonwebtoken::DecodingKey::from_ec_components(
        jwk["x"].as_str().unwrap(),
        jwk["y"].as_str().unwrap(),
    )
    .map_err(|e| e.to_string())?;
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.set_audience(&[audience]);
    validation.set_issuer(&[app.server().sso_url.as_str()]);
    // The server's clock may have been moved forward by the test.
    validation.validate_exp = false;
    jsonwebtoken::decode::<Value>(id_token, &key, &validation)
        .map(|d| d.claims)
        .map_err(|e| e.to_string())
}

/// The JSON payload of a JWT, unverified.
pub fn payload(jwt: &str) -> Value {
    let part = jwt.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
}
