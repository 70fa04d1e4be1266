#!/usr/bin/env bash
# Measures reads and token issuance as the database grows, and writes
# docs/benchmarks-growth.md.
#
#   bench/growth.sh                           # SQLite at 10 k, 1 M and 10 M rows; PostgreSQL at 10 k and 1 M
#   GROWTH_SQLITE="10000 1000000" bench/growth.sh
#
# Rows are applications and their events in the API's proportion (each
# application publishes two events), all owned by one client: the worst case
# for per-owner lists. Each size gets a fresh database filled by
# `lendhub-bench seed`, then a fresh server. Sizes are measured minutes apart,
# and a shared machine's speed drifts by tens of percent over that time, so
# every run is paired with the bare reference server measured just before it
# (as in bench/run.sh) and sizes are compared by their ratios to it.
# Knobs: GROWTH_SQLITE, GROWTH_PG (sizes, space-separated; empty skips),
# BENCH_DURATION [6], BENCH_PAIR_DURATION [3], BENCH_CONNECTIONS [64],
# BENCH_OUT [docs/benchmarks-growth.md], BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
SQLITE_SIZES=${GROWTH_SQLITE-10000 1000000 10000000}
PG_SIZES=${GROWTH_PG-10000 1000000}
DURATION=${BENCH_DURATION:-6}
PAIR_DURATION=${BENCH_PAIR_DURATION:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-growth.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
BARE=$TARGET_DIR/release/lendhub-bare
BARE_ADDR=127.0.0.1:18190
ADDR=127.0.0.1:18181
BASE=http://$ADDR
HUB_ADDR=127.0.0.1:18182
HUB_BASE=http://$HUB_ADDR

LOG_TAG=growth
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release
[[ -x $BARE ]] || die "no bare reference server at $BARE"

WORK=$(mktemp -d -t lendhub-growth.XXXXXX)
RESULTS=$WORK/results
mkdir -p "$RESULTS"
SERVER_PID=
BARE_PID=
PGDATA_DIR=

cleanup() {
    if [[ -n $BARE_PID ]]; then kill "$BARE_PID" 2>/dev/null || true; fi
    if [[ -n $SERVER_PID ]]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [[ -n $PGDATA_DIR ]]; then bash scripts/pg-cluster.sh stop "$PGDATA_DIR" 2>/dev/null || true; fi
    rm -rf "$WORK" ${PGDATA_DIR:+"$PGDATA_DIR"}
}
trap cleanup EXIT

# load NAME URL lendhub-bench-args... — one measured run into
# $RESULTS/NAME.json, after the bare server's (NAME.bare.json).
load() {
    local name=$1 url=$2
    shift 2
    "$BARE" "$BARE_ADDR" >>"$WORK/bare.log" 2>&1 &
    BARE_PID=$!
    wait_until_up "http://$BARE_ADDR" "$BARE_PID"
    "$BENCH" --url "http://$BARE_ADDR" --scenario baseline --duration "$PAIR_DURATION" --warmup 1 \
        --connections "$CONNECTIONS" >"$RESULTS/$name.bare.json" || echo '{}' >"$RESULTS/$name.bare.json"
    kill "$BARE_PID" 2>/dev/null || true
    wait "$BARE_PID" 2>/dev/null || true
    BARE_PID=
    log "$name"
    "$BENCH" --url "$url" --duration "$DURATION" --warmup 1 --connections "$CONNECTIONS" "$@" \
        >"$RESULTS/$name.json" || echo '{}' >"$RESULTS/$name.json"
}

# measure BACKEND ROWS DATA_DIR [DATABASE_URL]
measure() {
    local backend=$1 rows=$2 data=$3 url=${4:-} database client_json client_id client_secret seeded token
    local label="$backend-$rows"
    mkdir -p "$data"
    database=${url:-$data/lendhub.db}
    # A first start makes the database and the master key; the client is
    # made by the CLI, as an operator would.
    serve "$data" "$url"
    client_json=$(env LENDHUB_DATA_DIR="$data" ${url:+LENDHUB_DATABASE__URL="$url"} "$LENDHUB" sandbox clients create \
        --name growth --scopes "sandbox:read sandbox:write" 2>/dev/null)
    client_id=$(json_field client_id <<<"$client_json")
    client_secret=$(json_field client_secret <<<"$client_json")
    # A partner whose live environment gets $rows REST-tier events of its own.
    local partner_id rest_key rest_seeded rest_event_id
    partner_id=$(env LENDHUB_DATA_DIR="$data" ${url:+LENDHUB_DATABASE__URL="$url"} "$LENDHUB" partner clients create \
        --name growth-rest --scopes "events.read" --tier platform 2>/dev/null | json_field client_id)
    rest_key=$(env LENDHUB_DATA_DIR="$data" ${url:+LENDHUB_DATABASE__URL="$url"} "$LENDHUB" partner api-keys create \
        --client-id "$partner_id" --environment live 2>/dev/null | json_field key)
    stop
    log "$label: seeding $rows rows"
    seeded=$("$BENCH" seed --database "$database" --owner "$client_id" \
        --applications $((rows / 3)) --events $((rows - rows / 3)) --sample-ids "$WORK/$label.ids")
    log "$label: $seeded"
    echo "$seeded" >"$RESULTS/$label.seed.json"
    log "$label: seeding $rows REST-tier events"
    rest_seeded=$("$BENCH" seed --database "$database" --owner "$partner_id" --partner --events "$rows")
    log "$label: $rest_seeded"
    echo "$rest_seeded" >"$RESULTS/$label.rest-seed.json"
    rest_event_id=$(json_field middle_event_id <<<"$rest_seeded")
    # As an operator would after a bulk load: otherwise autovacuum's first
    # pass over the new rows lands inside whichever run follows it.
    if [[ -n $url ]]; then psql -q "$url" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null; fi
    # The bulk load leaves gigabytes of dirty pages; without this the kernel
    # writes them back during (and slows) the first runs after it.
    sync
    local app_id event_id
    app_id=$(json_field middle_application_id <<<"$seeded")
    event_id=$(json_field middle_event_id <<<"$seeded")
    serve "$data" "$url"
    token=$(curl -fsS --noproxy '*' -u "$client_id:$client_secret" -d grant_type=client_credentials \
        "$BASE/oauth/token" | json_field access_token)
    load "$label.get-application" "$BASE" --scenario get-application --token "$token" --app-id "$app_id"
    load "$label.first-page" "$BASE" --scenario list-events --token "$token"
    load "$label.deep-page" "$BASE" --scenario list-events --token "$token" --cursor "$event_id"
    load "$label.token" "$BASE" --scenario token --client-id "$client_id" --client-secret "$client_secret"
    load "$label.rest-first-page" "$HUB_BASE" --scenario rest-list-events --token "$rest_key"
    load "$label.rest-deep-page" "$HUB_BASE" --scenario rest-list-events --token "$rest_key" --cursor "$rest_event_id"
    stop
    # The same reads from the database itself: kept pages and remembered
    # probes off, and the application read walking ids spread through the
    # whole table rather than asking for one.
    READ_CACHES=false serve "$data" "$url"
    # One unmeasured pass over the ids first: the bulk load (and, at 10 M
    # rows, the next seeding) leaves them out of the kernel's page cache, and
    # a cold disk is not what this row is about.
    "$BENCH" --url "$BASE" --scenario get-application --token "$token" --app-ids-file "$WORK/$label.ids" \
        --requests "$(wc -l <"$WORK/$label.ids")" --duration 120 --connections "$CONNECTIONS" >/dev/null
    load "$label.uncached-get-application" "$BASE" --scenario get-application --token "$token" \
        --app-ids-file "$WORK/$label.ids"
    load "$label.uncached-first-page" "$BASE" --scenario list-events --token "$token"
    load "$label.uncached-rest-first-page" "$HUB_BASE" --scenario rest-list-events --token "$rest_key"
    local size
    size=$(du -sb "$data" | cut -f1)
    echo "{\"bytes_on_disk\": $size}" >"$RESULTS/$label.disk.json"
    stop
}

for rows in $SQLITE_SIZES; do
    measure sqlite "$rows" "$WORK/sqlite-$rows"
    rm -rf "$WORK/sqlite-$rows"
done

if [[ -n $PG_SIZES ]]; then
    PGDATA_DIR=$(mktemp -d /tmp/lendhub-growth-pgdata.XXXXXX)
    PGPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    ADMIN_URL=$(bash scripts/pg-cluster.sh start "$PGDATA_DIR" "$PGPORT")
    for rows in $PG_SIZES; do
        db="growth_$rows"
        psql -q "$ADMIN_URL" -c "CREATE DATABASE $db" >/dev/null
        measure postgres "$rows" "$WORK/postgres-$rows" "${ADMIN_URL%/*}/$db"
    done
fi

COMMAND="bench/growth.sh"
for var in GROWTH_SQLITE GROWTH_PG BENCH_DURATION BENCH_PAIR_DURATION BENCH_CONNECTIONS; do
    if [[ -n ${!var+set} ]]; then COMMAND="$var=\"${!var}\" $COMMAND"; fi
done
export RESULTS OUT COMMAND DURATION PAIR_DURATION CONNECTIONS
python3 "$ROOT/bench/report_growth.py"
log "wrote $OUT"
