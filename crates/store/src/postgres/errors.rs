//! How PostgreSQL and pool failures map onto the storage errors. What a caller
//! may retry (the database is down, restarting, overloaded, or lost a
//! deadlock) is `Unavailable`; anything else is a fault.

use deadpool_postgres::PoolError;
use tokio_postgres::error::SqlState;

use crate::error::StoreError;

pub(crate) fn db(e: tokio_postgres::Error) -> StoreError {
    // The driver's Display says only "db error"; the server's message is the useful part.
    let message = match e.as_db_error() {
        Some(d) => format!("{} ({})", d.message(), d.code().code()),
        None => e.to_string(),
    };
    if retryable(&e) {
        StoreError::Unavailable(message)
    } else {
        StoreError::Internal(message)
    }
}

fn retryable(e: &tokio_postgres::Error) -> bool {
    match e.code() {
        // No SQLSTATE: the connection failed, closed or timed out (retryable),
        // or the driver refused a value (a fault).
        None => {
            e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
        }
        Some(code) => {
            let class = &code.code()[..2];
            // 08 connection, 53 resources, 57 operator intervention (shutdown,
            // statement timeout), 40 transaction rollback (deadlock, serialization).
            matches!(class, "08" | "53" | "57" | "40") || *code == SqlState::LOCK_NOT_AVAILABLE
        }
    }
}

pub(crate) fn pool(e: PoolError) -> StoreError {
    match e {
        PoolError::Backend(e) => db(e),
        PoolError::Timeout(kind) => StoreError::Unavailable(format!(
            "no database connection within the timeout ({kind:?})"
        )),
        other => StoreError::Unavailable(other.to_string()),
    }
}

pub(crate) fn internal(e: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(e.to_string())
}
