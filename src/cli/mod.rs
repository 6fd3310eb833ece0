//! The `scalpel` command line: one thin adapter per command over `engine`.
//! Human output by default; `--json` prints the same payloads as the MCP
//! tools. Exit codes: 0 success, 1 the operation failed (not found,
//! ambiguous, syntax error, check failed), 2 usage or I/O error.

mod find;
mod layout;
mod output;
mod refs;
mod text;
pub mod words;

use crate::check;
use crate::disk::{Purpose, Workspace};
use crate::edit::Operation;
use crate::error::{Error, Result};
use crate::lang::{LANG_DIR_ENV, Language, Registry};
use crate::ops::engine::{Engine, ExtractRequest, FileSymbols, UpdateRequest};
use crate::ops::{Session, session};
use crate::text::count as plural;
use clap::{Args, Parser, Subcommand};
use layout::Head;
use output::Out;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "scalpel",
    version,
    about = "Read and edit code by symbol name, surgically and safely"
)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Debug)]
struct GlobalArgs {
    /// Directory of language overrides (grammars/*.toml, queries/<lang>/*.scm).
    #[arg(long, global = true, env = LANG_DIR_ENV, value_name = "DIR")]
    lang_dir: Option<PathBuf>,
    /// Refuse files larger than this many bytes.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = crate::disk::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
    /// Give up parsing a file after this many seconds (TIMEOUT). Default:
    /// 5 s plus 2 s per MiB of the file.
    #[arg(long, global = true, value_name = "SECONDS")]
    parse_timeout: Option<f64>,
    /// Use COMMAND as LANG's language server for refs and rename
    /// (e.g. python="pyright-langserver --stdio"); repeatable. Default: the
    /// server named in grammars/LANG.toml, when on PATH.
    #[arg(long, global = true, value_name = "LANG=COMMAND")]
    lsp: Vec<String>,
    /// No language servers: the syntax backend answers refs and rename.
    #[arg(long, global = true, conflicts_with = "lsp")]
    no_lsp: bool,
    /// Give up on a language server's answer after this many seconds (the
    /// syntax backend then answers, with a note).
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 30.0)]
    lsp_timeout: f64,
}

/// `--root`, shared by every command that needs a workspace.
#[derive(Args, Debug)]
struct RootArg {
    /// Workspace root: paths outside it are refused; backups and the journal
    /// live in ROOT/.scalpel. Default: the git work tree holding the file,
    /// else the nearest folder above it holding a .scalpel/ journal, else
    /// the current directory.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

impl RootArg {
    /// The [`Session`] a command runs on: the workspace of `--root` (or the
    /// default root) and `engine`, as the MCP server builds one per call.
    fn session(&self, near: Option<&Path>, engine: &Engine) -> Result<Session> {
        let ws = self.workspace(near, engine)?;
        let shared = session::Shared::new(engine.clone(), Default::default());
        Ok(Session::new(std::sync::Arc::new(ws), shared))
    }

    fn workspace(&self, near: Option<&Path>, engine: &Engine) -> Result<Workspace> {
        let ws = match &self.root {
            Some(r) => Workspace::new(r)?,
            None => Workspace::new(default_root(near)?)?,
        };
        // Opening the root rolled back an interrupted transaction or
        // refused a record that is not this machine's: said once, here.
        for note in ws.notes() {
            eprintln!("warning: {note}");
        }
        Ok(ws.with_max_file_size(engine.max_file_size))
    }

