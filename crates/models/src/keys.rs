//! The model signing keys (`crates/models/keys/README.md`): public, for the
//! model bank's message signatures only, never for a real bank.

/// The key lendhub signs its payment requests to the model bank with.
pub const LENDHUB_SIGNING_PEM: &str = include_str!("../keys/lendhub-signing.pem");
/// Its public half, which the model bank verifies requests with by default.
pub const LENDHUB_SIGNING_PUBLIC_PEM: &str = include_str!("../keys/lendhub-signing.pub.pem");
pub const LENDHUB_SIGNING_KID: &str = "lendhub-model-signing";
/// Who lendhub says it is in its signatures to the model bank
/// (`http://openbanking.org.uk/iss`).
pub const LENDHUB_SIGNING_ISS: &str = "lendhub-model/lendhub";

/// The key the model bank signs its answers with, and its JWKS.
pub const MODEL_BANK_SIGNING_PEM: &str = include_str!("../keys/model-bank-signing.pem");
pub(crate) const MODEL_BANK_JWKS: &str = include_str!("../keys/model-bank-signing.jwks.json");
pub(crate) const MODEL_BANK_KID: &str = "model-bank-signing";
pub(crate) const MODEL_BANK_ISS: &str = "model-bank";
/// Its public half: what lendhub checks the model rail's webhooks
/// (`DigitalSignature`) with.
pub const MODEL_BANK_SIGNING_PUBLIC_PEM: &str = include_str!("../keys/model-bank-signing.pub.pem");
