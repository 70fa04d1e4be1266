#!/usr/bin/env bash
# A/B of one identity-provider scenario (by default sso-refresh: POST /token
# rotating a refresh token; also sso-code-exchange, sso-userinfo), 64
# connections, 10 s, between two lendhub binaries, alternating, ROUNDS times:
#
#   [SCENARIO=…] [ROUNDS=…] [PERF_DIR=…] bench/ab-sso.sh BEFORE_BINARY AFTER_BINARY
#
# Each run gets a fresh data directory, one person who signs in and consents
# once (curl plays the browser, as in bench/run.sh), and one client. Prints
# "label req/s p99_ms" per run. Uses the release lendhub-bench of this tree.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${CARGO_TARGET_DIR:-$(pwd)/target}/release/lendhub-bench
ROUNDS=${ROUNDS:-3}
SCENARIO=${SCENARIO:-sso-refresh}
SSO=http://127.0.0.1:18483
REDIRECT=http://127.0.0.1:9/callback
PASSWORD="bench password 1"

form_field() { sed -n "s/.*name=\"$1\" value=\"\([^\"]*\)\".*/\1/p" | head -n1; }
json_field() { python3 -c 'import json,sys;print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

run_one() { # BIN LABEL
    local bin=$1 label=$2 data jar
    data=$(mktemp -d)
    jar=$data/cookies
    local env=(LENDHUB_DATA_DIR=$data LENDHUB_SANDBOX__ADDR=127.0.0.1:18481 LENDHUB_HUB__ADDR=127.0.0.1:18482
        LENDHUB_SSO__ADDR=127.0.0.1:18483 LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0)
    env "${env[@]}" "$bin" serve >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 100); do curl -fs --noproxy '*' "$SSO/livez" >/dev/null && break; sleep 0.1; done
    printf '%s\n' "$PASSWORD" | env "${env[@]}" "$bin" sso users create --email bench@example.com \
        --given-name Bench --family-name Mark --company-number 01234567 --company-name "Bench Ltd" \
        --company-role director >/dev/null 2>&1
    local client
    client=$(env "${env[@]}" "$bin" sso clients create --name bench --redirect-uri "$REDIRECT" 2>/dev/null)
    local id secret
    id=$(json_field client_id <<<"$client")
    secret=$(json_field client_secret <<<"$client")
    redirect_to() { curl -sS --noproxy '*' -o /dev/null -b "$jar" -c "$jar" -w '%{redirect_url}' "$@"; }
    local challenge page consent callback cookie
    challenge=$(python3 -c 'import base64,hashlib,os;print(base64.urlsafe_b64encode(hashlib.sha256(os.urandom(32)).digest()).rstrip(b"=").decode())')
    page=$(curl -sS --noproxy '*' -b "$jar" -c "$jar" "$(redirect_to "$SSO/authorize?response_type=code&client_id=$id&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&scope=openid%20profile%20email%20business&state=s&code_challenge=$challenge&code_challenge_method=S256")")
    consent=$(redirect_to --data-urlencode "ticket=$(form_field ticket <<<"$page")" \
        --data-urlencode "csrf_token=$(form_field csrf_token <<<"$page")" \
        --data-urlencode "email=bench@example.com" --data-urlencode "password=$PASSWORD" "$SSO/sign-in")
    page=$(curl -sS --noproxy '*' -b "$jar" -c "$jar" "$consent")
    callback=$(redirect_to --data-urlencode "ticket=$(form_field ticket <<<"$page")" \
        --data-urlencode "csrf_token=$(form_field csrf_token <<<"$page")" --data-urlencode "decision=approve" "$SSO/consent")
    [[ $callback == "$REDIRECT?code="* ]] || { echo "sign-in did not complete: $callback" >&2; exit 1; }
    cookie=$(awk '$6 ~ /^lendhub_sso_/ { printf "%s%s=%s", sep, $6, $7; sep = "; " }' "$jar")
    # PERF_DIR=…: also a CPU profile of the server under load, per run.
    if [[ -n ${PERF_DIR:-} ]]; then
        perf record -F ${PERF_FREQ:-499} ${PERF_CG:--g} -p "$pid" -o "$PERF_DIR/$label-$RANDOM.data" -- sleep 8 >/dev/null 2>&1 &
    fi
    local r
    r=$("$BENCH" --url "$SSO" --duration 10 --warmup 2 --connections 64 --scenario "$SCENARIO" \
        --client-id "$id" --client-secret "$secret" --cookie "$cookie" --redirect-uri "$REDIRECT")
    echo "$label $(python3 -c 'import json,sys;d=json.load(sys.stdin);print(round(d["throughput_rps"]), d["p99_ms"])' <<<"$r")"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -rf "$data"
}
for _ in $(seq "$ROUNDS"); do
    run_one "$1" before
    run_one "$2" after
done
