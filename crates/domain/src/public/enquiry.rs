//! Public enquiries (seed 001, Resources → Enquiry): the request's rules,
//! checked in a fixed order so each failure has one code.

use serde_json::{Map, Value};

pub const FORM_MAX_LEN: usize = 64;
pub const FIELDS_MAX_KEYS: usize = 60;
pub const FIELDS_MAX_BYTES: usize = 16 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dept {
    Support,
    Payments,
    Hardship,
    Complaints,
}

impl Dept {
    pub const ALL: [Dept; 4] = [
        Self::Support,
        Self::Payments,
        Self::Hardship,
        Self::Complaints,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Support => "support",
            Self::Payments => "payments",
            Self::Hardship => "hardship",
            Self::Complaints => "complaints",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Enquiry {
    pub form: String,
    /// `None` routes to the general inbox.
    pub dept: Option<Dept>,
    pub fields: Map<String, Value>,
}

/// Each rule's failure. The codes are in the public ring's error type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnquiryError {
    /// `form` missing, null or empty.
    FormRequired,
    /// `form` is not a slug of 1–64 of `a-z 0-9 _ -`.
    FormMalformed,
    InvalidDept,
    /// `fields` missing.
    FieldsRequired,
    /// More than 60 keys.
    TooManyFields,
    /// Over 16 KiB encoded.
    FieldsTooLarge,
    /// A value (or `fields` itself) of the wrong type: the dotted path.
    InvalidValueType(String),
    InvalidEmail,
    ConsentRequired,
    /// A top-level member the request does not have.
    UnknownField(String),
}

fn is_slug(s: &str) -> bool {
    (1..=FORM_MAX_LEN).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// A practical address check: one `@`, a local part of 1–64 printable
/// characters without spaces, a domain of dot-separated labels of letters,
/// digits and inner hyphens with at least one dot, 254 characters in all.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let label_ok = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    s.len() <= 254
        && (1..=64).contains(&local.len())
        && local
            .bytes()
            .all(|b| b.is_ascii_graphic() && b != b'@' && b != b'"' && b != b'\\')
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && domain.contains('.')
        && domain.split('.').all(label_ok)
}

/// Checks a decoded request body against the enquiry rules.
pub fn validate(body: Map<String, Value>) -> Result<Enquiry, EnquiryError> {
    if let Some(unknown) = body
        .keys()
        .find(|k| !matches!(k.as_str(), "form" | "dept" | "fields"))
    {
        return Err(EnquiryError::UnknownField(unknown.clone()));
    }
    let form = match body.get("form") {
        None | Some(Value::Null) => return Err(EnquiryError::FormRequired),
        Some(Value::String(s)) if s.is_empty() => return Err(EnquiryError::FormRequired),
        Some(Value::String(s)) if is_slug(s) => s.clone(),
        Some(_) => return Err(EnquiryError::FormMalformed),
    };
    let dept = match body.get("dept") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Dept::parse(s).ok_or(EnquiryError::InvalidDept)?),
        Some(_) => return Err(EnquiryError::InvalidDept),
    };
    let fields = match body.get("fields") {
        None | Some(Value::Null) => return Err(EnquiryError::FieldsRequired),
        Some(Value::Object(f)) => f,
        Some(_) => return Err(EnquiryError::InvalidValueType("fields".into())),
    };
    if fields.len() > FIELDS_MAX_KEYS {
        return Err(EnquiryError::TooManyFields);
    }
    let encoded = serde_json::to_vec(fields).map_or(usize::MAX, |v| v.len());
    if encoded > FIELDS_MAX_BYTES {
        return Err(EnquiryError::FieldsTooLarge);
    }
    if let Some((key, _)) = fields
        .iter()
        .find(|(_, v)| !matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_)))
    {
        return Err(EnquiryError::InvalidValueType(format!("fields.{key}")));
    }
    if let Some(email) = fields.get("email")
        && !email.as_str().is_some_and(is_email)
    {
        return Err(EnquiryError::InvalidEmail);
    }
    if fields.get("consent").and_then(Value::as_str) != Some("yes") {
        return Err(EnquiryError::ConsentRequired);
    }
    Ok(Enquiry {
        form,
        dept,
        fields: fields.clone(),
    })
}

