#!/usr/bin/env bash
# Schema fuzzing (issue #19): schemathesis, from PyPI, against every OpenAPI
# document lendhub serves — the sandbox, the partner ring with the REST tier
# on, and the public ring — on a fresh server of the given binary, with real
# credentials. Any failing check fails the run: a 5xx, a status or body the
# document does not describe, a request the document forbids but the server
# takes, or one the document allows but the server refuses (save the
# refusals no JSON Schema can state, which scripts/schemathesis_hooks.py
# names one by one).
#
#   scripts/schemathesis.sh target/release/lendhub
#
# SCHEMATHESIS_MAX_EXAMPLES (default 25) bounds the examples per operation;
# SCHEMATHESIS_SEED (default 1, so one commit gives one answer) picks them.
set -euo pipefail
cd "$(dirname "$0")/.."

LENDHUB=$(realpath "${1:?usage: scripts/schemathesis.sh LENDHUB_BINARY}")
PYTHON=${TEST_PYTHON:-.venv/bin/python}
"$PYTHON" -c 'import schemathesis' 2>/dev/null || { echo "schemathesis is not installed for $PYTHON" >&2; exit 1; }
MAX_EXAMPLES=${SCHEMATHESIS_MAX_EXAMPLES:-25}
SEED=${SCHEMATHESIS_SEED:-1}

WORK=$(mktemp -d /tmp/lendhub-schemathesis.XXXXXX)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
SANDBOX=127.0.0.1:$(free_port)
HUB=127.0.0.1:$(free_port)
export LENDHUB_DATA_DIR=$WORK/data LENDHUB_SANDBOX__ADDR=$SANDBOX LENDHUB_HUB__ADDR=$HUB \
    LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 LENDHUB_REST_TIER__ENABLED=true \
    LENDHUB_PUBLIC__RATE_LIMIT_REQUESTS=100000000 LENDHUB_LOG=warn
SERVER_PID=
cleanup() {
    if [[ -n $SERVER_PID ]]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

"$LENDHUB" serve >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 300); do
    curl -fs --noproxy '*' -o /dev/null "http://$SANDBOX/livez" && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
    sleep 0.1
done

field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
SANDBOX_CLIENT=$("$LENDHUB" sandbox clients create --name schemathesis 2>/dev/null)
SANDBOX_TOKEN=$(curl -fsS --noproxy '*' -u "$(field client_id <<<"$SANDBOX_CLIENT"):$(field client_secret <<<"$SANDBOX_CLIENT")" \
    -d grant_type=client_credentials "http://$SANDBOX/oauth/token" | field access_token)
PARTNER=$("$LENDHUB" partner clients create --name schemathesis --tier platform \
    --scopes "applications.read applications.write identity.read identity.write decisions.read accounts.read accounts.manage payments.read payments.write webhooks.manage events.read billing.read marketplace.read marketplace.write mcp.read ops.read" 2>/dev/null)
API_KEY=$("$LENDHUB" partner api-keys create --client-id "$(field client_id <<<"$PARTNER")" --environment live 2>/dev/null | field key)

# What the documents promise of every answer, and that what they forbid is
# refused: any finding fails the run.
GATE=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection
status=0
run() {
    local name=$1 url=$2
    shift 2
    echo "== schemathesis: the $name document ($url)"
    "$PYTHON" "$CLI" run "$url" --checks "$GATE" --max-examples "$MAX_EXAMPLES" \
        --seed "$SEED" --phases examples,coverage,fuzzing,stateful --workers 2 --no-color "$@" || status=1
    # That what they allow is taken. A refusal JSON Schema cannot state (an
    # id that must name an object of yours, an instant relative to now, a
    # signature, a public address; docs/reliability.md) is dropped by
    # scripts/schemathesis_hooks.py, which names each; any other fails.
    echo "== schemathesis: what the $name document allows is taken"
    SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$SCRIPTS" "$PYTHON" "$CLI" run "$url" \
        --checks positive_data_acceptance --max-examples "$MAX_EXAMPLES" --seed "$SEED" \
        --phases examples,coverage,fuzzing,stateful --workers 2 --no-color "$@" || status=1
}
# schemathesis keeps a cache of past failures where it runs, and replays
# them first: run where the run's own files are, so every run starts clean.
CLI=$PWD/scripts/schemathesis_cli.py
SCRIPTS=$PWD/scripts
PYTHON=$(realpath -s "$PYTHON")
cd "$WORK"
run sandbox "http://$SANDBOX/openapi.json" -H "Authorization: Bearer $SANDBOX_TOKEN"
run "partner ring" "http://$HUB/partner/v1/openapi.json" -H "Authorization: Bearer $API_KEY"
run "public ring" "http://$HUB/public/v1/openapi.json"
exit $status
