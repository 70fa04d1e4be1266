//! JSON as lendhub reads request bodies: stricter than the grammar where
//! the grammar is ambiguous or dangerous. An object naming a member twice
//! is refused (a parser that keeps the last would see another request than
//! one that keeps the first), and so is a string or member name holding a
//! control character (other than tab, line feed and carriage return) or a
//! bidirectional override, which no identifier or text field needs and
//! which hide what a logged, echoed or e-mailed value says.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Why a body was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictError {
    /// Not JSON at all (serde_json's message).
    Syntax(String),
    /// An object names this member (a dotted path) twice.
    Duplicate(String),
    /// A string at this path (or a member name) holds a refused character.
    Character(String),
}

impl std::fmt::Display for StrictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StrictError::Syntax(m) => write!(f, "{m}"),
            StrictError::Duplicate(p) => write!(f, "the member `{p}` appears more than once"),
            StrictError::Character(p) => write!(
                f,
                "`{p}` holds a control character or a bidirectional override"
            ),
        }
    }
}

pub use lendhub_domain::text::refused_char;

// The seed reports a refusal through serde's error, tagged so it can be
// told from a syntax error afterwards.
const TAG: char = '\u{1}';

fn refusal<E: de::Error>(kind: &str, path: &str) -> E {
    E::custom(format!("{TAG}{kind}{TAG}{path}{TAG}"))
}

/// Where a value sits in the document, kept as borrowed steps and written
/// out only when something there is refused: a body that passes costs no
/// path strings.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Member(&'a At<'a>, &'a str),
    Item(&'a At<'a>, usize),
}

impl At<'_> {
    fn render(&self) -> String {
        match self {
            At::Root => String::new(),
            At::Member(parent, key) => match parent.render() {
                p if p.is_empty() => escaped(key),
                p => format!("{p}.{}", escaped(key)),
            },
            At::Item(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }
}

/// A member name as an error may show it: a refused character written as
/// `\u{…}`, so the answer never carries what the request was refused for.
fn escaped(key: &str) -> String {
    key.chars()
        .map(|c| {
            if refused_char(c) {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

struct Seed<'a>(At<'a>);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // A number written with a fraction or an exponent stays a float even
        // when its value is whole (`100.0`, `1e3`): money is integer pence
        // and counts are integers, so an integer member refuses it rather
        // than guess what a client that writes `100.0` meant
        // (docs/decisions.md, "Every JSON body: integers").
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        if v.chars().any(refused_char) {
            return Err(refusal("char", &self.0.render()));
        }
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        if v.chars().any(refused_char) {
            return Err(refusal("char", &self.0.render()));
        }
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Seed(At::Item(&self.0, items.len())))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let here = At::Member(&self.0, &key);
            if key.chars().any(refused_char) {
                return Err(refusal("char", &here.render()));
            }
            if object.contains_key(&key) {
                return Err(refusal("dup", &here.render()));
            }
            let value = map.next_value_seed(Seed(here))?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Parses `bytes` as one JSON value, refusing duplicate members and
/// refused characters (paths are dotted, `items[2].name`).
pub fn from_slice(bytes: &[u8]) -> Result<Value, StrictError> {
    let mut d = serde_json::Deserializer::from_slice(bytes);
    let parsed = Seed(At::Root)
        .deserialize(&mut d)
        .and_then(|v| d.end().map(|()| v));
    parsed.map_err(|e| {
        let message = e.to_string();
        let mut parts = message.split(TAG);
        match (parts.next(), parts.next(), parts.next()) {
            (Some(_), Some("dup"), Some(path)) => StrictError::Duplicate(path.to_owned()),
            (Some(_), Some("char"), Some(path)) => StrictError::Character(path.to_owned()),
            _ => StrictError::Syntax(message),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_refused_wherever_they_are() {
        assert_eq!(
            from_slice(br#"{"amount_pence":500000,"amount_pence":6000}"#),
            Err(StrictError::Duplicate("amount_pence".into()))
        );
        assert_eq!(
            from_slice(br#"{"a":{"b":1,"b":2}}"#),
            Err(StrictError::Duplicate("a.b".into()))
        );
        assert_eq!(
            from_slice(br#"{"a":[{"x":1},{"x":1,"x":2}]}"#),
            Err(StrictError::Duplicate("a[1].x".into()))
        );
    }

    #[test]
    fn control_characters_and_overrides_are_refused() {
        assert_eq!(
            from_slice(br#"{"reference":"ABC\u0000"}"#),
            Err(StrictError::Character("reference".into()))
        );
        assert_eq!(
            from_slice("{\"d\":\"pay \u{202e}evil\"}".as_bytes()),
            Err(StrictError::Character("d".into()))
        );
        assert_eq!(
            from_slice(br#"{"k\u001b":1}"#),
            Err(StrictError::Character(r"k\u{1b}".into()))
        );
        // Text may span lines.
        assert!(from_slice(br#"{"message":"line one\nline two\ttab"}"#).is_ok());
    }

    #[test]
    fn a_fraction_or_an_exponent_makes_a_float_whatever_the_value() {
        let v = from_slice(br#"{"a": 5000.0, "b": 5e3, "c": -0.0, "d": 1.5, "e": 5000}"#).unwrap();
        for k in ["a", "b", "c", "d"] {
            assert!(v[k].is_f64() && v[k].as_i64().is_none(), "{k}: {}", v[k]);
        }
        assert_eq!(v["e"].as_i64(), Some(5000));
    }

    #[test]
    fn valid_json_parses_as_serde_json_does() {
        let text = br#"{"a":[1,-2,3.5,true,null,"x"],"b":{"c":"\u00e9"}}"#;
        assert_eq!(
            from_slice(text).unwrap(),
            serde_json::from_slice::<Value>(text).unwrap()
        );
        assert!(matches!(from_slice(b"{"), Err(StrictError::Syntax(_))));
        assert!(matches!(from_slice(b"{} x"), Err(StrictError::Syntax(_))));
    }
}
