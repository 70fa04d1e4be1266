//! The configuration reference (docs/guide/src/configuration.md), generated
//! from the configuration types themselves so it cannot drift: every key is
//! a field of `Config` or of a type it holds, its meaning is that field's doc
//! comment, its default is what `Config::default()` serialises to, and its
//! environment variable is the key's path. A field without a doc comment
//! fails the test; a page that differs from what the types give fails it
//! too (`UPDATE_SNAPSHOTS=1` rewrites the page).

use std::collections::BTreeMap;

use serde_json::Value;
use syn::{Attribute, Expr, Fields, GenericArgument, Item, Lit, Meta, PathArguments, Type};

use super::Config;

/// The files that define the configuration's types.
const SOURCES: [&str; 2] = [
    include_str!("../config.rs"),
    include_str!("../../../mail/src/smtp.rs"),
];
const PAGE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/guide/src/configuration.md"
);
const BEGIN: &str = "<!-- generated from the configuration types: do not edit by hand (see config/reference.rs) -->";
const END: &str = "<!-- end of the generated reference -->";

struct Key {
    path: String,
    env: String,
    default: String,
    kind: String,
    meaning: String,
}

impl Key {
    fn new(path: String, kind: String, default: String, meaning: String) -> Key {
        Key {
            env: env(&path),
            path,
            default,
            kind,
            meaning,
        }
    }
}

