//! One receipt for every write of one file, and its one rendering.
//!
//! `update_symbol`, `edit_file` and `write_file` differ in what they planned
//! (a symbol operation, text edits, a whole file) and agree on everything
//! else: the write outcome from [`crate::disk::commit_write`], the validation,
//! the warnings. So there is one [`Receipt`], generic over what was planned
//! (the [`Planned`] part, flattened into the same JSON object), built in one
//! place ([`Receipt::new`]) from the write outcome, and described in one
//! place ([`Receipt::summary`], [`Receipt::notes`]). The MCP adapter and the
//! CLI print that description; they differ only in layout (the CLI prints
//! the diff first, like `git`) and in the words for marked terms
//! ([`crate::hint`]).

use crate::disk::{UndoOutcome, WriteOutcome};
use crate::edit::{Operation, SyntaxProblem, Validation};
use crate::hint::{Term, term};
use crate::text::intervals::LineRange;
use crate::text::replace::MatchMode;
use serde::Serialize;

/// What a write did to one file.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt<P> {
    pub path: String,
    /// What was planned: the operation's own fields.
    #[serde(flatten)]
    pub planned: P,
    /// Pass to undo_edit to restore the file (absent for dry runs and no-ops).
    pub edit_id: Option<String>,
    /// The content differs from before.
    pub changed: bool,
    pub dry_run: bool,
    /// Unified diff of the change (capped).
    pub diff: String,
    pub diff_truncated: bool,
    /// Hash of the new content (the current one if nothing changed).
    pub file_hash: String,
    /// Hash before the write; absent for a new file.
    pub previous_hash: Option<String>,
    pub validation: Validation,
    pub warnings: Vec<String>,
}

/// The planned part of a receipt: how it is named in one line.
pub trait Planned {
    /// `{verb} {what}`: e.g. `applied replace to method A.f in m.py, now
    /// lines 3-5`. `verb` is [`Verb`] in this operation's words.
    fn headline(&self, path: &str, verb: Verb) -> String;
    /// Facts to append to the headline (`kept its leading trivia: …`).
    fn extra(&self) -> Option<String> {
        None
    }
}

/// What happened, before the operation's own words for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    DryRun,
    Created,
    Changed,
    Unchanged,
}

impl<P: Planned> Receipt<P> {
    /// The receipt of a write that reached [`crate::disk::commit_write`]:
    /// `warnings` (the planner's) come first, then the write's own.
    pub fn new(
        outcome: WriteOutcome,
        planned: P,
        validation: Validation,
        mut warnings: Vec<String>,
    ) -> Self {
        warnings.extend(outcome.warnings);
        Receipt {
            path: outcome.path,
            planned,
            edit_id: outcome.edit_id,
            changed: outcome.changed,
            dry_run: outcome.dry_run,
            diff: outcome.diff,
            diff_truncated: outcome.diff_truncated,
            file_hash: outcome.new_hash,
            previous_hash: outcome.old_hash,
            validation,
            warnings,
        }
    }

    fn verb(&self) -> Verb {
        match (self.dry_run, self.previous_hash.is_none(), self.changed) {
            (true, _, _) => Verb::DryRun,
            (false, true, true) => Verb::Created,
            (false, _, true) => Verb::Changed,
            (false, _, false) => Verb::Unchanged,
        }
    }
}

/// What both interfaces print for a write or an undo: one summary line
/// (marked terms, see [`crate::hint`]), the lines after it, and the diff.
/// The MCP text is summary, notes, diff; the CLI prints the diff first (like
/// `git`), the summary, and the notes on stderr.
pub trait Describe {
    fn summary(&self) -> String;
    fn notes(&self) -> Vec<String>;
    fn diff_to_show(&self) -> &str;
}

