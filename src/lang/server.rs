//! `[lsp]` of a language file: which language server the semantic backend
//! ([`crate::lsp`]) asks, as data, checked when the language loads.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// `[lsp]` in `grammars/<lang>.toml`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The program and its arguments, found on `PATH`
    /// (`["pyright-langserver", "--stdio"]`).
    pub command: Vec<String>,
    /// The server's name in answers (`backend: "lsp:NAME VERSION"`);
    /// default: the program's.
    #[serde(default)]
    pub name: Option<String>,
    /// A command printing the server's version (its last word of the first
    /// line is taken), run when the server starts, bounded.
    #[serde(default)]
    pub version_command: Vec<String>,
    /// The `languageId` of the files opened in the server.
    pub language_id: String,
    /// Files or folders that mark a project's root: the server's root is
    /// the nearest folder above the file holding one, inside the workspace
    /// root (else the workspace root).
    #[serde(default)]
    pub root_markers: Vec<String>,
    /// `initializationOptions` of `initialize`.
    #[serde(default)]
    pub init_options: Option<toml::Value>,
    /// How long the server stays silent before its diagnostics count as
    /// complete, when it does not republish unchanged ones (the rename's
    /// check in memory waits this long at most past its last message).
    #[serde(default = "default_quiet")]
    pub diagnostics_quiet_ms: u64,
    /// Notifications saying the server is still checking open documents
    /// (pyright: `pyright/beginProgress`, `pyright/reportProgress`), and
    /// the one saying it is done (`pyright/endProgress`). With them, the
    /// check in memory takes a version's diagnostics only once the server
    /// is not busy after them (and then quiet for `diagnostics_quiet_ms`):
    /// pyright first publishes a new version's diagnostics of files it has
    /// not checked yet (the old errors), says it is busy, and publishes
    /// them again when checked; it says nothing when one pass did it all.
    #[serde(default)]
    pub busy_notifications: Vec<String>,
    /// Diagnostics asked for rather than waited for (checked before all
    /// else): `workspace/executeCommand` of `command` with each request of
    /// `requests` and `{"file": URI}`, answered the way tsserver answers
    /// (`body: [{start: {line}, text, category}]`). typescript-language-
    /// server passes `typescript.tsserverRequest` to tsserver, whose
    /// `semanticDiagnosticsSync` answers for the text it holds now: no
    /// timing at all.
    #[serde(default)]
    pub diagnostics_command: Option<DiagnosticsCommand>,
    /// Diagnostics asked for with the protocol's own pull request,
    /// `textDocument/diagnostic` (LSP 3.17), per file: the answer is about
    /// the text the server holds now. rust-analyzer publishes a changed
    /// file's diagnostics in two passes (syntax at once, semantic seconds
    /// later) and only when they changed, with the document's version at
    /// publication, so nothing published says the semantic pass is done;
    /// asked, it answers for the text it holds.
    #[serde(default)]
    pub diagnostics_pull: bool,
    #[serde(default)]
    pub idle_notification: Option<String>,
    /// Answers to `workspace/configuration`, by section (`python.analysis`).
    #[serde(default)]
    pub settings: Option<toml::Value>,
    /// A request the server makes after `initialized` before it is ready:
    /// no document is opened until it came (bounded by the timeout).
    /// bash-language-server 5 builds its analyzer anew when its
    /// `workspace/configuration` is answered and forgets what was opened
    /// before.
    #[serde(default)]
    pub ready_after: Option<String>,
    /// `capabilities.experimental` of the client's `initialize` (a table):
    /// what the client announces it understands beyond the protocol
    /// (rust-analyzer: `serverStatusNotification = true`, without which it
    /// never says when it is ready).
    #[serde(default)]
    pub experimental_capabilities: Option<toml::Value>,
    /// How the server says it is ready to answer (its project loaded): a
    /// notification whose `params` hold `value` at `field`; every request
    /// and every wait for diagnostics first waits until the last such
    /// notification said so (bounded by the request timeout). Any other
    /// value of the field means "not ready" again (a server reloading its
    /// project). rust-analyzer: `experimental/serverStatus`, `quiescent`,
    /// `true`.
    #[serde(default)]
    pub ready_notification: Option<ReadyNotification>,
    /// Node kinds whose contents the server does not bind to definitions
    /// (rust-analyzer: `macro_definition`, whose body is tokens until a
    /// call expands it). A rename the server's own check rejects is tried
    /// once more with the syntax backend's sites inside them added
    /// (`ops::lsp::rename`), and taken only if the check then passes.
    #[serde(default)]
    pub unseen: Vec<String>,
}

/// `ready_notification` of `[lsp]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReadyNotification {
    /// The notification's method.
    pub method: String,
    /// The field of its `params` (dots for nested objects: `a.b`).
    pub field: String,
    /// The field's value meaning "ready".
    pub value: toml::Value,
}

impl ReadyNotification {
    /// Whether a notification's `params` say ready: `None` when `params`
    /// lack the field (nothing said about readiness).
    pub fn says_ready(&self, params: &serde_json::Value) -> Option<bool> {
        let mut v = params;
        for part in self.field.split('.') {
            v = v.get(part)?;
        }
        Some(*v == serde_json::to_value(&self.value).unwrap_or_default())
    }
}

/// `diagnostics_command` of `[lsp]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsCommand {
    pub command: String,
    pub requests: Vec<String>,
}

fn default_quiet() -> u64 {
    1000
}

