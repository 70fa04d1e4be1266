//! The status page's rules: what a component's probes say about it, how a
//! day of probes reads, and the incident and maintenance life cycles, in the
//! vocabulary Atlassian Statuspage's clients already read (`operational`,
//! `major_outage`, indicator `none` … `critical`).

use std::fmt;

/// What the page reports on. The order is the page's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    Sandbox,
    PartnerRing,
    RestTier,
    PublicRing,
    IdentityProvider,
    WebhookDelivery,
    Database,
}

impl Component {
    pub const ALL: [Component; 7] = [
        Component::Sandbox,
        Component::PartnerRing,
        Component::RestTier,
        Component::PublicRing,
        Component::IdentityProvider,
        Component::WebhookDelivery,
        Component::Database,
    ];

    /// The stable key: ids in `summary.json`, names in the CLI.
    pub fn key(self) -> &'static str {
        match self {
            Component::Sandbox => "sandbox",
            Component::PartnerRing => "partner_ring",
            Component::RestTier => "rest_tier",
            Component::PublicRing => "public_ring",
            Component::IdentityProvider => "identity_provider",
            Component::WebhookDelivery => "webhook_delivery",
            Component::Database => "database",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Component::Sandbox => "Sandbox API",
            Component::PartnerRing => "Partner API (OAuth, MCP)",
            Component::RestTier => "Partner REST API",
            Component::PublicRing => "Public API",
            Component::IdentityProvider => "Sign-in (identity provider)",
            Component::WebhookDelivery => "Webhook delivery",
            Component::Database => "Database",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Component::Sandbox => {
                "The sandbox partner API: tokens, applications, payments, events."
            }
            Component::PartnerRing => {
                "Partner tokens, introspection, JWKS, metadata and the partner MCP server."
            }
            Component::RestTier => {
                "Applications, decisions, accounts, payments, webhooks and events under /partner/v1."
            }
            Component::PublicRing => "Quotes, the catalogue, enquiries and the public MCP server.",
            Component::IdentityProvider => {
                "Sign-in, consent and tokens for applicants and partner staff."
            }
            Component::WebhookDelivery => {
                "Signed event deliveries to partner endpoints; lag is the oldest due delivery's wait."
            }
            Component::Database => "Where every acknowledged write is kept.",
        }
    }

    pub fn parse(key: &str) -> Option<Component> {
        Component::ALL.into_iter().find(|c| c.key() == key)
    }

    /// Whether the component does its work only while the database answers.
    /// The public ring still quotes without it (pricing is in memory), so
    /// losing the database is a partial outage there, a major one elsewhere.
    fn without_database(self) -> Health {
        match self {
            Component::PublicRing => Health::PartialOutage,
            _ => Health::MajorOutage,
        }
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A component's state, worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Health {
    Operational,
    UnderMaintenance,
    DegradedPerformance,
    PartialOutage,
    MajorOutage,
}

impl Health {
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Operational => "operational",
            Health::UnderMaintenance => "under_maintenance",
            Health::DegradedPerformance => "degraded_performance",
            Health::PartialOutage => "partial_outage",
            Health::MajorOutage => "major_outage",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Health::Operational => "Operational",
            Health::UnderMaintenance => "Under maintenance",
            Health::DegradedPerformance => "Degraded performance",
            Health::PartialOutage => "Partial outage",
            Health::MajorOutage => "Major outage",
        }
    }
}

/// What one probe of a component found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The component's listener answered its probe request as documented.
    pub answered: bool,
    /// How long the answer took.
    pub latency_ms: u64,
    /// The database answered its own probe in the same round.
    pub database_up: bool,
    /// Webhook delivery only: how long the oldest due delivery has waited.
    pub lag_ms: Option<u64>,
}

/// A probe slower than this reads as degraded performance.
pub const SLOW_MS: u64 = 2_000;
/// Webhook delivery lag past this is degraded; past `LAG_PARTIAL_MS`, a
/// partial outage (deliveries are late enough for partners to notice).
pub const LAG_DEGRADED_MS: u64 = 60_000;
pub const LAG_PARTIAL_MS: u64 = 15 * 60_000;

