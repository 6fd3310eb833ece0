//! A language server as a child process: JSON-RPC 2.0 with
//! `Content-Length` framing on its stdin/stdout, every request bounded by a
//! deadline. A reader thread turns stdout into messages; the server's
//! stderr goes to our log (stderr), never to our stdout. Dropping the
//! process kills it.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Largest message accepted from a server.
const MAX_MESSAGE: usize = 64 << 20;

/// Why a server gave no usable answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The program is not on `PATH` (or cannot be started).
    Missing(String),
    /// It exited (or closed its output).
    Crashed(String),
    /// No answer within the bound.
    Timeout(Duration),
    /// It wrote something that is not a framed JSON-RPC message.
    Garbage(String),
    /// It answered with a JSON-RPC error.
    Refused(String),
    /// It did not say it was ready (`ready_notification`) within the bound.
    NotReady(Duration),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Missing(why) => write!(f, "could not be started ({why})"),
            Failure::Crashed(why) => write!(f, "exited ({why})"),
            Failure::Timeout(d) => write!(f, "did not answer within {} s", d.as_secs_f64()),
            Failure::Garbage(why) => write!(f, "answered with something that is not LSP ({why})"),
            Failure::Refused(why) => write!(f, "answered with an error ({why})"),
            Failure::NotReady(d) => write!(
                f,
                "did not say it was ready within {} s (still loading the project; a larger --lsp-timeout waits longer)",
                d.as_secs_f64()
            ),
        }
    }
}

/// One `textDocument/publishDiagnostics`.
pub struct Published {
    /// The document version it is about, when the server says.
    pub version: Option<i64>,
    pub params: Value,
    /// Its rank among all diagnostics received ([`Process::published`]).
    pub seq: u64,
}

/// How a wait for diagnostics ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// What was waited for arrived.
    Arrived,
    /// Nothing more came for the quiet period (a server that does not
    /// republish unchanged diagnostics).
    Quiet,
    /// The deadline passed.
    Deadline,
}

enum Incoming {
    Message(Value),
    Garbage(String),
    Closed,
}

/// Answers a `workspace/configuration` item by its section.
pub type Configuration = Box<dyn Fn(Option<&str>) -> Value + Send>;

/// A running server.
pub struct Process {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Incoming>,
    next_id: i64,
    /// The last `textDocument/publishDiagnostics` per URI.
    pub diagnostics: HashMap<String, Published>,
    /// How many diagnostics notifications arrived so far.
    pub published: u64,
    /// Answers to the server's `workspace/configuration` requests.
    pub configuration: Configuration,
    /// The notifications saying the server is checking documents, and
    /// that it is done (`busy_notifications`, `idle_notification` of
    /// `[lsp]`), and whether it said it is busy since it last said done.
    pub progress: Option<(Vec<String>, String)>,
    pub busy: bool,
    /// The notification saying the server is ready (`ready_notification`
    /// of `[lsp]`), and whether the last one said so (`true` without one).
    pub readiness: Option<crate::lang::server::ReadyNotification>,
    pub ready: bool,
    /// When the last message came.
    last_message: Instant,
    dead: Option<String>,
}

