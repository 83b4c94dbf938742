//! Where the links in the service's answers start: `https://maps.example.com` rather than nothing,
//! so a link copied out of an answer (into a review, a wiki, a chat) resolves wherever it is pasted.
//!
//! In order: the operator's `--public-url`; else, for a request from a proxy the operator trusts
//! (`--trusted-proxy IP`), the proxy's `X-Forwarded-Proto` and `X-Forwarded-Host`; else the
//! request's own `Host`, over http. The forwarded headers of anyone else are ignored: a client
//! that could set them would choose where the links of the answers it is sent point.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::http::header::{self, HeaderMap};

use crate::error::{Error, Misuse, Result};

/// The service's address as its users reach it: `http(s)://HOST[:PORT][/PREFIX]`, kept without a
/// trailing slash so that `/maps/...` follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(String);

impl PublicUrl {
    /// Reads `--public-url`: an http or https URL with a host, and no query or fragment.
    pub fn parse(text: &str) -> Result<PublicUrl> {
        let bad = |why: &'static str| Error::misuse(Misuse::PublicUrl { text: text.to_string(), why });
        let trimmed = text.trim_end_matches('/');
        let (scheme, rest) = trimmed.split_once("://").ok_or_else(|| bad("is not a URL"))?;
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return Err(bad("is not an http or https URL"));
        }
        let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
        if !is_host(host) {
            return Err(bad("has no host name"));
        }
        if !path.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b'?' | b'#' | b'"' | b'<' | b'>' | b'\\')) {
            return Err(bad("has a query, a fragment or characters a path cannot hold"));
        }
        let path = if path.is_empty() { String::new() } else { format!("/{path}") };
        Ok(PublicUrl(format!("{}://{host}{path}", scheme.to_ascii_lowercase())))
    }

    /// The URL, without a trailing slash.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Where the links of the answer to `req` start (see the module's words): a scheme and host, or
/// the empty string (links relative to the service's root) when the request names no usable host.
pub fn of(req: &HttpRequest, public: Option<&PublicUrl>, trusted: &[IpAddr]) -> String {
    if let Some(url) = public {
        return url.0.clone();
    }
    let from_proxy = req.peer_addr().is_some_and(|peer| trusted.contains(&peer.ip()));
    from_headers(req.headers(), from_proxy)
}

/// [`of`] from the headers alone: `from_proxy` when the request came from a trusted proxy.
fn from_headers(headers: &HeaderMap, from_proxy: bool) -> String {
    // A proxy that forwards for another proxy lists each hop, the client's side first.
    let first =
        |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.split(',').next()).map(str::trim);
    let own_host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).map(str::trim);
    let (scheme, host) = if from_proxy {
        let scheme = match first("x-forwarded-proto") {
            Some(p) if p.eq_ignore_ascii_case("https") => "https",
            _ => "http",
        };
        (scheme, first("x-forwarded-host").or(own_host))
    } else {
        ("http", own_host)
    };
    match host.filter(|h| is_host(h)) {
        Some(host) => format!("{scheme}://{host}"),
        None => String::new(),
    }
}

/// A host name or address with an optional port, as `Host` carries it: nothing that could end the
/// authority early or smuggle text into a link.
fn is_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(HeaderName::from_static(name), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn links_start_from_the_host_or_a_trusted_proxys_headers() {
        let direct = headers(&[("host", "127.0.0.1:8080")]);
        assert_eq!(from_headers(&direct, false), "http://127.0.0.1:8080");
        let proxied = headers(&[
            ("host", "127.0.0.1:8081"),
            ("x-forwarded-host", "maps.example.com, inner.example"),
            ("x-forwarded-proto", "https"),
        ]);
        assert_eq!(from_headers(&proxied, true), "https://maps.example.com");
        // From anyone else the forwarded headers are ignored.
        assert_eq!(from_headers(&proxied, false), "http://127.0.0.1:8081");
        // A host that could break out of the link is no host: links stay relative.
        assert_eq!(from_headers(&headers(&[("host", "evil.example/x?")]), false), "");
        assert_eq!(from_headers(&HeaderMap::new(), false), "");
    }

    #[test]
    fn a_public_url_is_checked_and_kept_without_its_trailing_slash() {
        assert_eq!(PublicUrl::parse("https://maps.example.com/").unwrap().as_str(), "https://maps.example.com");
        assert_eq!(PublicUrl::parse("HTTP://h:8080/pmm").unwrap().as_str(), "http://h:8080/pmm");
        for bad in ["maps.example.com", "ftp://h", "https://", "https://h/a?b", "https://h h"] {
            let err = PublicUrl::parse(bad).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Usage, "{bad}");
            assert!(err.to_string().contains("--public-url"), "{err}");
        }
    }
}
