//! One log line per request: request id, matched route, status, latency and
//! the authenticated client (never a credential).
//!
//! The line is the hottest thing the service logs, so once the binary has
//! set up logging it hands this module the log writer (`write_lines_to`),
//! and each line is formatted once, by hand, straight into the bytes the
//! writer's thread will write: no field visitors, no `core::fmt` for the
//! timestamp or the numbers. The bytes are those tracing's own formatter
//! would produce (its text and JSON layouts). Until then, or when the log is
//! a terminal (colours), lines go through `tracing` as any other event.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::Method;

use crate::request_id::RequestId;

/// Set by the authentication extractor so the log line can name the caller.
#[derive(Clone, Debug, Default)]
pub struct CallerSlot(Arc<OnceLock<String>>);

impl CallerSlot {
    pub fn set(&self, client_id: &str) {
        let _ = self.0.set(client_id.to_owned());
    }

    fn get(&self) -> &str {
        self.0.get().map_or("-", String::as_str)
    }
}

/// The layouts of `tracing_subscriber::fmt`, without colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Text,
    /// JSON lines with the event's fields flattened into the object.
    Json,
}

/// Takes one whole line at a time (the log writer's queue).
pub trait LineWriter: Send + Sync + 'static {
    fn write_line(&self, line: &[u8]);
}

struct Sink {
    layout: Layout,
    writer: Box<dyn LineWriter>,
}

static SINK: OnceLock<Sink> = OnceLock::new();

/// From now on, access lines are formatted here in `layout` and handed to
/// `writer`. Call once, after the tracing subscriber is installed; does
/// nothing if the log filter leaves out the `access` target at INFO.
pub fn write_lines_to(layout: Layout, writer: impl LineWriter) {
    if tracing::enabled!(target: "access", tracing::Level::INFO) {
        let _ = SINK.set(Sink {
            layout,
            writer: Box::new(writer),
        });
    }
}

/// What the line says about one finished request.
pub(crate) struct Line<'a> {
    pub surface: &'static str,
    pub request_id: &'a RequestId,
    pub method: &'a Method,
    pub route: &'a str,
    pub status: u16,
    pub took: Duration,
    pub caller: &'a CallerSlot,
}

impl Line<'_> {
    pub(crate) fn write(&self) {
        match SINK.get() {
            Some(sink) => BUFFER.with_borrow_mut(|buffer| {
                buffer.clear();
                match sink.layout {
                    Layout::Text => self.text(buffer),
                    Layout::Json => self.json(buffer),
                }
                sink.writer.write_line(buffer);
            }),
            None => self.trace(),
        }
    }

    fn trace(&self) {
        tracing::info!(
            target: "access",
            surface = self.surface,
            request_id = %self.request_id,
            method = %self.method,
            route = %self.route,
            status = self.status,
            // Microsecond resolution, so the line reads 48.682 rather than
            // 48.681999999999996.
            latency_ms = self.took.as_micros() as f64 / 1000.0,
            client_id = self.caller.get(),
        );
    }

    /// `2026-01-01T00:00:00.000000Z  INFO access: surface="sandbox" request_id=… client_id="-"`
    fn text(&self, out: &mut Vec<u8>) {
        timestamp(out);
        out.extend_from_slice(b"  INFO access: surface=");
        quoted(out, self.surface);
        out.extend_from_slice(b" request_id=");
        out.extend_from_slice(self.request_id.as_str().as_bytes());
        out.extend_from_slice(b" method=");
        out.extend_from_slice(self.method.as_str().as_bytes());
        out.extend_from_slice(b" route=");
        out.extend_from_slice(self.route.as_bytes());
        out.extend_from_slice(b" status=");
        number(out, u64::from(self.status));
        out.extend_from_slice(b" latency_ms=");
        millis(out, self.took, false);
        out.extend_from_slice(b" client_id=");
        quoted(out, self.caller.get());
        out.push(b'\n');
    }

    /// `{"timestamp":"…","level":"INFO","surface":"sandbox",…,"target":"access"}`
    fn json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"timestamp\":\"");
        timestamp(out);
        out.extend_from_slice(b"\",\"level\":\"INFO\",\"surface\":");
        quoted(out, self.surface);
        out.extend_from_slice(b",\"request_id\":");
        quoted(out, self.request_id.as_str());
        out.extend_from_slice(b",\"method\":");
        quoted(out, self.method.as_str());
        out.extend_from_slice(b",\"route\":");
        quoted(out, self.route);
        out.extend_from_slice(b",\"status\":");
        number(out, u64::from(self.status));
        out.extend_from_slice(b",\"latency_ms\":");
        millis(out, self.took, true);
        out.extend_from_slice(b",\"client_id\":");
        quoted(out, self.caller.get());
        out.extend_from_slice(b",\"target\":\"access\"}\n");
    }
}

thread_local! {
    static BUFFER: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(256));
    /// The last whole second formatted on this thread, and its text.
    static SECOND: RefCell<(u64, [u8; 19])> = const { RefCell::new((u64::MAX, [0; 19])) };
}

