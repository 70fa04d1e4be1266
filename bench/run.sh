#!/usr/bin/env bash
# Benchmarks the lendhub sandbox API on this machine and writes docs/benchmarks.md.
#
#   bench/run.sh                      # 10 s per scenario
#   BENCH_DURATION=30 bench/run.sh    # longer runs
#
# Other knobs (defaults in brackets): BENCH_CONNECTIONS [64], BENCH_OPEN_RATE
# [1000], BENCH_WARMUP [1], BENCH_SEED_APPS [200], BENCH_THREADS [all CPUs],
# BENCH_PAIR_DURATION [3] (the bare server just before each scenario),
# BENCH_OUT [docs/benchmarks.md]. For testing this script only:
# BENCH_SKIP_BUILD=1 and LENDHUB_BIN=/path/to/a/lendhub.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
DURATION=${BENCH_DURATION:-10}
# Seconds of the bare server measured just before each scenario.
PAIR_DURATION=${BENCH_PAIR_DURATION:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
OPEN_RATE=${BENCH_OPEN_RATE:-1000}
WARMUP=${BENCH_WARMUP:-1}
SEED_APPS=${BENCH_SEED_APPS:-200}
# Webhook deliveries drained in the delivery run.
DELIVERIES=${BENCH_DELIVERIES:-30000}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=${LENDHUB_BIN:-$TARGET_DIR/release/lendhub}
# The server reads every LENDHUB_* variable as configuration, and refuses
# one it does not know.
unset LENDHUB_BIN
BENCH=$TARGET_DIR/release/lendhub-bench
BARE=$TARGET_DIR/release/lendhub-bare
FSYNC=$TARGET_DIR/release/lendhub-fsync
BARE_ADDR=127.0.0.1:18090
ADDR=127.0.0.1:18081
HUB_ADDR=127.0.0.1:18080
OPS_ADDR=127.0.0.1:19464
SSO_ADDR=127.0.0.1:18082
HUB=http://$HUB_ADDR
SSO=http://$SSO_ADDR
BASE=http://$ADDR

# The command as invoked, with any overrides, for the report.
COMMAND="bench/run.sh"
for var in BENCH_OPEN_RATE BENCH_CONNECTIONS BENCH_WARMUP BENCH_SEED_APPS BENCH_THREADS BENCH_DURATION BENCH_PAIR_DURATION; do
    if [[ -n ${!var:-} ]]; then COMMAND="$var=${!var} $COMMAND"; fi
done

log() { printf '[bench] %s\n' "$*" >&2; }
die() {
    log "error: $*"
    if [[ -s ${WORK:-}/server.log ]]; then
        log "last lines of the server log:"
        tail -n 20 "$WORK/server.log" >&2
    fi
    exit 1
}

if [[ -z ${BENCH_SKIP_BUILD:-} ]]; then
    log "building release binaries"
    cargo build --release -p lendhub -p lendhub-bench
fi
[[ -x $LENDHUB ]] || die "no server binary at $LENDHUB"
[[ -x $BENCH ]] || die "no load generator at $BENCH"
[[ -x $BARE ]] || die "no bare reference server at $BARE"
[[ -x $FSYNC ]] || die "no fsync probe at $FSYNC"

WORK=$(mktemp -d -t lendhub-bench.XXXXXX)
DATA=$WORK/data
RESULTS=$WORK/results
mkdir -p "$DATA" "$RESULTS"
SERVER_PID=
SHUTDOWN=

# Stops the server with SIGTERM, escalating to SIGKILL after 10 s; says how
# it went in SHUTDOWN. (Not in a subshell: only this shell can `wait` for it.)
stop_server() {
    local i status
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for i in $(seq 1 100); do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            status=0
            wait "$SERVER_PID" || status=$?
            SERVER_PID=
            SHUTDOWN="exited with status $status within $(((i + 9) / 10)) s of SIGTERM"
            return
        fi
        sleep 0.1
    done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    SHUTDOWN="did not exit within 10 s of SIGTERM (killed)"
}

cleanup() {
    if [[ -n $SERVER_PID ]]; then stop_server; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Runs the lendhub binary with the benchmark's environment.
lendhub() {
    LENDHUB_DATA_DIR=$DATA LENDHUB_SANDBOX__ADDR=$ADDR LENDHUB_HUB__ADDR=$HUB_ADDR \
        LENDHUB_OPS__ADDR=$OPS_ADDR LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=$SSO_ADDR "$LENDHUB" "$@"
}

# json_field FIELD < json  — prints one top-level field of a JSON object.
json_field() {
    python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# http EXPECTED_STATUS curl-args...  — prints the body; fails on any other status.
http() {
    local expected=$1 body=$WORK/http_body status
    shift
    status=$(curl -sS --noproxy '*' --max-time 10 -o "$body" -w '%{http_code}' "$@") ||
        die "curl failed: ${*: -1}"
    [[ $status == "$expected" ]] || die "expected HTTP $expected, got $status from ${*: -1}: $(cat "$body")"
    cat "$body"
}

new_token() {
    local body
    body=$(http 200 -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$BASE/oauth/token")
    json_field access_token <<<"$body"
}

# run_load NAME lendhub-bench-args...  — one measured run; its JSON goes to
# $RESULTS/NAME.json. Unless it measures the bare server itself, the bare
# server is measured just before it (bare-before-NAME, PAIR_DURATION s), and
# the report reads its ratio against that: a shared machine's speed drifts by
# tens of percent over a run, and a reference taken seconds earlier drifts
# with it. RUN_DURATION overrides DURATION for one call.
run_load() {
    local name=$1
    shift
    if [[ $name != bare* ]]; then measure_bare "bare-before-$name" "$PAIR_DURATION"; fi
    local threads=() duration=${RUN_DURATION:-$DURATION}
    if [[ -n ${BENCH_THREADS:-} ]]; then threads=(--threads "$BENCH_THREADS"); fi
    log "running $name for ${duration}s"
    if ! "$BENCH" --url "$BASE" --duration "$duration" --warmup "$WARMUP" "${threads[@]}" "$@" \
        >"$RESULTS/$name.json"; then
        log "warning: $name failed"
        echo '{}' >"$RESULTS/$name.json"
    fi
    cat "$RESULTS/$name.json" >&2
}

# --- the references, measured first in the same run ----------------------------
# The disk's fsync rate where the database will live, and a bare axum server
# (lendhub's runtime and allocator, a fixed body, no middleware) that every
# ratio in the report is against. Each runs alone, before lendhub starts.
log "measuring the disk's fsync rate in $DATA"
"$FSYNC" "$DATA" 3 >"$RESULTS/fsync.json" || echo '{}' >"$RESULTS/fsync.json"
cat "$RESULTS/fsync.json" >&2
# measure_bare NAME [SECONDS] — the bare server alone, under the scenario's load.
measure_bare() {
    "$BARE" "$BARE_ADDR" >"$WORK/bare.log" 2>&1 &
    BARE_PID=$!
    for _ in $(seq 1 100); do
        if curl -fs --noproxy '*' --max-time 1 -o /dev/null "http://$BARE_ADDR/livez"; then break; fi
        sleep 0.1
    done
    local saved=$BASE
    BASE=http://$BARE_ADDR
    RUN_DURATION=${2:-$DURATION} run_load "$1" --scenario baseline --connections "$CONNECTIONS"
    BASE=$saved
    kill "$BARE_PID" 2>/dev/null || true
    wait "$BARE_PID" 2>/dev/null || true
}
measure_bare bare

# --- server -------------------------------------------------------------------
if curl -s --noproxy '*' --max-time 1 -o /dev/null "$BASE/livez"; then
    die "something is already listening on $ADDR"
fi
log "starting server (data dir $DATA)"
# Started directly, not through the lendhub() function, so that $! is the
# server's own PID (the function would run in a subshell) for VmRSS and SIGTERM.
LENDHUB_DATA_DIR=$DATA LENDHUB_SANDBOX__ADDR=$ADDR LENDHUB_HUB__ADDR=$HUB_ADDR LENDHUB_OPS__ADDR=$OPS_ADDR LENDHUB_STATUS__ADDR=127.0.0.1:0 \
    LENDHUB_SSO__ADDR=$SSO_ADDR LENDHUB_PUBLIC__RATE_LIMIT_REQUESTS=1000000000 \
    LENDHUB_REST_TIER__ENABLED=true LENDHUB_WEBHOOKS__HTTPS_ONLY=false \
    LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS=127.0.0.0/8 \
    "$LENDHUB" serve >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 300); do
    if curl -fs --noproxy '*' --max-time 1 -o /dev/null "$BASE/livez"; then break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || die "server exited during start-up"
    sleep 0.1
done
curl -fs --noproxy '*' --max-time 1 -o /dev/null "$BASE/livez" || die "server did not answer /livez within 30 s"

sleep 2
IDLE_RSS_KB=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status")
log "idle RSS ${IDLE_RSS_KB} kB"

# --- fixtures -----------------------------------------------------------------
CLIENT_JSON=$(lendhub sandbox clients create --name bench --scopes "sandbox:read sandbox:write")
CLIENT_ID=$(json_field client_id <<<"$CLIENT_JSON")
CLIENT_SECRET=$(json_field client_secret <<<"$CLIENT_JSON")
TOKEN=$(new_token)
APP_JSON=$(http 201 -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
    -H "Idempotency-Key: bench-setup-$(date +%s%N)" \
    -d '{"business":{"company_number":"12345678"},"amount_pence":500000}' \
    "$BASE/v1/applications")
APP_ID=$(json_field id <<<"$APP_JSON")
log "client $CLIENT_ID, application $APP_ID; seeding $SEED_APPS applications"
"$BENCH" --url "$BASE" --scenario create-application --token "$TOKEN" --connections 8 \
    --duration 120 --requests "$SEED_APPS" >"$RESULTS/seed.json"
cat "$RESULTS/seed.json" >&2
SEED_ERRORS=$(json_field errors <"$RESULTS/seed.json")
if [[ $SEED_ERRORS != 0 ]]; then log "warning: $SEED_ERRORS errors while seeding"; fi

# --- measured runs ------------------------------------------------------------
# A fresh token before each authenticated run, so a long BENCH_DURATION cannot
# outlive the token.
run_load baseline --scenario baseline --connections "$CONNECTIONS"
run_load token --scenario token --connections "$CONNECTIONS" \
    --client-id "$CLIENT_ID" --client-secret "$CLIENT_SECRET"
TOKEN=$(new_token)
run_load get-application --scenario get-application --connections "$CONNECTIONS" \
    --token "$TOKEN" --app-id "$APP_ID"
TOKEN=$(new_token)
run_load create-application --scenario create-application --connections "$CONNECTIONS" \
    --token "$TOKEN"
TOKEN=$(new_token)
run_load list-events --scenario list-events --connections "$CONNECTIONS" --token "$TOKEN"
TOKEN=$(new_token)
run_load create-application-open --scenario create-application --connections "$CONNECTIONS" \
    --rate "$OPEN_RATE" --token "$TOKEN"

# --- partner ring (hub listener) ----------------------------------------------
# A platform-tier partner: the seed's tiers (10-100 req/s) would measure the
# rate limiter, not the service.
PARTNER_JSON=$(lendhub partner clients create --name bench --scopes "mcp.read ops.read" --tier platform)
PARTNER_ID=$(json_field client_id <<<"$PARTNER_JSON")
PARTNER_SECRET=$(json_field client_secret <<<"$PARTNER_JSON")
partner_token() {
    local body
    body=$(http 200 -u "$PARTNER_ID:$PARTNER_SECRET" -d grant_type=client_credentials "$HUB/partner/v1/oauth/token")
    json_field access_token <<<"$body"
}
run_load_hub() {
    local saved=$BASE
    BASE=$HUB
    run_load "$@"
    BASE=$saved
}
run_load_hub partner-token --scenario partner-token --connections "$CONNECTIONS" \
    --client-id "$PARTNER_ID" --client-secret "$PARTNER_SECRET"
PARTNER_TOKEN=$(partner_token)
run_load_hub introspect --scenario introspect --connections "$CONNECTIONS" \
    --client-id "$PARTNER_ID" --client-secret "$PARTNER_SECRET" --token "$PARTNER_TOKEN"
PARTNER_TOKEN=$(partner_token)
run_load_hub mcp-tools-list --scenario mcp-tools-list --connections "$CONNECTIONS" --token "$PARTNER_TOKEN"

# --- REST tier (hub listener) -----------------------------------------------------
# A live API key of a platform-tier partner, and a full events page: an
# endpoint nobody delivers to (it only wants payment.paid) is paused and
# resumed, one event each time.
REST_JSON=$(lendhub partner clients create --name bench-rest --scopes "events.read webhooks.manage" --tier platform)
REST_ID=$(json_field client_id <<<"$REST_JSON")
REST_KEY=$(lendhub partner api-keys create --client-id "$REST_ID" --environment live | json_field key)
REST_ENDPOINT=$(http 201 -H "Authorization: Bearer $REST_KEY" -H "Content-Type: application/json" \
    -d '{"url":"https://hooks.bench.example/quiet","enabled_events":["payment.paid"]}' \
    "$HUB/partner/v1/webhook_endpoints" | json_field id)
for i in $(seq 1 24); do
    paused=$([[ $((i % 2)) == 1 ]] && echo true || echo false)
    http 200 -H "Authorization: Bearer $REST_KEY" -H "Content-Type: application/json" \
        -d "{\"disabled\":$paused}" "$HUB/partner/v1/webhook_endpoints/$REST_ENDPOINT" >/dev/null
done
run_load_hub rest-list-events --scenario rest-list-events --connections "$CONNECTIONS" --token "$REST_KEY"
# Applications (issue #15): durable creates (unique keys) closed and open
# loop, then reads of one of them.
APPS_JSON=$(lendhub partner clients create --name bench-apps --scopes "applications.read applications.write" --tier platform)
APPS_KEY=$(lendhub partner api-keys create --client-id "$(json_field client_id <<<"$APPS_JSON")" --environment live | json_field key)
run_load_hub rest-create-application --scenario rest-create-application --connections "$CONNECTIONS" --token "$APPS_KEY"
run_load_hub rest-create-application-open --scenario rest-create-application --connections "$CONNECTIONS" \
    --rate "$OPEN_RATE" --token "$APPS_KEY"
REST_APP_ID=$(http 201 -H "Authorization: Bearer $APPS_KEY" -H "Content-Type: application/json" \
    -d '{"business":{"company_number":"00000401"},"amount_pence":1000000,"term_months":24,"applicant":{"email":"bench@example.test"}}' \
    "$HUB/partner/v1/applications" | json_field id)
run_load_hub rest-get-application --scenario rest-get-application --connections "$CONNECTIONS" \
    --token "$APPS_KEY" --app-id "$REST_APP_ID"

# --- public ring (hub listener, no credentials) --------------------------------
run_load_hub quote-onetime --scenario quote-onetime --connections "$CONNECTIONS"
run_load_hub public-mcp-get-quote --scenario public-mcp-get-quote --connections "$CONNECTIONS"
run_load_hub create-enquiry --scenario create-enquiry --connections "$CONNECTIONS"

# --- identity provider (sso listener) -------------------------------------------
# One person signs in and consents once (curl plays the browser); the load
# generator then reuses that session: each code comes from an unmeasured
# GET /authorize that answers at once, and only POST /token is measured.
SSO_REDIRECT=http://127.0.0.1:9/callback
SSO_PASSWORD="bench password 1"
printf '%s\n' "$SSO_PASSWORD" | lendhub sso users create --email bench@example.com --given-name Bench \
    --family-name Mark --company-number 01234567 --company-name "Bench Ltd" --company-role director >/dev/null
SSO_CLIENT_JSON=$(lendhub sso clients create --name bench --redirect-uri "$SSO_REDIRECT")
SSO_CLIENT_ID=$(json_field client_id <<<"$SSO_CLIENT_JSON")
SSO_CLIENT_SECRET=$(json_field client_secret <<<"$SSO_CLIENT_JSON")
JAR=$WORK/sso-cookies
# form_field NAME < html  — the value of a hidden form field.
form_field() { sed -n "s/.*name=\"$1\" value=\"\([^\"]*\)\".*/\1/p" | head -n1; }
# redirect_to curl-args...  — where the answer redirects to (cookies kept in $JAR).
redirect_to() { curl -sS --noproxy '*' --max-time 10 -o /dev/null -b "$JAR" -c "$JAR" -w '%{redirect_url}' "$@"; }
# Only consent is needed from this sign-in, so its code is never redeemed.
sso_challenge=$(python3 -c 'import base64, hashlib, os; print(base64.urlsafe_b64encode(hashlib.sha256(os.urandom(32)).digest()).rstrip(b"=").decode())')
sign_in_page=$(redirect_to "$SSO/authorize?response_type=code&client_id=$SSO_CLIENT_ID&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&scope=openid%20profile%20email%20business&state=s&code_challenge=$sso_challenge&code_challenge_method=S256")
page=$(curl -sS --noproxy '*' -b "$JAR" -c "$JAR" "$sign_in_page")
consent_page=$(redirect_to --data-urlencode "ticket=$(form_field ticket <<<"$page")" \
    --data-urlencode "csrf_token=$(form_field csrf_token <<<"$page")" \
    --data-urlencode "email=bench@example.com" --data-urlencode "password=$SSO_PASSWORD" "$SSO/sign-in")
page=$(curl -sS --noproxy '*' -b "$JAR" -c "$JAR" "$consent_page")
callback=$(redirect_to --data-urlencode "ticket=$(form_field ticket <<<"$page")" \
    --data-urlencode "csrf_token=$(form_field csrf_token <<<"$page")" --data-urlencode "decision=approve" "$SSO/consent")
[[ $callback == "$SSO_REDIRECT?code="* ]] || die "the benchmark sign-in did not complete (ended at: $callback)"
SSO_COOKIE=$(awk '$6 ~ /^lendhub_sso_/ { printf "%s%s=%s", sep, $6, $7; sep = "; " }' "$JAR")
run_load_sso() {
    local saved=$BASE
    BASE=$SSO
    run_load "$@" --client-id "$SSO_CLIENT_ID" --client-secret "$SSO_CLIENT_SECRET" \
        --cookie "$SSO_COOKIE" --redirect-uri "$SSO_REDIRECT"
    BASE=$saved
}
run_load_sso sso-code-exchange --scenario sso-code-exchange --connections "$CONNECTIONS"
run_load_sso sso-refresh --scenario sso-refresh --connections "$CONNECTIONS"
run_load_sso sso-userinfo --scenario sso-userinfo --connections "$CONNECTIONS"

# --- shutdown -----------------------------------------------------------------
log "stopping server with SIGTERM"
stop_server
log "server $SHUTDOWN"

# --- webhook deliveries -----------------------------------------------------------
# A backlog of signed deliveries drained to a local receiver that checks every
# signature and counts each event id: the server is stopped, $DELIVERIES
# events (each queued to one endpoint) are added to the database directly,
# the receiver starts, then the server, whose outbox worker delivers them.
RECEIVER_ADDR=127.0.0.1:18383
LENDHUB_DATA_DIR=$DATA LENDHUB_SANDBOX__ADDR=$ADDR LENDHUB_HUB__ADDR=$HUB_ADDR LENDHUB_OPS__ADDR=$OPS_ADDR LENDHUB_STATUS__ADDR=127.0.0.1:0 \
    LENDHUB_SSO__ADDR=$SSO_ADDR LENDHUB_WEBHOOKS__HTTPS_ONLY=false LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS=127.0.0.0/8 \
    "$LENDHUB" serve >"$WORK/server-deliveries.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 300); do
    if curl -fs --noproxy '*' --max-time 1 -o /dev/null "$BASE/livez"; then break; fi
    sleep 0.1
done
RECEIVER_CLIENT=$(lendhub sandbox clients create --name receiver --scopes "sandbox:read sandbox:write")
CLIENT_ID=$(json_field client_id <<<"$RECEIVER_CLIENT")
CLIENT_SECRET=$(json_field client_secret <<<"$RECEIVER_CLIENT")
TOKEN=$(new_token)
HOOK_JSON=$(http 201 -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
    -H "Idempotency-Key: bench-hook-$(date +%s%N)" \
    -d "{\"url\":\"http://$RECEIVER_ADDR/hook\",\"enabled_events\":[\"*\"]}" "$BASE/v1/webhook-endpoints")
HOOK_SECRET=$(json_field secret <<<"$HOOK_JSON")
stop_server
log "queueing $DELIVERIES deliveries"
"$BENCH" seed --database "$DATA/lendhub.db" --owner "$CLIENT_ID" --events "$DELIVERIES" >"$RESULTS/seed-deliveries.json"
"$BENCH" receive --listen "$RECEIVER_ADDR" --secret "$HOOK_SECRET" --expect "$DELIVERIES" --timeout 300 \
    >"$RESULTS/deliveries.json" &
RECEIVER_PID=$!
sleep 0.5
LENDHUB_DATA_DIR=$DATA LENDHUB_SANDBOX__ADDR=$ADDR LENDHUB_HUB__ADDR=$HUB_ADDR LENDHUB_OPS__ADDR=$OPS_ADDR LENDHUB_STATUS__ADDR=127.0.0.1:0 \
    LENDHUB_SSO__ADDR=$SSO_ADDR LENDHUB_WEBHOOKS__HTTPS_ONLY=false LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS=127.0.0.0/8 \
    "$LENDHUB" serve >>"$WORK/server-deliveries.log" 2>&1 &
SERVER_PID=$!
wait "$RECEIVER_PID" || log "warning: the receiver failed"
cat "$RESULTS/deliveries.json" >&2
DELIVERY_SHUTDOWN=$SHUTDOWN
stop_server
SHUTDOWN=$DELIVERY_SHUTDOWN

# The bare server again, alone, now that everything else has stopped: how far
# it moved from the first measurement says how steady the machine was, and
# so how far the ratios above can be trusted (the report flags a drift).
measure_bare bare-end

# --- report -------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
export RESULTS OUT COMMAND DURATION PAIR_DURATION CONNECTIONS OPEN_RATE WARMUP SEED_APPS IDLE_RSS_KB SHUTDOWN DELIVERIES
export BENCH_THREADS=${BENCH_THREADS:-}
python3 "$ROOT/bench/report.py"
log "wrote $OUT"
