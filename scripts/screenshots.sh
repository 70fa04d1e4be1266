#!/usr/bin/env bash
# Regenerates docs/guide/src/screenshots/{page}-{375,1280}.png (issue #51 item 6): the
# browser walks through the hosted journey, the pay page, the dashboard, the
# operations console and the status page, run with SCREENSHOTS set, save
# each page they check (tests/pagecheck.py) at a phone's width and a wide
# screen's. Needs what scripts/test.sh installs (Chromium, the test
# virtualenv, axe-core); builds the tests as it does, so the two share one
# build.
set -euo pipefail
cd "$(dirname "$0")/.."
export SCREENSHOTS="$PWD/docs/guide/src/screenshots"
export TEST_PYTHON="${TEST_PYTHON:-$PWD/.venv/bin/python}"
export CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true
export CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true
export CARGO_PROFILE_RELEASE_OPT_LEVEL="${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}"
export CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-false}"
export RUST_BACKTRACE=0
rm -f "$SCREENSHOTS"/{journey,pay,dashboard,operations,status}-*-{375,1280}.png
cargo test --release -p lendhub --test api -- --exact --test-threads=2 \
    rest_journey::the_hosted_journey_in_chromium_approves_refers_and_declines \
    rest_payments::the_pay_page_in_chromium_pays_and_fails_with_each_reason \
    dashboard_journey::in_chromium_an_owner_fixes_webhooks_rolls_a_key_and_downloads_a_statement \
    reconciliation::in_chromium_an_operator_reads_an_open_item_and_signs_out \
    status_page::a_database_outage_shows_on_the_page_which_stays_up \
    status_page::incidents_and_windows_are_written_with_the_cli_and_shown_everywhere
ls "$SCREENSHOTS"/*-375.png | wc -l | xargs echo "pages:"
