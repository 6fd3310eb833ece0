//! The cross-file commands (`refs`, `rename`): thin adapters over
//! [`crate::refs`]. `--json` prints the payload the MCP tool returns.

use super::layout::Head;
use super::output::Out;
use super::text::{absolute, emit};
use super::{RootArg, WriteOpts};
use crate::error::{Error, Result};
use crate::ops::engine::Engine;
use crate::ops::textops::{self, EditFilesParams, FileEdits};
use crate::refs::RefsRequest;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub(super) enum RefsCommand {
    /// Find the references to a symbol (or a bare --name) across the root:
    /// uses in code only, tiered proven / probable / name_only.
    Refs(RefsArgs),
    /// Rename a symbol and its references across files (a dry run unless
    /// --apply): one transaction, one edit id for `scalpel undo`.
    Rename(RenameArgs),
    /// Text edits to several files as one transaction: F.json holds
    /// [{"path", "edits": [{"old_text", "new_text", ...}], "expected_hash"?}]
    /// (paths relative to the root); all or nothing, one edit id.
    EditFiles(EditFilesArgs),
}

impl RefsCommand {
    pub(super) fn json(&self) -> bool {
        match self {
            RefsCommand::Refs(a) => a.json,
            RefsCommand::Rename(a) => a.json,
            RefsCommand::EditFiles(a) => a.json,
        }
    }
}

#[derive(Args, Debug)]
pub(super) struct RefsArgs {
    /// The file defining SYMBOL (with --name: a folder or file to search).
    file: Option<PathBuf>,
    /// The symbol's name path in FILE.
    symbol: Option<String>,
    /// A bare name instead of a symbol.
    #[arg(long, value_name = "NAME", conflicts_with = "symbol")]
    name: Option<String>,
    /// Only match symbols of this kind.
    #[arg(long)]
    kind: Option<String>,
    /// Only files matching this glob; repeatable.
    #[arg(long, value_name = "G")]
    include: Vec<String>,
    /// Skip files and folders matching this glob; repeatable.
    #[arg(long, value_name = "G")]
    exclude: Vec<String>,
    /// Most references listed (default 200); all are counted.
    #[arg(long, value_name = "N")]
    max_results: Option<usize>,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    root: RootArg,
}

#[derive(Args, Debug)]
pub(super) struct RenameArgs {
    /// The file defining SYMBOL.
    file: PathBuf,
    /// The symbol's name path in FILE.
    symbol: String,
    /// The new name.
    new_name: String,
    /// Write the change (default: a dry run showing the diff).
    #[arg(long)]
    apply: bool,
    /// Also rename the sites the backend cannot decide (probable, name only).
    #[arg(long, conflicts_with = "leave_uncertain")]
    include_name_only: bool,
    /// Rename only the proven sites and leave the undecided ones (listed).
    #[arg(long)]
    leave_uncertain: bool,
    /// Only files matching this glob; repeatable.
    #[arg(long, value_name = "G")]
    include: Vec<String>,
    /// Skip files and folders matching this glob; repeatable.
    #[arg(long, value_name = "G")]
    exclude: Vec<String>,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    root: RootArg,
}

fn rename_cmd(a: RenameArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let file = absolute(&a.file)?;
    let session = a.root.session(Some(&file), engine)?;
    let ws = session.ws();
    let req = RefsRequest {
        path: Some(file.to_string_lossy().into_owned()),
        symbol: Some(a.symbol),
        include: a.include,
        exclude: a.exclude,
        ..RefsRequest::default()
    };
    let r = crate::ops::lsp::rename::rename_symbol(
        &engine.lsp,
        ws,
        &engine.registry,
        &req,
        &a.new_name,
        if a.include_name_only {
            crate::ops::rename::Undecided::Rename
        } else if a.leave_uncertain {
            crate::ops::rename::Undecided::Leave
        } else {
            crate::ops::rename::Undecided::Refuse
        },
        !a.apply,
        &|p| engine.load(p, None).map(std::sync::Arc::new),
        &starting,
    )?;
    emit(out, a.json, &r, Head::Below);
    Ok(0)
}

#[derive(Args, Debug)]
pub(super) struct EditFilesArgs {
    /// The JSON file with the edits of each file.
    edits: PathBuf,
    #[command(flatten)]
    write: WriteOpts,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    root: RootArg,
}

fn edit_files_cmd(a: EditFilesArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let text = std::fs::read_to_string(&a.edits).map_err(|e| Error::io("read", &a.edits, &e))?;
    let files: Vec<FileEdits> = serde_json::from_str(&text).map_err(|e| {
        Error::invalid_argument(format!(
            "{} is not a list of file edits: {e}",
            a.edits.display()
        ))
        .with_suggestion(
            r#"write [{"path": "src/a.py", "edits": [{"old_text": "x", "new_text": "y"}]}]"#,
        )
    })?;
    if a.write.expected_hash.is_some() {
        return Err(Error::invalid_argument("--expected-hash is per file here")
            .with_suggestion(r#"put "expected_hash" in each file's entry of the JSON file"#));
    }
    let here = absolute(std::path::Path::new("."))?;
    let session = a.root.session(Some(&here), engine)?;
    let ws = session.ws();
    let params = EditFilesParams {
        files,
        dry_run: a.write.dry_run,
        allow_syntax_errors: a.write.allow_syntax_errors,
    };
    let r = textops::edit_files(ws, engine, &params)?;
    emit(out, a.json, &r, Head::Below);
    Ok(0)
}

pub(super) fn run(cmd: RefsCommand, engine: &Engine, out: &mut Out) -> Result<u8> {
    match cmd {
        RefsCommand::Refs(a) => refs_cmd(a, engine, out),
        RefsCommand::Rename(a) => rename_cmd(a, engine, out),
        RefsCommand::EditFiles(a) => edit_files_cmd(a, engine, out),
    }
}

fn refs_cmd(a: RefsArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let near = absolute(a.file.as_deref().unwrap_or(std::path::Path::new(".")))?;
    let session = a.root.session(Some(&near), engine)?;
    let ws = session.ws();
    let req = RefsRequest {
        path: a.file.as_ref().map(|_| near.to_string_lossy().into_owned()),
        symbol: a.symbol,
        name: a.name,
        kind: a.kind,
        include: a.include,
        exclude: a.exclude,
        max_results: a.max_results,
        max_files: None,
    };
    let r = crate::ops::lsp::refs::find_references(
        &engine.lsp,
        ws,
        &engine.registry,
        &req,
        &|p| engine.load(p, None).map(std::sync::Arc::new),
        &starting,
    )?;
    emit(out, a.json, &r, Head::Above);
    Ok(if r.total == 0 { 1 } else { 0 })
}

/// A language server starting for this command, said on stderr when it is
/// a terminal (a script reads the answer, not the wait).
fn starting(message: &str) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprintln!("scalpel: {message}");
    }
}
