//! What every HTTP request passes before rmcp's streamable HTTP service sees
//! it, in this order: `Host` (loopback names on a loopback bind: DNS
//! rebinding), `Origin` (absent, or in `--allow-origin`: a page of another
//! site in the user's browser), the path (`/mcp`), the bearer token
//! (constant-time), the session (known id; a session count for a new one),
//! the concurrency limits (global and per session, held until the answer's
//! body is sent), then the body (size limit, read deadline, valid JSON).
//!
//! A refusal is an HTTP status with a JSON-RPC error body whose `data` has
//! the shape of every Scalpel failure: `error_code`, `message`,
//! `suggestion` (in `scalpel serve` flags) and `details`. Nothing waits:
//! a request over a limit is answered at once.

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The body type rmcp answers with.
pub(super) type BoxResponse = Response<BoxBody<Bytes, Infallible>>;

/// The one path the MCP endpoint answers on.
pub const ENDPOINT: &str = "/mcp";

/// How long a client has to send a request's body once its headers are in.
const BODY_DEADLINE: Duration = Duration::from_secs(30);

/// The header naming a request's MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// A request the gate answers itself, with the shape of a Scalpel failure.
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    /// Stable: clients and tests match on it.
    pub code: &'static str,
    pub message: String,
    pub suggestion: String,
    pub details: Value,
}

impl Refusal {
    fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) -> Refusal {
        Refusal {
            status,
            code,
            message: message.into(),
            suggestion: suggestion.into(),
            details: json!({}),
        }
    }

    fn with_details(mut self, details: Value) -> Refusal {
        self.details = details;
        self
    }

    /// The HTTP answer: the status, and a JSON-RPC error (id `null`, the
    /// request was not read as one) whose `data` is the Scalpel failure.
    pub fn response(&self) -> BoxResponse {
        // -32700: the body is not JSON; -32001: refused by the server.
        let rpc_code = if self.code == "PARSE_ERROR" {
            -32700
        } else {
            -32001
        };
        let body = json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {
                "code": rpc_code,
                "message": format!("{}: {}", self.code, self.message),
                "data": {
                    "error_code": self.code,
                    "message": self.message,
                    "suggestion": self.suggestion,
                    "details": self.details,
                },
            },
        });
        let mut resp = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
        *resp.status_mut() = self.status;
        let headers = resp.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"scalpel\""),
            );
        }
        if matches!(
            self.status,
            StatusCode::SERVICE_UNAVAILABLE | StatusCode::TOO_MANY_REQUESTS
        ) {
            headers.insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        resp
    }
}

/// The gate's settings (`scalpel serve --http` flags).
#[derive(Debug, Clone)]
pub struct Limits {
    /// `--max-sessions`.
    pub sessions: usize,
    /// `--max-requests`: requests in flight, all sessions together.
    pub requests: usize,
    /// `--max-session-requests`: requests in flight in one session.
    pub session_requests: usize,
    /// A request body's bytes.
    pub body: usize,
}

/// The checks and counters every request goes through.
pub struct Gate {
    token: Vec<u8>,
    token_file: PathBuf,
    /// Host names a request may name (`Host`); `None`: any (`--allow-remote`).
    hosts: Option<Vec<String>>,
    /// `--allow-origin`, normalized (`scheme://host:port`).
    origins: Vec<String>,
    limits: Limits,
    global: Arc<Semaphore>,
    per_session: PerSession,
    closing: AtomicBool,
    /// Requests admitted since the start (see [`Gate::admitted`]).
    admitted: AtomicU64,
}

/// What the gate asks of the session manager.
pub trait Sessions {
    fn count(&self) -> impl Future<Output = usize> + Send;
    fn has(&self, id: &str) -> impl Future<Output = bool> + Send;
}

/// The request as rmcp gets it, and what it holds while its answer is sent.
pub struct Admitted {
    pub request: Request<Full<Bytes>>,
    pub held: Option<InFlight>,
}

impl Gate {
    pub fn new(
        token: Vec<u8>,
        token_file: PathBuf,
        hosts: Option<Vec<String>>,
        origins: &[String],
        limits: Limits,
    ) -> Gate {
        Gate {
            token,
            token_file,
            hosts,
            origins: origins.iter().filter_map(|o| normalize_origin(o)).collect(),
            global: Arc::new(Semaphore::new(limits.requests)),
            limits,
            per_session: Arc::new(Mutex::new(HashMap::new())),
            closing: AtomicBool::new(false),
            admitted: AtomicU64::new(0),
        }
    }

    /// `--allow-origin`, each as `scheme://host:port`.
    pub fn origins(&self) -> &[String] {
        &self.origins
    }

