//! Which language server a language uses: data in `grammars/<lang>.toml`
//! (`[lsp]`), checked when the language loads, and the caller's overrides
//! (`--lsp LANG=COMMAND`, `--no-lsp`, `--lsp-timeout`).

use crate::error::{Error, Result};
pub use crate::lang::server::ServerConfig;
use std::collections::BTreeMap;
use std::time::Duration;

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
