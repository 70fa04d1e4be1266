#!/usr/bin/env bash
# Measures white-label decisions through the account-information path (issue
# #46) and writes docs/benchmarks-decisions.md: each decision creates an
# application, connects the applicant's bank at the model bank `serve`
# embeds (consent, authorisation, callback, the account read over UK Open
# Banking AIS), and submits it (register, bureau, engine, one commit). The
# bare reference server is measured in the same run; the cost of each hop
# lendhub makes to a counterparty is read from the server's own
# `counterparty_request_duration_seconds` before and after the run.
#
#   bench/decisions.sh
#   DECISIONS_WORKERS=16 BENCH_DURATION=20 bench/decisions.sh
#
# SQLite (the default backend), the test environment (`/sandbox/v1`). Knobs:
# DECISIONS_WORKERS [8], DECISIONS_PARTNERS [64] (each its own create
# sub-limit of 5 a second), BENCH_DURATION [10], BENCH_CONNECTIONS [64] (the
# bare run), BENCH_OUT [docs/benchmarks-decisions.md], BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
WORKERS=${DECISIONS_WORKERS:-8}
PARTNERS=${DECISIONS_PARTNERS:-64}
DURATION=${BENCH_DURATION:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-decisions.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
BARE=$TARGET_DIR/release/lendhub-bare
BARE_ADDR=127.0.0.1:18390
ADDR=127.0.0.1:18391
BASE=http://$ADDR
HUB_ADDR=127.0.0.1:18392
HUB_BASE=http://$HUB_ADDR
OPS_ADDR=127.0.0.1:18394

LOG_TAG=decisions
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release

WORK=$(mktemp -d -t lendhub-decisions.XXXXXX)
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

# --- lendhub, its model servers embedded ---------------------------------------
env LENDHUB_DATA_DIR="$DATA" LENDHUB_SANDBOX__ADDR=$ADDR LENDHUB_HUB__ADDR=$HUB_ADDR \
    LENDHUB_REST_TIER__ENABLED=true LENDHUB_OPS__ADDR=$OPS_ADDR \
    LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 \
    "$LENDHUB" serve >>"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_until_up "$BASE" "$SERVER_PID"

log "$PARTNERS partners"
for i in $(seq 1 "$PARTNERS"); do
    id=$(env LENDHUB_DATA_DIR="$DATA" "$LENDHUB" partner clients create --name "bench-$i" --tier platform \
        --scopes "applications.read applications.write" 2>/dev/null | json_field client_id)
    env LENDHUB_DATA_DIR="$DATA" "$LENDHUB" partner api-keys create --client-id "$id" --environment test \
        2>/dev/null | json_field key >>"$WORK/keys"
done

log "decisions: $WORKERS applicants for ${DURATION} s"
"$BENCH" decide --hub "$HUB_BASE" --keys-file "$WORK/keys" --workers "$WORKERS" \
    --duration "$DURATION" --warmup 2 --metrics "http://$OPS_ADDR/metrics" --metrics-out "$RESULTS" \
    >"$RESULTS/decide.json"
log "$(cat "$RESULTS/decide.json")"

log "the decision engine alone, in the process"
"$BENCH" score >"$RESULTS/score.json"
log "$(cat "$RESULTS/score.json")"

COMMAND="bench/decisions.sh"
for var in DECISIONS_WORKERS DECISIONS_PARTNERS BENCH_DURATION BENCH_CONNECTIONS; do
    if [[ -n ${!var+set} ]]; then COMMAND="$var=${!var} $COMMAND"; fi
done
export RESULTS OUT COMMAND DURATION WORKERS PARTNERS
python3 "$ROOT/bench/report_decisions.py"
log "wrote $OUT"
