#!/usr/bin/env bash
# Parser fuzzing (issue #19): each `cargo fuzz` target in fuzz/ under
# libFuzzer for FUZZ_SECONDS (default 60), with AddressSanitizer, then the
# corpus minimised back into fuzz/corpus/<target>/ (commit it: the test
# command replays it on every run, tests/corpus.rs).
#
#   scripts/fuzz.sh                 # every target, 60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh json_body
#
# cargo fuzz needs a nightly compiler for its -Z flags. Where only a stable
# toolchain can be had (this machine), RUSTC_BOOTSTRAP=1 lets stable rustc
# take them; the compiler is the same.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${FUZZ_SECONDS:-60}
command -v cargo-fuzz >/dev/null || cargo install --quiet --locked cargo-fuzz@0.13.1
if ! rustc -V | grep -q nightly; then export RUSTC_BOOTSTRAP=1; fi

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^lendhub-fuzz$')
fi

for target in "${targets[@]}"; do
    echo "== $target: ${SECONDS_EACH}s"
    # A single allocation over 16 MiB, or 512 MiB resident, is a finding
    # (lendhub_fuzz::MAX_ALLOCATION states the bound).
    cargo fuzz run --features libfuzzer "$target" -- \
        -max_total_time="$SECONDS_EACH" -malloc_limit_mb=16 -rss_limit_mb=512 -print_final_stats=1
    cargo fuzz cmin --features libfuzzer "$target" -- -malloc_limit_mb=16 -rss_limit_mb=512
done
