//! `rename_symbol` through a language server: `prepareRename` and
//! `rename`, the `WorkspaceEdit` turned into one [`Change`] per file
//! (each edit must replace the old name; each file validated like any
//! write), the new texts shown to the server in memory and refused if it
//! reports new errors in them, then committed by the one write path. Without
//! a server, or when it fails, the syntax backend renames (with a note).

use super::target::{Load, Target, language_id};
use crate::disk::{Purpose, Workspace};
use crate::edit::validate::{self, Splice};
use crate::error::{Error, ErrorCode, Result};
use crate::lang::Registry;
use crate::lsp::transport::Failure;
use crate::lsp::{Asked, Servers, convert};
use crate::ops::change::{self, Change, Judged};
use crate::ops::receipt::{Renamed, plural};
use crate::ops::rename::{RenameReceipt, Undecided};
use crate::refs::{RefsRequest, Tier};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Milliseconds since `t` (the phases' timings in the debug log).
fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Rename through the language server when there is one, else (or when it
/// fails: with a note) through the syntax backend.
#[allow(clippy::too_many_arguments)]
pub fn rename_symbol(
    servers: &Servers,
    ws: &Workspace,
    registry: &Registry,
    req: &RefsRequest,
    new_name: &str,
    undecided: Undecided,
    dry_run: bool,
    load: Load,
    starting: crate::lsp::Starting,
) -> Result<RenameReceipt> {
    let started = Instant::now();
    let target = Target::find(servers, ws, registry, req, load);
    tracing::debug!(target: "scalpel::lsp", ms = ms(started), "rename: files naming the symbol found and loaded");
    let note = match target {
        None => None,
        // A method the language calls itself (`__eq__`): no server's rename
        // sees those calls; the syntax backend refuses it.
        Some(t) if protocol(&t) => None,
        Some(t) => {
            // The syntax backend's view (the family, the sites the server
            // cannot see) is needed once the server has renamed: beside a
            // running server's request it is read at no cost. Before a
            // server is started it is read first, so that a rename it
            // refuses starts none.
            let find = || Beyond::find(ws, registry, req, &t, load);
            let asked = std::thread::scope(|s| {
                let beyond: Box<dyn FnOnce() -> Beyond + '_> =
                    if servers.is_running(&t.file.language, &t.path, ws.root()) {
                        // Under the request's cancellation, as on this
                        // thread; a view cut short refuses (nothing is
                        // taken without it).
                        let cancel = crate::symbols::Cancel::current();
                        let beside = s.spawn(move || {
                            cancel.run(find).unwrap_or(Beyond {
                                refused: true,
                                ..Beyond::default()
                            })
                        });
                        Box::new(move || {
                            beside
                                .join()
                                .unwrap_or_else(|p| std::panic::resume_unwind(p))
                        })
                    } else {
                        let beyond = find();
                        // What the syntax backend refuses whatever the
                        // server says (an external trait's method: the
                        // server's rename would edit files outside the
                        // root) it refuses with its own reason.
                        if beyond.refused {
                            return Asked::NoServer;
                        }
                        Box::new(move || beyond)
                    };
                ask(servers, ws, &t, beyond, new_name, dry_run, load, starting)
            });
            match asked {
                Asked::NoServer => None,
                Asked::Answer(r, _) => return r,
                Asked::Failed(note) => Some(note),
            }
        }
    };
    let answer =
        crate::ops::rename::rename_symbol(ws, registry, req, new_name, undecided, dry_run, load);
    with_note(answer, note, |r, n| r.warnings.insert(0, n))
}

fn protocol(t: &Target) -> bool {
    crate::refs::MEMBER_KINDS.contains(&t.symbol.kind)
        && t.file
            .language
            .refs_rules()
            .is_protocol_name(&t.symbol.name)
}

/// The syntax backend's answer with the note of a failed server: among the
/// answer's warnings, or in a refusal's details (`lsp_note`).
pub(crate) fn with_note<T>(
    answer: Result<T>,
    note: Option<String>,
    add: impl FnOnce(&mut T, String),
) -> Result<T> {
    let Some(note) = note else { return answer };
    match answer {
        Ok(mut r) => {
            add(&mut r, note);
            Ok(r)
        }
        Err(mut e) => {
            if let Value::Object(m) = &mut e.details {
                m.insert("lsp_note".into(), Value::String(note));
            }
            Err(e)
        }
    }
}

/// The server's rename, planned, verified and committed; `Answer(Err)` is
/// a refusal the server's answers justify; `NoServer` when the syntax
/// backend's view (`beyond`, asked for once the server has renamed)
/// refuses the rename whatever the server says.
#[allow(clippy::too_many_arguments)]
fn ask(
    servers: &Servers,
    ws: &Workspace,
    t: &Target,
    beyond: impl FnOnce() -> Beyond,
    new_name: &str,
    dry_run: bool,
    load: Load,
    starting: crate::lsp::Starting,
) -> Asked<Result<RenameReceipt>> {
    if let Err(e) = crate::ops::rename::check_new_name(&t.file, &t.symbol, new_name) {
        return Asked::Answer(Err(e), String::new());
    }
    let plan = servers.with(&t.file.language, &t.path, ws.root(), starting, |c| {
        let label = c.label.clone();
        let (renames, prepares) = c.can_rename();
        if !renames {
            return Err(Failure::Refused(
                "it does not rename (no renameProvider)".into(),
            ));
        }
        let started = Instant::now();
        t.sync(c)?;
        tracing::debug!(target: "scalpel::lsp", ms = ms(started), "rename: texts shown to the server");
        let started = Instant::now();
        if prepares {
            let p = c.request("textDocument/prepareRename", t.position())?;
            if p.is_null() {
                return Ok(Some(Err(cannot(t, &label))));
            }
        }
        let mut params = t.position();
        params["newName"] = json!(new_name);
        let Some(mut by_file) = rename_at(c, params.clone())? else {
            return Ok(Some(Err(cannot(t, &label))));
        };
        let first = edit_count(&by_file);
        tracing::debug!(target: "scalpel::lsp", ms = ms(started), "rename: the server's prepareRename and rename");
        let started = Instant::now();
        let beyond = beyond();
        if beyond.refused {
            return Ok(None);
        }
        tracing::debug!(target: "scalpel::lsp", ms = ms(started), "rename: the syntax backend's view joined");
        let started = Instant::now();
        // The target's family (a base's or subclass's method of the name):
        // renamed with it, each through the server's own rename (pyright
        // renames one declaration: a subclass's method renamed alone no
        // longer overrides, and nothing reports it).
        let mut family = Vec::new();
        let mut family_edits = Vec::new();
        for s in &beyond.family {
            if s.covered(&by_file) {
                continue;
            }
            let mut params = s.position();
            params["newName"] = json!(new_name);
            let Some(more) = rename_at(c, params)? else {
                return Ok(Some(Err(cannot_family(t, s, &label))));
            };
            merge(&mut by_file, &more);
            family_edits.push(more);
            family.push(s.at_line());
        }
        let plan = match plan(ws, t, new_name, by_file.clone(), load) {
            Ok(p) => p,
            Err(Planning::Refused(mut e)) => {
                // Refused over the server's answer: say whose.
                if let Value::Object(m) = &mut e.details {
                    m.entry("backend").or_insert_with(|| json!(label));
                }
                return Ok(Some(Err(e)));
            }
            Err(Planning::Stale(why)) => {
                return Err(Failure::Garbage(format!(
                    "its rename does not fit the files on disk: {why}"
                )));
            }
        };
        let quiet = Duration::from_millis(
            t.file
                .language
                .config
                .lsp
                .as_ref()
                .map_or(1000, |l| l.diagnostics_quiet_ms),
        );
        tracing::debug!(target: "scalpel::lsp", ms = ms(started), "rename: its edit planned as texts");
        let mut verdict = verify(c, t, new_name, &plan, quiet, &label)?;
        let mut plan = plan;
        // A server asked while it is still loading its project can answer
        // a rename that leaves uses its check then reports (a cold
        // typescript-language-server left two of zod's object literals
        // typed `ParseInput` in about one call of four): asked once more,
        // its answer is taken only when it renames more and checks clean.
        // A failure of the second asking keeps the first refusal.
        let mut asked_again = None;
        if verdict.is_err()
            && let Ok(Some(again)) = rename_at(c, params)
            && edit_count(&again) > first
        {
            let more = edit_count(&again) - first;
            let mut wider = again;
            for edits in &family_edits {
                merge(&mut wider, edits);
            }
            if let Ok(wider_plan) = self::plan(ws, t, new_name, wider.clone(), load)
                && let Ok(Ok(w)) = verify(c, t, new_name, &wider_plan, quiet, &label)
            {
                asked_again = Some(more);
                plan = wider_plan;
                by_file = wider;
                verdict = Ok(w);
            }
        }
        // The server's check rejects its own rename: when the syntax
        // backend binds uses the server cannot see (a macro's body), the
        // rename is checked once more with them, and taken only if clean.
        let missing: Vec<&Site> = beyond
            .unseen
            .iter()
            .filter(|s| !s.covered(&by_file))
            .collect();
        let mut added = Vec::new();
        if let Err(refusal) = &mut verdict
            && !missing.is_empty()
        {
            for s in &missing {
                by_file
                    .entry(s.path.clone())
                    .or_default()
                    .push(s.edit(&t.symbol.name, new_name));
            }
            let tried: Vec<String> = missing.iter().map(|s| s.at_line()).collect();
            match self::plan(ws, t, new_name, by_file, load) {
                Ok(wider) => match verify(c, t, new_name, &wider, quiet, &label)? {
                    Ok(w) => {
                        plan = wider;
                        verdict = Ok(w);
                        added = tried;
                    }
                    Err(_) => note_tried(refusal, &tried),
                },
                Err(_) => note_tried(refusal, &tried),
            }
        }
        let verdict = verdict.map(|mut warnings| {
            if !family.is_empty() {
                warnings.push(format!(
                    "renamed with its family: the server also renamed {} and {} uses ({})",
                    plural(family.len(), "definition"),
                    if family.len() == 1 { "its" } else { "their" },
                    family.join(", ")
                ));
            }
            if let Some(more) = asked_again {
                warnings.push(format!(
                    "the server's first rename left {} its check then reported (a server still loading its project): asked again, its second answer renames them and its check finds no new error",
                    plural(more, "use")
                ));
            }
            if !added.is_empty() {
                warnings.push(format!(
                    "the server's rename left {} inside code it does not bind ({}): renamed too, and its check of the result finds no new error ({})",
                    plural(added.len(), "use"),
                    unseen_kinds(t),
                    added.join(", ")
                ));
            }
            warnings
        });
        Ok(Some(verdict.map(|warnings| (plan, warnings, label))))
    });
    match plan {
        Asked::NoServer | Asked::Answer(None, _) => Asked::NoServer,
        Asked::Failed(n) => Asked::Failed(n),
        Asked::Answer(Some(Err(e)), label) => Asked::Answer(Err(e), label),
        Asked::Answer(Some(Ok((plan, warnings, label))), l) => {
            let started = Instant::now();
            let r = commit(ws, t, new_name, plan, warnings, label, dry_run);
            tracing::debug!(target: "scalpel::lsp", ms = ms(started), "rename: validated and committed");
            Asked::Answer(r, l)
        }
    }
}

fn cannot(t: &Target, label: &str) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!(
            "the language server ({label}) says `{}` cannot be renamed here",
            t.symbol.name_path
        ),
    )
    .with_suggestion(
        "rename the definition the name comes from, or pass --no-lsp to use the syntax backend",
    )
    .with_details(json!({"backend": label}))
}