/// The judgement of one probe.
pub fn judge(component: Component, probe: Probe) -> Health {
    if !probe.answered {
        return Health::MajorOutage;
    }
    if !probe.database_up && component != Component::Database {
        return component.without_database();
    }
    let lag = probe.lag_ms.unwrap_or(0);
    if lag > LAG_PARTIAL_MS {
        Health::PartialOutage
    } else if lag > LAG_DEGRADED_MS || probe.latency_ms > SLOW_MS {
        Health::DegradedPerformance
    } else {
        Health::Operational
    }
}

/// The page's overall indicator, from its worst component.
pub fn indicator(worst: Health) -> (&'static str, &'static str) {
    match worst {
        Health::Operational => ("none", "All Systems Operational"),
        Health::UnderMaintenance => ("maintenance", "Service Under Maintenance"),
        Health::DegradedPerformance => ("minor", "Minor Service Outage"),
        Health::PartialOutage => ("major", "Partial System Outage"),
        Health::MajorOutage => ("critical", "Major System Outage"),
    }
}

/// One component's probes on one day (UTC), as the history keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DayTally {
    pub operational: u64,
    pub degraded: u64,
    pub partial: u64,
    pub major: u64,
}

impl DayTally {
    pub fn one(health: Health) -> Self {
        let mut t = DayTally::default();
        t.add(health);
        t
    }

    pub fn add(&mut self, health: Health) {
        match health {
            Health::Operational | Health::UnderMaintenance => self.operational += 1,
            Health::DegradedPerformance => self.degraded += 1,
            Health::PartialOutage => self.partial += 1,
            Health::MajorOutage => self.major += 1,
        }
    }

    pub fn merge(&mut self, other: DayTally) {
        self.operational = self.operational.saturating_add(other.operational);
        self.degraded = self.degraded.saturating_add(other.degraded);
        self.partial = self.partial.saturating_add(other.partial);
        self.major = self.major.saturating_add(other.major);
    }

    pub fn samples(&self) -> u64 {
        self.operational
            .saturating_add(self.degraded)
            .saturating_add(self.partial)
            .saturating_add(self.major)
    }

    /// Uptime in hundredths of a percent: a partial outage counts half down
    /// and degraded performance counts up (it answered), as Statuspage's
    /// uptime bars do. `None` for a day without probes.
    pub fn uptime_bp(&self) -> Option<u64> {
        let samples = self.samples();
        if samples == 0 {
            return None;
        }
        // Doubled to count a partial outage as half a sample down.
        let down2 = self.major.saturating_mul(2).saturating_add(self.partial);
        let up2 = samples.saturating_mul(2).saturating_sub(down2);
        Some(up2.saturating_mul(10_000) / samples.saturating_mul(2))
    }

    /// The day's worst state, as its bar is coloured.
    pub fn worst(&self) -> Option<Health> {
        if self.major > 0 {
            Some(Health::MajorOutage)
        } else if self.partial > 0 {
            Some(Health::PartialOutage)
        } else if self.degraded > 0 {
            Some(Health::DegradedPerformance)
        } else if self.operational > 0 {
            Some(Health::Operational)
        } else {
            None
        }
    }
}

/// An incident (unplanned) or a maintenance window (planned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Incident,
    Maintenance,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Incident => "incident",
            Kind::Maintenance => "maintenance",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        match s {
            "incident" => Some(Kind::Incident),
            "maintenance" => Some(Kind::Maintenance),
            _ => None,
        }
    }

    /// The statuses an update may set, in their usual order; the last ends it.
    pub fn statuses(self) -> &'static [&'static str] {
        match self {
            Kind::Incident => &["investigating", "identified", "monitoring", "resolved"],
            Kind::Maintenance => &["scheduled", "in_progress", "verifying", "completed"],
        }
    }

    pub fn first_status(self) -> &'static str {
        self.statuses()[0]
    }

    /// Whether `status` is one of this kind's.
    pub fn allows(self, status: &str) -> bool {
        self.statuses().contains(&status)
    }

    /// Whether `status` closes the incident or window.
    pub fn is_final(self, status: &str) -> bool {
        self.statuses().last() == Some(&status)
    }
}

/// An incident's impact, as Statuspage names it.
pub const IMPACTS: [&str; 5] = ["none", "minor", "major", "critical", "maintenance"];

