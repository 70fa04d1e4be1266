#!/usr/bin/env bash
# A/B of one REST-tier scenario (by default the read GET
# /partner/v1/applications/{id}; SCENARIO=rest-create-application for the
# durable create), API key, 64 connections, 10 s, between two lendhub
# binaries, alternating, ROUNDS times:
#
#   [SCENARIO=…] [ROUNDS=…] bench/ab-rest-read.sh BEFORE_BINARY AFTER_BINARY
#
# Each run gets a fresh data directory, a platform-tier partner, a key and
# one application. Prints "label req/s p99_ms" per run. Uses the release
# lendhub-bench of this tree.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${CARGO_TARGET_DIR:-$(pwd)/target}/release/lendhub-bench
ROUNDS=${ROUNDS:-3}
SCENARIO=${SCENARIO:-rest-get-application}
run_one() { # BIN LABEL
  local bin=$1 label=$2 data
  data=$(mktemp -d)
  env LENDHUB_DATA_DIR=$data LENDHUB_SANDBOX__ADDR=127.0.0.1:18481 LENDHUB_HUB__ADDR=127.0.0.1:18482 LENDHUB_REST_TIER__ENABLED=true LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 $bin serve >/dev/null 2>&1 &
  local pid=$!
  for i in $(seq 100); do curl -fs http://127.0.0.1:18481/livez >/dev/null && break; sleep 0.1; done
  kill $pid; wait $pid 2>/dev/null || true
  local id=$(env LENDHUB_DATA_DIR=$data $bin partner clients create --name ab --scopes "applications.read applications.write" --tier platform 2>/dev/null | python3 -c 'import json,sys;print(json.load(sys.stdin)["client_id"])')
  local key=$(env LENDHUB_DATA_DIR=$data $bin partner api-keys create --client-id $id --environment live 2>/dev/null | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
  env LENDHUB_DATA_DIR=$data LENDHUB_SANDBOX__ADDR=127.0.0.1:18481 LENDHUB_HUB__ADDR=127.0.0.1:18482 LENDHUB_REST_TIER__ENABLED=true LENDHUB_OPS__ADDR=127.0.0.1:0 LENDHUB_STATUS__ADDR=127.0.0.1:0 LENDHUB_SSO__ADDR=127.0.0.1:0 $bin serve >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 100); do curl -fs http://127.0.0.1:18481/livez >/dev/null && break; sleep 0.1; done
  local app=$(curl -fs -H "Authorization: Bearer $key" -H "Content-Type: application/json" -d '{"business":{"company_number":"00000401"},"amount_pence":1000000,"term_months":24,"applicant":{"email":"bench@example.test"}}' http://127.0.0.1:18482/partner/v1/applications | python3 -c 'import json,sys;print(json.load(sys.stdin)["id"])')
  local r=$($BENCH --url http://127.0.0.1:18482 --duration 10 --warmup 2 --connections 64 --scenario $SCENARIO --token $key --app-id $app)
  echo "$label $(echo $r | python3 -c 'import json,sys;d=json.load(sys.stdin);print(round(d["throughput_rps"]), d["p99_ms"])')"
  kill $pid; wait $pid 2>/dev/null || true; rm -rf $data
}
for _ in $(seq "$ROUNDS"); do
  run_one "$1" before
  run_one "$2" after
done
