//! The tools: one parameter struct and one thin adapter each. An adapter
//! resolves its path through the workspace sandbox, calls the library on the
//! blocking pool (through [`ScalpelServer::read`] or [`ScalpelServer::write`])
//! and returns `Result<Answer<T>, ToolError>` — written literally like that, so
//! the `#[tool]` macro emits the output schema.
//!
//! Adding a tool: a `#[derive(Deserialize, JsonSchema)]` parameter struct
//! with a doc comment on every field (they become the input schema's
//! descriptions), a `Render` impl for its result type (`crate::render`), and one
//! `#[tool]` method below. Readers get `read_only_hint = true`; writers use
//! `self.write(...)` (one file: serializes calls per file) or
//! `self.write_set(...)` (a transaction: its writer locks every file), and
//! state only the
//! hints that differ from MCP's defaults (a tool that is not read-only is
//! destructive and not idempotent unless it says otherwise): every hint
//! costs tokens in every session.

use super::ScalpelServer;
use super::params::{
    EditFilesParams, EditParams, FragmentParams, Operation, TreeParams, WriteParams,
};
use super::reply::{Answer, ToolError};
use crate::disk::grep::SearchControl;
use crate::disk::tree::TreeListing;
use crate::disk::{Purpose, UndoOutcome};
use crate::index::answer::{DEFAULT_MAX_RESULTS, DEFAULT_MAX_TOKENS};
use crate::index::{SearchAnswer, SearchRequest};
use crate::ops::engine::{
    ExtractRequest, Extraction, FileSymbols, UpdateReceipt, UpdateRequest, extract_from,
};
use crate::ops::rename::{RenameReceipt, Undecided};
use crate::ops::search::{SearchParams, SearchResult};
use crate::ops::textops::{
    self, EditFilesReceipt, EditReceipt, FileWindow, Fragment, WriteReceipt,
};
use crate::refs::{References, RefsRequest};
use crate::text::window::WindowRequest;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A language server starting for this request, told as the request's
/// progress (when it has a token) and in the log: the first call through a
/// server that loads its project waits seconds.
fn starting_progress(ctx: &RequestContext<RoleServer>) -> impl Fn(&str) + Send + 'static {
    let token = ctx.meta.get_progress_token();
    let peer = ctx.peer.clone();
    let runtime = tokio::runtime::Handle::current();
    move |message: &str| {
        tracing::info!(target: "scalpel::lsp", "{message}");
        if let Some(token) = &token {
            let note = ProgressNotificationParam::new(token.clone(), 0.0).with_message(message);
            let peer = peer.clone();
            runtime.spawn(async move {
                let _ = peer.notify_progress(note).await;
            });
        }
    }
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSymbolsParams {
    /// File or folder, relative to the root.
    #[schemars(description = "File or folder, relative to the root.")]
    pub path: String,
    /// Ranges include decorators, attributes and doc comments.
    #[schemars(description = "Ranges include decorators and doc comments.")]
    #[serde(default = "yes")]
    #[schemars(default = "yes")]
    pub include_trivia: bool,
    /// Levels shown (1 = top level).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub depth: Option<usize>,
    /// Only this kind (function, class, method...).
    #[serde(default)]
    pub kind: Option<String>,
    /// Only this symbol (name path) and its members, with a type's impl
    /// blocks in the file; `depth` then counts levels below it.
    #[schemars(
        description = "Only this symbol and its members (a type: with its impls in the file)."
    )]
    #[serde(default)]
    pub symbol: Option<String>,
    /// Most files of a folder (default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<usize>,
    /// Most symbols (default 1000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_symbols: Option<usize>,
    /// A cut outline's next_cursor: its next page.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractCodeParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    /// Name path: `name`, `Outer.inner`, `/Top.level`, `Type::method#2`.
    pub symbol: String,
    /// Only symbols of this kind.
    #[serde(default)]
    pub kind: Option<String>,
    /// Also the code of the same-file definitions it uses.
    #[serde(default)]
    pub include_context: bool,
    /// Include decorators and doc comments.
    #[serde(default = "yes")]
    #[schemars(default = "yes")]
    pub include_trivia: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSymbolParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    /// Name path, as list_symbols shows it.
    pub symbol: String,
    /// replace (default), insert_before, insert_after or delete.
    #[serde(default)]
    pub operation: Option<Operation>,
    /// Not for delete; indentation and line endings are fitted.
    #[serde(default)]
    pub new_code: Option<String>,
    /// Only symbols of this kind.
    #[serde(default)]
    pub kind: Option<String>,
    /// Refuse unless the file has this file_hash.
    #[serde(default)]
    pub expected_hash: Option<String>,
    // Show the diff; write nothing (the name says it).
    #[serde(default)]
    pub dry_run: bool,
    // Write despite new parse errors (the name says it).
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoEditParams {
    // The edited file.
    pub path: String,
    /// Default: the file's newest edit.
    #[serde(default)]
    pub edit_id: Option<String>,
    /// Undo over later changes (they are backed up).
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesParams {
    /// A line matches if it contains any of them.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// A regex instead of keywords.
    #[serde(default)]
    pub pattern: Option<String>,
    /// Folder, relative to the root (default: the root).
    #[serde(default)]
    pub path: Option<String>,
    /// Only files matching these globs ("*.rs", "src/**").
    #[serde(default)]
    pub include: Vec<String>,
    /// Skip paths matching these globs.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Match case exactly.
    #[serde(default)]
    pub case_sensitive: bool,
    // Whole words only (the name says it).
    #[serde(default)]
    pub whole_word: bool,
    /// Most files returned (default 100).
    #[serde(default)]
    pub max_results: Option<usize>,
    /// Lines of context around each match.
    #[serde(default)]
    pub context_lines: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    /// First line (1-based).
    #[serde(default)]
    pub start_line: Option<usize>,
    /// Last line (inclusive).
    #[serde(default)]
    pub end_line: Option<usize>,
    /// First N lines.
    #[serde(default)]
    pub head: Option<usize>,
    /// Last N lines.
    #[serde(default)]
    pub tail: Option<usize>,
    /// Line limit (default 1000).
    #[serde(default)]
    pub max_lines: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindReferencesParams {
    /// symbol's file; with name, a folder to search.
    #[serde(default)]
    pub path: Option<String>,
    /// Name path of the definition.
    #[serde(default)]
    pub symbol: Option<String>,
    /// A bare name instead.
    #[serde(default)]
    pub name: Option<String>,
    /// Globs to search.
    #[serde(default)]
    pub include: Option<Vec<String>>,
    /// Globs to skip.
    #[serde(default)]
    pub exclude: Option<Vec<String>>,
    /// Most listed (default 200).
    #[serde(default)]
    pub max_results: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameSymbolParams {
    /// File defining the symbol.
    pub path: String,
    /// Its name path.
    pub symbol: String,
    /// The new identifier.
    pub new_name: String,
    /// Diffs only, write nothing (default true).
    #[serde(default = "yes")]
    #[schemars(default = "yes")]
    pub dry_run: bool,
    /// Also rename undecided sites.
    #[serde(default)]
    pub include_name_only: bool,
    /// Rename proven sites only, leave undecided ones.
    #[serde(default)]
    pub leave_uncertain: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchCodebaseParams {
    /// What you look for: a question or identifiers.
    pub query: String,
    /// Only under this folder or file.
    #[serde(default)]
    pub path: Option<String>,
    /// Only files matching these globs.
    #[serde(default)]
    pub include: Vec<String>,
    /// Skip files matching these globs.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Only units of this kind (function, class...).
    #[serde(default)]
    pub kind: Option<String>,
    /// Only this language.
    #[serde(default)]
    pub language: Option<String>,
    /// Most hits (default 8).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_results: Option<usize>,
    /// Answer budget (default 1000: each hit's matched lines; more buys snippets).
    #[serde(default)]
    #[schemars(range(min = 200))]
    pub max_tokens: Option<usize>,
}

#[tool_router(vis = "pub(super)")]
impl ScalpelServer {
    #[tool(
        description = "Outline of a file or folder: name paths, kinds, lines, signatures.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_symbols(
        &self,
        Parameters(p): Parameters<ListSymbolsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<FileSymbols>, ToolError> {
        self.read("list_symbols", &ctx, move |env| {
            let file = env.resolve(&p.path, Purpose::Read)?;
            if file.path.is_dir() {
                if p.cursor.is_some() {
                    return Err(crate::Error::invalid_argument(
                        "a cursor pages one file's outline, not a folder's",
                    )
                    .with_suggestion("pass the file's path with the cursor"));
                }
                let req = crate::ops::engine::FolderRequest {
                    include_trivia: p.include_trivia,
                    symbol: p.symbol.as_deref(),
                    depth: p.depth,
                    kind: p.kind.as_deref(),
                    max_files: p.max_files,
                };
                return crate::ops::engine::folder_outline(
                    env.engine(),
                    env.ws(),
                    &file,
                    &req,
                    |f| env.parse_path(f),
                );
            }
            let parsed = env.parse(&file)?;
            crate::ops::engine::outline(
                &parsed,
                &file.display,
                p.include_trivia,
                p.symbol.as_deref(),
                p.depth,
                p.kind.as_deref(),
            )
            .and_then(|o| {
                let page = crate::ops::engine::Page {
                    max: p.max_symbols,
                    cursor: p.cursor.as_deref(),
                    budget: crate::ops::engine::Budget::Agent,
                };
                crate::ops::engine::page_symbols(o, &page)
            })
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "A symbol's exact code by name path, with lines, file_hash and the same-file names it uses.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn extract_code(
        &self,
        Parameters(p): Parameters<ExtractCodeParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<Extraction>, ToolError> {
        self.read("extract_code", &ctx, move |env| {
            let (file, parsed) = env.read_parsed(&p.path)?;
            let req = ExtractRequest {
                symbol: p.symbol,
                kind: p.kind,
                include_context: p.include_context,
                include_trivia: p.include_trivia,
                language: None,
            };
            extract_from(&parsed, &file.display, &req)
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "Replace, insert before/after or delete a symbol by name path; keeps its decorators and docs unless new_code has its own. Validated, atomic, undoable.",
        annotations(open_world_hint = false)
    )]
    async fn update_symbol(
        &self,
        Parameters(p): Parameters<UpdateSymbolParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<UpdateReceipt>, ToolError> {
        self.write(
            "update_symbol",
            &ctx,
            p.path,
            Purpose::Write,
            move |env, target| {
                let parsed = env.parse(&target)?;
                let req = UpdateRequest {
                    symbol: p.symbol,
                    kind: p.kind,
                    operation: p.operation.map(Into::into),
                    new_code: p.new_code,
                    expected_hash: p.expected_hash,
                    dry_run: p.dry_run,
                    allow_syntax_errors: p.allow_syntax_errors,
                    language: None,
                };
                let (receipt, reparsed) =
                    env.engine()
                        .update_parsed(env.ws(), &target, &parsed, &req)?;
                env.keep(&target, reparsed);
                Ok(receipt)
            },
        )
        .await
        .map(Answer)
    }

    #[tool(
        description = "Lines with any keyword (or a regex) in the root's files; gitignore-aware, ranked, bounded.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_files(
        &self,
        Parameters(p): Parameters<SearchFilesParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<SearchResult>, ToolError> {
        // The request's cancellation stops the walk; a progress token gets a
        // notification every PROGRESS_EVERY files.
        let cancel = Arc::new(AtomicBool::new(false));
        let watcher = {
            let (ct, cancel) = (ctx.ct.clone(), cancel.clone());
            tokio::spawn(async move {
                ct.cancelled().await;
                cancel.store(true, Ordering::Relaxed);
            })
        };
        let token = ctx.meta.get_progress_token();
        let peer = ctx.peer.clone();
        let runtime = tokio::runtime::Handle::current();
        let result = self
            .read("search_files", &ctx, move |env| {
                let report = |n: usize| {
                    if let Some(token) = &token {
                        let (peer, token) = (peer.clone(), token.clone());
                        runtime.spawn(async move {
                            let note =
                                ProgressNotificationParam::new(token, n as f64).with_message(
                                    format!("{} searched", crate::text::count(n, "file")),
                                );
                            let _ = peer.notify_progress(note).await;
                        });
                    }
                };
                let control = SearchControl {
                    cancel: Some(&cancel),
                    progress: Some(&report),
                };
                let params = SearchParams {
                    keywords: p.keywords,
                    pattern: p.pattern,
                    path: p.path,
                    include: p.include,
                    exclude: p.exclude,
                    case_sensitive: p.case_sensitive,
                    whole_word: p.whole_word,
                    max_results: p.max_results,
                    context_lines: p.context_lines,
                    ..SearchParams::default()
                };
                crate::ops::search::search_remembered(
                    env.ws(),
                    env.engine(),
                    env.cache(),
                    &params,
                    control,
                )
            })
            .await;
        watcher.abort();
        result.map(Answer)
    }

    #[tool(
        description = "A file or line window, bounded, with total_lines and file_hash.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_file(
        &self,
        Parameters(p): Parameters<ReadFileParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<FileWindow>, ToolError> {
        self.read("read_file", &ctx, move |env| {
            let req = WindowRequest {
                start_line: p.start_line,
                end_line: p.end_line,
                head: p.head,
                tail: p.tail,
                max_lines: p.max_lines,
                max_bytes: None,
            };
            textops::read_file(env.ws(), env.engine(), Path::new(&p.path), &req)
                .map_err(|e| e.or_path(&p.path))
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "Line ranges, keyword lines and symbols of a file, with context, merged, within a line budget.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_fragment(
        &self,
        Parameters(p): Parameters<FragmentParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<Fragment>, ToolError> {
        let p = textops::FragmentParams::from(p);
        self.read("read_fragment", &ctx, move |env| {
            textops::read_fragment(env.ws(), env.engine(), &p).map_err(|e| e.or_path(&p.path))
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "Replace text; each old_text must match once; all or nothing. Validated, undoable.",
        annotations(open_world_hint = false)
    )]
    async fn edit_file(
        &self,
        Parameters(p): Parameters<EditParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<EditReceipt>, ToolError> {
        let p = textops::EditParams::from(p);
        let path = p.path.clone();
        self.write(
            "edit_file",
            &ctx,
            path,
            Purpose::Write,
            move |env, target| {
                // The cached parse when the file has a grammar; plain text
                // files (or ones the parser refuses) are edited without one.
                let parsed = env.parse(&target).ok();
                let (receipt, reparsed) =
                    textops::edit_resolved(env.ws(), env.engine(), &target, parsed.as_deref(), &p)?;
                env.keep(&target, reparsed);
                Ok(receipt)
            },
        )
        .await
        .map(Answer)
    }

    #[tool(
        description = "Create or overwrite a whole file; validated, undoable.",
        annotations(idempotent_hint = true, open_world_hint = false)
    )]
    async fn write_file(
        &self,
        Parameters(p): Parameters<WriteParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<WriteReceipt>, ToolError> {
        let p = textops::WriteParams::from(p);
        let path = p.path.clone();
        self.write(
            "write_file",
            &ctx,
            path,
            Purpose::Create,
            move |env, target| textops::write_resolved(env.ws(), env.engine(), &target, &p),
        )
        .await
        .map(Answer)
    }

    #[tool(
        description = "Find code by what it does or by name: ranked units (path, lines, name path, summary, snippet) from a live index.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_codebase(
        &self,
        Parameters(p): Parameters<SearchCodebaseParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<SearchAnswer>, ToolError> {
        // A progress token hears how the first indexing goes while the
        // search waits for it.
        let token = ctx.meta.get_progress_token();
        let peer = ctx.peer.clone();
        let runtime = tokio::runtime::Handle::current();
        self.read("search_codebase", &ctx, move |env| {
            let mut req = SearchRequest::new(p.query);
            req.path = p.path;
            req.include = p.include;
            req.exclude = p.exclude;
            req.kind = p.kind;
            req.language = p.language;
            req.max_results = p.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
            let mut report = |done: usize, total: usize| {
                if let Some(token) = &token {
                    let mut note =
                        ProgressNotificationParam::new(token.clone(), done as f64).with_message(
                            format!("indexing: {done} of {}", crate::text::count(total, "file")),
                        );
                    note.total = Some(total as f64);
                    // In order, before the answer.
                    let _ = runtime.block_on(peer.notify_progress(note));
                }
            };
            env.index()?.search_reporting(
                &req,
                p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
                &mut report,
            )
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "Directory tree, gitignore-aware, bounded.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_directory(
        &self,
        Parameters(p): Parameters<TreeParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<TreeListing>, ToolError> {
        let p = crate::disk::tree::TreeParams::from(p);
        self.read("list_directory", &ctx, move |env| {
            textops::tree(env.ws(), &p)
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "References to a symbol or bare name across the root, in code only (not strings/comments), tiered proven, probable or name_only.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_references(
        &self,
        Parameters(p): Parameters<FindReferencesParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<References>, ToolError> {
        let starting = starting_progress(&ctx);
        self.read("find_references", &ctx, move |env| {
            let req = RefsRequest {
                path: p.path,
                symbol: p.symbol,
                name: p.name,
                kind: None,
                include: p.include.unwrap_or_default(),
                exclude: p.exclude.unwrap_or_default(),
                max_results: p.max_results,
                max_files: None,
            };
            let load = |path: &Path| env.parse_path(path);
            let e = env.engine();
            crate::ops::lsp::refs::find_references(
                &e.lsp,
                env.ws(),
                &e.registry,
                &req,
                &load,
                &starting,
            )
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "Rename a symbol and the references proven bound to it; undecided sites refuse it (UNCERTAIN) unless include_name_only or leave_uncertain. dry_run (default): diffs. One edit_id.",
        annotations(open_world_hint = false)
    )]
    async fn rename_symbol(
        &self,
        Parameters(p): Parameters<RenameSymbolParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<RenameReceipt>, ToolError> {
        let starting = starting_progress(&ctx);
        self.write_set("rename_symbol", &ctx, move |env| {
            let req = RefsRequest {
                path: Some(p.path),
                symbol: Some(p.symbol),
                ..RefsRequest::default()
            };
            let load = |path: &Path| env.parse_path(path);
            crate::ops::lsp::rename::rename_symbol(
                &env.engine().lsp,
                env.ws(),
                &env.engine().registry,
                &req,
                &p.new_name,
                match (p.include_name_only, p.leave_uncertain) {
                    (true, true) => {
                        return Err(crate::error::Error::invalid_argument(
                            "include_name_only and leave_uncertain contradict each other",
                        )
                        .with_suggestion(
                            "pass one of them: rename the undecided sites, or leave them",
                        ));
                    }
                    (true, false) => Undecided::Rename,
                    (false, true) => Undecided::Leave,
                    (false, false) => Undecided::Refuse,
                },
                p.dry_run,
                &load,
                &starting,
            )
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "edit_file for several files at once: files [{path, edits, expected_hash?}], all matched and validated first, written as one transaction; one edit_id undoes all.",
        annotations(open_world_hint = false)
    )]
    async fn edit_files(
        &self,
        Parameters(p): Parameters<EditFilesParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<EditFilesReceipt>, ToolError> {
        let p = textops::EditFilesParams::from(p);
        self.write_set("edit_files", &ctx, move |env| {
            textops::edit_files(env.ws(), env.engine(), &p)
        })
        .await
        .map(Answer)
    }

    #[tool(
        description = "Restore a file to before an edit; refused if it changed since, unless force.",
        annotations(open_world_hint = false)
    )]
    async fn undo_edit(
        &self,
        Parameters(p): Parameters<UndoEditParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Answer<UndoOutcome>, ToolError> {
        // An edit may be one of a transaction: its writer locks every file.
        self.write_set("undo_edit", &ctx, move |env| {
            crate::disk::undo(env.ws(), Path::new(&p.path), p.edit_id.as_deref(), p.force)
        })
        .await
        .map(Answer)
    }
}