    pub fn body_limit(&self) -> usize {
        self.limits.body
    }

    /// Refuse every request from now on (the server is stopping).
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }

    /// How many requests were counted in flight since the start.
    pub fn admitted(&self) -> u64 {
        self.admitted.load(Ordering::Relaxed)
    }

    /// Whether no request is in flight.
    pub fn idle(&self) -> bool {
        self.global.available_permits() == self.limits.requests
    }

    /// Wait (at most `limit`) until no request is in flight.
    pub async fn drained(&self, limit: Duration) -> bool {
        let all = u32::try_from(self.limits.requests).unwrap_or(u32::MAX);
        tokio::time::timeout(limit, self.global.acquire_many(all))
            .await
            .is_ok()
    }

    /// Check `req`; the request to hand on (with its body read), or the
    /// answer.
    pub async fn admit<B>(
        &self,
        req: Request<B>,
        sessions: &impl Sessions,
    ) -> Result<Admitted, Refusal>
    where
        B: Body<Data = Bytes> + Send,
        B::Error: std::fmt::Display + std::error::Error + Send + Sync + 'static,
    {
        if self.closing.load(Ordering::SeqCst) {
            return Err(Refusal::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "SHUTTING_DOWN",
                "the server is stopping and takes no new requests",
                "start it again with `scalpel serve --http`, then reconnect",
            ));
        }
        self.check_host(req.headers())?;
        self.check_origin(req.headers())?;
        if req.uri().path() != ENDPOINT {
            return Err(Refusal::new(
                StatusCode::NOT_FOUND,
                "NOT_FOUND",
                format!("no MCP endpoint at {}", req.uri().path()),
                format!("connect to the path {ENDPOINT}"),
            )
            .with_details(json!({"path": req.uri().path()})));
        }
        self.check_token(req.headers())?;
        let session = match req.headers().get(SESSION_HEADER) {
            Some(v) => {
                let id = v.to_str().unwrap_or_default().to_string();
                if !sessions.has(&id).await {
                    return Err(Refusal::new(
                        StatusCode::NOT_FOUND,
                        "SESSION_NOT_FOUND",
                        "no session with this Mcp-Session-Id: it ended, expired (--idle-timeout) or the server restarted",
                        "initialize a new session (send initialize without Mcp-Session-Id)",
                    )
                    .with_details(json!({"session_id": id})));
                }
                Some(id)
            }
            None => None,
        };
        let held = if req.method() == Method::POST {
            Some(self.in_flight(session.as_deref())?)
        } else {
            None
        };
        let (parts, body) = req.into_parts();
        let bytes = if parts.method == Method::POST {
            let bytes = self.read_body(&parts.headers, body).await?;
            let message: Value = serde_json::from_slice(&bytes).map_err(|e| {
                Refusal::new(
                    StatusCode::BAD_REQUEST,
                    "PARSE_ERROR",
                    format!("the request body is not JSON: {e}"),
                    "send one JSON-RPC message (or a batch) as the POST body",
                )
            })?;
            let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
            if session.is_none() && initialize {
                let open = sessions.count().await;
                if open >= self.limits.sessions {
                    return Err(Refusal::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "TOO_MANY_SESSIONS",
                        format!("{open} sessions are open, the limit"),
                        "end idle sessions (HTTP DELETE with their Mcp-Session-Id), let them expire (--idle-timeout), or start the server with a larger --max-sessions",
                    )
                    .with_details(json!({"sessions": open, "max_sessions": self.limits.sessions})));
                }
            }
            bytes
        } else {
            Bytes::new()
        };
        Ok(Admitted {
            request: Request::from_parts(parts, Full::new(bytes)),
            held,
        })
    }

    /// A CORS preflight (`OPTIONS`) from a page of an allowed origin: 204
    /// granting the methods and headers MCP uses. It carries no token (the
    /// browser sends none), so nothing is done but answering.
    pub fn preflight(&self, req: &Request<impl Body>) -> Result<BoxResponse, Refusal> {
        self.check_host(req.headers())?;
        self.check_origin(req.headers())?;
        let mut resp = Response::new(Full::new(Bytes::new()).boxed());
        *resp.status_mut() = StatusCode::NO_CONTENT;
        let h = resp.headers_mut();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            header::HeaderValue::from_static("GET, POST, DELETE"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            header::HeaderValue::from_static(
                "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
            ),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            header::HeaderValue::from_static("600"),
        );
        Ok(resp)
    }

    /// Let a page of an allowed origin read `resp` (its status, the
    /// session id): CORS headers when `origin` is listed.
    pub fn grant(&self, origin: Option<&header::HeaderValue>, resp: &mut BoxResponse) {
        let Some(origin) = origin else { return };
        let listed = origin
            .to_str()
            .ok()
            .and_then(normalize_origin)
            .is_some_and(|o| o != "null" && self.origins.contains(&o));
        if !listed {
            return;
        }
        let h = resp.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        h.insert(header::VARY, header::HeaderValue::from_static("Origin"));
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            header::HeaderValue::from_static("mcp-session-id, mcp-protocol-version"),
        );
    }

    fn check_host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(hosts) = &self.hosts else {
            return Ok(());
        };
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let name = host_name(host);
        if hosts.iter().any(|h| h.eq_ignore_ascii_case(&name)) {
            return Ok(());
        }
        Err(Refusal::new(
            StatusCode::FORBIDDEN,
            "FORBIDDEN_HOST",
            format!("Host `{host}` is not this server's loopback name (a DNS-rebinding defence)"),
            "connect to http://127.0.0.1:PORT or http://localhost:PORT; serving other names needs --http ADDR:PORT --allow-remote",
        )
        .with_details(json!({"host": host, "allowed": hosts})))
    }

    fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let origin = origin.to_str().unwrap_or_default();
        if normalize_origin(origin).is_some_and(|o| self.origins.contains(&o)) {
            return Ok(());
        }
        Err(Refusal::new(
            StatusCode::FORBIDDEN,
            "FORBIDDEN_ORIGIN",
            format!("Origin `{origin}` may not call this server (a web page in a browser)"),
            "start the server with --allow-origin ORIGIN if pages of that origin should reach it",
        )
        .with_details(json!({"origin": origin})))
    }

    fn check_token(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let file = self.token_file.display().to_string();
        let suggestion = format!(
            "send the header `Authorization: Bearer TOKEN` with the token in {file} (or start the server with --token-file FILE to choose it)"
        );
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Err(Refusal::new(
                StatusCode::UNAUTHORIZED,
                "UNAUTHORIZED",
                format!("a bearer token is required; it is in {file}"),
                suggestion,
            )
            .with_details(json!({"token_file": file, "reason": "missing"})));
        };
        let given = value.as_bytes();
        let token = given
            .get(..7)
            .filter(|scheme| scheme.eq_ignore_ascii_case(b"bearer "))
            .map(|_| given[7..].trim_ascii());
        match token {
            Some(t) if constant_time_eq::constant_time_eq(t, &self.token) => Ok(()),
            _ => Err(Refusal::new(
                StatusCode::UNAUTHORIZED,
                "UNAUTHORIZED",
                format!("the bearer token is wrong; the right one is in {file}"),
                suggestion,
            )
            .with_details(json!({"token_file": file, "reason": "wrong"}))),
        }
    }

    /// Count a POST in flight, globally and in its session.
    fn in_flight(&self, session: Option<&str>) -> Result<InFlight, Refusal> {
        self.admitted.fetch_add(1, Ordering::Relaxed);
        let Ok(permit) = self.global.clone().try_acquire_owned() else {
            return Err(Refusal::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "BUSY",
                format!("{} requests are in flight, the server's limit", self.limits.requests),
                "retry after the Retry-After delay, or start the server with a larger --max-requests",
            )
            .with_details(json!({"max_requests": self.limits.requests})));
        };
        let session = match session {
            Some(id) => {
                let mut map = self.per_session.lock().unwrap_or_else(|e| e.into_inner());
                let n = map.entry(id.to_string()).or_insert(0);
                if *n >= self.limits.session_requests {
                    return Err(Refusal::new(
                        StatusCode::TOO_MANY_REQUESTS,
                        "SESSION_BUSY",
                        format!("this session has {n} requests in flight, the limit"),
                        "wait for answers before sending more, or start the server with a larger --max-session-requests",
                    )
                    .with_details(json!({"session_id": id, "max_session_requests": self.limits.session_requests})));
                }
                *n += 1;
                Some((self.per_session.clone(), id.to_string()))
            }
            None => None,
        };
        Ok(InFlight {
            _permit: permit,
            session,
        })
    }

    async fn read_body<B>(&self, headers: &HeaderMap, body: B) -> Result<Bytes, Refusal>
    where
        B: Body<Data = Bytes> + Send,
        B::Error: std::fmt::Display + std::error::Error + Send + Sync + 'static,
    {
        let limit = self.limits.body;
        let too_large = |size: Option<u64>| {
            Refusal::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "TOO_LARGE",
                format!("the request body is over {limit} bytes, the limit"),
                "send smaller requests (split the edit), or start the server with a larger --max-file-size",
            )
            .with_details(json!({"max_body_bytes": limit, "content_length": size}))
        };
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(too_large(declared));
        }
        let read = Limited::new(body, limit).collect();
        match tokio::time::timeout(BODY_DEADLINE, read).await {
            Err(_) => Err(Refusal::new(
                StatusCode::REQUEST_TIMEOUT,
                "TIMEOUT",
                format!(
                    "the request body did not arrive within {}s",
                    BODY_DEADLINE.as_secs()
                ),
                "send the whole body at once",
            )),
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large(declared)),
            Ok(Err(e)) => Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "BAD_REQUEST",
                format!("the request body could not be read: {e}"),
                "resend the request",
            )),
        }
    }
}

