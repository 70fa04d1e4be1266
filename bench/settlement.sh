#!/usr/bin/env bash
# Measures the payout rail's settlement webhooks (issue #47) and writes
# docs/benchmarks-settlement.md: SETTLEMENT_PAYOUTS signed loans whose
# payouts are with the rail (seeded as the first claim commits them), then
# one `TransactionSettled` webhook each, signed with the model bank's key,
# posted to `/payout-rail/events/live` over BENCH_CONNECTIONS connections.
# Each counts once lendhub answered 200 with its nonce, signed: the loan
# booked (application funded, account opened, drawdown posted, three
# events) in one durable commit. The bare reference server is measured in
# the same run. Target (the issue): 5,000 webhooks/s on SQLite.
#
#   bench/settlement.sh
#   SETTLEMENT_PAYOUTS=20000 BENCH_CONNECTIONS=64 bench/settlement.sh
#
# SQLite. Knobs: SETTLEMENT_PAYOUTS [10000], BENCH_CONNECTIONS [32],
# BENCH_DURATION [6] (the bare run), BENCH_OUT
# [docs/benchmarks-settlement.md], BENCH_SKIP_BUILD=1, BENCH_PERF=FILE.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
PAYOUTS=${SETTLEMENT_PAYOUTS:-10000}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
DURATION=${BENCH_DURATION:-6}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-settlement.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
BARE=$TARGET_DIR/release/lendhub-bare
BARE_ADDR=127.0.0.1:18490
ADDR=127.0.0.1:18491
BASE=http://$ADDR
HUB_ADDR=127.0.0.1:18492
HUB_BASE=http://$HUB_ADDR

LOG_TAG=settlement
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release
[[ -n ${BENCH_SKIP_BUILD:-} ]] || cargo build --release -p lendhub-bench --bin lendhub-bare

WORK=$(mktemp -d -t lendhub-settlement.XXXXXX)
RESULTS=$WORK/results
DATA=$WORK/data
mkdir -p "$RESULTS" "$DATA"
SERVER_PID=
BARE_PID=

cleanup() {
    for pid in $SERVER_PID $BARE_PID; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

# --- the bare server, in the same run ------------------------------------------
bare_baseline "$BARE_ADDR" "$RESULTS/bare.json"

# --- the payouts with the rail ---------------------------------------------------
cli() { env LENDHUB_DATA_DIR="$DATA" "$LENDHUB" "$@" 2>/dev/null; }
serve "$DATA" # makes the database and its master key
stop
PARTNER=$(cli partner clients create --name bench --tier platform \
    --scopes "applications.read" | json_field client_id)
log "seeding $PAYOUTS payouts with the rail"
"$BENCH" seed-servicing --database "$DATA/lendhub.db" --partner "$PARTNER" \
    --sending "$PAYOUTS" --ids-out "$WORK/ids" >"$RESULTS/seed.json"

# --- their settlement webhooks -----------------------------------------------------
serve "$DATA"
# BENCH_PERF=FILE: the server's profile while it settles (`perf report -i FILE`).
PERF_PID=
if [[ -n ${BENCH_PERF:-} ]]; then
    perf record -F 499 -g -p "$SERVER_PID" -o "$BENCH_PERF" 2>/dev/null &
    PERF_PID=$!
fi
log "settling: $PAYOUTS webhooks over $CONNECTIONS connections"
"$BENCH" settle --hub "$HUB_BASE" --environment live --ids "$WORK/ids" \
    --connections "$CONNECTIONS" >"$RESULTS/settle.json"
log "$(cat "$RESULTS/settle.json")"
if [[ -n $PERF_PID ]]; then
    kill -INT "$PERF_PID"
    wait "$PERF_PID" || true
fi
stop
cli ledger trial-balance --json >"$RESULTS/trial.json"

COMMAND="bench/settlement.sh"
for var in SETTLEMENT_PAYOUTS BENCH_CONNECTIONS BENCH_DURATION; do
    if [[ -n ${!var+set} ]]; then COMMAND="$var=${!var} $COMMAND"; fi
done
export RESULTS OUT COMMAND PAYOUTS CONNECTIONS
python3 "$ROOT/bench/report_settlement.py"
log "wrote $OUT"
