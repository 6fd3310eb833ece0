//! The MCP server (`scalpel serve`): the only module that knows rmcp and
//! JSON-RPC. Each tool is a thin adapter over the library (`tools.rs`);
//! this file holds what they share:
//!
//! - [`ScalpelServer::read`] / [`ScalpelServer::write`]: resolve the
//!   workspace (root), run the library call on the blocking pool with panics
//!   caught, and for single-file writes hold the file's lock for planning
//!   and writing ([`crate::disk::locks`]; a transaction's writer takes every
//!   file's lock itself, and every writer tells the search index);
//! - the [`Session`] each call runs on: its root's workspace, the
//!   configuration and parse cache shared by all calls, its cancellation;
//! - the root: `--root`, else the client's roots, else the working
//!   directory; over HTTP each session's roots choose within the server's
//!   root ([`root::Roots`]);
//! - the `ServerHandler`: server info and instructions, tools/list with
//!   tidied schemas, tools/call with argument errors turned into structured
//!   `INVALID_ARGUMENT` results.
//!
//! stdout carries JSON-RPC only: logs go to stderr (`--log-level`). The
//! stdio framing is ours ([`framing`]): every line gets an answer, also an
//! over-long, non-UTF-8 or non-JSON one.

mod framing;
mod http;
mod index;
mod params;
pub mod reply;
mod root;
mod schema;
mod tools;
mod turns;

pub use framing::line_limit;
pub use http::{HttpOptions, STATE_FILE, ServerState, TOKEN_FILE, serve_http};
pub use reply::{Answer, Render, ToolError};
pub use tools::{ExtractCodeParams, ListSymbolsParams, SearchCodebaseParams, UndoEditParams};

use crate::disk::{Purpose, ResolvedPath};
use crate::error::{Error, Result};
use crate::ops::engine::{Engine, ParseCache};
use crate::ops::{Session, session};
use rmcp::handler::server::tool::{ToolCallContext, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Environment variable naming a tool that panics inside its library call:
/// a fault injection for tests of the panic barrier (like `disk::FaultPlan`).
/// Never set it in real use.
pub const FAULT_PANIC_TOOL_ENV: &str = "SCALPEL_FAULT_PANIC_TOOL";

/// What the server's `initialize` answer teaches the model.
pub const INSTRUCTIONS: &str = "\
Scalpel reads and edits code by symbol name, safely. Paths are relative to the root.
Find code by what it does: search_codebase(query) -> extract_code on a hit.
Code workflow: list_symbols(path) for the outline -> extract_code(path, symbol) for one \
symbol's exact code and file_hash -> update_symbol(path, symbol, new_code, expected_hash) \
to replace, insert_before, insert_after or delete it.
Text workflow (any file): search_files(keywords or pattern) -> read_fragment(path, ranges, \
keywords or symbols) -> edit_file(path, edits with old_text/new_text).
Across files: find_references(path, symbol) -> rename_symbol(path, symbol, new_name) \
(dry run first), or edit_files for text edits to several files; each is one transaction.
Symbols are name paths: `name`, `Class.method`, `Type::method`, `/top.level`, `f#2` for the \
2nd match. Writes return an edit_id; undo_edit reverts it. Failures carry error_code, \
message, suggestion and details: follow the suggestion.";

/// How a server is set up.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// `--root`; `None`: the client's roots, else the working directory.
    pub root: Option<PathBuf>,
    pub engine: Engine,
    /// Parse cache bounds (entries, estimated bytes); `None`: the defaults.
    pub cache_limits: Option<(usize, usize)>,
    /// Fault injection: this tool panics inside its library call.
    pub fault_panic_tool: Option<String>,
    /// The search index: the model folder (`--model`; `None`: the
    /// environment or the HuggingFace cache) and whether to start indexing
    /// (and watching) as soon as the root is known rather than at the first
    /// search.
    pub index: IndexOptions,
}

/// How the server's search index is set up.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    pub model: Option<PathBuf>,
    pub at_start: bool,
    /// Do not watch the root: the index hears of the server's own writes
    /// (through the workspace's write hook) only; other programs' changes
    /// are seen at the next start.
    pub no_watch: bool,
}

impl ServerOptions {
    /// Options with the fault injection taken from [`FAULT_PANIC_TOOL_ENV`].
    pub fn from_env(root: Option<PathBuf>, engine: Engine) -> ServerOptions {
        ServerOptions {
            root,
            engine,
            cache_limits: None,
            fault_panic_tool: std::env::var(FAULT_PANIC_TOOL_ENV)
                .ok()
                .filter(|s| !s.is_empty()),
            index: IndexOptions::default(),
        }
    }
}

struct Shared {
    /// The configuration and parse cache every session shares.
    ops: Arc<session::Shared>,
    roots: root::Roots,
    fault_panic_tool: Option<String>,
    indexes: Arc<index::Indexes>,
    /// Writers of one file, queued before they take a blocking thread.
    turns: Arc<turns::Turns>,
}

