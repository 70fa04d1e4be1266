use super::*;
use crate::credit_model::features::{FeatureVector, Value};
use crate::credit_model::{champion, find};
use time::macros::{date, datetime};

fn model() -> &'static Scorecard {
    champion().unwrap()
}

fn partner(client: &str, live: bool) -> Tenant {
    Tenant::partner(client, live, None)
}

/// The example the generator built as `name`, as the champion scores it.
fn example(name: &str) -> Scored {
    let e = model().examples.iter().find(|e| e.name == name).unwrap();
    Scored::by(model(), e.features.clone())
}

/// A value in each bin of `f` (the missing slot last, as `None`).
fn representatives(f: &crate::credit_model::scorecard::FeatureBins) -> Vec<Option<Value>> {
    let mut previous = None;
    let mut out: Vec<Option<Value>> = f
        .bins
        .iter()
        .map(|b| {
            let v = match (&b.category, b.below) {
                (Some(c), _) => Value::Category(c.clone()),
                (None, Some(edge)) => Value::Number(edge - 1),
                (None, None) => Value::Number(previous.unwrap_or(0)),
            };
            previous = b.below;
            Some(v)
        })
        .collect();
    out.push(None);
    out
}

/// `n` feature vectors whose every feature falls in the training
/// population's bins in the training population's shares.
fn like_training(n: usize) -> Vec<FeatureVector> {
    let mut vectors = vec![FeatureVector::default(); n];
    for f in &model().features {
        let values = representatives(f);
        let shares: Vec<f64> = f
            .bins
            .iter()
            .map(|b| b.share)
            .chain([f.missing_share.unwrap_or(0.0)])
            .collect();
        let total: f64 = shares.iter().sum();
        for (j, v) in vectors.iter_mut().enumerate() {
            // Stratified: the j-th of n takes the bin its quantile falls in.
            let q = (j as f64 + 0.5) / n as f64 * total;
            let mut acc = 0.0;
            let bin = shares
                .iter()
                .position(|s| {
                    acc += s;
                    q < acc
                })
                .unwrap_or(shares.len() - 1);
            if let Some(value) = &values[bin] {
                v.set(f.name, Some(value.clone()));
            }
        }
    }
    vectors
}

#[test]
fn psi_is_nought_for_the_same_shares_and_grows_with_the_shift() {
    assert_eq!(psi(&[0.5, 0.5], &[50, 50]), Some(0.0));
    // (0.8 − 0.5)·ln(0.8/0.5) + (0.2 − 0.5)·ln(0.2/0.5) = 0.4159
    assert_eq!(psi(&[0.5, 0.5], &[80, 20]), Some(0.4159));
    // An empty bin is floored, not infinite.
    let empty = psi(&[0.5, 0.5], &[100, 0]).unwrap();
    assert!(empty.is_finite() && empty > 3.0, "{empty}");
    assert_eq!(psi(&[0.5, 0.5], &[0, 0]), None, "nothing observed");
    assert_eq!(psi(&[1.0], &[1, 1]), None, "bins that do not line up");
}

#[test]
fn weeks_start_on_monday() {
    assert_eq!(week_of(date!(2026 - 12 - 01)), date!(2026 - 11 - 30));
    assert_eq!(week_of(date!(2026 - 11 - 30)), date!(2026 - 11 - 30));
    assert_eq!(week_of(date!(2026 - 12 - 06)), date!(2026 - 11 - 30));
}

/// Every bundled model's training shares are a population: each
/// feature's bins and the score's deciles add up to one.
#[test]
fn the_training_shares_add_up() {
    for m in crate::credit_model::bundled() {
        let deciles: f64 = m.score_bins.iter().map(|b| b.share).sum();
        assert!((deciles - 1.0).abs() < 0.001, "{}: {deciles}", m.version);
        for f in &m.features {
            let sum: f64 =
                f.bins.iter().map(|b| b.share).sum::<f64>() + f.missing_share.unwrap_or(0.0);
            assert!((sum - 1.0).abs() < 0.001, "{:?}: {sum}", f.name);
        }
    }
}

