//! Definitions named after the target by a convention the language's own
//! tools check (`[refs] named_after`). Go's examples are the case: `go
//! vet` requires `ExampleF`, `ExampleT` and `ExampleT_M`, each maybe with a
//! `_suffix`, to name an identifier of their package, so a rename of `F`
//! that leaves `ExampleF_second` alone builds and then fails `go vet`.
//! These are not references (nothing calls an example by name): a rename
//! renames the part of their names that names the target, and says so.

use super::Target;
use crate::disk::{Purpose, Workspace};
use crate::error::Result;
use crate::symbols::ParsedFile;
use std::path::Path;
use std::sync::Arc;

/// Files of the target's folder searched for such names at most.
const MAX_FILES: usize = 1_000;

/// One file's definitions named after the target.
pub(crate) struct NamedAfter {
    /// Root-relative path.
    pub display: String,
    pub file: Arc<ParsedFile>,
    /// Body offsets where the target's name starts inside each such
    /// definition's name, in file order.
    pub at: Vec<usize>,
    /// Those definitions' names, each with where the target's name starts
    /// inside it.
    pub names: Vec<(String, usize)>,
    /// The rule's `join`: a new name holding it would end the target's
    /// part of these names early.
    pub join: String,
}

/// The definitions named after `target` by its language's conventions.
pub(crate) fn named_after(
    ws: &Workspace,
    target: &Target,
    load: &(dyn Fn(&Path) -> Result<Arc<ParsedFile>> + Sync),
) -> Result<Vec<NamedAfter>> {
    let language = &target.file.language;
    let rules = &language.refs_rules().named_after;
    let sym = target.symbol();
    let segments = sym.segments();
    // The conventions name top-level definitions and their members.
    if rules.is_empty() || segments.is_empty() || segments.len() > 2 {
        return Ok(Vec::new());
    }
    let folder = target.display.rsplit_once('/').map(|(d, _)| d);
    let in_folder = |p: &str| p.rsplit_once('/').map(|(d, _)| d) == folder;
    let mut found: Vec<NamedAfter> = Vec::new();
    for rule in rules {
        let stem = format!("{}{}", rule.prefix, segments.join(&rule.join));
        // Where the target's own name starts inside such a name.
        let at = stem.len() - sym.name.len();
        let include = [rule.files.clone()];
        let (paths, _) = super::files_with(
            ws,
            &stem,
            false,
            folder,
            (&include, &[]),
            MAX_FILES,
            "finding the definitions named after the target",
        )?;
        for p in paths.into_iter().filter(|p| in_folder(p)) {
            let file = if p == target.display {
                target.file.clone()
            } else {
                load(&ws.resolve(Path::new(&p), Purpose::Read)?.path)?
            };
            if file.language.name() != language.name() {
                continue;
            }
            let offset = file.source.body_offset();
            let body = file.source.body();
            let mut hits = Vec::new();
            for s in &file.symbols {
                let Some(rest) = s.name.strip_prefix(&stem) else {
                    continue;
                };
                let b = s.name_byte + at - offset;
                if s.depth() == 0
                    && rule.kinds.iter().any(|k| k == s.kind)
                    && (rest.is_empty() || rest.starts_with(&rule.join))
                    && body.get(b..b + sym.name.len()) == Some(sym.name.as_str())
                {
                    hits.push((b, (s.name.clone(), at)));
                }
            }
            if hits.is_empty() {
                continue;
            }
            hits.sort();
            match (found.iter_mut()).find(|f| f.display == p && f.join == rule.join) {
                Some(f) => {
                    f.at.extend(hits.iter().map(|h| h.0));
                    f.names.extend(hits.into_iter().map(|h| h.1));
                }
                None => found.push(NamedAfter {
                    display: p,
                    file,
                    at: hits.iter().map(|h| h.0).collect(),
                    names: hits.into_iter().map(|h| h.1).collect(),
                    join: rule.join.clone(),
                }),
            }
        }
    }
    Ok(found)
}