/// What a tool's library call gets: the [`Session`] of this call (its
/// workspace, the shared configuration and parse cache, its cancellation)
/// and the search index of its root.
#[derive(Clone)]
pub struct Env {
    session: Session,
    indexes: Arc<index::Indexes>,
}

impl std::ops::Deref for Env {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

impl Env {
    /// The search index of this call's root (started on first use).
    pub fn index(&self) -> Result<Arc<crate::index::LiveIndex>> {
        self.indexes
            .get(self.session.engine(), self.session.ws().root())
    }
}

/// The MCP server. Cheap to clone; clones share the cache, root and locks.
#[derive(Clone)]
pub struct ScalpelServer {
    shared: Arc<Shared>,
    /// Built at the first request that needs it (tools/list, a call):
    /// building every tool's schemas was half of what starting the server
    /// cost before `initialize` could be answered.
    router: Arc<std::sync::OnceLock<ToolRouter<ScalpelServer>>>,
    /// This session's root (its client's MCP roots): each HTTP session's
    /// handler has its own ([`ScalpelServer::for_session`]).
    session_root: Arc<root::SessionRoot>,
}

impl ScalpelServer {
    /// A server; fails only when `options.root` is not a usable directory.
    pub fn new(options: ServerOptions) -> Result<ScalpelServer> {
        Self::build(options, false)
    }

    /// `served`: one root (`options.root`) for many sessions, each of which
    /// chooses within it by its MCP roots (HTTP); else stdio's rule.
    fn build(options: ServerOptions, served: bool) -> Result<ScalpelServer> {
        let max = options.engine.max_file_size;
        let indexes = Arc::new(index::Indexes::new(options.index));
        let roots = match (served, options.root.as_deref()) {
            (true, Some(root)) => root::Roots::served(root, max, indexes.clone())?,
            _ => root::Roots::new(options.root.as_deref(), max, indexes.clone())?,
        };
        let cache = match options.cache_limits {
            Some((entries, bytes)) => ParseCache::new(entries, bytes),
            None => ParseCache::default(),
        };
        Ok(ScalpelServer {
            shared: Arc::new(Shared {
                ops: session::Shared::new(options.engine, cache),
                roots,
                fault_panic_tool: options.fault_panic_tool,
                indexes,
                turns: Arc::default(),
            }),
            router: Arc::new(std::sync::OnceLock::new()),
            session_root: Arc::default(),
        })
    }

    /// The handler of a new session: the same state, its own root choice.
    fn for_session(&self) -> ScalpelServer {
        ScalpelServer {
            shared: self.shared.clone(),
            router: self.router.clone(),
            session_root: Arc::default(),
        }
    }

    /// The tools with their schemas tidied, built once.
    fn router(&self) -> &ToolRouter<ScalpelServer> {
        self.router.get_or_init(|| {
            let mut router = Self::tool_router();
            for route in router.map.values_mut() {
                let attr = &mut route.attr;
                attr.input_schema = Arc::new(schema::tidy(&attr.input_schema));
                // Every tool answers with `structuredContent` (`Answer<T>`).
                attr.output_schema = Some(Arc::new(schema::output()));
            }
            router
        })
    }

    /// Every tool, sorted by name, as tools/list shows them.
    pub fn tools(&self) -> Vec<Tool> {
        self.router().list_all()
    }

    /// Parse cache counters.
    pub fn cache_stats(&self) -> crate::ops::engine::CacheStats {
        self.shared.ops.cache.stats()
    }

    async fn env(&self, ctx: &RequestContext<RoleServer>) -> Result<Env, ToolError> {
        let ws = self
            .shared
            .roots
            .workspace(&self.session_root, &ctx.peer)
            .await?;
        Ok(Env {
            session: Session::new(ws, self.shared.ops.clone()),
            indexes: self.shared.indexes.clone(),
        })
    }

    fn injected_fault(&self, tool: &str) -> bool {
        self.shared.fault_panic_tool.as_deref() == Some(tool)
    }

    /// Run a reading tool's library call `f` on the blocking pool.
    pub async fn read<T, F>(
        &self,
        tool: &'static str,
        ctx: &RequestContext<RoleServer>,
        f: F,
    ) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce(&Env) -> Result<T> + Send + 'static,
    {
        let cancel = Cancel::watch(ctx);
        let mut env = self.env(ctx).await?;
        env.session = env.session.with_cancel(cancel.flag());
        let fault = self.injected_fault(tool);
        reply::blocking(tool, move || {
            if fault {
                panic!("injected fault ({FAULT_PANIC_TOOL_ENV})");
            }
            env.session.run(|_| f(&env))
        })
        .await
    }

    /// Run a single-file writing tool's library call `f` on the blocking
    /// pool, holding the lock of the file `path` resolves to (for `purpose`)
    /// while it plans and writes, so that calls writing one file run one
    /// after the other and each sees the previous one's result. The writer
    /// (`disk`) tells the search index what it wrote.
    pub async fn write<T, F>(
        &self,
        tool: &'static str,
        ctx: &RequestContext<RoleServer>,
        path: String,
        purpose: Purpose,
        f: F,
    ) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce(&Env, ResolvedPath) -> Result<T> + Send + 'static,
    {
        // Wait for the file's turn here, not on a blocking thread.
        let root = self.env(ctx).await?.ws().root().to_path_buf();
        let _turn = self.shared.turns.wait(&root, &path).await;
        self.read(tool, ctx, move |env| {
            let target = env.resolve(&path, purpose)?;
            let _held = env.hold(&[target.path.as_path()])?;
            f(env, target)
        })
        .await
    }

