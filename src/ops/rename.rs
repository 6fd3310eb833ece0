//! `rename_symbol`: the definition (with its family) and the references
//! the syntax backend proves bound to it renamed in every file, each file
//! validated (no new parse problem), the plan verified (no occurrence of
//! the old name left where a bound use was), all written as one
//! transaction ([`crate::ops::change::commit_all`]) with one edit id and one
//! receipt per file.
//!
//! Refused: a target that is not one identifier, a new name that is not an
//! identifier of the language (the grammar itself decides: the renamed
//! definition must parse, without new problems, to a definition of that
//! name), a new name already defined in the target's scope, a method of an
//! external trait (`CONFLICT`), and, unless the caller decides them
//! ([`Undecided`]), sites the backend cannot decide (`UNCERTAIN`, each
//! listed with its line and why).

use crate::disk::{Purpose, Workspace};
use crate::edit::validate::{self, Splice};
use crate::error::{Error, ErrorCode, Result};
use crate::hint::{Term, term};
use crate::lang::Registry;
use crate::ops::change::{self, Change, Judged};
use crate::ops::receipt::{Receipt, Renamed, plural};
use crate::refs::bind::Verdict;
use crate::refs::{BACKEND, Collected, RefsRequest, Tier, collect, previewer};
use crate::symbols::{self, ParsedFile};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// An undecided site a rename left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub path: String,
    pub line: usize,
    pub column: usize,
    /// `probable` or `name_only`.
    pub tier: Tier,
    pub why: String,
}

/// What a rename does with the sites the backend cannot decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Undecided {
    /// Refuse the rename (`UNCERTAIN`), listing them.
    #[default]
    Refuse,
    /// Rename them too (`include_name_only`).
    Rename,
    /// Leave them, renaming only what is proven (`leave_uncertain`).
    Leave,
}