impl ServerConfig {
    /// A language without `[lsp]` given a server by `--lsp`.
    pub fn bare(language: &str, command: Vec<String>) -> ServerConfig {
        ServerConfig {
            command,
            name: None,
            version_command: Vec::new(),
            language_id: language.to_string(),
            root_markers: Vec::new(),
            init_options: None,
            diagnostics_quiet_ms: default_quiet(),
            busy_notifications: Vec::new(),
            idle_notification: None,
            diagnostics_command: None,
            diagnostics_pull: false,
            settings: None,
            ready_after: None,
            experimental_capabilities: None,
            ready_notification: None,
            unseen: Vec::new(),
        }
    }

    /// Check a language's `[lsp]` table (`path` names the file in errors).
    pub fn check(&self, path: &str) -> Result<()> {
        let bad = |why: &str| {
            Error::invalid_argument(format!("{path}: bad [lsp] table: {why}")).with_suggestion(
                "give command = [\"program\", \"args\"...] and language_id; see grammars/python.toml",
            )
        };
        match self.command.first() {
            None => return Err(bad("`command` is empty")),
            Some(p) if p.trim().is_empty() || p.contains(char::is_whitespace) => {
                return Err(bad("the program name (first word of `command`) has spaces"));
            }
            Some(_) => {}
        }
        if self.language_id.trim().is_empty() {
            return Err(bad("`language_id` is empty"));
        }
        let method = |m: &String| !m.trim().is_empty() && !m.contains(char::is_whitespace);
        for (key, ok) in [
            ("ready_after", self.ready_after.iter().all(method)),
            (
                "idle_notification",
                self.idle_notification.iter().all(method),
            ),
            (
                "busy_notifications",
                self.busy_notifications.iter().all(method),
            ),
            (
                "ready_notification",
                self.ready_notification.iter().all(|r| {
                    method(&r.method)
                        && !r.field.is_empty()
                        && r.field.split('.').all(|p| !p.trim().is_empty())
                }),
            ),
            (
                "diagnostics_command",
                self.diagnostics_command.iter().all(|d| {
                    method(&d.command) && !d.requests.is_empty() && d.requests.iter().all(method)
                }),
            ),
        ] {
            if !ok {
                return Err(bad(&format!("`{key}` is not a method name")));
            }
        }
        if self.diagnostics_pull && self.diagnostics_command.is_some() {
            return Err(bad(
                "give `diagnostics_pull` or `diagnostics_command`, not both",
            ));
        }
        if self.busy_notifications.is_empty() != self.idle_notification.is_none() {
            return Err(bad(
                "give both `busy_notifications` and `idle_notification`, or neither",
            ));
        }
        if self
            .root_markers
            .iter()
            .any(|m| m.is_empty() || m.contains(['/', '\\']) || m == "..")
        {
            return Err(bad("a root marker is a file or folder name, not a path"));
        }
        for (key, v) in [
            ("init_options", &self.init_options),
            ("settings", &self.settings),
            ("experimental_capabilities", &self.experimental_capabilities),
        ] {
            if v.as_ref().is_some_and(|v| !v.is_table()) {
                return Err(bad(&format!("`{key}` is not a table")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> ServerConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn bad_tables_are_refused_at_load() {
        let ok = config("command = [\"x\", \"--stdio\"]\nlanguage_id = \"python\"");
        assert!(ok.check("g.toml").is_ok());
        for text in [
            "command = []\nlanguage_id = \"python\"",
            "command = [\"a b\"]\nlanguage_id = \"python\"",
            "command = [\"x\"]\nlanguage_id = \"\"",
            "command = [\"x\"]\nlanguage_id = \"p\"\nroot_markers = [\"../up\"]",
            "command = [\"x\"]\nlanguage_id = \"p\"\nsettings = 3",
            "command = [\"x\"]\nlanguage_id = \"p\"\nready_after = \"two words\"",
            "command = [\"x\"]\nlanguage_id = \"p\"\nidle_notification = \"\"\nbusy_notifications = [\"b\"]",
            "command = [\"x\"]\nlanguage_id = \"p\"\nidle_notification = \"done\"",
            "command = [\"x\"]\nlanguage_id = \"p\"\ndiagnostics_command = { command = \"c\", requests = [] }",
            "command = [\"x\"]\nlanguage_id = \"p\"\nexperimental_capabilities = 1",
            "command = [\"x\"]\nlanguage_id = \"p\"\nready_notification = { method = \"a b\", field = \"f\", value = true }",
            "command = [\"x\"]\nlanguage_id = \"p\"\nready_notification = { method = \"s\", field = \"a..b\", value = true }",
        ] {
            let e = config(text).check("g.toml").unwrap_err();
            assert!(
                e.message.contains("g.toml: bad [lsp] table"),
                "{text}: {e:?}"
            );
        }
        assert!(
            toml::from_str::<ServerConfig>("command = [\"x\"]\nlanguage_id = \"p\"\nport = 1")
                .is_err()
        );
    }

    #[test]
    fn the_ready_notification_is_read_from_its_field() {
        let c = config(
            "command = [\"x\"]\nlanguage_id = \"p\"\nready_notification = { method = \"s/status\", field = \"a.quiescent\", value = true }",
        );
        c.check("g.toml").unwrap();
        let r = c.ready_notification.unwrap();
        let says = |v: serde_json::Value| r.says_ready(&v);
        assert_eq!(
            says(serde_json::json!({"a": {"quiescent": true}})),
            Some(true)
        );
        assert_eq!(
            says(serde_json::json!({"a": {"quiescent": false}})),
            Some(false)
        );
        assert_eq!(
            says(serde_json::json!({"a": {"quiescent": "true"}})),
            Some(false)
        );
        assert_eq!(says(serde_json::json!({"quiescent": true})), None);
    }
}
