use super::*;
use crate::lending::underwriting::adverse;
use crate::sandbox::decisioning::{Outcome, ReasonCode};

fn champion() -> &'static Scorecard {
    super::champion().unwrap()
}

fn example(name: &str) -> &'static scorecard::Example {
    champion().examples.iter().find(|e| e.name == name).unwrap()
}

#[test]
fn every_bundled_model_loads() {
    assert_eq!(bundled().len(), BUNDLED.len());
    let c = champion();
    assert_eq!((c.id.as_str(), c.version.as_str()), ("pd-scorecard", "1"));
    assert_eq!(find("pd-scorecard", "1"), Some(c));
    assert!(c.examples.len() >= 10);
    assert!(find("pd-scorecard", "2").is_some(), "the challenger");
}

/// The evaluator scores every example exactly as training's Python did,
/// for every bundled version.
#[test]
fn the_evaluator_scores_as_training_did() {
    for (model, e) in bundled()
        .iter()
        .flat_map(|m| m.examples.iter().map(move |e| (m, e)))
    {
        let p = model.score(&e.features).probability;
        assert!(
            (p - e.probability).abs() <= 1e-12 * e.probability.max(1e-12) + 1e-15,
            "{}: {p} against {}",
            e.name,
            e.probability
        );
    }
}

/// What the generator built healthy is approved at the cheapest price; what
/// it built distressed is declined, for its cash flow first.
#[test]
fn a_healthy_company_is_approved_and_a_distressed_one_declined() {
    let c = champion();
    let healthy = c.score(&example("healthy").features);
    assert_eq!(c.cutoffs.outcome(healthy.probability), Outcome::Approved);
    assert_eq!(c.price_bps(healthy.probability), 900);
    let distressed = c.score(&example("distressed").features);
    assert_eq!(c.cutoffs.outcome(distressed.probability), Outcome::Declined);
    let reasons = adverse(&distressed);
    assert_eq!(reasons[0], ReasonCode::AffordabilityLow, "{reasons:?}");
    assert!(reasons.contains(&ReasonCode::ThinFile), "{reasons:?}");
}

/// The contributions add up: the log-odds are the intercept plus the
/// points, and the weights are what the company differs from the average.
#[test]
fn the_contributions_sum_to_the_score() {
    let c = champion();
    let average: f64 = c.intercept + c.features.iter().map(|f| f.mean_points).sum::<f64>();
    for e in &c.examples {
        let s = c.score(&e.features);
        let points: f64 = s.contributions.iter().map(|x| x.points).sum();
        let weights: f64 = s.contributions.iter().map(|x| x.weight).sum();
        assert!(
            (s.log_odds - (c.intercept + points)).abs() < 1e-9,
            "{}",
            e.name
        );
        assert!((s.log_odds - average - weights).abs() < 1e-9, "{}", e.name);
        assert_eq!(s.contributions.len(), c.features.len());
    }
}

/// Missing (no account connected) scores the missing bin and names the
/// data; unknown (read before lendhub measured it) weighs nothing.
#[test]
fn missing_and_unknown_values_are_told_apart() {
    let c = champion();
    let mut v = example("healthy").features.clone();
    v.set(Feature::DaysOverdrawn, None);
    let unknown = c.score(&v);
    let weight = |s: &Score| {
        s.contributions
            .iter()
            .find(|x| x.feature == Feature::DaysOverdrawn)
            .unwrap()
            .clone()
    };
    assert!(weight(&unknown).weight.abs() < 1e-12);
    let mut missing = FeatureVector::default();
    for (f, value) in v.iter() {
        if f != Feature::DaysOverdrawn {
            missing.set(f, value.cloned());
        }
    }
    let m = weight(&c.score(&missing));
    assert_eq!(m.reason, ReasonCode::BankingDataInsufficient);
}

#[test]
fn a_model_that_is_not_a_well_formed_scorecard_is_refused() {
    let json = include_str!("pd-scorecard-1.json");
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    doc["kind"] = "gradient_boosted_trees".into();
    assert!(matches!(
        Scorecard::parse(&doc.to_string()),
        Err(Unusable::Kind(_))
    ));
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    doc["features"][0]["bins"][1]["below"] = 300.into();
    assert!(matches!(
        Scorecard::parse(&doc.to_string()),
        Err(Unusable::Bins(Feature::BureauScore))
    ));
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    doc["cutoffs"]["approve_below"] = 0.5.into();
    assert_eq!(Scorecard::parse(&doc.to_string()), Err(Unusable::Bands));
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    doc["features"][0]["name"] = "shoe_size".into();
    assert!(matches!(
        Scorecard::parse(&doc.to_string()),
        Err(Unusable::Format(_))
    ));
}

fn named(version: &str) -> ModelRef {
    ModelRef {
        id: "pd-scorecard".into(),
        version: version.into(),
    }
}

/// The default decides until the operator names another; a challenger
/// that is the champion, or not bundled, scores nothing.
#[test]
fn the_roles_resolve_to_bundled_models() {
    use registry::Roles;
    let none = Roles::default().in_force().unwrap();
    assert_eq!(none.champion.version, "1");
    assert!(none.challenger.is_none());
    let shadowed = Roles {
        champion: None,
        challenger: Some(named("2")),
    }
    .in_force()
    .unwrap();
    assert_eq!(shadowed.challenger.unwrap().version, "2");
    let promoted = Roles {
        champion: Some(named("2")),
        challenger: Some(named("2")),
    }
    .in_force()
    .unwrap();
    assert_eq!(promoted.champion.version, "2");
    assert!(
        promoted.challenger.is_none(),
        "the champion is no challenger"
    );
    let gone = Roles {
        champion: Some(named("9")),
        challenger: Some(named("9")),
    }
    .in_force()
    .unwrap();
    assert_eq!(
        (gone.champion.version.as_str(), gone.challenger.is_none()),
        ("1", true)
    );
}

#[test]
fn a_comparison_counts_each_side_over_the_same_decisions() {
    use crate::ids::{DecisionId, HubId};
    use registry::{ShadowScore, compare};
    let at = time::macros::datetime!(2026-12-01 09:00 UTC);
    let score = |n: u128, champion: (f64, Outcome), challenger: (f64, Outcome)| ShadowScore {
        decision_id: DecisionId::generate(1, n),
        owner: crate::tenant::Tenant::partner("pk_live_x", false, None),
        champion: named("1"),
        champion_probability: champion.0,
        champion_outcome: champion.1,
        challenger: named("2"),
        probability: challenger.0,
        outcome: challenger.1,
        scored_at: at,
    };
    let scores = [
        score(1, (0.004, Outcome::Approved), (0.006, Outcome::Approved)),
        score(2, (0.07, Outcome::Referred), (0.03, Outcome::Approved)),
        score(3, (0.4, Outcome::Declined), (0.6, Outcome::Declined)),
    ];
    let c = compare(&scores, &named("1"), &named("2")).unwrap();
    assert_eq!((c.decisions, c.disagreements), (3, 1));
    assert_eq!(
        (
            c.champion.approved,
            c.champion.referred,
            c.champion.declined
        ),
        (1, 1, 1)
    );
    assert_eq!(c.challenger.approved, 2);
    assert_eq!(c.champion.distribution, [1, 0, 0, 1, 0, 1, 0]);
    assert_eq!(c.challenger.distribution, [1, 0, 1, 0, 0, 0, 1]);
    assert!((c.challenger.approval_rate - 2.0 / 3.0).abs() < 1e-12);
    assert!(compare(&scores, &named("2"), &named("1")).is_none());
}
