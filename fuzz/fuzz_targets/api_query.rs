//! Arbitrary bytes as the path and query of a request to `kabe serve`'s API, answered by
//! the real router over intact tables: every request gets an answer, never a panic, and
//! never a 500 (that status is for a damaged table). The tables are read from
//! `$KABE_FUZZ_TABLES` (built beforehand: building them here would run zstd's compressor
//! under the sanitizer, which reports a false stack-use-after-scope inside zstd).
//! Run: `KABE_FUZZ_TABLES=DIR RUSTC_BOOTSTRAP=1 cargo fuzz run api_query` (seeds:
//! `fuzz/seed.sh`).
#![no_main]

use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::Request;
use kabe_server::{router, Explorer, Limits};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

struct Served {
    runtime: tokio::runtime::Runtime,
    app: axum::Router,
}

fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let dir = std::env::var_os("KABE_FUZZ_TABLES").expect("KABE_FUZZ_TABLES names a built table directory");
        let explorer = Explorer::open(std::path::Path::new(&dir), 16 << 20).expect("open");
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("rt");
        Served { runtime, app: router(Arc::new(explorer), Limits::default()) }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (variant, query) = text.split_once('?').unwrap_or((text, ""));
    // Paths of the API, with the fuzzed variant segment and query.
    for endpoint in ["", "/mainline", "/prove"] {
        let uri = format!("/api/{variant}{endpoint}?{query}");
        let Ok(request) = Request::get(uri.as_str()).body(Body::empty()) else { return };
        let served = served();
        let status = served.runtime.block_on(served.app.clone().oneshot(request)).expect("infallible").status();
        assert_ne!(status.as_u16(), 500, "{uri}");
    }
});