    /// The real path of `file` for a reading command (`extract`, `symbols`,
    /// `parse`), resolved in the same sandbox as every other command: inside
    /// `--root` (or the default root), never in `.git` or a git directory,
    /// symlinks followed only inside. The result is read through
    /// [`crate::disk::door`].
    fn read_target(&self, file: &Path, engine: &Engine) -> Result<PathBuf> {
        let file = text::absolute(file)?;
        let ws = self.workspace(Some(&file), engine)?;
        Ok(ws.resolve(&file, Purpose::Read)?.path)
    }
}

/// The root when `--root` is not given, found from `near` (else the
/// current directory): the nearest git work tree around it, else the nearest
/// folder above it holding a `.scalpel/` journal (so `history` and `undo`
/// work from any folder inside a root that is not a git repository), else the
/// current directory when it holds `near`, else `near`'s own folder. One rule
/// for every command: a file the user names is always inside its root.
fn default_root(near: Option<&Path>) -> Result<PathBuf> {
    let cwd = current_dir()?;
    let start = cwd.join(near.unwrap_or(Path::new(".")));
    // The nearest existing folder holding `near`, without following a
    // symlink `near` itself may be: the root is where the name is.
    let Some(start) = start
        .ancestors()
        .find(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
        .and_then(|p| std::fs::canonicalize(p).ok())
    else {
        return Ok(cwd);
    };
    let mut journaled = None;
    for dir in start.ancestors() {
        if dir.join(".git").exists() {
            return Ok(dir.to_path_buf());
        }
        if journaled.is_none() && dir.join(crate::disk::SCALPEL_DIR).is_dir() {
            journaled = Some(dir.to_path_buf());
        }
    }
    if let Some(j) = journaled {
        return Ok(j);
    }
    let cwd_real = std::fs::canonicalize(&cwd).unwrap_or(cwd.clone());
    if start.starts_with(&cwd_real) {
        return Ok(cwd);
    }
    Ok(start)
}

/// The values of `update --op`, each listed once; the MCP spellings
/// (`insert_before`) are accepted too.
fn operations() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("replace"),
        PossibleValue::new("insert-before").alias("insert_before"),
        PossibleValue::new("insert-after").alias("insert_after"),
        PossibleValue::new("delete"),
    ])
}

/// How symbols are addressed, shown by `extract --help` and `update --help`.
const NAME_PATHS: &str = "\
Name paths (SYMBOL):
  name               matches anywhere in the file: `add`
  Outer.inner        matches a suffix of the path: `Warehouse.add`
  Type::method       `.`, `::` and `/` are interchangeable: `Point::new`
  /Top               starts at the top level: `/Warehouse`
  name#N             the N-th match in file order (overloads, setters): `size#2`
  Wrapper<T>::get    generic arguments are ignored
A name that matches several symbols fails (AMBIGUOUS) and lists an address
for each that works verbatim; `scalpel symbols FILE` lists every address.";