/// When a failed enquiry notification is tried again: 30 s after the first
/// failure, doubling to at most an hour between attempts, for three days
/// after it was first due; then it is marked failed (and logged) for an
/// operator.
pub const NOTIFICATION_RETRY: crate::retry::Doubling = crate::retry::Doubling {
    first_gap_ms: 30_000,
    max_gap_ms: 3_600_000,
    give_up_after_ms: 3 * 24 * 3_600_000,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(v: Value) -> Result<Enquiry, EnquiryError> {
        match v {
            Value::Object(m) => validate(m),
            _ => unreachable!(),
        }
    }

    fn ok() -> Value {
        json!({"form": "contact-us", "dept": "support",
               "fields": {"email": "a@b.co", "consent": "yes", "n": 3, "f": 1.5, "b": true}})
    }

    #[test]
    fn a_good_enquiry() {
        let e = check(ok()).unwrap();
        assert_eq!(
            (e.form.as_str(), e.dept),
            ("contact-us", Some(Dept::Support))
        );
        let mut general = ok();
        general.as_object_mut().unwrap().remove("dept");
        assert_eq!(check(general).unwrap().dept, None);
    }

    #[test]
    fn each_rule_has_its_failure() {
        use EnquiryError::*;
        let with = |path: &[&str], value: Value| {
            let mut v = ok();
            let mut at = &mut v;
            for p in &path[..path.len() - 1] {
                at = at.get_mut(*p).unwrap();
            }
            at[path[path.len() - 1]] = value;
            check(v)
        };
        assert_eq!(with(&["form"], json!(null)), Err(FormRequired));
        assert_eq!(with(&["form"], json!("")), Err(FormRequired));
        assert_eq!(with(&["form"], json!("Contact Us")), Err(FormMalformed));
        assert_eq!(with(&["form"], json!("a".repeat(65))), Err(FormMalformed));
        assert_eq!(with(&["form"], json!(7)), Err(FormMalformed));
        assert_eq!(with(&["dept"], json!("sales")), Err(InvalidDept));
        assert_eq!(with(&["fields"], json!(null)), Err(FieldsRequired));
        assert_eq!(
            with(&["fields"], json!([1])),
            Err(InvalidValueType("fields".into()))
        );
        assert_eq!(
            with(&["fields", "x"], json!({"nested": 1})),
            Err(InvalidValueType("fields.x".into()))
        );
        assert_eq!(
            with(&["fields", "x"], json!(null)),
            Err(InvalidValueType("fields.x".into()))
        );
        assert_eq!(with(&["fields", "email"], json!("nope")), Err(InvalidEmail));
        assert_eq!(with(&["fields", "email"], json!(5)), Err(InvalidEmail));
        assert_eq!(
            with(&["fields", "consent"], json!("no")),
            Err(ConsentRequired)
        );
        assert_eq!(
            with(&["fields", "consent"], json!(true)),
            Err(ConsentRequired)
        );
        assert_eq!(
            with(&["extra"], json!(1)),
            Err(UnknownField("extra".into()))
        );
        let mut many = ok();
        for i in 0..60 {
            many["fields"][format!("k{i}")] = json!(i);
        }
        assert_eq!(check(many), Err(TooManyFields));
        let mut big = ok();
        big["fields"]["message"] = json!("x".repeat(FIELDS_MAX_BYTES));
        assert_eq!(check(big), Err(FieldsTooLarge));
    }

    #[test]
    fn email_addresses() {
        for good in ["a@b.co", "first.last+tag@sub.example.co.uk", "x_y@a-b.io"] {
            assert!(is_email(good), "{good}");
        }
        for bad in [
            "",
            "a",
            "a@b",
            "@b.co",
            "a@.co",
            "a@b..co",
            "a b@c.co",
            "a@-b.co",
            ".a@b.co",
            "a@b.co@c.co",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }
}
