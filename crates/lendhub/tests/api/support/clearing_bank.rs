//! The lender's clearing bank for the payout rail's tests: `lendhub
//! simulate bank` in its own process, posting its webhooks to a hub, and
//! the key files a `counterparties.<env>.payout_rail` configuration names.

use std::path::PathBuf;

use super::Site;
use super::process::Simulator;

/// The one client registered with the bank; its secret is the API token.
pub const CLIENT: (&str, &str) = ("lendhub-test", "clearing-bank-token");

/// The bank, posting the test environment's rail webhooks to `hub`.
pub fn launch(hub: &str) -> Simulator {
    Simulator::launch(
        &[
            "bank",
            "--addr",
            "127.0.0.1:0",
            "--client-id",
            CLIENT.0,
            "--redirect-uri",
            &format!("{hub}/open-banking/callback"),
            "--rail-webhook-url",
            &format!("{hub}/payout-rail/events/test"),
        ],
        ("LENDHUB_MODEL_CLIENT_SECRET", CLIENT.1),
        "model bank listening on",
    )
}

/// lendhub's signing key and the bank's public key, written into `site`:
/// (`signing_key_file`, `bank_public_key_file`).
pub fn key_files(site: &Site) -> (PathBuf, PathBuf) {
    let signing = site.path().join("rail-signing.pem");
    let bank_key = site.path().join("rail-bank.pub.pem");
    std::fs::write(&signing, lendhub_models::keys::LENDHUB_SIGNING_PEM).unwrap();
    std::fs::write(
        &bank_key,
        lendhub_models::keys::MODEL_BANK_SIGNING_PUBLIC_PEM,
    )
    .unwrap();
    (signing, bank_key)
}
