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
# `lendhub-bench seed`. The first size of a backend is its reference, and
# every larger size is measured beside it: a server on each database, both up
# at once (the idle one costs nothing), and each request run on the reference
# and then on the larger database, ROUNDS times over. A shared machine's speed
# drifts by tens of percent over minutes; runs seconds apart share the drift,
# so a size is judged by its rate over the reference's in the same minutes.
# Knobs: GROWTH_SQLITE, GROWTH_PG (sizes, space-separated, smallest first;
# empty skips), BENCH_DURATION [6], BENCH_ROUNDS [2], BENCH_CONNECTIONS [64],
# BENCH_OUT [docs/benchmarks-growth.md], BENCH_SKIP_BUILD=1.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
SQLITE_SIZES=${GROWTH_SQLITE-10000 1000000 10000000}
PG_SIZES=${GROWTH_PG-10000 1000000}
DURATION=${BENCH_DURATION:-6}
ROUNDS=${BENCH_ROUNDS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
OUT=${BENCH_OUT:-$ROOT/docs/benchmarks-growth.md}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LENDHUB=$TARGET_DIR/release/lendhub
BENCH=$TARGET_DIR/release/lendhub-bench
# The larger database's server; the reference's is on REF_*.
ADDR=127.0.0.1:18181
HUB_ADDR=127.0.0.1:18182
BASE=http://$ADDR
REF_ADDR=127.0.0.1:18183
REF_HUB_ADDR=127.0.0.1:18184

LOG_TAG=growth
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
build_release

WORK=$(mktemp -d -t lendhub-growth.XXXXXX)
RESULTS=$WORK/results
mkdir -p "$RESULTS"
SERVER_PID=
REF_PID=
PGDATA_DIR=

cleanup() {
    local pid
    for pid in $SERVER_PID $REF_PID; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ -n $PGDATA_DIR ]]; then bash scripts/pg-cluster.sh stop "$PGDATA_DIR" 2>/dev/null || true; fi
    rm -rf "$WORK" ${PGDATA_DIR:+"$PGDATA_DIR"}
}
trap cleanup EXIT

# lendhub_cli LABEL args... — the lendhub CLI on LABEL's database.
lendhub_cli() {
    local label=$1
    shift
    env LENDHUB_DATA_DIR="$WORK/$label" ${DB_URL[$label]:+LENDHUB_DATABASE__URL="${DB_URL[$label]}"} \
        "$LENDHUB" "$@" 2>/dev/null
}

# What each prepared database's requests need, by label ("sqlite-10000").
declare -A DB_URL CLIENT_ID CLIENT_SECRET REST_KEY APP_ID EVENT_ID REST_EVENT_ID

# prepare BACKEND ROWS [DATABASE_URL] — a fresh database of ROWS rows, with
# the sandbox client and the partner the requests use.
prepare() {
    local backend=$1 rows=$2 url=${3:-} label="$1-$2" database client_json seeded rest_seeded partner_id
    DB_URL[$label]=$url
    mkdir -p "$WORK/$label"
    database=${url:-$WORK/$label/lendhub.db}
    # A first start makes the database and the master key; the client is
    # made by the CLI, as an operator would.
    serve "$WORK/$label" "$url"
    client_json=$(lendhub_cli "$label" sandbox clients create --name growth --scopes "sandbox:read sandbox:write")
    CLIENT_ID[$label]=$(json_field client_id <<<"$client_json")
    CLIENT_SECRET[$label]=$(json_field client_secret <<<"$client_json")
    # A partner whose live environment gets $rows REST-tier events of its own.
    partner_id=$(lendhub_cli "$label" partner clients create --name growth-rest --scopes "events.read" --tier platform |
        json_field client_id)
    REST_KEY[$label]=$(lendhub_cli "$label" partner api-keys create --client-id "$partner_id" --environment live |
        json_field key)
    stop
    log "$label: seeding $rows rows"
    seeded=$("$BENCH" seed --database "$database" --owner "${CLIENT_ID[$label]}" \
        --applications $((rows / 3)) --events $((rows - rows / 3)) --sample-ids "$WORK/$label.ids")
    log "$label: $seeded"
    echo "$seeded" >"$RESULTS/$label.seed.json"
    log "$label: seeding $rows REST-tier events"
    rest_seeded=$("$BENCH" seed --database "$database" --owner "$partner_id" --partner --events "$rows")
    log "$label: $rest_seeded"
    echo "$rest_seeded" >"$RESULTS/$label.rest-seed.json"
    APP_ID[$label]=$(json_field middle_application_id <<<"$seeded")
    EVENT_ID[$label]=$(json_field middle_event_id <<<"$seeded")
    REST_EVENT_ID[$label]=$(json_field middle_event_id <<<"$rest_seeded")
    # As an operator would after a bulk load: otherwise autovacuum's first
    # pass over the new rows lands inside whichever run follows it.
    if [[ -n $url ]]; then psql -q "$url" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null; fi
    # The bulk load leaves gigabytes of dirty pages; without this the kernel
    # writes them back during (and slows) the first runs after it.
    sync
    if [[ -z $url ]]; then
        echo "{\"bytes_on_disk\": $(du -sb "$WORK/$label" | cut -f1)}" >"$RESULTS/$label.disk.json"
    fi
}