/// The options every writing command shares.
#[derive(Args, Debug)]
struct WriteOpts {
    /// Show the receipt and diff, write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Refuse unless the file still has this hash (from an earlier read).
    #[arg(long, value_name = "H")]
    expected_hash: Option<String>,
    /// Write even if the result has new parse errors.
    #[arg(long)]
    allow_syntax_errors: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    #[command(flatten)]
    Text(text::TextCommand),
    #[command(flatten)]
    Refs(refs::RefsCommand),
    #[command(flatten)]
    Find(find::FindCommand),
    /// List the symbols of files or directories (directories are walked,
    /// honouring .gitignore).
    Symbols {
        /// Files and folders to list.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// One JSON object per file per line.
        #[arg(long)]
        json: bool,
        /// Report bare definition ranges (without decorators, attributes, docs).
        #[arg(long)]
        no_trivia: bool,
        /// Force a language instead of detecting it (see `scalpel languages`).
        #[arg(long, value_name = "LANG")]
        language: Option<String>,
        /// Only this symbol (a name path, e.g. a class) and its members, with a
        /// type's impl blocks in the file.
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// Show at most this many symbols per file. Text output is cut to
        /// about 2,000 tokens by default (1000 symbols; 48 KB with this
        /// flag) and says how to get the next page; `--json` lists every
        /// symbol unless this flag limits it.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_symbols: Option<u64>,
        /// The next page of a cut outline (the `next_cursor` it printed).
        #[arg(long, value_name = "CURSOR")]
        cursor: Option<String>,
        /// Only symbols nested at most this deep (1 = top level).
        #[arg(long, value_name = "N")]
        depth: Option<usize>,
        /// Only symbols of this kind (function, method, class, struct, ...).
        #[arg(long)]
        kind: Option<String>,
        #[command(flatten)]
        root: RootArg,
    },
    /// Print one symbol's code, addressed by name path (`Class.method`).
    #[command(after_help = NAME_PATHS)]
    Extract(ExtractArgs),
    /// Replace, insert next to, or delete a symbol. New code comes from
    /// --code-file or stdin.
    #[command(after_help = NAME_PATHS)]
    Update(UpdateArgs),
    /// Restore a file as it was before an edit (default: its last edit).
    Undo(UndoArgs),
    /// List journal entries (newest first), for one file or the whole root.
    History(HistoryArgs),
    /// List the supported languages.
    Languages {
        /// Print the result as JSON (the payload of the MCP tool).
        #[arg(long)]
        json: bool,
    },
    /// Serve the tools over MCP on stdin/stdout (for Claude Code, Cursor,
    /// VS Code, ...). Logs go to stderr.
    Serve {
        /// Directory the tools may read and edit (default: the client's
        /// MCP roots, else the working directory).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Log filter for stderr: error, warn, info, debug, trace.
        #[arg(long, value_name = "LEVEL", default_value = "warn")]
        log_level: String,
        #[command(flatten)]
        model: find::ModelArg,
        /// Do not watch the root for changes: the search index still learns
        /// of the server's own writes at once; other programs' changes are
        /// seen at the next start.
        #[arg(long)]
        no_watch: bool,
        #[command(flatten)]
        http: HttpArgs,
    },
    /// Parse a file and report errors; `--dump-tree` prints the syntax tree.
    Parse(ParseArgs),
    /// Check that files parse; exit 1 on parse errors. Folders are walked
    /// honouring .gitignore; files without a grammar, binary and non-UTF-8
    /// files are skipped and counted.
    Check(CheckArgs),
    /// Install or remove the git pre-commit hook running `scalpel check --staged`.
    Hook {
        #[command(subcommand)]
        action: HookCommand,
    },
}

/// `scalpel serve --http`: MCP over streamable HTTP for many clients.
#[derive(Args, Debug)]
struct HttpArgs {
    /// Serve MCP over streamable HTTP at http://ADDR:PORT/mcp instead of
    /// stdio (default 127.0.0.1:0: a free loopback port, printed on stderr
    /// and written to ROOT/.scalpel/server.json). One root per server:
    /// --root, else the working directory.
    #[arg(long, value_name = "ADDR:PORT", num_args = 0..=1,
          default_missing_value = crate::mcp::HttpOptions::DEFAULT_ADDR)]
    http: Option<std::net::SocketAddr>,
    /// Allow --http to listen on an address other machines can reach.
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// Read the bearer token from FILE (mode 0600) instead of generating
    /// one into ROOT/.scalpel/http-token at each start.
    #[arg(long, value_name = "FILE", requires = "http")]
    token_file: Option<PathBuf>,
    /// A browser origin (scheme://host:port) whose pages may call the
    /// server; repeatable. Requests with any other Origin get 403.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// Open sessions at most.
    #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
    max_sessions: usize,
    /// Requests in flight at most, all sessions together.
    #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
    max_requests: usize,
    /// Requests in flight at most in one session.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "http")]
    max_session_requests: usize,
    /// Close a session idle for this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 1800, requires = "http")]
    idle_timeout: u64,
}

#[derive(Args, Debug)]
struct ExtractArgs {
    /// The file holding the symbol.
    file: PathBuf,
    /// The symbol's name path (see below).
    symbol: String,
    /// Only match symbols of this kind (function, method, class, ...).
    #[arg(long)]
    kind: Option<String>,
    /// Also print the code of the same-file definitions it uses.
    #[arg(long)]
    context: bool,
    /// The bare definition, without decorators, attributes or doc comments.
    #[arg(long)]
    no_trivia: bool,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    /// Force a language instead of detecting it (see `scalpel languages`).
    #[arg(long, value_name = "LANG")]
    language: Option<String>,
    #[command(flatten)]
    root: RootArg,
}

