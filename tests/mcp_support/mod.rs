//! Helpers for the MCP tests: a sample repository, an rmcp client that can
//! declare roots, and assertions on tool results.
// Roots are deprecated in rmcp 3.9 (SEP-2577) but still what clients send.
#![allow(dead_code, deprecated)]

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ListRootsResult, Root,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A small repository: two fixture files, git data, files each tool must
/// refuse, and a sibling file outside the root.
pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        for sub in ["src", ".git", "docs"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::copy(
            fixtures().join("python/inventory.py"),
            root.join("src/inventory.py"),
        )
        .unwrap();
        std::fs::copy(
            fixtures().join("rust/geometry.rs"),
            root.join("src/geometry.rs"),
        )
        .unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(root.join("docs/notes.txt"), "plain notes\n").unwrap();
        std::fs::write(root.join("src/blob.py"), b"x = 1\n\0\0\0binary").unwrap();
        std::fs::write(root.join("src/latin1.py"), b"s = '\xe9t\xe9'\n").unwrap();
        std::fs::write(dir.path().join("secret.py"), "def secret(): pass\n").unwrap();
        Repo { dir }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }
}

impl Default for Repo {
    fn default() -> Self {
        Repo::new()
    }
}

/// A client that declares the roots capability (when given roots) and
/// answers `roots/list` with what the test sets.
/// Progress notifications received: (progress, message).
pub type ProgressLog = Arc<Mutex<Vec<(f64, Option<String>)>>>;

#[derive(Clone, Default)]
pub struct TestClient {
    pub roots: Option<Arc<Mutex<Vec<String>>>>,
    pub progress: ProgressLog,
}

impl TestClient {
    pub fn with_roots(uris: &[String]) -> TestClient {
        TestClient {
            roots: Some(Arc::new(Mutex::new(uris.to_vec()))),
            ..TestClient::default()
        }
    }

    pub fn set_roots(&self, uris: &[String]) {
        *self.roots.as_ref().unwrap().lock().unwrap() = uris.to_vec();
    }
}

impl ClientHandler for TestClient {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push((params.progress, params.message));
    }

    fn get_info(&self) -> ClientConfig {
        let caps = if self.roots.is_some() {
            ClientCapabilities::builder()
                .enable_roots()
                .enable_roots_list_changed()
                .build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(caps, Implementation::new("scalpel-tests", "0"))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let uris = self
            .roots
            .as_ref()
            .map(|r| r.lock().unwrap().clone())
            .unwrap_or_default();
        let mut result = ListRootsResult::default();
        result.roots = uris.into_iter().map(Root::new).collect();
        Ok(result)
    }
}

pub fn file_uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

pub type Client = RunningService<RoleClient, TestClient>;

/// Arguments from a JSON object literal.
pub fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("arguments must be an object, got {other}"),
    }
}

pub async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args(arguments)))
        .await
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
}

pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The structured content of a successful call.
pub fn ok(r: &CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "unexpected failure: {}", text(r));
    r.structured_content
        .clone()
        .unwrap_or_else(|| panic!("no structuredContent: {}", text(r)))
}

/// Check the error shape and return `(error_code, structured payload)`.
pub fn err(r: &CallToolResult) -> (String, Value) {
    assert_eq!(
        r.is_error,
        Some(true),
        "expected a failure, got {}",
        text(r)
    );
    let s = r
        .structured_content
        .clone()
        .expect("error results carry structuredContent");
    let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["details", "error_code", "message", "suggestion"],
        "error payload keys"
    );
    assert!(s["details"].is_object(), "details is an object: {s}");
    let code = s["error_code"].as_str().unwrap().to_string();
    let t = text(r);
    assert!(
        t.starts_with(&format!("{code}: ")),
        "text starts with the code: {t}"
    );
    // One line of code, message and hint; the facts of `details` follow,
    // one indented line each.
    assert!(
        t.lines().skip(1).all(|l| l.starts_with("  ")),
        "facts are indented lines under the first: {t}"
    );
    assert!(!s["message"].as_str().unwrap().is_empty());
    (code, s)
}

/// The code of a failed call.
pub fn code(r: &CallToolResult) -> String {
    err(r).0
}

/// A server with `options` and a client (`handler`) talking to it in
/// process over a duplex pipe.
pub async fn start_with(
    options: scalpel::mcp::ServerOptions,
    handler: TestClient,
) -> (scalpel::mcp::ScalpelServer, Client) {
    use rmcp::ServiceExt;
    let server = scalpel::mcp::ScalpelServer::new(options).unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let s = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = s.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = handler.serve(client_io).await.unwrap();
    (server, client)
}
