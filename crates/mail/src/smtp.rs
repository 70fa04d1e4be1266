//! The SMTP client: lettre's async transport, configured from `smtp.*`.

use std::time::Duration;

use lendhub_domain::secret::Secret;
use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    /// Plain SMTP: only for a relay on the same host or a trusted network.
    None,
    /// Upgrade with STARTTLS, refusing to continue without it.
    Starttls,
    /// TLS from the first byte (SMTPS, usually port 465).
    Tls,
}

/// `smtp.*`. The password is never printed.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpSettings {
    /// The SMTP server for enquiry notifications. Unset: notifications wait in
    /// the outbox.
    pub host: Option<String>,
    /// The SMTP server's port.
    pub port: u16,
    /// `none`, `starttls` (required, never downgraded) or `tls` (SMTPS).
    pub tls: TlsMode,
    /// Set both or neither of `username` and `password`.
    pub username: Option<String>,
    /// Set both or neither of `username` and `password`. Never logged.
    pub password: Option<Secret<String>>,
    /// The sender address of notifications.
    pub from: String,
}

impl Default for SmtpSettings {
    fn default() -> Self {
        Self {
            host: None,
            port: 25,
            tls: TlsMode::None,
            username: None,
            password: None,
            from: "lendhub <no-reply@localhost>".into(),
        }
    }
}

/// An SMTP conversation may not hang a worker.
const TIMEOUT: Duration = Duration::from_secs(20);

/// `smtp.*` settings that cannot work.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("smtp.from {from:?}: {error}")]
    From {
        from: String,
        error: lettre::address::AddressError,
    },
    #[error("smtp.host {host}: {error}")]
    Host {
        host: String,
        error: lettre::transport::smtp::Error,
    },
    #[error("smtp.username and smtp.password go together")]
    HalfCredentials,
}

/// Why a message was not handed to the server; the text is kept on the
/// mail's retry record.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("recipient {to:?}: {error}")]
    Recipient {
        to: String,
        error: lettre::address::AddressError,
    },
    #[error("building the message: {0}")]
    Message(#[from] lettre::error::Error),
    #[error("{0}")]
    Transport(#[from] lettre::transport::smtp::Error),
}

#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl Mailer {
    /// `None` when no host is configured; an error for settings that cannot work.
    pub fn new(settings: &SmtpSettings) -> Result<Option<Self>, SettingsError> {
        let Some(host) = settings.host.as_deref() else {
            return Ok(None);
        };
        let from: Mailbox = settings.from.parse().map_err(|error| SettingsError::From {
            from: settings.from.clone(),
            error,
        })?;
        let bad_host = |error| SettingsError::Host {
            host: host.to_owned(),
            error,
        };
        let builder = match settings.tls {
            TlsMode::None => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host),
            TlsMode::Starttls => {
                AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(host).map_err(bad_host)?
            }
            TlsMode::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(host).map_err(bad_host)?,
        };
        let mut builder = builder.port(settings.port).timeout(Some(TIMEOUT));
        match (&settings.username, &settings.password) {
            (Some(user), Some(password)) => {
                builder =
                    builder.credentials(Credentials::new(user.clone(), password.expose().clone()));
            }
            (None, None) => {}
            _ => return Err(SettingsError::HalfCredentials),
        }
        Ok(Some(Self {
            transport: builder.build(),
            from,
        }))
    }

    /// Sends one plain-text message; the error says what the server or network did.
    pub async fn send(&self, to: &str, subject: &str, body: &str) -> Result<(), SendError> {
        let to: Mailbox = to.parse().map_err(|error| SendError::Recipient {
            to: to.to_owned(),
            error,
        })?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(body.to_owned())?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(SendError::from)
    }
}
