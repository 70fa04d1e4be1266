//! Where webhooks may be sent. By default only HTTPS to public addresses; the
//! operator may relax both for development (`webhooks.https_only`,
//! `webhooks.allow_private_networks`). The same rule is applied to the URL when
//! an endpoint is registered and to every resolved address at delivery time.

use std::net::IpAddr;

use ipnet::IpNet;
use reqwest::Url;

#[derive(Clone, Debug)]
pub struct NetworkPolicy {
    pub https_only: bool,
    pub allow_private_networks: Vec<IpNet>,
}

impl Default for NetworkPolicy {
    fn default() -> Self {
        Self {
            https_only: true,
            allow_private_networks: Vec::new(),
        }
    }
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlRejection {
    #[error("url is not a valid absolute URL")]
    Malformed,
    #[error("url must use https")]
    NotHttps,
    #[error("url must not carry credentials")]
    Credentials,
    #[error("url targets a private, loopback or otherwise non-public address")]
    PrivateTarget,
}

impl UrlRejection {
    pub fn reason(&self) -> &'static str {
        match self {
            UrlRejection::Malformed => "invalid_url",
            UrlRejection::NotHttps => "must_be_https",
            UrlRejection::Credentials => "invalid_url",
            UrlRejection::PrivateTarget => "private_network",
        }
    }
}

/// Addresses no webhook may reach unless explicitly allowed.
pub fn is_non_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_broadcast()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64) // 100.64.0.0/10 carrier-grade NAT
                || (o[0] == 198 && (o[1] & 0xfe) == 18) // 198.18.0.0/15 benchmarking
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            if embedded_ipv4(v6).is_some_and(|v4| is_non_public(IpAddr::V4(v4))) {
                return true;
            }
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link local
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
                || (s[0] == 0x64 && s[1] == 0xff9b) // NAT64 (both prefixes) can reach any IPv4
                || (s[0] == 0x2001 && s[1] == 0) // Teredo: a tunnel through a relay we do not choose
                || v6.segments()[..6] == [0; 6] // IPv4-compatible (deprecated), ::/96
        }
    }
}