/// Why an incident change is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncidentError {
    UnknownStatus {
        kind: Kind,
        status: String,
    },
    UnknownImpact(String),
    UnknownComponent(String),
    AlreadyClosed,
    EmptyName,
    EmptyMessage,
    /// A window's end before its start.
    WindowBackwards,
}

impl fmt::Display for IncidentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IncidentError::UnknownStatus { kind, status } => write!(
                f,
                "{status:?} is not a status of an {} (one of: {})",
                kind.as_str(),
                kind.statuses().join(", ")
            ),
            IncidentError::UnknownImpact(i) => {
                write!(f, "{i:?} is not an impact (one of: {})", IMPACTS.join(", "))
            }
            IncidentError::UnknownComponent(c) => {
                let keys: Vec<_> = Component::ALL.iter().map(|c| c.key()).collect();
                write!(f, "{c:?} is not a component (one of: {})", keys.join(", "))
            }
            IncidentError::AlreadyClosed => f.write_str("it is already resolved or completed"),
            IncidentError::EmptyName => f.write_str("a name is required"),
            IncidentError::EmptyMessage => f.write_str("an update needs a message"),
            IncidentError::WindowBackwards => f.write_str("the window ends before it starts"),
        }
    }
}

impl std::error::Error for IncidentError {}

/// Checks a new incident or window before it is stored.
pub fn check_new(
    kind: Kind,
    name: &str,
    impact: &str,
    components: &[String],
    message: &str,
    window: Option<(i64, i64)>,
) -> Result<(), IncidentError> {
    if name.trim().is_empty() {
        return Err(IncidentError::EmptyName);
    }
    if message.trim().is_empty() {
        return Err(IncidentError::EmptyMessage);
    }
    if !IMPACTS.contains(&impact) {
        return Err(IncidentError::UnknownImpact(impact.to_owned()));
    }
    if let Some(bad) = components.iter().find(|c| Component::parse(c).is_none()) {
        return Err(IncidentError::UnknownComponent(bad.clone()));
    }
    if let (Kind::Maintenance, Some((from, until))) = (kind, window)
        && until < from
    {
        return Err(IncidentError::WindowBackwards);
    }
    Ok(())
}

/// Checks an update to an incident whose status is `current`.
pub fn check_update(
    kind: Kind,
    current: &str,
    next: &str,
    message: &str,
) -> Result<(), IncidentError> {
    if kind.is_final(current) {
        return Err(IncidentError::AlreadyClosed);
    }
    if !kind.allows(next) {
        return Err(IncidentError::UnknownStatus {
            kind,
            status: next.to_owned(),
        });
    }
    if message.trim().is_empty() {
        return Err(IncidentError::EmptyMessage);
    }
    Ok(())
}