#[derive(Args, Debug)]
struct UpdateArgs {
    /// The file holding the symbol.
    file: PathBuf,
    /// The symbol's name path (see below); inserts go next to it.
    symbol: String,
    /// What to do with the symbol: replace it, insert the new code before
    /// or after it, or delete it (no new code).
    #[arg(long, value_name = "OP", default_value = "replace", value_parser = operations())]
    op: String,
    /// Read the new code from this file instead of stdin.
    #[arg(long, value_name = "F")]
    code_file: Option<PathBuf>,
    /// Only match symbols of this kind (function, method, class, ...).
    #[arg(long)]
    kind: Option<String>,
    #[command(flatten)]
    write: WriteOpts,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    /// Force a language instead of detecting it (see `scalpel languages`).
    #[arg(long, value_name = "LANG")]
    language: Option<String>,
    #[command(flatten)]
    root: RootArg,
}

#[derive(Args, Debug)]
struct UndoArgs {
    /// The file to restore.
    file: PathBuf,
    /// The edit to undo (an id from `scalpel history`; default: the
    /// file's newest edit not undone yet).
    #[arg(long = "edit", value_name = "ID")]
    edit_id: Option<String>,
    /// Undo even if the file changed since that edit.
    #[arg(long)]
    force: bool,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    root: RootArg,
}

#[derive(Args, Debug)]
struct HistoryArgs {
    /// Only this file's edits (default: every edit under the root).
    file: Option<PathBuf>,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    root: RootArg,
}

#[derive(Args, Debug)]
struct ParseArgs {
    /// The file to parse.
    file: PathBuf,
    /// Print the syntax tree (node kinds, fields, positions), to write
    /// queries for a language.
    #[arg(long)]
    dump_tree: bool,
    /// Print the search index's units of the file, one JSON line each, with
    /// the words the embedding model is given for it (by part).
    #[arg(long, conflicts_with = "dump_tree")]
    dump_units: bool,
    /// Print the result as JSON (the payload of the MCP tool).
    #[arg(long)]
    json: bool,
    /// Force a language instead of detecting it (see `scalpel languages`).
    #[arg(long, value_name = "LANG")]
    language: Option<String>,
    #[command(flatten)]
    root: RootArg,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Files and folders (default `.`); with --staged, pathspecs.
    paths: Vec<PathBuf>,
    /// Check the staged content (the index), not the work tree.
    #[arg(long)]
    staged: bool,
    /// Fail only on errors HEAD did not have (default with --staged).
    #[arg(long)]
    new_only: bool,
    /// Every parse error counts (turns --new-only off).
    #[arg(long, conflicts_with_all = ["new_only", "since"])]
    all_errors: bool,
    /// Fail only on errors this revision did not have.
    #[arg(long, value_name = "REV")]
    since: Option<String>,
    /// Print the report as one JSON document.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum HookCommand {
    /// Write .git/hooks/pre-commit (honours core.hooksPath).
    Install {
        /// Replace a pre-commit hook Scalpel did not write (kept as a backup).
        #[arg(long)]
        force: bool,
        /// Print the result as JSON (the payload of the MCP tool).
        #[arg(long)]
        json: bool,
    },
    /// Remove the pre-commit hook if Scalpel wrote it.
    Uninstall {
        /// Print the result as JSON (the payload of the MCP tool).
        #[arg(long)]
        json: bool,
    },
}

/// Entry point used by `main`.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let json = cli.command.json();
    let mut out = Out::stdout();
    match run(cli, &mut out) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            report(&mut out, &e, json);
            ExitCode::from(e.code().exit_code() as u8)
        }
    }
}

impl Command {
    fn json(&self) -> bool {
        match self {
            Command::Text(t) => t.json(),
            Command::Refs(r) => r.json(),
            Command::Find(f) => f.json(),
            Command::Extract(ExtractArgs { json, .. })
            | Command::Update(UpdateArgs { json, .. })
            | Command::Undo(UndoArgs { json, .. })
            | Command::History(HistoryArgs { json, .. })
            | Command::Parse(ParseArgs { json, .. })
            | Command::Check(CheckArgs { json, .. })
            | Command::Symbols { json, .. }
            | Command::Languages { json }
            | Command::Hook {
                action: HookCommand::Install { json, .. } | HookCommand::Uninstall { json },
            } => *json,
            Command::Serve { .. } => false,
        }
    }
}

