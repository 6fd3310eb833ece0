//! The tools: one parameter struct and one thin adapter each. An adapter
//! resolves its path through the workspace sandbox, calls the library on the
//! blocking pool (through [`ScalpelServer::read`] or [`ScalpelServer::write`])
//! and returns `Result<Json<T>, ToolError>` — written literally like that, so
//! the `#[tool]` macro emits the output schema.
//!
//! Adding a tool: a `#[derive(Deserialize, JsonSchema)]` parameter struct
//! with a doc comment on every field (they become the input schema's
//! descriptions), a `Render` impl for its result type (`render.rs`), and one
//! `#[tool]` method below. Readers get `read_only_hint = true`; writers use
//! `self.write(...)`, which serializes calls per file, and get
//! `destructive_hint`/`idempotent_hint` as fits.

use super::ScalpelServer;
use super::reply::{Json, ToolError};
use crate::edit::Operation;
use crate::engine::{
    ExtractRequest, Extraction, FileSymbols, UpdateReceipt, UpdateRequest, extract_from,
    file_symbols,
};
use crate::fs::{Purpose, UndoOutcome};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSymbolsParams {
    /// File path, relative to the root or absolute inside it.
    pub path: String,
    /// Ranges include decorators, attributes and doc comments.
    #[serde(default = "yes")]
    #[schemars(default = "yes")]
    pub include_trivia: bool,
    /// Only symbols nested at most this deep (1 = top level).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub depth: Option<usize>,
    /// Only symbols of this kind (function, method, class, struct...).
    #[serde(default)]
    pub kind: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractCodeParams {
    /// File path, relative to the root or absolute inside it.
    pub path: String,
    /// Name path: `name`, `Outer.inner`, `/Top.level`, `Type::method#2`.
    pub symbol: String,
    /// Only match symbols of this kind.
    #[serde(default)]
    pub kind: Option<String>,
    /// Also return the code of the same-file definitions it uses.
    #[serde(default)]
    pub include_context: bool,
    /// Include decorators, attributes and doc comments.
    #[serde(default = "yes")]
    #[schemars(default = "yes")]
    pub include_trivia: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSymbolParams {
    /// File path, relative to the root or absolute inside it.
    pub path: String,
    /// Name path of the target symbol, as list_symbols/extract_code show it.
    pub symbol: String,
    /// replace (default), insert_before, insert_after or delete.
    #[serde(default)]
    pub operation: Option<Operation>,
    /// The new code (not for delete). Indentation and line endings are fitted to the file.
    #[serde(default)]
    pub new_code: Option<String>,
    /// Only match symbols of this kind.
    #[serde(default)]
    pub kind: Option<String>,
    /// Refuse (STALE_FILE) unless the file still has this file_hash.
    #[serde(default)]
    pub expected_hash: Option<String>,
    /// Return the receipt and diff without writing.
    #[serde(default)]
    pub dry_run: bool,
    /// Write even if the result has new parse errors (they are reported).
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoEditParams {
    /// The edited file.
    pub path: String,
    /// Edit to revert (default: the newest not yet undone on this file).
    #[serde(default)]
    pub edit_id: Option<String>,
    /// Undo even if the file changed since the edit (that change is backed up).
    #[serde(default)]
    pub force: bool,
}

#[tool_router(vis = "pub(super)")]
impl ScalpelServer {
    #[tool(
        description = "Outline of a source file: symbol name paths, kinds, line ranges, signatures, file_hash.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_symbols(
        &self,
        Parameters(p): Parameters<ListSymbolsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<FileSymbols>, ToolError> {
        self.read("list_symbols", &ctx, move |env| {
            let (file, parsed) = env.read_parsed(&p.path)?;
            let outline = file_symbols(&parsed, &file.display, p.include_trivia);
            crate::engine::select_symbols(outline, p.depth, p.kind.as_deref())
        })
        .await
        .map(Json)
    }

    #[tool(
        description = "One symbol's exact code by name path, with line range, file_hash, token estimate and the same-file symbols and imports it uses.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn extract_code(
        &self,
        Parameters(p): Parameters<ExtractCodeParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<Extraction>, ToolError> {
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
        .map(Json)
    }

    #[tool(
        description = "Replace, insert_before, insert_after or delete a symbol by name path. Refuses code that breaks parsing; atomic write; returns a diff and an edit_id for undo_edit.",
        annotations(
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn update_symbol(
        &self,
        Parameters(p): Parameters<UpdateSymbolParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<UpdateReceipt>, ToolError> {
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
                    operation: p.operation,
                    new_code: p.new_code,
                    expected_hash: p.expected_hash,
                    dry_run: p.dry_run,
                    allow_syntax_errors: p.allow_syntax_errors,
                    language: None,
                };
                let (receipt, reparsed) =
                    env.engine()
                        .update_parsed(env.ws(), &target, &parsed, &req)?;
                if let Some(new) = reparsed {
                    env.remember(&target, new);
                }
                Ok(receipt)
            },
        )
        .await
        .map(Json)
    }

    #[tool(
        description = "Restore a file to its state before an edit made through Scalpel. Refuses (STALE_FILE) if the file changed since, unless force.",
        annotations(
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn undo_edit(
        &self,
        Parameters(p): Parameters<UndoEditParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<UndoOutcome>, ToolError> {
        self.write(
            "undo_edit",
            &ctx,
            p.path,
            Purpose::Create,
            move |env, target| {
                crate::fs::undo(env.ws(), &target.path, p.edit_id.as_deref(), p.force)
            },
        )
        .await
        .map(Json)
    }
}