/// The lines after a summary: each new parse error, each warning, and
/// whether the diff was cut.
fn note_lines(new_errors: &[SyntaxProblem], warnings: &[String], truncated: bool) -> Vec<String> {
    let mut notes: Vec<String> = new_errors
        .iter()
        .map(|e| {
            format!(
                "new parse error at {}:{}: {} `{}`",
                e.line, e.column, e.what, e.snippet
            )
        })
        .collect();
    notes.extend(warnings.iter().map(|w| format!("warning: {w}")));
    if truncated {
        notes.push("(diff truncated)".to_string());
    }
    notes
}

impl<P: Planned> Describe for Receipt<P> {
    /// One line: what happened, the hashes, the edit id, the validation.
    /// Tools and parameters are marked terms ([`crate::hint`]).
    fn summary(&self) -> String {
        let mut out = self.planned.headline(&self.path, self.verb());
        match &self.previous_hash {
            Some(old) => out.push_str(&format!("; hash {old} -> {}", self.file_hash)),
            None => out.push_str(&format!("; hash {}", self.file_hash)),
        }
        if let Some(id) = &self.edit_id {
            out.push_str(&format!(
                "; edit {id} ({} reverts it)",
                term(Term::UndoEdit)
            ));
        }
        out.push_str(&format!("; validation {}", self.validation.status));
        if let Some(extra) = self.planned.extra() {
            out.push_str("; ");
            out.push_str(&extra);
        }
        out
    }

    /// The diff to print: none for a created file, whose diff is only the
    /// content the caller sent (the JSON still has it).
    fn diff_to_show(&self) -> &str {
        if self.verb() == Verb::Created || (self.dry_run && self.previous_hash.is_none()) {
            ""
        } else {
            &self.diff
        }
    }

    fn notes(&self) -> Vec<String> {
        note_lines(
            &self.validation.new_errors,
            &self.warnings,
            self.diff_truncated,
        )
    }
}

/// A symbol operation (`update_symbol`, `scalpel update`).
#[derive(Debug, Clone, Serialize)]
pub struct SymbolChange {
    pub operation: Operation,
    /// Name path of the symbol the operation was applied to.
    pub symbol: String,
    pub kind: String,
    /// Lines of the new code in the new file (for delete: the line where
    /// the code before and after it now meets, both fields).
    pub start_line: usize,
    pub end_line: usize,
    /// Leading trivia of the old symbol that the replacement kept (the new
    /// code brought none), one entry per item: `the 41-line doc comment` for
    /// a run of comments, an attribute or decorator by its first line.
    pub kept_trivia: Vec<String>,
}

impl Planned for SymbolChange {
    fn headline(&self, path: &str, verb: Verb) -> String {
        // A deleted symbol has no lines: say it is gone and where the code
        // around it now meets.
        if self.operation == Operation::Delete && verb != Verb::Unchanged {
            let (did, meet) = match verb {
                Verb::DryRun => ("dry run, nothing written: would delete", "would meet"),
                _ => ("deleted", "now meet"),
            };
            return format!(
                "{did} {} {} from {path}: the symbol is removed, its neighbours {meet} at line {}",
                self.kind, self.symbol, self.start_line
            );
        }
        format!(
            "{} {} to {} {} in {path}, now lines {}-{}",
            match verb {
                Verb::DryRun => "dry run, nothing written: would apply",
                Verb::Created | Verb::Changed => "applied",
                Verb::Unchanged => "no change from",
            },
            self.operation.as_str(),
            self.kind,
            self.symbol,
            self.start_line,
            self.end_line,
        )
    }

    /// `kept its leading trivia: the 41-line doc comment, #[derive(Debug)]
    /// and #[must_use]`, when the replacement kept any.
    fn extra(&self) -> Option<String> {
        let (last, rest) = self.kept_trivia.split_last()?;
        Some(if rest.is_empty() {
            format!("kept its leading trivia: {last}")
        } else {
            format!("kept its leading trivia: {} and {last}", rest.join(", "))
        })
    }
}

/// Text edits (`edit_file`, `scalpel edit`).
#[derive(Debug, Clone, Serialize)]
pub struct TextEdits {
    pub edits: Vec<EditSummary>,
}

