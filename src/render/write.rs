//! Writes and undos: what [`Describe`] says of them (summary, notes, diff),
//! and a transaction of several files.

use super::{Render, Rendering};
use crate::disk::UndoOutcome;
use crate::hint::{Term, term};
use crate::ops::change::Committed;
use crate::ops::receipt::{Describe, Planned, Receipt};
use crate::text::count;

/// A write or an undo: the summary, its notes, the diff.
fn described(d: &dyn Describe) -> Rendering {
    let mut r = Rendering::default();
    r.head(d.summary());
    for n in d.notes() {
        r.note(n);
    }
    r.body(d.diff_to_show());
    r
}

impl Render for UndoOutcome {
    fn rendering(&self) -> Rendering {
        described(self)
    }
}

impl<P: Planned> Render for Receipt<P> {
    fn rendering(&self) -> Rendering {
        described(self)
    }
}

impl<P: Planned> Render for Committed<P> {
    /// What the transaction did, its warnings, then each file's receipt.
    fn rendering(&self) -> Rendering {
        let mut r = Rendering::default();
        r.head(match &self.edit_id {
            Some(id) => format!(
                "edited {} as edit {id} ({} with it restores every file)",
                count(self.files.len(), "file"),
                term(Term::UndoEdit)
            ),
            None => format!(
                "{} {}; nothing written",
                if self.dry_run {
                    "would edit"
                } else {
                    "checked"
                },
                count(self.files.len(), "file")
            ),
        });
        for w in &self.warnings {
            r.note(format!("warning: {w}"));
        }
        for f in &self.files {
            r.append(f.rendering());
        }
        r
    }
}
