//! `find_references` through a language server (`textDocument/references`,
//! declaration included): every location it answers is a reference bound
//! to the definition (`proven`; the definition itself `definition`).
//! Without a server, or when it fails (with a note), the syntax backend
//! answers. A bare name (no definition) is always the syntax backend's.

use super::target::{Load, Target};
use crate::disk::Workspace;
use crate::error::Result;
use crate::lang::Registry;
use crate::lsp::{Asked, Servers, convert};
use crate::refs::{
    DEFAULT_MAX_RESULTS, FileCount, Reference, References, RefsRequest, Tier, TierCounts,
};
use crate::symbols::occurrences::LineStarts;
use crate::text::preview::{PREVIEW_WIDTH, preview};
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub fn find_references(
    servers: &Servers,
    ws: &Workspace,
    registry: &Registry,
    req: &RefsRequest,
    load: Load,
    starting: crate::lsp::Starting,
) -> Result<References> {
    let mut note = None;
    if let Some(t) = Target::find(servers, ws, registry, req, load) {
        let asked = servers.with(&t.file.language, &t.path, ws.root(), starting, |c| {
            if !c.can_find_references() {
                return Err(crate::lsp::transport::Failure::Refused(
                    "it does not find references".into(),
                ));
            }
            t.sync(c)?;
            let mut params = t.position();
            params["context"] = json!({"includeDeclaration": true});
            c.request("textDocument/references", params)
        });
        match asked {
            Asked::NoServer => {}
            Asked::Failed(n) => note = Some(n),
            Asked::Answer(v, label) => match answer(ws, &t, req, v, &label, load) {
                Ok(r) => return Ok(r),
                Err(why) => {
                    note = Some(crate::lsp::note(
                        &label,
                        &crate::lsp::transport::Failure::Garbage(why),
                    ))
                }
            },
        }
    }
    let answer = crate::refs::find_references(ws, registry, req, load);
    super::rename::with_note(answer, note, |r, n| r.warnings.insert(0, n))
}

/// The server's locations as Scalpel's references.
fn answer(
    ws: &Workspace,
    t: &Target,
    req: &RefsRequest,
    v: Value,
    label: &str,
    load: Load,
) -> std::result::Result<References, String> {
    let locations: Vec<lsp_types::Location> = if v.is_null() {
        Vec::new()
    } else {
        serde_json::from_value(v)
            .map_err(|e| format!("a references answer that is not a list of locations: {e}"))?
    };
    let mut refs = Vec::new();
    let mut outside = 0;
    for l in locations {
        let path = convert::path(l.uri.as_str()).ok_or("a location that is not a file")?;
        let Ok(resolved) = ws.resolve(&path, crate::disk::Purpose::Read) else {
            outside += 1;
            continue;
        };
        let file = match t.files().find(|(p, ..)| *p == resolved.path) {
            Some((.., f)) => f.clone(),
            None => load(&resolved.path).map_err(|e| e.message)?,
        };
        let body = file.source.body();
        let at = convert::offset(body, l.range.start).ok_or("a location outside its file")?;
        let end = convert::offset(body, l.range.end).unwrap_or(at).max(at);
        let lines = LineStarts::new(body);
        let (line, column) = lines.position(body, at);
        let (text, col) = lines.line_of(body, at);
        let definition = resolved.path == t.path && at == t.at;
        let enclosing = file
            .symbols
            .iter()
            .filter(|s| {
                s.start_byte <= at
                    && at < s.end_byte
                    && !(definition && s.name_path == t.symbol.name_path)
            })
            .min_by_key(|s| s.end_byte - s.start_byte)
            .map(|s| s.name_path.clone());
        refs.push(Reference {
            path: resolved.display,
            line,
            column,
            tier: if definition {
                Tier::Definition
            } else {
                Tier::Proven
            },
            why: None,
            role: if definition {
                "definition"
            } else {
                "reference"
            }
            .to_string(),
            enclosing,
            preview: preview(text, col, col + (end - at), PREVIEW_WIDTH),
        });
    }
    refs.sort_by(|a, b| {
        (a.tier, &a.path, a.line, a.column).cmp(&(b.tier, &b.path, b.line, b.column))
    });
    refs.dedup();
    if !refs.iter().any(|r| r.tier == Tier::Definition) {
        return Err("its references do not include the definition itself".into());
    }
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &refs {
        *per_file.entry(&r.path).or_default() += 1;
    }
    let mut files: Vec<FileCount> = per_file
        .into_iter()
        .map(|(path, count)| FileCount {
            path: path.to_string(),
            count,
        })
        .collect();
    files.sort_by(|a, b| b.count.cmp(&a.count).then(a.path.cmp(&b.path)));
    let total = refs.len();
    let proven = refs.iter().filter(|r| r.tier == Tier::Proven).count();
    let max = req.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
    let truncated = total > max;
    refs.truncate(max);
    let mut warnings = Vec::new();
    if outside > 0 {
        warnings.push(format!(
            "{outside} references outside the root are not listed"
        ));
    }
    Ok(References {
        backend: label.to_string(),
        name: t.symbol.name.clone(),
        symbol: Some(format!("{} ({})", t.symbol.name_path, t.symbol.kind)),
        references: refs,
        total,
        tiers: TierCounts {
            proven,
            probable: 0,
            name_only: 0,
        },
        files,
        left_alone: Vec::new(),
        left_alone_count: 0,
        files_searched: t.others.len() + 1,
        truncated,
        hint: truncated.then(|| {
            format!(
                "{max} of {total} references listed; raise {}",
                crate::hint::term(crate::hint::Term::MaxResults)
            )
        }),
        errors: Vec::new(),
        warnings,
    })
}
