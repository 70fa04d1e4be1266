//! Partner statements (hub seed, Commercial model; issue #17): each
//! month's integration fees or revenue share, closed by itself on the
//! owner's clock — drafted when the month ends (`invoice.draft`), finalized
//! on the 2nd working day of the next month in England and Wales
//! (`invoice.finalized`) — or again by the operator (`lendhub billing
//! close`). Listed and read through the API, and printable as an invoice.

pub mod invoice;
pub mod list;
pub mod retrieve;
