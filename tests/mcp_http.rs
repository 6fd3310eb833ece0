//! `scalpel serve --http` from the outside: raw HTTP over a `TcpStream`
//! (what a careless or hostile client sends) and a real browser (Debian's
//! headless `chromium`) whose page, from another origin, tries to call the
//! server. Every refusal has its status and its stable `error_code`.

mod mcp_support;

use mcp_support::Repo;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `scalpel serve --http`, stopped (SIGKILL) when dropped unless
/// stopped cleanly before.
struct Server {
    child: Child,
    root: PathBuf,
    addr: SocketAddr,
    token: String,
    log: PathBuf,
    _logs: tempfile::TempDir,
}

impl Server {
    fn start(root: &Path, extra: &[&str]) -> Server {
        let logs = tempfile::tempdir().unwrap();
        let log = logs.path().join("stderr.log");
        let child = Command::new(env!("CARGO_BIN_EXE_scalpel"))
            .args(["serve", "--http", "--log-level", "info", "--root"])
            .arg(root)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut server = Server {
            child,
            root: root.to_path_buf(),
            addr: "127.0.0.1:1".parse().unwrap(),
            token: String::new(),
            log,
            _logs: logs,
        };
        let state = server.wait_for_state();
        server.addr = state["addr"].as_str().unwrap().parse().unwrap();
        let token_file = state["token_file"].as_str().unwrap();
        server.token = std::fs::read_to_string(token_file)
            .unwrap()
            .trim()
            .to_string();
        server
    }

    /// `ROOT/.scalpel/server.json` naming this process.
    fn wait_for_state(&mut self) -> Value {
        let path = self.root.join(".scalpel/server.json");
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!(
                    "the server exited ({status}) before listening:\n{}",
                    self.stderr()
                );
            }
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(v) = serde_json::from_str::<Value>(&text)
                && v["pid"].as_u64() == Some(u64::from(self.child.id()))
            {
                return v;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no server.json within 60 s:\n{}", self.stderr());
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn auth(&self) -> String {
        format!("Authorization: Bearer {}\r\n", self.token)
    }

    /// Send `head` (request line and headers, each ending in CRLF, without
    /// the blank line) and `body`; the answer's status, headers and body.
    fn send(&self, head: &str, body: &[u8]) -> Answer {
        raw(self.addr, head, body)
    }

    fn post(&self, headers: &str, body: &str) -> Answer {
        self.send(
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{headers}",
                self.addr.port(),
                body.len()
            ),
            body.as_bytes(),
        )
    }

    fn sigterm(&mut self) -> std::process::ExitStatus {
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::TERM,
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "no exit within 60 s of SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
struct Answer {
    status: u16,
    headers: String,
    body: String,
}

impl Answer {
    /// The Scalpel failure in a refusal's JSON-RPC error.
    fn failure(&self) -> Value {
        let v: Value =
            serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"));
        assert_eq!(v["jsonrpc"], "2.0", "{self:?}");
        let data = v["error"]["data"].clone();
        for key in ["error_code", "message", "suggestion", "details"] {
            assert!(!data[key].is_null(), "no {key}: {self:?}");
        }
        assert!(
            !data["message"].as_str().unwrap().contains('\n'),
            "one line: {self:?}"
        );
        data
    }

    fn code(&self) -> String {
        self.failure()["error_code"].as_str().unwrap().to_string()
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

fn raw(addr: SocketAddr, head: &str, body: &[u8]) -> Answer {
    try_raw(addr, head, body).unwrap_or_else(|e| panic!("no answer: {e}"))
}

/// [`raw`], or what went wrong when no answer came (the server died).
fn try_raw(addr: SocketAddr, head: &str, body: &[u8]) -> Result<Answer, String> {
    let s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut request = format!("{head}Connection: close\r\n\r\n").into_bytes();
    request.extend_from_slice(body);
    // Written beside the reading: the server may answer (413, 431) and
    // close before it read everything.
    let mut w = s.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(&request);
    });
    let mut bytes = Vec::new();
    let mut reader = BufReader::new(s);
    let mut status_line = String::new();
    reader
        .read_line(&mut status_line)
        .map_err(|e| e.to_string())?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("no status line: {status_line:?}"))?;
    let mut headers = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
            break;
        }
        headers.push_str(&line);
    }
    let _ = reader.read_to_end(&mut bytes);
    let _ = writer.join();
    let mut body = String::from_utf8_lossy(&bytes).to_string();
    if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

