#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need
# (real third-party clients in a Python virtualenv — Stripe's verifier,
# authlib, PyJWT, the MCP SDK, aiosmtpd as a real SMTP server, Playwright,
# selenium, feedparser, schemathesis; PostgreSQL, pg_auto_failover, Redis,
# nftables, Chromium and jq from Debian's packages; the MCP Inspector CLI
# from npm; cargo-machete, cargo-deny and cargo-fuzz from crates.io), starts
# a throwaway PostgreSQL cluster on loopback, then runs formatting, lints,
# every test on both storage backends, the README's examples as written,
# schema fuzzing of every served document and a short libFuzzer run of every
# parser. An unreachable database fails the run; nothing is skipped.
#
# The downloads (Debian's packages, PyPI, npm) run in the background while
# the Rust code compiles, which needs none of them; each phase prints the
# minutes and seconds since the start, so a slow one shows in CI's log.
set -euo pipefail
cd "$(dirname "$0")/.."

phase() { printf '== [%02d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

venv=.venv
export TEST_PYTHON="$PWD/$venv/bin/python"
inspector=.tools/inspector
export TEST_MCP_INSPECTOR="$PWD/$inspector/node_modules/.bin/mcp-inspector"
# axe-core (npm), which the browser walks run on every page they pass.
axe=.tools/axe
export TEST_AXE="$PWD/$axe/node_modules/axe-core/axe.min.js"
# One full build from clean gains nothing from incremental state, which on its
# own doubles the target directory.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# One build serves every phase: the tests, the README's server and
# schemathesis's all use the release profile (the README tells newcomers to
# build it), here with a debug build's overflow checks and debug assertions
# so an arithmetic slip still panics in a test, and at opt-level 1: measured
# from clean on 2 cores, the test build took 17.7 min at the profile's
# opt-level 3 and 7 min 52 s at 1 (in a whole run of this script that took
# 23 min 54 s), and CI has 30 minutes. The benchmarks build the shipped
# opt-level 3.
export CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true
export CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true
export CARGO_PROFILE_RELEASE_OPT_LEVEL="${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}"
# A failing test's message, not thirty frames of runtime, is what a CI log
# keeps room for; and with no backtrace to symbolise, the line tables the
# release profile keeps for the shipped binary are only compile and link
# time here (a panic's message names its file and line without them).
export RUST_BACKTRACE=0
export CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-false}"

