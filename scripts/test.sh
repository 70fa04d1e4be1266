#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need
# (Stripe's Python library, used as an independent webhook-signature verifier),
# then runs formatting, lints and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
if ! "$venv/bin/python" -c 'import stripe' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'stripe>=10,<20' 'openapi-spec-validator>=0.7,<1'
fi
export TEST_PYTHON="$PWD/$venv/bin/python"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace
# The committed OpenAPI document must be valid OpenAPI 3.1.
"$TEST_PYTHON" -m openapi_spec_validator docs/openapi/sandbox.json
