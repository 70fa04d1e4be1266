//! Who a request comes from, for a bucket keyed by address (the public
//! ring; the REST tier's anonymous answers; the identity provider's
//! sign-in throttle): the socket peer,
//! or — only when the peer is a configured trusted proxy — the nearest
//! untrusted address in `X-Forwarded-For`. A client cannot pick its own rate-limit bucket by
//! sending the header itself.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use ipnet::IpNet;

const FORWARDED_FOR: &str = "x-forwarded-for";

pub fn client_ip(parts: &Parts, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())?;
    Some(resolve(
        peer,
        parts
            .headers
            .get_all(FORWARDED_FOR)
            .iter()
            .filter_map(|v| v.to_str().ok()),
        trusted,
    ))
}

/// Walks the chain from the nearest hop outwards, skipping trusted proxies.
fn resolve<'a>(
    peer: IpAddr,
    forwarded: impl Iterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let hops: Vec<IpAddr> = forwarded
        .flat_map(|v| v.split(','))
        .filter_map(|h| h.trim().parse().ok())
        .collect();
    let mut client = peer;
    for hop in hops.into_iter().rev() {
        client = hop;
        if !is_trusted(&hop) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_header_counts_only_from_a_trusted_proxy() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let none = std::iter::empty();
        assert_eq!(
            resolve(ip("203.0.113.9"), ["1.2.3.4"].into_iter(), &trusted),
            ip("203.0.113.9")
        );
        assert_eq!(
            resolve(ip("10.0.0.2"), ["1.2.3.4"].into_iter(), &trusted),
            ip("1.2.3.4")
        );
        // A client's own forged entry sits left of what the proxy appended.
        assert_eq!(
            resolve(
                ip("10.0.0.2"),
                ["6.6.6.6, 1.2.3.4, 10.0.0.7"].into_iter(),
                &trusted
            ),
            ip("1.2.3.4")
        );
        assert_eq!(resolve(ip("10.0.0.2"), none, &trusted), ip("10.0.0.2"));
        assert_eq!(
            resolve(ip("10.0.0.2"), ["junk"].into_iter(), &trusted),
            ip("10.0.0.2")
        );
    }
}
