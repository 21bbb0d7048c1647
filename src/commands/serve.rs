//! `kabe serve`: the tables in a browser and over a JSON API.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use kabe_server::{router, Explorer, Limits};

/// Arguments of `kabe serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Table directory (default: $KABE_TABLES, else the per-user data directory).
    #[arg(long, alias = "dir", value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Address to listen on, HOST:PORT (loopback by default; 0.0.0.0:8080 to serve the
    /// network; a host name such as localhost:8080 listens on the first address it has).
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = listen_address)]
    bind: SocketAddr,
    /// Block cache (all variants and rule sets share it), e.g. 256M.
    #[arg(long, value_parser = kabe_generator::parse_cache_bytes, default_value = "256M")]
    cache: u64,
    /// Requests handled at once; more wait, and any request over 10 s is answered 503.
    #[arg(long, default_value_t = Limits::default().concurrency as u64,
        value_parser = clap::value_parser!(u64).range(1..=MAX_CONCURRENCY))]
    concurrency: u64,
    /// Open connections at once; more are closed as they arrive.
    #[arg(long, default_value_t = Limits::default().connections as u64,
        value_parser = clap::value_parser!(u64).range(1..=MAX_CONNECTIONS))]
    max_connections: u64,
    /// Seconds a client has to send a request's headers before its connection is closed.
    #[arg(long, default_value_t = Limits::default().header_timeout.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=MAX_HEADER_TIMEOUT))]
    header_timeout: u64,
}

/// `--bind`'s value: an address, or a host name and port resolved to the host's first
/// address (IPv4 first: what `localhost` means to most clients).
fn listen_address(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs as _;
    if let Ok(address) = text.parse() {
        return Ok(address);
    }
    let found: Vec<SocketAddr> = text
        .to_socket_addrs()
        .map_err(|e| format!("{text:?} is not HOST:PORT with a host this machine knows ({e})"))?
        .collect();
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or(found.first())
        .copied()
        .ok_or_else(|| format!("{text:?}: the host has no address"))
}

/// The largest `--concurrency`: requests beyond the cores only wait for them.
const MAX_CONCURRENCY: u64 = 1024;
/// The largest `--max-connections`: about what one process may hold open.
const MAX_CONNECTIONS: u64 = 100_000;
/// The longest `--header-timeout`, in seconds: an hour.
const MAX_HEADER_TIMEOUT: u64 = 3600;

pub fn serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let dir = crate::args::table_dir(args.tables.as_deref())?;
    let explorer = Explorer::open(&dir, args.cache as usize)
        .with_context(|| format!("opening the tables in {}", dir.display()))?;
    for unusable in explorer.tablebase().unusable_files() {
        eprintln!("kabe: warning: serving without {unusable}");
    }
    let variants = explorer.variants();
    anyhow::ensure!(
        !variants.is_empty(),
        "no tables in {}: build some first, e.g. kabe generate --variant international --pieces 4 --tables {}",
        dir.display(),
        dir.display()
    );
    let limits = Limits {
        concurrency: args.concurrency as usize,
        connections: args.max_connections as usize,
        header_timeout: std::time::Duration::from_secs(args.header_timeout),
        ..Limits::default()
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(args.bind).await.with_context(|| format!("listening on {}", args.bind))?;
        let served: Vec<String> = variants.iter().map(|(v, n)| format!("{} to {n} pieces", v.name)).collect();
        outln!("kabe: serving {} ({}) on http://{}/", dir.display(), served.join(", "), listener.local_addr()?)?;
        kabe_server::serve(listener, router(Arc::new(explorer), limits), limits).await.context("serving")
    })?;
    Ok(ExitCode::SUCCESS)
}
