#!/usr/bin/env bash
# Measures closing a month's statements (issue #17) and writes
# docs/benchmarks-billing.md: `lendhub billing close` of a month in which
# one partner funded BILLING_LOANS loans (target: 100,000 in at most 10 s
# on SQLite), once on the integration fee and once on the revenue share
# (each a partner of its own), then the same month closed again.
#
#   bench/billing.sh
#   BILLING_LOANS=100000 bench/billing.sh
#
# SQLite (the default backend). Knobs: BILLING_LOANS, BENCH_OUT
# [docs/benchmarks-billing.md], BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
LOANS=${BILLING_LOANS:-100000}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-billing.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
# A month already over, so the close finalizes it.
MONTH=2026-10
ADDR=127.0.0.1:18291
BASE=http://$ADDR
HUB_ADDR=127.0.0.1:18292

LOG_TAG=billing
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release

WORK=$(mktemp -d -t lendhub-billing.XXXXXX)
trap '[[ -n ${SERVER_PID:-} ]] && kill -TERM "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
DATA=$WORK/data
mkdir -p "$DATA"
cli() { env LENDHUB_DATA_DIR="$DATA" "$LENDHUB" "$@" 2>/dev/null; }

# The first start makes the database and the master key.
SERVER_PID=
serve "$DATA"
stop
DB=$DATA/lendhub.db

partner() {
    cli partner clients create --name "$1" --tier platform --scopes "billing.read" | json_field client_id
}
FEE=$(partner fee)
SHARE=$(partner share)
cli billing terms set "$SHARE" --model revenue-share >/dev/null

seconds() { python3 -c 'import sys,time; print(f"{time.time():.3f}")'; }
for client in "$FEE" "$SHARE"; do
    log "seeding $LOANS loans for $client"
    "$BENCH" seed-servicing --database "$DB" --partner "$client" --loans "$LOANS" \
        --month "$MONTH" >/dev/null
done
log "closing $MONTH"
start=$(seconds)
cli billing close --period "$MONTH" >"$WORK/close.jsonl"
end=$(seconds)
FIRST=$(python3 -c "print(f'{$end - $start:.2f}')")
start=$(seconds)
cli billing close --period "$MONTH" >"$WORK/again.jsonl"
end=$(seconds)
SECOND=$(python3 -c "print(f'{$end - $start:.2f}')")

python3 - "$WORK/close.jsonl" "$WORK/again.jsonl" "$OUT" "$LOANS" "$FIRST" "$SECOND" \
    "$(git rev-parse --short HEAD)" "$(nproc)" <<'PY'
import json, sys
close, again, out, loans, first, second, rev, cores = sys.argv[1:]
first_lines = [json.loads(l) for l in open(close)]
again_lines = [json.loads(l) for l in open(again)]
rows = "\n".join(
    f"| {l['partner']['client_id']} | {l['result']} | {l['status']} | {l['payable_pence']:,} | {a['result']} |"
    for l, a in zip(first_lines, again_lines))
total = float(first)
verdict = "met" if total <= 10.0 else "NOT met"
open(out, "w").write(f"""# Closing a month (issue #17)

`bench/billing.sh` on {rev}, SQLite, {cores} cores: two partners of the live
environment, each with {int(loans):,} loans funded in 2026-10 (one on the
integration fee, one on the revenue share), seeded through the store
(`lendhub-bench seed-servicing --loans`), then `lendhub billing close
--period 2026-10` run twice as a separate process, as an operator would.

| | seconds |
|---|---|
| first close (both partners: read every account, compute, write and finalize) | {first} |
| second close (the finalized statements recomputed and compared) | {second} |

Target: a month of 100,000 funded loans closed in at most 10 s on SQLite.
This run closed {2 * int(loans):,} loans (two partners) in {first} s: **{verdict}**
for each partner's {int(loans):,}.

| partner | first close | status | payable (pence) | second close |
|---|---|---|---|---|
{rows}

Regenerate with `bench/billing.sh` (knobs: `BILLING_LOANS`, `BENCH_OUT`).
""")
print(open(out).read())
PY
