//! What a running `scalpel serve --http` leaves in `ROOT/.scalpel/` for
//! clients and for a second server: `server.json` (pid, address, URL, token
//! file) and the generated token (`http-token`). Both are written whole
//! (temp file, then rename) with mode 0600, and removed at a clean stop.

use crate::disk::store;
use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const STATE_FILE: &str = "server.json";
pub const TOKEN_FILE: &str = "http-token";

/// `ROOT/.scalpel/server.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ServerState {
    pub pid: u32,
    pub addr: SocketAddr,
    pub url: String,
    pub token_file: PathBuf,
    pub root: PathBuf,
    pub version: String,
}

impl ServerState {
    pub fn path(root: &Path) -> PathBuf {
        store::scalpel_file(root, STATE_FILE)
    }

    pub fn read(root: &Path) -> Option<ServerState> {
        let bytes = crate::disk::door::read(&Self::path(root)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub fn write(&self, root: &Path) -> Result<()> {
        let json = serde_json::to_vec_pretty(self).expect("state serializes");
        store::save_private_file(root, STATE_FILE, &json).map(drop)
    }

    /// The process named is alive and something answers on its address.
    pub fn answers(&self) -> bool {
        let alive = rustix::process::Pid::from_raw(self.pid as i32).is_some_and(|pid| {
            match rustix::process::test_kill_process(pid) {
                Ok(()) => true,
                Err(e) => e == rustix::io::Errno::PERM,
            }
        });
        alive && std::net::TcpStream::connect_timeout(&self.addr, Duration::from_secs(1)).is_ok()
    }

    /// Remove `server.json` (and the generated token) if they are still
    /// this process's.
    pub fn remove(&self, root: &Path, generated_token: bool) {
        if ServerState::read(root).is_some_and(|s| s.pid == self.pid) {
            let _ = store::remove_scalpel_file(root, STATE_FILE);
            if generated_token {
                let _ = store::remove_scalpel_file(root, TOKEN_FILE);
            }
        }
    }
}

/// Refuse to start when another server already serves `root`.
pub fn refuse_second(root: &Path) -> Result<()> {
    let Some(other) = ServerState::read(root) else {
        return Ok(());
    };
    if other.pid == std::process::id() || !other.answers() {
        tracing::info!(pid = other.pid, "a stale server.json: replacing it");
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Conflict,
        format!(
            "a Scalpel HTTP server (pid {}) already serves {} at {}",
            other.pid,
            root.display(),
            other.url
        ),
    )
    .with_details(serde_json::json!({
        "pid": other.pid,
        "url": other.url,
        "token_file": other.token_file,
        "state_file": ServerState::path(root),
    }))
    .with_suggestion(format!(
        "connect your clients to {} with the token in {}, or stop that server (kill {}) before starting another",
        other.url,
        other.token_file.display(),
        other.pid
    )))
}

/// The bearer token: read from `--token-file` (which must not be readable
/// by others), or 32 bytes from the OS generator, hex, saved to
/// `ROOT/.scalpel/http-token` (0600). Returns the token and its file.
pub fn token(root: &Path, file: Option<&Path>) -> Result<(Vec<u8>, PathBuf)> {
    if let Some(file) = file {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(file).map_err(|e| {
            Error::io("read --token-file", file, &e)
                .with_suggestion("create the file with the token (e.g. `openssl rand -hex 32 > FILE; chmod 600 FILE`)")
        })?;
        if meta.mode() & 0o077 != 0 {
            return Err(Error::invalid_argument(format!(
                "--token-file {} is readable by other users (mode {:o})",
                file.display(),
                meta.mode() & 0o777
            ))
            .with_details(serde_json::json!({"path": file}))
            .with_suggestion(format!("run `chmod 600 {}`", file.display())));
        }
        let text = std::fs::read(file).map_err(|e| Error::io("read --token-file", file, &e))?;
        let token = text.trim_ascii().to_vec();
        if token.len() < 16 || token.iter().any(|b| !b.is_ascii_graphic()) {
            return Err(Error::invalid_argument(format!(
                "--token-file {} must hold one token of at least 16 printable characters",
                file.display()
            ))
            .with_details(serde_json::json!({"path": file, "length": token.len()}))
            .with_suggestion("write a long random token into it, e.g. `openssl rand -hex 32`"));
        }
        return Ok((token, file.to_path_buf()));
    }
    let mut raw = [0u8; 32];
    let mut filled = 0;
    while filled < raw.len() {
        match rustix::rand::getrandom(&mut raw[filled..], rustix::rand::GetRandomFlags::empty()) {
            Ok(n) => filled += n,
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::Io,
                    format!("the OS random generator failed: {e}"),
                )
                .with_suggestion("pass a token with --token-file FILE"));
            }
        }
    }
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let path = store::save_private_file(root, TOKEN_FILE, format!("{token}\n").as_bytes())?;
    Ok((token.into_bytes(), path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn generated_tokens_are_private_random_and_differ() {
        let dir = tempfile::tempdir().unwrap();
        let (a, file) = token(dir.path(), None).unwrap();
        let (b, _) = token(dir.path(), None).unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read(&file).unwrap().trim_ascii(), &b[..]);
    }

    #[test]
    fn a_token_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("tok");
        std::fs::write(&f, "0123456789abcdef0123\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = token(dir.path(), Some(&f)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.suggestion.contains("chmod 600"), "{e:?}");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            token(dir.path(), Some(&f)).unwrap().0,
            b"0123456789abcdef0123"
        );
        std::fs::write(&f, "short").unwrap();
        assert!(token(dir.path(), Some(&f)).is_err());
    }

    #[test]
    fn state_round_trips_and_a_dead_server_is_not_in_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut state = ServerState {
            pid: std::process::id(),
            addr: listener.local_addr().unwrap(),
            url: "http://x/mcp".into(),
            token_file: dir.path().join("t"),
            root: dir.path().to_path_buf(),
            version: "0".into(),
        };
        state.write(dir.path()).unwrap();
        let mode = std::fs::metadata(ServerState::path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(ServerState::read(dir.path()), Some(state.clone()));
        assert!(state.answers());
        // This process is the one named: not a second server.
        refuse_second(dir.path()).unwrap();
        // A live process (our parent's init, pid 1) with our listener: refused.
        state.pid = 1;
        state.write(dir.path()).unwrap();
        let e = refuse_second(dir.path()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Conflict);
        assert!(e.suggestion.contains("kill 1"), "{e:?}");
        // Nothing answers any more: stale.
        drop(listener);
        refuse_second(dir.path()).unwrap();
        let ours = ServerState {
            pid: std::process::id(),
            ..state.clone()
        };
        ours.remove(dir.path(), false);
        assert!(ServerState::read(dir.path()).is_some(), "another's: kept");
        state.remove(dir.path(), false);
        assert!(ServerState::read(dir.path()).is_none());
    }
}
