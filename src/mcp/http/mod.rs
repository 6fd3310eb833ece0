//! `scalpel serve --http`: one long-lived server for many MCP clients over
//! MCP's streamable HTTP transport (rmcp's service, under hyper's HTTP/1.1
//! server), safe by default. Built only when `--http` is given: the stdio
//! server's start-up does not pay for it.
//!
//! - Every session's handler is a clone of one [`ScalpelServer`], so all
//!   sessions share its state (`Shared`: the root's one workspace with its
//!   journal, the parse cache, the search index) and the process-wide
//!   per-file locks: a write by one session is seen by the next call of
//!   any other. One server serves one root (`--root`, else the working
//!   directory) and says so in `ROOT/.scalpel/server.json`; each session's
//!   MCP roots choose within it (R, a folder of it, or a refusal:
//!   [`super::root`]), and each session's handler keeps its own choice.
//! - [`memory`]: how many threads run calls, malloc arenas, trimming.
//! - [`gate`] checks every request (Host, Origin, token, session, limits,
//!   body) before rmcp does; [`state`] holds `server.json` and the token.
//! - SIGTERM / SIGINT: refuse new requests, wait for those in flight (a
//!   transaction runs to its end on the blocking pool, and the runtime is
//!   dropped only after every blocking task returned), close the sessions,
//!   save the search index, remove `server.json`, exit 0.

mod gate;
mod memory;
mod state;

pub use gate::{ENDPOINT, Limits};
pub use state::{STATE_FILE, ServerState, TOKEN_FILE};

use super::{ScalpelServer, ServerOptions};
use crate::error::{Error, ErrorCode, Result};
use gate::{Gate, Holding, Sessions};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long a client has to send a request's headers.
const HEADER_DEADLINE: Duration = Duration::from_secs(30);
/// A request's headers, in bytes (more: 431).
const MAX_HEADER_BYTES: usize = 64 * 1024;
/// How long a stop waits for the requests in flight to be answered.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);

/// `scalpel serve --http` settings.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    pub allow_remote: bool,
    pub token_file: Option<PathBuf>,
    pub allow_origins: Vec<String>,
    pub max_sessions: usize,
    pub max_requests: usize,
    pub max_session_requests: usize,
    /// A session without requests for this long is closed.
    pub idle_timeout: Duration,
}

impl HttpOptions {
    pub const DEFAULT_ADDR: &str = "127.0.0.1:0";
}

struct Manager(Arc<LocalSessionManager>);

impl Sessions for Manager {
    async fn count(&self) -> usize {
        self.0.sessions.read().await.len()
    }
    async fn has(&self, id: &str) -> bool {
        self.0.sessions.read().await.contains_key(id)
    }
}

/// Check the options that need no I/O.
fn check(http: &HttpOptions) -> Result<()> {
    if !http.addr.ip().is_loopback() && !http.allow_remote {
        return Err(Error::invalid_argument(format!(
            "--http {} listens beyond this machine",
            http.addr
        ))
        .with_details(serde_json::json!({"addr": http.addr.to_string()}))
        .with_suggestion(
            "listen on loopback (--http 127.0.0.1:PORT), or add --allow-remote (clients then need the token: --token-file FILE)",
        ));
    }
    for origin in &http.allow_origins {
        if gate::normalize_origin(origin).is_none() {
            return Err(Error::invalid_argument(format!(
                "--allow-origin `{origin}` is not an origin"
            ))
            .with_suggestion(
                "write it as scheme://host[:port], e.g. --allow-origin http://localhost:5173",
            ));
        }
    }
    for (flag, n) in [
        ("--max-sessions", http.max_sessions),
        ("--max-requests", http.max_requests),
        ("--max-session-requests", http.max_session_requests),
    ] {
        if n == 0 {
            return Err(
                Error::invalid_argument(format!("{flag} 0 would refuse everything"))
                    .with_suggestion(format!("give {flag} a number of at least 1")),
            );
        }
    }
    Ok(())
}

/// `scalpel serve --http`: serve until SIGTERM or SIGINT, then stop cleanly.
pub fn serve_http(mut options: ServerOptions, http: HttpOptions, log_level: &str) -> Result<()> {
    super::init_logging(log_level)?;
    check(&http)?;
    let root = match options.root.take() {
        Some(r) => r,
        None => {
            std::env::current_dir().map_err(|e| Error::io("current_dir", Path::new("."), &e))?
        }
    };
    let root = std::fs::canonicalize(&root).map_err(|e| {
        Error::io("open --root", &root, &e)
            .with_suggestion("pass an existing folder with --root DIR")
    })?;
    state::refuse_second(&root)?;
    options.root = Some(root.clone());
    let body_limit = super::framing::line_limit(options.engine.max_file_size);
    let server = ScalpelServer::build(options, true)?;
    let (token, token_file) = state::token(&root, http.token_file.as_deref())?;
    // Before the runtime starts its threads.
    memory::limit_arenas();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(memory::blocking_threads())
        .thread_keep_alive(memory::BLOCKING_KEEP_ALIVE)
        .build()
        .map_err(|e| Error::io("start_runtime", Path::new("."), &e))?;
    let hosts = (!http.allow_remote || http.addr.ip().is_loopback())
        .then(|| vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]);
    let gate = Arc::new(Gate::new(
        token,
        token_file.clone(),
        hosts.clone(),
        &http.allow_origins,
        Limits {
            sessions: http.max_sessions,
            requests: http.max_requests,
            session_requests: http.max_session_requests,
            body: body_limit,
        },
    ));
    let served = runtime.block_on(run(server.clone(), &root, &http, gate, hosts, token_file));
    // Every blocking task (a tool call, a transaction) returns before the
    // runtime is gone: none is cut off half-way.
    drop(runtime);
    let generated = http.token_file.is_none();
    match served {
        Ok(state) => {
            server.shared.indexes.save_all();
            state.remove(&root, generated);
            tracing::info!("stopped");
            eprintln!("scalpel serve: stopped");
            Ok(())
        }
        Err(e) => Err(e),
    }
}

