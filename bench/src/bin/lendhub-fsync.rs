//! The disk's durable-write limit, measured where the database lives: a loop
//! of one 4 KiB write and one `fdatasync` (`File::sync_data`) for a few
//! seconds. Durable-write figures in `docs/benchmarks.md` are read against
//! it: group commit must give more than one commit per fsync.
//!
//!     lendhub-fsync DIR [SECONDS]   → {"fsyncs_per_s": …, "fsyncs": …, "elapsed_s": …}

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: lendhub-fsync DIR [SECONDS]");
        return ExitCode::from(2);
    };
    let seconds: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    match measure(&dir, Duration::from_secs_f64(seconds)) {
        Ok((count, elapsed)) => {
            println!(
                "{{\"fsyncs_per_s\": {:.1}, \"fsyncs\": {count}, \"elapsed_s\": {:.3}}}",
                count as f64 / elapsed.as_secs_f64(),
                elapsed.as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("lendhub-fsync: {e}");
            ExitCode::FAILURE
        }
    }
}

fn measure(dir: &str, duration: Duration) -> std::io::Result<(u64, Duration)> {
    let path = std::path::Path::new(dir).join("fsync-probe");
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)?;
    let block = [0x5a_u8; 4096];
    let started = Instant::now();
    let mut count = 0_u64;
    while started.elapsed() < duration {
        // Overwrite the same block, as a WAL appends within preallocated
        // pages: the cost measured is the flush, not file growth.
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&block)?;
        file.sync_data()?;
        count += 1;
    }
    let elapsed = started.elapsed();
    drop(file);
    std::fs::remove_file(&path)?;
    Ok((count, elapsed))
}
