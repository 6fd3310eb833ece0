//! `rename_symbol`: the definition and its references (the tiers
//! `find_references` ties to it; name-only matches too when asked) renamed
//! in every file, each file validated (no new parse problem), all written
//! as one transaction ([`crate::change::commit_all`]) with one edit id and
//! one receipt per file.
//!
//! Refused: a target that is not one identifier, a new name that is not an
//! identifier of the language (the grammar itself decides: the renamed
//! definition must parse, without new problems, to a definition of that
//! name), and a new name already defined in the target's scope.

use super::{Collected, RefsRequest, Tier, collect};
use crate::change::{self, Change};
use crate::disk::{Purpose, Workspace};
use crate::edit::validate::{self, Splice};
use crate::error::{Error, ErrorCode, Result};
use crate::hint::{Term, term};
use crate::lang::Registry;
use crate::receipt::{Receipt, Renamed};
use crate::symbols::{self, ParsedFile};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// A name-only match a rename left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Skipped {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub why: String,
}

/// The receipt of `rename_symbol`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameReceipt {
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
    /// Uses of the name left alone (name only, unless include_name_only),
    /// at most 100 listed.
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
    include_name_only: bool,
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
        files,
        candidates_cut,
        ..
    } = c;
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
    if new_name.is_empty()
        || new_name == name
        || new_name.starts_with(|c: char| c.is_ascii_digit())
        || !new_name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    {
        return Err(bad_name());
    }
    // A collision in the same scope: a sibling already has the new name.
    if let Some(other) = target
        .file
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

    let mut changes = Vec::new();
    let mut skipped = Vec::new();
    let mut renamed = 0;
    for (path, file, found) in &files {
        let body = file.source.body();
        let offset = file.source.body_offset();
        let mut spans = Vec::new();
        for f in found {
            match f.verdict {
                Ok(Tier::NameOnly) if !include_name_only => skipped.push(Skipped {
                    path: path.clone(),
                    line: f.occ.line,
                    column: f.occ.column,
                    why: "name only: not tied to this definition".into(),
                }),
                Ok(_) => spans.push(f.occ.byte - offset),
                Err(_) => {}
            }
        }
        if spans.is_empty() {
            continue;
        }
        renamed += spans.len();
        let mut new_body = String::with_capacity(body.len());
        let mut last = 0;
        for &b in &spans {
            new_body.push_str(&body[last..b]);
            new_body.push_str(new_name);
            last = b + name.len();
        }
        new_body.push_str(&body[last..]);
        let first = spans[0];
        let old_end = spans[spans.len() - 1] + name.len();
        let delta = (new_name.len() as isize - name.len() as isize) * spans.len() as isize;
        let change = Splice {
            start: first,
            old_end,
            new_end: (old_end as isize + delta) as usize,
        };
        let (tree, introduced, preexisting) =
            validate::reparse(&file.language, &file.tree, body, &new_body, change)?;
        if *path == target.display {
            // The renamed definition must still be a definition, of the new
            // name: the grammar's own identifier rule.
            let text = format!("{}{}", &file.source.text[..offset], new_body);
            let source = crate::source::decode(Path::new(path), text.into_bytes())?;
            let parsed = symbols::outline(&file.language, Arc::new(source), tree)?;
            if !introduced.is_empty() || !parsed.symbols.iter().any(|s| s.name == new_name) {
                return Err(bad_name());
            }
        }
        let validation = validate::judge(introduced, preexisting, false, path)?;
        let mut text = file.source.text[..offset].to_string();
        text.push_str(&new_body);
        changes.push(Change {
            target: ws.resolve(Path::new(path), Purpose::Write)?,
            old: Some(file.source.clone()),
            new: Some(text),
            tree: None,
            planned: Renamed {
                symbol: sym.name_path.clone(),
                new_name: new_name.to_string(),
                occurrences: spans.len(),
            },
            validation,
            warnings: Vec::new(),
        });
    }
    let skipped_count = skipped.len();
    skipped.truncate(MAX_SKIPPED);
    let t = change::commit_all(ws, changes, "rename_symbol", Some(&sym.name_path), dry_run)?;
    let mut warnings = t.warnings;
    if skipped_count > 0 {
        warnings.push(format!(
            "{skipped_count} name-only matches left alone; review them (listed in skipped)"
        ));
    }
    Ok(RenameReceipt {
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
                "review the name-only matches; pass {} to rename them too",
                term(Term::IncludeNameOnly)
            )
        }),
    })
}

impl RenameReceipt {
    /// The compact text both interfaces show.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut out = format!(
            "{} `{}` -> `{}`: {} occurrences in {} files{}\n",
            if self.dry_run {
                "would rename"
            } else {
                "renamed"
            },
            self.symbol,
            self.new_name,
            self.renamed,
            self.files.len(),
            match &self.edit_id {
                Some(id) => format!("; edit {id} (undo_edit reverts every file)"),
                None => String::new(),
            }
        );
        for s in &self.skipped {
            let _ = writeln!(
                out,
                "left alone {}:{}:{}: {}",
                s.path, s.line, s.column, s.why
            );
        }
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        if let Some(h) = &self.hint {
            let _ = writeln!(out, "note: {h}");
        }
        for f in &self.files {
            out.push_str(&f.diff);
        }
        out
    }
}