# serve_reference REF — REF's server on REF_ADDR (REF_PID).
serve_reference() {
    local ADDR=$REF_ADDR HUB_ADDR=$REF_HUB_ADDR BASE=http://$REF_ADDR
    serve "$WORK/$1" "${DB_URL[$1]}"
    REF_PID=$SERVER_PID
}

# start_pair REF LABEL — servers on both databases, LABEL's on ADDR and the
# reference's on REF_ADDR, with READ_CACHES as set.
start_pair() {
    serve_reference "$1"
    serve "$WORK/$2" "${DB_URL[$2]}"
}

stop_pair() {
    stop
    SERVER_PID=$REF_PID
    stop
    REF_PID=
}

# token LABEL BASE_URL — a sandbox access token for LABEL's client.
token() {
    curl -fsS --noproxy '*' -u "${CLIENT_ID[$1]}:${CLIENT_SECRET[$1]}" -d grant_type=client_credentials \
        "$2/oauth/token" | json_field access_token
}

# args SCENARIO LABEL SANDBOX_URL HUB_URL TOKEN — lendhub-bench's arguments for
# SCENARIO against LABEL's database.
args() {
    local scenario=$1 label=$2 sandbox=$3 hub=$4 token=$5
    case $scenario in
    get-application) echo --url "$sandbox" --scenario get-application --token "$token" --app-id "${APP_ID[$label]}" ;;
    uncached-get-application)
        echo --url "$sandbox" --scenario get-application --token "$token" --app-ids-file "$WORK/$label.ids" ;;
    first-page | uncached-first-page) echo --url "$sandbox" --scenario list-events --token "$token" ;;
    deep-page) echo --url "$sandbox" --scenario list-events --token "$token" --cursor "${EVENT_ID[$label]}" ;;
    token) echo --url "$sandbox" --scenario token --client-id "${CLIENT_ID[$label]}" \
        --client-secret "${CLIENT_SECRET[$label]}" ;;
    rest-first-page | uncached-rest-first-page)
        echo --url "$hub" --scenario rest-list-events --token "${REST_KEY[$label]}" ;;
    rest-deep-page) echo --url "$hub" --scenario rest-list-events --token "${REST_KEY[$label]}" \
        --cursor "${REST_EVENT_ID[$label]}" ;;
    esac
}

# alternate REF LABEL SCENARIO... — each scenario run on the reference and on
# LABEL, ROUNDS times, into $RESULTS/LABEL.SCENARIO.N.json and
# LABEL.SCENARIO.ref.N.json; odd rounds run the reference first and even
# rounds LABEL first, so that a steady drift favours neither.
alternate() {
    local ref=$1 label=$2 scenario round ref_token token
    shift 2
    ref_token=$(token "$ref" "http://$REF_ADDR")
    token=$(token "$label" "$BASE")
    for scenario in "$@"; do
        for round in $(seq 1 "$ROUNDS"); do
            log "$label.$scenario: round $round"
            if ((round % 2 == 1)); then
                run_on "$scenario" "$ref" "http://$REF_ADDR" "http://$REF_HUB_ADDR" "$ref_token" "$label.$scenario.ref.$round"
                run_on "$scenario" "$label" "$BASE" "http://$HUB_ADDR" "$token" "$label.$scenario.$round"
            else
                run_on "$scenario" "$label" "$BASE" "http://$HUB_ADDR" "$token" "$label.$scenario.$round"
                run_on "$scenario" "$ref" "http://$REF_ADDR" "http://$REF_HUB_ADDR" "$ref_token" "$label.$scenario.ref.$round"
            fi
        done
    done
}

