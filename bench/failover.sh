#!/usr/bin/env bash
# What synchronous replication costs: durable application creation through
# one lendhub instance on a pg_auto_failover primary whose standby is
# synchronous (every commit waits for it), then asynchronous, in one run on
# one machine. Prints a Markdown table for docs/guide/src/deployment.md.
#
#   bench/failover.sh                    # 10 s per scenario
#   BENCH_DURATION=30 bench/failover.sh
#
# Knobs: BENCH_CONNECTIONS [64], BENCH_DURATION [10], BENCH_WARMUP [1],
# BENCH_SKIP_BUILD (set: use the release binaries as they are).
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
DURATION=${BENCH_DURATION:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
WARMUP=${BENCH_WARMUP:-1}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
LOG_TAG=bench-failover
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release


WORK=$(mktemp -d /tmp/lendhub-bench-failover.XXXXXX)
# The cluster runs as `postgres` when we are root: it must reach its directory.
chmod 755 "$WORK"
CLUSTER=$WORK/cluster
SERVER=
cleanup() {
    [[ -n "$SERVER" ]] && kill -TERM "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
    bash scripts/pg-failover.sh down "$CLUSTER" || true
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=$(bash scripts/pg-failover.sh up "$CLUSTER" "$PORT")
log "cluster at $URL"
mkdir -p "$WORK/data"
LENDHUB_DATABASE_URL=$URL LENDHUB_DATA_DIR=$WORK/data LENDHUB_SANDBOX__ADDR=127.0.0.1:18281 \
    LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_HUB__ADDR=127.0.0.1:0 \
    LENDHUB_SSO__ADDR=127.0.0.1:0 LENDHUB_LOG=warn "$LENDHUB" serve >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do
    curl -fs --noproxy '*' -o /dev/null http://127.0.0.1:18281/livez && break
    sleep 0.1
done
ID=$(grep -m1 client_id "$WORK/server.log" | awk '{print $2}')
SECRET=$(grep -m1 client_secret "$WORK/server.log" | awk '{print $2}')
TOKEN=$(curl -fsS -u "$ID:$SECRET" -d grant_type=client_credentials http://127.0.0.1:18281/oauth/token |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')

measure() {
    "$BENCH" --url http://127.0.0.1:18281 --duration "$DURATION" --warmup "$WARMUP" \
        --connections "$CONNECTIONS" --scenario create-application --token "$TOKEN"
}
bash scripts/pg-failover.sh replication "$CLUSTER" sync
log "synchronous standby"
SYNC=$(measure)
bash scripts/pg-failover.sh replication "$CLUSTER" async
log "asynchronous standby"
ASYNC=$(measure)

python3 - "$SYNC" "$ASYNC" "$DURATION" "$CONNECTIONS" <<'PY'
import json, sys
sync, async_, duration, connections = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
def row(name, r):
    return f"| {name} | {r['throughput_rps']:,.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} |"
print(f"Durable `POST /v1/applications` through one instance, {connections} connections, {duration} s closed loop (`bench/failover.sh`):\n")
print("| Standby | Creations/s | p50 ms | p99 ms | Errors |")
print("|---|---|---|---|---|")
print(row("synchronous (commit waits for it)", sync))
print(row("asynchronous", async_))
print(f"\nSynchronous replication costs {100 * (1 - sync['throughput_rps'] / async_['throughput_rps']):.0f} % of the throughput here.")
PY
