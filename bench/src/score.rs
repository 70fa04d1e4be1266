//! `lendhub-bench score`: what the decision engine costs in the process,
//! without I/O (issue #48: at most 50 µs a decision): the facts' features,
//! the champion model's score and contributions, the outcome, the reasons
//! and the offer, for applications spread over the model's bins.

use std::hint::black_box;
use std::time::Instant;

use anyhow::{Result, anyhow};
use lendhub_domain::lending::kyc;
use lendhub_domain::lending::register;
use lendhub_domain::lending::underwriting::{self, Banking, CreditFile, Facts, Signals};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct ScoreArgs {
    /// Decisions to time (after as many again to warm up).
    #[arg(long, default_value_t = 200_000)]
    iterations: u32,
}

/// Facts as varied as the model's bins: scores, amounts, cash flows, a
/// director needing review now and then, and now and then no bank account.
fn facts(i: u32) -> Result<Facts> {
    let company = register::synthetic("00000401").ok_or_else(|| anyhow!("no company 00000401"))?;
    let n = i64::from(i);
    let banking = (!i.is_multiple_of(13)).then(|| Banking {
        inflow_volatility_pct: Some(i % 90),
        days_overdrawn: Some(i % 40),
        returned_payments: Some(i % 4),
        ..Banking::steady(
            1 + i % 12,
            2_000_000 + (n % 97) * 100_000,
            1_500_000 + (n % 89) * 90_000,
        )
    });
    Ok(Facts::new(
        &company,
        100_000 + (n % 250) * 100_000,
        [6, 12, 24, 36, 60][(i % 5) as usize],
        CreditFile {
            score: 300 + i % 600,
            limit_pence: 50_000_000,
        },
        banking,
        Some(if i.is_multiple_of(17) {
            kyc::Status::ReviewRequired
        } else {
            kyc::Status::Verified
        }),
        Signals::default(),
    ))
}

pub fn run(args: &ScoreArgs) -> Result<()> {
    let model = lendhub_domain::credit_model::champion()
        .ok_or_else(|| anyhow!("no credit model is bundled"))?;
    let all: Vec<Facts> = (0..1024).map(facts).collect::<Result<_>>()?;
    let mut outcomes = [0u32; 3];
    for i in 0..args.iterations {
        black_box(underwriting::decide(&all[i as usize % all.len()], model));
    }
    let started = Instant::now();
    for i in 0..args.iterations {
        let verdict = underwriting::decide(black_box(&all[i as usize % all.len()]), model);
        outcomes[verdict.outcome as usize] += 1;
        black_box(verdict);
    }
    let elapsed = started.elapsed();
    let per = elapsed.as_nanos() as f64 / f64::from(args.iterations.max(1));
    let line = json!({
        "model": format!("{}@{}", model.id, model.version),
        "iterations": args.iterations,
        "ns_per_decision": per.round(),
        "outcomes": {"approved": outcomes[0], "referred": outcomes[1], "declined": outcomes[2]},
    });
    println!("{line}");
    Ok(())
}
