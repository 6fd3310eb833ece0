//! The live index of one root: loaded from `ROOT/.scalpel/index/`, brought
//! up to date by [`LiveIndex::refresh`] (a walk comparing size and mtime,
//! then content hashes: only changed files are read and cut again), kept
//! fresh by the watcher (`watch.rs`) and by [`LiveIndex::update_paths`]
//! after Scalpel's own writes, and saved whole by atomic rename. No lock is
//! held on disk, so a CLI `find` and a server can share a root.

use super::answer::{self, Hit, SearchAnswer};
use super::model::Model;
use super::rank::{self, SearchRequest};
use super::{FileMeta, Index, Read, format, tokens};
use crate::disk;
use crate::error::Result;
use crate::ops::engine::Engine;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

/// A file under the root: its path, its path relative to the root, and
/// its size and mtime (`None`: could not be read).
pub type Walked = (PathBuf, String, Option<(u64, u128)>);

/// Files put into the index under one write lock, at most.
const BATCH: usize = 64;
/// How long a search waits for a running first indexing before answering
/// from what is indexed.
const FIRST_WAIT: Duration = Duration::from_millis(1500);
/// How often a waiting search reports the indexing's progress.
const REPORT_EVERY: Duration = Duration::from_millis(100);

pub use super::watch::Watch;

/// The state of an index, for `scalpel index --status` and answers.
#[derive(Debug, Clone, Serialize)]
pub struct IndexStatus {
    pub root: String,
    pub indexed_files: usize,
    pub total_files: usize,
    pub units: usize,
    pub complete: bool,
    /// Files whose content the last update read (new or changed); the rest
    /// were known by size, time or hash.
    pub files_read: usize,
    /// `hybrid` or `keyword`.
    pub mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub location: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Default)]
struct Progress {
    total: usize,
    pending: usize,
    running: bool,
    refreshed_once: bool,
    /// Files read (new or changed content) by the last refresh.
    last_read: usize,
}

/// A root's index, shared by every request.
pub struct LiveIndex {
    root: PathBuf,
    engine: Engine,
    model: Option<Arc<Model>>,
    model_note: Option<String>,
    state: RwLock<Index>,
    progress: Mutex<Progress>,
    idle: Condvar,
    refreshing: Mutex<()>,
    notes: Mutex<Vec<String>>,
    dirty: AtomicBool,
    watching: Mutex<Option<super::watch::Watching>>,
    /// Why the saved store is not this machine's to read or replace (git
    /// tracks it, another user owns it): the index then lives in memory.
    not_ours: Option<String>,
    /// Files Scalpel wrote that the index has yet to read again
    /// ([`LiveIndex::owe`]); every read of the index waits for them.
    owed: Mutex<Owed>,
    settled: Condvar,
}