/// Whether a maintenance window puts its components under maintenance at
/// `now_ms`: from its start (or once an operator marks it in progress)
/// until it is completed, or its end has passed.
pub fn in_maintenance(status: &str, window: (i64, i64), now_ms: i64) -> bool {
    match status {
        "in_progress" | "verifying" => true,
        "scheduled" => window.0 <= now_ms && now_ms < window.1,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn probe(answered: bool, database_up: bool) -> Probe {
        Probe {
            answered,
            latency_ms: 3,
            database_up,
            lag_ms: None,
        }
    }

    #[test]
    fn a_component_that_does_not_answer_is_down() {
        for c in Component::ALL {
            assert_eq!(judge(c, probe(false, true)), Health::MajorOutage);
        }
    }

    #[test]
    fn losing_the_database_is_a_partial_outage_only_where_work_goes_on() {
        assert_eq!(
            judge(Component::PublicRing, probe(true, false)),
            Health::PartialOutage
        );
        assert_eq!(
            judge(Component::PartnerRing, probe(true, false)),
            Health::MajorOutage
        );
        assert_eq!(
            judge(Component::Sandbox, probe(true, false)),
            Health::MajorOutage
        );
    }

    #[test]
    fn slowness_and_lag_degrade() {
        let slow = Probe {
            latency_ms: SLOW_MS + 1,
            ..probe(true, true)
        };
        assert_eq!(judge(Component::Sandbox, slow), Health::DegradedPerformance);
        let lagging = |lag| Probe {
            lag_ms: Some(lag),
            ..probe(true, true)
        };
        let w = Component::WebhookDelivery;
        assert_eq!(judge(w, lagging(LAG_DEGRADED_MS)), Health::Operational);
        assert_eq!(
            judge(w, lagging(LAG_DEGRADED_MS + 1)),
            Health::DegradedPerformance
        );
        assert_eq!(judge(w, lagging(LAG_PARTIAL_MS + 1)), Health::PartialOutage);
    }

    #[test]
    fn the_indicator_follows_the_worst_component() {
        assert_eq!(indicator(Health::Operational).0, "none");
        assert_eq!(indicator(Health::DegradedPerformance).0, "minor");
        assert_eq!(indicator(Health::PartialOutage).0, "major");
        assert_eq!(indicator(Health::MajorOutage).0, "critical");
    }

    #[test]
    fn a_day_reads_as_its_worst_probe_and_its_share_up() {
        let mut day = DayTally::default();
        assert_eq!(day.uptime_bp(), None);
        assert_eq!(day.worst(), None);
        for _ in 0..6 {
            day.add(Health::Operational);
        }
        day.add(Health::DegradedPerformance);
        day.add(Health::PartialOutage);
        assert_eq!(day.worst(), Some(Health::PartialOutage));
        // 8 probes, one partial (half down): 7.5 / 8.
        assert_eq!(day.uptime_bp(), Some(9_375));
        day.add(Health::MajorOutage);
        day.add(Health::MajorOutage);
        assert_eq!(day.uptime_bp(), Some(7_500));
    }

    #[test]
    fn updates_follow_the_kind_and_stop_at_its_end() {
        assert!(check_update(Kind::Incident, "investigating", "monitoring", "ok").is_ok());
        assert_eq!(
            check_update(Kind::Incident, "investigating", "completed", "x"),
            Err(IncidentError::UnknownStatus {
                kind: Kind::Incident,
                status: "completed".into()
            })
        );
        assert_eq!(
            check_update(Kind::Incident, "resolved", "monitoring", "x"),
            Err(IncidentError::AlreadyClosed)
        );
        assert_eq!(
            check_update(Kind::Maintenance, "scheduled", "in_progress", " "),
            Err(IncidentError::EmptyMessage)
        );
    }

    #[test]
    fn new_incidents_name_known_components_and_impacts() {
        let ok = |c: &[&str]| {
            check_new(
                Kind::Incident,
                "Slow tokens",
                "minor",
                &c.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
                "Looking",
                None,
            )
        };
        assert!(ok(&["partner_ring", "database"]).is_ok());
        assert_eq!(
            ok(&["mainframe"]),
            Err(IncidentError::UnknownComponent("mainframe".into()))
        );
        assert_eq!(
            check_new(
                Kind::Maintenance,
                "DB",
                "maintenance",
                &[],
                "m",
                Some((10, 5))
            ),
            Err(IncidentError::WindowBackwards)
        );
        assert_eq!(
            check_new(Kind::Incident, "x", "severe", &[], "m", None),
            Err(IncidentError::UnknownImpact("severe".into()))
        );
    }

    #[test]
    fn a_window_is_maintenance_while_open_or_marked_in_progress() {
        assert!(!in_maintenance("scheduled", (10, 20), 9));
        assert!(in_maintenance("scheduled", (10, 20), 10));
        assert!(!in_maintenance("scheduled", (10, 20), 20));
        assert!(in_maintenance("in_progress", (10, 20), 30));
        assert!(!in_maintenance("completed", (10, 20), 15));
    }

    proptest! {
        #[test]
        fn uptime_is_a_share_and_merging_adds(
            a in (0u64..1000, 0u64..1000, 0u64..1000, 0u64..1000),
            b in (0u64..1000, 0u64..1000, 0u64..1000, 0u64..1000),
        ) {
            let day = |(operational, degraded, partial, major)| DayTally { operational, degraded, partial, major };
            let (x, y) = (day(a), day(b));
            let mut merged = x;
            merged.merge(y);
            prop_assert_eq!(merged.samples(), x.samples() + y.samples());
            if let Some(bp) = merged.uptime_bp() {
                prop_assert!(bp <= 10_000);
                if merged.major == 0 && merged.partial == 0 {
                    prop_assert_eq!(bp, 10_000);
                }
            }
        }
    }
}
