//! What the pay page holds: the payments and mandates it shows, the banks a
//! payer may pick, its links, and the flows that move a payment.

use std::sync::Arc;

use lendhub_store::ServicingStore;

use crate::counterparties::{BankPayments, PerEnvironment};
use crate::flows::Context;
use crate::links::Links;

#[derive(Clone)]
pub struct PayState {
    /// Payments, their schedules and mandates, read by link.
    pub servicing: Arc<dyn ServicingStore>,
    /// Each environment's banks a payer may authorise at.
    pub payments: PerEnvironment<Arc<dyn BankPayments>>,
    pub links: Links,
    pub flows: Context,
}
