//! The units as the index keeps them in memory: one fixed-size row per
//! unit, their strings one after the other in one arena, kinds and
//! languages interned, each file's path and metadata once in the file
//! table (its units are consecutive ids). No body text: what ranking and
//! answers need is the name, name path, parent, the signature's first
//! [`SIGNATURE_CHARS`] characters and the doc's first sentence; a snippet
//! reads the unit's lines from the file ([`Table::body_lines`], and
//! `answer.rs`). Few, large allocations: a warm start decodes straight
//! into these arrays.
//!
//! The summary strings (signature head and doc sentence: more than half
//! the strings' bytes, read only for the few units an answer shows) of a
//! unit that is in the saved store stay there and are read back through the
//! store's open handle ([`Table::summary`]), as its int8 vector is; a unit
//! added since the last save keeps them in memory until the next save.
//! A store found changed or unreadable gives empty summaries (the next
//! refresh cuts those files again, see `vectors.rs`).

use super::FileMeta;
use super::units::{Flags, Unit, first_sentence};
use super::vectors::Saved;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// Characters of a signature kept (what a summary shows).
pub const SIGNATURE_CHARS: usize = 120;
/// Bytes of the doc comment's first sentence kept (what a summary shows).
pub const DOC_BYTES: usize = 160;
/// Strings of a row: name, name path, parent, signature, doc sentence.
pub const STRINGS: usize = 5;
/// A row's file when the unit was removed.
const REMOVED: u32 = u32::MAX;
/// The flags' bits; the sixth says the unit has a parent.
const HAS_PARENT: u8 = 1 << 5;
/// The name is the end of the name path (not in the arena of its own).
const NAME_IN_PATH: u8 = 1 << 6;
/// The parent is the start of the name path (not in the arena of its own).
const PARENT_IN_PATH: u8 = 1 << 7;
/// Bits of a row's flags that are not the unit's [`Flags`].
const LAYOUT: u8 = HAS_PARENT | NAME_IN_PATH | PARENT_IN_PATH;
/// A row's `summary` when its signature and doc are in the arena (else
/// the store's offset of its signature's bytes, the doc's length and bytes
/// right after them, as `format.rs` writes a unit).
const IN_ARENA: u32 = u32::MAX;

/// The row offset of a summary at `at` in the store, when it can be one
/// (`None`: past 4 GiB, then the summary is kept in memory).
pub fn saved_summary_at(at: usize) -> Option<u32> {
    u32::try_from(at).ok().filter(|&a| a != IN_ARENA)
}

/// One unit: 40 bytes, its strings in the arena: the name path, then the
/// name and the parent unless they are the end and the start of the name
/// path (`a.b.c`: name `c`, parent `a.b`, as most are: only the name path
/// is kept), then the signature and the doc sentence unless they are in
/// the store (`summary`).
#[derive(Debug, Clone, Copy)]
struct Row {
    file: u32,
    start_line: u32,
    end_line: u32,
    text: u32,
    summary: u32,
    lens: [u16; STRINGS],
    kind: u16,
    language: u16,
    flags: u8,
    part: u16,
}

impl Row {
    /// Bytes of the arena the row's name path, name and parent take.
    fn names_len(&self) -> usize {
        let [name, path, parent, _, _] = self.lens.map(usize::from);
        let name = if self.flags & NAME_IN_PATH != 0 {
            0
        } else {
            name
        };
        let parent = if self.flags & PARENT_IN_PATH != 0 {
            0
        } else {
            parent
        };
        path + name + parent
    }

    /// Bytes of the arena the row's strings take.
    fn arena_len(&self) -> usize {
        self.names_len()
            + if self.summary == IN_ARENA {
                self.summary_len()
            } else {
                0
            }
    }

    /// Bytes of the signature and the doc sentence.
    fn summary_len(&self) -> usize {
        self.lens[3] as usize + self.lens[4] as usize
    }
}

/// A unit as ranking and answers see it (borrowed from the table).
#[derive(Debug, Clone, Copy)]
pub struct UnitRef<'a> {
    pub path: &'a str,
    pub start_line: usize,
    pub end_line: usize,
    pub kind: &'a str,
    pub name: &'a str,
    pub name_path: &'a str,
    pub parent: Option<&'a str>,
    pub language: &'a str,
    pub flags: Flags,
    pub part: u16,
}

