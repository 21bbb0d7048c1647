//! `kabe serve`: the endgame tables in a browser and over a JSON API.
//!
//! One [`Explorer`] holds the tables (one [`Tablebase`] and its one block cache, shared by
//! every request under every draw-rule set) and answers [`explore`]-shaped questions; [`router`] puts the API, the
//! OpenAPI document and the page (compiled into the binary) behind axum, with probes run
//! off the async threads and the request size, time and concurrency bounded.

mod api;
mod error;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderValue};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::Variant;
use tower::ServiceBuilder;

pub use api::{explore, mainline, Question};
pub use error::ApiError;

/// The tables a server answers from.
pub struct Explorer {
    dir: PathBuf,
    /// Every variant, every rule set: the counters of a question carry its set.
    tables: Tablebase,
}

impl Explorer {
    /// Opens every variant under `dir` with `cache_bytes` of block cache. Only headers
    /// are read: this takes milliseconds.
    pub fn open(dir: &Path, cache_bytes: usize) -> Result<Explorer, ProbeError> {
        let tables = Tablebase::builder(dir).cache_bytes(cache_bytes).open()?;
        Ok(Explorer { dir: dir.to_path_buf(), tables })
    }

    /// The directory served.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The tablebase.
    pub fn tablebase(&self) -> &Tablebase {
        &self.tables
    }

    /// The variants with tables, and the pieces up to which each is complete.
    pub fn variants(&self) -> Vec<(Variant, u32)> {
        let tb = &self.tables;
        Variant::ALL.into_iter().filter(|v| tb.draw_rules(v).is_some()).map(|v| (v, tb.max_pieces_of(&v))).collect()
    }
}

/// Bounds on what a client may ask.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Requests handled at once; more wait.
    pub concurrency: usize,
    /// Time a request may take before it is answered 503. Every request's work is
    /// bounded below it as well (the capture search by its reach, a line by its length,
    /// a proof search by its own 6 s), so nothing runs on long after the answer.
    pub timeout: Duration,
    /// Open connections at once; a connection over the cap is closed as it arrives.
    pub connections: usize,
    /// Time a client has to send a request's headers (on a new connection, or the next
    /// request on a kept-alive one) before the connection is closed.
    pub header_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            concurrency: 64,
            timeout: Duration::from_secs(10),
            connections: 1024,
            header_timeout: Duration::from_secs(5),
        }
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

/// Serves `router` on `listener` until Ctrl-C or SIGTERM, holding at most
/// `limits.connections` connections and closing those that send no request headers
/// within `limits.header_timeout` (idle, half-open or slow clients). On the signal it
/// stops taking connections and lets each request in flight be answered (within
/// `limits.timeout`) before it returns.
pub async fn serve(listener: tokio::net::TcpListener, router: Router, limits: Limits) -> std::io::Result<()> {
    let connections = limits.connections.max(1);
    let slots = Arc::new(tokio::sync::Semaphore::new(connections));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let shutdown = stop_signal();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = &mut shutdown => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of descriptors or a connection reset before it was taken: the listener
            // itself is fine; wait a moment rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            drop(stream); // over the cap: closed at once, nothing read
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut http = hyper::server::conn::http1::Builder::new();
            // half_close: a client that shuts its sending side after a whole request
            // (`printf 'GET / ...' | nc -N`) is still answered.
            http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(limits.header_timeout).half_close(true);
            let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            // A failed or timed-out connection concerns that client only.
            tokio::select! {
                _ = &mut connection => {}
                _ = stopping.changed() => {
                    // The request in flight is answered, then the connection closed.
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    // Drain: no new connection; those open finish the request they are on, within the
    // time a request may take (and a second more), then the server stops.
    drop(listener);
    let _ = stop.send(true);
    let drained = slots.acquire_many(connections as u32);
    let _ = tokio::time::timeout(limits.timeout + Duration::from_secs(1), drained).await;
    Ok(())
}

/// Resolves on Ctrl-C (SIGINT) or, on Unix, SIGTERM (what `kill`, systemd and container
/// runtimes send to stop a service).
async fn stop_signal() {
    #[cfg(unix)]
    {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