/// Errors go to stdout as JSON with `--json` (the same payload as MCP), and
/// to stderr as text otherwise.
/// Hints are rendered in CLI words (flags and commands, see `words.rs`);
/// the places and candidates in `details` are listed under the hint.
fn report(out: &mut Out, e: &Error, json: bool) {
    let e = e.rendered(words::cli_words);
    if json {
        out.line(&serde_json::json!({"error": e.to_json()}).to_string());
    } else {
        eprintln!("error[{}]: {}", e.code(), e.message);
        if !e.suggestion.is_empty() {
            eprintln!("  hint: {}", e.suggestion);
        }
        for line in crate::error::detail_lines(&e.details, words::cli_words) {
            eprintln!("  {line}");
        }
    }
}

fn engine(g: &GlobalArgs) -> Result<Engine> {
    let registry = Registry::with_override(g.lang_dir.as_deref())?;
    let lsp = crate::lsp::Settings::from_flags(&g.lsp, g.no_lsp, g.lsp_timeout, &registry)?;
    Ok(Engine {
        lsp: std::sync::Arc::new(crate::lsp::Servers::new(lsp)),
        registry,
        max_file_size: g.max_file_size,
        parse_budget: match g.parse_timeout {
            Some(s) if s.is_finite() && s > 0.0 => {
                crate::symbols::ParseBudget::fixed(std::time::Duration::from_secs_f64(s))
            }
            Some(s) => {
                return Err(crate::error::Error::invalid_argument(format!(
                    "the parse timeout must be a positive number of seconds, not {s}"
                ))
                .with_suggestion("give ⟦parse_timeout⟧ in seconds, e.g. 30")
                .with_details(serde_json::json!({"parse_timeout": s})));
            }
            None => crate::symbols::ParseBudget::default(),
        },
    })
}

fn run(cli: Cli, out: &mut Out) -> Result<u8> {
    let engine = engine(&cli.global)?;
    match cli.command {
        Command::Text(cmd) => text::run(cmd, &engine, out),
        Command::Refs(cmd) => refs::run(cmd, &engine, out),
        Command::Find(cmd) => find::run(cmd, &engine, out),
        Command::Symbols {
            paths,
            json,
            no_trivia,
            language,
            symbol,
            max_symbols,
            cursor,
            depth,
            kind,
            root,
        } => symbols_cmd(
            &engine,
            &root,
            &paths,
            SymbolsOptions {
                json,
                trivia: !no_trivia,
                language: language.as_deref(),
                symbol: symbol.as_deref(),
                max_symbols: max_symbols.map(|n| n as usize),
                cursor: cursor.as_deref(),
                depth,
                kind: kind.as_deref(),
            },
            out,
        ),
        Command::Extract(a) => extract_cmd(a, &engine, out),
        Command::Update(a) => update_cmd(a, &engine, out),
        Command::Undo(a) => undo_cmd(a, &engine, out),
        Command::History(a) => history_cmd(a, &engine, out),
        Command::Serve {
            root,
            log_level,
            model,
            no_watch,
            http,
        } => {
            // Language servers: started on first need, shut down when idle
            // and when the server ends.
            let lsp = engine.lsp.clone();
            lsp.reap_every(std::time::Duration::from_secs(60));
            let mut options = crate::mcp::ServerOptions::from_env(root, engine);
            options.index = crate::mcp::IndexOptions {
                model: model.model,
                at_start: true,
                no_watch,
            };
            match http.http {
                None => crate::mcp::serve_stdio(options, &log_level)?,
                Some(addr) => {
                    let http = crate::mcp::HttpOptions {
                        addr,
                        allow_remote: http.allow_remote,
                        token_file: http.token_file,
                        allow_origins: http.allow_origin,
                        max_sessions: http.max_sessions,
                        max_requests: http.max_requests,
                        max_session_requests: http.max_session_requests,
                        idle_timeout: std::time::Duration::from_secs(http.idle_timeout.max(1)),
                    };
                    crate::mcp::serve_http(options, http, &log_level)?
                }
            }
            lsp.shutdown();
            Ok(0)
        }
        Command::Languages { json } => {
            languages_cmd(&engine, json, out);
            Ok(0)
        }
        Command::Parse(a) => parse_cmd(a, &engine, out),
        Command::Check(a) => check_cmd(a, &engine, out),
        Command::Hook { action } => {
            let (outcome, json) = match action {
                HookCommand::Install { force, json } => {
                    let exe = std::env::current_exe().ok();
                    (
                        check::hook::install(&current_dir()?, exe.as_deref(), force)?,
                        json,
                    )
                }
                HookCommand::Uninstall { json } => (check::hook::uninstall(&current_dir()?)?, json),
            };
            out.line(&if json {
                to_json(&outcome)
            } else {
                outcome.message
            });
            Ok(0)
        }
    }
}