#[test]
fn a_population_like_training_is_stable() {
    let mut monitor = Monitor::new(100);
    let owner = partner("cli_a", true);
    for v in like_training(5_000) {
        let scored = Scored::by(model(), v);
        let outcome = scored.cutoffs.outcome(scored.score.probability);
        monitor.count(&owner, outcome, Some(&scored));
    }
    let report = monitor.report(date!(2026 - 11 - 23), datetime!(2026-11-30 02:00 UTC));
    let m = &report.environments[0].models[0];
    assert_eq!(m.decisions, 5_000);
    for f in &m.features {
        let p = f.psi.unwrap();
        assert!(p < 0.01, "{:?} moved {p}", f.feature);
        assert_eq!(f.outside, 0);
    }
}

#[test]
fn a_distressed_population_drifts_and_alerts_over_enough_decisions() {
    let distressed = example("distressed");
    let owner = partner("cli_a", false);
    let run = |n: u64| {
        let mut monitor = Monitor::new(50);
        for _ in 0..n {
            monitor.count(&owner, Outcome::Declined, Some(&distressed));
        }
        monitor.report(date!(2026 - 11 - 23), datetime!(2026-11-30 02:00 UTC))
    };
    let few = run(49);
    assert!(
        !few.environments[0].models[0].alert,
        "49 is too few to alert"
    );
    assert!(!few.environments[0].models[0].drifted().is_empty());
    let many = run(50);
    let env = &many.environments[0];
    assert_eq!(env.environment, Environment::Test);
    let m = &env.models[0];
    assert!(m.alert);
    assert!(m.score_psi.unwrap() > ALERT_PSI);
    let drifted = m.drifted();
    assert!(
        drifted.iter().any(|(name, _)| *name == "score"),
        "{drifted:?}"
    );
    assert!(
        drifted.iter().any(|(name, _)| *name == "days_overdrawn"),
        "{drifted:?}"
    );
    assert!(
        drifted.windows(2).all(|w| w[0].1 >= w[1].1),
        "largest first"
    );
    assert_eq!(many.alerts().count(), 1);
}

#[test]
fn approval_rates_are_by_partner_and_environment() {
    let mut monitor = Monitor::new(1);
    let healthy = example("healthy");
    let a_live = partner("cli_a", true);
    let a_sub = Tenant::partner("cli_a", true, Some("sub_1"));
    monitor.count(&a_live, Outcome::Approved, Some(&healthy));
    monitor.count(&a_sub, Outcome::Referred, Some(&healthy));
    // A policy rule's decline: counted for the partner, not scored.
    monitor.count(&a_live, Outcome::Declined, None);
    monitor.count(&partner("cli_b", true), Outcome::Approved, None);
    monitor.count(&partner("cli_a", false), Outcome::Approved, Some(&healthy));
    // The sandbox's clients are not the hub's.
    monitor.count(&Tenant::sandbox_client("sbx"), Outcome::Approved, None);
    let report = monitor.report(date!(2026 - 11 - 23), datetime!(2026-11-30 02:00 UTC));
    let live = report
        .environments
        .iter()
        .find(|e| e.environment == Environment::Live)
        .unwrap();
    assert_eq!(live.decisions, 4);
    assert_eq!(live.models[0].decisions, 2, "the scored ones");
    let a = &live.partners[0];
    assert_eq!(
        (
            a.client_id.as_str(),
            a.decisions,
            a.approved,
            a.referred,
            a.declined
        ),
        ("cli_a", 3, 1, 1, 1)
    );
    assert!((a.approval_rate() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(live.partners[1].client_id, "cli_b");
    let test = report
        .environments
        .iter()
        .find(|e| e.environment == Environment::Test)
        .unwrap();
    assert_eq!(test.decisions, 1);
}

/// A week scored by two models (a promotion mid-week) reports each.
#[test]
fn each_model_is_measured_against_its_own_training() {
    let mut monitor = Monitor::new(1);
    let owner = partner("cli_a", true);
    let v = model().examples[0].features.clone();
    let second = find("pd-scorecard", "2").unwrap();
    monitor.count(
        &owner,
        Outcome::Approved,
        Some(&Scored::by(model(), v.clone())),
    );
    monitor.count(&owner, Outcome::Approved, Some(&Scored::by(second, v)));
    let report = monitor.report(date!(2026 - 11 - 23), datetime!(2026-11-30 02:00 UTC));
    let versions: Vec<&str> = report.environments[0]
        .models
        .iter()
        .map(|m| m.model.version.as_str())
        .collect();
    assert_eq!(versions, ["1", "2"]);
}
