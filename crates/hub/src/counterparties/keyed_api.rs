//! A JSON API behind a bearer API key, as lendhub's built-in adapters for
//! the identity provider and the credit bureau speak it
//! (`lendhub_domain::lending::checks_api`): every answer but a 2xx with
//! the expected body, and every failure to answer within the timeout, is
//! the service unavailable, said in words an operator can act on.

use std::time::Duration;

use lendhub_domain::secret::Secret;
use reqwest::{RequestBuilder, Response, StatusCode};
use serde::de::DeserializeOwned;

pub(super) struct KeyedApi {
    /// What the service is, for messages: "the identity provider".
    name: &'static str,
    base: String,
    key: Secret<String>,
    http: reqwest::Client,
}

impl KeyedApi {
    pub fn new(
        name: &'static str,
        base: &str,
        key: Secret<String>,
        timeout: Duration,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            name,
            base: base.trim_end_matches('/').to_owned(),
            key,
            http: super::http_client(timeout)?,
        })
    }

    pub fn get(&self, path: &str) -> RequestBuilder {
        self.authorised(self.http.get(format!("{}{path}", self.base)))
    }

    pub fn post(&self, path: &str) -> RequestBuilder {
        self.authorised(self.http.post(format!("{}{path}", self.base)))
    }

    fn authorised(&self, request: RequestBuilder) -> RequestBuilder {
        request
            .bearer_auth(self.key.expose())
            .header(reqwest::header::ACCEPT, "application/json")
    }

    /// The answer as `T`, or none for a 404 (what that means is the
    /// caller's); why not, if it is neither.
    pub async fn read<T: DeserializeOwned>(
        &self,
        what: &str,
        sent: Result<Response, reqwest::Error>,
    ) -> Result<Option<T>, String> {
        let answer = sent.map_err(|e| format!("{} did not answer for {what}: {e}", self.name))?;
        match answer.status() {
            s if s.is_success() => answer
                .json()
                .await
                .map(Some)
                .map_err(|e| format!("{} answered no {what}: {e}", self.name)),
            StatusCode::NOT_FOUND => Ok(None),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(format!(
                "{} refused lendhub's API key ({}): check its configuration",
                self.name,
                answer.status()
            )),
            s => Err(format!("{} answered {s} for {what}", self.name)),
        }
    }
}
