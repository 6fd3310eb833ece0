//! The one value every planner produces, and the one way it is written.
//!
//! ```text
//! planner (update_symbol | edit_file | edit_files | write_file | rename_symbol)
//!   → Change { target (resolved once), old text, new text + its tree,
//!              what was planned, validation, warnings }
//!   → Change::commit / commit_all  (disk::commit_write / disk::commit_files,
//!                                   the only writers)
//!   → Receipt<P>                   (one type, one description)
//! ```
//!
//! Planners differ in how they find the new text (a symbol operation, text
//! edits, a whole file, a rename) and validate it with the one parse-error
//! comparison (`edit::validate`); from the moment the new text exists they
//! are the same, so that part is written here once: the write, the no-op
//! that writes nothing, the receipt, and the new tree kept for a parse cache.
//! Undo is not a planner: it restores bytes the journal saved and has its
//! own outcome (`disk::UndoOutcome`).

use crate::disk::{self, FileChange, ResolvedPath, Workspace, WriteMeta, WriteOutcome};
use crate::edit::Validation;
use crate::error::Result;
use crate::lang::Language;
use crate::ops::receipt::{Planned, Receipt};
use crate::source::SourceText;
use crate::symbols::{self, ParsedFile};
use serde::Serialize;
use std::sync::Arc;

/// One file's planned and validated change, not yet written. Built only by
/// [`Change::new`], from a [`Validation`] that only `edit::validate` can
/// make: a change cannot exist without having been judged (or saying it
/// was not).
pub struct Change<P> {
    /// Where it goes, resolved once for writing.
    target: ResolvedPath,
    /// The text the plan was made against; `None` when the file is new. The
    /// write refuses unless the file still has it.
    old: Option<Arc<SourceText>>,
    /// The new text; `None` when the plan changes nothing (a batch of
    /// no-op edits): nothing is written and the receipt says so.
    new: Option<String>,
    /// Validation's tree of `new` (reparsed incrementally), for a cache.
    tree: Option<(Arc<Language>, tree_sitter::Tree)>,
    /// What was planned, in the operation's own terms.
    planned: P,
    validation: Validation,
    /// The planner's warnings; the write's own follow them.
    warnings: Vec<String>,
}

/// What a planner judged: the new text (`None`: nothing changes), the
/// verdict of `edit::validate`, and the tree it parsed for a cache.
pub struct Judged {
    pub new: Option<String>,
    pub validation: Validation,
    pub tree: Option<(Arc<Language>, tree_sitter::Tree)>,
}

impl<P> Change<P> {
    /// A change of `target` from `old` (`None`: a new file), as judged.
    /// Every warning about the judgement is added here, once: a write with
    /// parse errors allowed says so whichever planner made it.
    pub fn new(
        target: ResolvedPath,
        old: Option<Arc<SourceText>>,
        judged: Judged,
        planned: P,
        mut warnings: Vec<String>,
    ) -> Change<P> {
        let v = &judged.validation;
        if v.status == crate::edit::ValidationStatus::ErrorsAllowed {
            warnings.push(format!(
                "written with {} new parse error(s) (allow_syntax_errors)",
                v.new_errors.len()
            ));
        }
        if let (Some(first), Some(by)) = (v.grammar_gaps.first(), &v.accepted_by) {
            warnings.push(format!(
                "the tree-sitter grammar reads {} parse error(s) here that {by} accepts \
                 (first at line {}: {}); written, as {by} parses the whole file",
                v.grammar_gaps.len(),
                first.line,
                first.what
            ));
        }
        Change {
            target,
            old,
            new: judged.new,
            tree: judged.tree,
            planned,
            validation: judged.validation,
            warnings,
        }
    }

    /// Where the change goes.
    pub fn target(&self) -> &ResolvedPath {
        &self.target
    }
}

/// A change written (or, for a dry run, checked).
pub struct Written<P> {
    pub receipt: Receipt<P>,
    /// The new file with validation's tree, when something was written.
    pub reparsed: Option<Reparsed>,
}