/// A unit's signature (its first [`SIGNATURE_CHARS`] characters) and doc
/// comment's first sentence (at most [`DOC_BYTES`]): empty when they are
/// in a store that can no longer be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary<'a> {
    pub signature: Cow<'a, str>,
    pub doc: Cow<'a, str>,
}

/// The window of the store [`Table::summary_in`] reads through: units are
/// read in store order by a save, so one read serves many.
#[derive(Default)]
pub struct SummaryWindow {
    at: u64,
    bytes: Vec<u8>,
}

/// Bytes a [`SummaryWindow`] reads at once.
const WINDOW: usize = 64 * 1024;

/// What a unit is saved and loaded as (the strings already cut).
pub struct RowParts<'a> {
    pub start_line: u32,
    pub end_line: u32,
    pub kind: &'a str,
    pub language: &'a str,
    /// Name, name path, parent (`None`: none), signature, doc sentence.
    pub strings: [&'a str; STRINGS],
    pub has_parent: bool,
    pub flags: u8,
    pub part: u16,
}

/// One file: its path, metadata and units (ids `first..first + count`).
#[derive(Debug, Clone)]
pub struct FileSlot {
    pub path: Box<str>,
    pub meta: FileMeta,
    pub first: u32,
    pub count: u32,
}

#[derive(Default)]
pub struct Table {
    rows: Vec<Row>,
    text: String,
    /// Bytes of the arena held by removed units.
    garbage: usize,
    kinds: Vec<Box<str>>,
    languages: Vec<Box<str>>,
    files: Vec<Option<FileSlot>>,
    free: Vec<u32>,
    by_path: HashMap<Box<str>, u32>,
    /// The saved store the summaries not in the arena are read from.
    store: Option<Arc<Saved>>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("units", &self.rows.len())
            .field("files", &self.by_path.len())
            .field("store", &self.store.is_some())
            .finish()
    }
}

/// `s` cut to at most `max` bytes, at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Interned name `i` (past the end: the last one, see [`intern`]).
fn name_at(t: &[Box<str>], i: u16) -> &str {
    t.get(i as usize).or(t.last()).map_or("", |s| s)
}

fn intern(table: &mut Vec<Box<str>>, s: &str) -> u16 {
    match table.iter().position(|k| &**k == s) {
        Some(i) => i as u16,
        // More than 65,535 kinds or languages cannot happen (they come
        // from the grammars); past that, the last one stands for the rest.
        None if table.len() > u16::MAX as usize => u16::MAX,
        None => {
            table.push(s.into());
            (table.len() - 1) as u16
        }
    }
}

/// The flags as one byte (the store's and the row's form).
pub fn flag_bits(f: Flags) -> u8 {
    f.test as u8
        | (f.example as u8) << 1
        | (f.vendored as u8) << 2
        | (f.dts as u8) << 3
        | (f.exported as u8) << 4
}

fn flags_of(bits: u8) -> Flags {
    Flags {
        test: bits & 1 != 0,
        example: bits & 2 != 0,
        vendored: bits & 4 != 0,
        dts: bits & 8 != 0,
        exported: bits & 16 != 0,
    }
}

impl Table {
    /// Room for `units` more units and `files` more files (`None` when
    /// the memory cannot be had: sizes come from a store on disk).
    pub fn reserve(&mut self, units: usize, files: usize, text: usize) -> Option<()> {
        self.rows.try_reserve_exact(units).ok()?;
        self.files.try_reserve_exact(files).ok()?;
        self.by_path.try_reserve(files).ok()?;
        self.text.try_reserve_exact(text).ok()
    }

