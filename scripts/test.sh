#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need
# (Stripe's Python library, used as an independent webhook-signature verifier),
# then runs formatting, lints and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
if ! "$venv/bin/python" -c 'import stripe, openapi_spec_validator' 2>/dev/null; then
    # A Debian python3 without ensurepip needs its venv package first.
    if ! python3 -m venv "$venv" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'stripe>=10,<20' 'openapi-spec-validator>=0.7,<1'
fi
export TEST_PYTHON="$PWD/$venv/bin/python"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace
# The committed OpenAPI document must be valid OpenAPI 3.1.
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/sandbox.json
