//! Each context's statements, row mappers and store trait, written once
//! over the executor (`crate::exec`) for every backend.

mod status;