/// The receipt of `rename_symbol`.
#[derive(Debug, Clone, Serialize)]
pub struct RenameReceipt {
    /// What decided which sites bind: `syntax` (the language's scope rules)
    /// or a language server (`lsp:pyright 1.1.389`).
    pub backend: String,
    pub symbol: String,
    #[serde(skip)]
    pub new_name: String,
    /// The transaction id (undo_edit reverts every file); `None` for a dry run.
    pub edit_id: Option<String>,
    #[serde(skip)]
    pub dry_run: bool,
    /// Occurrences renamed, definition included.
    pub renamed: usize,
    /// One write receipt per file: occurrences, hashes, validation, diff.
    pub files: Vec<Receipt<Renamed>>,
    /// Undecided sites left alone (with leave_uncertain), at most 100
    /// listed.
    pub skipped: Vec<Skipped>,
    pub skipped_count: usize,
    pub warnings: Vec<String>,
    /// How to rename what was left alone too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Most skipped matches listed.
const MAX_SKIPPED: usize = 100;

/// Rename the symbol `req.symbol` in `req.path` to `new_name`.
pub fn rename_symbol(
    ws: &Workspace,
    registry: &Registry,
    req: &RefsRequest,
    new_name: &str,
    undecided: Undecided,
    dry_run: bool,
    load: &(dyn Fn(&Path) -> Result<Arc<ParsedFile>> + Sync),
) -> Result<RenameReceipt> {
    if req.symbol.is_none() {
        return Err(Error::invalid_argument("rename needs a symbol")
            .with_suggestion("pass the symbol's name path and the path of its file"));
    }
    let c = collect(ws, registry, req, load)?;
    let Collected {
        name,
        target,
        mut files,
        candidates_cut,
        refusal,
        ..
    } = c;
    if let Some(e) = refusal {
        return Err(e);
    }
    let Some(target) = target else {
        unreachable!("a symbol request has a target")
    };
    let sym = target.symbol().clone();
    if candidates_cut > 0 {
        return Err(Error::invalid_argument(format!(
            "`{name}` occurs in too many files to rename safely at once"
        ))
        .with_suggestion(format!("narrow the files with {}", term(Term::Include)))
        .with_details(json!({"files_not_parsed": candidates_cut})));
    }
    let bad_name = || {
        Error::invalid_argument(format!(
            "`{new_name}` is not a valid {} identifier here",
            target.file.language.name()
        ))
        .with_suggestion("choose a name made of letters, digits and _ that is not a keyword")
        .with_details(json!({"new_name": new_name}))
    };
    check_new_name(&target.file, &sym, new_name)?;

    // Definitions named after the target (Go's `ExampleF_second`): their
    // names' part that names it is renamed too, in files that may not
    // mention the name as a word.
    let named = crate::refs::named::named_after(ws, &target, load)?;
    if let Some(n) = named.iter().find(|n| new_name.contains(&n.join)) {
        let (first, _) = &n.names[0];
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "`{new_name}` holds `{}`, which ends the name `{first}` ({}) takes from `{name}`: no name of it would name `{new_name}`",
                n.join, n.display
            ),
        )
        .with_suggestion(format!("choose a new name without `{}`", n.join))
        .with_details(json!({"named_after": first, "path": n.display, "new_name": new_name})));
    }
    let mut named_at: std::collections::HashMap<&str, &[usize]> = Default::default();
    for n in &named {
        named_at.insert(&n.display, &n.at);
        if !files.iter().any(|f| f.0 == n.display) {
            files.push((n.display.clone(), n.file.clone(), Vec::new()));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));

    // The sites: renamed (bound), undecided (listed), and the rest.
    let mut uncertain = Vec::new();
    for (path, file, found) in &files {
        let show = previewer(file, name.len());
        for f in found {
            if let Verdict::Ref(tier @ (Tier::Probable | Tier::NameOnly), why) = &f.verdict {
                uncertain.push((
                    Skipped {
                        path: path.clone(),
                        line: f.occ.line,
                        column: f.occ.column,
                        tier: *tier,
                        why: why.clone().unwrap_or_default(),
                    },
                    show(&f.occ),
                ));
            }
        }
    }
    let renames = |v: &Verdict| match v.tier() {
        Some(Tier::Definition | Tier::Proven) => true,
        Some(_) => undecided == Undecided::Rename,
        None => false,
    };
    let mut skipped: Vec<Skipped> = if undecided == Undecided::Leave {
        uncertain.iter().map(|u| u.0.clone()).collect()
    } else {
        Vec::new()
    };

    // Each file's new text is built, re-parsed and judged on its own, so
    // in parallel; the first failure in file order is the answer, as when
    // they were planned one after another.
    let cancel = symbols::Cancel::current();
    let plans: Vec<Result<Option<_>>> = files
        .par_iter()
        .map(|(path, file, found)| {
            let plan = cancel.run(|| {
                let body = file.source.body();
                let offset = file.source.body_offset();
                let mut spans: Vec<usize> = found
                    .iter()
                    .filter(|f| renames(&f.verdict))
                    .map(|f| f.occ.byte - offset)
                    .collect();
                if let Some(at) = named_at.get(path.as_str()) {
                    spans.extend_from_slice(at);
                    spans.sort_unstable();
                    spans.dedup();
                }
                if spans.is_empty() {
                    return Ok(None);
                }
                let mut new_body = String::with_capacity(body.len());
                let mut last = 0;
                for &b in &spans {
                    new_body.push_str(&body[last..b]);
                    new_body.push_str(new_name);
                    last = b + name.len();
                }
                new_body.push_str(&body[last..]);
                verify(
                    path, &name, new_name, &new_body, found, offset, &spans, &renames,
                )?;
                let delta = new_name.len() as isize - name.len() as isize;
                // Where an old body offset is in the new text.
                let moved = |old: usize| {
                    (old as isize + spans.partition_point(|&s| s < old) as isize * delta) as usize
                };
                let change = Splice::between(body, &new_body);
                let (tree, introduced, preexisting) =
                    validate::reparse_parsed(file, &new_body, change)?;
                let plan = crate::refs::verify::Planned {
                    display: path.clone(),
                    language: file.language.clone(),
                    text: format!("{}{}", &file.source.text[..offset], new_body),
                    tree: tree.clone(),
                    sites: found
                        .iter()
                        .filter(|f| renames(&f.verdict))
                        .map(|f| {
                            let proven =
                                matches!(f.verdict.tier(), Some(Tier::Definition | Tier::Proven));
                            (moved(f.occ.byte - offset), proven)
                        })
                        .collect(),
                };
                if *path == target.display {
                    // The renamed definition must still be a definition, of the new
                    // name: the grammar's own identifier rule.
                    let text = format!("{}{}", &file.source.text[..offset], new_body);
                    let source = crate::source::decode(Path::new(path), text.into_bytes())?;
                    let parsed = symbols::outline(&file.language, Arc::new(source), tree)?;
                    if !introduced.is_empty() || !parsed.symbols.iter().any(|s| s.name == new_name)
                    {
                        return Err(bad_name());
                    }
                }
                let validation = validate::judge(introduced, preexisting, false, path)?;
                let mut text = file.source.text[..offset].to_string();
                text.push_str(&new_body);
                let judged = Judged {
                    new: Some(text),
                    validation,
                    tree: None,
                };
                let planned = Renamed {
                    symbol: sym.name_path.clone(),
                    new_name: new_name.to_string(),
                    occurrences: spans.len(),
                };
                let change = Change::new(
                    ws.resolve(Path::new(path), Purpose::Write)?,
                    Some(file.source.clone()),
                    judged,
                    planned,
                    Vec::new(),
                );
                Ok(Some((plan, change, spans.len())))
            });
            plan.unwrap_or_else(|| Err(cancel.error("planning the rename")))
        })
        .collect();
    let mut changes = Vec::new();
    let mut planned = Vec::new();
    let mut renamed = 0;
    for plan in plans {
        if let Some((plan, change, count)) = plan? {
            planned.push(plan);
            changes.push(change);
            renamed += count;
        }
    }
    // After the name's own checks (a keyword, a collision), which say more.
    if undecided == Undecided::Refuse && !uncertain.is_empty() {
        return Err(uncertain_error(&sym.name_path, &uncertain));
    }
    crate::refs::verify::verify_rebound(ws, registry, &target, new_name, planned, load)?;
    let skipped_count = skipped.len();
    skipped.truncate(MAX_SKIPPED);
    let t = change::commit_all(ws, changes, "rename_symbol", Some(&sym.name_path), dry_run)?;
    // Freeing the trees of every file that names the symbol is left to the
    // pool: the answer does not wait for it (a CLI run exits before).
    rayon::spawn(move || drop(files));
    let mut warnings = t.warnings;
    let also: Vec<String> = (named.iter())
        .flat_map(|n| {
            n.names.iter().map(|(x, i)| {
                let renamed = format!("{}{new_name}{}", &x[..*i], &x[i + name.len()..]);
                format!("`{x}` → `{renamed}` ({})", n.display)
            })
        })
        .collect();
    if !also.is_empty() {
        warnings.push(format!(
            "also renamed {} named after `{name}` by a convention the language's tools check: {}",
            plural(also.len(), "definition"),
            also.join(", ")
        ));
    }
    if skipped_count > 0 {
        warnings.push(format!(
            "{skipped_count} undecided sites left alone; review them (listed in skipped)"
        ));
    }
    Ok(RenameReceipt {
        backend: BACKEND.to_string(),
        symbol: sym.name_path.clone(),
        new_name: new_name.to_string(),
        edit_id: t.edit_id,
        dry_run,
        renamed,
        files: t.files,
        skipped,
        skipped_count,
        warnings,
        hint: (skipped_count > 0).then(|| {
            format!(
                "review the undecided sites; pass {} instead to rename them too",
                term(Term::IncludeNameOnly)
            )
        }),
    })
}