# Debian's packages the tests drive, each only when missing, in one
# `apt-get update` and one install:
# - Chromium and its WebDriver: the support widget through Playwright, the
#   identity provider's pages through selenium (no browser is downloaded);
# - PostgreSQL and pg_auto_failover for its major version (the failover
#   test's primary and synchronous standby);
# - Valkey or Redis (two instances sharing one limit), nftables (the
#   partition test's firewall), npm (the MCP Inspector), jq (the README).
system_packages() {
    local wanted=()
    { command -v chromium && command -v chromedriver; } >/dev/null || wanted+=(chromium chromium-driver)
    command -v npm >/dev/null || wanted+=(nodejs npm)
    command -v valkey-server >/dev/null || command -v redis-server >/dev/null || wanted+=(redis-server)
    command -v nft >/dev/null || wanted+=(nftables)
    command -v jq >/dev/null || wanted+=(jq)
    python3 -c 'import ensurepip' 2>/dev/null || wanted+=(python3-venv)
    # The newest server with an initdb, if any, and the major version the
    # failover packages must match: that server's, or the one Debian's
    # postgresql package would install.
    local pg_bin major=""
    pg_bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n1)")
    [[ $pg_bin == /usr/lib/postgresql/* ]] && major=$(basename "$(dirname "$pg_bin")")
    local need_server=false need_failover=false
    [[ -n $major ]] || need_server=true
    command -v pg_autoctl >/dev/null || need_failover=true
    if [[ ${#wanted[@]} -eq 0 ]] && ! $need_server && ! $need_failover; then
        return 0
    fi
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    if $need_server; then
        major=$(apt-cache depends postgresql | sed -n 's/.*Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -n1)
        [[ -n $major ]] || { echo "no PostgreSQL server package found" >&2; return 1; }
        wanted+=("postgresql-$major")
    fi
    if $need_server || $need_failover; then
        wanted+=("postgresql-$major-auto-failover" pg-auto-failover-cli)
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${wanted[@]}" >/dev/null
}

# The Python clients, in a virtualenv, and the MCP Inspector CLI and
# axe-core, pinned, into .tools/.
client_packages() {
    if ! "$TEST_PYTHON" -c 'import stripe, openapi_spec_validator, authlib, jwt, cryptography, requests, mcp, aiosmtpd, playwright, schemathesis, feedparser, selenium, numpy, sklearn, pypdf' 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'stripe>=10,<20' 'openapi-spec-validator>=0.7,<1' 'authlib>=1.3,<2' 'requests>=2.31,<3' 'PyJWT[crypto]>=2.8,<3' 'mcp>=1.9,<2' \
            'aiosmtpd>=1.4,<2' 'playwright>=1.40,<2' 'schemathesis==4.32.5' 'feedparser>=6.0,<7' 'selenium>=4.15,<5' \
            'numpy==2.1.3' 'scikit-learn==1.5.2' 'pypdf>=5,<6'
    fi
    if [[ ! -x $TEST_MCP_INSPECTOR ]]; then
        mkdir -p "$inspector"
        echo '{"private": true}' >"$inspector/package.json"
        npm install --prefix "$inspector" --no-audit --no-fund --loglevel=error \
            @modelcontextprotocol/inspector@2.12.0
    fi
    if [[ ! -f $TEST_AXE ]]; then
        mkdir -p "$axe"
        echo '{"private": true}' >"$axe/package.json"
        npm install --prefix "$axe" --no-audit --no-fund --loglevel=error axe-core@4.14.1
    fi
}

phase "installing what the tests need (in the background) while the code compiles"
downloads_log=$(mktemp /tmp/lendhub-downloads.XXXXXX)
(
    set -e
    system_packages
    client_packages
) >"$downloads_log" 2>&1 &
downloads=$!
# A run that fails before the downloads are waited for lets them finish (an
# apt-get killed halfway leaves dpkg's lock to the next run).
trap 'wait "$downloads" 2>/dev/null; rm -f "$downloads_log"' EXIT

# The supply-chain checks (issue #19) and the fuzzer's driver, from
# crates.io, pinned, when missing. Unoptimised builds: they install in a
# third of the time and do their work in seconds.
command -v cargo-machete >/dev/null || cargo install --quiet --locked --debug cargo-machete@0.9.2
command -v cargo-deny >/dev/null || cargo install --quiet --locked --debug cargo-deny@0.18.9
command -v cargo-fuzz >/dev/null || cargo install --quiet --locked --debug cargo-fuzz@0.13.1
# mdBook, which builds the guide (docs/guide); without the features the
# build does not use (a local server, file watching, search).
command -v mdbook >/dev/null && [[ $(mdbook --version) == "mdbook v0.5.4" ]] ||
    cargo install --quiet --locked --debug --no-default-features mdbook@0.5.4

phase "formatting, lints, unused and disallowed dependencies"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo machete
cargo deny --log-level error check licenses bans sources
phase "building the tests"
cargo test --release --workspace --no-run --quiet

if ! wait "$downloads"; then
    cat "$downloads_log"
    echo "installing what the tests need failed" >&2
    exit 1
fi
rm -f "$downloads_log"

# The credit model (issue #48), trained again from its seed: the committed
# model and card must be what training writes, and its holdout AUC must
# hold. Pinned numpy and scikit-learn, one thread: the same bytes every run.
phase "training the credit model again"
"$TEST_PYTHON" scripts/credit_model.py --check

# A throwaway cluster, stopped and removed however the run ends.
pgdata=$(mktemp -d /tmp/lendhub-pg.XXXXXX)
pgport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() {
    rm -f "$downloads_log"
    bash scripts/pg-cluster.sh stop "$pgdata" 2>/dev/null || true
    rm -rf "$pgdata"
}
trap cleanup EXIT
TEST_POSTGRES_URL=$(bash scripts/pg-cluster.sh start "$pgdata" "$pgport" --no-fsync)
export TEST_POSTGRES_URL

# Most of the HTTP suite's time is spent waiting (servers starting, a
# browser, timers, fsync), so it runs more tests at once than there are
# cores. The fault tests (failover, partitions, shared limits) bound how
# long an outage may last, so on PostgreSQL they run alone, after the rest.
threads=4
faults=(failover:: partitions:: shared_limits::)
skip=()
for f in "${faults[@]}"; do
    # Each names exactly one test: a renamed module must not drop one.
    found=$(cargo test --release --workspace --quiet --test api -- --list "$f" 2>/dev/null | grep -c ': test$' || true)
    [[ $found -eq 1 ]] || { echo "the fault filter $f names $found tests, not 1" >&2; exit 1; }
    skip+=(--skip "$f")
done
phase "every test, on SQLite (multi-instance tests use the PostgreSQL cluster)"
TEST_BACKEND=sqlite cargo test --release --workspace -- --test-threads="$threads" "${skip[@]}"
phase "the storage conformance suite and the HTTP suite again, on PostgreSQL"
# --workspace, as above, so features resolve the same and nothing rebuilds.
TEST_BACKEND=postgres cargo test --release --workspace --test conformance --test api -- --test-threads="$threads" "${skip[@]}"
phase "the fault tests (failover, partitions, shared limits), one at a time, on PostgreSQL"
for f in "${faults[@]}"; do
    TEST_BACKEND=postgres cargo test --release --workspace --test api -- --test-threads=1 "$f"
done
# The committed OpenAPI document must be valid OpenAPI 3.1.
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/sandbox.json
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/partner.json
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/public.json
# The guide builds with mdBook (its links were checked by the tests above:
# `lendhub-docs`'s link check renders the same sources).
phase "the guide, built with mdBook"
mdbook build docs/guide
# The README and the guide, followed literally: every code block against a
# fresh server of the release binary the README tells newcomers to build, as
# the tests built it (`cargo build --bin lendhub` alone resolves features
# without the tests' dev-dependencies and would build much of the graph
# again).
phase "the README's and the guide's examples, run as written"
[[ -x target/release/lendhub ]] || { echo "the tests built no target/release/lendhub" >&2; exit 1; }
"$TEST_PYTHON" scripts/readme_test.py
# Schema fuzzing (issue #19): every served OpenAPI document against a fresh
# server of the same binary; a 5xx, an answer the document does not
# describe, or a forbidden request taken fails the run.
# Parser fuzzing (issue #19): every cargo fuzz target under libFuzzer for a
# short while, seeded with the committed corpus (the tests above replayed
# it already); a crash, a panic or an allocation over the bound fails.
# It runs beside schemathesis: each target fuzzes for a fixed time, so
# sharing the cores costs it inputs (millions a target still), not minutes,
# and the two together take about as long as schemathesis alone.
phase "schemathesis against the sandbox, partner-ring and public-ring documents, and libFuzzer on every parser beside it"
fuzz_log=$(mktemp /tmp/lendhub-fuzz-log.XXXXXX)
bash scripts/fuzz.sh --check >"$fuzz_log" 2>&1 &
fuzzing=$!
schemathesis=0
bash scripts/schemathesis.sh target/release/lendhub || schemathesis=$?
fuzzed=0
wait "$fuzzing" || fuzzed=$?
phase "libFuzzer's report"
cat "$fuzz_log"
rm -f "$fuzz_log"
[[ $schemathesis -eq 0 ]] || { echo "schemathesis found a failure (above)" >&2; exit 1; }
[[ $fuzzed -eq 0 ]] || { echo "libFuzzer found a failure (above)" >&2; exit 1; }
phase "done"