fn dechunk(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    out
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

#[test]
fn raw_http_refusals_have_their_status_and_code() {
    let repo = Repo::new();
    let mut server = Server::start(
        &repo.root(),
        &[
            "--allow-origin",
            "http://localhost:5173",
            "--max-file-size",
            "1000",
        ],
    );
    let token_file = repo.root().join(".scalpel/http-token");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&token_file).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "the generated token is private");
    assert!(
        server
            .stderr()
            .contains(&format!("listening on http://{}/mcp", server.addr)),
        "the port is on stderr: {}",
        server.stderr()
    );

    // No token: 401, saying where the token is.
    let a = server.post("", INIT);
    assert_eq!(
        (a.status, a.code().as_str()),
        (401, "UNAUTHORIZED"),
        "{a:?}"
    );
    assert!(
        a.failure()["message"]
            .as_str()
            .unwrap()
            .contains(token_file.to_str().unwrap())
    );
    assert!(a.header("www-authenticate").is_some(), "{a:?}");
    // A wrong token, and the right one in the wrong scheme: 401.
    for bad in ["Bearer nope", "Basic nope"] {
        let a = server.post(&format!("Authorization: {bad}\r\n"), INIT);
        assert_eq!(
            (a.status, a.code().as_str()),
            (401, "UNAUTHORIZED"),
            "{a:?}"
        );
    }
    // A foreign Origin, even with the token: 403.
    let a = server.post(
        &format!("{}Origin: http://evil.example\r\n", server.auth()),
        INIT,
    );
    assert_eq!(
        (a.status, a.code().as_str()),
        (403, "FORBIDDEN_ORIGIN"),
        "{a:?}"
    );
    // A foreign Host (DNS rebinding): 403.
    let a = server.send(
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: evil.example:{}\r\n{}Content-Length: 2\r\n",
            server.addr.port(),
            server.auth()
        ),
        b"{}",
    );
    assert_eq!(
        (a.status, a.code().as_str()),
        (403, "FORBIDDEN_HOST"),
        "{a:?}"
    );
    // Not JSON: 400 with JSON-RPC's parse error.
    let a = server.post(&server.auth(), "{\"jsonrpc\": ");
    assert_eq!((a.status, a.code().as_str()), (400, "PARSE_ERROR"), "{a:?}");
    let v: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(v["error"]["code"], -32700);
    // An unknown session: 404.
    let a = server.post(
        &format!("{}Mcp-Session-Id: no-such-session\r\n", server.auth()),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(
        (a.status, a.code().as_str()),
        (404, "SESSION_NOT_FOUND"),
        "{a:?}"
    );
    // A body over the limit (2 × --max-file-size + 1 MiB): 413, declared or
    // streamed.
    let big = vec![b' '; (1 << 20) + 4000];
    let port = server.addr.port();
    let a = server.send(
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{}Content-Length: {}\r\n",
            server.auth(),
            big.len()
        ),
        &[],
    );
    assert_eq!((a.status, a.code().as_str()), (413, "TOO_LARGE"), "{a:?}");
    let mut chunked = format!("{:x}\r\n", big.len()).into_bytes();
    chunked.extend_from_slice(&big);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let a = server.send(
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{}Transfer-Encoding: chunked\r\n",
            server.auth()
        ),
        &chunked,
    );
    assert_eq!((a.status, a.code().as_str()), (413, "TOO_LARGE"), "{a:?}");
    // Headers over the limit: 431 from the HTTP layer, not a hang.
    let a = server.send(
        &format!(
            "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Big: {}\r\n",
            "a".repeat(100_000)
        ),
        &[],
    );
    assert_eq!(a.status, 431, "{a:?}");
    // Another path: 404 NOT_FOUND.
    let a = server.send(
        &format!(
            "GET /other HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{}",
            server.auth()
        ),
        &[],
    );
    assert_eq!((a.status, a.code().as_str()), (404, "NOT_FOUND"), "{a:?}");

    // What is allowed: the token, no Origin or an allowed one, a loopback
    // Host name. initialize opens a session; tools/list in it answers.
    for origin in ["", "Origin: http://localhost:5173\r\n"] {
        let a = server.post(&format!("{}{origin}", server.auth()), INIT);
        assert_eq!(a.status, 200, "{a:?}");
        let session = a.header("mcp-session-id").expect("a session id");
        assert!(a.body.contains("\"serverInfo\""), "{a:?}");
        let a = server.post(
            &format!(
                "{}{origin}Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\n",
                server.auth()
            ),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        assert_eq!(a.status, 202, "{a:?}");
        let a = server.post(
            &format!(
                "{}{origin}Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\n",
                server.auth()
            ),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        );
        assert_eq!(a.status, 200, "{a:?}");
        assert!(a.body.contains("list_symbols"), "{a:?}");
        // Ending the session: 204; the id is then unknown.
        let a = server.send(
            &format!(
                "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{}{origin}Mcp-Session-Id: {session}\r\n",
                server.auth()
            ),
            &[],
        );
        assert_eq!(a.status, 204, "{a:?}");
        let a = server.post(
            &format!("{}Mcp-Session-Id: {session}\r\n", server.auth()),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        );
        assert_eq!(
            (a.status, a.code().as_str()),
            (404, "SESSION_NOT_FOUND"),
            "{a:?}"
        );
    }

    // A second server on the root finds the first and says so.
    let second = Command::new(env!("CARGO_BIN_EXE_scalpel"))
        .args(["serve", "--http", "--root"])
        .arg(repo.root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{err}");
    assert!(err.contains("CONFLICT"), "{err}");
    assert!(
        err.contains(&format!("pid {}", server.child.id())) && err.contains("kill "),
        "{err}"
    );

    // SIGTERM: exit 0, server.json and the generated token gone.
    let status = server.sigterm();
    assert!(status.success(), "{status}: {}", server.stderr());
    assert!(!repo.root().join(".scalpel/server.json").exists());
    assert!(!token_file.exists());
}

#[test]
fn remote_listening_needs_allow_remote() {
    let repo = Repo::new();
    let out = Command::new(env!("CARGO_BIN_EXE_scalpel"))
        .args(["serve", "--http", "0.0.0.0:0", "--root"])
        .arg(repo.root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("INVALID_ARGUMENT") && err.contains("--allow-remote"),
        "{err}"
    );
    assert!(!repo.root().join(".scalpel/server.json").exists());
}

/// A page from another origin, in a real browser, tries to initialize a
/// session with `fetch`, both as a "simple" no-cors POST (sent without a
/// preflight: the DNS-rebinding and CSRF path) and as a CORS request with
/// an Authorization header (a preflight first). The server refuses both
/// with 403 FORBIDDEN_ORIGIN; the same page against a server started with
/// `--allow-origin` for that origin gets past the Origin check (its
/// preflight granted, then 401: no token), which shows the browser's
/// requests really arrive.
#[test]
fn a_browser_page_of_another_origin_is_refused() {
    let chromium = which("chromium").unwrap_or_else(|| {
        panic!(
            "this test needs a headless browser: `chromium` is not on PATH; install Debian's package `chromium` (apt-get install chromium)"
        )
    });
    let page = TcpListener::bind("127.0.0.1:0").unwrap();
    let page_origin = format!("http://{}", page.local_addr().unwrap());
    let (repo_a, repo_b) = (Repo::new(), Repo::new());
    let refusing = Server::start(&repo_a.root(), &[]);
    let allowing = Server::start(&repo_b.root(), &["--allow-origin", &page_origin]);
    let targets = format!(
        "http://127.0.0.1:{}/mcp,http://127.0.0.1:{}/mcp",
        refusing.addr.port(),
        allowing.addr.port()
    );

    let (tx, rx) = std::sync::mpsc::channel();
    let html = PAGE.replace("TARGETS", &targets).replace("INIT", INIT);
    std::thread::spawn(move || {
        for stream in page.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
            }
            let path = line.split(' ').nth(1).unwrap_or("/").to_string();
            let body = if path.starts_with("/report") {
                let _ = tx.send(path.clone());
                "ok".to_string()
            } else {
                html.clone()
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });

    let profile = tempfile::tempdir().unwrap();
    let mut browser = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("{page_origin}/page"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let report = rx.recv_timeout(Duration::from_secs(90));
    let _ = browser.kill();
    let _ = browser.wait();
    let report = report.expect("the page reported within 90 s");
    println!("the page saw: {report}");
    // The browser itself saw a failure (no CORS grant) from the refusing
    // server, and the 401 of the allowing one (its preflight granted).
    assert!(report.contains("cors0=error"), "{report}");
    assert!(report.contains("cors1=status-401"), "{report}");

    // What the servers saw, from their logs (the gate logs each refusal).
    std::thread::sleep(Duration::from_millis(200));
    let refused = refusing.stderr();
    for method in ["POST", "OPTIONS"] {
        assert!(
            refused.lines().any(|l| {
                l.contains("refused")
                    && l.contains(&format!("method={method}"))
                    && l.contains("FORBIDDEN_ORIGIN")
                    && l.contains("status=403")
                    && l.contains(&page_origin)
            }),
            "the simple POST and the CORS preflight are refused with 403 ({method}):\n{refused}\nreport: {report}"
        );
    }
    assert!(
        !refused.contains("UNAUTHORIZED"),
        "nothing got past the Origin check:\n{refused}"
    );
    let allowed = allowing.stderr();
    println!("refusing server:\n{refused}\nallowing server:\n{allowed}");
    assert!(
        allowed
            .lines()
            .any(|l| l.contains("refused") && l.contains("UNAUTHORIZED")),
        "with --allow-origin the page's requests reach the token check:\n{allowed}"
    );
    assert!(!allowed.contains("FORBIDDEN_ORIGIN"), "{allowed}");
}

const PAGE: &str = r#"<!doctype html>
<html><body><script>
const targets = "TARGETS".split(",");
const init = JSON.stringify(INIT);
async function attempt(i, url) {
  let simple, cors;
  try {
    const r = await fetch(url, {method: "POST", mode: "no-cors",
                                headers: {"Content-Type": "text/plain"}, body: init});
    simple = "opaque-" + r.type;
  } catch (e) { simple = "error-" + e.name; }
  try {
    const r = await fetch(url, {method: "POST",
      headers: {"Content-Type": "application/json", "Authorization": "Bearer guessed"},
      body: init});
    cors = "status-" + r.status;
  } catch (e) { cors = "error-" + e.name; }
  return "simple" + i + "=" + simple + "&cors" + i + "=" + cors;
}
(async () => {
  const parts = [];
  for (let i = 0; i < targets.length; i++) parts.push(await attempt(i, targets[i]));
  await fetch("/report?" + parts.join("&"));
})();
</script></body></html>
"#;

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// A session over raw HTTP: initialize, then JSON-RPC calls whose answers
/// come as SSE events.
struct RawSession<'a> {
    server: &'a Server,
    id: String,
    next: u64,
}

impl<'a> RawSession<'a> {
    fn open(server: &'a Server) -> RawSession<'a> {
        let a = server.post(&server.auth(), INIT);
        assert_eq!(a.status, 200, "{a:?}");
        let id = a.header("mcp-session-id").unwrap();
        let s = RawSession {
            server,
            id,
            next: 10,
        };
        let a = server.post(
            &s.headers(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        assert_eq!(a.status, 202, "{a:?}");
        s
    }

    fn headers(&self) -> String {
        format!(
            "{}Mcp-Session-Id: {}\r\nMcp-Protocol-Version: 2025-06-18\r\n",
            self.server.auth(),
            self.id
        )
    }

    /// A tool's structured result; `None` when no answer came (the server
    /// died).
    fn call(&mut self, tool: &str, args: Value) -> Option<Value> {
        self.next += 1;
        let body = serde_json::json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        let body = body.to_string();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}",
            self.server.addr.port(),
            body.len(),
            self.headers()
        );
        let a = try_raw(self.server.addr, &head, body.as_bytes()).ok()?;
        a.body.lines().find_map(|l| {
            let v: Value = serde_json::from_str(l.strip_prefix("data: ")?).ok()?;
            Some(v["result"]["structuredContent"].clone())
        })
    }
}

/// Kill -9 of the HTTP server while 16 sessions run 3-file transactions
/// (`edit_files`) as fast as they can, after 200 of them were answered (the
/// issue's "200 concurrent transactions"): after the next open of the root
/// (which rolls back an interrupted transaction), each session's three
/// files hold one version, never a mix.
#[test]
fn sigkill_of_the_http_server_during_transactions_leaves_all_old_or_all_new() {
    const SESSIONS: usize = 16;
    let repo = Repo::new();
    for s in 0..SESSIONS {
        for f in ["a", "b", "c"] {
            let path = repo.root().join(format!("t{s}/{f}.py"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "V = 0\n").unwrap();
        }
    }
    let server = Server::start(&repo.root(), &[]);
    let done = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for s in 0..SESSIONS {
            let (server, done) = (&server, &done);
            scope.spawn(move || {
                let mut session = RawSession::open(server);
                for n in 0.. {
                    let files: Vec<Value> = ["a", "b", "c"]
                        .iter()
                        .map(|f| {
                            serde_json::json!({"path": format!("t{s}/{f}.py"), "edits": [
                                {"old_text": format!("V = {n}"), "new_text": format!("V = {}", n + 1)}]})
                        })
                        .collect();
                    match session.call("edit_files", serde_json::json!({"files": files})) {
                        Some(r) if r.get("error_code").is_none() => {
                            done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                        Some(r) => panic!("session {s}, transaction {n}: {r}"),
                        None => return, // the server is gone
                    }
                }
            });
        }
        // Let transactions run, then kill mid-flight.
        let deadline = Instant::now() + Duration::from_secs(300);
        while done.load(std::sync::atomic::Ordering::SeqCst) < 200 {
            assert!(Instant::now() < deadline, "{}", server.stderr());
            std::thread::sleep(Duration::from_millis(5));
        }
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&server.child),
            rustix::process::Signal::KILL,
        )
        .unwrap();
    });
    let committed = done.load(std::sync::atomic::Ordering::SeqCst);
    // The next open rolls back an interrupted transaction.
    let ws = scalpel::disk::Workspace::new(repo.root()).unwrap();
    drop(ws);
    assert!(!repo.root().join(".scalpel/transaction.json").exists());
    let mut versions = Vec::new();
    for s in 0..SESSIONS {
        let texts: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|f| std::fs::read_to_string(repo.root().join(format!("t{s}/{f}.py"))).unwrap())
            .collect();
        assert!(
            texts.iter().all(|t| *t == texts[0]),
            "session {s}: the files differ: {texts:?}"
        );
        versions.push(texts[0].trim().to_string());
    }
    println!("{committed} transactions answered before the kill; versions after it: {versions:?}");
    // No lost update: every answered transaction is on disk; at most one
    // unanswered one per session (in flight at the kill) is there too.
    let on_disk: usize = versions
        .iter()
        .map(|v| v.trim_start_matches("V = ").parse::<usize>().unwrap())
        .sum();
    assert!(
        (committed..=committed + SESSIONS).contains(&on_disk),
        "{on_disk} transactions on disk, {committed} answered"
    );
}
