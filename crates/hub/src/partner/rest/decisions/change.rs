//! What every change to a decision shares: finding it with its application,
//! and saying why a change was refused.
