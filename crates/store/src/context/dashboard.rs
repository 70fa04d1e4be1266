//! The partner dashboard's storage: staff and their roles, and dashboard
//! sessions.

use async_trait::async_trait;

use crate::error::StoreError;

/// A person's role at a partner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaffRecord {
    pub partner_client_id: String,
    /// The identity provider's `sub` (`usr_…`).
    pub user_id: String,
    /// `owner`, `developer`, `finance` or `read_only`.
    pub role: String,
    pub created_at_ms: i64,
}

/// A staff member as a list shows them: with their e-mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaffMember {
    pub staff: StaffRecord,
    pub email: String,
    pub partner_name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DashboardSessionRecord {
    /// SHA-256 of the cookie's token.
    pub token_hash: Vec<u8>,
    pub user_id: String,
    pub partner_client_id: String,
    pub csrf: String,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

/// A lender operator's session of the operations console: bound to no
/// partner, and valid only while its person's address is an operator's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorSessionRecord {
    /// SHA-256 of the cookie's token.
    pub token_hash: Vec<u8>,
    pub user_id: String,
    pub csrf: String,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

/// One action taken from the dashboard: who, what, when. Written as
/// [`crate::Write::Audit`] in the commit that takes the action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRecord {
    /// `aud_…`
    pub id: String,
    pub partner_client_id: String,
    pub user_id: String,
    pub email: String,
    /// What was done, e.g. `webhook_endpoint.enable`.
    pub action: String,
    /// What it was done to, e.g. the endpoint's id.
    pub target: String,
    /// `live` or `test`.
    pub environment: String,
    pub at_ms: i64,
}

impl From<AuditRecord> for crate::Write {
    fn from(record: AuditRecord) -> Self {
        crate::Write::Audit(record)
    }
}

/// One count of the dashboard's charts: an owner's metric on a UTC day.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageCount {
    pub owner: String,
    /// `YYYY-MM-DD`
    pub day: String,
    /// `lendhub_domain::billing::usage::Metric::as_str`
    pub metric: String,
    pub count: i64,
}

/// An owner's invitation to the partner's staff, open until the person it
/// names signs in with its address, it is withdrawn, or it expires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationRecord {
    /// `dsi_…`
    pub id: String,
    pub partner_client_id: String,
    /// Lower-cased.
    pub email: String,
    pub role: String,
    /// The owner's user id.
    pub invited_by: String,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

/// A change to a partner's staff, committed with its audit line.
#[derive(Clone, Debug)]
pub enum StaffWrite {
    /// A new member, or a member's new role.
    Put(StaffRecord),
    /// No longer staff; their dashboard sessions for the partner end.
    Remove {
        partner_client_id: String,
        user_id: String,
        at_ms: i64,
    },
    /// An invitation and the mail that tells its person.
    Invite {
        invitation: InvitationRecord,
        mail: crate::public::MailRecord,
    },
    /// Accepted by `accepted_by`, or withdrawn (none); once.
    EndInvitation {
        id: String,
        partner_client_id: String,
        accepted_by: Option<String>,
        at_ms: i64,
    },
}

impl From<StaffWrite> for crate::Write {
    fn from(write: StaffWrite) -> Self {
        crate::Write::Staff(write)
    }
}

#[async_trait]
pub trait DashboardStore: Send + Sync {
    /// Gives the person this role at the partner (a new member, or a new
    /// role for one).
    async fn put_staff(&self, staff: StaffRecord) -> Result<(), StoreError>;
    /// Whether they were staff. Their dashboard sessions for the partner end.
    async fn remove_staff(
        &self,
        partner_client_id: &str,
        user_id: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError>;
    /// Every partner the person is staff of.
    async fn staff_of_user(&self, user_id: &str) -> Result<Vec<StaffMember>, StoreError>;
    /// The partner's staff, by e-mail.
    async fn staff_of_partner(
        &self,
        partner_client_id: &str,
    ) -> Result<Vec<StaffMember>, StoreError>;

    async fn create_dashboard_session(
        &self,
        session: DashboardSessionRecord,
    ) -> Result<(), StoreError>;
    /// A session not ended and not expired at `now_ms`, with the role its
    /// person holds now (a session of someone no longer staff is none).
    async fn dashboard_session(
        &self,
        token_hash: &[u8],
        now_ms: i64,
    ) -> Result<Option<(DashboardSessionRecord, StaffMember)>, StoreError>;
    async fn end_dashboard_session(&self, token_hash: &[u8], at_ms: i64) -> Result<(), StoreError>;
    async fn create_operator_session(
        &self,
        session: OperatorSessionRecord,
    ) -> Result<(), StoreError>;
    /// An operator session not ended and not expired at `now_ms`, with its
    /// person's address now (none if they are disabled).
    async fn operator_session(
        &self,
        token_hash: &[u8],
        now_ms: i64,
    ) -> Result<Option<(OperatorSessionRecord, String)>, StoreError>;
    async fn end_operator_session(&self, token_hash: &[u8], at_ms: i64) -> Result<(), StoreError>;
    /// The partner's open invitations at `now_ms`, newest first.
    async fn open_invitations_of_partner(
        &self,
        partner_client_id: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError>;
    /// The open invitations naming `email` (lower-cased) at `now_ms`.
    async fn open_invitations_for_email(
        &self,
        email: &str,
        now_ms: i64,
    ) -> Result<Vec<InvitationRecord>, StoreError>;
    /// Adds each count to what is stored for its owner, day and metric.
    async fn add_usage(&self, counts: Vec<UsageCount>) -> Result<(), StoreError>;
    /// The owner's counts from `since_day` (`YYYY-MM-DD`) on, by day.
    async fn usage_since(
        &self,
        owner: &str,
        since_day: &str,
    ) -> Result<Vec<UsageCount>, StoreError>;
    /// The partner's audit log, newest first.
    async fn audit_log(
        &self,
        partner_client_id: &str,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError>;
}
