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
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Address to listen on (loopback by default; 0.0.0.0:8080 to serve the network).
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// Block cache for all rule sets together, e.g. 256M.
    #[arg(long, value_parser = kabe_generator::MemoryBudget::parse, default_value = "256M")]
    cache: kabe_generator::MemoryBudget,
    /// Requests handled at once; more wait, and any request over 10 s is answered 503.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
}

pub fn serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let dir = args.tables.clone().unwrap_or_else(crate::cli_tables::default_dir);
    let explorer = Explorer::open(&dir, args.cache.bytes as usize)
        .with_context(|| format!("opening the tables in {}", dir.display()))?;
    let variants = explorer.variants();
    anyhow::ensure!(
        !variants.is_empty(),
        "no tables in {}: build some first, e.g. kabe generate --variant international --pieces 4 --dir {}",
        dir.display(),
        dir.display()
    );
    anyhow::ensure!(args.concurrency >= 1, "--concurrency must be at least 1");
    let limits = Limits { concurrency: args.concurrency, ..Limits::default() };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(args.bind).await.with_context(|| format!("listening on {}", args.bind))?;
        let served: Vec<String> = variants.iter().map(|(v, n)| format!("{} to {n} pieces", v.name)).collect();
        outln!("kabe: serving {} ({}) on http://{}/", dir.display(), served.join(", "), listener.local_addr()?)?;
        kabe_server::serve(listener, router(Arc::new(explorer), limits)).await.context("serving")
    })?;
    Ok(ExitCode::SUCCESS)
}
