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
mod rows;
mod table;
pub mod tokens;
pub mod units;
mod vectors;
mod watch;
mod wordpiece;

pub use answer::{Hit, SearchAnswer};
pub use live::{IndexStatus, LiveIndex, Watch};
pub use model::Model;
pub use rank::{Fusion, SearchRequest};
pub use table::UnitRef;
pub use units::Unit;

use crate::disk::{self};
use crate::ops::engine::Engine;
use crate::source::SourceText;
use model::Quantized;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Whether `bytes` are a whole, consistent saved index of this format:
/// what a load accepts (`tests/store_fuzz.rs` drives the decoder through
/// it with random and damaged stores). The vector records at its end are
/// data a load does not read: only their size is checked.
pub fn store_is_whole(bytes: &[u8]) -> bool {
    format::decode_prefix(bytes, bytes.len() as u64, None).is_some()
}

/// Whether the fixed header `head` of a store of `len` bytes is of this
/// format and declares sizes such a file can hold: what a load checks
/// before it reads the rest.
pub fn store_header_fits(head: &[u8], len: u64) -> bool {
    format::header(head, len).is_some()
}

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
/// their vectors (`vectors.rs`: sign bits in memory, int8 in the store) and keyword index (`bm25.rs`:
/// flat postings). Unit ids are shared by the three and never reused
/// while the index is in memory; a save renumbers them densely.
#[derive(Default)]
pub struct Index {
    table: table::Table,
    vectors: vectors::Vectors,
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
    embedding_words(u).join(" ")
}

/// Each part of [`embedding_text`] on its own (name path, file name,
/// signature, doc, head of the body): `scalpel parse --dump-units` shows
/// them, and a model is trained on them (`benches/code_model/`).
pub fn embedding_words(u: &Unit) -> [String; 5] {
    let p = embedding_parts(u);
    std::array::from_fn(|i| tokens::plain_words(p[i], EMBED_WORDS[i]))
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

    /// Whether the saved store the vectors are read from changed or could
    /// not be read (see `vectors.rs`).
    pub fn vectors_lost(&self) -> bool {
        self.vectors.lost()
    }

    /// When the store the vectors are read from was found changed: let
    /// it go and set every file's mtime to 0 ("unknown"), so that the next
    /// refresh reads and embeds them all again (`true` the first time).
    /// Their hashes are kept: the files did not change, so a search still
    /// shows their snippets meanwhile, and the refresh re-embeds a file
    /// whose hash is the same because its mtime says unknown
    /// (`live::LiveIndex::refresh`).
    pub fn let_go_of_lost_store(&mut self) -> bool {
        if !self.vectors.let_go_of_lost_store() {
            return false;
        }
        self.table.let_go_of_store();
        for f in self.table.files_mut() {
            f.meta.mtime = 0;
        }
        true
    }

    /// Unit `id`, unless removed.
    pub fn unit(&self, id: u32) -> Option<UnitRef<'_>> {
        self.table.get(id)
    }

    /// Unit `id`'s signature and doc sentence (see [`table::Table::summary`]).
    pub fn summary(&self, id: u32) -> Option<table::Summary<'_>> {
        self.table.summary(id)
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
