# What the measuring scripts share (growth.sh, soak.sh, servicing.sh). Source it
# after setting LOG_TAG, ROOT and TARGET_DIR; `serve` and `stop` also read
# LENDHUB, ADDR, HUB_ADDR, BASE and WORK.

log() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2; }

die() {
    log "error: $*"
    exit 1
}

# json_field FIELD < json — prints one top-level field of a JSON object.
json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# Builds the release binaries unless BENCH_SKIP_BUILD is set.
build_release() {
    if [[ -z ${BENCH_SKIP_BUILD:-} ]]; then
        log "building release binaries"
        cargo build --release -p lendhub -p lendhub-bench
    fi
}

# wait_until_up BASE_URL PID — until BASE_URL/livez answers (60 s at most),
# failing at once if PID exits first.
wait_until_up() {
    local _
    for _ in $(seq 1 600); do
        if curl -fs --noproxy '*' --max-time 1 -o /dev/null "$1/livez"; then return; fi
        kill -0 "$2" 2>/dev/null || die "the server exited during start-up"
        sleep 0.1
    done
    die "the server did not answer within 60 s"
}

# serve DATA_DIR [DATABASE_URL] — starts the server with the REST tier on the
# script's ports and waits for it; SERVER_PID names it. READ_CACHES=false
# starts it with its read caches off (`read_caches.enabled`).
serve() {
    env LENDHUB_DATA_DIR="$1" ${2:+LENDHUB_DATABASE__URL="$2"} LENDHUB_SANDBOX__ADDR=$ADDR \
        LENDHUB_READ_CACHES__ENABLED="${READ_CACHES:-true}" \
        LENDHUB_HUB__ADDR=$HUB_ADDR LENDHUB_REST_TIER__ENABLED=true \
        LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 \
        "$LENDHUB" serve >>"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    wait_until_up "$BASE" "$SERVER_PID"
}

# stop — the server `serve` started, gracefully.
stop() {
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

# bare_baseline ADDR OUT — the bare reference server (`lendhub-bare`, read from
# BARE) on ADDR, measured with the baseline scenario for DURATION seconds over
# CONNECTIONS connections (BENCH from the caller), its JSON to OUT; stopped
# after. BARE_PID names it meanwhile, for the caller's cleanup.
bare_baseline() {
    "$BARE" "$1" >"$WORK/bare.log" 2>&1 &
    BARE_PID=$!
    wait_until_up "http://$1" "$BARE_PID"
    log "bare server"
    "$BENCH" --url "http://$1" --duration "$DURATION" --warmup 1 --connections "$CONNECTIONS" \
        --scenario baseline >"$2"
    kill -TERM "$BARE_PID"
    wait "$BARE_PID" 2>/dev/null || true
    BARE_PID=
}
