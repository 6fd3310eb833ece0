//! What both operations show a server first: the definition's file and the
//! position of its name, and every file that mentions the name (opened in
//! the server, so a server that only knows open files sees them).

use crate::disk::grep::{GrepQuery, matching_files};
use crate::disk::{Purpose, Workspace};
use crate::lang::Registry;
use crate::lsp::client::Client;
use crate::lsp::convert;
use crate::lsp::transport::Failure;
use crate::refs::RefsRequest;
use crate::symbols::{self, ParsedFile, Symbol};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files that mention the name opened in the server at most.
const MAX_OPENED: usize = 500;

pub(crate) struct Target {
    pub path: PathBuf,
    pub display: String,
    pub file: Arc<ParsedFile>,
    pub symbol: Symbol,
    /// Byte offset of the name in the file's body.
    pub at: usize,
    /// The other files that mention the name: path and parse.
    pub others: Vec<(PathBuf, String, Arc<ParsedFile>)>,
}

pub(crate) type Load<'a> = &'a (dyn Fn(&Path) -> crate::error::Result<Arc<ParsedFile>> + Sync);

impl Target {
    /// The definition `req` names, or `None` when anything about it is
    /// wrong (the syntax backend then answers, with its own errors).
    /// Nothing is parsed unless a server may answer (`servers.may_answer`).
    pub fn find(
        servers: &crate::lsp::Servers,
        ws: &Workspace,
        registry: &Registry,
        req: &RefsRequest,
        load: Load,
    ) -> Option<Target> {
        let (Some(path), Some(sym), None) = (&req.path, &req.symbol, &req.name) else {
            return None;
        };
        let resolved = ws.resolve(Path::new(path), Purpose::Read).ok()?;
        if !servers.may_answer(registry.detect(&resolved.path, None)?) {
            return None;
        }
        let cancel = crate::symbols::Cancel::current();
        let file = load(&resolved.path).ok()?;
        let symbol = symbols::resolve(&file.symbols, sym, req.kind.as_deref())
            .ok()?
            .clone();
        let body = file.source.body();
        let lines = symbols::occurrences::LineStarts::new(body);
        // The name on its line, at or after the definition's start.
        let at = symbols::occurrences::word_offsets(body, &symbol.name)
            .into_iter()
            .find(|&b| b >= symbol.start_byte && lines.position(body, b).0 == symbol.name_line)?;
        // The files naming the symbol, and for a member those naming its
        // owner too (where an instance is made or typed: a rename that
        // breaks the owner's contract shows there).
        let mut names = vec![symbol.name.clone()];
        if crate::refs::MEMBER_KINDS.contains(&symbol.kind)
            && let [.., owner, _] = symbol.segments.as_slice()
        {
            names.push(owner.clone());
        }
        let server = file.language.config.lsp.as_ref().map(|c| &c.command);
        let mut others: Vec<(PathBuf, String, Arc<ParsedFile>)> = Vec::new();
        for name in names {
            let words = [name];
            let matcher = crate::text::KeywordMatcher::keywords(&words, true, true).ok()?;
            let query = GrepQuery {
                matcher: &matcher,
                path: None,
                include: &req.include,
                exclude: &req.exclude,
                hidden: false,
                context: 0,
                per_file: 1,
                max_size: ws.max_file_size(),
            };
            for path in matching_files(ws.root(), &query, MAX_OPENED, Default::default())
                .ok()?
                .0
            {
                if cancel.is_set() {
                    return None;
                }
                let Ok(r) = ws.resolve(Path::new(&path), Purpose::Read) else {
                    continue;
                };
                if r.path == resolved.path || others.iter().any(|o| o.0 == r.path) {
                    continue;
                }
                let same_server = registry.detect(&r.path, None).is_some_and(|l| {
                    l.name() == file.language.name()
                        || (server.is_some() && l.config.lsp.as_ref().map(|c| &c.command) == server)
                });
                if same_server && let Ok(p) = load(&r.path) {
                    others.push((r.path, r.display, p));
                }
            }
        }
        Some(Target {
            path: resolved.path,
            display: resolved.display,
            file,
            symbol,
            at,
            others,
        })
    }

    /// Every file (the definition's first): path, display, parse.
    pub fn files(&self) -> impl Iterator<Item = (&Path, &str, &Arc<ParsedFile>)> {
        std::iter::once((self.path.as_path(), self.display.as_str(), &self.file)).chain(
            self.others
                .iter()
                .map(|(p, d, f)| (p.as_path(), d.as_str(), f)),
        )
    }

    /// Show the server every file as it is on disk.
    pub fn sync(&self, c: &mut Client) -> Result<(), Failure> {
        for (p, _, f) in self.files() {
            c.sync(p, f.source.body(), language_id(f))?;
        }
        Ok(())
    }

    /// `textDocument` and `position` of the name.
    pub fn position(&self) -> serde_json::Value {
        serde_json::json!({
            "textDocument": {"uri": convert::uri(&self.path)},
            "position": convert::position(self.file.source.body(), self.at),
        })
    }
}

/// The `languageId` a file is opened with.
pub(crate) fn language_id(f: &ParsedFile) -> &str {
    f.language
        .config
        .lsp
        .as_ref()
        .map_or(f.language.name(), |c| c.language_id.as_str())
}
