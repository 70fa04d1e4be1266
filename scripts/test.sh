#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need
# (real third-party clients in a Python virtualenv — Stripe's verifier,
# authlib, PyJWT, the MCP SDK, aiosmtpd as a real SMTP server, Playwright, feedparser;
# PostgreSQL, pg_auto_failover, Redis, nftables and Chromium from Debian's packages; the MCP Inspector CLI from
# npm; jq), starts a throwaway PostgreSQL cluster on
# loopback, then runs formatting, lints, every test on both storage
# backends, and the README's examples as written. An unreachable database
# fails the run; nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
if ! "$venv/bin/python" -c 'import stripe, openapi_spec_validator, authlib, jwt, cryptography, requests, mcp, aiosmtpd, playwright, schemathesis, feedparser' 2>/dev/null; then
    # A Debian python3 without ensurepip needs its venv package first.
    if ! python3 -m venv "$venv" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'stripe>=10,<20' 'openapi-spec-validator>=0.7,<1' 'authlib>=1.3,<2' 'requests>=2.31,<3' 'PyJWT[crypto]>=2.8,<3' 'mcp>=1.9,<2' \
        'aiosmtpd>=1.4,<2' 'playwright>=1.40,<2' 'schemathesis==4.32.5' 'feedparser>=6.0,<7'
fi
export TEST_PYTHON="$PWD/$venv/bin/python"
# One full build from clean gains nothing from incremental state, which on its
# own doubles the target directory.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# Browser tests drive Debian's Chromium: the support widget through
# Playwright, the identity provider's sign-in pages through Debian's
# chromedriver (WebDriver, via Selenium); neither a browser nor a driver is
# downloaded. The MCP Inspector CLI comes from the npm registry, pinned, into
# .tools/. Each is installed only when missing.
apt_install() {
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt_install chromium chromium-driver
fi
if ! "$TEST_PYTHON" -c 'import selenium' 2>/dev/null; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'selenium>=4.15,<5'
fi
command -v npm >/dev/null || apt_install nodejs npm
# The shared rate limits' server for the test of two instances sharing one
# limit (issue #19): Valkey where Debian has it, else Redis.
command -v valkey-server >/dev/null || command -v redis-server >/dev/null || apt_install redis-server
# The partition tests' firewall, in each instance's network namespace.
command -v nft >/dev/null || apt_install nftables
# The failover test's primary and synchronous standby (issue #19):
# pg_auto_failover for the server's major version. The cluster script
# installs the server itself when it is missing; this follows it.
bash scripts/pg-cluster.sh install
if ! command -v pg_autoctl >/dev/null; then
    pg_major=$(basename "$(dirname "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)")")
    apt_install "postgresql-$pg_major-auto-failover" pg-auto-failover-cli
fi
# The README's examples keep ids in shell variables with jq.
command -v jq >/dev/null || apt_install jq
inspector=.tools/inspector
if [[ ! -x $inspector/node_modules/.bin/mcp-inspector ]]; then
    mkdir -p "$inspector"
    echo '{"private": true}' >"$inspector/package.json"
    npm install --prefix "$inspector" --no-audit --no-fund --loglevel=error \
        @modelcontextprotocol/inspector@2.12.0
fi
export TEST_MCP_INSPECTOR="$PWD/$inspector/node_modules/.bin/mcp-inspector"
# Finds dependencies no code uses (issue #19's supply-chain check), from
# crates.io, pinned, when missing.
command -v cargo-machete >/dev/null || cargo install --quiet --locked cargo-machete@0.9.2
# Licenses, banned crates and sources against deny.toml (issue #19). An
# unoptimised build: it installs in a third of the time and still checks
# the whole graph in seconds.
command -v cargo-deny >/dev/null || cargo install --quiet --locked --debug cargo-deny@0.18.9

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo machete
cargo deny --log-level error check licenses bans sources

# A throwaway cluster, stopped and removed however the run ends.
pgdata=$(mktemp -d /tmp/lendhub-pg.XXXXXX)
pgport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() {
    bash scripts/pg-cluster.sh stop "$pgdata" 2>/dev/null || true
    rm -rf "$pgdata"
}
trap cleanup EXIT
TEST_POSTGRES_URL=$(bash scripts/pg-cluster.sh start "$pgdata" "$pgport")
export TEST_POSTGRES_URL

echo "== every test, on SQLite (multi-instance tests use the PostgreSQL cluster)"
TEST_BACKEND=sqlite cargo test --workspace
echo "== the storage conformance suite and the HTTP suite again, on PostgreSQL"
# --workspace, as above, so features resolve the same and nothing rebuilds.
TEST_BACKEND=postgres cargo test --workspace --test conformance --test api
# The committed OpenAPI document must be valid OpenAPI 3.1.
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/sandbox.json
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/partner.json
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/public.json
# The README, followed literally: every sh block against a fresh server of the
# release binary the README tells newcomers to build.
echo "== the README's examples, run as written"
cargo build --release --quiet --bin lendhub
"$TEST_PYTHON" scripts/readme_test.py
# Schema fuzzing (issue #19): every served OpenAPI document against a fresh
# server of the same binary; a 5xx, an answer the document does not
# describe, or a forbidden request taken fails the run.
echo "== schemathesis against the sandbox, partner-ring and public-ring documents"
bash scripts/schemathesis.sh target/release/lendhub
