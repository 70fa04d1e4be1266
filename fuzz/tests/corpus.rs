//! Replays every committed corpus input (`fuzz/corpus/<target>/`, what
//! libFuzzer kept while fuzzing, minimised) through its target on every
//! test run, without libFuzzer: a crash the fuzzer once found stays found.
//! The allocator refuses to hold more than `MAX_ALLOCATION` at once, so an
//! input that makes a parser misjudge a length fails here too.

use std::path::Path;

use cap::Cap;

#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

#[test]
fn every_corpus_input_passes_its_target_within_the_allocation_bound() {
    // A failing target's report (a backtrace) may need more than the bound.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = ALLOCATOR.set_limit(usize::MAX);
        report(info);
    }));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut replayed = 0;
    let mut failed = Vec::new();
    for (name, target) in lendhub_fuzz::TARGETS {
        let dir = root.join(name);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        inputs.sort();
        assert!(!inputs.is_empty(), "{name} has no corpus");
        for input in inputs {
            let data = std::fs::read(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
            let limit = ALLOCATOR.allocated() + lendhub_fuzz::MAX_ALLOCATION;
            let _ = ALLOCATOR.set_limit(limit);
            let outcome = std::panic::catch_unwind(|| target(&data));
            let _ = ALLOCATOR.set_limit(usize::MAX);
            if outcome.is_err() {
                failed.push(input.display().to_string());
            }
            replayed += 1;
        }
    }
    assert!(
        failed.is_empty(),
        "these inputs fail their targets: {failed:#?}"
    );
    assert!(replayed >= lendhub_fuzz::TARGETS.len());
}
