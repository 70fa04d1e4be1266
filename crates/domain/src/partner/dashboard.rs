//! The partner dashboard's rules: who a staff member is to their partner
//! (a role), what each role may see and do, which environment a screen
//! shows, and how long a dashboard session lasts.

/// A staff member's role at their partner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Owner,
    Developer,
    Finance,
    ReadOnly,
}

/// What a screen or form does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Applications, decisions, accounts, ledgers, payments, schedules,
    /// webhook endpoints and deliveries: every role reads them.
    ReadOperations,
    /// Retry a delivery, replay an event, re-enable an endpoint, roll a
    /// webhook secret.
    ManageWebhooks,
    /// Create, roll and revoke API keys and OAuth clients.
    ManageCredentials,
    /// Statements and invoices.
    ReadBilling,
    /// Add, change and remove staff; read the audit log.
    ManageStaff,
    /// The partner's display name, logo and accent colour.
    ManageBranding,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Owner, Role::Developer, Role::Finance, Role::ReadOnly];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Developer => "developer",
            Role::Finance => "finance",
            Role::ReadOnly => "read_only",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Role::Owner => "Owner",
            Role::Developer => "Developer",
            Role::Finance => "Finance",
            Role::ReadOnly => "Read-only",
        }
    }

    pub fn parse(raw: &str) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == raw || (raw == "read-only" && *r == Role::ReadOnly))
    }

    /// The issue's roles: owners do everything; developers run the
    /// integration (webhooks, credentials); finance reads the money
    /// (statements, invoices); read-only reads the operations and changes
    /// nothing.
    pub fn may(self, action: Action) -> bool {
        match action {
            Action::ReadOperations => true,
            Action::ManageWebhooks | Action::ManageCredentials | Action::ManageBranding => {
                matches!(self, Role::Owner | Role::Developer)
            }
            Action::ReadBilling => matches!(self, Role::Owner | Role::Finance),
            Action::ManageStaff => self == Role::Owner,
        }
    }
}

/// Which of the partner's two environments a screen shows: test data never
/// appears on a live screen or the other way round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Environment {
    Live,
    Test,
}

impl Environment {
    /// The `env` query parameter; anything else (or nothing) is live.
    pub fn from_query(raw: Option<&str>) -> Environment {
        match raw {
            Some("test") => Environment::Test,
            _ => Environment::Live,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Live => "live",
            Environment::Test => "test",
        }
    }

    pub fn livemode(self) -> bool {
        self == Environment::Live
    }

    /// The environment of the keys that work in it.
    pub fn credentials(self) -> crate::partner::credentials::Environment {
        match self {
            Environment::Live => crate::partner::credentials::Environment::Live,
            Environment::Test => crate::partner::credentials::Environment::Test,
        }
    }

    pub fn other(self) -> Environment {
        match self {
            Environment::Live => Environment::Test,
            Environment::Test => Environment::Live,
        }
    }
}

/// An invitation to a partner's staff is open for a week.
pub const INVITATION_MS: i64 = 7 * 24 * 3_600_000;

/// A dashboard session lasts a working day; then the person signs in again
/// (at the identity provider, whose own session may still be open).
pub const SESSION_MS: i64 = 12 * 3_600_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_does_what_the_issue_gives_it() {
        use Action::*;
        let table = [
            (Role::Owner, [true, true, true, true, true]),
            (Role::Developer, [true, true, true, false, false]),
            (Role::Finance, [true, false, false, true, false]),
            (Role::ReadOnly, [true, false, false, false, false]),
        ];
        for (role, allowed) in table {
            let actions = [
                ReadOperations,
                ManageWebhooks,
                ManageCredentials,
                ReadBilling,
                ManageStaff,
            ];
            for (action, expected) in actions.into_iter().zip(allowed) {
                assert_eq!(role.may(action), expected, "{role:?} {action:?}");
            }
        }
    }

    #[test]
    fn roles_and_environments_read_back() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("read-only"), Some(Role::ReadOnly));
        assert_eq!(Role::parse("admin"), None);
        assert_eq!(Environment::from_query(Some("test")), Environment::Test);
        assert_eq!(Environment::from_query(Some("TEST")), Environment::Live);
        assert_eq!(Environment::from_query(None), Environment::Live);
        assert_eq!(Environment::Test.other(), Environment::Live);
    }
}
