//! A real SMTP server for the notification tests: Python's aiosmtpd, run
//! from the test virtualenv, writing what it receives to a Maildir.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct SmtpServer {
    child: Child,
    maildir: PathBuf,
    /// Where it listens, for the service's configuration.
    pub port: u16,
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether what answers on `port` greets with SMTP's `220`.
fn greets_as_smtp(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut greeting = [0u8; 3];
    std::io::Read::read_exact(&mut stream, &mut greeting).is_ok() && &greeting == b"220"
}

/// A free loopback port (nothing listens on it yet).
pub fn free_port() -> u16 {
    // Bound later by another process (an SMTP server started again, the
    // widget test's page server): below the ephemeral range, so a port-0
    // bind elsewhere in the suite cannot take it first.
    super::unclaimed_port()
}

impl SmtpServer {
    /// Starts aiosmtpd on a free port, writing into `maildir`; returns once
    /// it greets. A port found free can be taken by another test's server
    /// before aiosmtpd binds it; then aiosmtpd exits, and another port is tried.
    pub fn start(maildir: PathBuf) -> SmtpServer {
        for _ in 0..10 {
            if let Some(server) = SmtpServer::try_start(free_port(), &maildir) {
                return server;
            }
        }
        panic!("aiosmtpd could not bind a free port ten times");
    }

    /// Starts aiosmtpd on `port`, which the service was configured with
    /// before the server existed (the outage test).
    pub fn start_on(port: u16, maildir: PathBuf) -> SmtpServer {
        SmtpServer::try_start(port, &maildir)
            .unwrap_or_else(|| panic!("aiosmtpd could not bind port {port}"))
    }

    /// `None` when aiosmtpd could not bind `port`: something else answers
    /// there, which must never be mistaken for the mail server.
    fn try_start(port: u16, maildir: &std::path::Path) -> Option<SmtpServer> {
        let python = std::env::var("TEST_PYTHON").unwrap_or_else(|_| "python3".into());
        let mut child = Command::new(python)
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("aiosmtpd (pip install aiosmtpd in the test virtualenv; scripts/test.sh does)");
        let started = Instant::now();
        loop {
            if child.try_wait().ok().flatten().is_some() {
                return None;
            }
            if greets_as_smtp(port) {
                // The greeting could still come from a server that beat
                // aiosmtpd to the port; aiosmtpd has exited by then.
                std::thread::sleep(Duration::from_millis(50));
                if child.try_wait().ok().flatten().is_some() {
                    return None;
                }
                return Some(SmtpServer {
                    child,
                    maildir: maildir.to_path_buf(),
                    port,
                });
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "aiosmtpd did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Every message's text, with quoted-printable soft breaks and `=3D`
    /// undone (enough to read a link or a name out of a plain-text mail).
    pub fn texts(&self) -> Vec<String> {
        self.messages()
            .into_iter()
            .map(|m| {
                m.replace("=\r\n", "")
                    .replace("=\n", "")
                    .replace("=3D", "=")
            })
            .collect()
    }

    /// Every message received so far, raw.
    pub fn messages(&self) -> Vec<String> {
        let mut out = Vec::new();
        for sub in ["new", "cur"] {
            if let Ok(entries) = std::fs::read_dir(self.maildir.join(sub)) {
                for e in entries.flatten() {
                    if let Ok(text) = std::fs::read_to_string(e.path()) {
                        out.push(text);
                    }
                }
            }
        }
        out
    }
}
