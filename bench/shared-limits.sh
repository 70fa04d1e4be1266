#!/usr/bin/env bash
# What keeping the rate limits in a shared Valkey/Redis costs a partner
# request (issue #19): MCP `tools/list` with a partner token, through one
# instance, its limits kept in its own memory and then in the server
# (`limits.shared_url`), measured in one run; the bare reference server
# first. Prints a Markdown table.
#
#   bench/shared-limits.sh              # 10 s per scenario
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
LOG_TAG=bench-shared-limits
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release
BARE=$TARGET_DIR/release/lendhub-bare


WORK=$(mktemp -d /tmp/lendhub-bench-limits.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

REDIS_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)

"$BARE" 127.0.0.1:18390 >"$WORK/bare.log" 2>&1 &
PIDS+=($!)
sleep 0.5
log "bare reference server"
BARE_JSON=$("$BENCH" --url http://127.0.0.1:18390 --duration "$DURATION" --warmup "$WARMUP" \
    --connections "$CONNECTIONS" --scenario baseline)

# measure NAME [ENV…]: a fresh instance with ENV, a platform-tier partner
# (limits high enough never to refuse), tools/list for DURATION seconds.
measure() {
    local name=$1
    shift
    local data=$WORK/$name
    mkdir -p "$data"
    env "$@" LENDHUB_DATA_DIR="$data" LENDHUB_SANDBOX__ADDR=127.0.0.1:0 LENDHUB_HUB__ADDR=127.0.0.1:18391 \
        LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 \
        LENDHUB_LOG=warn "$LENDHUB" serve >"$data/server.log" 2>&1 &
    local pid=$!
    for _ in $(seq 1 100); do
        curl -fs --noproxy '*' -o /dev/null http://127.0.0.1:18391/partner/v1/oauth/jwks && break
        sleep 0.1
    done
    local created id secret token
    created=$(env "$@" LENDHUB_DATA_DIR="$data" "$LENDHUB" partner clients create --name bench --scopes mcp.read --tier platform)
    id=$(json_field client_id <<<"$created")
    secret=$(json_field client_secret <<<"$created")
    token=$(curl -fsS --noproxy '*' -u "$id:$secret" -d grant_type=client_credentials \
        http://127.0.0.1:18391/partner/v1/oauth/token | json_field access_token)
    log "$name"
    "$BENCH" --url http://127.0.0.1:18391 --duration "$DURATION" --warmup "$WARMUP" \
        --connections "$CONNECTIONS" --scenario mcp-tools-list --token "$token"
    kill -TERM "$pid"
    wait "$pid" || true
}
LOCAL_JSON=$(measure local)
SHARED_JSON=$(measure shared LENDHUB_LIMITS__SHARED_URL="redis://127.0.0.1:$REDIS_PORT/")

python3 - "$BARE_JSON" "$LOCAL_JSON" "$SHARED_JSON" "$DURATION" "$CONNECTIONS" <<'PY'
import json, sys
bare, local, shared = (json.loads(a) for a in sys.argv[1:4])
duration, connections = sys.argv[4], sys.argv[5]
print(f"MCP `tools/list` with a partner token, one instance, {connections} connections, {duration} s closed loop (`bench/shared-limits.sh`):\n")
print("| Limits kept | req/s | vs bare | p50 ms | p99 ms | errors |")
print("|---|---|---|---|---|---|")
for name, r in [("bare axum server (reference)", bare), ("in the instance", local), ("in Redis (`limits.shared_url`)", shared)]:
    print(f"| {name} | {r['throughput_rps']:,.0f} | {r['throughput_rps'] / bare['throughput_rps']:.2f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['errors']} |")
PY
