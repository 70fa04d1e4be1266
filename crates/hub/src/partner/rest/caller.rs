//! Who is calling the REST tier, in which environment, with which scopes —
//! and the rate-limit bucket the call spends.
//!
//! The environment is the mount: `/partner/v1` is live, `/sandbox/v1` is
//! test. A caller presents, as a bearer credential, either a secret API key
//! of that environment (`sk_live_…` / `sk_test_…`) or a partner access
//! token whose audience is that environment. Live calls spend the partner's
//! tier bucket; test calls a bucket of their own at the build tier's limits.

use std::sync::Arc;

use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::header;
use axum::http::request::Parts;
use lendhub_domain::partner::credentials::{Environment, Presented, presented};
use lendhub_domain::partner::project::Tier;
use lendhub_domain::partner::scope::{PartnerScope, PartnerScopes, Scope};
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_domain::tenant::Tenant;
use lendhub_http::idempotency::{Guarded, Idempotent};
use lendhub_store::PartnerClientRecord;
use time::OffsetDateTime;

use super::SANDBOX_PREFIX;
use crate::partner::api_keys;
use crate::partner::error::PartnerError;
use crate::partner::limits::Slot;
use crate::partner::state::PartnerState;
use crate::partner::{PREFIX, tokens};

/// An authenticated, admitted caller of the REST tier.
pub struct RestCaller {
    pub client: Arc<PartnerClientRecord>,
    pub env: Environment,
    pub scopes: PartnerScopes,
    /// The environment's clock: the service clock in live; in test, moved
    /// by the test helpers as the sandbox's clients move theirs.
    pub clock: ClientClock,
}

/// Whose a write is and when it happens, on the caller's clock: how every
/// write of the tier starts.
pub struct WriteStart {
    pub owner: Tenant,
    pub now: OffsetDateTime,
}

impl WriteStart {
    /// The request the `Idempotency-Key` guards, if one was sent.
    pub fn guarded<'a>(
        &'a self,
        key: &'a Option<Idempotent>,
        body: &'a [u8],
    ) -> Option<Guarded<'a>> {
        key.as_ref().map(|k| k.by(&self.owner, body, self.now))
    }
}

impl RestCaller {
    /// Whose rows this caller reads and writes: the partner in this environment.
    pub fn tenant(&self) -> Tenant {
        Tenant::partner(&self.client.client_id, self.env.livemode(), None)
    }

    pub fn livemode(&self) -> bool {
        self.env.livemode()
    }

    /// Now on this environment's clock.
    pub fn now(&self, state: &PartnerState) -> OffsetDateTime {
        self.clock.now(state.clock.now())
    }

    /// A write needing `scope`: refused (403) unless the caller holds it.
    pub fn begin_write(
        &self,
        state: &PartnerState,
        scope: PartnerScope,
    ) -> Result<WriteStart, PartnerError> {
        self.require(scope)?;
        Ok(self.start_write(state))
    }

    /// A step of a white-label journey (`applications.write`): the test
    /// environment always allows it; live needs the operator's switch, set
    /// after the data-protection review.
    pub fn begin_white_label_write(
        &self,
        state: &PartnerState,
    ) -> Result<WriteStart, PartnerError> {
        let write = self.begin_write(state, PartnerScope::ApplicationsWrite)?;
        if self.env == Environment::Live && !self.client.white_label {
            return Err(PartnerError::CapabilityDenied(
                "white-label journeys are switched on per partner by the operator after the data-protection review; use the hosted journey (handoff_url)",
            ));
        }
        Ok(write)
    }

    /// A write any caller of the environment may make (a test helper).
    pub fn start_write(&self, state: &PartnerState) -> WriteStart {
        WriteStart {
            owner: self.tenant(),
            now: self.now(state),
        }
    }

    /// 403 `insufficient_scope`, naming `scope`, unless the caller holds it.
    pub fn require(&self, scope: PartnerScope) -> Result<(), PartnerError> {
        if self.scopes.contains(scope) {
            Ok(())
        } else {
            Err(PartnerError::InsufficientScope(scope.as_str()))
        }
    }
}

/// The environment and the route under it, from the matched path.
pub(crate) fn route(parts: &Parts) -> (Environment, Option<&str>) {
    let matched = parts
        .extensions
        .get::<MatchedPath>()
        .map(MatchedPath::as_str);
    match matched.and_then(|m| m.strip_prefix(SANDBOX_PREFIX)) {
        Some(path) => (Environment::Test, Some(path)),
        None => (
            Environment::Live,
            matched.and_then(|m| m.strip_prefix(PREFIX)),
        ),
    }
}