/// RFC 3339 in UTC with microseconds, as tracing writes it.
fn timestamp(out: &mut Vec<u8>) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let second = now.as_secs();
    SECOND.with_borrow_mut(|(cached, text)| {
        if *cached != second {
            *text = date_time(second);
            *cached = second;
        }
        out.extend_from_slice(text);
    });
    out.push(b'.');
    padded(out, u64::from(now.subsec_micros()), 6);
    out.push(b'Z');
}

/// `YYYY-MM-DDTHH:MM:SS` of a Unix second.
fn date_time(second: u64) -> [u8; 19] {
    let at = i64::try_from(second)
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let mut text = Vec::with_capacity(19);
    padded(&mut text, u64::try_from(at.year()).unwrap_or(0), 4);
    text.push(b'-');
    padded(&mut text, u64::from(u8::from(at.month())), 2);
    text.push(b'-');
    padded(&mut text, u64::from(at.day()), 2);
    text.push(b'T');
    padded(&mut text, u64::from(at.hour()), 2);
    text.push(b':');
    padded(&mut text, u64::from(at.minute()), 2);
    text.push(b':');
    padded(&mut text, u64::from(at.second()), 2);
    let mut fixed = [0u8; 19];
    fixed.copy_from_slice(&text[..19]);
    fixed
}

fn number(out: &mut Vec<u8>, value: u64) {
    padded(out, value, 1);
}

/// `value` in decimal, zero-padded to `width` digits.
fn padded(out: &mut Vec<u8>, value: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut at = digits.len();
    let mut rest = value;
    while rest > 0 || at == digits.len() {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let start = digits.len().saturating_sub(width).min(at);
    out.extend_from_slice(&digits[start..]);
}

/// Milliseconds to the microsecond, written as the shortest decimal (what
/// `f64`'s `Display` gives for `micros / 1000.0`); JSON keeps a `.0` on a
/// whole number, as serde_json does.
fn millis(out: &mut Vec<u8>, took: Duration, json: bool) {
    let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
    number(out, micros / 1000);
    let mut fraction = micros % 1000;
    if fraction == 0 {
        if json {
            out.extend_from_slice(b".0");
        }
        return;
    }
    let mut width = 3;
    while fraction % 10 == 0 {
        fraction /= 10;
        width -= 1;
    }
    out.push(b'.');
    padded(out, fraction, width);
}

/// A string in double quotes, escaped as both `Debug` and JSON would for the
/// characters that can reach here (ids, routes, methods).
fn quoted(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for byte in text.bytes() {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            control if control < 0x20 => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(control >> 4)]);
                out.push(HEX[usize::from(control & 0xf)]);
            }
            other => out.push(other),
        }
    }
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn milliseconds_read_as_f64_display_would() {
        for micros in [
            0u64,
            1,
            10,
            36,
            100,
            1_000,
            1_500,
            48_682,
            48_680,
            2_000_000,
            123_456_789,
        ] {
            let took = Duration::from_micros(micros);
            let expected = (micros as f64 / 1000.0).to_string();
            assert_eq!(text_of(|o| millis(o, took, false)), expected, "{micros} µs");
            let json = serde_json::to_string(&(micros as f64 / 1000.0)).unwrap();
            assert_eq!(text_of(|o| millis(o, took, true)), json, "{micros} µs");
        }
    }

    #[test]
    fn timestamps_are_rfc3339_with_microseconds() {
        let stamp = text_of(timestamp);
        assert_eq!(stamp.len(), 27, "{stamp}");
        let parsed =
            time::OffsetDateTime::parse(&stamp, &time::format_description::well_known::Rfc3339)
                .unwrap();
        let skew = time::OffsetDateTime::now_utc() - parsed;
        assert!(skew.abs() < time::Duration::minutes(1), "{stamp}");
        assert_eq!(&date_time(951_782_400), b"2000-02-29T00:00:00");
    }

    #[test]
    fn lines_match_tracing_layouts() {
        let id = RequestId::default();
        let caller = CallerSlot::default();
        caller.set("cli_\"quoted\"");
        let line = Line {
            surface: "hub",
            request_id: &id,
            method: &Method::POST,
            route: "/partner/v1/oauth/token",
            status: 401,
            took: Duration::from_micros(1_250),
            caller: &caller,
        };
        let text = text_of(|o| line.text(o));
        let (_, rest) = text.split_once("  INFO ").unwrap();
        assert_eq!(
            rest,
            "access: surface=\"hub\" request_id=req_00000000000000000000000000 method=POST \
             route=/partner/v1/oauth/token status=401 latency_ms=1.25 client_id=\"cli_\\\"quoted\\\"\"\n"
        );
        let json: serde_json::Value = serde_json::from_str(&text_of(|o| line.json(o))).unwrap();
        assert_eq!(json["level"], "INFO");
        assert_eq!(json["target"], "access");
        assert_eq!(json["status"], 401);
        assert_eq!(json["latency_ms"], 1.25);
        assert_eq!(json["client_id"], "cli_\"quoted\"");
        assert_eq!(json["route"], "/partner/v1/oauth/token");
    }
}
