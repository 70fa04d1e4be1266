//! What the pure domain leaves outside it: the system clock, the
//! operating system's randomness, and the randomised signatures made with
//! it (PS256). Each item here reads one of them and hands
//! the result to a domain function that takes it as an argument, so the
//! domain itself never performs I/O and its tests choose every instant and
//! every random byte.

mod clock;
mod crash_point;
mod random;
mod rsa_signer;

pub use clock::{ShiftedClock, SystemClock};
pub use crash_point::{CRASH_AT, crash_point};
pub use random::{
    GenerateKey, NewRandom, Seal, generate_access_token, generate_api_key, generate_client,
    new_hub_id, random_bytes, random_token, random_uuid, webhook_secret,
};
pub use rsa_signer::{Rs256Verifier, RsaSigner};
