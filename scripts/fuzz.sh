#!/usr/bin/env bash
# Parser fuzzing (issue #19): each `cargo fuzz` target in fuzz/ under
# libFuzzer. Two modes:
#
#   scripts/fuzz.sh [TARGET...]          # grow the corpus: AddressSanitizer,
#                                        # FUZZ_SECONDS (60) each, then the
#                                        # corpus minimised back into
#                                        # fuzz/corpus/<target>/ (commit it)
#   scripts/fuzz.sh --check [TARGET...]  # what the test command runs: no
#                                        # sanitizer, FUZZ_SECONDS (30) each,
#                                        # two targets at a time, the committed
#                                        # corpus as read-only seeds; fails on
#                                        # any crash, panic or over-bound
#                                        # allocation
#
# Either way each input runs under lendhub_fuzz::bound (at most 16 MiB held
# above what was live before it), libFuzzer's 512 MiB RSS limit and 10 s of
# time. --check builds without AddressSanitizer because its build of the targets' crates
# costs several times the coverage-only one; the code fuzzed is safe Rust
# (`unsafe_code = "forbid"`), so what ASan would add is in the dependencies.
#
# cargo fuzz needs a nightly compiler for its -Z flags. Where only a stable
# toolchain can be had (this machine), RUSTC_BOOTSTRAP=1 lets stable rustc
# take them; the compiler is the same.
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
if [[ ${1:-} == --check ]]; then
    check=true
    shift
fi
command -v cargo-fuzz >/dev/null || cargo install --quiet --locked cargo-fuzz@0.13.1
if ! rustc -V | grep -q nightly; then export RUSTC_BOOTSTRAP=1; fi

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^lendhub-fuzz$')
fi
[[ ${#targets[@]} -gt 0 ]] || { echo "no fuzz targets found in fuzz/Cargo.toml" >&2; exit 1; }
# An input may take 10 s at most (libFuzzer's default is 20 minutes).
limits=(-rss_limit_mb=512 -timeout=10 -print_final_stats=1)

if ! $check; then
    seconds=${FUZZ_SECONDS:-60}
    for target in "${targets[@]}"; do
        echo "== $target: ${seconds}s"
        cargo fuzz run --features libfuzzer "$target" -- -max_total_time="$seconds" "${limits[@]}"
        cargo fuzz cmin --features libfuzzer "$target" -- -rss_limit_mb=512 -timeout=10
    done
    exit 0
fi

seconds=${FUZZ_SECONDS:-30}
cargo fuzz build --sanitizer none --features libfuzzer >/dev/null
work=$(mktemp -d /tmp/lendhub-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

# One target: new inputs go to a scratch directory (the committed corpus is
# only read), a finding to fuzz/artifacts/<target>/; a failure prints the
# end of its log.
fuzz_one() {
    local target=$1 log="$work/$1.log"
    mkdir -p "$work/$target"
    # shellcheck disable=SC2086 # the flags are words
    if cargo fuzz run --sanitizer none --features libfuzzer "$target" "$work/$target" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" $limit_flags >"$log" 2>&1; then
        local runs new
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        new=$(sed -n 's/^stat::new_units_added: *//p' "$log")
        echo "   $target: ${runs:-?} inputs in ${seconds}s, ${new:-?} new coverage, no finding"
    else
        echo "   $target: FAILED (the input is under fuzz/artifacts/$target/)"
        tail -n 60 "$log"
        return 1
    fi
}
export -f fuzz_one
export work seconds limit_flags="${limits[*]}"

echo "== libFuzzer: ${#targets[@]} targets, ${seconds}s each, two at a time"
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} bash -c 'fuzz_one "$1"' _ {}