/// How one edit of a batch landed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditSummary {
    pub index: usize,
    /// `exact`, `whitespace`, `levenshtein`, or `noop` (identical texts).
    pub mode: MatchMode,
    /// Occurrences replaced.
    pub matches: usize,
    /// First line of the new text in the new file (absent for a no-op).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<usize>,
    /// Last line of the new text in the new file (absent for a no-op).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// Each occurrence's new lines, when there are several.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub occurrences: Vec<LineRange>,
    /// Edit distance of a levenshtein match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<usize>,
    /// Similarity (0..1) of a fuzzy match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

impl Planned for TextEdits {
    fn headline(&self, path: &str, verb: Verb) -> String {
        let each: Vec<String> = self
            .edits
            .iter()
            .map(|e| {
                let times = if e.matches > 1 {
                    format!(" ×{}", e.matches)
                } else {
                    String::new()
                };
                let mode = serde_json::to_value(e.mode)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                match (e.start_line, e.end_line) {
                    (Some(a), Some(b)) => format!("#{} {mode}{times} -> lines {a}-{b}", e.index),
                    _ => format!("#{} {mode}{times}", e.index),
                }
            })
            .collect();
        let n = self.edits.len();
        format!(
            "{} {n} edit{} to {path} ({})",
            match verb {
                Verb::DryRun => "dry run, nothing written: would apply",
                Verb::Created | Verb::Changed => "applied",
                Verb::Unchanged => "no change from",
            },
            if n == 1 { "" } else { "s" },
            each.join(", ")
        )
    }
}

/// A whole file (`write_file`, `scalpel write`).
#[derive(Debug, Clone, Serialize)]
pub struct WholeFile {
    /// The file did not exist before.
    pub created: bool,
    pub total_lines: usize,
    pub bytes: usize,
}

impl Planned for WholeFile {
    fn headline(&self, path: &str, verb: Verb) -> String {
        let verb = match verb {
            Verb::DryRun if self.created => "dry run, nothing written: would create",
            Verb::DryRun => "dry run, nothing written: would write",
            Verb::Created => "created",
            Verb::Changed => "wrote",
            Verb::Unchanged => "unchanged:",
        };
        let lines = self.total_lines;
        format!(
            "{verb} {path} ({lines} line{}, {} bytes)",
            if lines == 1 { "" } else { "s" },
            self.bytes
        )
    }
}

/// One file of a rename (`rename_symbol`, `scalpel rename`).
#[derive(Debug, Clone, Serialize)]
pub struct Renamed {
    /// The symbol's name path before the rename.
    pub symbol: String,
    pub new_name: String,
    /// Occurrences renamed in this file.
    pub occurrences: usize,
}

impl Planned for Renamed {
    fn headline(&self, path: &str, verb: Verb) -> String {
        format!(
            "{} `{}` -> `{}`: {} occurrence{} in {path}",
            match verb {
                Verb::DryRun => "dry run, nothing written: would rename",
                Verb::Created | Verb::Changed => "renamed",
                Verb::Unchanged => "no change from renaming",
            },
            self.symbol,
            self.new_name,
            self.occurrences,
            if self.occurrences == 1 { "" } else { "s" },
        )
    }
}

pub type UpdateReceipt = Receipt<SymbolChange>;
pub type EditReceipt = Receipt<TextEdits>;
pub type WriteReceipt = Receipt<WholeFile>;

/// One line for an undo, in both interfaces: what was undone, the hashes,
/// the new edit id (an undo is an edit: undoing it redoes).
impl Describe for UndoOutcome {
    fn summary(&self) -> String {
        let u = self;
        let mut out = match &u.edit_id {
            Some(id) => format!(
                "undid {} on {} as edit {id} ({} that id to redo)",
                u.undone_edit_id,
                if u.files.len() > 1 {
                    u.files.join(", ")
                } else {
                    u.path.clone()
                },
                term(Term::UndoEdit)
            ),
            None => format!(
                "{} already had the content from before {}; nothing written",
                u.path, u.undone_edit_id
            ),
        };
        let hash = |h: &Option<String>| h.clone().unwrap_or_else(|| "none".into());
        out.push_str(&format!(
            "; hash {} -> {}",
            hash(&u.previous_hash),
            hash(&u.restored_hash)
        ));
        if u.removed {
            out.push_str("; file removed");
        }
        if u.forced {
            out.push_str("; forced over a later change");
        }
        out
    }