impl Process {
    /// Start `command` in `dir`.
    pub fn spawn(command: &[String], dir: &std::path::Path) -> Result<Process, Failure> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| Failure::Missing("empty command".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::Missing(format!("{program}: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let name = program.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                tracing::info!(target: "scalpel::lsp", "{name}: {line}");
            }
        });
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let msg = match read_message(&mut r) {
                    Ok(Some(v)) => Incoming::Message(v),
                    Ok(None) => Incoming::Closed,
                    Err(why) => Incoming::Garbage(why),
                };
                let last = !matches!(msg, Incoming::Message(_));
                if tx.send(msg).is_err() || last {
                    break;
                }
            }
        });
        Ok(Process {
            child,
            stdin,
            rx,
            next_id: 0,
            diagnostics: HashMap::new(),
            published: 0,
            configuration: Box::new(|_| Value::Null),
            progress: None,
            busy: false,
            readiness: None,
            ready: true,
            last_message: Instant::now(),
            dead: None,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process has exited (or broke the protocol).
    pub fn is_dead(&mut self) -> bool {
        self.dead.is_some() || !matches!(self.child.try_wait(), Ok(None))
    }

    fn send(&mut self, msg: &Value) -> Result<(), Failure> {
        let body = serde_json::to_vec(msg).expect("a JSON value serializes");
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(&body);
        self.stdin
            .write_all(&frame)
            .and_then(|()| self.stdin.flush())
            .map_err(|e| self.fail(Failure::Crashed(format!("writing to it: {e}"))))
    }

    fn fail(&mut self, f: Failure) -> Failure {
        self.dead = Some(f.to_string());
        f
    }

    /// Send a notification.
    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), Failure> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Send a request and wait for its answer, at most `timeout`.
    pub fn request(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, Failure> {
        if let Some(why) = &self.dead {
            return Err(Failure::Crashed(why.clone()));
        }
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + timeout;
        loop {
            let msg = self.next(deadline, timeout)?;
            if let Some(m) = msg.get("method").and_then(Value::as_str) {
                self.serve(m, &msg)?;
                continue;
            }
            if msg.get("id").and_then(Value::as_i64) != Some(id) {
                continue;
            }
            if let Some(e) = msg.get("error") {
                let text = e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                return Err(Failure::Refused(format!("{method}: {text}")));
            }
            return match msg.get("result") {
                Some(r) => Ok(r.clone()),
                None => Err(self.fail(Failure::Garbage(format!(
                    "an answer to {method} without result"
                )))),
            };
        }
    }

    /// Read what the server sends (answering its requests) until it makes
    /// a `method` request, at most `timeout`.
    pub fn wait_request(&mut self, method: &str, timeout: Duration) -> Result<(), Failure> {
        let deadline = Instant::now() + timeout;
        loop {
            let msg = self.next(deadline, timeout)?;
            if let Some(m) = msg.get("method").and_then(Value::as_str) {
                self.serve(m, &msg)?;
                if m == method && msg.get("id").is_some() {
                    return Ok(());
                }
            }
        }
    }

    /// Read what the server sends until it has published no diagnostics
    /// for `quiet` (a server can publish a file's diagnostics in stages),
    /// at most until `deadline`: `Arrived` when `until` then holds, else
    /// `Quiet`; `Deadline` when it passed.
    pub fn wait_diagnostics(
        &mut self,
        deadline: Instant,
        quiet: Duration,
        until: &dyn Fn(&HashMap<String, Published>) -> bool,
    ) -> Result<Settled, Failure> {
        let mut last = Instant::now();
        loop {
            let calm = last.checked_add(quiet).unwrap_or(deadline);
            let (end, settled) = if calm < deadline {
                (calm, Settled::Quiet)
            } else {
                (deadline, Settled::Deadline)
            };
            let left = end.saturating_duration_since(Instant::now());
            match self.next(end, left) {
                Ok(msg) => {
                    if let Some(m) = msg.get("method").and_then(Value::as_str) {
                        if m == "textDocument/publishDiagnostics" {
                            last = Instant::now();
                        }
                        self.serve(m, &msg)?;
                    }
                }
                Err(Failure::Timeout(_))
                    if settled == Settled::Quiet && until(&self.diagnostics) =>
                {
                    return Ok(Settled::Arrived);
                }
                Err(Failure::Timeout(_)) => return Ok(settled),
                Err(e) => return Err(e),
            }
        }
    }

    /// Read what the server sends until `until` holds and nothing more came
    /// for `quiet` (counted from its last message: a warm server that has
    /// long said all is no wait), at most until `deadline`: whether it held.
    pub fn wait_until(
        &mut self,
        deadline: Instant,
        quiet: Duration,
        until: &dyn Fn(&Process) -> bool,
    ) -> Result<bool, Failure> {
        loop {
            let end = if until(self) {
                (self.last_message + quiet).min(deadline)
            } else {
                deadline
            };
            let left = end.saturating_duration_since(Instant::now());
            match self.next(end, left) {
                Ok(msg) => {
                    if let Some(m) = msg.get("method").and_then(Value::as_str) {
                        self.serve(m, &msg)?;
                    }
                }
                Err(Failure::Timeout(_)) if until(self) => return Ok(true),
                Err(Failure::Timeout(_)) if Instant::now() >= deadline => return Ok(false),
                Err(Failure::Timeout(_)) => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn next(&mut self, deadline: Instant, timeout: Duration) -> Result<Value, Failure> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(Incoming::Message(v)) => {
                self.last_message = Instant::now();
                Ok(v)
            }
            Ok(Incoming::Garbage(why)) => Err(self.fail(Failure::Garbage(why))),
            Ok(Incoming::Closed) | Err(RecvTimeoutError::Disconnected) => {
                let status = self
                    .child
                    .wait_timeout_status()
                    .unwrap_or_else(|| "closed its output".to_string());
                Err(self.fail(Failure::Crashed(status)))
            }
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout(timeout)),
        }
    }

    /// A message from the server that is not our answer: record
    /// diagnostics, answer its requests.
    fn serve(&mut self, method: &str, msg: &Value) -> Result<(), Failure> {
        let params = msg.get("params").cloned().unwrap_or_default();
        let Some(id) = msg.get("id").cloned() else {
            if method == "textDocument/publishDiagnostics"
                && let Some(uri) = params.get("uri").and_then(Value::as_str)
            {
                self.published += 1;
                let published = Published {
                    version: params.get("version").and_then(Value::as_i64),
                    params: params.clone(),
                    seq: self.published,
                };
                self.diagnostics.insert(uri.to_string(), published);
            } else if let Some(r) = &self.readiness
                && r.method == method
            {
                if let Some(ready) = r.says_ready(&params) {
                    if ready != self.ready {
                        tracing::info!(target: "scalpel::lsp", "the server says it is {}ready ({method})", if ready { "" } else { "not " });
                    }
                    self.ready = ready;
                }
            } else if let Some((busy, idle)) = &self.progress {
                if busy.iter().any(|b| b == method) {
                    self.busy = true;
                } else if idle == method {
                    self.busy = false;
                }
            }
            return Ok(());
        };
        let result = match method {
            "workspace/configuration" => Value::Array(
                params
                    .get("items")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|i| (self.configuration)(i.get("section").and_then(Value::as_str)))
                    .collect(),
            ),
            "workspace/workspaceFolders" => Value::Null,
            _ => Value::Null,
        };
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    /// `shutdown` then `exit`, each briefly bounded; the process is killed
    /// when dropped anyway.
    pub fn shutdown(&mut self) {
        if self.dead.is_none()
            && self
                .request("shutdown", Value::Null, Duration::from_secs(2))
                .is_ok()
        {
            let _ = self.notify("exit", Value::Null);
            let deadline = Instant::now() + Duration::from_secs(1);
            while Instant::now() < deadline {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

trait ExitStatusText {
    fn wait_timeout_status(&mut self) -> Option<String>;
}

impl ExitStatusText for Child {
    /// The exit status, waiting briefly for the process to end.
    fn wait_timeout_status(&mut self) -> Option<String> {
        for _ in 0..50 {
            if let Ok(Some(s)) = self.try_wait() {
                return Some(s.to_string());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One framed message: `Ok(None)` at the end of the stream.
fn read_message(r: &mut impl BufRead) -> Result<Option<Value>, String> {
    let mut length = None;
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let n = r
            .by_ref()
            .take(4096)
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return if first {
                Ok(None)
            } else {
                Err("the stream ended in a header".into())
            };
        }
        first = false;
        if !line.ends_with(b"\n") {
            return Err("a header line longer than 4096 bytes".into());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        let (key, value) = text
            .split_once(':')
            .ok_or_else(|| format!("`{}` is not a header", preview(text)))?;
        if key.trim().eq_ignore_ascii_case("content-length") {
            length = Some(
                value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("bad Content-Length `{}`", preview(value)))?,
            );
        }
    }
    let length = length.ok_or("a message without Content-Length")?;
    if length > MAX_MESSAGE {
        return Err(format!("a message of {length} bytes"));
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body)
        .map_err(|e| format!("a truncated message: {e}"))?;
    let v: Value =
        serde_json::from_slice(&body).map_err(|e| format!("a body that is not JSON: {e}"))?;
    if !v.is_object() {
        return Err("a message that is not a JSON object".into());
    }
    Ok(Some(v))
}

fn preview(s: &str) -> String {
    s.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::read_message;
    use std::io::Cursor;

    #[test]
    fn frames_are_read_and_garbage_refused() {
        let mut ok = Cursor::new(
            b"Content-Length: 2\r\nContent-Type: x\r\n\r\n{}Content-Length: 7\r\n\r\n{\"a\":1}"
                .to_vec(),
        );
        assert!(read_message(&mut ok).unwrap().unwrap().is_object());
        assert_eq!(read_message(&mut ok).unwrap().unwrap()["a"], 1);
        assert_eq!(read_message(&mut ok).unwrap(), None);
        for bad in [
            &b"hello world\r\n\r\n"[..],
            b"Content-Length: x\r\n\r\n",
            b"Content-Length: 10\r\n\r\n{}",
            b"Content-Length: 3\r\n\r\nabc",
            b"Content-Length: 2\r\n\r\n[]",
            b"X: 1\r\n\r\n{}",
            b"Content-Length: 2\r\n",
        ] {
            assert!(
                read_message(&mut Cursor::new(bad.to_vec())).is_err(),
                "{bad:?}"
            );
        }
    }
}