    /// Run a tool that writes a set of files as one transaction (known only
    /// once it is planned): its writer takes every file's lock, in one
    /// order, and tells the search index of each file.
    pub async fn write_set<T, F>(
        &self,
        tool: &'static str,
        ctx: &RequestContext<RoleServer>,
        f: F,
    ) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce(&Env) -> Result<T> + Send + 'static,
    {
        self.read(tool, ctx, f).await
    }
}

/// A request's cancellation as a flag the blocking work can poll: set when
/// the client cancels the call (`notifications/cancelled`), so a long parse
/// stops instead of running to its deadline for an answer nobody reads. A
/// write cancelled this way fails before anything is written (its
/// validation parse stops); one past validation completes.
struct Cancel {
    flag: Arc<std::sync::atomic::AtomicBool>,
    watcher: tokio::task::JoinHandle<()>,
}

impl Cancel {
    fn watch(ctx: &RequestContext<RoleServer>) -> Cancel {
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (ct, set) = (ctx.ct.clone(), flag.clone());
        let watcher = tokio::spawn(async move {
            ct.cancelled().await;
            set.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        Cancel { flag, watcher }
    }

    fn flag(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.flag.clone()
    }
}

impl Drop for Cancel {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

/// rmcp reports undecodable arguments as an error result with plain text;
/// give it the same structured shape as every other failure.
fn structured_argument_error(resp: CallToolResponse, tool: &str) -> CallToolResponse {
    let CallToolResponse::Complete(result) = resp else {
        return resp;
    };
    if result.is_error != Some(true) || result.structured_content.is_some() {
        return CallToolResponse::Complete(result);
    }
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    let message = text.join(" ");
    ToolError(
        Error::invalid_argument(format!("{tool}: {message}"))
            .with_suggestion("fix the arguments to match the tool's input schema")
            .with_details(serde_json::json!({"tool": tool})),
    )
    .into_result()
    .into()
}

impl ServerHandler for ScalpelServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("scalpel", env!("CARGO_PKG_VERSION")).with_title("Scalpel"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.router().get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.clone();
        tracing::debug!(tool = %name, "call");
        let started = std::time::Instant::now();
        let ctx = ToolCallContext::new(self, request, context);
        let resp = self.router().call(ctx).await?;
        let resp = structured_argument_error(resp, &name);
        if let CallToolResponse::Complete(r) = &resp {
            tracing::info!(
                tool = %name,
                ok = r.is_error != Some(true),
                ms = started.elapsed().as_secs_f64() * 1000.0,
                "tool call"
            );
        }
        Ok(resp)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Ask for the client's roots now rather than on the first call.
        match self
            .shared
            .roots
            .workspace(&self.session_root, &context.peer)
            .await
        {
            Ok(ws) => {
                // Loading the model and the saved index takes a moment: off
                // the async runtime.
                let shared = self.shared.clone();
                tokio::task::spawn_blocking(move || {
                    shared.indexes.at_start(&shared.ops.engine, ws.root())
                });
            }
            Err(e) => tracing::warn!(error = %e, "no usable root yet"),
        }
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        tracing::info!("client roots changed");
        self.session_root.invalidate();
    }
}

/// `scalpel serve`: serve MCP over stdin/stdout until the client hangs up.
/// Logs go to stderr at `log_level` (a tracing filter: `warn`, `info`,
/// `scalpel=debug`, ...).
pub fn serve_stdio(options: ServerOptions, log_level: &str) -> Result<()> {
    init_logging(log_level)?;
    let limit = framing::line_limit(options.engine.max_file_size);
    let server = ScalpelServer::new(options)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("start_runtime", Path::new("."), &e))?;
    runtime.block_on(async move {
        tracing::info!(
            version = env!("CARGO_PKG_VERSION"),
            line_limit = limit,
            "scalpel serve: listening on stdio"
        );
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = framing::FramedTransport::new(stdin, stdout, limit);
        let running = server.serve(transport).await.map_err(|e| {
            Error::new(crate::ErrorCode::Io, format!("MCP handshake failed: {e}")).with_suggestion(
                "start the server from an MCP client, which sends `initialize` first",
            )
        })?;
        let reason = running.waiting().await;
        tracing::info!(?reason, "client disconnected");
        Ok(())
    })
}

/// Log to stderr at `log_level` (a tracing filter).
fn init_logging(log_level: &str) -> Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_new(log_level).map_err(|e| {
        Error::invalid_argument(format!("bad --log-level `{log_level}`: {e}"))
            .with_suggestion("use error, warn, info, debug or trace (or a tracing filter)")
    })?;
    // A subscriber may already be set when embedded; then keep that one.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
    Ok(())
}