fn docs(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                Expr::Lit(l) => match &l.lit {
                    Lit::Str(s) => Some(s.value().trim().to_owned()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect();
    lines
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last segment of a path type and its type arguments.
fn parts(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let args = match &last.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((last.ident.to_string(), args))
}

struct Types {
    structs: BTreeMap<String, syn::ItemStruct>,
    enums: BTreeMap<String, syn::ItemEnum>,
}

impl Types {
    fn parse() -> Types {
        let mut types = Types {
            structs: BTreeMap::new(),
            enums: BTreeMap::new(),
        };
        for source in SOURCES {
            let file = syn::parse_file(source).expect("the configuration's sources parse");
            for item in file.items {
                match item {
                    Item::Struct(s) => {
                        types.structs.insert(s.ident.to_string(), s);
                    }
                    Item::Enum(e) => {
                        types.enums.insert(e.ident.to_string(), e);
                    }
                    _ => {}
                }
            }
        }
        types
    }

    /// What a value of `ty` is, in words, and the struct to descend into.
    fn kind(&self, ty: &Type) -> (String, Option<String>) {
        let Some((name, args)) = parts(ty) else {
            return ("value".into(), None);
        };
        let inner = |i: usize| {
            args.get(i)
                .map(|t| self.kind(t))
                .unwrap_or(("value".into(), None))
        };
        match name.as_str() {
            "Option" => inner(0),
            "Vec" => (format!("list of {}", inner(0).0), None),
            "Secret" => ("secret string, never logged".into(), None),
            "String" => ("string".into(), None),
            "PathBuf" => ("path".into(), None),
            "SocketAddr" => ("address:port".into(), None),
            "Url" => ("URL".into(), None),
            "IpNet" => ("CIDR".into(), None),
            "bool" => ("boolean".into(), None),
            "u8" | "u16" | "u32" | "u64" | "usize" | "i64" => ("integer".into(), None),
            _ if self.structs.contains_key(&name) => ("table".into(), Some(name)),
            _ if self.enums.contains_key(&name) => {
                let e = &self.enums[&name];
                let values: Vec<String> = e
                    .variants
                    .iter()
                    .map(|v| format!("`{}`", v.ident.to_string().to_lowercase()))
                    .collect();
                (format!("one of {}", values.join(", ")), None)
            }
            other => (other.to_owned(), None),
        }
    }

    fn walk(
        &self,
        name: &str,
        path: &str,
        default: &Value,
        out: &mut Vec<Key>,
        missing: &mut Vec<String>,
    ) {
        let Some(item) = self.structs.get(name) else {
            return;
        };
        let Fields::Named(fields) = &item.fields else {
            return;
        };
        for field in &fields.named {
            let Some(ident) = &field.ident else { continue };
            let key = if path.is_empty() {
                ident.to_string()
            } else {
                format!("{path}.{ident}")
            };
            let value = default.get(ident.to_string()).unwrap_or(&Value::Null);
            let meaning = docs(&field.attrs);
            let (kind, descend) = self.kind(&field.ty);
            // A map of named tables: `banks.<name>.…`.
            if let Some(("BTreeMap", args)) =
                parts(&field.ty).as_ref().map(|(n, a)| (n.as_str(), a))
                && let Some((table, Some(inner))) = args.get(1).map(|t| self.kind(t))
                && table == "table"
            {
                if meaning.is_empty() {
                    missing.push(key.clone());
                }
                let mut named = Key::new(
                    format!("{key}.<name>"),
                    "table per name".into(),
                    "none".into(),
                    meaning,
                );
                named.env = env(&format!("{key}.<NAME>"));
                out.push(named);
                self.walk(&inner, &format!("{key}.<name>"), &Value::Null, out, missing);
                continue;
            }
            if let Some(inner) = descend {
                // A table's meaning is the field's, else its type's.
                let meaning = match meaning.is_empty() {
                    true => self
                        .structs
                        .get(&inner)
                        .map(|s| docs(&s.attrs))
                        .unwrap_or_default(),
                    false => meaning,
                };
                if !meaning.is_empty() {
                    out.push(Key::new(key.clone(), kind, shown(value), meaning));
                }
                self.walk(&inner, &key, value, out, missing);
                continue;
            }
            if meaning.is_empty() {
                missing.push(key.clone());
            }
            out.push(Key::new(key, kind, shown(value), meaning));
        }
    }
}

fn env(key: &str) -> String {
    format!("LENDHUB_{}", key.to_uppercase().replace('.', "__"))
}

fn shown(value: &Value) -> String {
    match value {
        Value::Null => "unset".into(),
        Value::String(s) => format!("`{s}`"),
        Value::Array(a) if a.is_empty() => "empty".into(),
        Value::Object(o) if o.is_empty() => "none".into(),
        Value::Object(_) => "see below".into(),
        other => format!("`{other}`"),
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn generate() -> (String, Vec<String>) {
    let types = Types::parse();
    let default = serde_json::to_value(Config::default()).expect("the defaults serialise");
    let (mut keys, mut missing) = (Vec::new(), Vec::new());
    types.walk("Config", "", &default, &mut keys, &mut missing);
    let mut sections: BTreeMap<String, Vec<&Key>> = BTreeMap::new();
    let mut order = Vec::new();
    for key in &keys {
        let section = key.path.split('.').next().unwrap_or_default().to_owned();
        if !order.contains(&section) {
            order.push(section.clone());
        }
        sections.entry(section).or_default().push(key);
    }
    let mut page = String::new();
    for section in order {
        page.push_str(&format!("\n### `{section}`\n\n"));
        let mut rows = sections[&section].iter().peekable();
        // The section's own meaning, as a paragraph above its keys.
        if let Some(table) = rows.next_if(|k| k.kind == "table" && k.path == section) {
            page.push_str(&format!("{}\n\n", table.meaning));
        }
        page.push_str(
            "| Key | Environment variable | Type | Default | Meaning |\n|---|---|---|---|---|\n",
        );
        for key in rows {
            if key.kind == "table" {
                page.push_str(&format!(
                    "| `[{}]` | | table | | {} |\n",
                    key.path,
                    cell(&key.meaning)
                ));
                continue;
            }
            page.push_str(&format!(
                "| `{}` | `{}` | {} | {} | {} |\n",
                key.path,
                key.env,
                cell(&key.kind),
                cell(&key.default),
                cell(&key.meaning)
            ));
        }
    }
    (page, missing)
}

#[test]
fn every_key_is_documented_and_the_page_is_what_the_types_give() {
    let (table, missing) = generate();
    assert!(
        missing.is_empty(),
        "configuration keys without a doc comment:\n{}",
        missing.join("\n")
    );
    let current = std::fs::read_to_string(PAGE).expect("docs/guide/src/configuration.md");
    let (Some(begin), Some(end)) = (current.find(BEGIN), current.find(END)) else {
        panic!("configuration.md lacks the generated section's markers");
    };
    let wanted = format!("{}{BEGIN}\n{table}\n{}", &current[..begin], &current[end..]);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(PAGE, &wanted).expect("write configuration.md");
    } else {
        assert!(
            current == wanted,
            "configuration.md differs from the configuration types; run with UPDATE_SNAPSHOTS=1"
        );
    }
}
