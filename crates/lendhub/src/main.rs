use std::process::ExitCode;

/// Request handling allocates many small, short-lived buffers; mimalloc's
/// thread-local free lists serve them with less contention than glibc malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;
use lendhub::config::{Config, Invalid};

/// Exit codes: 0 success, 2 invalid configuration or usage (clap's own), 1
/// anything else.
const INVALID_CONFIGURATION: u8 = 2;

fn main() -> ExitCode {
    let args = lendhub::cli::Args::parse();
    let invalid = |e: &dyn std::fmt::Display| {
        eprintln!("lendhub: invalid configuration: {e}");
        ExitCode::from(INVALID_CONFIGURATION)
    };
    let config = match Config::load_with(args.config.as_deref(), &args.overrides()) {
        Ok(c) => c,
        Err(e) => return invalid(&e),
    };
    let filter = match lendhub::telemetry::log_filter(&config.log.level) {
        Ok(f) => f,
        Err(e) => return invalid(&e),
    };
    let _log_writer = lendhub::telemetry::init_logging(args.log_format, filter);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lendhub: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(lendhub::cli::run(args.command, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => match e.chain().find_map(|c| c.downcast_ref::<Invalid>()) {
            Some(bad) => invalid(bad),
            None => {
                eprintln!("lendhub: {e:#}");
                ExitCode::FAILURE
            }
        },
    }
}
