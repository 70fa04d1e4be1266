//! The answer to `POST /events/{id}/replay`.

use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct EventReplay {
    #[schema(example = "event_replay")]
    pub object: &'static str,
    pub event_id: String,
    /// The endpoints a delivery was queued for.
    pub endpoint_ids: Vec<String>,
}
