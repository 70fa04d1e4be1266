#!/usr/bin/env bash
# Measures the double-entry ledger's trial balance at size (issue #47) and
# writes docs/benchmarks-ledger.md: for each size in LEDGER_SIZES, a fresh
# SQLite database seeded with that many postings (`lendhub-bench
# seed-servicing --postings`: the lender's capital, then interest and fees
# on size/1,000 loans), then `lendhub ledger trial-balance --json` now
# (read from the running totals every transfer keeps) and `--as-of` a day
# six months back (summed from the postings before it), each the median of
# LEDGER_RUNS runs of the CLI, process start included.
#
#   bench/ledger.sh
#   LEDGER_SIZES="10000 1000000" bench/ledger.sh
#
# Knobs: LEDGER_SIZES ["10000 1000000 10000000"], LEDGER_RUNS [5],
# BENCH_OUT [docs/benchmarks-ledger.md], BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
SIZES=${LEDGER_SIZES-10000 1000000 10000000}
RUNS=${LEDGER_RUNS:-5}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-ledger.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
ADDR=127.0.0.1:18591
BASE=http://$ADDR
HUB_ADDR=127.0.0.1:18592

LOG_TAG=ledger
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release

WORK=$(mktemp -d -t lendhub-ledger.XXXXXX)
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

# median_ms RUNS COMMAND… — the median wall time of RUNS runs, in ms.
median_ms() {
    local runs=$1
    shift
    local times=()
    for _ in $(seq 1 "$runs"); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null
        end=$(date +%s%N)
        times+=($(((end - start) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

AS_OF=$(date -u -d '-182 days' +%F)
for size in $SIZES; do
    DATA=$WORK/data-$size
    mkdir -p "$DATA"
    serve "$DATA" # makes the database and its master key
    stop
    log "seeding $size postings"
    "$BENCH" seed-servicing --database "$DATA/lendhub.db" --partner bench \
        --postings "$size" >"$RESULTS/seed-$size.json"
    trial() { env LENDHUB_DATA_DIR="$DATA" "$LENDHUB" ledger trial-balance --json "$@" 2>/dev/null; }
    trial >"$RESULTS/trial-$size.json"
    now=$(median_ms "$RUNS" trial)
    then=$(median_ms "$RUNS" trial --as-of "$AS_OF")
    bytes=$(stat -c %s "$DATA/lendhub.db")
    log "$size postings: now $now ms, as of $AS_OF $then ms"
    printf '{"size": %s, "now_ms": %s, "as_of_ms": %s, "db_bytes": %s}\n' \
        "$size" "$now" "$then" "$bytes" >"$RESULTS/run-$size.json"
    rm -rf "$DATA"
done

COMMAND="bench/ledger.sh"
for var in LEDGER_SIZES LEDGER_RUNS; do
    if [[ -n ${!var+set} ]]; then COMMAND="$var=\"${!var}\" $COMMAND"; fi
done
export RESULTS OUT COMMAND AS_OF RUNS
python3 "$ROOT/bench/report_ledger.py"
log "wrote $OUT"