    /// Add a file (its path must not be in the table): its id.
    pub fn add_file(&mut self, path: &str, meta: FileMeta) -> u32 {
        let slot = FileSlot {
            path: path.into(),
            meta,
            first: self.rows.len() as u32,
            count: 0,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.files[id as usize] = Some(slot);
                id
            }
            None => {
                self.files.push(Some(slot));
                (self.files.len() - 1) as u32
            }
        };
        self.by_path.insert(path.into(), id);
        id
    }

    /// Add a unit of file `file` (the last file added: a file's units are
    /// consecutive): its id.
    pub fn push(&mut self, file: u32, p: &RowParts) -> u32 {
        self.push_at(file, p, IN_ARENA)
    }

    /// [`Table::push`] for a unit of the store whose signature's bytes are
    /// at `summary_at` in it (the doc's length and bytes right after):
    /// they are read from there, and not kept; `p`'s signature and doc
    /// are not read, `summary_lens` gives their lengths. Its UTF-8 is
    /// checked when a summary is read ([`Table::summary_in`]). The offset
    /// is one [`saved_summary_at`] gave.
    pub fn push_saved(
        &mut self,
        file: u32,
        p: &RowParts,
        summary_at: u32,
        summary_lens: [u16; 2],
    ) -> u32 {
        let id = self.push_at(file, p, summary_at);
        let lens = &mut self.rows[id as usize].lens;
        [lens[3], lens[4]] = summary_lens;
        id
    }

    fn push_at(&mut self, file: u32, p: &RowParts, summary: u32) -> u32 {
        let id = self.rows.len() as u32;
        let text = self.text.len() as u32;
        let [name, path, parent, sig, doc] = p.strings.map(|s| cut(s, u16::MAX as usize));
        let mut layout = if p.has_parent { HAS_PARENT } else { 0 };
        self.text.push_str(path);
        if path.ends_with(name) {
            layout |= NAME_IN_PATH;
        } else {
            self.text.push_str(name);
        }
        if p.has_parent && path.starts_with(parent) {
            layout |= PARENT_IN_PATH;
        } else {
            self.text.push_str(parent);
        }
        if summary == IN_ARENA {
            self.text.push_str(sig);
            self.text.push_str(doc);
        }
        let lens = [name, path, parent, sig, doc].map(|s| s.len() as u16);
        let row = Row {
            file,
            start_line: p.start_line,
            end_line: p.end_line,
            text,
            summary,
            lens,
            kind: intern(&mut self.kinds, p.kind),
            language: intern(&mut self.languages, p.language),
            flags: (p.flags & !LAYOUT) | layout,
            part: p.part,
        };
        self.rows.push(row);
        if let Some(Some(f)) = self.files.get_mut(file as usize) {
            f.count += 1;
        }
        id
    }

    /// Add a unit cut by `units.rs` (its body is not kept).
    pub fn push_unit(&mut self, file: u32, u: &Unit) -> u32 {
        let sig_end = u
            .signature
            .char_indices()
            .nth(SIGNATURE_CHARS)
            .map_or(u.signature.len(), |(i, _)| i);
        self.push(
            file,
            &RowParts {
                start_line: u32::try_from(u.start_line).unwrap_or(u32::MAX),
                end_line: u32::try_from(u.end_line).unwrap_or(u32::MAX),
                kind: &u.kind,
                language: &u.language,
                strings: [
                    &u.name,
                    &u.name_path,
                    u.parent.as_deref().unwrap_or(""),
                    &u.signature[..sig_end],
                    first_sentence(&u.doc, DOC_BYTES),
                ],
                has_parent: u.parent.is_some(),
                flags: flag_bits(u.flags),
                part: u.part,
            },
        )
    }

    /// Forget a file: the ids its units had.
    pub fn forget_file(&mut self, path: &str) -> Option<Range<u32>> {
        let id = self.by_path.remove(path)?;
        let slot = self.files.get_mut(id as usize)?.take()?;
        self.free.push(id);
        let ids = slot.first..slot.first + slot.count;
        for r in &mut self.rows[ids.start as usize..ids.end as usize] {
            r.file = REMOVED;
            self.garbage += r.arena_len();
        }
        if self.garbage > 1 << 20 && self.garbage > self.text.len() / 2 {
            self.compact_text();
        }
        Some(ids)
    }

    /// Copy the strings of live units into a new arena (removed units'
    /// strings dropped).
    fn compact_text(&mut self) {
        self.rebuild_arena(|_, r| r.summary);
    }

    /// Copy the strings of live units into a new arena, row `id`'s
    /// summary going to `summary(id, row)` (`IN_ARENA`: kept in memory,
    /// copied from the store when it was there; else the store's offset).
    fn rebuild_arena(&mut self, summary: impl Fn(usize, &Row) -> u32) {
        let mut text = String::with_capacity(self.text.len().saturating_sub(self.garbage));
        let mut window = SummaryWindow::default();
        for id in 0..self.rows.len() {
            let r = self.rows[id];
            if r.file == REMOVED {
                self.rows[id].lens = [0; STRINGS];
                self.rows[id].text = 0;
                self.rows[id].summary = IN_ARENA;
                continue;
            }
            let to = summary(id, &r);
            let new = text.len() as u32;
            let at = r.text as usize;
            text.push_str(self.text.get(at..at + r.names_len()).unwrap_or_default());
            let mut lens = r.lens;
            if to == IN_ARENA {
                let s = self.summary_of(&r, &mut window);
                text.push_str(&s.signature);
                text.push_str(&s.doc);
                lens[3] = s.signature.len() as u16;
                lens[4] = s.doc.len() as u16;
            }
            let row = &mut self.rows[id];
            row.text = new;
            row.summary = to;
            row.lens = lens;
        }
        self.text = text;
        self.garbage = 0;
    }

    /// The strings kept in memory.
    #[cfg(test)]
    pub fn arena(&self) -> &str {
        &self.text
    }

    /// Read the summaries of saved units from `store` from now on.
    pub fn attach(&mut self, store: Arc<Saved>) {
        self.store = Some(store);
    }

    /// After a save: unit `id` is record `remap[id]` of the new store
    /// `store` (`u32::MAX`: not saved), whose summary is at
    /// `summary_at[record]` in it; the arena keeps the summaries of units
    /// added since the save began.
    pub fn saved(&mut self, store: Arc<Saved>, remap: &[u32], summary_at: &[u64]) {
        let to = |id: usize| -> Option<u32> {
            let n = *remap.get(id)?;
            saved_summary_at(usize::try_from(*summary_at.get(n as usize)?).ok()?)
        };
        // Summaries that stay in memory are copied from the old store if
        // they were there (none: every live unit is saved).
        self.rebuild_arena(|id, _| to(id).unwrap_or(IN_ARENA));
        self.store = Some(store);
    }

    /// Let go of a store found changed: the summaries read from it are
    /// empty until the files are cut again.
    pub fn let_go_of_store(&mut self) {
        self.store = None;
    }

    pub fn file(&self, path: &str) -> Option<&FileSlot> {
        let id = *self.by_path.get(path)?;
        self.files.get(id as usize)?.as_ref()
    }

    pub fn file_mut(&mut self, path: &str) -> Option<&mut FileSlot> {
        let id = *self.by_path.get(path)?;
        self.files.get_mut(id as usize)?.as_mut()
    }

    /// Every file, in no order.
    pub fn files(&self) -> impl Iterator<Item = &FileSlot> {
        self.files.iter().flatten()
    }

    pub fn files_mut(&mut self) -> impl Iterator<Item = &mut FileSlot> {
        self.files.iter_mut().flatten()
    }

    pub fn file_count(&self) -> usize {
        self.by_path.len()
    }

    /// Rows, removed ones included (the next unit's id).
    pub fn slots(&self) -> usize {
        self.rows.len()
    }

    fn live_row(&self, id: u32) -> Option<&Row> {
        self.rows.get(id as usize).filter(|r| r.file != REMOVED)
    }

    fn path_of(&self, r: &Row) -> Option<&str> {
        Some(&self.files.get(r.file as usize)?.as_ref()?.path)
    }

    /// The path and first line of a unit (the order of ties).
    pub fn key(&self, id: u32) -> Option<(&str, u32)> {
        let r = self.live_row(id)?;
        Some((self.path_of(r)?, r.start_line))
    }

    /// The unit `id`, unless removed.
    pub fn get(&self, id: u32) -> Option<UnitRef<'_>> {
        let r = self.live_row(id)?;
        let [name_len, path_len, parent_len, _, _] = r.lens.map(usize::from);
        let mut at = r.text as usize;
        let mut next = |len: usize| {
            let s = self.text.get(at..at + len);
            at += len;
            s
        };
        let name_path = next(path_len)?;
        let name = match r.flags & NAME_IN_PATH {
            0 => next(name_len)?,
            _ => name_path.get(path_len.checked_sub(name_len)?..)?,
        };
        let parent = match r.flags & PARENT_IN_PATH {
            0 => next(parent_len)?,
            _ => name_path.get(..parent_len)?,
        };
        Some(UnitRef {
            path: self.path_of(r)?,
            start_line: r.start_line as usize,
            end_line: r.end_line as usize,
            kind: name_at(&self.kinds, r.kind),
            name,
            name_path,
            parent: (r.flags & HAS_PARENT != 0).then_some(parent),
            language: name_at(&self.languages, r.language),
            flags: flags_of(r.flags & !LAYOUT),
            part: r.part,
        })
    }

    /// Unit `id`'s signature and doc sentence, from the arena or the store
    /// (`None`: removed).
    pub fn summary(&self, id: u32) -> Option<Summary<'_>> {
        self.summary_in(id, &mut SummaryWindow::default())
    }

    /// [`Table::summary`], reading the store through `window`.
    pub fn summary_in(&self, id: u32, window: &mut SummaryWindow) -> Option<Summary<'_>> {
        let r = self.live_row(id)?;
        Some(self.summary_of(r, window))
    }

    fn summary_of(&self, r: &Row, window: &mut SummaryWindow) -> Summary<'_> {
        let [_, _, _, sig, doc] = r.lens.map(usize::from);
        if r.summary == IN_ARENA {
            let at = r.text as usize + r.names_len();
            let text = |a: usize, n: usize| Cow::Borrowed(self.text.get(a..a + n).unwrap_or(""));
            return Summary {
                signature: text(at, sig),
                doc: text(at + sig, doc),
            };
        }
        // Signature bytes, the doc's length, the doc's bytes.
        let len = sig + 2 + doc;
        let Some(bytes) = self.read_store(r.summary as u64, len, window) else {
            return Summary::default();
        };
        let utf8 = |b: &[u8]| -> Option<Cow<'_, str>> {
            std::str::from_utf8(b)
                .ok()
                .map(|s| Cow::Owned(s.to_string()))
        };
        let doc_len = u16::from_le_bytes([bytes[sig], bytes[sig + 1]]) as usize;
        match (utf8(&bytes[..sig]), utf8(&bytes[sig + 2..])) {
            (Some(signature), Some(doc)) if doc_len == doc.len() => Summary { signature, doc },
            _ => Summary::default(),
        }
    }

    /// `len` bytes of the store at `at`, through `window` (`None`: no
    /// store, or it changed or cannot be read).
    fn read_store<'w>(
        &self,
        at: u64,
        len: usize,
        window: &'w mut SummaryWindow,
    ) -> Option<&'w [u8]> {
        let store = self.store.as_ref()?;
        let end = at.checked_add(len as u64)?;
        let inside = at >= window.at && end <= window.at + window.bytes.len() as u64;
        if !inside {
            // Summaries lie before the vector records: the window stops
            // there, so it never reads past the end of the store.
            let room = store.vectors_at().saturating_sub(at);
            let n = (WINDOW as u64).min(room).max(len as u64) as usize;
            window.bytes.clear();
            window.bytes.resize(n, 0);
            window.at = at;
            if !store.read_checked(at, &mut window.bytes) {
                window.bytes.clear();
                return None;
            }
        }
        let from = (at - window.at) as usize;
        window.bytes.get(from..from + len)
    }

    /// The unit `id` as saved, but for its summary ([`Table::summary_in`]).
    pub fn parts(&self, id: u32) -> Option<RowParts<'_>> {
        let u = self.get(id)?;
        let r = self.live_row(id)?;
        Some(RowParts {
            start_line: r.start_line,
            end_line: r.end_line,
            kind: u.kind,
            language: u.language,
            strings: [u.name, u.name_path, u.parent.unwrap_or(""), "", ""],
            has_parent: u.parent.is_some(),
            flags: r.flags & !LAYOUT,
            part: r.part,
        })
    }

    /// The lines of unit `id`'s body, as ranges `(first, last)`: its span
    /// less the spans of the other units of its file that lie inside it
    /// (a class's methods are units of their own, and so are their
    /// nested definitions). A unit with the very same span is no child
    /// (a parent whose child covers all its lines has no unit): fields
    /// side by side on one line each keep that line. `units.rs` cuts bodies this way;
    /// `tests/search_index.rs::bodies_read_back_from_the_file_equal_the_cut_ones`
    /// checks it over real files.
    pub fn body_lines(&self, id: u32) -> Vec<(usize, usize)> {
        let Some(r) = self.live_row(id) else {
            return Vec::new();
        };
        let Some(Some(f)) = self.files.get(r.file as usize) else {
            return Vec::new();
        };
        let (a, b) = (r.start_line, r.end_line);
        let mut inner: Vec<(u32, u32)> = self.rows[f.first as usize..(f.first + f.count) as usize]
            .iter()
            .filter(|o| {
                o.start_line >= a && o.end_line <= b && (o.start_line, o.end_line) != (a, b)
            })
            .map(|o| (o.start_line, o.end_line))
            .collect();
        inner.sort_unstable();
        let mut out = Vec::new();
        let mut next = a;
        for (s, e) in inner {
            if s > next {
                out.push((next as usize, s as usize - 1));
            }
            next = next.max(e.saturating_add(1));
        }
        if next <= b {
            out.push((next as usize, b as usize));
        }
        out
    }

    /// Bytes held: rows with their strings, and the file table.
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        let files = self.files.capacity() * std::mem::size_of::<Option<FileSlot>>()
            + self
                .files()
                .map(|f| f.path.len() * 2 + f.meta.hash.capacity() + 32)
                .sum::<usize>();
        vec![
            (
                "unit rows",
                self.rows.capacity() * std::mem::size_of::<Row>(),
            ),
            ("unit strings", self.text.capacity()),
            ("files", files),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_files_strings_are_reclaimed_and_others_stay_whole() {
        let mut t = Table::default();
        let meta = FileMeta {
            hash: "h".into(),
            size: 1,
            mtime: 0,
        };
        let big = "x".repeat(60_000);
        for (path, name) in [("a.py", big.as_str()), ("b.py", "keep_me")] {
            let f = t.add_file(path, meta.clone());
            for _ in 0..20 {
                t.push(
                    f,
                    &RowParts {
                        start_line: 1,
                        end_line: 2,
                        kind: "function",
                        language: "python",
                        strings: [name, name, "P", "def f()", "Doc."],
                        has_parent: true,
                        flags: 1,
                        part: 0,
                    },
                );
            }
        }
        assert_eq!(t.forget_file("a.py"), Some(0..20));
        // Over a megabyte of garbage, more than half: compacted.
        assert_eq!(t.garbage, 0);
        assert!(t.text.len() < 1000);
        assert!(t.get(3).is_none());
        let u = t.get(25).unwrap();
        assert_eq!(
            (u.path, u.name, u.parent, &*t.summary(25).unwrap().doc),
            ("b.py", "keep_me", Some("P"), "Doc.")
        );
        assert!(u.flags.test);
        // The freed file slot is reused.
        let c = t.add_file("c.py", meta);
        assert_eq!(c, 0);
        assert_eq!(t.file_count(), 2);
    }

    #[test]
    fn a_name_and_parent_inside_the_name_path_are_kept_once() {
        let mut t = Table::default();
        let meta = FileMeta {
            hash: "h".into(),
            size: 1,
            mtime: 0,
        };
        let f = t.add_file("a.rs", meta);
        // (name, name path, parent, has_parent): bytes of the arena.
        let cases = [
            ("fmt", "Point.fmt", "Point", true, "Point.fmt".len()),
            ("fmt", "Point.fmt#2", "Point", true, "Point.fmt#2fmt".len()),
            (
                "new",
                "impl Point.new",
                "Point",
                true,
                "impl Point.newPoint".len(),
            ),
            ("top", "top", "", false, 3),
            ("mod_code", "", "", false, "mod_code".len()),
        ];
        for (name, path, parent, has_parent, arena) in cases {
            let before = t.text.len();
            let id = t.push(
                f,
                &RowParts {
                    start_line: 1,
                    end_line: 2,
                    kind: "method",
                    language: "rust",
                    strings: [name, path, parent, "fn f()", "Doc."],
                    has_parent,
                    flags: 16,
                    part: 0,
                },
            );
            assert_eq!(t.text.len() - before, arena + "fn f()Doc.".len(), "{path}");
            let u = t.get(id).unwrap();
            assert_eq!(
                (u.name, u.name_path, u.parent),
                (name, path, has_parent.then_some(parent))
            );
            let sd = t.summary(id).unwrap();
            assert_eq!((&*sd.signature, &*sd.doc), ("fn f()", "Doc."));
            assert!(u.flags.exported && !u.flags.test);
            let p = t.parts(id).unwrap();
            assert_eq!((p.strings[0], p.strings[2], p.flags), (name, parent, 16));
        }
    }
}
