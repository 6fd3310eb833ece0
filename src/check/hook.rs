//! `scalpel hook install|uninstall`: a git pre-commit hook that runs
//! `scalpel check --staged`.
//!
//! The hook goes where git looks for it (`git rev-parse --git-path hooks`,
//! which honours `core.hooksPath` and linked work trees). It carries a marker
//! line, so Scalpel recognises its own hook: installing again rewrites it
//! (harmless, and it picks up a moved binary), a hook someone else wrote is
//! never replaced without `--force` (and then kept as a backup), and
//! uninstall removes only a hook with the marker.
//!
//! The hook calls the binary that installed it by absolute path, so it works
//! for a binary that is not on PATH (`cargo run`, a test build), and falls back
//! to `scalpel` on PATH when that file is gone. The file is written with the
//! workspace's atomic write, executable.

use super::git::Repo;
use crate::disk::install::{install_file, remove_installed};
use crate::error::{Error, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The line that identifies a hook written by Scalpel.
pub const HOOK_MARKER: &str = "# scalpel-pre-commit-hook";

/// Where a replaced foreign hook is kept, next to the hook.
const BACKUP_SUFFIX: &str = ".scalpel-backup";

/// What `install` or `uninstall` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookAction {
    /// A new hook was written.
    Installed,
    /// Our hook was already there; it was rewritten with the current binary.
    Updated,
    /// A foreign hook was replaced (`--force`) and kept as a backup.
    Replaced,
    /// Our hook was removed.
    Removed,
    /// There was no hook to remove.
    NotInstalled,
    /// The hook there is not ours: left untouched.
    LeftForeign,
}

#[derive(Debug, Clone, Serialize)]
pub struct HookOutcome {
    pub action: HookAction,
    /// The hook file.
    pub path: String,
    /// Where the replaced foreign hook was saved (`Replaced` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// One line for people.
    pub message: String,
}

/// The hook script calling `exe` (or `scalpel` on PATH).
pub fn hook_script(exe: Option<&Path>) -> String {
    let exe = exe.and_then(Path::to_str).unwrap_or("scalpel");
    format!(
        r#"#!/bin/sh
{HOOK_MARKER}: installed by `scalpel hook install`; `scalpel hook uninstall` removes it.
# Refuses a commit whose staged files have parse errors they did not have at HEAD.
# Skip once with `git commit --no-verify`.
scalpel={exe}
if [ ! -x "$scalpel" ]; then
  if command -v scalpel >/dev/null 2>&1; then
    scalpel=scalpel
  else
    echo "scalpel pre-commit hook: $scalpel not found and no scalpel on PATH; reinstall it (scalpel hook install) or commit with --no-verify" >&2
    exit 1
  fi
fi
exec "$scalpel" check --staged
"#,
        exe = sh_quote(exe)
    )
}

/// Quote a word for `sh`: single quotes, with embedded ones as `'\''`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn is_ours(path: &Path) -> bool {
    // Our hook is a few lines; a larger file (or not a file) is someone else's.
    crate::disk::read::read_capped(path, 64 << 10, crate::disk::read::Links::Follow)
        .map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .any(|l| l.starts_with(HOOK_MARKER))
        })
        .unwrap_or(false)
}

fn hook_path(cwd: &Path) -> Result<PathBuf> {
    Ok(Repo::discover(cwd)?.hooks_dir()?.join("pre-commit"))
}

/// Write the pre-commit hook of the repository containing `cwd`, calling
/// `exe`. A foreign hook is replaced only with `force`, and kept as
/// `pre-commit.scalpel-backup`.
pub fn install(cwd: &Path, exe: Option<&Path>, force: bool) -> Result<HookOutcome> {
    let path = hook_path(cwd)?;
    let shown = path.display().to_string();
    let exists = std::fs::symlink_metadata(&path).is_ok();
    let ours = exists && is_ours(&path);
    let mut backup = None;
    if exists && !ours {
        if !force {
            return Err(Error::invalid_argument(format!(
                "{shown} already exists and was not written by Scalpel"
            ))
            .with_suggestion(
                "call `scalpel check --staged` from that hook yourself, or run `scalpel hook install --force` to replace it (the old hook is kept as pre-commit.scalpel-backup)",
            )
            .with_details(serde_json::json!({"path": shown})));
        }
        let saved = PathBuf::from(format!("{shown}{BACKUP_SUFFIX}"));
        backup = Some(saved);
    }
    // A symlinked hook is replaced by a file, not written through.
    install_file(&path, hook_script(exe).as_bytes(), 0o755, backup.as_deref())?;
    let backup = backup.map(|b| b.display().to_string());
    let (action, message) = match (&backup, ours) {
        (Some(b), _) => (
            HookAction::Replaced,
            format!("replaced the pre-commit hook {shown}; the old one is saved as {b}"),
        ),
        (None, true) => (
            HookAction::Updated,
            format!("pre-commit hook already installed at {shown} (rewritten)"),
        ),
        (None, false) => (
            HookAction::Installed,
            format!(
                "installed the pre-commit hook at {shown}: commits now run `scalpel check --staged`"
            ),
        ),
    };
    Ok(HookOutcome {
        action,
        path: shown,
        backup,
        message,
    })
}

/// Remove the pre-commit hook of the repository containing `cwd` if Scalpel
/// wrote it; a foreign hook is left in place.
pub fn uninstall(cwd: &Path) -> Result<HookOutcome> {
    let path = hook_path(cwd)?;
    let shown = path.display().to_string();
    let outcome = |action, message: String| HookOutcome {
        action,
        path: shown.clone(),
        backup: None,
        message,
    };
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(outcome(
            HookAction::NotInstalled,
            format!("no pre-commit hook at {shown}: nothing to remove"),
        ));
    }
    if !is_ours(&path) {
        return Ok(outcome(
            HookAction::LeftForeign,
            format!("{shown} was not written by Scalpel: left untouched"),
        ));
    }
    remove_installed(&path)?;
    let saved = PathBuf::from(format!("{shown}{BACKUP_SUFFIX}"));
    let mut message = format!("removed the pre-commit hook {shown}");
    if saved.exists() {
        message.push_str(&format!(
            "; the hook it replaced is still saved as {}",
            saved.display()
        ));
    }
    Ok(outcome(HookAction::Removed, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_quotes_the_binary_path() {
        let s = hook_script(Some(Path::new("/opt/it's here/scalpel")));
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains(HOOK_MARKER));
        assert!(s.contains(r"scalpel='/opt/it'\''s here/scalpel'"));
        assert!(s.contains("exec \"$scalpel\" check --staged"));
        assert!(hook_script(None).contains("scalpel='scalpel'"));
    }
}
