#!/usr/bin/env bash
# Regenerates docs/screenshots/dashboard-*.png from a fresh server on its own
# ports and data directory (release build; Chromium and the test
# virtualenv's Playwright, as scripts/test.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export BIN=$ROOT/target/release/lendhub OUT=$ROOT/docs/screenshots HUB=http://127.0.0.1:18382
DATA=$(mktemp -d -t lendhub-shots.XXXXXX)
export DATA
PYTHON=${TEST_PYTHON:-$ROOT/.venv/bin/python}
stop() { [[ -e $DATA/pid ]] && kill "$(cat "$DATA/pid")" 2>/dev/null; rm -f "$DATA/pid"; }
trap 'stop; rm -rf "$DATA"' EXIT
serve() {
    env LENDHUB_DATA_DIR="$DATA" LENDHUB_SANDBOX__ADDR=127.0.0.1:18381 LENDHUB_HUB__ADDR=127.0.0.1:18382 \
        LENDHUB_SSO__ADDR=127.0.0.1:18383 LENDHUB_REST_TIER__ENABLED=true \
        LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 "$BIN" serve >"$DATA/server.log" 2>&1 &
    echo $! >"$DATA/pid"
    for _ in $(seq 100); do curl -fs --noproxy '*' http://127.0.0.1:18381/livez >/dev/null && return; sleep 0.2; done
    echo "the server did not start" >&2; exit 1
}
# A first start makes the database; the set-up is the CLI's, beside no server.
serve; stop; sleep 1
( while [[ ! -e $DATA/ready ]]; do sleep 0.2; done; serve ) >/dev/null 2>&1 &
"$PYTHON" scripts/dashboard-screenshots.py
