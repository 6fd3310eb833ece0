//! The search commands: `find` (ranked code units from the index),
//! `index` (status, rebuild) and `model download`. Each opens the root's
//! index from `ROOT/.scalpel/index/`, brings it up to date (only changed
//! files are read) and answers; nothing stays locked, so a server may run on
//! the same root.

use super::output::Out;
use super::{RootArg, to_json};
use crate::error::{Error, ErrorCode, Result};
use crate::index::answer::{DEFAULT_MAX_RESULTS, DEFAULT_MAX_TOKENS};
use crate::index::{LiveIndex, SearchRequest, live, model};
use crate::ops::engine::Engine;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub(super) enum FindCommand {
    /// Find code by what it does or by name: ranked code units (functions,
    /// classes, module-level code) from the root's search index.
    Find(FindArgs),
    /// Show the search index's state, or rebuild it.
    Index(IndexArgs),
    /// Get an embedding model for `find` (Model2Vec layout).
    Model {
        #[command(subcommand)]
        action: ModelCommand,
    },
}

#[derive(Subcommand, Debug)]
pub(super) enum ModelCommand {
    /// Download a model into the HuggingFace cache, where `find` and
    /// `serve` look for it.
    Download {
        /// The model's HuggingFace name.
        #[arg(default_value = model::DEFAULT_MODEL)]
        name: String,
        /// Put it in this folder instead (then pass --model DIR).
        #[arg(long, value_name = "DIR")]
        to: Option<PathBuf>,
    },
}