fn extract_cmd(a: ExtractArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let ExtractArgs {
        file,
        symbol,
        kind,
        context,
        no_trivia,
        json,
        language,
        root,
    } = a;
    let real = root.read_target(&file, engine)?;
    let req = ExtractRequest {
        symbol,
        kind,
        include_context: context,
        include_trivia: !no_trivia,
        language,
    };
    let x = engine.extract(&real, &display(&file), &req)?;
    text::emit(out, json, &x, Head::Stderr);
    Ok(0)
}

fn update_cmd(a: UpdateArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let UpdateArgs {
        file,
        symbol,
        op,
        code_file,
        kind,
        write,
        json,
        language,
        root,
    } = a;
    let operation = Operation::parse(&op)?;
    let new_code = match (operation, code_file) {
        (Operation::Delete, _) => None,
        (_, Some(f)) => Some(std::fs::read_to_string(&f).map_err(|e| Error::io("read", &f, &e))?),
        (_, None) => {
            stdin_notice("the new code (or pass --code-file F)");
            let mut buf = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut buf)
                .map_err(|e| Error::io("read", Path::new("<stdin>"), &e))?;
            Some(buf)
        }
    };
    // Relative to the current directory, not to the root.
    let file = text::absolute(&file)?;
    let session = root.session(Some(&file), engine)?;
    let ws = session.ws();
    let req = UpdateRequest {
        symbol,
        kind,
        operation: Some(operation),
        new_code,
        expected_hash: write.expected_hash,
        dry_run: write.dry_run,
        allow_syntax_errors: write.allow_syntax_errors,
        language,
    };
    let r = engine.update_symbol(ws, &file, &req)?;
    text::emit(out, json, &r, Head::Below);
    Ok(0)
}

fn undo_cmd(a: UndoArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let UndoArgs {
        file,
        edit_id,
        force,
        json,
        root,
    } = a;
    let file = text::absolute(&file)?;
    let session = root.session(Some(&file), engine)?;
    let ws = session.ws();
    let u = crate::disk::undo(ws, &file, edit_id.as_deref(), force)?;
    text::emit(out, json, &u, Head::Below);
    Ok(0)
}

fn history_cmd(a: HistoryArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let HistoryArgs { file, json, root } = a;
    let file = file.as_deref().map(text::absolute).transpose()?;
    let session = root.session(file.as_deref(), engine)?;
    let ws = session.ws();
    let entries = crate::disk::history(ws, file.as_deref())?;
    if json {
        out.line(&to_json(&entries));
    } else {
        for e in &entries {
            out.line(&format!(
                "{}  {}  {}  {}{}",
                e.edit_id,
                e.time,
                e.path,
                e.operation,
                e.symbol
                    .as_deref()
                    .map(|s| format!(" {s}"))
                    .unwrap_or_default()
            ));
        }
    }
    Ok(0)
}

