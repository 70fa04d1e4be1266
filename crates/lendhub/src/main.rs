use std::process::ExitCode;

/// Request handling allocates many small, short-lived buffers; mimalloc's
/// thread-local free lists serve them with less contention than glibc malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

fn main() -> ExitCode {
    let args = lendhub::cli::Args::parse();
    let config = match lendhub::config::Config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("lendhub: invalid configuration: {e}");
            return ExitCode::from(2);
        }
    };
    let _log_writer = lendhub::telemetry::init_logging(args.log_format, &config.log.level);
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
        Err(e) => {
            eprintln!("lendhub: {e:#}");
            ExitCode::FAILURE
        }
    }
}
