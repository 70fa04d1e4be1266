#!/usr/bin/env bash
# Memory under sustained mixed load: runs several scenarios at once against
# one server for BENCH_SOAK_SECONDS (default 600) and samples the server's
# RSS every 10 s. Writes docs/benchmarks-soak.md.
#
#   bench/soak.sh
#   BENCH_SOAK_SECONDS=120 bench/soak.sh     # a shorter look
#
# Knobs: BENCH_SOAK_SECONDS [600], BENCH_OUT [docs/benchmarks-soak.md],
# BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
SECONDS_TOTAL=${BENCH_SOAK_SECONDS:-600}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-soak.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
ADDR=127.0.0.1:18281
HUB_ADDR=127.0.0.1:18280
BASE=http://$ADDR
HUB=http://$HUB_ADDR

LOG_TAG=soak
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release

WORK=$(mktemp -d -t lendhub-soak.XXXXXX)
DATA=$WORK/data
mkdir -p "$DATA" "$WORK/results"
SERVER_PID=
LOADS=()
cleanup() {
    for pid in "${LOADS[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [[ -n $SERVER_PID ]]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

export LENDHUB_DATA_DIR=$DATA LENDHUB_SANDBOX__ADDR=$ADDR LENDHUB_HUB__ADDR=$HUB_ADDR \
    LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 \
    LENDHUB_PUBLIC__RATE_LIMIT_REQUESTS=1000000000

"$LENDHUB" serve >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_until_up "$BASE" "$SERVER_PID"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status"; }
# Anonymous memory (the heap) and file pages mapped from the database.
rss_parts() { awk '/^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 } END { printf "%s\t%s", a, f }' "/proc/$SERVER_PID/status"; }

client=$("$LENDHUB" sandbox clients create --name soak --scopes "sandbox:read sandbox:write" 2>/dev/null)
client_id=$(json_field client_id <<<"$client")
client_secret=$(json_field client_secret <<<"$client")
token=$(curl -fsS --noproxy '*' -u "$client_id:$client_secret" -d grant_type=client_credentials \
    "$BASE/oauth/token" | json_field access_token)
app_id=$(curl -fsS --noproxy '*' -H "Authorization: Bearer $token" -H "Content-Type: application/json" \
    -H "Idempotency-Key: soak-setup-$(date +%s%N)" \
    -d '{"business":{"company_number":"12345678"},"amount_pence":500000}' "$BASE/v1/applications" |
    json_field id)
partner=$("$LENDHUB" partner clients create --name soak --scopes "mcp.read" --tier platform 2>/dev/null)
partner_id=$(json_field client_id <<<"$partner")
partner_secret=$(json_field client_secret <<<"$partner")
IDLE_RSS_KB=$(rss)
log "idle RSS ${IDLE_RSS_KB} kB; mixed load for ${SECONDS_TOTAL} s"

# One generator per scenario, all at once; a token lasts an hour, so one is enough.
load() {
    local name=$1 url=$2
    shift 2
    "$BENCH" --url "$url" --duration "$SECONDS_TOTAL" --threads 1 "$@" \
        >"$WORK/results/$name.json" 2>"$WORK/results/$name.err" &
    LOADS+=($!)
}
load create-application "$BASE" --scenario create-application --connections 8 --token "$token"
load get-application "$BASE" --scenario get-application --connections 8 --token "$token" --app-id "$app_id"
load list-events "$BASE" --scenario list-events --connections 8 --token "$token"
load token "$BASE" --scenario token --connections 4 --client-id "$client_id" --client-secret "$client_secret"
load partner-token "$HUB" --scenario partner-token --connections 4 --client-id "$partner_id" --client-secret "$partner_secret"
load quote-onetime "$HUB" --scenario quote-onetime --connections 8

SAMPLES=$WORK/results/rss.tsv
started=$(date +%s)
while :; do
    elapsed=$(($(date +%s) - started))
    printf '%s\t%s\t%s\n' "$elapsed" "$(rss)" "$(rss_parts)" >>"$SAMPLES"
    ((elapsed >= SECONDS_TOTAL)) && break
    sleep 10
done
for pid in "${LOADS[@]}"; do wait "$pid" || true; done
LOADS=()
AFTER_KB=$(rss)
DB_BYTES=$(du -sb "$DATA" | cut -f1)
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || true
SERVER_PID=

export RESULTS=$WORK/results OUT SECONDS_TOTAL IDLE_RSS_KB AFTER_KB DB_BYTES
export COMMAND="bench/soak.sh${BENCH_SOAK_SECONDS:+ (BENCH_SOAK_SECONDS=$BENCH_SOAK_SECONDS)}"
python3 "$ROOT/bench/report_soak.py"
log "wrote $OUT"