impl<P: Planned> Change<P> {
    /// Write this one file through [`disk::commit_write`] (backup, journal,
    /// atomic replace) and describe it with one [`Receipt`].
    pub fn commit(self, ws: &Workspace, meta: WriteMeta) -> Result<Written<P>> {
        let Some(new) = self.new else {
            let outcome = self.unchanged(meta.dry_run);
            return Ok(Written {
                receipt: Receipt::new(outcome, self.planned, self.validation, self.warnings),
                reparsed: None,
            });
        };
        let outcome =
            disk::commit_write(ws, &self.target, self.old.as_deref(), new.as_bytes(), meta)?;
        let reparsed = match self.tree {
            Some((language, tree)) if outcome.changed && !outcome.dry_run => Some(Reparsed {
                language,
                path: self.target.path.clone(),
                text: new,
                tree,
            }),
            _ => None,
        };
        Ok(Written {
            receipt: Receipt::new(outcome, self.planned, self.validation, self.warnings),
            reparsed,
        })
    }

    /// The outcome of a plan that changes nothing: the file as it was read.
    fn unchanged(&self, dry_run: bool) -> WriteOutcome {
        let hash = self
            .old
            .as_ref()
            .map(|o| o.hash.clone())
            .unwrap_or_default();
        WriteOutcome::unchanged(self.target.display.clone(), hash, dry_run)
    }
}

/// Several files written as one transaction.
#[derive(Debug, Clone, Serialize)]
pub struct Committed<P> {
    /// The transaction's id (undo_edit reverts every file); `None` for a
    /// dry run or when nothing changed.
    pub edit_id: Option<String>,
    pub dry_run: bool,
    /// One receipt per change, in the order given.
    pub files: Vec<Receipt<P>>,
    pub warnings: Vec<String>,
}

/// Write every change as one transaction ([`disk::commit_files`]: one lock,
/// every file checked against the text it was planned on, all or nothing)
/// and describe each file with its [`Receipt`]. Changes that change nothing
/// are not written and get an unchanged receipt.
pub fn commit_all<P: Planned>(
    ws: &Workspace,
    mut changes: Vec<Change<P>>,
    operation: &str,
    symbol: Option<&str>,
    dry_run: bool,
) -> Result<Committed<P>> {
    let mut writes = Vec::new();
    // Which changes write something: their texts move into `writes`.
    let mut writing = Vec::with_capacity(changes.len());
    for c in &mut changes {
        writing.push(c.new.is_some());
        if let Some(new) = c.new.take() {
            writes.push(FileChange {
                target: c.target.clone(),
                expect: c.old.as_ref().map(|o| o.hash.clone()),
                new: new.into_bytes(),
                undo_of: None,
            });
        }
    }
    let t = disk::commit_files(ws, &writes, operation, symbol, false, dry_run)?;
    let mut outcomes = t.files.into_iter();
    let files = changes
        .into_iter()
        .zip(writing)
        .map(|(c, writes)| {
            let outcome = match writes {
                true => outcomes.next().unwrap_or_else(|| c.unchanged(dry_run)),
                false => c.unchanged(dry_run),
            };
            Receipt::new(outcome, c.planned, c.validation, c.warnings)
        })
        .collect();
    Ok(Committed {
        edit_id: t.edit_id,
        dry_run,
        files,
        warnings: t.warnings,
    })
}

/// A file just written, with the tree validation parsed incrementally.
/// Building its outline costs a tags query over the whole file, so it is
/// left to a caller that keeps parses (the MCP server's cache).
pub struct Reparsed {
    language: Arc<Language>,
    path: std::path::PathBuf,
    text: String,
    tree: tree_sitter::Tree,
}

impl Reparsed {
    /// The written file as a [`ParsedFile`], without parsing it again.
    pub fn outline(self) -> Result<ParsedFile> {
        let source = crate::source::decode(&self.path, self.text.into_bytes())?;
        symbols::outline(&self.language, Arc::new(source), self.tree)
    }
}
