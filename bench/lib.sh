# What the measuring scripts share (growth.sh, soak.sh). Source it after
# setting LOG_TAG, ROOT and TARGET_DIR.

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