/// The writes the index owes: paths not yet read again, and whether a
/// thread is reading them.
#[derive(Debug, Default)]
struct Owed {
    paths: Vec<PathBuf>,
    draining: bool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl LiveIndex {
    /// The index of `root` as last saved (nothing is walked yet: call
    /// [`LiveIndex::refresh`] or [`LiveIndex::start`]). `model`: the loaded
    /// model, or why there is none.
    pub fn open(
        root: &Path,
        engine: Engine,
        model: std::result::Result<Arc<Model>, String>,
    ) -> Arc<LiveIndex> {
        let (not_ours, saved) = read_own(root);
        LiveIndex::assemble(root, engine, model, not_ours, saved)
    }

    /// [`LiveIndex::open`] with the model `load` gives, loaded on another
    /// thread while the saved index is read (a CLI call pays for both: each
    /// is tens of milliseconds of a warm `scalpel find`).
    pub fn open_loading(
        root: &Path,
        engine: Engine,
        load: impl FnOnce() -> Result<std::result::Result<Arc<Model>, String>> + Send,
    ) -> Result<Arc<LiveIndex>> {
        let (model, (not_ours, saved)) = std::thread::scope(|scope| {
            let model = scope.spawn(load);
            let own = read_own(root);
            (model.join(), own)
        });
        let model = model.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        Ok(LiveIndex::assemble(root, engine, model, not_ours, saved))
    }

    fn assemble(
        root: &Path,
        engine: Engine,
        model: std::result::Result<Arc<Model>, String>,
        not_ours: Option<String>,
        saved: Option<SavedBytes>,
    ) -> Arc<LiveIndex> {
        let (model, model_note) = match model {
            Ok(m) => (Some(m), None),
            Err(note) => (None, Some(note)),
        };
        let live = LiveIndex {
            root: root.to_path_buf(),
            engine,
            model,
            model_note,
            state: RwLock::new(Index::default()),
            progress: Mutex::new(Progress::default()),
            idle: Condvar::new(),
            refreshing: Mutex::new(()),
            notes: Mutex::new(Vec::new()),
            dirty: AtomicBool::new(false),
            watching: Mutex::new(None),
            not_ours,
            owed: Mutex::new(Owed::default()),
            settled: Condvar::new(),
        };
        match live.not_ours.clone() {
            Some(why) => {
                tracing::warn!("{why}");
                live.note_once(why);
            }
            None => live.load(saved),
        }
        Arc::new(live)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn model(&self) -> Option<&Model> {
        self.model.as_deref()
    }

    /// Take the saved index `saved` (see [`read_saved`]); one that cannot
    /// be trusted (another format, truncated, corrupt) is left for the
    /// refresh to rebuild.
    fn load(&self, saved: Option<SavedBytes>) {
        let Some(SavedBytes { file, bytes, len }) = saved else {
            return;
        };
        let model_id = self.model.as_ref().map(|m| (m.id.as_str(), m.dim()));
        let Some(mut saved) = format::decode_prefix(&bytes, len, model_id) else {
            tracing::warn!("ignoring an unreadable saved index: it is rebuilt");
            return;
        };
        drop(bytes);
        // The int8 vectors stay in the file: read at query time.
        saved.attach(Box::new(move |at, buf| file.read_at(at, buf)));
        let mut index = saved.index;
        if !saved.vectors_match && self.model.is_some() {
            // Made by another model (or none): the refresh cuts and embeds
            // every file again; keywords work meanwhile.
            index.forget_vectors();
        }
        let files = index.file_count();
        *self.write_state() = index;
        lock(&self.progress).total = files;
    }

    fn write_state(&self) -> std::sync::RwLockWriteGuard<'_, Index> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }

    fn read_state(&self) -> std::sync::RwLockReadGuard<'_, Index> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Write the index to `ROOT/.scalpel/index/` (not when the saved file
    /// there is not Scalpel's: the index then lives in memory).
    pub fn save(&self) -> Result<()> {
        self.dirty.store(false, Ordering::SeqCst);
        if self.not_ours.is_some() {
            return Ok(());
        }
        let mut saved = format::encode_full(
            &self.read_state(),
            self.model.as_ref().map(|m| m.id.as_str()),
        );
        disk::store::save_index_file(&self.root, format::FILE, &saved.bytes)?;
        saved.bytes = Vec::new();
        // From now on the vectors are read from the new file; if another
        // process replaced it meanwhile (its checksum differs), the first
        // query finds the store changed and estimates until the next save.
        if let Some(file) = disk::store::IndexFile::open(&self.root, format::FILE) {
            let mut sum = [0u8; 32];
            if file.read_at(format::SUM_AT, &mut sum) {
                format::saved(
                    &mut self.write_state(),
                    &saved,
                    sum,
                    Box::new(move |at, buf| file.read_at(at, buf)),
                );
            }
        }
        disk::store::remove_index_file(&self.root, format::LEGACY_FILE)
    }

    /// Save when something changed since the last save.
    pub fn save_if_dirty(&self) {
        self.settle();
        if self.dirty.load(Ordering::SeqCst)
            && let Err(e) = self.save()
        {
            tracing::warn!(error = %e, "could not save the search index");
        }
    }

    /// Forget everything (saved too) and index again.
    pub fn rebuild(&self) -> Result<()> {
        *self.write_state() = Index::default();
        if self.not_ours.is_none() {
            disk::store::remove_index_file(&self.root, format::FILE)?;
        }
        self.refresh()
    }

    /// Bring the index up to date with the files under the root: new and
    /// changed files are read and cut (in batches, so searches go on
    /// meanwhile), deleted ones dropped; saved when anything changed.
    pub fn refresh(&self) -> Result<()> {
        let _one = lock(&self.refreshing);
        self.refresh_from(walk_root(&self.root))
    }

    /// [`LiveIndex::refresh`] from `files`, what [`walk_root`] found under
    /// this index's root (the CLI walks while the store is read).
    pub fn refresh_walked(&self, files: Vec<Walked>) -> Result<()> {
        let _one = lock(&self.refreshing);
        self.refresh_from(files)
    }

    fn refresh_from(&self, files: Vec<Walked>) -> Result<()> {
        let mut stale = Vec::new();
        let mut removed = Vec::new();
        {
            let index = self.read_state();
            let present: HashSet<&str> = files.iter().map(|(_, r, _)| r.as_str()).collect();
            for (abs, rel, stat) in &files {
                let Some((size, mtime)) = *stat else {
                    continue;
                };
                let known = index.meta(rel);
                if known.is_none_or(|m| m.size != size || m.mtime != mtime) {
                    // A file whose mtime is unknown (0) while the disk
                    // knows it was let go with a lost store: its vectors
                    // must be made again even if its content is the same.
                    let reuse = known.filter(|m| m.mtime != 0 || mtime == 0);
                    stale.push((
                        abs.clone(),
                        rel.clone(),
                        size,
                        mtime,
                        reuse.map(|m| m.hash.clone()),
                    ));
                }
            }
            removed.extend(
                index
                    .paths()
                    .filter(|p| !present.contains(p))
                    .map(str::to_string),
            );
        }
        {
            let mut p = lock(&self.progress);
            p.total = files.len();
            p.pending = stale.len();
            p.running = true;
            p.last_read = 0;
        }
        let changed = !stale.is_empty() || !removed.is_empty();
        {
            let mut index = self.write_state();
            for r in &removed {
                index.remove(r);
            }
        }
        // Files are read and cut on every core (rayon, no batch barrier: a
        // large file does not hold up the others) while this thread puts
        // what is ready into the index, up to BATCH files per write lock.
        let (tx, rx) = std::sync::mpsc::sync_channel::<Option<Read>>(BATCH * 2);
        std::thread::scope(|scope| {
            let stale = &stale;
            scope.spawn(move || {
                on_reading_pool(|| {
                    stale
                        .par_iter()
                        .for_each_with(tx, |tx, (abs, rel, size, mtime, known)| {
                            let meta = FileMeta {
                                hash: String::new(),
                                size: *size,
                                mtime: *mtime,
                            };
                            let read = super::read_file(
                                &self.engine,
                                self.model(),
                                abs,
                                rel,
                                meta,
                                known.as_deref(),
                            );
                            let _ = tx.send(read.ok());
                        })
                });
            });
            while let Ok(first) = rx.recv() {
                let mut ready = vec![first];
                while ready.len() < BATCH
                    && let Ok(more) = rx.try_recv()
                {
                    ready.push(more);
                }
                let files = ready.len();
                let new = super::phases::time(super::phases::Phase::Put, || {
                    let mut index = self.write_state();
                    let mut new = 0;
                    for r in ready.into_iter().flatten() {
                        match r {
                            Read::Same(meta) => index.touch(&meta.0, meta.1),
                            Read::New(units) => {
                                new += 1;
                                index.put(units)
                            }
                        }
                    }
                    new
                });
                let mut p = lock(&self.progress);
                p.last_read += new;
                p.pending = p.pending.saturating_sub(files);
            }
        });
        if changed {
            // The postings added go into the flat arrays, and those of
            // removed units out.
            self.write_state().seal();
        }
        {
            let mut p = lock(&self.progress);
            p.running = false;
            p.pending = 0;
            p.refreshed_once = true;
        }
        self.idle.notify_all();
        if changed {
            self.dirty.store(true, Ordering::SeqCst);
            super::phases::time(super::phases::Phase::Save, || self.save())?;
        }
        super::phases::report("refresh");
        Ok(())
    }

    /// Files just written or changed (absolute paths): re-read the known
    /// ones now, drop the deleted ones; a path the index does not know
    /// (a new file, a folder) makes a full refresh, which applies the
    /// ignore rules.
    pub fn update_paths(&self, paths: &[PathBuf]) {
        if self.update_known(paths)
            && let Err(e) = self.refresh()
        {
            tracing::warn!(error = %e, "index refresh failed");
        }
    }

    /// Files Scalpel just wrote (absolute paths), read again on a thread of
    /// their own while the write's receipt goes out: every read of the
    /// index ([`LiveIndex::search`], [`LiveIndex::status`], a save) first
    /// waits for what is owed ([`LiveIndex::settle`]), so no answer serves
    /// a file's old content after its write, and the write does not pay
    /// for the index (a rename's files re-read and re-indexed were a third
    /// of its apply through a warm language server).
    pub fn owe(self: &Arc<Self>, paths: &[PathBuf]) {
        let mut owed = lock(&self.owed);
        owed.paths.extend_from_slice(paths);
        if owed.draining {
            return;
        }
        owed.draining = true;
        drop(owed);
        let me = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("scalpel-index-owed".into())
            .spawn(move || me.drain());
        if spawned.is_err() {
            // No thread to spare: read them now, as the write's own work.
            self.drain();
        }
    }

    /// Read again what is owed until nothing is; the last batch's end
    /// wakes the readers waiting in [`LiveIndex::settle`]. A panic while
    /// reading still ends the drain (and wakes them).
    fn drain(&self) {
        /// Ends a drain that panicked: what it left is dropped, not waited
        /// for forever (the watcher and the next refresh see those files).
        struct Unwinding<'a>(&'a LiveIndex);
        impl Drop for Unwinding<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    let mut owed = lock(&self.0.owed);
                    owed.draining = false;
                    owed.paths.clear();
                    drop(owed);
                    self.0.settled.notify_all();
                }
            }
        }
        let _unwinding = Unwinding(self);
        loop {
            let batch = {
                let mut owed = lock(&self.owed);
                if owed.paths.is_empty() {
                    // Under the same lock as `owe`'s check: a path owed
                    // from now on starts a drain of its own.
                    owed.draining = false;
                    drop(owed);
                    self.settled.notify_all();
                    return;
                }
                std::mem::take(&mut owed.paths)
            };
            self.update_paths(&batch);
        }
    }

    /// Wait until the index has read every file Scalpel wrote before this
    /// call ([`LiveIndex::owe`]).
    pub fn settle(&self) {
        let mut owed = lock(&self.owed);
        while owed.draining || !owed.paths.is_empty() {
            owed = self.settled.wait(owed).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// What [`LiveIndex::update_known`] finds at each of `paths` (in
    /// parallel): `None` for a path the index never holds.
    fn look_up(&self, paths: &[PathBuf]) -> Vec<Option<(String, Looked)>> {
        paths
            .par_iter()
            .map(|abs| {
                let rel = disk::grep::rel_path(&self.root, abs);
                if rel.starts_with("..")
                    || rel
                        .split('/')
                        .any(|c| c == ".git" || c == disk::SCALPEL_DIR)
                {
                    return None;
                }
                let known = self.read_state().meta(&rel).map(|m| m.hash.clone());
                let looked = match (disk::store::stat(abs), known) {
                    (Some((size, mtime)), Some(hash)) => {
                        let meta = FileMeta {
                            hash: String::new(),
                            size,
                            mtime,
                        };
                        Looked::Read(super::read_file(
                            &self.engine,
                            self.model(),
                            abs,
                            &rel,
                            meta,
                            Some(&hash),
                        ))
                    }
                    (None, Some(_)) => Looked::Gone,
                    (None, None) => Looked::Folder,
                    (Some(_), None) => Looked::Unknown,
                };
                Some((rel, looked))
            })
            .collect()
    }

    /// [`LiveIndex::update_paths`] without the refresh: whether one is
    /// needed (a path the index does not know). The watcher uses it to
    /// space refreshes out when a build writes into ignored folders.
    pub(super) fn update_known(&self, paths: &[PathBuf]) -> bool {
        // Reading a known file (parse, units, vectors) is most of the work
        // and each is on its own: they are read in parallel (a rename's
        // files, told to the index before its receipt goes out), on the
        // index's own threads (a watcher's batch may be a checkout's
        // thousands), then the index is changed path by path, in order;
        // [`UPDATE_BATCH`] paths at a time, so that what is read waits in
        // memory for a batch only.
        let mut unknown = false;
        for batch in paths.chunks(UPDATE_BATCH) {
            let mut looked: Vec<Option<(String, Looked)>> = Vec::new();
            on_reading_pool(|| looked = self.look_up(batch));
            unknown |= self.apply(batch, looked);
        }
        unknown
    }

    /// Change the index by what [`LiveIndex::look_up`] found at `paths`:
    /// whether a refresh is needed.
    fn apply(&self, paths: &[PathBuf], looked: Vec<Option<(String, Looked)>>) -> bool {
        let mut unknown = false;
        for (abs, found) in paths.iter().zip(looked) {
            let Some((rel, looked)) = found else { continue };
            match looked {
                Looked::Read(Ok(Read::Same((_, meta)))) => self.write_state().touch(&rel, meta),
                Looked::Read(Ok(Read::New(units))) => self.write_state().put(units),
                Looked::Read(Err(_)) | Looked::Gone => self.write_state().remove(&rel),
                Looked::Folder => {
                    // A deleted folder: drop what was under it.
                    let prefix = format!("{rel}/");
                    let mut index = self.write_state();
                    let under: Vec<String> = index
                        .paths()
                        .filter(|p| p.starts_with(&prefix))
                        .map(str::to_string)
                        .collect();
                    if under.is_empty() && !abs.exists() {
                        continue;
                    }
                    for p in under {
                        index.remove(&p);
                    }
                    unknown |= abs.exists();
                }
                Looked::Unknown => unknown = true,
            }
            self.dirty.store(true, Ordering::SeqCst);
        }
        unknown
    }

    /// Index in the background (a thread), watching the root for changes
    /// when `watch` (else nothing more happens until the next refresh).
    pub fn start(self: &Arc<Self>, watch: bool) {
        self.start_watching(if watch { Watch::Notify } else { Watch::Off });
    }

    /// [`LiveIndex::start`] with a way of watching. The watcher is set up
    /// before the first indexing, so no change made meanwhile is missed
    /// (its events wait for the indexing to end).
    pub fn start_watching(self: &Arc<Self>, watch: Watch) {
        lock(&self.progress).running = true;
        let me = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("scalpel-index".into())
            .spawn(move || {
                let Some(ix) = me.upgrade() else { return };
                if watch != Watch::Off {
                    let w = super::watch::start(
                        Arc::downgrade(&ix) as std::sync::Weak<dyn super::watch::Watched>,
                        watch,
                    );
                    *lock(&ix.watching) = Some(w);
                }
                if let Err(e) = ix.refresh() {
                    tracing::warn!(error = %e, "indexing failed");
                    lock(&ix.progress).running = false;
                    ix.idle.notify_all();
                }
            });
        if spawned.is_err() {
            lock(&self.progress).running = false;
        }
    }

    /// A note shown in every answer from now on (said once).
    pub(super) fn note_once(&self, note: String) {
        let mut n = lock(&self.notes);
        if !n.contains(&note) {
            tracing::warn!("{note}");
            n.push(note);
        }
    }

    /// Wait (at most `limit`) for a running indexing to finish.
    pub fn wait_idle(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut p = lock(&self.progress);
        while p.running {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            p = self
                .idle
                .wait_timeout(p, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Wait (at most [`FIRST_WAIT`]) for a running first indexing,
    /// reporting its progress; whether anything was reported.
    fn wait_first(&self, progress: &mut dyn FnMut(usize, usize)) -> bool {
        let deadline = Instant::now() + FIRST_WAIT;
        let mut last = None;
        loop {
            {
                let p = lock(&self.progress);
                if p.refreshed_once || !p.running {
                    break;
                }
            }
            let s = self.status();
            // Once the walk has counted the files.
            if s.total_files > 0 && last != Some(s.indexed_files) {
                last = Some(s.indexed_files);
                progress(s.indexed_files, s.total_files);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            self.wait_idle(left.min(REPORT_EVERY));
        }
        last.is_some()
    }

    /// Bytes held by the index, by part (estimated from lengths and
    /// capacities, allocator overhead left out).
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        self.settle();
        self.read_state().memory()
    }

    pub fn status(&self) -> IndexStatus {
        self.settle();
        let (indexed, units) = {
            let index = self.read_state();
            (index.file_count(), index.unit_count())
        };
        let p = lock(&self.progress);
        let total = p.total.max(indexed.saturating_sub(0));
        IndexStatus {
            root: self.root.display().to_string(),
            indexed_files: total.saturating_sub(p.pending).min(total),
            total_files: total,
            units,
            complete: !p.running && p.refreshed_once,
            files_read: p.last_read,
            mode: self.mode().to_string(),
            model: self.model.as_ref().map(|m| m.dir.display().to_string()),
            location: disk::store::index_dir(&self.root).display().to_string(),
            notes: self.notes(),
        }
    }

    fn mode(&self) -> &'static str {
        if self.model.is_some() {
            "hybrid"
        } else {
            "keyword"
        }
    }

    fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.model_note.iter().cloned().collect();
        notes.extend(lock(&self.notes).iter().cloned());
        notes
    }

    /// The files of the ranked units for `req`, best first, each once (for
    /// file-level evaluation).
    pub fn ranked_files(&self, req: &SearchRequest) -> Result<Vec<String>> {
        self.settle();
        let index = self.read_state();
        let mut files: Vec<String> = Vec::new();
        for (id, _) in rank::rank(&index, self.model(), req)? {
            if let Some(u) = index.unit(id)
                && !files.iter().any(|f| f == u.path)
            {
                files.push(u.path.to_string());
            }
        }
        Ok(files)
    }

    /// Rank and answer `req` within `max_tokens`.
    pub fn search(&self, req: &SearchRequest, max_tokens: usize) -> Result<SearchAnswer> {
        self.search_reporting(req, max_tokens, &mut |_, _| {})
    }

    /// [`LiveIndex::search`], telling `progress` (files indexed, files in
    /// all) how the first indexing goes while the search waits for it: at
    /// once, then whenever more files are indexed, at most every
    /// [`REPORT_EVERY`].
    pub fn search_reporting(
        &self,
        req: &SearchRequest,
        max_tokens: usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SearchAnswer> {
        let reported = self.wait_first(progress);
        // `status` settles what Scalpel's writes owe.
        let status = self.status();
        if reported {
            // Where the indexing stands for this answer.
            progress(status.indexed_files, status.total_files);
        }
        let q_tokens = tokens::query_tokens(&req.query);
        let index = self.read_state();
        let ranked = rank::rank(&index, self.model(), req)?;
        let mut used = 60 + req.query.len() / 4;
        let mut results = Vec::new();
        let mut truncated = false;
        let mut texts = FileTexts::default();
        for (id, score) in ranked {
            let Some(u) = index.unit(id) else { continue };
            let lines = if results.len() < 3 {
                answer::SNIPPET_LINES
            } else {
                answer::SNIPPET_LINES / 2
            };
            let snippet = match texts.get(&self.root, u.path, index.meta(u.path)) {
                Some(text) => {
                    let body = answer::body_of(text, &index.body_lines(id));
                    // Within the default budget, the lines that matched;
                    // a larger one buys snippets.
                    if max_tokens <= answer::DEFAULT_MAX_TOKENS {
                        answer::matched_lines(&body, &q_tokens, answer::MATCHED_LINES)
                    } else {
                        answer::snippet(&body, &q_tokens, lines)
                    }
                }
                None => String::new(),
            };
            let mut hit = Hit {
                path: u.path.to_string(),
                start_line: u.start_line,
                end_line: u.end_line,
                kind: u.kind.to_string(),
                name_path: u.name_path.to_string(),
                score: (score * 1000.0).round() / 1000.0,
                summary: answer::summary(&u, &index.summary(id).unwrap_or_default()),
                snippet,
            };
            if used + answer::hit_tokens(&hit) > max_tokens {
                truncated = true;
                hit.snippet.clear();
                if used + answer::hit_tokens(&hit) > max_tokens {
                    break;
                }
            }
            used += answer::hit_tokens(&hit);
            results.push(hit);
        }
        let store_lost = index.vectors_lost();
        drop(index);
        let mut notes = status.notes;
        if store_lost {
            // The vectors cannot be read back: every file is embedded again
            // by the next refresh; meanwhile the semantic side ranks by the
            // in-memory sign vectors.
            if self.write_state().let_go_of_lost_store() {
                tracing::warn!("the saved index changed under the running one: re-embedding");
            }
            notes.push(
                "the saved index changed or became unreadable under the running one: semantic scores are estimated until the next refresh embeds the files again"
                    .to_string(),
            );
        }
        if !texts.changed.is_empty() {
            notes.push(format!(
                "changed since indexed, so shown without a snippet (its lines and summary are the index's, which now re-reads it): {}",
                texts.changed.join(", ")
            ));
            let abs: Vec<PathBuf> = texts.changed.iter().map(|p| self.root.join(p)).collect();
            self.update_paths(&abs);
        }
        if !status.complete {
            notes.push(format!(
                "the index is still being built: {} of {} indexed, so results may miss the rest",
                status.indexed_files,
                crate::text::count(status.total_files, "file")
            ));
        }
        let mut hints: Vec<String> = results
            .iter()
            .find(|h| !h.name_path.is_empty())
            .map(|h| {
                format!(
                    "read or edit a hit with {} (its path, and its name path as the symbol: {} {})",
                    crate::hint::term(crate::hint::Term::ExtractCode),
                    h.path,
                    h.name_path
                )
            })
            .into_iter()
            .collect();
        if truncated {
            hints.push(format!(
                "hits or snippets were left out to stay within the token budget: raise {} or lower {}",
                crate::hint::term(crate::hint::Term::MaxTokens),
                crate::hint::term(crate::hint::Term::MaxResults)
            ));
        }
        let hint = (!hints.is_empty()).then(|| hints.join("; "));
        Ok(SearchAnswer {
            query: req.query.clone(),
            mode: self.mode().to_string(),
            results,
            indexed_files: status.indexed_files,
            total_files: status.total_files,
            complete: status.complete,
            truncated,
            notes,
            hint,
        })
    }
}

/// The texts of the files a search shows snippets of, each read once
/// (through the disk's bounded read) and only when its content hash is the
/// one indexed: the index keeps no bodies, and a file changed since it was
/// indexed must not show other lines as the unit's.
#[derive(Default)]
struct FileTexts {
    read: std::collections::HashMap<String, Option<String>>,
    /// Files changed (or gone) since indexed, in the order met.
    changed: Vec<String>,
}

impl FileTexts {
    fn get(&mut self, root: &Path, path: &str, known: Option<&FileMeta>) -> Option<&str> {
        if !self.read.contains_key(path) {
            let text = disk::read_source(&root.join(path), super::MAX_INDEXED_FILE)
                .ok()
                .filter(|s| known.is_some_and(|m| m.hash == s.hash))
                .map(|s| s.text);
            if text.is_none() {
                self.changed.push(path.to_string());
            }
            self.read.insert(path.to_string(), text);
        }
        self.read.get(path)?.as_deref()
    }
}

/// The saved index of `root` as read, not yet decoded: the open store, its
/// bytes before the vector records (those are read at query time) and its
/// length.
struct SavedBytes {
    file: disk::store::IndexFile,
    bytes: Vec<u8>,
    len: u64,
}

/// Why the store under `root` is not Scalpel's (then it is left alone),
/// or else the saved index read from it ([`read_saved`]).
fn read_own(root: &Path) -> (Option<String>, Option<SavedBytes>) {
    let not_ours = disk::store::not_ours(root, format::FILE);
    let saved = not_ours.is_none().then(|| read_saved(root)).flatten();
    (not_ours, saved)
}

/// Every file under `root` that an index holds (what `.gitignore` and the
/// rest of the ignore rules leave), with its size and mtime (`None`: it
/// could not be asked), sorted by path. The walk runs on the walker's
/// threads and each file is asked for its metadata there: walking and
/// asking one after the other on one thread was a fifth of a warm
/// `scalpel find` (issue 31).
pub fn walk_root(root: &Path) -> Vec<Walked> {
    let found: Mutex<Vec<Walked>> = Mutex::new(Vec::new());
    disk::grep::walk_builder(root, root, false, None)
        .build_parallel()
        .run(|| {
            let found = &found;
            Box::new(move |entry| {
                if let Ok(e) = entry
                    && e.file_type().is_some_and(|t| t.is_file())
                {
                    let rel = disk::grep::rel_path(root, e.path());
                    let stat = disk::store::stat(e.path());
                    lock(found).push((e.into_path(), rel, stat));
                }
                ignore::WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort_unstable_by(|a, b| a.1.cmp(&b.1));
    files
}

/// The saved index of `root`, when there is one, its header is of this
/// format and its sizes fit its length, and, for a store whose part read
/// here is over [`format::FREE_SIZE`], its length is within
/// [`format::size_bound`] of the files it names that exist. The header is
/// checked before the rest is read, and a large store's file table before
/// the whole of it.
fn read_saved(root: &Path) -> Option<SavedBytes> {
    let file = disk::store::IndexFile::open(root, format::FILE)?;
    let saved = read_store(root, &file).map(|(bytes, len)| SavedBytes { file, bytes, len });
    if saved.is_none() {
        tracing::warn!("ignoring an unreadable saved index: it is rebuilt");
    }
    saved
}

fn read_store(root: &Path, file: &disk::store::IndexFile) -> Option<(Vec<u8>, u64)> {
    let len = file.size()?;
    let mut head = [0u8; format::HEADER];
    if !file.read_at(0, &mut head) {
        return None;
    }
    let header = format::header(&head, len)?;
    // What is read (and held) is the part before the vector records. The
    // records are read a few at a time, and copied at a save only for the
    // units a refresh keeps and only when they have the loaded model's
    // dimension ([`format::decode_prefix`]): at most that many bytes per
    // unit of the part read.
    if header.records_at() as u64 > format::FREE_SIZE {
        // The file table opens the first section: read a growing
        // prefix of it until it is whole.
        let mut want = header.head_len.min(64 << 10);
        let (files, bytes) = loop {
            let mut prefix = vec![0u8; want];
            if !file.read_at(format::HEADER as u64, &mut prefix) {
                return None;
            }
            match format::saved_files(&prefix) {
                format::SavedFiles::Files(files) => {
                    break disk::store::indexed_bytes(root, files.iter().map(|(p, _)| *p));
                }
                format::SavedFiles::Short if want < header.head_len.min(format::MAX_FILE_TABLE) => {
                    want = (want * 4).min(header.head_len).min(format::MAX_FILE_TABLE);
                }
                _ => return None,
            }
        };
        let bound = format::size_bound(files, bytes);
        if len > bound {
            tracing::warn!(
                size = len,
                bound,
                "the saved index is larger than the {files} files it indexes explain"
            );
            return None;
        }
    }
    Some((file.read_len(header.records_at() as u64)?, len))
}

/// Load the model for an index: `explicit` or [`super::model::MODEL_ENV`]
/// or the HuggingFace cache. `Err(note)`: none, and the note every answer
/// carries.
pub fn load_model(explicit: Option<&Path>) -> Result<std::result::Result<Arc<Model>, String>> {
    match super::model::locate(explicit)? {
        Some(dir) => Ok(Ok(Arc::new(Model::load(&dir)?))),
        None => Ok(Err(
            "no embedding model found: results are ranked by keywords and structure only".into(),
        )),
    }
}

impl super::watch::Watched for LiveIndex {
    fn root(&self) -> &Path {
        LiveIndex::root(self)
    }
    fn note_once(&self, note: String) {
        LiveIndex::note_once(self, note)
    }
    fn wait_idle(&self, limit: Duration) {
        LiveIndex::wait_idle(self, limit)
    }
    fn update_known(&self, paths: &[PathBuf]) -> bool {
        LiveIndex::update_known(self, paths)
    }
    fn refresh(&self) -> Result<()> {
        LiveIndex::refresh(self)
    }
    fn save_if_dirty(&self) {
        LiveIndex::save_if_dirty(self)
    }
}

/// Paths [`LiveIndex::update_known`] reads before it changes the index.
const UPDATE_BATCH: usize = 64;

/// What one path of [`LiveIndex::update_known`] is now.
enum Looked {
    /// A file the index holds, read again.
    Read(Result<Read>),
    /// A file the index holds, gone.
    Gone,
    /// Neither a file now nor one the index holds: perhaps a deleted folder.
    Folder,
    /// A file the index does not hold: a refresh finds it.
    Unknown,
}

/// The threads that read and cut files for the index: rayon's global pool
/// is the requests' (a `find_references` or `search_files` of any session
/// parses on it); indexing a large root there held their work queued behind
/// it for the whole build (seen over HTTP: a cancelled call's cancel waited
/// for the index). Its own pool leaves both to the OS scheduler.
fn on_reading_pool(f: impl FnOnce() + Send) {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    let pool = POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("scalpel-index-{i}"))
            .build()
            .inspect_err(|e| tracing::warn!(error = %e, "no own threads for indexing: using the shared ones"))
            .ok()
    });
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