/// Requests in flight per session id.
type PerSession = Arc<Mutex<HashMap<String, usize>>>;

/// A request in flight: its places in the global and session limits,
/// given back when dropped (with the answer's body, see [`Holding`]).
pub struct InFlight {
    _permit: OwnedSemaphorePermit,
    session: Option<(PerSession, String)>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some((map, id)) = &self.session {
            let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = map.get_mut(id) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    map.remove(id);
                }
            }
        }
    }
}

/// An answer's body that keeps its request counted until it is sent (an
/// SSE answer streams until the tool's result is in).
pub struct Holding {
    body: BoxBody<Bytes, Infallible>,
    _held: Option<InFlight>,
}

impl Holding {
    pub fn wrap(resp: BoxResponse, held: Option<InFlight>) -> BoxResponse {
        resp.map(|body| Holding { body, _held: held }.boxed())
    }
}

impl Body for Holding {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The host name of a `Host` value (`name`, `name:port`, `[v6]:port`).
fn host_name(host: &str) -> String {
    if let Some(rest) = host.strip_prefix('[') {
        return rest
            .split(']')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
    }
    host.rsplit_once(':')
        .map_or(host, |(name, _)| name)
        .to_ascii_lowercase()
}

/// `scheme://host:port` in lower case with the scheme's default port made
/// explicit; `null` stays `null`; `None` for anything else.
pub fn normalize_origin(origin: &str) -> Option<String> {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if origin == "null" {
        return Some(origin);
    }
    let (scheme, rest) = origin.split_once("://")?;
    let default = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    if rest.is_empty() || rest.contains('/') {
        return None;
    }
    let has_port = match rest.rfind(':') {
        Some(i) => !rest[i..].contains(']'),
        None => false,
    };
    Some(if has_port {
        origin
    } else {
        format!("{scheme}://{rest}:{default}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoSessions(usize);

    impl Sessions for NoSessions {
        async fn count(&self) -> usize {
            self.0
        }
        async fn has(&self, id: &str) -> bool {
            id == "known"
        }
    }

    fn gate(limits: Limits) -> Gate {
        Gate::new(
            b"s3cret".to_vec(),
            PathBuf::from("/r/.scalpel/http-token"),
            Some(vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]),
            &["http://localhost:5173".to_string()],
            limits,
        )
    }

    fn limits() -> Limits {
        Limits {
            sessions: 1,
            requests: 2,
            session_requests: 1,
            body: 64,
        }
    }

    fn req(headers: &[(&str, &str)], body: &str) -> Request<Full<Bytes>> {
        let mut b = Request::post("/mcp").header("host", "127.0.0.1:9");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(Full::new(Bytes::from(body.to_string()))).unwrap()
    }

    async fn code(g: &Gate, headers: &[(&str, &str)], body: &str, open: usize) -> &'static str {
        match g.admit(req(headers, body), &NoSessions(open)).await {
            Ok(_) => "OK",
            Err(r) => r.code,
        }
    }

    const AUTH: (&str, &str) = ("authorization", "Bearer s3cret");

    #[tokio::test]
    async fn refusals_in_order() {
        let g = gate(limits());
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(code(&g, &[], ok, 0).await, "UNAUTHORIZED");
        assert_eq!(
            code(&g, &[("authorization", "Bearer s3cre")], ok, 0).await,
            "UNAUTHORIZED"
        );
        assert_eq!(
            code(&g, &[("authorization", "Basic s3cret")], ok, 0).await,
            "UNAUTHORIZED"
        );
        assert_eq!(code(&g, &[AUTH], ok, 0).await, "OK");
        assert_eq!(
            code(&g, &[("authorization", "bearer s3cret")], ok, 0).await,
            "OK"
        );
        assert_eq!(
            code(&g, &[AUTH, ("origin", "http://evil.example")], ok, 0).await,
            "FORBIDDEN_ORIGIN"
        );
        assert_eq!(
            code(&g, &[("origin", "http://evil.example")], ok, 0).await,
            "FORBIDDEN_ORIGIN",
            "the Origin is checked before the token"
        );
        assert_eq!(
            code(&g, &[AUTH, ("origin", "http://LOCALHOST:5173/")], ok, 0).await,
            "OK"
        );
        assert_eq!(
            code(&g, &[AUTH, ("origin", "null")], ok, 0).await,
            "FORBIDDEN_ORIGIN"
        );
        assert_eq!(code(&g, &[AUTH], "{nope", 0).await, "PARSE_ERROR");
        assert_eq!(code(&g, &[AUTH], &"x".repeat(65), 0).await, "TOO_LARGE");
        assert_eq!(
            code(&g, &[AUTH, ("mcp-session-id", "gone")], ok, 0).await,
            "SESSION_NOT_FOUND"
        );
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#;
        assert_eq!(code(&g, &[AUTH], init, 1).await, "TOO_MANY_SESSIONS");
        assert_eq!(code(&g, &[AUTH], init, 0).await, "OK");
    }

    #[tokio::test]
    async fn host_names() {
        let g = gate(limits());
        let r = Request::post("/mcp")
            .header("host", "evil.example:9")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let refused = g.admit(r, &NoSessions(0)).await.err().unwrap();
        assert_eq!(refused.code, "FORBIDDEN_HOST");
        assert_eq!(refused.status, StatusCode::FORBIDDEN);
        assert_eq!(host_name("[::1]:80"), "::1");
        assert_eq!(host_name("LocalHost:1"), "localhost");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
    }

    #[tokio::test]
    async fn limits_answer_at_once_and_are_given_back() {
        let g = gate(limits());
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let s = ("mcp-session-id", "known");
        let first = g.admit(req(&[AUTH, s], ok), &NoSessions(1)).await.unwrap();
        assert_eq!(code(&g, &[AUTH, s], ok, 1).await, "SESSION_BUSY");
        let other = g.admit(req(&[AUTH], ok), &NoSessions(1)).await.unwrap();
        assert_eq!(code(&g, &[AUTH], ok, 1).await, "BUSY");
        assert!(!g.drained(Duration::from_millis(10)).await);
        drop((first, other));
        assert_eq!(code(&g, &[AUTH, s], ok, 1).await, "OK");
        assert!(g.drained(Duration::from_millis(10)).await);
        g.close();
        assert_eq!(code(&g, &[AUTH], ok, 1).await, "SHUTTING_DOWN");
    }

    #[test]
    fn preflight_and_grants_only_for_listed_origins() {
        let g = gate(limits());
        let pre = |origin: &str| {
            let r = Request::options("/mcp")
                .header("host", "localhost:9")
                .header("origin", origin)
                .body(Full::new(Bytes::new()))
                .unwrap();
            g.preflight(&r).map(|r| r.status()).map_err(|r| r.code)
        };
        assert_eq!(pre("http://localhost:5173"), Ok(StatusCode::NO_CONTENT));
        assert_eq!(pre("http://localhost:5174"), Err("FORBIDDEN_ORIGIN"));
        let mut resp = Refusal::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "m", "s").response();
        g.grant(
            Some(&header::HeaderValue::from_static("http://evil.example")),
            &mut resp,
        );
        assert!(
            !resp
                .headers()
                .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN)
        );
        g.grant(
            Some(&header::HeaderValue::from_static("http://localhost:5173")),
            &mut resp,
        );
        assert_eq!(
            resp.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "http://localhost:5173"
        );
    }

    #[test]
    fn refusal_body_is_a_json_rpc_error_with_a_scalpel_failure() {
        let r = Refusal::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "m", "s");
        let resp = r.response();
        assert_eq!(resp.status(), 401);
        assert!(resp.headers().contains_key(header::WWW_AUTHENTICATE));
    }

    #[test]
    fn origins() {
        assert_eq!(
            normalize_origin("http://localhost").as_deref(),
            Some("http://localhost:80")
        );
        assert_eq!(
            normalize_origin("https://a.example").as_deref(),
            Some("https://a.example:443")
        );
        assert_eq!(
            normalize_origin("http://[::1]").as_deref(),
            Some("http://[::1]:80")
        );
        assert_eq!(
            normalize_origin("http://[::1]:8080").as_deref(),
            Some("http://[::1]:8080")
        );
        assert_eq!(normalize_origin("ftp://x"), None);
        assert_eq!(normalize_origin("http://x/path"), None);
    }
}
