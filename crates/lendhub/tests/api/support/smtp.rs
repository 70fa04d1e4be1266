//! A real SMTP server for the notification tests: Python's aiosmtpd, run
//! from the test virtualenv, writing what it receives to a Maildir.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct SmtpServer {
    child: Child,
    maildir: PathBuf,
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port (nothing listens on it yet).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl SmtpServer {
    /// Starts aiosmtpd on `port`, writing into `maildir`; returns once it accepts.
    pub fn start(port: u16, maildir: PathBuf) -> SmtpServer {
        let python = std::env::var("TEST_PYTHON").unwrap_or_else(|_| "python3".into());
        let child = Command::new(python)
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(&maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("aiosmtpd (pip install aiosmtpd in the test virtualenv; scripts/test.sh does)");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "aiosmtpd did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        SmtpServer { child, maildir }
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
