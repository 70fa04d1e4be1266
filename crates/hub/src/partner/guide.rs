//! `GET /partner/v1/auth.md`: the agent registration guide, written from
//! the same data the ring runs on (its URLs, scopes and tools), so it cannot
//! drift from what the endpoints do.

use std::fmt::Write;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use lendhub_domain::partner::project::{ACCESS_TOKEN_TTL_SECONDS, Tier};
use lendhub_domain::partner::scope::{PartnerScope, Scope};

use super::mcp::{PROTOCOL_VERSION, TOOLS};
use crate::partner::state::PartnerState;

pub fn render(base: &str) -> String {
    let partner = format!("{base}/partner/v1");
    let mut md = format!(
        "# Registering an agent with the lendhub partner ring\n\n\
         The partner ring is `{partner}`. It speaks OAuth 2.0 client credentials and\n\
         serves a read-only MCP endpoint. Metadata: `{base}/.well-known/oauth-authorization-server`\n\
         (RFC 8414) and `{base}/.well-known/oauth-protected-resource` (RFC 9728).\n\n\
         ## 1. Get credentials\n\n\
         Your lendhub contact creates a partner project and gives you a client id\n\
         (`pk_live_…`) and a client secret (`sk_live_…`), shown once. Test keys\n\
         (`pk_test_…`) belong to the sandbox and are refused here with `invalid_api_key`.\n\n\
         ## 2. Get an access token\n\n\
         ```sh\n\
         curl -s -u \"$CLIENT_ID:$CLIENT_SECRET\" \\\n  -d grant_type=client_credentials -d 'scope=mcp.read' \\\n  {partner}/oauth/token\n\
         ```\n\n\
         Client authentication is HTTP Basic (`client_secret_basic`) or `client_id` and\n\
         `client_secret` in the form (`client_secret_post`). The answer is\n\
         `{{\"access_token\", \"token_type\": \"Bearer\", \"expires_in\": {ACCESS_TOKEN_TTL_SECONDS}, \"scope\"}}`.\n\
         The token is a JWT signed with EdDSA (Ed25519); verify it offline with the keys at\n\
         `{partner}/oauth/jwks` (issuer `{base}`, audience `{partner}`). There is no refresh\n\
         token: request a new one when it expires. Omit `scope` to get every scope your\n\
         project holds; asking for one it does not hold is `scope_not_granted` (403).\n\n\
         Check a token with `POST {partner}/oauth/introspect` (RFC 7662) and revoke it with\n\
         `POST {partner}/oauth/revoke` (RFC 7009), both with your client credentials.\n\n\
         ## 3. Call the MCP endpoint\n\n\
         `POST {partner}/mcp` with `Authorization: Bearer <token>` and\n\
         `Content-Type: application/json`, one JSON-RPC 2.0 message per request (MCP\n\
         Streamable HTTP, JSON responses, protocol revision `{PROTOCOL_VERSION}`): `initialize`,\n\
         `notifications/initialized`, `ping`, `tools/list`, `tools/call`.\n\n\
         ```sh\n\
         curl -s {partner}/mcp -H \"Authorization: Bearer $TOKEN\" \\\n  -H 'Content-Type: application/json' \\\n  -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}'\n\
         ```\n\n\
         ## Scopes and the tools they unlock\n\n\
         `tools/list` shows only the tools your token's scopes allow; any other tool is\n\
         `mcp_tool_not_found`.\n\n\
         | scope | grants | tools |\n|---|---|---|\n"
    );
    for scope in PartnerScope::ALL {
        let tools: Vec<String> = TOOLS
            .iter()
            .filter(|t| t.scope == *scope)
            .map(|t| format!("`{}`", t.name))
            .collect();
        let _ = writeln!(
            md,
            "| `{}` | {} | {} |",
            scope.as_str(),
            Scope::describe(*scope),
            tools.join(", ")
        );
    }
    md.push_str("\n## Limits\n\nEach project has a token bucket by tier; every request takes one token.\n\n| tier | sustained | burst | concurrent |\n|---|---|---|---|\n");
    for tier in Tier::ALL {
        let l = tier.limits();
        let _ = writeln!(
            md,
            "| {} | {} req/s | {} | {} |",
            tier.as_str(),
            l.per_second,
            l.burst,
            l.concurrent
        );
    }
    md.push_str(
        "\nResponses carry `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and\n\
         `RateLimit-Policy`. Over the limit: `429 rate_limited` with `Retry-After` and\n\
         `retry_after_ms`; wait that long, then retry.\n\n\
         ## Errors\n\n\
         Every error is `{\"error\": {\"code\", \"message\", \"type\", \"detail\"?, \"correlation_id\",\n\
         \"retryable\", \"retry_after_ms\"?}}`. Authentication failures are 401 (`missing_api_key`,\n\
         `invalid_api_key`, `unauthenticated`, `token_expired`, `token_revoked`,\n\
         `audience_mismatch`) with a `WWW-Authenticate` header naming the resource metadata;\n\
         403 is `insufficient_scope`, `scope_not_granted` or `account_suspended`.\n",
    );
    md
}

pub async fn auth_md(State(state): State<PartnerState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
        render(&state.links.urls.base),
    )
}