/// The bearer credential the request presents.
pub(crate) fn bearer(parts: &Parts) -> Result<&str, PartnerError> {
    if lendhub_http::headers::repeated(&parts.headers, header::AUTHORIZATION) {
        return Err(PartnerError::Unauthenticated(
            "send one Authorization header, not several",
        ));
    }
    let value = parts
        .headers
        .get(header::AUTHORIZATION)
        .ok_or(PartnerError::MissingApiKey)?
        .to_str()
        .map_err(|_| PartnerError::Unauthenticated("the Authorization header is not valid text"))?;
    match value.split_once(' ') {
        Some((scheme, c)) if scheme.eq_ignore_ascii_case("bearer") => Ok(c.trim()),
        _ => Err(PartnerError::Unauthenticated(
            "use the Bearer scheme with a secret API key or an access token",
        )),
    }
}

/// The caller the credential proves, not yet admitted.
async fn identify(parts: &Parts, state: &PartnerState) -> Result<RestCaller, PartnerError> {
    let (env, _) = route(parts);
    let credential = bearer(parts)?;
    let (client, scopes) = match presented(credential) {
        Presented::SecretKey(claimed, rest) => {
            let (key, client) = api_keys::authenticate(state, env, claimed, rest).await?;
            // A key never carries more than its partner holds now.
            let held = PartnerScopes::parse(&client.scopes).unwrap_or_default();
            let scopes = PartnerScopes::parse(&key.scopes)
                .unwrap_or_default()
                .intersection(&held);
            (client, scopes)
        }
        Presented::PublishableKey => return Err(PartnerError::SecretKeyRequired),
        Presented::Other => {
            let verified = tokens::verify_for(state, credential, env).await?;
            (verified.client, verified.scopes)
        }
    };
    let mut caller = RestCaller {
        client,
        env,
        scopes,
        clock: ClientClock::default(),
    };
    if env == Environment::Test {
        caller.clock = ClientClock::new(state.sandbox.clock_offset(&caller.tenant()).await?);
    }
    Ok(caller)
}

/// Spends one token of the caller's bucket for this request.
pub(crate) async fn admit(
    parts: &Parts,
    state: &PartnerState,
    bucket: &str,
    tier: Tier,
) -> Result<(), PartnerError> {
    let (_, path) = route(parts);
    state
        .limiter
        .admit(
            parts.extensions.get::<Slot>(),
            bucket,
            tier,
            path.map(|p| (parts.method.as_str(), p)),
            state.clock.now_ms(),
        )
        .await
}

async fn admit_caller(
    parts: &Parts,
    state: &PartnerState,
    caller: &RestCaller,
) -> Result<(), PartnerError> {
    match caller.env {
        Environment::Live => {
            admit(parts, state, &caller.client.client_id, caller.client.tier).await
        }
        Environment::Test => admit(parts, state, caller.tenant().as_str(), Tier::Build).await,
    }
}

impl FromRequestParts<PartnerState> for RestCaller {
    type Rejection = PartnerError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &PartnerState,
    ) -> Result<Self, Self::Rejection> {
        let caller = identify(parts, state).await?;
        counted(parts, state, &caller);
        admit_caller(parts, state, &caller).await?;
        Ok(caller)
    }
}

/// The request is counted for the caller's charts, whatever it is answered.
fn counted(parts: &Parts, state: &PartnerState, caller: &RestCaller) {
    if let Some(slot) = parts.extensions.get::<Slot>() {
        slot.count(crate::partner::limits::Counted {
            traffic: state.traffic.clone(),
            client: caller.client.clone(),
            livemode: caller.livemode(),
            day: caller.now(state).date(),
        });
    }
}

/// Any caller of the tier, admitted: the one its credential proves, or —
/// with no credential, or one that does not check out — the client
/// address, in a bucket of the build tier's size. For answers that need no
/// credential (the OpenAPI document, a path not yet live) but still spend,
/// and report, a bucket.
pub struct Admitted(pub Option<RestCaller>);

impl FromRequestParts<PartnerState> for Admitted {
    type Rejection = PartnerError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &PartnerState,
    ) -> Result<Self, Self::Rejection> {
        if let Ok(caller) = identify(parts, state).await {
            counted(parts, state, &caller);
            admit_caller(parts, state, &caller).await?;
            return Ok(Admitted(Some(caller)));
        }
        let address = lendhub_http::client_ip::client_ip(parts, &state.settings.trusted_proxies)
            .map_or_else(|| "unknown".to_owned(), |ip| ip.to_string());
        admit(parts, state, &format!("anonymous/{address}"), Tier::Build).await?;
        Ok(Admitted(None))
    }
}
