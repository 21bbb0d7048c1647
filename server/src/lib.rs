//! `kabe serve`: the endgame tables in a browser and over a JSON API.
//!
//! One [`Explorer`] holds the tables (one [`Tablebase`] per draw-rule set, each shared by
//! every request) and answers [`explore`]-shaped questions; [`router`] puts the API, the
//! OpenAPI document and the page (compiled into the binary) behind axum, with probes run
//! off the async threads and the request size, time and concurrency bounded.

mod api;
mod error;
pub mod json;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderValue};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{DrawRuleSet, Variant};
use tower::ServiceBuilder;

pub use api::{explore, mainline, Question};
pub use error::ApiError;

/// The tables a server answers from.
pub struct Explorer {
    dir: PathBuf,
    /// One tablebase per rule set: a tablebase applies one set per variant.
    tables: Vec<(DrawRuleSet, Tablebase)>,
}

impl Explorer {
    /// Opens every variant under `dir` once per draw-rule set, `cache_bytes` of block
    /// cache in all. Only headers are read: this takes milliseconds.
    pub fn open(dir: &Path, cache_bytes: usize) -> Result<Explorer, ProbeError> {
        let share = cache_bytes / DrawRuleSet::ALL.len();
        let tables = DrawRuleSet::ALL
            .iter()
            .map(|set| Ok((*set, Tablebase::builder(dir).rules(*set).cache_bytes(share).open()?)))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        Ok(Explorer { dir: dir.to_path_buf(), tables })
    }

    /// The directory served.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The tablebase that applies `set` to `variant`'s positions.
    pub(crate) fn tablebase(&self, set: DrawRuleSet) -> &Tablebase {
        &self.tables.iter().find(|(s, _)| *s == set).expect("every set is opened").1
    }

    /// The variants with tables, and the pieces up to which each is complete.
    pub fn variants(&self) -> Vec<(Variant, u32)> {
        let any = &self.tables[0].1;
        Variant::ALL.into_iter().filter(|v| any.draw_rules(v).is_some()).map(|v| (v, any.max_pieces_of(&v))).collect()
    }
}

/// Bounds on what a client may ask.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Requests handled at once; more wait.
    pub concurrency: usize,
    /// Time a request may take before it is answered 503.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { concurrency: 64, timeout: Duration::from_secs(10) }
    }
}

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");
/// The API described for clients (and checked against the server by the tests).
pub const OPENAPI_JSON: &str = include_str!("../assets/openapi.json");

fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body)
}

/// The whole application: page, assets, API, OpenAPI document.
pub fn router(explorer: Arc<Explorer>, limits: Limits) -> Router {
    let api = Router::new()
        .route("/api/variants", get(api::variants))
        .route("/api/openapi.json", get(|| async { asset("application/json", OPENAPI_JSON) }))
        .route("/api/{variant}", get(api::position))
        .route("/api/{variant}/mainline", get(api::line))
        .route("/api/{variant}/prove", get(api::prove_position))
        .with_state(explorer);
    Router::new()
        .route("/", get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }))
        .merge(api)
        .fallback(|| async { ApiError::NotFound("no such page or endpoint (see /api/openapi.json)".into()) })
        .layer(
            ServiceBuilder::new()
                .layer(axum::error_handling::HandleErrorLayer::new(|_: tower::BoxError| async {
                    ApiError::Busy("the server is busy or the request took too long; try again".into())
                }))
                .timeout(limits.timeout)
                .concurrency_limit(limits.concurrency)
                .layer(tower_http::limit::RequestBodyLimitLayer::new(16 * 1024))
                .layer(tower_http::set_header::SetResponseHeaderLayer::if_not_present(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                )),
        )
}

/// Serves `router` on `listener` until Ctrl-C.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
