//! The server's search indexes, one per root, created on first use (or when
//! the root is known, with `IndexOptions::at_start`), then indexed in the
//! background and watched. The model is loaded once for all roots.

use super::IndexOptions;
use crate::error::Result;
use crate::index::{LiveIndex, Model, live};
use crate::ops::engine::Engine;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub(super) struct Indexes {
    options: IndexOptions,
    model: OnceLock<std::result::Result<Arc<Model>, String>>,
    by_root: Mutex<HashMap<PathBuf, Arc<LiveIndex>>>,
}

impl Indexes {
    pub(super) fn new(options: IndexOptions) -> Indexes {
        Indexes {
            options,
            model: OnceLock::new(),
            by_root: Mutex::new(HashMap::new()),
        }
    }

    fn model(&self) -> std::result::Result<Arc<Model>, String> {
        self.model
            .get_or_init(|| match live::load_model(self.options.model.as_deref()) {
                Ok(m) => m,
                Err(e) => {
                    tracing::warn!(error = %e, "no embedding model");
                    Err(format!(
                        "{}: results are ranked by keywords and structure only",
                        e.message
                    ))
                }
            })
            .clone()
    }

    /// The index of `root`, opened and started when new.
    pub(super) fn get(&self, engine: &Engine, root: &Path) -> Result<Arc<LiveIndex>> {
        let mut map = self.by_root.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ix) = map.get(root) {
            return Ok(ix.clone());
        }
        let ix = LiveIndex::open(root, engine.clone(), self.model());
        ix.start(!self.options.no_watch);
        map.insert(root.to_path_buf(), ix.clone());
        Ok(ix)
    }

    /// Start indexing `root` now, when the options ask for it.
    pub(super) fn at_start(&self, engine: &Engine, root: &Path) {
        if self.options.at_start
            && let Err(e) = self.get(engine, root)
        {
            tracing::warn!(error = %e, "could not open the search index");
        }
    }

    /// Files Scalpel just wrote: every open index whose root holds one of
    /// them owes a reading of them, done beside the receipt (a session on a
    /// folder of another session's root writes files of both).
    /// [`LiveIndex::owe`]: every read of that index waits for it.
    pub(super) fn touched(&self, paths: &[PathBuf]) {
        let open: Vec<_> = self
            .by_root
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(root, ix)| (root.clone(), ix.clone()))
            .collect();
        for (root, ix) in open {
            let inside: Vec<PathBuf> = paths
                .iter()
                .filter(|p| p.starts_with(&root))
                .cloned()
                .collect();
            if !inside.is_empty() {
                ix.owe(&inside);
            }
        }
    }

    /// Save every open index that changed since its last save (a server
    /// stopping).
    pub(super) fn save_all(&self) {
        let open: Vec<_> = self
            .by_root
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for ix in open {
            ix.save_if_dirty();
        }
    }
}