/// Where the embedding model comes from.
#[derive(Args, Debug)]
pub(super) struct ModelArg {
    /// Embedding model folder (model.safetensors + tokenizer.json); `off`
    /// for keyword search only. Default: $SCALPEL_MODEL, else the
    /// HuggingFace cache.
    #[arg(long, value_name = "DIR")]
    pub(super) model: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(super) struct FindArgs {
    /// The question or identifiers.
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// Only under this folder or file.
    #[arg(long, value_name = "P")]
    path: Option<String>,
    /// Only files matching this glob (repeatable).
    #[arg(long, value_name = "G")]
    include: Vec<String>,
    /// Skip files matching this glob (repeatable).
    #[arg(long, value_name = "G")]
    exclude: Vec<String>,
    /// Only units of this kind (function, class, method, module, text...).
    #[arg(long)]
    kind: Option<String>,
    /// Only this language.
    #[arg(long, value_name = "LANG")]
    language: Option<String>,
    /// Most results.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RESULTS)]
    max_results: usize,
    /// Token budget of the answer.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TOKENS)]
    max_tokens: usize,
    /// Print the answer as JSON (the payload of the MCP tool).
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    model: ModelArg,
    #[command(flatten)]
    root: RootArg,
}

#[derive(Args, Debug)]
pub(super) struct IndexArgs {
    /// Only show the state (files, units, model) after bringing it up to date.
    #[arg(long, conflicts_with = "rebuild")]
    status: bool,
    /// Forget the saved index and build it again.
    #[arg(long)]
    rebuild: bool,
    /// Print the state as JSON.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    model: ModelArg,
    #[command(flatten)]
    root: RootArg,
}

impl FindCommand {
    pub(super) fn json(&self) -> bool {
        match self {
            FindCommand::Find(a) => a.json,
            FindCommand::Index(a) => a.json,
            FindCommand::Model { .. } => false,
        }
    }
}

/// The index of `root`, opened while `beside` runs on its own thread with
/// the root's path (the model loads on another while the store is read).
fn open<T: Send>(
    engine: &Engine,
    root: &RootArg,
    model: &ModelArg,
    beside: impl FnOnce(&std::path::Path) -> T + Send,
) -> Result<(std::sync::Arc<LiveIndex>, T)> {
    let session = root.session(None, engine)?;
    let root = session.ws().root();
    let explicit = model.model.as_deref();
    std::thread::scope(|scope| {
        let aside = scope.spawn(|| beside(root));
        let ix = LiveIndex::open_loading(root, engine.clone(), || live::load_model(explicit));
        let aside = aside
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        ix.map(|ix| (ix, aside))
    })
}

pub(super) fn run(cmd: FindCommand, engine: &Engine, out: &mut Out) -> Result<u8> {
    match cmd {
        FindCommand::Find(a) => {
            // The files are walked (and asked for their size and mtime)
            // while the store is read and the model loaded.
            let (ix, walked) = open(engine, &a.root, &a.model, live::walk_root)?;
            ix.refresh_walked(walked)?;
            let mut req = SearchRequest::new(a.query.join(" "));
            req.path = a.path;
            req.include = a.include;
            req.exclude = a.exclude;
            req.kind = a.kind;
            req.language = a.language;
            req.max_results = a.max_results.max(1);
            let answer = ix.search(&req, a.max_tokens)?;
            super::text::emit(out, a.json, &answer, super::layout::Head::Above);
            // The process ends here: freeing a large index page by page is
            // work the exit does at once (a few % of a warm `find`).
            // Nothing is pending in it: the refresh saved what changed.
            std::mem::forget(ix);
            Ok(if answer.results.is_empty() { 1 } else { 0 })
        }
        FindCommand::Index(a) => {
            let (ix, ()) = open(engine, &a.root, &a.model, |_| ())?;
            if a.rebuild {
                ix.rebuild()?;
            } else {
                ix.refresh()?;
            }
            let status = ix.status();
            if a.json {
                out.line(&to_json(&status));
            } else {
                let _ = a.status;
                out.line(&format!(
                    "{}: {}, {}, {} search{}; saved in {}",
                    status.root,
                    crate::text::count(status.indexed_files, "file"),
                    crate::text::count(status.units, "unit"),
                    status.mode,
                    status
                        .model
                        .as_ref()
                        .map(|m| format!(" (model {m})"))
                        .unwrap_or_default(),
                    status.location
                ));
                for n in &status.notes {
                    out.line(&format!("note: {n}"));
                }
            }
            Ok(0)
        }
        FindCommand::Model {
            action: ModelCommand::Download { name, to },
        } => {
            let dir = download(&name, to.as_deref())?;
            out.line(&format!("downloaded {name} to {}", dir.display()));
            Ok(0)
        }
    }
}

/// Environment variable overriding where models are downloaded from (a
/// HuggingFace mirror).
pub const MODEL_URL_ENV: &str = "SCALPEL_MODEL_URL";
const MODEL_FILES: &[&str] = &["config.json", "tokenizer.json", "model.safetensors"];

/// Fetch `name`'s files with `curl`, each bounded in time (connect 10 s, a
/// stall of 30 s, 15 minutes in all), into a temp folder renamed into place.
fn download(name: &str, to: Option<&Path>) -> Result<PathBuf> {
    let dest = match to {
        Some(d) => d.to_path_buf(),
        None => model::hf_snapshot_dir(name, "main").ok_or_else(|| {
            Error::invalid_argument("no HuggingFace cache folder: HOME is not set")
                .with_suggestion("pass a folder to download into")
        })?,
    };
    let base = std::env::var(MODEL_URL_ENV).unwrap_or_else(|_| "https://huggingface.co".into());
    let tmp = crate::disk::install::staging_dir(&dest)?;
    for file in MODEL_FILES {
        let url = format!("{}/{name}/resolve/main/{file}", base.trim_end_matches('/'));
        let target = tmp.path().join(file);
        let run = std::process::Command::new("curl")
            .args(["-fsSL", "--connect-timeout", "10", "--max-time", "900"])
            .args(["--speed-limit", "1024", "--speed-time", "30", "-o"])
            .arg(&target)
            .arg(&url)
            .stdin(std::process::Stdio::null())
            .output();
        let failed = |why: String| {
            Error::new(
                ErrorCode::Io,
                format!("could not download the model {name}: {why}"),
            )
            .with_suggestion(
                "check the network connection, or copy a Model2Vec model folder (model.safetensors, tokenizer.json) here by other means and pass it with --model DIR or SCALPEL_MODEL",
            )
            .with_details(serde_json::json!({"model": name, "url": url}))
        };
        match run {
            Err(e) => return Err(failed(format!("cannot run curl ({e})"))),
            Ok(o) if !o.status.success() => {
                let why = String::from_utf8_lossy(&o.stderr).trim().to_string();
                return Err(failed(if why.is_empty() {
                    format!("curl exited with {}", o.status)
                } else {
                    why
                }));
            }
            Ok(_) => {}
        }
    }
    // Check it loads before putting it where it will be found.
    model::Model::load(tmp.path())?;
    crate::disk::install::put_in_place(tmp, &dest)
}
