#!/usr/bin/env bash
# Measures disbursements through the outbox (issue #47) and writes
# docs/benchmarks-disbursement.md: DISBURSEMENT_LOANS signed loans whose
# payouts are due (seeded as signing commits them), then a server whose
# sweep claims each (a commit that holds the drawdown pending), sends it to
# the embedded model bank's rail (`POST /v3/payments/fps`, signed), and
# books it when the bank's signed `TransactionSettled` webhook arrives
# (application funded, account opened, drawdown posted, three events, the
# signed answer): end to end, as in production but with the bank on
# loopback. Done when the ledger's funding account shows every payout
# posted. The bare reference server is measured in the same run.
#
#   bench/disbursement.sh
#   DISBURSEMENT_LOANS=5000 bench/disbursement.sh
#
# SQLite. Knobs: DISBURSEMENT_LOANS [2000], BENCH_CONNECTIONS [32] and
# BENCH_DURATION [6] (the bare run), BENCH_OUT
# [docs/benchmarks-disbursement.md], BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
LOANS=${DISBURSEMENT_LOANS:-2000}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
DURATION=${BENCH_DURATION:-6}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-disbursement.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
BARE=$TARGET_DIR/release/lendhub-bare
BARE_ADDR=127.0.0.1:18690
ADDR=127.0.0.1:18691
BASE=http://$ADDR
HUB_ADDR=127.0.0.1:18692

LOG_TAG=disbursement
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release
[[ -n ${BENCH_SKIP_BUILD:-} ]] || cargo build --release -p lendhub-bench --bin lendhub-bare

WORK=$(mktemp -d -t lendhub-disbursement.XXXXXX)
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

bare_baseline "$BARE_ADDR" "$RESULTS/bare.json"
bare_rps=$(json_field throughput_rps <"$RESULTS/bare.json" | python3 -c "import sys; print(f\"{float(sys.stdin.read()):,.0f}\")")

serve "$DATA" # makes the database and its master key
stop
log "seeding $LOANS signed loans whose payouts are due"
"$BENCH" seed-servicing --database "$DATA/lendhub.db" --partner bench --due "$LOANS" \
    >"$RESULTS/seed.json"

# posted — pence the ledger shows paid out of the funding account.
posted() {
    env LENDHUB_DATA_DIR="$DATA" "$LENDHUB" ledger trial-balance --json 2>/dev/null |
        python3 -c 'import json, sys
t = json.load(sys.stdin)
print(next((a["credits_pence"] for a in t["accounts"] if a["account"] == "lender:funding"), 0))'
}

want=$((LOANS * 1000000))
start=$(date +%s%N)
serve "$DATA"
up=$(date +%s%N)
while :; do
    got=$(posted)
    [[ $got -ge $want ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || die "the server exited"
    (($(date +%s%N) - start < 600000000000)) || die "not every payout was booked within 10 minutes ($got of $want pence)"
    sleep 0.2
done
done_at=$(date +%s%N)
stop
seconds=$(python3 -c "print(round(($done_at - $up) / 1e9, 2))")
rate=$(python3 -c "print(round($LOANS / (($done_at - $up) / 1e9), 1))")
startup=$(python3 -c "print(round(($up - $start) / 1e9, 2))")
log "$LOANS disbursements booked in $seconds s after start-up ($startup s): $rate a second"

COMMAND="bench/disbursement.sh"
[[ -z ${DISBURSEMENT_LOANS+set} ]] || COMMAND="DISBURSEMENT_LOANS=$LOANS $COMMAND"
cat >"$OUT" <<DOC
# Disbursements through the outbox

Measured by \`$COMMAND\` on $(date -u +%F) ($(nproc) cores, SQLite, the
shipped release profile): $LOANS signed loans whose payouts were due, then
a server whose sweep claims each payout (its own commit, holding the
drawdown pending in the ledger), sends it over the payout rail to the
embedded model bank (\`POST /v3/payments/fps\`, RSA-signed, on loopback) and
books it when the bank's signed \`TransactionSettled\` webhook arrives
(application funded, account opened, drawdown posted, three events, lendhub's
signed answer). Timed from the server answering \`/livez\` until the ledger's
funding account shows every payout posted (polled with
\`lendhub ledger trial-balance --json\` every 0.2 s).

| | |
|---|---|
| loans | $LOANS |
| all booked after start-up | $seconds s |
| **disbursements a second, end to end** | **$rate** |
| start-up (not counted) | $startup s |
| bare hyper/axum server, same run (requests a second, $CONNECTIONS connections) | $bare_rps |

Each payout costs three RSA signatures (lendhub's request, the bank's
webhook, lendhub's answer) and three durable commits (the claim, the
booking with its events, the webhook's answer recorded), and the model bank
runs in the same process, on the same two cores. This run did not profile
which of them bounds the rate. A loan funds minutes after signing, so the
figure bounds how many loans one instance funds in a burst, not a
borrower's wait; several instances share the sweep.
DOC
log "wrote $OUT"
