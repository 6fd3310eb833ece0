//! Cross-file results: references and a rename's receipt.

use super::{Render, Rendering};
use crate::hint::{Term, term};
use crate::ops::rename::RenameReceipt;
use crate::refs::References;
use crate::text::count;
use std::fmt::Write;

impl Render for References {
    /// A summary line, one line per reference, what was left alone.
    fn rendering(&self) -> Rendering {
        let what = match &self.symbol {
            Some(s) => s.clone(),
            None => format!("name `{}`", self.name),
        };
        let mut r = Rendering::default();
        r.head(format!(
            "{what}: {} in {} ({} proven, {} probable, {} name only; {} searched; backend: {})",
            count(self.total, "reference"),
            count(self.files.len(), "file"),
            self.tiers.proven,
            self.tiers.probable,
            self.tiers.name_only,
            count(self.files_searched, "file"),
            self.backend
        ));
        let mut lines = String::new();
        for x in &self.references {
            let inside = x
                .enclosing
                .as_deref()
                .map(|e| format!(" in {e}"))
                .unwrap_or_default();
            let why = x
                .why
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            let _ = writeln!(
                lines,
                "{}:{}:{}: {} {}{inside}: {}{why}",
                x.path,
                x.line,
                x.column,
                x.tier.as_str(),
                x.role,
                x.preview.trim()
            );
        }
        r.body(lines);
        if self.left_alone_count > 0 {
            let mut why: Vec<(&str, usize)> = Vec::new();
            for l in &self.left_alone {
                match why.iter_mut().find(|w| w.0 == l.why) {
                    Some(w) => w.1 += 1,
                    None => why.push((&l.why, 1)),
                }
            }
            let why: Vec<String> = why.iter().map(|(w, n)| format!("{n} {w}")).collect();
            r.note(format!(
                "left alone: {} occurrences that are not references ({})",
                self.left_alone_count,
                why.join(", ")
            ));
        }
        if let Some(h) = &self.hint {
            r.note(format!("truncated: {h}"));
        }
        for e in &self.errors {
            r.note(format!("warning: {}: {}", e.path, e.message));
        }
        for w in &self.warnings {
            r.note(format!("warning: {w}"));
        }
        r
    }
}

impl Render for RenameReceipt {
    /// The summary, the sites left alone, warnings, then every file's diff.
    fn rendering(&self) -> Rendering {
        let mut r = Rendering::default();
        r.head(format!(
            "{} `{}` -> `{}`: {} in {} ({} backend){}",
            if self.dry_run {
                "would rename"
            } else {
                "renamed"
            },
            self.symbol,
            self.new_name,
            count(self.renamed, "occurrence"),
            count(self.files.len(), "file"),
            self.backend,
            match &self.edit_id {
                Some(id) => format!("; edit {id} ({} reverts every file)", term(Term::UndoEdit)),
                None => String::new(),
            }
        ));
        for s in &self.skipped {
            r.note(format!(
                "left alone {}:{}:{}: {} ({})",
                s.path,
                s.line,
                s.column,
                s.tier.as_str(),
                s.why
            ));
        }
        for w in &self.warnings {
            r.note(format!("warning: {w}"));
        }
        if let Some(h) = &self.hint {
            r.note(format!("note: {h}"));
        }
        for f in &self.files {
            r.body(f.diff.as_str());
        }
        r
    }
}
