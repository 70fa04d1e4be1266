//! Replays every committed corpus input (`fuzz/corpus/<target>/`, what
//! libFuzzer kept while fuzzing, minimised) through its target on every
//! test run, without libFuzzer: a crash the fuzzer once found stays found.
//! Each input runs under the fuzzer's allocation bound (`lendhub_fuzz::bound`),
//! so an input that makes a parser misjudge a length fails here too.

use std::path::Path;

#[test]
fn every_corpus_input_passes_its_target_within_the_allocation_bound() {
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
            let outcome = std::panic::catch_unwind(|| lendhub_fuzz::bound::run(*target, &data));
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
