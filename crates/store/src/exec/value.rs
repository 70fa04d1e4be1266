//! What crosses the executor: parameters borrowed from the caller, and rows
//! of owned values read back. Both backends map their own types onto these
//! five (and a list of strings, which a parameter may be), so a statement
//! and its row mapper are written once.

use serde::de::DeserializeOwned;

use crate::error::StoreError;

/// A statement's parameter. `Bool` is an integer 0/1 on SQLite; `Text`
/// binds to PostgreSQL's `TEXT`, `JSON` and `JSONB` alike; `Texts` is a
/// `TEXT[]` on PostgreSQL and a JSON array on SQLite.
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    Null,
    Int(i64),
    Text(&'a str),
    Bytes(&'a [u8]),
    Bool(bool),
    Texts(&'a [String]),
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(v)
    }
}

impl From<u32> for Param<'_> {
    fn from(v: u32) -> Self {
        Param::Int(i64::from(v))
    }
}

impl From<i32> for Param<'_> {
    fn from(v: i32) -> Self {
        Param::Int(i64::from(v))
    }
}

impl From<bool> for Param<'_> {
    fn from(v: bool) -> Self {
        Param::Bool(v)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(v: &'a [u8]) -> Self {
        Param::Bytes(v)
    }
}

impl<'a> From<&'a Vec<u8>> for Param<'a> {
    fn from(v: &'a Vec<u8>) -> Self {
        Param::Bytes(v)
    }
}

impl<'a> From<&'a lendhub_domain::tenant::Tenant> for Param<'a> {
    fn from(v: &'a lendhub_domain::tenant::Tenant) -> Self {
        Param::Text(v.as_str())
    }
}

impl<'a, T> From<Option<T>> for Param<'a>
where
    T: Into<Param<'a>>,
{
    fn from(v: Option<T>) -> Self {
        v.map_or(Param::Null, Into::into)
    }
}

impl<'a> From<&'a Option<String>> for Param<'a> {
    fn from(v: &'a Option<String>) -> Self {
        v.as_deref().map_or(Param::Null, Param::Text)
    }
}

impl From<&Option<i64>> for Param<'_> {
    fn from(v: &Option<i64>) -> Self {
        v.map_or(Param::Null, Param::Int)
    }
}

impl From<&i64> for Param<'_> {
    fn from(v: &i64) -> Self {
        Param::Int(*v)
    }
}

/// `[p(a), p(b), …]`: a statement's parameters, each converted.
#[macro_export]
macro_rules! params {
    ($($p:expr),* $(,)?) => {
        [$($crate::exec::Param::from($p)),*]
    };
}

/// A value read back. Integers of every width are `Int`; `JSON`, `JSONB`
/// and `TEXT` are `Text`; PostgreSQL's `BOOLEAN` is `Bool`.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
    /// Only ever a parameter (see [`Param::Texts`]), never read back.
    Texts(Vec<String>),
}

impl<'a> From<&'a Value> for Param<'a> {
    fn from(v: &'a Value) -> Self {
        match v {
            Value::Null => Param::Null,
            Value::Int(i) => Param::Int(*i),
            Value::Text(t) => Param::Text(t),
            Value::Bytes(b) => Param::Bytes(b),
            Value::Bool(b) => Param::Bool(*b),
            Value::Texts(t) => Param::Texts(t),
        }
    }
}

/// Owned values from what a statement's parameters are made of.
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.to_owned())
    }
}

impl From<Vec<String>> for Value {
    fn from(v: Vec<String>) -> Self {
        Value::Texts(v)
    }
}

impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Self {
        Value::Bytes(v)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

/// `vec![v(a), v(b), …]`: a plan statement's owned parameters.
#[macro_export]
macro_rules! values {
    ($($v:expr),* $(,)?) => {
        vec![$($crate::exec::Value::from($v)),*]
    };
}

/// One row: its values in the statement's column order.
#[derive(Clone, Debug, Default)]
pub struct Row(pub(crate) Vec<Value>);

impl Row {
    /// Column `i` as `T`; a missing column or another type is a fault.
    pub fn get<T: FromValue>(&self, i: usize) -> Result<T, StoreError> {
        let value = self.0.get(i).unwrap_or(&Value::Null);
        T::from_value(value).ok_or_else(|| {
            StoreError::Internal(format!(
                "column {i}: expected {}, found {value:?}",
                std::any::type_name::<T>()
            ))
        })
    }

    /// Column `i`, text holding JSON, parsed as `T`.
    pub fn json<T: DeserializeOwned>(&self, i: usize) -> Result<T, StoreError> {
        match self.0.get(i) {
            Some(Value::Text(text)) => from_json(text),
            other => Err(StoreError::Internal(format!(
                "column {i}: expected JSON text, found {other:?}"
            ))),
        }
    }

    /// Column `i`, text holding JSON, parsed as `T`; `None` when null.
    pub fn json_opt<T: DeserializeOwned>(&self, i: usize) -> Result<Option<T>, StoreError> {
        match self.0.get(i) {
            Some(Value::Null) | None => Ok(None),
            _ => self.json(i).map(Some),
        }
    }
}

pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Internal(format!("a stored document: {e}")))
}

pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|e| StoreError::Internal(format!("serialising a document: {e}")))
}

/// A Rust type a column converts into.
pub trait FromValue: Sized {
    fn from_value(v: &Value) -> Option<Self>;
}

impl FromValue for i64 {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }
}

impl FromValue for i32 {
    fn from_value(v: &Value) -> Option<Self> {
        i64::from_value(v).and_then(|i| i32::try_from(i).ok())
    }
}

impl FromValue for u32 {
    fn from_value(v: &Value) -> Option<Self> {
        i64::from_value(v).and_then(|i| u32::try_from(i).ok())
    }
}

impl FromValue for u64 {
    fn from_value(v: &Value) -> Option<Self> {
        i64::from_value(v).and_then(|i| u64::try_from(i).ok())
    }
}

impl FromValue for bool {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Bool(b) => Some(*b),
            Value::Int(i) => Some(*i != 0),
            _ => None,
        }
    }
}

impl FromValue for String {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Text(t) => Some(t.clone()),
            _ => None,
        }
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Bytes(b) => Some(b.clone()),
            _ => None,
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Null => Some(None),
            other => T::from_value(other).map(Some),
        }
    }
}