fn parse_cmd(a: ParseArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let ParseArgs {
        file,
        dump_tree,
        dump_units,
        json,
        language,
        root,
    } = a;
    let real = root.read_target(&file, engine)?;
    let parsed = engine.load(&real, language.as_deref())?;
    // What edits re-indent new code to (`update` / `insert`).
    let indentation = crate::edit::indent::style_of(&parsed);
    if dump_units {
        for u in crate::index::units::units_of_parsed(&parsed, &display(&file)) {
            let [name, file, signature, doc, body] = crate::index::embedding_words(&u);
            out.line(&to_json(&serde_json::json!({
                "path": u.path,
                "start_line": u.start_line,
                "end_line": u.end_line,
                "kind": u.kind,
                "name_path": u.name_path,
                "part": u.part,
                "words": {"name": name, "file": file, "signature": signature, "doc": doc, "body": body},
            })));
        }
    } else if dump_tree {
        out.raw(&crate::symbols::dump_tree(
            &parsed.tree,
            parsed.source.body(),
            40,
        ));
    } else if json {
        out.line(&to_json(&serde_json::json!({
            "path": display(&file),
            "language": parsed.language.name(),
            "symbols": parsed.symbols.len(),
            "parse_errors": parsed.parse_error_count,
            "parse_error_locations": parsed.parse_errors,
            "indentation": indentation,
        })));
    } else {
        out.line(&format!(
            "{}: {}, {}",
            display(&file),
            plural(parsed.symbols.len(), "symbol"),
            plural(parsed.parse_error_count, "parse error")
        ));
        for e in &parsed.parse_errors {
            out.line(&format!(
                "{}:{}:{}: {}",
                display(&file),
                e.line,
                e.column,
                e.what
            ));
        }
        out.line(&format!(
            "indentation: {}",
            match indentation {
                crate::source::Indent::Tabs => "tabs".to_string(),
                crate::source::Indent::Spaces(w) => plural(usize::from(w), "space"),
                crate::source::Indent::Unknown => "unknown (no line goes a step deeper)".into(),
            }
        ));
    }
    Ok(if parsed.parse_error_count > 0 { 1 } else { 0 })
}

fn check_cmd(a: CheckArgs, engine: &Engine, out: &mut Out) -> Result<u8> {
    let CheckArgs {
        paths,
        staged,
        new_only,
        all_errors,
        since,
        json,
    } = a;
    let opts = check::CheckOptions {
        paths,
        staged,
        baseline: check::Baseline::from_flags(staged, new_only, all_errors, since.as_deref()),
    };
    let report = check::run(engine, &current_dir()?, &opts)?;
    out.raw(&if json {
        check::render_json(&report) + "\n"
    } else {
        check::render_human(&report)
    });
    Ok(if report.ok { 0 } else { 1 })
}

/// Say what a command waits for when stdin is a terminal, so it does not
/// seem to hang.
fn stdin_notice(what: &str) {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        eprintln!("reading {what} from stdin; end it with Ctrl-D");
    }
}

fn current_dir() -> Result<PathBuf> {
    std::env::current_dir().map_err(|e| Error::io("read", Path::new("."), &e))
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|e| format!("{{\"error\":\"serialization failed: {e}\"}}"))
}

fn display(p: &Path) -> String {
    p.display().to_string().replace('\\', "/")
}

struct SymbolsOptions<'a> {
    json: bool,
    trivia: bool,
    language: Option<&'a str>,
    /// Only this symbol and its members, in each file that has it.
    symbol: Option<&'a str>,
    max_symbols: Option<usize>,
    /// A page after the first (one named file's outline).
    cursor: Option<&'a str>,
    depth: Option<usize>,
    kind: Option<&'a str>,
}

