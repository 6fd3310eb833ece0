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
pub mod tokens;
pub mod units;
mod watch;

pub use answer::{Hit, SearchAnswer};
pub use live::{IndexStatus, LiveIndex, Watch};
pub use model::Model;
pub use rank::{Fusion, SearchRequest};
pub use units::Unit;

use crate::disk::{self};
use crate::engine::Engine;
use crate::source::SourceText;
use model::Quantized;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
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

#[derive(Debug, Clone)]
struct FileEntry {
    meta: FileMeta,
    units: Vec<u32>,
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

/// A file as saved: path, metadata, units with their vectors.
pub type SavedView<'a> = (
    &'a String,
    &'a FileMeta,
    Vec<(&'a Unit, Option<&'a Quantized>)>,
);

/// The in-memory index: units, their keyword postings and vectors.
#[derive(Default)]
pub struct Index {
    units: Vec<Option<Unit>>,
    vectors: Vec<Option<Quantized>>,
    files: HashMap<String, FileEntry>,
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
        self.files.len()
    }

    /// Units indexed.
    pub fn unit_count(&self) -> usize {
        self.bm25.live()
    }

    pub fn meta(&self, path: &str) -> Option<&FileMeta> {
        self.files.get(path).map(|f| &f.meta)
    }

    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.files.keys()
    }

    /// Replace what is known of one file.
    pub fn put(&mut self, file: FileUnits) {
        self.remove(&file.path);
        let mut ids = Vec::with_capacity(file.units.len());
        let mut vectors = file.vectors.into_iter();
        let mut counted = file.counted.into_iter();
        for u in file.units {
            let id = self.units.len() as u32;
            self.bm25
                .add_counted(id, counted.next().unwrap_or_else(|| count(&u)));
            self.units.push(Some(u));
            self.vectors.push(vectors.next().flatten());
            ids.push(id);
        }
        self.files.insert(
            file.path,
            FileEntry {
                meta: file.meta,
                units: ids,
            },
        );
    }

    /// Only the metadata changed (same content, touched).
    pub fn touch(&mut self, path: &str, meta: FileMeta) {
        if let Some(f) = self.files.get_mut(path) {
            f.meta = meta;
        }
    }

    /// Forget a file.
    pub fn remove(&mut self, path: &str) {
        if let Some(old) = self.files.remove(path) {
            for id in old.units {
                self.bm25.remove(id);
                self.units[id as usize] = None;
                self.vectors[id as usize] = None;
            }
        }
    }

    /// Every file with its units and vectors (for persisting).
    pub fn snapshot(&self) -> Vec<SavedView<'_>> {
        let mut v: Vec<_> = self
            .files
            .iter()
            .map(|(p, f)| {
                let units = f
                    .units
                    .iter()
                    .filter_map(|&id| {
                        let u = self.units[id as usize].as_ref()?;
                        Some((u, self.vectors[id as usize].as_ref()))
                    })
                    .collect();
                (p, &f.meta, units)
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(b.0));
        v
    }

    /// Embed the units that have no vector (a store saved with another
    /// model), on every core.
    pub fn embed_missing(&mut self, model: Option<&Model>) {
        let Some(m) = model else { return };
        use rayon::prelude::*;
        let units = &self.units;
        self.vectors
            .par_iter_mut()
            .enumerate()
            .filter(|(_, v)| v.is_none())
            .for_each(|(id, v)| {
                if let Some(u) = &units[id] {
                    *v = Some(Quantized::new(&m.embed(&embedding_text(u))));
                }
            });
    }

    /// Bytes held, by part (lengths and capacities; allocator overhead
    /// left out): unit records with their strings, file table, vectors,
    /// keyword index.
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        let s = |x: &String| x.capacity();
        let units: usize = self.units.capacity() * std::mem::size_of::<Option<Unit>>()
            + self
                .units
                .iter()
                .flatten()
                .map(|u| {
                    s(&u.path)
                        + s(&u.kind)
                        + s(&u.name)
                        + s(&u.name_path)
                        + u.parent.as_ref().map_or(0, s)
                        + s(&u.signature)
                        + s(&u.doc)
                        + s(&u.language)
                })
                .sum::<usize>();
        let bodies: usize = self.units.iter().flatten().map(|u| s(&u.body)).sum();
        let files: usize = self
            .files
            .iter()
            .map(|(p, f)| p.capacity() + f.meta.hash.capacity() + f.units.capacity() * 4 + 64)
            .sum();
        let vectors: usize = self.vectors.capacity() * std::mem::size_of::<Option<Quantized>>()
            + self
                .vectors
                .iter()
                .flatten()
                .map(|v| v.q.capacity())
                .sum::<usize>();
        let mut parts = vec![
            ("units", units),
            ("bodies", bodies),
            ("files", files),
            ("vectors", vectors),
        ];
        parts.extend(self.bm25.memory());
        parts
    }

    fn unit(&self, id: u32) -> Option<&Unit> {
        self.units.get(id as usize).and_then(Option::as_ref)
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
