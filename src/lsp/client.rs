//! One language server for one language and root: started and initialized,
//! the documents it was shown, and the requests Scalpel makes.

use super::config::{ServerConfig, section};
use super::convert;
use super::transport::{Failure, Process, Published, Settled};
use crate::lang::server::DiagnosticsCommand;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A file's error diagnostics: 1-based line, message.
pub type Errors = Vec<(usize, String)>;

/// How diagnostics are asked for rather than waited for.
#[derive(Clone)]
enum Pull {
    /// `diagnostics_command`: a command answered the way tsserver answers.
    Command(DiagnosticsCommand),
    /// `diagnostics_pull`: the protocol's `textDocument/diagnostic`.
    Protocol,
}

pub struct Client {
    process: Process,
    /// `lsp:<name> <version>`, from the server's `serverInfo` (else the
    /// program's name).
    pub label: String,
    /// What the server holds of each opened document: version, text.
    open: HashMap<PathBuf, (i32, String)>,
    pub timeout: Duration,
    capabilities: Value,
    pub last_used: Instant,
    /// Diagnostics asked for (`diagnostics_command`, the language's own
    /// server only).
    pull: Option<Pull>,
    /// The errors last read per file, and the key of everything the server
    /// held then ([`Client::state`]).
    known: Vec<(u64, HashMap<PathBuf, Errors>)>,
}

/// States of the open documents whose errors a client remembers: the
/// disk's texts and a few renamed ones (a dry run, then its apply).
const KNOWN_STATES: usize = 8;

