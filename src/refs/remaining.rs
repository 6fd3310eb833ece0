//! Safer deletes: the references that remain to a symbol about to be
//! deleted, as one receipt warning (`update_symbol` with `delete`).

use super::{RefsRequest, Tier, collect};
use crate::disk::Workspace;
use crate::error::Result;
use crate::lang::Registry;
use crate::symbols::ParsedFile;
use std::path::Path;
use std::sync::Arc;

/// Places listed in a [`remaining_references`] warning.
const REMAINING_SHOWN: usize = 5;
/// Files a delete's reference check parses at most (a delete stays fast in
/// a large tree; the warning says when it looked at fewer than all).
const REMAINING_MAX_FILES: usize = 300;

/// The references that remain to the symbol `address` of `display` once
/// it is deleted (its own body excluded): one warning line with counts per
/// tier and the first places, or `None` when nothing refers to it.
pub fn remaining_references(
    ws: &Workspace,
    registry: &Registry,
    display: &str,
    address: &str,
    load: &(dyn Fn(&Path) -> Result<Arc<ParsedFile>> + Sync),
) -> Result<Option<String>> {
    let req = RefsRequest {
        path: Some(display.to_string()),
        symbol: Some(address.to_string()),
        max_files: Some(REMAINING_MAX_FILES),
        ..RefsRequest::default()
    };
    let c = collect(ws, registry, &req, load)?;
    let Some(t) = &c.target else {
        return Ok(None);
    };
    let span = t.symbol().full_span();
    let mut places: Vec<(Tier, String)> = Vec::new();
    for (path, _, found) in &c.files {
        for f in found {
            let inside =
                *path == t.display && span.start_byte <= f.occ.byte && f.occ.byte < span.end_byte;
            if let Some(tier) = f.verdict.tier()
                && tier != Tier::Definition
                && !inside
            {
                places.push((tier, format!("{path}:{}", f.occ.line)));
            }
        }
    }
    if places.is_empty() {
        return Ok(None);
    }
    places.sort();
    let count = |tier: Tier| places.iter().filter(|p| p.0 == tier).count();
    let files = |proven: bool| {
        places
            .iter()
            .filter(|p| (p.0 == Tier::Proven) == proven)
            .map(|p| p.1.rsplit_once(':').map_or(p.1.as_str(), |x| x.0))
            .collect::<std::collections::BTreeSet<&str>>()
            .len()
    };
    let shown: Vec<&str> = places
        .iter()
        .take(REMAINING_SHOWN)
        .map(|p| p.1.as_str())
        .collect();
    let proven = count(Tier::Proven);
    let undecided = places.len() - proven;
    let head = if proven > 0 {
        format!(
            "`{}` is still referenced {} in {}",
            t.symbol().name_path,
            crate::text::count(proven, "time"),
            crate::text::count(files(true), "file")
        )
    } else {
        format!("`{}` may still be referenced", t.symbol().name_path)
    };
    let undecided = if undecided > 0 {
        format!(
            "{}{} in {} ({} probable, {} name only)",
            if proven > 0 { ", and " } else { ": " },
            crate::text::count(undecided, "undecided use"),
            crate::text::count(files(false), "file"),
            count(Tier::Probable),
            count(Tier::NameOnly)
        )
    } else {
        String::new()
    };
    Ok(Some(format!(
        "{head}{undecided} ({} backend): {}{}{}",
        super::BACKEND,
        shown.join(", "),
        if places.len() > REMAINING_SHOWN {
            ", …"
        } else {
            ""
        },
        if c.candidates_cut > 0 {
            format!(
                " (at least: {} more files mention the name and were not checked)",
                c.candidates_cut
            )
        } else {
            String::new()
        },
    )))
}