async fn run(
    server: ScalpelServer,
    root: &Path,
    http: &HttpOptions,
    gate: Arc<Gate>,
    hosts: Option<Vec<String>>,
    token_file: PathBuf,
) -> Result<ServerState> {
    use tokio::signal::unix::{SignalKind, signal};
    let listener = tokio::net::TcpListener::bind(http.addr)
        .await
        .map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("cannot listen on {}: {e}", http.addr),
            )
            .with_details(
                serde_json::json!({"addr": http.addr.to_string(), "os_error": e.to_string()}),
            )
            .with_suggestion(
                "choose another port with --http 127.0.0.1:PORT (port 0 picks a free one)",
            )
        })?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io("local_addr", root, &e))?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(|e| Error::io("signal", root, &e))?;
    let mut sigint = signal(SignalKind::interrupt()).map_err(|e| Error::io("signal", root, &e))?;

    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(http.idle_timeout);
    let manager = Arc::new(manager);
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(gate.body_limit())
        .with_allowed_origins(gate.origins().to_vec())
        .enforce_origin_validation();
    config = match hosts {
        Some(h) => config.with_allowed_hosts(h),
        None => config.disable_allowed_hosts(),
    };
    let sessions_end = config.cancellation_token.clone();
    let handler = server.clone();
    let service =
        StreamableHttpService::new(move || Ok(handler.for_session()), manager.clone(), config);

    let state = ServerState {
        pid: std::process::id(),
        addr,
        url: format!("http://{addr}{ENDPOINT}"),
        token_file: token_file.clone(),
        root: root.to_path_buf(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    // Start indexing now: the first search of the first session finds it ready.
    let shared = server.shared.clone();
    let at = root.to_path_buf();
    tokio::task::spawn_blocking(move || {
        if let Err(e) = shared.indexes.get(&shared.ops.engine, &at) {
            tracing::warn!(error = %e, "could not open the search index");
        }
    });
    eprintln!(
        "scalpel serve: listening on {} (root {}; token in {}; state in {})",
        state.url,
        root.display(),
        token_file.display(),
        ServerState::path(root).display()
    );
    // Last: a client that finds server.json finds the server listening.
    state.write(root)?;

    // Hand freed memory back after each burst of requests.
    let trimmer = {
        let gate = gate.clone();
        tokio::spawn(
            async move { memory::trim_when_idle(|| gate.admitted(), || gate.idle()).await },
        )
    };
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let signal = loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of descriptors and the like: wait, do not spin.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let (service, gate, manager) = (service.clone(), gate.clone(), manager.clone());
                connections.spawn(connection(stream, service, gate, Manager(manager), stop_rx.clone()));
            }
            _ = sigterm.recv() => break "SIGTERM",
            _ = sigint.recv() => break "SIGINT",
        }
        // Reap finished connections as we go.
        while connections.try_join_next().is_some() {}
    };
    tracing::info!(
        signal,
        "stopping: no new requests; waiting for those in flight"
    );
    trimmer.abort();
    drop(listener);
    gate.close();
    if !gate.drained(DRAIN_LIMIT).await {
        tracing::warn!(
            "requests still in flight after {DRAIN_LIMIT:?}: stopping anyway (their blocking work still completes)"
        );
    }
    sessions_end.cancel();
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    Ok(state)
}

/// Serve one TCP connection (HTTP/1.1, keep-alive) until it closes or the
/// server stops.
async fn connection<M>(
    stream: tokio::net::TcpStream,
    service: StreamableHttpService<ScalpelServer, M>,
    gate: Arc<Gate>,
    manager: Manager,
    mut stop: tokio::sync::watch::Receiver<bool>,
) where
    M: rmcp::transport::streamable_http_server::SessionManager,
{
    let manager = Arc::new(manager);
    let handle = hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let (service, gate, manager) = (service.clone(), gate.clone(), manager.clone());
        async move {
            let method = req.method().clone();
            let origin = req.headers().get(http::header::ORIGIN).cloned();
            let answer = if method == http::Method::OPTIONS {
                gate.preflight(&req)
            } else {
                match gate.admit(req, manager.as_ref()).await {
                    Ok(admitted) => {
                        let mut resp = service.handle(admitted.request).await;
                        // rmcp ends a session with 202; clients (the Python
                        // SDK) expect 200 or 204 and warn otherwise.
                        if method == http::Method::DELETE
                            && resp.status() == http::StatusCode::ACCEPTED
                        {
                            *resp.status_mut() = http::StatusCode::NO_CONTENT;
                        }
                        Ok(Holding::wrap(resp, admitted.held))
                    }
                    Err(refusal) => Err(refusal),
                }
            };
            let mut resp = match answer {
                Ok(resp) => resp,
                Err(refusal) => {
                    tracing::info!(
                        %method,
                        status = refusal.status.as_u16(),
                        code = refusal.code,
                        message = %refusal.message,
                        "refused"
                    );
                    refusal.response()
                }
            };
            gate.grant(origin.as_ref(), &mut resp);
            Ok::<_, std::convert::Infallible>(resp)
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_DEADLINE)
        .max_header_size(MAX_HEADER_BYTES);
    let conn = builder.serve_connection(TokioIo::new(stream), handle);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        r = conn.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(error = %e, "connection ended");
            }
        }
        () = async {
            // The guard `wait_for` answers with is not `Send`: drop it here.
            let _ = stop.wait_for(|s| *s).await;
        } => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(Duration::from_secs(2), conn).await;
        }
    }
}