/// The new name's own checks, whichever backend renames: an identifier,
/// not the old name, not a sibling's name (`CONFLICT`).
pub(crate) fn check_new_name(
    file: &ParsedFile,
    sym: &crate::symbols::Symbol,
    new_name: &str,
) -> Result<()> {
    let name = &sym.name;
    let bad_name = || {
        Error::invalid_argument(format!(
            "`{new_name}` is not a valid {} identifier here",
            file.language.name()
        ))
        .with_suggestion("choose a name made of letters, digits and _ that is not a keyword")
        .with_details(json!({"new_name": new_name}))
    };
    if new_name.is_empty()
        || new_name == *name
        || new_name.starts_with(|c: char| c.is_ascii_digit())
        || !new_name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    {
        return Err(bad_name());
    }
    // A collision in the same scope: a sibling already has the new name.
    if let Some(other) = file
        .symbols
        .iter()
        .find(|s| s.parent == sym.parent && s.name == new_name)
    {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "`{}` is already defined in the same scope as `{}` (line {})",
                other.name_path, sym.name_path, other.start_line
            ),
        )
        .with_suggestion("choose another name, or rename or remove the other definition first")
        .with_details(json!({"existing": other.name_path, "line": other.start_line})));
    }
    Ok(())
}

/// Most undecided sites listed in an `UNCERTAIN` error.
const MAX_UNCERTAIN: usize = 50;

