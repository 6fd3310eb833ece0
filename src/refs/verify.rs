//! A rename's check of its own plan before anything is written, without a
//! language server: the planned new texts are parsed in memory and the
//! syntax backend binds the *new* name again, over them and every other
//! file that already mentions it. The plan stands only when the two
//! agree: every site that was proven bound to the target (or one of its
//! definitions) is bound to the renamed definition afterwards (not hidden
//! by a local, a nearer definition or an import of the new name), and
//! nothing else is (an existing use of the new name, or a member of a base
//! type, that the renamed definition would capture or override).
//! Otherwise the rename is refused with `CONFLICT`, each site listed with
//! its line and why; a dry run gives the same verdict.

use super::{Collected, RefsRequest, Target, Tier, previewer, scan};
use crate::disk::{Purpose, Workspace};
use crate::error::{Error, ErrorCode, Result};
use crate::lang::{Language, Registry};
use crate::symbols::{self, ParsedFile};
use rayon::prelude::*;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tree_sitter::Tree;

/// One file of the plan, as it would be written.
pub(crate) struct Planned {
    /// Root-relative path.
    pub display: String,
    pub language: Arc<Language>,
    /// The whole new text (BOM included).
    pub text: String,
    /// Its tree (the plan's incremental reparse).
    pub tree: Tree,
    /// Each renamed site: its body offset in the new text, and whether the
    /// backend had proven it bound to the target (a definition or a proven
    /// use) rather than renamed it at the caller's word.
    pub sites: Vec<(usize, bool)>,
}

/// Most sites listed in the refusal.
const MAX_LISTED: usize = 20;

/// Bind `new_name` again over the planned texts (see the module doc).
pub(crate) fn verify_rebound(
    ws: &Workspace,
    registry: &Registry,
    target: &Target,
    new_name: &str,
    planned: Vec<Planned>,
    load: &(dyn Fn(&Path) -> Result<Arc<ParsedFile>> + Sync),
) -> Result<()> {
    let mut parsed: BTreeMap<PathBuf, Arc<ParsedFile>> = BTreeMap::new();
    let mut sites: BTreeMap<String, Vec<(usize, bool)>> = BTreeMap::new();
    let mut by_display: BTreeMap<String, Arc<ParsedFile>> = BTreeMap::new();
    let mut displays = Vec::new();
    let mut new_target = None;
    // The new texts' outlines, in parallel (each its own file).
    let cancel = symbols::Cancel::current();
    type Outlined = (String, Vec<(usize, bool)>, Arc<ParsedFile>);
    let outlined: Vec<Result<Outlined>> = planned
        .into_par_iter()
        .map(|p| {
            let Planned {
                display,
                language,
                text,
                tree,
                sites,
            } = p;
            let file = cancel.run(|| {
                let source = crate::source::decode(Path::new(&display), text.into_bytes())?;
                symbols::outline(&language, Arc::new(source), tree).map(Arc::new)
            });
            let file = file.unwrap_or_else(|| Err(cancel.error("verifying the rename")))?;
            Ok((display, sites, file))
        })
        .collect();
    for o in outlined {
        let (display, sites_of, file) = o?;
        if display == target.display {
            new_target = Some(file.clone());
        }
        parsed.insert(
            ws.resolve(Path::new(&display), Purpose::Read)?.path,
            file.clone(),
        );
        by_display.insert(display.clone(), file);
        sites.insert(display.clone(), sites_of);
        displays.push(display);
    }
    let file = new_target.ok_or_else(|| lost(target, new_name))?;
    if file.symbols.get(target.index).map(|s| s.name.as_str()) != Some(new_name) {
        return Err(lost(target, new_name));
    }
    let new_target = Target {
        display: target.display.clone(),
        file,
        index: target.index,
    };
    let in_memory = |p: &Path| match parsed.get(p) {
        Some(f) => Ok(f.clone()),
        None => load(p),
    };
    let Collected {
        files,
        candidates_cut,
        ..
    } = scan(
        ws,
        registry,
        new_name.to_string(),
        Some(new_target),
        None,
        &RefsRequest::default(),
        &displays,
        &in_memory,
    )?;
    let mut wrong = Vec::new();
    let mut seen: BTreeSet<(String, usize)> = BTreeSet::new();
    let mut flagged: BTreeSet<(String, usize)> = BTreeSet::new();
    for (path, file, found) in &files {
        let offset = file.source.body_offset();
        let planned = sites.get(path).map(Vec::as_slice).unwrap_or_default();
        let show = previewer(file, new_name.len());
        for f in found {
            let at = f.occ.byte - offset;
            let bound = matches!(f.verdict.tier(), Some(Tier::Definition | Tier::Proven));
            let site = planned.iter().find(|s| s.0 == at);
            if bound {
                seen.insert((path.clone(), at));
            }
            let why = match (bound, site) {
                (true, None) => Some(format!(
                    "`{new_name}` here would bind to the renamed definition{}",
                    if matches!(f.verdict.tier(), Some(Tier::Definition)) {
                        " (a definition of its family: it would override or be overridden)"
                    } else {
                        ""
                    }
                )),
                (false, Some((_, true))) => Some(format!(
                    "renamed, it would no longer reach the definition: {}",
                    match &f.verdict {
                        super::bind::Verdict::Ref(_, Some(why)) => why.clone(),
                        super::bind::Verdict::Ref(..) => "undecided".to_string(),
                        super::bind::Verdict::Alone(why) => why.clone(),
                    }
                )),
                _ => None,
            };
            if let Some(why) = why {
                flagged.insert((path.clone(), at));
                wrong.push(
                    json!({"path": path, "line": f.occ.line, "column": f.occ.column,
                                  "why": why, "preview": show(&f.occ).trim()}),
                );
            }
        }
    }
    // A proven site that the new name's scan did not find at all.
    for (path, list) in &sites {
        for &(at, proven) in list {
            if proven
                && !seen.contains(&(path.clone(), at))
                && !flagged.contains(&(path.clone(), at))
            {
                let body = by_display[path].source.body();
                let (line, column) = symbols::occurrences::LineStarts::new(body).position(body, at);
                wrong.push(json!({"path": path, "line": line, "column": column,
                                  "why": "renamed, it is no longer found bound to the definition"}));
            }
        }
    }
    // The new texts' trees are freed by the pool (see `ops::rename`).
    rayon::spawn(move || drop((files, parsed, by_display)));
    if wrong.is_empty() && candidates_cut == 0 {
        return Ok(());
    }
    let count = wrong.len();
    wrong.truncate(MAX_LISTED);
    Err(Error::new(
        ErrorCode::Conflict,
        if count == 0 {
            format!("`{new_name}` occurs in too many files to verify the rename")
        } else {
            format!(
                "renaming `{}` to `{new_name}` would change the meaning of {} (checked on the planned texts before writing)",
                target.symbol().name_path,
                crate::text::count(count, "site")
            )
        },
    )
    .with_suggestion("choose another new name; nothing was written")
    .with_details(json!({"verified": "rebound", "sites": wrong, "sites_count": count,
                         "files_not_checked": candidates_cut})))
}

/// The renamed definition is not where the plan put it.
fn lost(target: &Target, new_name: &str) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!(
            "after the planned rename, `{}` is no longer a definition of `{new_name}`",
            target.symbol().name_path
        ),
    )
    .with_suggestion("choose another new name; nothing was written")
    .with_details(json!({"verified": "rebound", "line": target.symbol().name_line}))
}