impl Client {
    /// Start `command` for `root` and initialize it.
    pub fn start(
        config: &ServerConfig,
        command: &[String],
        root: &Path,
        timeout: Duration,
    ) -> Result<Client, Failure> {
        let mut process = Process::spawn(command, root)?;
        let settings = config.settings.clone();
        process.configuration = Box::new(move |s| section(&settings, s));
        let root_uri = convert::uri(root);
        let init_options = config
            .init_options
            .as_ref()
            .map(|v| serde_json::to_value(v).unwrap_or_default());
        // The language's own program (by its file name: `--lsp` may name
        // it by a path) says what its language file says it says.
        let same = same_program(command, &config.command);
        let mut capabilities = json!({
            "workspace": {
                "workspaceEdit": {"documentChanges": true},
                // Not `workspaceFolders`: pyright 1.1.389 then waits
                // for folders it never asks for, and answers nothing.
                "configuration": true
            },
            "textDocument": {
                "synchronization": {"didSave": false},
                "rename": {"prepareSupport": true},
                "references": {},
                "publishDiagnostics": {"versionSupport": true}
            },
            "general": {"positionEncodings": ["utf-16"]}
        });
        if let Some(x) = config.experimental_capabilities.as_ref().filter(|_| same) {
            capabilities["experimental"] = serde_json::to_value(x).unwrap_or_default();
        }
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "scalpel", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": root_uri,
            "rootPath": root.to_string_lossy(),
            "workspaceFolders": [{"uri": root_uri, "name": root.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()}],
            "initializationOptions": init_options,
            "capabilities": capabilities
        });
        let answer = process.request("initialize", params, timeout)?;
        let Some(capabilities) = answer.get("capabilities").filter(|c| c.is_object()) else {
            return Err(Failure::Garbage(
                "an initialize answer without capabilities".into(),
            ));
        };
        let program = Path::new(&command[0])
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The language's own server (not one given by --lsp): its name and
        // version as the language file says.
        let own = command == config.command.as_slice();
        let info = answer.get("serverInfo");
        let name = match (
            &config.name,
            info.and_then(|i| i.get("name")).and_then(Value::as_str),
        ) {
            (Some(n), _) if own => n.clone(),
            (_, Some(n)) => n.to_lowercase(),
            _ => program,
        };
        let version = match info.and_then(|i| i.get("version")).and_then(Value::as_str) {
            Some(v) => Some(v.to_string()),
            None if own => version(&config.version_command, root, timeout),
            None => None,
        };
        let label = match version {
            Some(v) => format!("lsp:{name} {v}"),
            None => format!("lsp:{name}"),
        };
        let capabilities = capabilities.clone();
        // Another program given by --lsp may not send the language's
        // server's notification.
        process.progress = config
            .idle_notification
            .clone()
            .filter(|_| same)
            .map(|idle| (config.busy_notifications.clone(), idle));
        if let Some(r) = config.ready_notification.clone().filter(|_| same) {
            process.readiness = Some(r);
            process.ready = false;
        }
        process.notify("initialized", json!({}))?;
        if let Some(s) = &config.settings {
            process.notify(
                "workspace/didChangeConfiguration",
                json!({"settings": serde_json::to_value(s).unwrap_or_default()}),
            )?;
        }
        if let Some(m) = &config.ready_after {
            process.wait_request(m, timeout)?;
        }
        Ok(Client {
            process,
            label,
            open: HashMap::new(),
            timeout,
            capabilities,
            last_used: Instant::now(),
            pull: match (&config.diagnostics_command, config.diagnostics_pull) {
                _ if !same => None,
                (Some(c), _) => Some(Pull::Command(c.clone())),
                (None, true) => Some(Pull::Protocol),
                (None, false) => None,
            },
            known: Vec::new(),
        })
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    pub fn is_dead(&mut self) -> bool {
        self.process.is_dead()
    }

    /// Whether the server renames (and prepares renames).
    pub fn can_rename(&self) -> (bool, bool) {
        let r = self.capabilities.get("renameProvider");
        let renames = r.is_some_and(|r| r.as_bool() != Some(false) && !r.is_null());
        let prepares = r
            .and_then(|r| r.get("prepareProvider"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        (renames, prepares)
    }

    pub fn can_find_references(&self) -> bool {
        self.capabilities
            .get("referencesProvider")
            .is_some_and(|r| r.as_bool() != Some(false) && !r.is_null())
    }

    /// Show the server `text` as the content of `path` (open it, or change
    /// it when it holds another text).
    pub fn sync(&mut self, path: &Path, text: &str, language_id: &str) -> Result<(), Failure> {
        let uri = convert::uri(path);
        match self.open.get_mut(path) {
            Some((_, held)) if held == text => Ok(()),
            Some((version, held)) => {
                *version += 1;
                *held = text.to_string();
                let v = *version;
                self.process.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": v},
                           "contentChanges": [{"text": text}]}),
                )
            }
            None => {
                self.open.insert(path.to_path_buf(), (1, text.to_string()));
                self.process.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": language_id,
                                            "version": 1, "text": text}}),
                )
            }
        }
    }

    /// Show `path` again as a new version of `text` (a change that changes
    /// nothing), so the server checks it again.
    pub fn touch(&mut self, path: &Path, text: &str, language_id: &str) -> Result<(), Failure> {
        if let Some((_, held)) = self.open.get_mut(path) {
            held.clear();
        }
        self.sync(path, text, language_id)
    }

    /// The version of `path` the server holds, when opened.
    pub fn version(&self, path: &Path) -> Option<i32> {
        self.open.get(path).map(|o| o.0)
    }

    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Failure> {
        self.last_used = Instant::now();
        let t = self.timeout;
        self.wait_ready(Instant::now() + t)?;
        self.process.request(method, params, t)
    }

    /// Wait until the server says it is ready (`ready_notification`), at
    /// most until `deadline`; at once for a server that says nothing of
    /// the kind.
    pub fn wait_ready(&mut self, deadline: Instant) -> Result<(), Failure> {
        if self.process.ready {
            return Ok(());
        }
        let started = Instant::now();
        // The bound, to the millisecond (as the note says it).
        let bound = Duration::from_millis(
            (deadline.saturating_duration_since(started).as_secs_f64() * 1000.0).round() as u64,
        );
        tracing::info!(target: "scalpel::lsp", "{}: waiting until the server says it is ready", self.label);
        if self
            .process
            .wait_until(deadline, Duration::ZERO, &|p: &Process| p.ready)?
        {
            tracing::info!(target: "scalpel::lsp", "{}: ready after {:.1} s", self.label, started.elapsed().as_secs_f64());
            return Ok(());
        }
        Err(Failure::NotReady(bound))
    }

    /// Whether the server says when it has checked every open document
    /// (`idle_notification`): then waiting for it is waiting for work
    /// that ends, not for a silence.
    pub fn says_when_idle(&self) -> bool {
        self.process.progress.is_some() || self.pull.is_some()
    }

    /// The error diagnostics of `path` as the server holds it now, asked
    /// for (`diagnostics_command`): tsserver's answer shape.
    fn pull_errors(&mut self, pull: &DiagnosticsCommand, path: &Path) -> Result<Errors, Failure> {
        let uri = convert::uri(path);
        let mut out = Errors::new();
        for r in &pull.requests {
            let answer = self.request(
                "workspace/executeCommand",
                json!({"command": pull.command, "arguments": [r, {"file": uri}]}),
            )?;
            let Some(body) = answer.get("body").and_then(Value::as_array) else {
                return Err(Failure::Garbage(format!(
                    "{} {r}: an answer without a `body` list",
                    pull.command
                )));
            };
            for d in body {
                if d.get("category").and_then(Value::as_str) != Some("error") {
                    continue;
                }
                let line = d
                    .pointer("/start/line")
                    .and_then(Value::as_u64)
                    .unwrap_or(1) as usize;
                let msg = d.get("text").and_then(Value::as_str).unwrap_or("");
                out.push((line.max(1), msg.lines().next().unwrap_or("").to_string()));
            }
        }
        Ok(out)
    }

    /// The error diagnostics of `path` as the server holds it now, asked
    /// for with `textDocument/diagnostic` (a full report: `{kind: "full",
    /// items: [Diagnostic]}`).
    fn document_errors(&mut self, path: &Path) -> Result<Errors, Failure> {
        let answer = self.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": convert::uri(path)}}),
        )?;
        let items = match (
            answer.get("kind").and_then(Value::as_str),
            answer.get("items").and_then(Value::as_array),
        ) {
            (Some("full"), Some(items)) => items,
            _ => {
                return Err(Failure::Garbage(
                    "a textDocument/diagnostic answer that is not a full report".into(),
                ));
            }
        };
        Ok(error_lines(items))
    }

    /// A key of everything the server holds: each open document's path and
    /// text.
    fn state(&self) -> u64 {
        self.state_with(&[])
    }

    /// [`Client::state`] as it would be with `texts` shown in place of
    /// what the server holds of those paths (opened when it holds none).
    fn state_with(&self, texts: &[(&Path, &str)]) -> u64 {
        use std::hash::{Hash, Hasher};
        let shown = |p: &Path| texts.iter().find(|(q, _)| *q == p).map(|(_, t)| *t);
        let mut docs: Vec<(&Path, &str)> = self
            .open
            .iter()
            .map(|(p, (_, t))| (p.as_path(), shown(p).unwrap_or(t)))
            .chain(
                texts
                    .iter()
                    .filter(|(p, _)| !self.open.contains_key(*p))
                    .copied(),
            )
            .collect();
        docs.sort();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        docs.hash(&mut h);
        h.finish()
    }

    /// The errors of each of `paths` read when the server held `texts` in
    /// place of what it holds now, if that state is one remembered
    /// ([`Client::errors_now`]): a dry run's check answers its `--apply`
    /// without the texts shown to the server again. Nothing is sent.
    pub fn known_errors_with(
        &mut self,
        texts: &[(&Path, &str)],
        paths: &[PathBuf],
    ) -> Option<Vec<Errors>> {
        let v = self.recall(self.state_with(texts), paths)?;
        tracing::debug!(target: "scalpel::lsp", files = paths.len(), "errors already known for these texts (not shown again)");
        Some(v)
    }

    /// The errors of each of `paths` remembered for the state `key`, the
    /// state then made the most recent.
    fn recall(&mut self, key: u64, paths: &[PathBuf]) -> Option<Vec<Errors>> {
        let i = self.known.iter().position(|(k, _)| *k == key)?;
        let v = paths
            .iter()
            .map(|p| self.known[i].1.get(p).cloned())
            .collect::<Option<Vec<Errors>>>()?;
        let hit = self.known.remove(i);
        self.known.push(hit);
        Some(v)
    }

    /// The error diagnostics of each of `paths` as the server holds them
    /// now ([`Client::errors`], with its `after`), remembered per state of
    /// the open documents ([`KNOWN_STATES`] of them): asked again while the
    /// server holds the same texts, the errors read then are the answer,
    /// without waiting for the server to check what it already checked. A
    /// dry run's check shows the renamed texts, then the disk's again: the
    /// `--apply` that follows finds both states known, so it costs the
    /// server's rename and the write.
    pub fn errors_now(
        &mut self,
        paths: &[PathBuf],
        after: u64,
        quiet: Duration,
        deadline: Instant,
    ) -> Result<Option<Vec<Errors>>, Failure> {
        let key = self.state();
        if let Some(v) = self.recall(key, paths) {
            tracing::debug!(target: "scalpel::lsp", files = paths.len(), "errors already known for these texts");
            return Ok(Some(v));
        }
        let got = self.errors(paths, after, quiet, deadline)?;
        if let Some(v) = &got {
            let mut entry = match self.known.iter().position(|(k, _)| *k == key) {
                Some(i) => self.known.remove(i),
                None => (key, HashMap::new()),
            };
            entry.1.extend(paths.iter().cloned().zip(v.iter().cloned()));
            self.known.push(entry);
            if self.known.len() > KNOWN_STATES {
                self.known.remove(0);
            }
        }
        Ok(got)
    }

    /// How many diagnostics the server published so far (a mark for
    /// [`Client::errors`]' `after`).
    pub fn published(&self) -> u64 {
        self.process.published
    }

    /// The error diagnostics of each of `paths` (1-based line, message):
    /// asked for, with a `diagnostics_command`; else those published after the mark `after` for the version the server holds,
    /// waited for until `deadline`, then (a server with an idle
    /// notification) until it says it has checked everything after them;
    /// without one, a file with none such when the server stays quiet for
    /// `quiet` keeps its last ones (a server that does not republish
    /// unchanged diagnostics and does not version them). `None`:
    /// not known in time (some file has none at all, or a versioning server
    /// did not answer for the version it holds).
    pub fn errors(
        &mut self,
        paths: &[PathBuf],
        after: u64,
        quiet: Duration,
        deadline: Instant,
    ) -> Result<Option<Vec<Errors>>, Failure> {
        self.wait_ready(deadline)?;
        if let Some(pull) = self.pull.clone() {
            return paths
                .iter()
                .map(|p| match &pull {
                    Pull::Command(c) => self.pull_errors(c, p),
                    Pull::Protocol => self.document_errors(p),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some);
        }
        let want: Vec<(String, Option<i32>)> = paths
            .iter()
            .map(|p| (convert::uri(p), self.version(p)))
            .collect();
        let fresh = |d: &HashMap<String, Published>| {
            want.iter().all(|(u, v)| {
                d.get(u).is_some_and(|p| {
                    p.seq > after
                        && match (p.version, v) {
                            (Some(got), Some(v)) => got == *v as i64,
                            _ => true,
                        }
                })
            })
        };
        if self.process.progress.is_some() {
            // It says when it is still checking: the diagnostics of the
            // versions sent, then not busy (and quiet: it says so right
            // after publishing).
            let done = |p: &Process| fresh(&p.diagnostics) && !p.busy;
            if !self.process.wait_until(deadline, quiet, &done)? {
                return Ok(None);
            }
        } else {
            // A server that versions its diagnostics says when they are
            // about the text it holds: wait for that (and for it to go
            // quiet: it may publish in stages), never take its silence for
            // it.
            let versioned = self
                .process
                .diagnostics
                .values()
                .any(|p| p.version.is_some());
            loop {
                match self.process.wait_diagnostics(deadline, quiet, &fresh)? {
                    Settled::Arrived => break,
                    Settled::Quiet if !versioned => break,
                    Settled::Quiet => continue,
                    Settled::Deadline => return Ok(None),
                }
            }
        }
        let mut out = Vec::new();
        for (u, _) in &want {
            let Some(p) = self.process.diagnostics.get(u) else {
                return Ok(None);
            };
            let none = Vec::new();
            out.push(error_lines(
                p.params
                    .get("diagnostics")
                    .and_then(Value::as_array)
                    .unwrap_or(&none),
            ));
        }
        Ok(Some(out))
    }

    pub fn shutdown(mut self) {
        self.process.shutdown();
    }
}

