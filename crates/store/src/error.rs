#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached or is overloaded; the caller may retry.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("storage fault: {0}")]
    Internal(String),
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum CommitError {
    /// Another request already recorded this idempotency key; nothing was written.
    #[error("idempotency key already recorded")]
    IdempotencyKeyTaken,
    /// A row changed since it was read (optimistic concurrency); nothing was written.
    #[error("concurrent modification")]
    Conflict,
    #[error(transparent)]
    Store(#[from] StoreError),
}
