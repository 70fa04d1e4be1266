//! `lendhub-bench`: an HTTP/1.1 keep-alive load generator for the lendhub
//! sandbox API. Prints one JSON line per run on stdout; diagnostics go to
//! stderr. Only loopback targets are accepted.

mod decide;
mod load;
mod receive;
mod report;
mod scenarios;
mod score;
mod seed;
mod seed_servicing;
mod settle;
mod sso;
mod target;

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Parser;

use crate::load::LoadConfig;
use crate::report::RunInfo;
use crate::scenarios::{Inputs, Scenario, ScenarioName};
use crate::target::Target;

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Closed- and open-loop HTTP load generator for the lendhub sandbox API"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Base URL of the server (loopback only), e.g. http://127.0.0.1:8081;
    /// several, comma-separated, spread the connections across instances.
    #[arg(long, default_value = "http://127.0.0.1:8081")]
    url: String,
    /// Concurrent keep-alive connections, one worker each.
    #[arg(long, short = 'c', default_value_t = 64)]
    connections: usize,
    /// Measured duration in seconds.
    #[arg(long, short = 'd', default_value_t = 10.0)]
    duration: f64,
    /// Open-loop arrival rate in requests/s; omit for closed loop.
    #[arg(long)]
    rate: Option<f64>,
    /// Unmeasured warm-up before the measured window, in seconds.
    #[arg(long, default_value_t = 0.0)]
    warmup: f64,
    /// Stop after this many requests in total (e.g. for seeding data).
    #[arg(long)]
    requests: Option<u64>,
    /// Per-request timeout in seconds; a timed-out request counts as an error.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Runtime worker threads (default: number of CPUs).
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long, value_enum, default_value_t = ScenarioName::Baseline)]
    scenario: ScenarioName,
    /// Bearer token for the authenticated scenarios.
    #[arg(long)]
    token: Option<String>,
    /// Application id for get-application.
    #[arg(long)]
    app_id: Option<String>,
    /// get-application: a file of application ids, one a line (what
    /// `seed --sample-ids` writes), asked for in turn instead of `--app-id`:
    /// one pass over more ids than the server keeps rendered misses on
    /// every request.
    #[arg(long, conflicts_with = "app_id")]
    app_ids_file: Option<std::path::PathBuf>,
    /// Account id for the servicing scenarios.
    #[arg(long)]
    account_id: Option<String>,
    /// OAuth client id for the token scenario (HTTP Basic).
    #[arg(long)]
    client_id: Option<String>,
    /// OAuth client secret for the token scenario (HTTP Basic).
    #[arg(long)]
    client_secret: Option<String>,
    /// sso scenarios: the cookies of a browser that signed in and consented.
    #[arg(long)]
    cookie: Option<String>,
    /// sso scenarios: the client's registered redirect URI.
    #[arg(long)]
    redirect_uri: Option<String>,
    /// list-events: an event id to page from (`starting_after`), for a
    /// page deep in the log rather than the newest.
    #[arg(long)]
    cursor: Option<String>,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Fill a database with applications and events, as the API would have
    /// made them, without going through HTTP.
    Seed(seed::SeedArgs),
    /// Fill a database with funded loans' accounts: one with a long ledger,
    /// or many with schedules due today (the servicing benchmarks).
    SeedServicing(seed_servicing::SeedServicingArgs),
    /// Receive webhook deliveries, check their signatures, count each event.
    Receive(receive::ReceiveArgs),
    /// White-label decisions through the account-information path, end to
    /// end, as fast as the server makes them.
    Decide(decide::DecideArgs),
    /// The payout rail's settlement webhooks, as fast as the server books
    /// them.
    Settle(settle::SettleArgs),
    /// The decision engine's cost in the process: features, the credit
    /// model's score, outcome, reasons and offer.
    Score(score::ScoreArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lendhub-bench: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<()> {
    match &cli.command {
        Some(Command::Seed(args)) => return seed::run(args),
        Some(Command::SeedServicing(args)) => return seed_servicing::run(args),
        Some(Command::Receive(args)) => return receive::run(args),
        Some(Command::Decide(args)) => return decide::run(args),
        Some(Command::Settle(args)) => return settle::run(args),
        Some(Command::Score(args)) => return score::run(args),
        None => {}
    }
    let config = load_config(cli)?;
    let targets = cli
        .url
        .split(',')
        .map(Target::parse)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let target = &targets[0];
    let app_ids = match &cli.app_ids_file {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
    };
    let inputs = Inputs {
        token: cli.token.as_deref(),
        app_id: cli.app_id.as_deref(),
        app_ids: &app_ids,
        account_id: cli.account_id.as_deref(),
        client_id: cli.client_id.as_deref(),
        client_secret: cli.client_secret.as_deref(),
        cookie: cli.cookie.as_deref(),
        redirect_uri: cli.redirect_uri.as_deref(),
        cursor: cli.cursor.as_deref(),
    };
    if cli.scenario.is_sso() && cli.rate.is_some() {
        bail!("the sso scenarios run closed loop only (each request depends on the one before)");
    }
    let scenario = Scenario::new(cli.scenario, target, &inputs)?;

    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = cli.threads {
        runtime.worker_threads(threads.max(1));
    }
    let runtime = runtime.enable_all().build().context("tokio runtime")?;
    let (stats, elapsed) = runtime.block_on(load::run(targets, scenario, config))?;

    if let Some(first) = &stats.first_error {
        eprintln!(
            "lendhub-bench: {} {} errors; first: {first}",
            cli.scenario.as_str(),
            stats.error_count()
        );
    }
    let info = RunInfo {
        scenario: cli.scenario.as_str(),
        connections: cli.connections,
        duration_s: cli.duration,
        rate: cli.rate,
        elapsed,
    };
    println!("{}", report::to_json(&info, &stats));
    Ok(())
}

fn load_config(cli: &Cli) -> Result<LoadConfig> {
    if cli.connections == 0 {
        bail!("--connections must be at least 1");
    }
    if cli.timeout <= 0.0 {
        bail!("--timeout must be positive");
    }
    if cli.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        bail!("--rate must be a positive number");
    }
    Ok(LoadConfig {
        connections: cli.connections,
        duration: seconds("--duration", cli.duration)?,
        warmup: seconds("--warmup", cli.warmup)?,
        rate: cli.rate,
        timeout: seconds("--timeout", cli.timeout)?,
        max_requests: cli.requests,
    })
}

fn seconds(flag: &str, value: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(value).with_context(|| format!("{flag} must be >= 0 seconds"))
}