fn symbols_cmd(
    engine: &Engine,
    root: &RootArg,
    paths: &[PathBuf],
    opts: SymbolsOptions,
    out: &mut Out,
) -> Result<u8> {
    let SymbolsOptions {
        json,
        trivia,
        language,
        symbol,
        max_symbols,
        cursor,
        depth,
        kind,
    } = opts;
    // Machine output is complete: no agent budget, `--max-symbols` limits.
    let budget = match json {
        true => crate::ops::engine::Budget::Complete,
        false => crate::ops::engine::Budget::Agent,
    };
    // Named files must be supported; files found by walking a directory are
    // taken only when a grammar claims them.
    // Each named path is resolved once, in the sandbox every command uses;
    // files found under a named folder are read at the same place under
    // its real path (`(shown, real, named)`).
    let mut files: Vec<(PathBuf, Result<PathBuf>, bool)> = Vec::new();
    for p in paths {
        let real = root.read_target(p, engine);
        match real {
            Ok(dir) if dir.is_dir() => {
                for f in crate::disk::walk_files(p) {
                    let inner = f.strip_prefix(p).map(|rest| dir.join(rest));
                    files.push((f.clone(), Ok(inner.unwrap_or(f)), false));
                }
            }
            real => files.push((p.clone(), real, true)),
        }
    }
    let mut worst = 0u8;
    // Parse in parallel, print in order, a chunk at a time.
    for chunk in files.chunks(256) {
        let results: Vec<(PathBuf, bool, Option<Result<FileSymbols>>)> = chunk
            .par_iter()
            .map(|(f, real, named)| {
                let wanted =
                    *named || language.is_some() || engine.language_for(f, None, None).is_ok();
                let r = wanted.then(|| {
                    let real = real.as_ref().map_err(Clone::clone)?;
                    let listed = match symbol {
                        Some(name) => {
                            engine.list_symbol_members(real, &display(f), trivia, language, name)
                        }
                        None => engine
                            .list_symbols(real, &display(f), trivia, language)
                            .and_then(|o| crate::ops::engine::select_symbols(o, depth, kind)),
                    };
                    listed.and_then(|o| {
                        let page = crate::ops::engine::Page {
                            max: max_symbols,
                            cursor: cursor.filter(|_| *named),
                            budget,
                        };
                        crate::ops::engine::page_symbols(o, &page)
                    })
                });
                (f.clone(), *named, r)
            })
            .collect();
        for (f, named, r) in results {
            match r {
                None => {}
                Some(Ok(fs)) => print_symbols(&fs, json, out),
                Some(Err(e)) if named => {
                    report(out, &e, json);
                    worst = worst.max(e.code().exit_code() as u8);
                }
                // A walked file without the symbol is simply not listed.
                Some(Err(e)) if symbol.is_some() && e.code() == crate::ErrorCode::NotFound => {}
                Some(Err(e)) => {
                    tracing::warn!("skipping {}: {}", f.display(), e);
                    eprintln!("warning: skipping {}: {}", display(&f), e.message);
                }
            }
        }
    }
    Ok(worst)
}

fn print_symbols(fs: &FileSymbols, json: bool, out: &mut Out) {
    text::emit(out, json, fs, Head::Above);
}

/// The other languages' file types `l` takes when their text says so.
fn claimed(l: &Language) -> Vec<&str> {
    l.config
        .claims
        .iter()
        .flat_map(|c| c.file_types.iter().map(String::as_str))
        .collect()
}

fn languages_cmd(engine: &Engine, json: bool, out: &mut Out) {
    let langs: Vec<serde_json::Value> = engine
        .registry
        .languages()
        .iter()
        .map(|l| {
            serde_json::json!({
                "name": l.name(),
                "aliases": l.config.aliases,
                "file_types": l.config.file_types,
                "claimed_by_content": claimed(l),
                "separator": l.separator(),
                "grammar": l.config.grammar,
                "abi_version": l.grammar().abi_version(),
                "queries": l.query_files().collect::<Vec<_>>(),
            })
        })
        .collect();
    if json {
        out.line(&to_json(&langs));
        return;
    }
    for l in engine.registry.languages() {
        let mut types = format!(".{}", l.config.file_types.join(" ."));
        for t in claimed(l) {
            types.push_str(&format!(" (.{t} by content)"));
        }
        out.line(&format!(
            "{:<11} {:<19} sep {:<3} queries: {}{}",
            l.name(),
            types,
            l.separator(),
            l.query_files().collect::<Vec<_>>().join(", "),
            if l.config.aliases.is_empty() {
                String::new()
            } else {
                format!("  (aliases: {})", l.config.aliases.join(", "))
            }
        ));
    }
}