/// `more`'s edits added to `into`'s.
fn merge(
    into: &mut BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    more: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
) {
    for (p, edits) in more {
        into.entry(p.clone())
            .or_default()
            .extend(edits.iter().cloned());
    }
}

/// How many text edits a rename's answer holds.
fn edit_count(by_file: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>) -> usize {
    by_file.values().map(Vec::len).sum()
}

/// The server's `rename` at `params` (position and new name), its edits by
/// file; `None` when it says the name cannot be renamed there.
fn rename_at(
    c: &mut crate::lsp::client::Client,
    params: Value,
) -> Result<Option<BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>>, Failure> {
    let edit = c.request("textDocument/rename", params)?;
    if edit.is_null() {
        return Ok(None);
    }
    let edit: lsp_types::WorkspaceEdit = serde_json::from_value(edit).map_err(|e| {
        Failure::Garbage(format!("a rename answer that is not a WorkspaceEdit: {e}"))
    })?;
    convert::edits_by_file(edit)
        .map(Some)
        .map_err(|why| Failure::Garbage(format!("its rename cannot be taken: {why}")))
}

/// The refusal of a family member the server will not rename.
fn cannot_family(t: &Target, s: &Site, label: &str) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!(
            "the language server ({label}) cannot rename the `{}` at {}, which `{}` overrides or is overridden by; nothing was written",
            t.symbol.name,
            s.at_line(),
            t.symbol.name_path
        ),
    )
    .with_suggestion("rename the family's first definition, or pass --no-lsp to use the syntax backend")
    .with_details(json!({"backend": label, "path": s.display, "line": s.line}))
}

