//! White-label journeys' bank connections (issue #46): the applicant
//! authorises lendhub at their bank to read the business account, as the
//! hosted journey's bank step does, and the submission names the
//! connection. In the live environment this is how a white-label
//! application gets the account its decision reads and its loan is paid to.

pub mod banks;
pub mod create;
pub mod retrieve;
