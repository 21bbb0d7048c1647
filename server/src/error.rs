//! Errors as the API answers them: a status and `{"error": kind, "message": text}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A parameter is missing or malformed: FEN, rules, counters (400).
    #[error("{message}")]
    BadRequest {
        /// Which: `bad_fen`, `missing_fen`, `bad_rules`, `bad_counters`.
        kind: &'static str,
        /// What was wrong, naming the parameter.
        message: String,
    },
    /// No such variant, variant without tables, or no such path (404).
    #[error("{0}")]
    NotFound(String),
    /// The position is well formed but the tables cannot answer it: more pieces than
    /// they hold, or a table missing from the directory (422).
    #[error("{message}")]
    Unanswerable {
        /// `too_many_pieces` or `missing_table`.
        kind: &'static str,
        /// Which table or how many pieces.
        message: String,
    },
    /// Too many requests at once, or one that took too long (503).
    #[error("{0}")]
    Busy(String),
    /// A table file is damaged or unreadable: the server's fault, named (500).
    #[error("{0}")]
    Table(String),
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Unanswerable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Table(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The machine-readable kind.
    pub fn kind(&self) -> &'static str {
        match self {
            ApiError::BadRequest { kind, .. } | ApiError::Unanswerable { kind, .. } => kind,
            ApiError::NotFound(_) => "not_found",
            ApiError::Busy(_) => "busy",
            ApiError::Table(_) => "table_error",
        }
    }

    pub(crate) fn bad(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::BadRequest { kind, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status(), Json(json!({"error": self.kind(), "message": self.to_string()}))).into_response()
    }
}
