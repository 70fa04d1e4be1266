#!/usr/bin/env bash
# Benchmarks lendhub on PostgreSQL, one instance against two instances on the
# same database, and writes the PostgreSQL section of docs/benchmarks.md
# (bench/run.sh writes the rest and keeps this section).
#
#   bench/postgres.sh                      # 10 s per scenario
#   BENCH_DURATION=30 bench/postgres.sh
#
# Knobs (defaults in brackets): BENCH_CONNECTIONS [64], BENCH_OPEN_RATE [1000],
# BENCH_WARMUP [1], BENCH_DURATION [10], BENCH_OUT [docs/benchmarks.md].
# The cluster is a throwaway one on loopback (scripts/pg-cluster.sh) with
# PostgreSQL's durable defaults: fsync on, synchronous_commit on.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
DURATION=${BENCH_DURATION:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
OPEN_RATE=${BENCH_OPEN_RATE:-1000}
WARMUP=${BENCH_WARMUP:-1}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench

COMMAND="bench/postgres.sh"
for var in BENCH_OPEN_RATE BENCH_CONNECTIONS BENCH_WARMUP BENCH_DURATION; do
    if [[ -n ${!var:-} ]]; then COMMAND="$var=${!var} $COMMAND"; fi
done

log() { printf '[bench-pg] %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

log "building release binaries"
cargo build --release -p lendhub -p lendhub-bench

WORK=$(mktemp -d /tmp/lendhub-bench-pg.XXXXXX)
RESULTS=$WORK/results
mkdir -p "$RESULTS"
PIDS=()
# Its own directory: PostgreSQL runs as another user when we are root.
PGDATA_DIR=$(mktemp -d /tmp/lendhub-bench-pgdata.XXXXXX)

cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    bash scripts/pg-cluster.sh stop "$PGDATA_DIR" 2>/dev/null || true
    rm -rf "$WORK" "$PGDATA_DIR"
}
trap cleanup EXIT

PGPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ADMIN_URL=$(bash scripts/pg-cluster.sh start "$PGDATA_DIR" "$PGPORT")
log "PostgreSQL at $ADMIN_URL"
PG_VERSION=$(psql -At "$ADMIN_URL" -c 'SHOW server_version')

json_field() {
    python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# The references every figure is read against, measured first in this run:
# the bare server (as bench/run.sh measures it) and the disk's fsync rate
# where the cluster keeps its data.
BARE=$TARGET_DIR/release/lendhub-bare
FSYNC=$TARGET_DIR/release/lendhub-fsync
log "measuring the disk's fsync rate in $PGDATA_DIR"
"$FSYNC" "$PGDATA_DIR" 3 >"$RESULTS/fsync.json" || echo '{}' >"$RESULTS/fsync.json"
"$BARE" 127.0.0.1:18190 >"$WORK/bare.log" 2>&1 &
BARE_PID=$!
for _ in $(seq 1 100); do
    curl -fs --noproxy '*' --max-time 1 -o /dev/null http://127.0.0.1:18190/livez && break
    sleep 0.1
done
log "bare reference server"
"$BENCH" --url http://127.0.0.1:18190 --duration "$DURATION" --warmup "$WARMUP" \
    --connections "$CONNECTIONS" --scenario baseline >"$RESULTS/bare.json" || echo '{}' >"$RESULTS/bare.json"
kill "$BARE_PID" 2>/dev/null || true
wait "$BARE_PID" 2>/dev/null || true

# The reference the issue quotes: pgbench TPC-B on this cluster.
log "pgbench TPC-B reference"
psql -q "$ADMIN_URL" -c 'CREATE DATABASE pgbench'
PGBENCH_URL=${ADMIN_URL%/postgres}/pgbench
pgbench -q -i -s 10 "$PGBENCH_URL" >/dev/null 2>&1
pgbench -c 16 -j 2 -T "$DURATION" "$PGBENCH_URL" >"$RESULTS/pgbench.txt" 2>&1
grep -E '^tps' "$RESULTS/pgbench.txt" >&2

# run INSTANCES: a fresh database, INSTANCES servers on it, every scenario.
run() {
    local n=$1 db="bench_$1" urls=() i port
    psql -q "$ADMIN_URL" -c "CREATE DATABASE $db"
    local url=${ADMIN_URL%/postgres}/$db
    local key
    key=$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')
    PIDS=()
    for i in $(seq 1 "$n"); do
        port=$((18180 + i))
        mkdir -p "$WORK/data$i"
        LENDHUB_DATABASE_URL=$url LENDHUB_SECRETS__MASTER_KEY=$key LENDHUB_DATA_DIR=$WORK/data$i \
            LENDHUB_SANDBOX__ADDR=127.0.0.1:$port LENDHUB_OPS__ADDR=127.0.0.1:$((19180 + i)) LENDHUB_STATUS__ADDR=127.0.0.1:0 \
            LENDHUB_HUB__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 \
            LENDHUB_LOG=warn "$LENDHUB" serve >"$WORK/server$n-$i.log" 2>&1 &
        PIDS+=($!)
        for _ in $(seq 1 100); do
            curl -fs --noproxy '*' -o /dev/null "http://127.0.0.1:$port/livez" && break
            sleep 0.1
        done
        curl -fs --noproxy '*' -o /dev/null "http://127.0.0.1:$port/livez" || die "instance $i did not start"
        urls+=("http://127.0.0.1:$port")
    done
    local joined
    joined=$(IFS=,; echo "${urls[*]}")
    local client
    client=$(LENDHUB_DATABASE_URL=$url LENDHUB_SECRETS__MASTER_KEY=$key LENDHUB_DATA_DIR=$WORK/data1 \
        "$LENDHUB" sandbox clients create --name bench)
    local id secret token app
    id=$(json_field client_id <<<"$client")
    secret=$(json_field client_secret <<<"$client")
    token=$(curl -fsS -u "$id:$secret" -d grant_type=client_credentials "${urls[0]}/oauth/token" | json_field access_token)
    app=$(curl -fsS -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -H "Idempotency-Key: bench-setup-$n" \
        -d '{"business":{"company_number":"12345678"},"amount_pence":500000}' \
        "${urls[0]}/v1/applications" | json_field id)
    local common=(--url "$joined" --duration "$DURATION" --warmup "$WARMUP" --connections "$CONNECTIONS")
    log "$n instance(s): create-application"
    "$BENCH" "${common[@]}" --scenario create-application --token "$token" >"$RESULTS/create-$n.json"
    log "$n instance(s): create-application open loop"
    "$BENCH" "${common[@]}" --scenario create-application --token "$token" --rate "$OPEN_RATE" >"$RESULTS/create-open-$n.json"
    log "$n instance(s): get-application"
    "$BENCH" "${common[@]}" --scenario get-application --token "$token" --app-id "$app" >"$RESULTS/get-$n.json"
    log "$n instance(s): token"
    "$BENCH" "${common[@]}" --scenario token --client-id "$id" --client-secret "$secret" >"$RESULTS/token-$n.json"
    cat "$RESULTS"/*-"$n".json >&2
    for pid in "${PIDS[@]}"; do kill -TERM "$pid"; done
    for pid in "${PIDS[@]}"; do wait "$pid" || true; done
    PIDS=()
}

run 1
run 2

export RESULTS OUT COMMAND DURATION CONNECTIONS OPEN_RATE WARMUP PG_VERSION
python3 "$ROOT/bench/report_postgres.py"
log "wrote the PostgreSQL section of $OUT"
