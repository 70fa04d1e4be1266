//! The people who sign in: created by an operator (`lendhub sso users
//! create`), passwords kept as argon2id hashes.
//!
//! Parameters: argon2id, version 0x13, m = 19 456 KiB (19 MiB), t = 2,
//! p = 1, 16-byte random salt, 32-byte output; the OWASP Password Storage
//! Cheat Sheet's first recommended configuration. They are written into each
//! PHC string, so hashes made under other parameters still verify.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use lendhub_domain::identity::claims::normalise_email;
use lendhub_store::{IdentityDirectory, SsoUserRecord, StoreError};
use lendhub_system::{random_bytes, random_token};

pub const ARGON2_MEMORY_KIB: u32 = 19_456;
pub const ARGON2_ITERATIONS: u32 = 2;
pub const ARGON2_PARALLELISM: u32 = 1;
pub const ARGON2_OUTPUT_BYTES: usize = 32;

/// Passwords shorter than this are refused at creation (NCSC / NIST SP
/// 800-63B minimum); longer than `MAX_PASSWORD` bytes are refused everywhere.
pub const MIN_PASSWORD: usize = 8;
pub const MAX_PASSWORD: usize = 1024;

fn hasher() -> Result<Argon2<'static>, argon2::Error> {
    let params = Params::new(
        ARGON2_MEMORY_KIB,
        ARGON2_ITERATIONS,
        ARGON2_PARALLELISM,
        Some(ARGON2_OUTPUT_BYTES),
    )?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// An argon2id PHC string for `password`, with a fresh random salt.
pub fn hash_password(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::encode_b64(&random_bytes::<16>())?;
    let argon2 = hasher()?;
    argon2
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
}

/// Whether `password` matches the PHC string `hash` (its own parameters).
/// Slow by design: run it off the async workers.
pub fn verify_password(hash: &str, password: &str) -> bool {
    if password.len() > MAX_PASSWORD {
        return false;
    }
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

pub struct NewUser<'a> {
    pub email: &'a str,
    pub password: &'a str,
    pub given_name: &'a str,
    pub family_name: &'a str,
    pub email_verified: bool,
    pub company_number: &'a str,
    pub company_name: &'a str,
    pub company_role: &'a str,
}

#[derive(Debug)]
pub enum CreateError {
    Invalid(String),
    EmailTaken,
    Store(StoreError),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Invalid(m) => f.write_str(m),
            CreateError::EmailTaken => f.write_str("a user with this email already exists"),
            CreateError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CreateError {}

/// A plausible email address: one `@` with text on both sides, a dot in
/// the domain, no spaces. Deliverability is not ours to check here.
fn plausible_email(email: &str) -> bool {
    match email.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !email.contains(char::is_whitespace)
                && !domain.contains('@')
                && email.len() <= 254
        }
        None => false,
    }
}

/// Creates the user; returns its `sub`.
pub async fn create(
    store: &dyn IdentityDirectory,
    new: NewUser<'_>,
    now_ms: i64,
) -> Result<String, CreateError> {
    let email = normalise_email(new.email);
    if !plausible_email(&email) {
        return Err(CreateError::Invalid(format!(
            "{email} is not an email address"
        )));
    }
    let chars = new.password.chars().count();
    if chars < MIN_PASSWORD || new.password.len() > MAX_PASSWORD {
        return Err(CreateError::Invalid(format!(
            "the password must have at least {MIN_PASSWORD} characters and at most {MAX_PASSWORD} bytes"
        )));
    }
    for (flag, value) in [
        ("--given-name", new.given_name),
        ("--family-name", new.family_name),
        ("--company-number", new.company_number),
        ("--company-name", new.company_name),
        ("--company-role", new.company_role),
    ] {
        if value.trim().is_empty() {
            return Err(CreateError::Invalid(format!("{flag} must not be empty")));
        }
    }
    let password_hash =
        hash_password(new.password).map_err(|e| CreateError::Invalid(e.to_string()))?;
    let user_id = format!("usr_{}", random_token(16));
    let inserted = store
        .insert_sso_user(SsoUserRecord {
            user_id: user_id.clone(),
            email,
            password_hash,
            given_name: new.given_name.trim().to_owned(),
            family_name: new.family_name.trim().to_owned(),
            email_verified: new.email_verified,
            company_number: new.company_number.trim().to_owned(),
            company_name: new.company_name.trim().to_owned(),
            company_role: new.company_role.trim().to_owned(),
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
        })
        .await
        .map_err(CreateError::Store)?;
    if !inserted {
        return Err(CreateError::EmailTaken);
    }
    Ok(user_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_argon2id_with_the_documented_parameters() {
        let hash = hash_password("correct horse").unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_password(&hash, "correct horse"));
        assert!(!verify_password(&hash, "correct horsE"));
        assert!(!verify_password("not a hash", "correct horse"));
        assert_ne!(hash, hash_password("correct horse").unwrap(), "salted");
    }

    #[test]
    fn emails() {
        assert!(plausible_email("ada@example.com"));
        for bad in [
            "ada",
            "@example.com",
            "ada@example",
            "ada@.com",
            "a da@example.com",
            "a@b@c.com",
        ] {
            assert!(!plausible_email(bad), "{bad}");
        }
    }
}
