//! What every operation is configured with, and loading a file through it.

use crate::disk;
use crate::error::{Error, ErrorCode, Result};
use crate::lang::{Language, Registry};
use crate::source::SourceText;
use crate::symbols::{self, ParsedFile};
use std::path::Path;
use std::sync::Arc;

/// Shared configuration: the language registry and input limits.
#[derive(Debug, Clone)]
pub struct Engine {
    pub registry: Arc<Registry>,
    pub max_file_size: u64,
    /// How long parsing a file (and listing its symbols) may take before it
    /// is answered with `TIMEOUT`.
    pub parse_budget: symbols::ParseBudget,
    /// The language servers of the semantic backend ([`crate::lsp`]).
    pub lsp: Arc<crate::lsp::Servers>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine {
            registry: Registry::builtin(),
            max_file_size: disk::DEFAULT_MAX_FILE_SIZE,
            parse_budget: symbols::ParseBudget::default(),
            lsp: Arc::default(),
        }
    }
}

impl Engine {
    /// The language for `path`: forced by name, else by file name, else by
    /// the `#!` line of `source`.
    pub fn language_for(
        &self,
        path: &Path,
        source: Option<&SourceText>,
        forced: Option<&str>,
    ) -> Result<Arc<Language>> {
        if let Some(name) = forced {
            return self.registry.by_name(name).cloned().ok_or_else(|| {
                let names: Vec<&str> = self.registry.languages().iter().map(|l| l.name()).collect();
                Error::invalid_argument(format!("unknown language `{name}`"))
                    .with_suggestion(format!("use one of: {}", names.join(", ")))
                    .with_details(serde_json::json!({"language": name, "supported": names}))
            });
        }
        self.registry
            .detect(path, source.map(|s| s.body()))
            .cloned()
            .ok_or_else(|| self.registry.unsupported(path))
    }

    /// Read, decode, detect and parse `path`.
    pub fn load(&self, path: &Path, forced: Option<&str>) -> Result<ParsedFile> {
        self.load_with(path, forced, || disk::read_source(path, self.max_file_size))
    }

    /// Detect and parse `path`, whose decoded content `read` supplies (read
    /// from disk by [`Engine::load`], from bytes already in memory by
    /// [`ParseCache`]).
    pub(super) fn load_with(
        &self,
        path: &Path,
        forced: Option<&str>,
        read: impl FnOnce() -> Result<SourceText>,
    ) -> Result<ParsedFile> {
        // Decide by name first so that a `.png` is "unsupported", not "binary".
        let by_name = match forced {
            Some(_) => Some(self.language_for(path, None, forced)?),
            None => self.registry.detect(path, None).cloned(),
        };
        // A name another language may claim by content (`.h`) is known to
        // be code, but whose is decided by the text.
        let decided = forced.is_some() || !self.registry.decided_by_content(path);
        let source = match read() {
            Ok(s) => s,
            Err(e)
                if by_name.is_none()
                    && matches!(e.code(), ErrorCode::BinaryFile | ErrorCode::Encoding) =>
            {
                return Err(self.registry.unsupported(path));
            }
            Err(e) => return Err(e),
        };
        let lang = match by_name {
            Some(l) if decided => l,
            _ => self.language_for(path, Some(&source), None)?,
        };
        symbols::parse_within(&lang, Arc::new(source), self.parse_budget)
    }
}