/// The `[lsp] unseen` kinds of the target's language, for a note.
fn unseen_kinds(t: &Target) -> String {
    t.file
        .language
        .config
        .lsp
        .as_ref()
        .map(|l| l.unseen.join(", "))
        .unwrap_or_default()
}

/// A refusal's details say which sites were added and checked in vain.
fn note_tried(refusal: &mut Error, tried: &[String]) {
    if let Value::Object(m) = &mut refusal.details {
        m.insert("also_tried".into(), json!(tried));
    }
}

/// A site the syntax backend binds to the target that the server's rename
/// may not reach.
struct Site {
    path: PathBuf,
    display: String,
    file: Arc<ParsedFile>,
    /// Byte offset of the name in the file's body.
    at: usize,
    line: usize,
}

impl Site {
    fn at_line(&self) -> String {
        format!("{}:{}", self.display, self.line)
    }

    fn position(&self) -> Value {
        json!({
            "textDocument": {"uri": convert::uri(&self.path)},
            "position": convert::position(self.file.source.body(), self.at),
        })
    }

    /// Whether the server's edits already rename it.
    fn covered(&self, by_file: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>) -> bool {
        let body = self.file.source.body();
        by_file.get(&self.path).is_some_and(|edits| {
            edits
                .iter()
                .any(|e| convert::offset(body, e.range.start) == Some(self.at))
        })
    }

