//! One problem with one field of a request, as every 422 lists them.

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct FieldIssue {
    /// Dotted path of the offending field.
    pub field: String,
    /// Stable reason, e.g. `required`, `min_value`, `max_value`, `pattern`, `invalid_type`.
    pub reason: String,
    /// The limit a `min_value`/`max_value` (or size) reason refers to, in
    /// the field's own unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<serde_json::Value>,
}

impl FieldIssue {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
            bound: None,
        }
    }

    pub fn with_bound(mut self, bound: impl Into<serde_json::Value>) -> Self {
        self.bound = Some(bound.into());
        self
    }
}