/// The IPv4 address an IPv6 address carries, in the forms a router or a
/// host's stack turns into an IPv4 packet: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-compatible (`::a.b.c.d`), 6to4 (`2002:AABB:CCDD::/48`), NAT64's
/// well-known prefix (`64:ff9b::a.b.c.d`), ISATAP's interface id
/// (`…:0:5efe:a.b.c.d`) and Teredo's client (`2001:0::`, the last 32 bits
/// inverted). Each is checked as the IPv4 address it reaches.
fn embedded_ipv4(v6: std::net::Ipv6Addr) -> Option<std::net::Ipv4Addr> {
    use std::net::Ipv4Addr;
    let s = v6.segments();
    let from = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    match s {
        [0, 0, 0, 0, 0, 0, hi, lo] => Some(from(hi, lo)),
        [0x2002, hi, lo, ..] => Some(from(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(from(hi, lo)),
        [_, _, _, _, 0 | 0x0200, 0x5efe, hi, lo] => Some(from(hi, lo)),
        [0x2001, 0, _, _, _, _, hi, lo] => Some(from(!hi, !lo)),
        _ => None,
    }
}

impl NetworkPolicy {
    pub fn address_allowed(&self, ip: IpAddr) -> bool {
        !is_non_public(ip)
            || self
                .allow_private_networks
                .iter()
                .any(|net| net.contains(&ip))
    }

    /// Checks scheme, shape and — for literal IPs and `localhost` — the target.
    /// Hostnames are checked again at delivery time, after resolution.
    pub fn check_url(&self, raw: &str) -> Result<Url, UrlRejection> {
        let url = Url::parse(raw).map_err(|_| UrlRejection::Malformed)?;
        match url.scheme() {
            "https" => {}
            "http" if !self.https_only => {}
            "http" => return Err(UrlRejection::NotHttps),
            _ => return Err(UrlRejection::Malformed),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(UrlRejection::Credentials);
        }
        match url.host() {
            None => Err(UrlRejection::Malformed),
            Some(url::Host::Ipv4(ip)) if !self.address_allowed(ip.into()) => {
                Err(UrlRejection::PrivateTarget)
            }
            Some(url::Host::Ipv6(ip)) if !self.address_allowed(ip.into()) => {
                Err(UrlRejection::PrivateTarget)
            }
            Some(url::Host::Domain(d))
                if is_local_name(d) && !self.address_allowed(IpAddr::from([127, 0, 0, 1])) =>
            {
                Err(UrlRejection::PrivateTarget)
            }
            Some(_) => Ok(url),
        }
    }
}

fn is_local_name(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "localhost"
        || h.ends_with(".localhost")
        || h.ends_with(".local")
        || h.ends_with(".internal")
}

/// The host and port of a URL, for resolution.
pub struct UrlHost {
    pub host: String,
    pub port: u16,
}

impl UrlHost {
    pub fn of(url: &Url) -> Self {
        Self {
            host: url
                .host_str()
                .unwrap_or_default()
                .trim_matches(['[', ']'])
                .to_owned(),
            port: url.port_or_known_default().unwrap_or(443),
        }
    }
}

impl NetworkPolicy {
    /// A registration's check of where `url` points now: a hostname must not
    /// resolve to an address the policy refuses. A name that does not
    /// resolve within two seconds is accepted; every delivery checks again.
    pub async fn check_resolved(&self, url: &Url) -> Result<(), UrlRejection> {
        let host = UrlHost::of(url);
        let lookup = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            tokio::net::lookup_host((host.host.as_str(), host.port)),
        );
        let Ok(Ok(addrs)) = lookup.await else {
            return Ok(());
        };
        let mut addrs = addrs.map(|a| a.ip());
        if addrs.any(|ip| !self.address_allowed(ip)) {
            return Err(UrlRejection::PrivateTarget);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_policy_refuses_http_private_and_loopback() {
        let p = NetworkPolicy::default();
        assert_eq!(
            p.check_url("http://example.com/hook").err(),
            Some(UrlRejection::NotHttps)
        );
        for bad in [
            "https://127.0.0.1/h",
            "https://10.1.2.3/h",
            "https://192.168.0.1/h",
            "https://172.16.5.5/h",
            "https://169.254.169.254/latest",
            "https://[::1]/h",
            "https://[fd00::1]/h",
            "https://[::ffff:127.0.0.1]/h",
            "https://localhost/h",
            "https://100.64.0.1/h",
            "https://0.0.0.0/h",
        ] {
            assert_eq!(
                p.check_url(bad).err(),
                Some(UrlRejection::PrivateTarget),
                "{bad}"
            );
        }
        assert!(p.check_url("https://hooks.example.com/h").is_ok());
        assert!(p.check_url("https://93.184.216.34/h").is_ok());
        assert!(p.check_url("https://[2606:4700::1111]/h").is_ok());
        assert!(
            p.check_url("https://[2002:5db8:d822::1]/h").is_ok(),
            "6to4 of a public address"
        );
    }

    #[test]
    fn every_ipv6_form_that_carries_a_private_ipv4_is_refused() {
        let p = NetworkPolicy::default();
        for bad in [
            "https://[2002:7f00:1::]/h",                        // 6to4 of 127.0.0.1
            "https://[2002:a9fe:a9fe::1]/h",                    // 6to4 of 169.254.169.254
            "https://[2002:0a00:0001:1::5]/h",                  // 6to4 of 10.0.0.1
            "https://[64:ff9b::7f00:1]/h",                      // NAT64 of 127.0.0.1
            "https://[64:ff9b::a9fe:a9fe]/h",                   // NAT64 of 169.254.169.254
            "https://[64:ff9b:1::5db8:d822]/h",                 // local-use NAT64, any address
            "https://[::ffff:169.254.169.254]/h",               // IPv4-mapped
            "https://[::ffff:7f00:1]/h",                        // IPv4-mapped, hex
            "https://[::127.0.0.1]/h",                          // IPv4-compatible
            "https://[::169.254.169.254]/h",                    // IPv4-compatible
            "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h", // Teredo, client 127.0.0.1
            "https://[2001:db9::5efe:a9fe:a9fe]/h",             // ISATAP of 169.254.169.254
            "https://[2001:db9::200:5efe:c0a8:1]/h",            // ISATAP of 192.168.0.1
        ] {
            assert_eq!(
                p.check_url(bad).err(),
                Some(UrlRejection::PrivateTarget),
                "{bad}"
            );
        }
        assert_eq!(
            p.check_url("ftp://example.com").err(),
            Some(UrlRejection::Malformed)
        );
        assert_eq!(
            p.check_url("https://u:p@example.com").err(),
            Some(UrlRejection::Credentials)
        );
        assert_eq!(
            p.check_url("not a url").err(),
            Some(UrlRejection::Malformed)
        );
    }

    #[test]
    fn allow_list_relaxes_only_what_it_names() {
        let p = NetworkPolicy {
            https_only: false,
            allow_private_networks: vec!["127.0.0.0/8".parse().unwrap()],
        };
        assert!(p.check_url("http://127.0.0.1:9000/h").is_ok());
        assert!(p.check_url("http://localhost:9000/h").is_ok());
        assert_eq!(
            p.check_url("http://10.0.0.1/h").err(),
            Some(UrlRejection::PrivateTarget)
        );
    }
}