    fn notes(&self) -> Vec<String> {
        note_lines(&[], &self.warnings, self.diff_truncated)
    }

    fn diff_to_show(&self) -> &str {
        &self.diff
    }
}

/// `n thing(s)`.
pub(crate) fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(old: Option<&str>, changed: bool, dry_run: bool) -> WriteOutcome {
        WriteOutcome {
            edit_id: (changed && !dry_run).then(|| "e1".to_string()),
            path: "m.py".into(),
            old_hash: old.map(str::to_string),
            new_hash: "new".into(),
            created: old.is_none(),
            changed,
            dry_run,
            diff: String::new(),
            diff_truncated: false,
            warnings: vec!["from the write".into()],
        }
    }

    fn ok() -> Validation {
        crate::edit::validate::judge(Vec::new().into(), 0, false, "t.py").unwrap()
    }

    /// Each kind of write, in each state, says the same facts in one line.
    #[test]
    fn summaries() {
        let cases: Vec<(String, &str)> = vec![
            (
                Receipt::new(
                    outcome(Some("old"), true, false),
                    SymbolChange {
                        operation: Operation::Replace,
                        symbol: "R.f".into(),
                        kind: "method".into(),
                        start_line: 3,
                        end_line: 5,
                        kept_trivia: vec!["@property".into()],
                    },
                    ok(),
                    vec![],
                )
                .summary(),
                "applied replace to method R.f in m.py, now lines 3-5; hash old -> new; edit e1 (⟦undo_edit⟧ reverts it); validation ok; kept its leading trivia: @property",
            ),
            (
                Receipt::new(
                    outcome(Some("old"), true, false),
                    SymbolChange {
                        operation: Operation::Delete,
                        symbol: "R.f".into(),
                        kind: "method".into(),
                        start_line: 87,
                        end_line: 87,
                        kept_trivia: vec![],
                    },
                    ok(),
                    vec![],
                )
                .summary(),
                "deleted method R.f from m.py: the symbol is removed, its neighbours now meet at line 87; hash old -> new; edit e1 (⟦undo_edit⟧ reverts it); validation ok",
            ),
            (
                Receipt::new(
                    outcome(Some("old"), true, true),
                    TextEdits { edits: vec![] },
                    ok(),
                    vec![],
                )
                .summary(),
                "dry run, nothing written: would apply 0 edits to m.py (); hash old -> new; validation ok",
            ),
            (
                Receipt::new(
                    outcome(None, true, false),
                    WholeFile {
                        created: true,
                        total_lines: 1,
                        bytes: 4,
                    },
                    ok(),
                    vec![],
                )
                .summary(),
                "created m.py (1 line, 4 bytes); hash new; edit e1 (⟦undo_edit⟧ reverts it); validation ok",
            ),
            (
                Receipt::new(
                    outcome(Some("new"), false, false),
                    WholeFile {
                        created: false,
                        total_lines: 2,
                        bytes: 8,
                    },
                    ok(),
                    vec![],
                )
                .summary(),
                "unchanged: m.py (2 lines, 8 bytes); hash new -> new; validation ok",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn planner_warnings_come_first() {
        let r = Receipt::new(
            outcome(Some("old"), true, false),
            TextEdits { edits: vec![] },
            ok(),
            vec!["from the planner".into()],
        );
        assert_eq!(r.warnings, ["from the planner", "from the write"]);
        assert_eq!(
            r.notes(),
            ["warning: from the planner", "warning: from the write"]
        );
    }
}
