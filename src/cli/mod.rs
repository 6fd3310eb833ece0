//! The `scalpel` command line: one thin adapter per command over `engine`.
//! Human output by default; `--json` prints the same payloads as the MCP
//! tools. Exit codes: 0 success, 1 the operation failed (not found,
//! ambiguous, syntax error, check failed), 2 usage or I/O error.

mod output;
mod text;

use crate::engine::{Engine, ExtractRequest, FileSymbols};
use crate::error::{Error, Result};
use crate::lang::{LANG_DIR_ENV, Registry};
use clap::{Args, Parser, Subcommand};
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
    #[arg(long, global = true, value_name = "BYTES", default_value_t = crate::fs::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
}

#[derive(Subcommand, Debug)]
enum Command {
    #[command(flatten)]
    Text(text::TextCommand),
    /// List the symbols of files or directories (directories are walked,
    /// honouring .gitignore).
    Symbols {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One JSON object per file per line.
        #[arg(long)]
        json: bool,
        /// Report bare definition ranges (without decorators, attributes, docs).
        #[arg(long)]
        no_trivia: bool,
        /// Force a language instead of detecting it.
        #[arg(long, value_name = "LANG")]
        language: Option<String>,
    },
    /// Print one symbol's code, addressed by name path (`Class.method`).
    Extract {
        file: PathBuf,
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
        #[arg(long)]
        json: bool,
        #[arg(long, value_name = "LANG")]
        language: Option<String>,
    },
    /// List the supported languages.
    Languages {
        #[arg(long)]
        json: bool,
    },
    /// Parse a file and report errors; `--dump-tree` prints the syntax tree.
    Parse {
        file: PathBuf,
        #[arg(long)]
        dump_tree: bool,
        #[arg(long)]
        json: bool,
        #[arg(long, value_name = "LANG")]
        language: Option<String>,
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
            Command::Symbols { json, .. }
            | Command::Extract { json, .. }
            | Command::Languages { json }
            | Command::Parse { json, .. } => *json,
        }
    }
}

/// Errors go to stdout as JSON with `--json` (the same payload as MCP), and
/// to stderr as text otherwise.
fn report(out: &mut Out, e: &Error, json: bool) {
    if json {
        out.line(&serde_json::json!({"error": e.to_json()}).to_string());
    } else {
        eprintln!("error[{}]: {}", e.code(), e.message);
        if !e.suggestion.is_empty() {
            eprintln!("  hint: {}", e.suggestion);
        }
    }
}

fn engine(g: &GlobalArgs) -> Result<Engine> {
    Ok(Engine {
        registry: Registry::with_override(g.lang_dir.as_deref())?,
        max_file_size: g.max_file_size,
    })
}

fn run(cli: Cli, out: &mut Out) -> Result<u8> {
    let engine = engine(&cli.global)?;
    match cli.command {
        Command::Text(cmd) => text::run(cmd, &engine, out),
        Command::Symbols {
            paths,
            json,
            no_trivia,
            language,
        } => symbols_cmd(&engine, &paths, json, !no_trivia, language.as_deref(), out),
        Command::Extract {
            file,
            symbol,
            kind,
            context,
            no_trivia,
            json,
            language,
        } => {
            let req = ExtractRequest {
                symbol,
                kind,
                include_context: context,
                include_trivia: !no_trivia,
                language,
            };
            let x = engine.extract(&file, &display(&file), &req)?;
            if json {
                out.line(&to_json(&x));
            } else {
                out.raw(&x.code);
                if !x.code.ends_with('\n') {
                    out.raw("\n");
                }
                let comment = engine
                    .language_for(&file, None, req.language.as_deref())
                    .ok()
                    .and_then(|l| l.config.comment_tokens.first().cloned())
                    .unwrap_or_else(|| "#".into());
                for d in &x.dependency_code {
                    out.line(&format!(
                        "\n{comment} --- uses {} ({}, lines {}-{})",
                        d.address, d.kind, d.start_line, d.end_line
                    ));
                    out.raw(&d.code);
                    if !d.code.ends_with('\n') {
                        out.raw("\n");
                    }
                }
            }
            Ok(0)
        }
        Command::Languages { json } => {
            languages_cmd(&engine, json, out);
            Ok(0)
        }
        Command::Parse {
            file,
            dump_tree,
            json,
            language,
        } => {
            let parsed = engine.load(&file, language.as_deref())?;
            if dump_tree {
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
                })));
            } else {
                out.line(&format!(
                    "{}: {} symbols, {} parse errors",
                    display(&file),
                    parsed.symbols.len(),
                    parsed.parse_error_count
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
            }
            Ok(if parsed.parse_error_count > 0 { 1 } else { 0 })
        }
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|e| format!("{{\"error\":\"serialization failed: {e}\"}}"))
}

fn display(p: &Path) -> String {
    p.display().to_string().replace('\\', "/")
}

fn symbols_cmd(
    engine: &Engine,
    paths: &[PathBuf],
    json: bool,
    trivia: bool,
    language: Option<&str>,
    out: &mut Out,
) -> Result<u8> {
    // Named files must be supported; files found by walking a directory are
    // taken only when a grammar claims them.
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    for p in paths {
        if p.is_dir() {
            for f in crate::fs::walk_files(p) {
                files.push((f, false));
            }
        } else {
            files.push((p.clone(), true));
        }
    }
    let mut worst = 0u8;
    // Parse in parallel, print in order, a chunk at a time.
    for chunk in files.chunks(256) {
        let results: Vec<(PathBuf, bool, Option<Result<FileSymbols>>)> = chunk
            .par_iter()
            .map(|(f, named)| {
                let wanted =
                    *named || language.is_some() || engine.language_for(f, None, None).is_ok();
                let r = wanted.then(|| engine.list_symbols(f, &display(f), trivia, language));
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
    if json {
        out.line(&to_json(fs));
        return;
    }
    let errors = if fs.parse_errors > 0 {
        format!(", {} parse errors", fs.parse_errors)
    } else {
        String::new()
    };
    out.line(&format!(
        "{} ({}, {} symbols{errors})",
        fs.path,
        fs.language,
        fs.symbols.len()
    ));
    for s in &fs.symbols {
        let depth = s.segments().len().saturating_sub(1).min(8);
        out.line(&format!(
            "{:>11} {:indent$}{} {}  {}",
            format!("{}-{}", s.start_line, s.end_line),
            "",
            s.kind,
            s.address(),
            s.signature,
            indent = depth * 2
        ));
    }
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
        out.line(&format!(
            "{:<11} .{:<18} sep {:<3} queries: {}{}",
            l.name(),
            l.config.file_types.join(" ."),
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
