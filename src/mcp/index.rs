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

    /// A file Scalpel just wrote: the index of its root (if open) re-reads
    /// it now.
    pub(super) fn touched(&self, root: &Path, paths: &[PathBuf]) {
        let ix = self
            .by_root
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(root)
            .cloned();
        if let Some(ix) = ix {
            ix.update_paths(paths);
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