/// The errors among LSP `Diagnostic`s: 1-based line, first line of the
/// message.
fn error_lines(diagnostics: &[Value]) -> Errors {
    diagnostics
        .iter()
        .filter(|d| d.get("severity").and_then(Value::as_i64) == Some(1))
        .map(|d| {
            let line = d
                .pointer("/range/start/line")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize
                + 1;
            let msg = d.get("message").and_then(Value::as_str).unwrap_or("");
            (line, msg.lines().next().unwrap_or("").to_string())
        })
        .collect()
}

/// Whether `given` runs the program `own` names (the same file name, the
/// same arguments): `--lsp rust=/opt/bin/rust-analyzer` is the language's
/// own server at another path.
fn same_program(given: &[String], own: &[String]) -> bool {
    let name = |c: &[String]| {
        c.first()
            .and_then(|p| Path::new(p).file_name())
            .map(|n| n.to_os_string())
    };
    name(given).is_some() && name(given) == name(own) && given.get(1..) == own.get(1..)
}

/// The last word of the first line `command` prints, waited for at most
/// `timeout` (then killed).
fn version(command: &[String], dir: &Path, timeout: Duration) -> Option<String> {
    let (program, args) = command.split_first()?;
    let mut child = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + timeout.min(Duration::from_secs(10));
    while matches!(child.try_wait(), Ok(None)) {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    let word = out.lines().next()?.split_whitespace().last()?;
    (word.len() <= 40 && word.starts_with(|c: char| c.is_ascii_digit())).then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fake server of tests/support/fake_lsp.py in `mode`, with a
    /// language file's `ready_notification` for it.
    fn start(mode: &str, timeout: Duration) -> Result<Client, Failure> {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/fake_lsp.py");
        let command: Vec<String> = ["python3", script, mode].map(String::from).into();
        let mut config: ServerConfig = toml::from_str(
            "command = [\"python3\"]\nlanguage_id = \"x\"\nready_notification = { method = \"experimental/serverStatus\", field = \"quiescent\", value = true }",
        )
        .unwrap();
        config.command = command.clone();
        config.check("test.toml").unwrap();
        let dir = std::env::temp_dir();
        Client::start(&config, &command, &dir, timeout)
    }

    #[test]
    fn requests_wait_until_the_server_says_it_is_ready() {
        let mut c = start("late", Duration::from_secs(20)).unwrap();
        let params = json!({"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}, "context": {"includeDeclaration": true}});
        // The fake answers `[]` only once it said it is ready.
        assert_eq!(
            c.request("textDocument/references", params).unwrap(),
            json!([])
        );
        // Started under a generous bound (a loaded machine starts python
        // slowly), then asked under a short one.
        let mut c = start("unready", Duration::from_secs(20)).unwrap();
        c.timeout = Duration::from_millis(500);
        let e = c.request("textDocument/references", json!({})).unwrap_err();
        assert_eq!(e, Failure::NotReady(Duration::from_millis(500)));
        assert!(
            e.to_string()
                .starts_with("did not say it was ready within 0.5 s (still loading"),
            "{e}"
        );
    }

    #[test]
    fn the_languages_own_program_at_another_path_is_the_same_program() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(same_program(
            &s(&["/opt/ra/bin/rust-analyzer"]),
            &s(&["rust-analyzer"])
        ));
        assert!(same_program(
            &s(&["/x/pyright-langserver", "--stdio"]),
            &s(&["pyright-langserver", "--stdio"])
        ));
        assert!(!same_program(
            &s(&["pyright-langserver"]),
            &s(&["pyright-langserver", "--stdio"])
        ));
        assert!(!same_program(
            &s(&["python3", "fake.py"]),
            &s(&["rust-analyzer"])
        ));
    }
}
