//! Which language server a language uses: data in `grammars/<lang>.toml`
//! (`[lsp]`), checked when the language loads, and the caller's overrides
//! (`--lsp LANG=COMMAND`, `--no-lsp`, `--lsp-timeout`).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

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
    /// Answers to `workspace/configuration`, by section (`python.analysis`).
    #[serde(default)]
    pub settings: Option<toml::Value>,
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
            settings: None,
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
        ] {
            if v.as_ref().is_some_and(|v| !v.is_table()) {
                return Err(bad(&format!("`{key}` is not a table")));
            }
        }
        Ok(())
    }
}

/// The default bound on one request to a language server.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What the caller decided about language servers.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `--no-lsp`: the syntax backend only.
    pub enabled: bool,
    /// `--lsp LANG=COMMAND`: a command instead of the language's own.
    pub commands: BTreeMap<String, Vec<String>>,
    /// Each request's bound (`--lsp-timeout`).
    pub timeout: Duration,
    /// Shut down a server unused this long (`scalpel serve`).
    pub idle: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            enabled: true,
            commands: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
            idle: Duration::from_secs(600),
        }
    }
}

impl Settings {
    /// `--lsp LANG=COMMAND...`, `--no-lsp`, `--lsp-timeout SECONDS`, the
    /// languages named by their canonical names.
    pub fn from_flags(
        specs: &[String],
        no_lsp: bool,
        timeout: f64,
        registry: &crate::lang::Registry,
    ) -> Result<Settings> {
        let mut s = Settings {
            enabled: !no_lsp,
            ..Settings::default()
        };
        for spec in specs {
            s.add_command(spec)?;
        }
        let given = std::mem::take(&mut s.commands);
        for (lang, command) in given {
            let Some(l) = registry.by_name(&lang) else {
                let names: Vec<&str> = registry.languages().iter().map(|l| l.name()).collect();
                return Err(Error::invalid_argument(format!(
                    "--lsp names an unknown language `{lang}`"
                ))
                .with_suggestion(format!("use one of: {}", names.join(", ")))
                .with_details(serde_json::json!({"language": lang})));
            };
            s.commands.insert(l.name().to_string(), command);
        }
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(Error::invalid_argument(format!(
                "the language server timeout must be a positive number of seconds, not {timeout}"
            ))
            .with_suggestion("give --lsp-timeout in seconds, e.g. 30"));
        }
        s.timeout = Duration::from_secs_f64(timeout);
        Ok(s)
    }

    /// Read one `--lsp LANG=COMMAND` (the command split on spaces).
    pub fn add_command(&mut self, spec: &str) -> Result<()> {
        let bad = || {
            Error::invalid_argument(format!("`{spec}` is not LANG=COMMAND"))
                .with_suggestion("write --lsp python=\"pyright-langserver --stdio\"")
                .with_details(serde_json::json!({"lsp": spec}))
        };
        let (lang, cmd) = spec.split_once('=').ok_or_else(bad)?;
        let words: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        if lang.trim().is_empty() || words.is_empty() {
            return Err(bad());
        }
        self.commands.insert(lang.trim().to_string(), words);
        Ok(())
    }
}

/// `settings` as the JSON `workspace/configuration` answers with: the
/// value at a dotted `section`, or `null`.
pub(crate) fn section(settings: &Option<toml::Value>, section: Option<&str>) -> serde_json::Value {
    let Some(all) = settings else {
        return serde_json::Value::Null;
    };
    let mut v = serde_json::to_value(all).unwrap_or_default();
    for part in section.into_iter().flat_map(|s| s.split('.')) {
        v = v.get(part).cloned().unwrap_or_default();
    }
    v
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
    fn overrides_and_sections() {
        let mut s = Settings::default();
        s.add_command("python=fake-server --stdio").unwrap();
        assert_eq!(s.commands["python"], ["fake-server", "--stdio"]);
        assert!(s.add_command("python").is_err());
        assert!(s.add_command("=x").is_err());
        assert!(s.add_command("python=  ").is_err());
        let c = config(
            "command = [\"x\"]\nlanguage_id = \"p\"\n[settings.python.analysis]\nmode = \"a\"",
        );
        assert_eq!(section(&c.settings, Some("python.analysis"))["mode"], "a");
        assert!(section(&c.settings, Some("nope")).is_null());
    }
}
