//! The server under test: where it is, and how to open a keep-alive HTTP/1.1
//! connection to it. Only loopback targets are accepted — this tool is for
//! benchmarking a server on the same machine, never for load on a remote host.

use std::net::{SocketAddr, ToSocketAddrs};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::Full;
use hyper::Uri;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::HeaderValue;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// One HTTP/1.1 connection's request handle.
pub type Sender = SendRequest<Full<Bytes>>;

#[derive(Debug)]
pub struct Target {
    pub addr: SocketAddr,
    /// Value for the `Host` header, e.g. `127.0.0.1:8081`.
    pub host: HeaderValue,
    /// Path prefix from the base URL without a trailing slash (usually empty).
    pub prefix: String,
}

impl Target {
    /// Parses `http://HOST:PORT[/prefix]` and refuses anything that is not loopback.
    pub fn parse(url: &str) -> Result<Self> {
        let uri: Uri = url
            .parse()
            .with_context(|| format!("invalid --url {url:?}"))?;
        if uri.scheme_str() != Some("http") {
            bail!("--url must use http:// (got {url:?})");
        }
        let authority = uri.authority().context("--url has no host")?;
        let port = authority.port_u16().unwrap_or(80);
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let addrs: Vec<SocketAddr> = (host, port)
            .to_socket_addrs()
            .with_context(|| format!("cannot resolve {host:?}"))?
            .collect();
        if addrs.is_empty() || addrs.iter().any(|a| !a.ip().is_loopback()) {
            bail!("refusing non-loopback target {url:?}: only 127.0.0.0/8, ::1 or localhost");
        }
        let addr = addrs[0];
        let prefix = uri.path().trim_end_matches('/').to_owned();
        let host = HeaderValue::from_str(authority.as_str()).context("bad host header")?;
        Ok(Self { addr, host, prefix })
    }

    /// Opens a new TCP connection and performs the HTTP/1.1 handshake. The
    /// connection stays open (keep-alive) until the server or we close it.
    pub async fn connect(&self) -> Result<Sender> {
        let stream = TcpStream::connect(self.addr)
            .await
            .with_context(|| format!("connect {}", self.addr))?;
        stream.set_nodelay(true)?;
        let (sender, conn) = http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            // Errors surface through the sender; nothing to do with them here.
            let _ = conn.await;
        });
        Ok(sender)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_loopback_and_keeps_prefix() {
        let t = Target::parse("http://127.0.0.1:8081/api/").unwrap();
        assert_eq!(t.addr.port(), 8081);
        assert_eq!(t.prefix, "/api");
        assert_eq!(t.host, "127.0.0.1:8081");
        assert!(Target::parse("http://[::1]:9/").unwrap().prefix.is_empty());
    }

    #[test]
    fn refuses_remote_and_https() {
        assert!(Target::parse("http://10.0.0.1:80").is_err());
        assert!(Target::parse("https://127.0.0.1:443").is_err());
    }
}