/// The refusal of a rename that would touch or leave sites the backend
/// cannot decide: each site with its line and why, and the two ways to
/// decide them.
fn uncertain_error(symbol: &str, sites: &[(Skipped, String)]) -> Error {
    let probable = sites.iter().filter(|s| s.0.tier == Tier::Probable).count();
    let listed: Vec<serde_json::Value> = sites
        .iter()
        .take(MAX_UNCERTAIN)
        .map(|(s, preview)| {
            json!({"path": s.path, "line": s.line, "column": s.column, "tier": s.tier,
                   "why": s.why, "preview": preview.trim()})
        })
        .collect();
    Error::new(
        ErrorCode::Uncertain,
        format!(
            "renaming `{symbol}` would touch or leave {} sites the {BACKEND} backend cannot decide ({probable} probable, {} name only)",
            sites.len(),
            sites.len() - probable
        ),
    )
    .with_suggestion(format!(
        "review the sites; pass {} to rename them too, or {} to rename only the proven ones and leave them",
        term(Term::IncludeNameOnly),
        term(Term::LeaveUncertain)
    ))
    .with_details(json!({"backend": BACKEND, "uncertain": listed, "uncertain_count": sites.len()}))
}

/// The plan's check before anything is written: every occurrence of the
/// old name left in a file's new text is one the plan chose to leave (not
/// the definition, not a use bound to it). A left one that was bound means
/// the plan and its verdicts disagree: refused.
#[allow(clippy::too_many_arguments)]
fn verify(
    path: &str,
    name: &str,
    new_name: &str,
    new_body: &str,
    found: &[crate::refs::Found],
    offset: usize,
    renamed: &[usize],
    renames: &dyn Fn(&Verdict) -> bool,
) -> Result<()> {
    // Map new offsets back: each renamed site before shifts the text.
    let delta = new_name.len() as isize - name.len() as isize;
    for b in symbols::occurrences::word_offsets(new_body, name) {
        let before = renamed
            .iter()
            .enumerate()
            .take_while(|(i, r)| (**r as isize + delta * *i as isize) < b as isize)
            .count();
        let old = (b as isize - delta * before as isize) as usize;
        let left = found.iter().find(|f| f.occ.byte - offset == old);
        match left {
            Some(f)
                if !renames(&f.verdict)
                    && !matches!(f.verdict.tier(), Some(Tier::Definition | Tier::Proven)) => {}
            _ => {
                let (line, _) =
                    symbols::occurrences::LineStarts::new(new_body).position(new_body, b);
                return Err(Error::new(
                    ErrorCode::Uncertain,
                    format!("the planned rename leaves `{name}` at {path}:{line} where it was bound to the definition"),
                )
                .with_suggestion("nothing was written: the plan disagrees with its own verdicts, a bug to report")
                .with_details(json!({"path": path, "line": line})));
            }
        }
    }
    Ok(())
}
