//! The search index behind `search_codebase` and `scalpel find`: code units
//! (`units.rs`) from the symbol engine, a BM25F keyword index over their
//! fields (`bm25.rs`, tokenizer in `tokens.rs`), static embeddings
//! (`model.rs`), fusion with a structural layer (`rank.rs`), answers with
//! summaries and bounded snippets (`answer.rs`), and the live index kept
//! under `ROOT/.scalpel/index/` (a binary store, `format.rs`) and fresh by a
//! watcher and by Scalpel's own writes (`live.rs`, `watch.rs`).
//!
//! **Invariant:** the order of results never depends on the result limit
//! (ties break by path and line), and one file never fills more than
//! [`rank::PER_FILE`] places.

pub mod answer;
pub mod bm25;
mod format;
pub mod live;
pub mod model;
pub mod rank;
mod table;
pub mod tokens;
pub mod units;
mod vectors;
mod watch;

pub use answer::{Hit, SearchAnswer};
pub use live::{IndexStatus, LiveIndex, Watch};
pub use model::Model;
pub use rank::{Fusion, SearchRequest};
pub use table::UnitRef;
pub use units::Unit;

use crate::disk::{self};
use crate::engine::Engine;
use crate::source::SourceText;
use model::Quantized;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Files larger than this are not indexed (generated data, bundles).
pub const MAX_INDEXED_FILE: u64 = 2 * 1024 * 1024;
/// A file whose longest line is longer than this is minified or generated:
/// not indexed.
const MAX_LINE: usize = 8 * 1024;

/// What the index knows of one file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileMeta {
    pub hash: String,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (0: unknown).
    pub mtime: u128,
}

/// The units of a file, ready to go into the index (computed without the
/// index lock).
pub struct FileUnits {
    pub path: String,
    pub meta: FileMeta,
    pub units: Vec<Unit>,
    pub vectors: Vec<Option<Quantized>>,
    /// The units' terms, counted (empty: counted when put in the index).
    pub counted: Vec<bm25::Counted>,
}

/// The in-memory index: units (`table.rs`: compact rows, no bodies),
/// their vectors (`vectors.rs`: flat int8) and keyword index (`bm25.rs`:
/// flat postings). Unit ids are shared by the three and never reused
/// while the index is in memory; a save renumbers them densely.
#[derive(Default)]
pub struct Index {
    table: table::Table,
    vectors: vectors::Vectors,
    bm25: bm25::Bm25,
}

/// The fields of a unit as the keyword index sees them.
fn fields(u: &Unit) -> [String; bm25::FIELDS] {
    let name = match &u.parent {
        Some(p) => format!("{} {} {}", u.name, u.name_path, p),
        None => format!("{} {}", u.name, u.name_path),
    };
    [
        name,
        u.path.clone(),
        format!("{} {}", u.signature, u.doc),
        u.body.clone(),
    ]
}

/// A unit's terms, counted for the keyword index.
pub fn count(u: &Unit) -> bm25::Counted {
    let f = fields(u);
    bm25::Counted::of([&f[0], &f[1], &f[2], &f[3]])
}

/// What the model embeds for a unit: its name, path, signature, doc and
/// the head of its body, as plain words.
pub fn embedding_text(u: &Unit) -> String {
    let file = u.path.rsplit('/').next().unwrap_or(&u.path);
    format!(
        "{} {} {} {} {}",
        tokens::plain_words(&u.name_path, 16),
        tokens::plain_words(file, 8),
        tokens::plain_words(&u.signature, 32),
        tokens::plain_words(&u.doc, 48),
        tokens::plain_words(&u.body, 96)
    )
}

impl Index {
    /// Files indexed.
    pub fn file_count(&self) -> usize {
        self.table.file_count()
    }

    /// Units indexed.
    pub fn unit_count(&self) -> usize {
        self.bm25.live()
    }

    pub fn meta(&self, path: &str) -> Option<&FileMeta> {
        self.table.file(path).map(|f| &f.meta)
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.table.files().map(|f| &*f.path)
    }

    /// Replace what is known of one file.
    pub fn put(&mut self, file: FileUnits) {
        self.remove(&file.path);
        let fid = self.table.add_file(&file.path, file.meta);
        let mut vectors = file.vectors.into_iter();
        let mut counted = file.counted.into_iter();
        for u in file.units {
            let id = self.table.push_unit(fid, &u);
            self.bm25
                .add_counted(id, counted.next().unwrap_or_else(|| count(&u)));
            self.vectors.push(vectors.next().flatten().as_ref());
        }
    }

