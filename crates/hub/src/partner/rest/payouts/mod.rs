//! Payouts (beta; hub seed, Resources → Payout): what each sub-account is
//! paid for a month out of its partner's revenue share, made by the
//! month's close (`pending` while its statement is a draft, `paid` with
//! `payout.paid` when it is finalized). Listed through the API.

pub mod list;