    /// The edit renaming it.
    fn edit(&self, old: &str, new_name: &str) -> lsp_types::TextEdit {
        let body = self.file.source.body();
        lsp_types::TextEdit {
            range: lsp_types::Range::new(
                convert::position(body, self.at),
                convert::position(body, self.at + old.len()),
            ),
            new_text: new_name.to_string(),
        }
    }
}

/// What the syntax backend binds to the target beyond the server's reach:
/// the other definitions of its family, and uses inside node kinds the
/// server does not bind (`[lsp] unseen`).
#[derive(Default)]
struct Beyond {
    family: Vec<Site>,
    unseen: Vec<Site>,
    /// The syntax backend refuses the rename whatever the sites (an
    /// external trait's method).
    refused: bool,
}

impl Beyond {
    fn find(
        ws: &Workspace,
        registry: &Registry,
        req: &RefsRequest,
        t: &Target,
        load: Load,
    ) -> Beyond {
        let mut out = Beyond::default();
        // The syntax backend failing (too many files, ...) leaves the
        // server's answer as it is.
        let Ok(c) = crate::refs::collect(ws, registry, req, load) else {
            return out;
        };
        out.refused = c.refusal.is_some();
        for (display, file, found) in c.files {
            let Ok(r) = ws.resolve(Path::new(&display), Purpose::Read) else {
                continue;
            };
            let offset = file.source.body_offset();
            let unseen = &file.language.kinds().unseen;
            for f in found {
                let at = f.occ.byte - offset;
                let site = || Site {
                    path: r.path.clone(),
                    display: r.display.clone(),
                    file: file.clone(),
                    at,
                    line: f.occ.line,
                };
                match f.verdict.tier() {
                    Some(Tier::Definition) if !(r.path == t.path && at == t.at) => {
                        out.family.push(site())
                    }
                    Some(Tier::Definition | Tier::Proven | Tier::Probable)
                        if !unseen.is_empty()
                            && file
                                .tree
                                .root_node()
                                .descendant_for_byte_range(at, at)
                                .is_some_and(|n| unseen.encloses(n)) =>
                    {
                        out.unseen.push(site())
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// One file of the plan: its path, parse, new text and sites.
struct Planned {
    path: PathBuf,
    display: String,
    file: Arc<ParsedFile>,
    new_body: String,
    sites: usize,
}

use crate::symbols::ParsedFile;

enum Planning {
    Refused(Error),
    /// The server's edits do not replace the old name where they say:
    /// its view of a file is not the file on disk.
    Stale(String),
}

/// The server's edits as new file texts, each validated.
fn plan(
    ws: &Workspace,
    t: &Target,
    new_name: &str,
    by_file: BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    load: Load,
) -> std::result::Result<Vec<Planned>, Planning> {
    let mut out = Vec::new();
    for (path, edits) in by_file {
        let resolved = ws.resolve(&path, Purpose::Write).map_err(|e| {
            Planning::Refused(
                Error::new(
                    e.code(),
                    format!("the language server's rename also edits {}, which Scalpel may not write: {}", path.display(), e.message),
                )
                .with_suggestion("nothing was written; rename inside the root, or pass --no-lsp")
                .with_details(json!({"path": path.display().to_string()})),
            )
        })?;
        let file = match t.files().find(|(p, ..)| *p == resolved.path) {
            Some((.., f)) => f.clone(),
            None => load(&resolved.path).map_err(Planning::Refused)?,
        };
        let body = file.source.body();
        let (new_body, sites) = convert::apply(body, &edits, &t.symbol.name)
            .map_err(|why| Planning::Stale(format!("{}: {why}", resolved.display)))?;
        if new_body == body {
            continue;
        }
        let _ = new_name;
        out.push(Planned {
            path: resolved.path,
            display: resolved.display,
            file,
            new_body,
            sites,
        });
    }
    if !out.iter().any(|p| p.path == t.path) {
        return Err(Planning::Stale(format!(
            "it does not rename the definition in {}",
            t.display
        )));
    }
    Ok(out)
}

/// Show the server the new texts (in memory) and compare its error
/// diagnostics, in the touched files and every file that mentions the old
/// name, with those of the texts on disk: `Err` when new errors appear;
/// a warning when it published none in time. The server holds the disk's
/// texts again afterwards.
fn verify(
    c: &mut crate::lsp::client::Client,
    t: &Target,
    new_name: &str,
    plan: &[Planned],
    quiet: Duration,
    label: &str,
) -> std::result::Result<std::result::Result<Vec<String>, Error>, Failure> {
    let mut files: Vec<(&Path, &str, &ParsedFile)> = plan
        .iter()
        .map(|p| (p.path.as_path(), p.display.as_str(), &*p.file))
        .collect();
    for (path, display, f) in t.files() {
        if !files.iter().any(|(p, ..)| *p == path) {
            files.push((path, display, f));
        }
    }
    let paths: Vec<PathBuf> = files.iter().map(|(p, ..)| p.to_path_buf()).collect();
    // A server that says when it is done is given the request's bound (it
    // is working: a first check of a project takes seconds on a loaded
    // machine); one read by its silence, 10 s at most.
    let wait = if c.says_when_idle() {
        c.timeout
    } else {
        c.timeout.min(Duration::from_secs(10))
    };
    // A rename the server could not check is not written on its word: the
    // syntax backend answers instead, with a note (never "ok" unverified).
    let unverified = || Failure::Timeout(wait);
    let started = Instant::now();
    for (path, _, f) in &files {
        c.sync(path, f.source.body(), language_id(f))?;
    }
    let Some(before) = c.errors_now(&paths, 0, quiet, crate::lsp::deadline(wait))? else {
        return Err(unverified());
    };
    tracing::debug!(target: "scalpel::lsp", ms = ms(started), files = paths.len(), "rename: the server's errors of the texts on disk");
    let started = Instant::now();
    let renamed: Vec<(&Path, &str)> = plan
        .iter()
        .map(|p| (p.path.as_path(), p.new_body.as_str()))
        .collect();
    // Checked already (a dry run's texts, at its --apply): not shown to the
    // server again, which would only set it checking them twice more.
    let after = match c.known_errors_with(&renamed, &paths) {
        Some(known) => Some(known),
        None => {
            let mark = c.published();
            for p in plan {
                c.sync(&p.path, &p.new_body, language_id(&p.file))?;
            }
            // The other files shown again as a new version: a server that
            // versions its diagnostics checks them again and says so for
            // that version, rather than leaving us to guess when it is done.
            for (path, _, f) in &files {
                if !plan.iter().any(|p| p.path == *path) {
                    c.touch(path, f.source.body(), language_id(f))?;
                }
            }
            let after = c.errors_now(&paths, mark, quiet, crate::lsp::deadline(wait))?;
            for p in plan {
                c.sync(&p.path, p.file.source.body(), language_id(&p.file))?;
            }
            after
        }
    };
    tracing::debug!(target: "scalpel::lsp", ms = ms(started), "rename: the server's errors of the renamed texts");
    let Some(after) = after else {
        return Err(unverified());
    };
    let mut new_errors = Vec::new();
    for (((path, display, f), was), now) in files.iter().zip(&before).zip(&after) {
        let text = plan
            .iter()
            .find(|p| p.path == *path)
            .map_or(f.source.body(), |p| p.new_body.as_str());
        let mut was: Vec<&str> = was.iter().map(|e| e.1.as_str()).collect();
        for (line, message) in now {
            // An error that was there before, now quoting the new name
            // (`Cannot access attribute "serialize_rn" for class "T"` where
            // it said `"serialize"`), is the same error.
            let as_before = swap_word(message, new_name, &t.symbol.name);
            match was.iter().position(|w| *w == message || *w == as_before) {
                Some(i) => {
                    was.swap_remove(i);
                }
                None => new_errors.push(json!({"path": display, "line": line,
                    "why": format!("new error: {message}"),
                    "preview": text.lines().nth(line - 1).unwrap_or("").trim()})),
            }
        }
    }
    if new_errors.is_empty() {
        return Ok(Ok(Vec::new()));
    }
    Ok(Err(Error::new(
        ErrorCode::Conflict,
        format!(
            "the rename would bring {} new error(s) the language server ({label}) reports; nothing was written",
            new_errors.len()
        ),
    )
    .with_suggestion("choose another name, or fix the listed errors' cause first")
    .with_details(json!({"backend": label, "sites": new_errors}))))
}

/// `text` with every whole-word `from` read as `to`.
fn swap_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(from) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + from.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(word) || after.is_some_and(word) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}

/// Validate each planned text and commit them as one transaction.
fn commit(
    ws: &Workspace,
    t: &Target,
    new_name: &str,
    plan: Vec<Planned>,
    mut warnings: Vec<String>,
    label: String,
    dry_run: bool,
) -> Result<RenameReceipt> {
    let started = Instant::now();
    // Each file's new text is re-parsed and judged on its own, so in
    // parallel; the first failure in file order is the answer, as when they
    // were judged one after another.
    let cancel = crate::symbols::Cancel::current();
    let judged: Vec<Result<(Change<Renamed>, usize)>> = plan
        .into_par_iter()
        .map(|p| {
            cancel
                .run(|| judge(ws, t, new_name, p))
                .unwrap_or_else(|| Err(cancel.error("validating the rename")))
        })
        .collect();
    let mut changes = Vec::with_capacity(judged.len());
    let mut renamed = 0;
    for j in judged {
        let (change, sites) = j?;
        changes.push(change);
        renamed += sites;
    }
    tracing::debug!(target: "scalpel::lsp", ms = ms(started), files = changes.len(), "rename: the new texts validated");
    let started = Instant::now();
    let committed = change::commit_all(
        ws,
        changes,
        "rename_symbol",
        Some(&t.symbol.name_path),
        dry_run,
    )?;
    tracing::debug!(target: "scalpel::lsp", ms = ms(started), dry_run, "rename: committed");
    warnings.extend(committed.warnings);
    Ok(RenameReceipt {
        backend: label,
        symbol: t.symbol.name_path.clone(),
        new_name: new_name.to_string(),
        edit_id: committed.edit_id,
        dry_run,
        renamed,
        files: committed.files,
        skipped: Vec::new(),
        skipped_count: 0,
        warnings,
        hint: None,
    })
}

/// One planned text re-parsed and judged, as the change to commit, with
/// its number of renamed sites.
fn judge(
    ws: &Workspace,
    t: &Target,
    new_name: &str,
    p: Planned,
) -> Result<(Change<Renamed>, usize)> {
    let started = Instant::now();
    let body = p.file.source.body();
    let offset = p.file.source.body_offset();
    let splice = Splice::between(body, &p.new_body);
    let (_, introduced, preexisting) = validate::reparse_parsed(&p.file, &p.new_body, splice)?;
    let validation = validate::judge(introduced, preexisting, false, &p.display)?;
    tracing::debug!(target: "scalpel::lsp", ms = ms(started), path = %p.display, bytes = body.len(), window = splice.old_end - splice.start, "rename: one new text validated");
    let text = format!("{}{}", &p.file.source.text[..offset], p.new_body);
    let change = Change::new(
        ws.resolve(Path::new(&p.path), Purpose::Write)?,
        Some(p.file.source.clone()),
        Judged {
            new: Some(text),
            validation,
            tree: None,
        },
        Renamed {
            symbol: t.symbol.name_path.clone(),
            new_name: new_name.to_string(),
            occurrences: p.sites,
        },
        Vec::new(),
    );
    Ok((change, p.sites))
}

#[cfg(test)]
mod tests {
    use super::swap_word;

    #[test]
    fn only_whole_words_are_swapped() {
        assert_eq!(
            swap_word(
                "Cannot access attribute \"serialize_rn\" for class \"T\"",
                "serialize_rn",
                "serialize"
            ),
            "Cannot access attribute \"serialize\" for class \"T\""
        );
        assert_eq!(
            swap_word("mm(mmm) mm_x xmm mm", "mm", "m"),
            "m(mmm) mm_x xmm m"
        );
        assert_eq!(swap_word("nothing here", "mm", "m"), "nothing here");
    }
}
