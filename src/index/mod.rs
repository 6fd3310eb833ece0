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
pub mod phases;
pub mod rank;
pub mod tokens;
pub mod units;
mod watch;
mod wordpiece;

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

/// A unit's terms, counted for the keyword index: its fields are name
/// (name, name path, parent), path, signature + doc, body. Path and body
/// are tokenized where they lie (not copied).
pub fn count(u: &Unit) -> bm25::Counted {
    let name = match &u.parent {
        Some(p) => format!("{} {} {}", u.name, u.name_path, p),
        None => format!("{} {}", u.name, u.name_path),
    };
    let sig_doc = format!("{} {}", u.signature, u.doc);
    bm25::Counted::of([&name, &u.path, &sig_doc, &u.body])
}

/// Words of each part of the embedding text, at most: name path, file
/// name, signature, doc, head of the body.
const EMBED_WORDS: [usize; 5] = [16, 8, 32, 48, 96];

fn embedding_parts(u: &Unit) -> [&str; 5] {
    let file = u.path.rsplit('/').next().unwrap_or(&u.path);
    [&u.name_path, file, &u.signature, &u.doc, &u.body]
}

/// What the model embeds for a unit: its name, path, signature, doc and
/// the head of its body, as plain words.
pub fn embedding_text(u: &Unit) -> String {
    let p = embedding_parts(u);
    let w: Vec<String> = p
        .iter()
        .zip(EMBED_WORDS)
        .map(|(text, max)| tokens::plain_words(text, max))
        .collect();
    w.join(" ")
}

/// The tokens of a unit's [`embedding_text`], given to the model word by
/// word without building the text (and stopping where the tokenizer would
/// cut it).
pub fn unit_tokens<'m>(m: &'m Model, u: &Unit) -> model::Tokens<'m> {
    let mut t = m.tokens();
    let mut buf = String::new();
    for (text, max) in embedding_parts(u).iter().zip(EMBED_WORDS) {
        if !tokens::for_each_plain_word(text, max, &mut buf, |w| t.push(w)) {
            break;
        }
    }
    t
}

/// A unit's embedding, quantized.
pub fn embed_unit(m: &Model, u: &Unit) -> Quantized {
    let v = if m.has_fast_tokenizer() {
        unit_tokens(m, u).embed()
    } else {
        m.embed(&embedding_text(u))
    };
    Quantized::new(&v)
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
                    *v = Some(embed_unit(m, u));
                }
            });
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
    use phases::{Phase, time};
    let source = match time(Phase::Read, || disk::read_source(abs, MAX_INDEXED_FILE)) {
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
    let vectors = time(Phase::Embed, || embed_all(model, &units));
    let counted = time(Phase::Count, || units.iter().map(count).collect());
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
        Some(m) => units.iter().map(|u| Some(embed_unit(m, u))).collect(),
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
    use phases::{Phase, time};
    match engine.language_for(abs, Some(&source), None) {
        Ok(lang) => {
            let deadline = engine.parse_budget.deadline(source.body().len());
            let Ok(tree) = time(Phase::Parse, || {
                crate::symbols::parse_tree_within(&lang, source.body(), None, deadline)
            }) else {
                return Vec::new();
            };
            let parsed = time(Phase::Tags, || {
                crate::symbols::outline_within(&lang, Arc::new(source), tree, deadline)
            });
            match parsed {
                Ok(parsed) => time(Phase::Units, || units::units_of_parsed(&parsed, rel)),
                Err(_) => Vec::new(),
            }
        }
        Err(_) => time(Phase::Units, || units::units_of_text(&source.text, rel)),
    }
}