# run_on SCENARIO LABEL SANDBOX_URL HUB_URL TOKEN NAME — one measured run
# into $RESULTS/NAME.json.
run_on() {
    # shellcheck disable=SC2046 # args prints words, none with spaces
    "$BENCH" --duration "$DURATION" --warmup 1 --connections "$CONNECTIONS" $(args "$1" "$2" "$3" "$4" "$5") \
        >"$RESULTS/$6.json" || echo '{}' >"$RESULTS/$6.json"
}

# warm LABEL URL TOKEN — one unmeasured pass over LABEL's sampled ids: the
# bulk load (and, at 10 M rows, the next seeding) leaves them out of the
# kernel's page cache, and a cold disk is not what the uncached rows are about.
warm() {
    "$BENCH" --url "$2" --scenario get-application --token "$3" --app-ids-file "$WORK/$1.ids" \
        --requests "$(wc -l <"$WORK/$1.ids")" --duration 120 --connections "$CONNECTIONS" >/dev/null
}

# compare REF LABEL — LABEL's database measured beside the reference's: as
# served, then with the read caches off (kept pages and remembered probes
# off, and the application read walking ids spread through the whole table
# rather than asking for one).
compare() {
    local ref=$1 label=$2
    start_pair "$ref" "$label"
    alternate "$ref" "$label" get-application first-page deep-page token rest-first-page rest-deep-page
    stop_pair
    READ_CACHES=false start_pair "$ref" "$label"
    warm "$ref" "http://$REF_ADDR" "$(token "$ref" "http://$REF_ADDR")"
    warm "$label" "$BASE" "$(token "$label" "$BASE")"
    alternate "$ref" "$label" uncached-get-application uncached-first-page uncached-rest-first-page
    stop_pair
}

# each_size BACKEND [ADMIN_URL] SIZES... — the first size is the reference.
each_size() {
    local backend=$1 admin=$2 ref rows label url=
    shift 2
    ref="$backend-$1"
    if [[ -n $admin ]]; then url="${admin%/*}/growth_$1"; psql -q "$admin" -c "CREATE DATABASE growth_$1" >/dev/null; fi
    prepare "$backend" "$1" "$url"
    shift
    for rows in "$@"; do
        label="$backend-$rows"
        if [[ -n $admin ]]; then
            url="${admin%/*}/growth_$rows"
            psql -q "$admin" -c "CREATE DATABASE growth_$rows" >/dev/null
        fi
        prepare "$backend" "$rows" "$url"
        compare "$ref" "$label"
        if [[ -n $admin ]]; then
            psql -q "$admin" -c "DROP DATABASE growth_$rows" >/dev/null
        else
            rm -rf "${WORK:?}/$label"
        fi
    done
}

# shellcheck disable=SC2086 # the sizes are words
if [[ -n $SQLITE_SIZES ]]; then each_size sqlite "" $SQLITE_SIZES; fi

if [[ -n $PG_SIZES ]]; then
    PGDATA_DIR=$(mktemp -d /tmp/lendhub-growth-pgdata.XXXXXX)
    PGPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    ADMIN_URL=$(bash scripts/pg-cluster.sh start "$PGDATA_DIR" "$PGPORT")
    # shellcheck disable=SC2086
    each_size postgres "$ADMIN_URL" $PG_SIZES
fi

COMMAND="bench/growth.sh"
for var in GROWTH_SQLITE GROWTH_PG BENCH_DURATION BENCH_ROUNDS BENCH_CONNECTIONS; do
    if [[ -n ${!var+set} ]]; then COMMAND="$var=\"${!var}\" $COMMAND"; fi
done
export RESULTS OUT COMMAND DURATION ROUNDS CONNECTIONS
python3 "$ROOT/bench/report_growth.py"
log "wrote $OUT"
