#!/usr/bin/env bash
# Measures servicing (issue #16) and writes docs/benchmarks-servicing.md:
#
# - GET /partner/v1/accounts/{id}/transactions, first page and a page from
#   the middle of the ledger, with one account's ledger at each size
#   (target: within 20 % of the 10 k figure at 1 M);
# - POST /partner/v1/payments/links, durable (target: 2,000/s);
# - the scheduler: 10,000 schedules due at once, under VRP consents the
#   embedded model bank holds, from the server's start to every instalment
#   initiated at the payer's bank (`processing`) over the VRP API
#   (target: 10 s).
#
#   bench/servicing.sh
#   SERVICING_SIZES="10000 1000000" SERVICING_SCHEDULES=10000 bench/servicing.sh
#
# SQLite (the default backend). Knobs: SERVICING_SIZES, SERVICING_SCHEDULES,
# BENCH_DURATION [6], BENCH_CONNECTIONS [64], BENCH_OUT
# [docs/benchmarks-servicing.md], BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
SIZES=${SERVICING_SIZES-10000 1000000}
SCHEDULES=${SERVICING_SCHEDULES:-10000}
DURATION=${BENCH_DURATION:-6}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-servicing.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
ADDR=127.0.0.1:18191
BASE=http://$ADDR
HUB_ADDR=127.0.0.1:18192
HUB_BASE=http://$HUB_ADDR

LOG_TAG=servicing
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release

WORK=$(mktemp -d -t lendhub-servicing.XXXXXX)
RESULTS=$WORK/results
mkdir -p "$RESULTS"
SERVER_PID=

cleanup() {
    if [[ -n $SERVER_PID ]]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

cli() { env LENDHUB_DATA_DIR="$DATA" "$LENDHUB" "$@" 2>/dev/null; }

# partner NAME — a platform-tier partner (no sub-limits) and its live key:
# "client_id key".
partner() {
    local id key
    id=$(cli partner clients create --name "$1" --tier platform \
        --scopes "accounts.read payments.read payments.write" | json_field client_id)
    key=$(cli partner api-keys create --client-id "$id" --environment live | json_field key)
    echo "$id $key"
}

run_hub() {
    local name=$1
    shift
    log "$name"
    "$BENCH" --url "$HUB_BASE" --duration "$DURATION" --warmup 1 --connections "$CONNECTIONS" "$@" \
        >"$RESULTS/$name.json" || echo '{}' >"$RESULTS/$name.json"
}

# --- the ledger at each size, and payment links ----------------------------------
for rows in $SIZES; do
    DATA=$WORK/ledger-$rows
    mkdir -p "$DATA"
    serve "$DATA"
    read -r PARTNER KEY <<<"$(partner "ledger-$rows")"
    stop
    log "ledger-$rows: seeding"
    SEEDED=$("$BENCH" seed-servicing --database "$DATA/lendhub.db" --partner "$PARTNER" --ledger-entries "$rows")
    log "ledger-$rows: $SEEDED"
    echo "$SEEDED" >"$RESULTS/ledger-$rows.seed.json"
    ACCOUNT=$(json_field account_id <<<"$SEEDED")
    MIDDLE=$(json_field middle_entry_id <<<"$SEEDED")
    serve "$DATA"
    run_hub "ledger-$rows.first-page" --scenario rest-account-transactions --token "$KEY" --account-id "$ACCOUNT"
    run_hub "ledger-$rows.deep-page" --scenario rest-account-transactions --token "$KEY" \
        --account-id "$ACCOUNT" --cursor "$MIDDLE"
    if [[ $rows == "${SIZES%% *}" ]]; then
        run_hub links --scenario rest-create-payment-link --token "$KEY" --account-id "$ACCOUNT"
        log baseline
        "$BENCH" --url "$BASE" --duration "$DURATION" --warmup 1 --connections "$CONNECTIONS" \
            --scenario baseline >"$RESULTS/baseline.json" || echo '{}' >"$RESULTS/baseline.json"
    fi
    stop
    rm -rf "$DATA"
done

# --- the scheduler ---------------------------------------------------------------
DATA=$WORK/schedules
mkdir -p "$DATA"
serve "$DATA"
read -r PARTNER KEY <<<"$(partner schedules)"
stop
log "schedules: seeding $SCHEDULES"
"$BENCH" seed-servicing --database "$DATA/lendhub.db" --partner "$PARTNER" --schedules "$SCHEDULES" \
    >"$RESULTS/schedules.seed.json"
count() { sqlite3 "file:$DATA/lendhub.db?mode=ro" "SELECT count(*) FROM hub_payments WHERE status $1"; }
STARTED=$(date +%s.%N)
CPU=0
serve "$DATA"
UP=$(date +%s.%N)
INITIATED_AT=
for _ in $(seq 1 1200); do
    created=$(count "IS NOT NULL" 2>/dev/null || echo 0)
    moving=$(count "IN ('processing', 'paid')" 2>/dev/null || echo 0)
    if [[ -z $INITIATED_AT && $moving -ge $SCHEDULES ]]; then
        INITIATED_AT=$(date +%s.%N)
        # user + system time of the server (and the model bank inside it).
        CPU=$(awk -v tck="$(getconf CLK_TCK)" '{print ($14 + $15) / tck}' "/proc/$SERVER_PID/stat")
        break
    fi
    sleep 0.1
done
stop
python3 - "$STARTED" "$UP" "${INITIATED_AT:-0}" "$SCHEDULES" "$created" "$moving" "$CPU" >"$RESULTS/scheduler.json" <<'PY'
import json, sys
started, up, done, schedules, created, moving, cpu = sys.argv[1:]
started, up, done = float(started), float(up), float(done)
print(json.dumps({
    "schedules": int(schedules),
    "created": int(created),
    "initiated": int(moving),
    "start_up_seconds": up - started,
    "seconds_from_start": (done - started) if done else None,
    "cpu_seconds": float(cpu),
}))
PY
log "scheduler: $(cat "$RESULTS/scheduler.json")"

COMMAND="bench/servicing.sh"
for var in SERVICING_SIZES SERVICING_SCHEDULES BENCH_DURATION BENCH_CONNECTIONS; do
    if [[ -n ${!var+set} ]]; then COMMAND="$var=\"${!var}\" $COMMAND"; fi
done
export RESULTS OUT COMMAND DURATION CONNECTIONS SIZES
python3 "$ROOT/bench/report_servicing.py"
log "wrote $OUT"