    /// Only the metadata changed (same content, touched).
    pub fn touch(&mut self, path: &str, meta: FileMeta) {
        if let Some(f) = self.table.file_mut(path) {
            f.meta = meta;
        }
    }

    /// Forget a file.
    pub fn remove(&mut self, path: &str) {
        if let Some(ids) = self.table.forget_file(path) {
            for id in ids {
                self.bm25.remove(id);
                self.vectors.remove(id);
            }
        }
    }

    /// Merge what was added since the last seal into the keyword index's
    /// flat arrays (after a refresh).
    pub fn seal(&mut self) {
        self.bm25.seal();
    }

    /// Vectors made by another model are dropped, and every file is marked
    /// as read by nobody, so that the next refresh cuts and embeds it
    /// again (bodies are not kept: there is nothing to embed from here).
    /// Keyword search works meanwhile.
    pub fn forget_vectors(&mut self) {
        self.vectors.clear();
        for f in self.table.files_mut() {
            f.meta.hash.clear();
            f.meta.mtime = 0;
        }
    }

    /// Bytes held, by part (lengths and capacities; allocator overhead
    /// left out).
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        let mut parts = self.table.memory();
        parts.push(("vectors", self.vectors.memory()));
        parts.extend(self.bm25.memory());
        parts
    }

    /// Unit `id`, unless removed.
    pub fn unit(&self, id: u32) -> Option<UnitRef<'_>> {
        self.table.get(id)
    }

    /// The lines of unit `id`'s body (see [`table::Table::body_lines`]).
    pub fn body_lines(&self, id: u32) -> Vec<(usize, usize)> {
        self.table.body_lines(id)
    }
}

/// What reading a file found.
pub enum Read {
    /// Same content as `known_hash`: only its metadata is new (path, meta).
    Same((String, FileMeta)),
    /// New content, cut into units (none for a file the index skips:
    /// binary, not UTF-8, too large, minified).
    New(FileUnits),
}

/// Read one file and, unless its hash is `known_hash`, cut it into units
/// (and embed them with `model`).
pub fn read_file(
    engine: &Engine,
    model: Option<&Model>,
    abs: &Path,
    rel: &str,
    meta: FileMeta,
    known_hash: Option<&str>,
) -> crate::Result<Read> {
    let empty = |meta| {
        Read::New(FileUnits {
            path: rel.to_string(),
            meta,
            units: Vec::new(),
            vectors: Vec::new(),
            counted: Vec::new(),
        })
    };
    let source = match disk::read_source(abs, MAX_INDEXED_FILE) {
        Ok(s) => s,
        Err(e) if e.code() == crate::ErrorCode::Io || e.code() == crate::ErrorCode::NotFound => {
            return Err(e);
        }
        Err(_) => return Ok(empty(meta)),
    };
    let meta = FileMeta {
        hash: source.hash.clone(),
        ..meta
    };
    if known_hash == Some(meta.hash.as_str()) {
        return Ok(Read::Same((rel.to_string(), meta)));
    }
    let units = units_for(engine, abs, rel, source);
    let vectors = embed_all(model, &units);
    let counted = units.iter().map(count).collect();
    Ok(Read::New(FileUnits {
        path: rel.to_string(),
        meta,
        units,
        vectors,
        counted,
    }))
}

/// The vectors of `units` (`None` each without a model).
pub fn embed_all(model: Option<&Model>, units: &[Unit]) -> Vec<Option<Quantized>> {
    match model {
        Some(m) => units
            .iter()
            .map(|u| Some(Quantized::new(&m.embed(&embedding_text(u)))))
            .collect(),
        None => vec![None; units.len()],
    }
}

fn units_for(engine: &Engine, abs: &Path, rel: &str, source: SourceText) -> Vec<Unit> {
    let longest = source
        .text
        .split('\n')
        .map(str::len)
        .max()
        .unwrap_or_default();
    if longest > MAX_LINE {
        return Vec::new();
    }
    match engine.language_for(abs, Some(&source), None) {
        Ok(lang) => {
            match crate::symbols::parse_within(&lang, Arc::new(source), engine.parse_budget) {
                Ok(parsed) => units::units_of_parsed(&parsed, rel),
                Err(_) => Vec::new(),
            }
        }
        Err(_) => units::units_of_text(&source.text, rel),
    }
}
