//! The borrower's statement (hub seed, Resources → Ledger entry;
//! `GET /accounts/{id}/transactions`): a view of the double-entry ledger,
//! one entry per posted transfer that touched the loan, signed as the
//! borrower sees it. Nothing here is stored: the transfers are the record,
//! and an entry's id is derived from its transfer's, so the same transfer
//! always shows under the same `txn_` id.

use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::clock::unix_ms;
use crate::ids::{AccountId, HubId, LedgerEntryId};
use crate::ledger::transfer::{Movement, Transfer};
use crate::money::Money;
use crate::servicing::account::Account;
use crate::servicing::ledger::{borrower_amount, is_posted};

/// What moved, as the statement names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// The loan paid out (negative).
    Drawdown,
    /// Interest charged (negative).
    Interest,
    /// A fee charged (negative).
    Fee,
    /// A payment the borrower made (positive).
    Collection,
    /// A payment the payer's bank took back (negative).
    Return,
    /// A payment, or credit, handed back to the borrower (negative).
    Refund,
    /// What was owed given up (positive).
    WriteOff,
}

impl EntryKind {
    pub const ALL: [EntryKind; 7] = [
        EntryKind::Drawdown,
        EntryKind::Interest,
        EntryKind::Fee,
        EntryKind::Collection,
        EntryKind::Return,
        EntryKind::Refund,
        EntryKind::WriteOff,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Drawdown => "drawdown",
            EntryKind::Interest => "interest",
            EntryKind::Fee => "fee",
            EntryKind::Collection => "collection",
            EntryKind::Return => "return",
            EntryKind::Refund => "refund",
            EntryKind::WriteOff => "write_off",
        }
    }

    fn of(movement: Movement) -> Option<Self> {
        Some(match movement {
            Movement::Drawdown => EntryKind::Drawdown,
            Movement::Accrual => EntryKind::Interest,
            Movement::Fee => EntryKind::Fee,
            Movement::Collection => EntryKind::Collection,
            Movement::Return => EntryKind::Return,
            Movement::Refund => EntryKind::Refund,
            Movement::WriteOff => EntryKind::WriteOff,
            Movement::Capital
            | Movement::RevenueShare
            | Movement::Payout
            | Movement::Unidentified => return None,
        })
    }
}

/// One line of the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: LedgerEntryId,
    pub account_id: AccountId,
    pub kind: EntryKind,
    /// Signed as the borrower sees it: what they paid or hold positive,
    /// what they were lent, charged or handed back negative.
    pub amount: Money,
    /// The payment a collection, return or refund moved money by.
    pub payment_id: Option<String>,
    pub note: Option<String>,
    pub posted_at: OffsetDateTime,
    /// The transfer the entry shows.
    pub transfer_id: String,
}

/// The id an entry of `transfer` (posted at `at`) shows under: the time
/// it posted, then 80 bits of a digest of the transfer's id.
pub fn entry_id(transfer: &str, at: OffsetDateTime) -> LedgerEntryId {
    let digest = Sha256::digest(transfer.as_bytes());
    let mut bits = [0u8; 16];
    bits[6..].copy_from_slice(&digest[..10]);
    LedgerEntryId::generate(unix_ms(at).max(0) as u64, u128::from_be_bytes(bits))
}

/// `account`'s statement from `transfers` (every transfer touching the
/// loan), newest first; `None` on arithmetic overflow.
pub fn statement(account: &Account, transfers: &[Transfer]) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    for t in transfers {
        entries.extend(entry(account, t)?);
    }
    entries.sort_by(|a, b| order(b).cmp(&order(a)));
    Some(entries)
}

/// The order of the statement, oldest first: as the store's index reads a
/// loan's transfers (the millisecond posted, then the transfer's id).
fn order(e: &Entry) -> (i64, &str) {
    (unix_ms(e.posted_at), e.transfer_id.as_str())
}

/// The entry posted `transfer` makes on `account`'s statement: none for a
/// pending or voided one, or one that moves nothing the borrower owes or
/// holds; `None` on arithmetic overflow.
pub fn entry(account: &Account, t: &Transfer) -> Option<Option<Entry>> {
    if !is_posted(t) {
        return Some(None);
    }
    let Some(kind) = EntryKind::of(t.movement()) else {
        return Some(None);
    };
    let amount = borrower_amount(&account.id, t)?;
    if amount == Money::ZERO {
        return Some(None);
    }
    let payment_id = match kind {
        EntryKind::Collection | EntryKind::Return | EntryKind::Refund => {
            t.payment().map(str::to_owned)
        }
        _ => None,
    };
    let note = match kind {
        EntryKind::Drawdown => Some(format!("Faster Payments {}", account.disbursement_id)),
        EntryKind::Interest => Some(format!("Interest to {}", t.at().date())),
        EntryKind::WriteOff => Some("Written off".to_owned()),
        _ => None,
    };
    Some(Some(Entry {
        id: entry_id(t.id(), t.at()),
        account_id: account.id.clone(),
        kind,
        amount,
        payment_id,
        note,
        posted_at: t.at(),
        transfer_id: t.id().to_owned(),
    }))
}
