//! Why a flow could not go on, in terms each surface words for itself: the
//! REST tier as its error envelope, the hosted pages as a page.

use lendhub_domain::problem::Problem;
use lendhub_store::{CommitError, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    /// No such object for this owner (unknown, or another's).
    #[error("no such {0}")]
    NotFound(&'static str),
    /// The object is not in a state that allows this step.
    #[error("{0}")]
    Conflict(&'static str),
    /// A marketplace app not (or not yet) approved by the lender, in its
    /// review state.
    #[error("the marketplace app is {0}")]
    AppNotApproved(&'static str),
    /// The decision's offer was accepted and signed: it cannot change.
    #[error("the offer was already accepted and signed")]
    DecisionLocked,
    /// The input breaks the domain's rules, field by field.
    #[error("{} field(s) refused", .0.len())]
    Validation(Vec<Problem>),
    /// A counterparty or the database could not be reached; retry.
    #[error("unavailable: {0}")]
    Unavailable(String),
    #[error("internal: {0}")]
    Internal(String),
}

impl From<StoreError> for FlowError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => FlowError::Unavailable(m),
            StoreError::Internal(m) => FlowError::Internal(m),
        }
    }
}

impl From<crate::views::account::BalanceOverflow> for FlowError {
    fn from(e: crate::views::account::BalanceOverflow) -> Self {
        FlowError::Internal(e.to_string())
    }
}

impl From<CommitError> for FlowError {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::Conflict => {
                FlowError::Conflict("the resource changed concurrently; retry")
            }
            CommitError::IdempotencyKeyTaken => {
                FlowError::Internal("a flow's commit carried an idempotency key".to_owned())
            }
            CommitError::Store(s) => s.into(),
        }
    }
}

impl From<Vec<Problem>> for FlowError {
    fn from(problems: Vec<Problem>) -> Self {
        FlowError::Validation(problems)
    }
}

/// An object that would not render as JSON: a defect, never the caller's.
impl From<serde_json::Error> for FlowError {
    fn from(e: serde_json::Error) -> Self {
        FlowError::Internal(e.to_string())
    }
}
