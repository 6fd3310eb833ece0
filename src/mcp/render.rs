//! Compact text renderings of tool results. The structured result carries
//! every field; the text is what a model reads first, so it says the same
//! thing in as few tokens as possible: an outline rather than a JSON dump,
//! code verbatim, one line per fact.

use super::reply::Render;
use crate::engine::{Extraction, FileSymbols, UpdateReceipt};
use crate::fs::UndoOutcome;
use std::fmt::Write;

impl Render for FileSymbols {
    fn render(&self) -> String {
        let mut out = format!(
            "{} ({}, {} symbols, hash {}",
            self.path,
            self.language,
            self.symbols.len(),
            self.file_hash
        );
        if self.parse_errors > 0 {
            let _ = write!(out, ", {} parse errors", self.parse_errors);
            if let Some(first) = self.parse_error_locations.first() {
                let _ = write!(out, ", first at line {}", first.line);
            }
        }
        out.push_str(")\n");
        for s in &self.symbols {
            let depth = s.segments().len().saturating_sub(1).min(8);
            let _ = writeln!(
                out,
                "{:indent$}{} {} {}-{}: {}",
                "",
                s.address(),
                s.kind,
                s.start_line,
                s.end_line,
                s.signature,
                indent = depth * 2
            );
        }
        out
    }
}

impl Render for Extraction {
    fn render(&self) -> String {
        let s = &self.symbol;
        let mut out = format!(
            "{}:{}-{} {} {} (hash {}, ~{} tokens{})\n",
            self.path,
            s.start_line,
            s.end_line,
            s.kind,
            s.address(),
            self.file_hash,
            self.token_estimate,
            if self.parse_errors > 0 {
                format!(", file has {} parse errors", self.parse_errors)
            } else {
                String::new()
            }
        );
        push_code(&mut out, &self.code);
        let deps = &self.dependencies;
        if !deps.symbols.is_empty() {
            let names: Vec<String> = deps
                .symbols
                .iter()
                .map(|d| format!("{} ({} {}-{})", d.address, d.kind, d.start_line, d.end_line))
                .collect();
            let _ = writeln!(out, "uses: {}", names.join(", "));
        }
        for i in &deps.imports {
            let _ = writeln!(
                out,
                "import (line {}): {}",
                i.start_line,
                i.code.lines().next().unwrap_or_default()
            );
        }
        for d in &self.dependency_code {
            let _ = writeln!(
                out,
                "--- {} ({} {}-{})",
                d.address, d.kind, d.start_line, d.end_line
            );
            push_code(&mut out, &d.code);
        }
        out
    }
}

impl Render for UndoOutcome {
    fn render(&self) -> String {
        let mut out = match &self.edit_id {
            Some(id) => format!(
                "undid {} on {} as edit {id} (undo_edit that id to redo)",
                self.undone_edit_id, self.path
            ),
            None => format!(
                "{} already had the content from before {}; nothing written",
                self.path, self.undone_edit_id
            ),
        };
        let hash = |h: &Option<String>| h.clone().unwrap_or_else(|| "none".into());
        let _ = write!(
            out,
            "; hash {} -> {}",
            hash(&self.previous_hash),
            hash(&self.restored_hash)
        );
        if self.removed {
            out.push_str("; file removed");
        }
        if self.forced {
            out.push_str("; forced over a later change");
        }
        out.push('\n');
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        push_code(&mut out, &self.diff);
        if self.diff_truncated {
            out.push_str("(diff truncated)\n");
        }
        out
    }
}

impl Render for UpdateReceipt {
    fn render(&self) -> String {
        let verb = match (self.dry_run, self.changed) {
            (true, _) => "dry run: would apply",
            (false, true) => "applied",
            (false, false) => "no change:",
        };
        let mut out = format!(
            "{verb} {} to {} {} in {}; now lines {}-{}; hash {} -> {}",
            self.operation.as_str(),
            self.kind,
            self.symbol,
            self.path,
            self.start_line,
            self.end_line,
            self.previous_hash,
            self.file_hash
        );
        if let Some(id) = &self.edit_id {
            let _ = write!(out, "; edit {id} (undo_edit reverts it)");
        }
        let _ = writeln!(out, "; validation {}", self.validation.status);
        for e in &self.validation.new_errors {
            let _ = writeln!(
                out,
                "new parse error at {}:{}: {} `{}`",
                e.line, e.column, e.what, e.snippet
            );
        }
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        push_code(&mut out, &self.diff);
        if self.diff_truncated {
            out.push_str("(diff truncated)\n");
        }
        out
    }
}

fn push_code(out: &mut String, code: &str) {
    out.push_str(code);
    if !code.is_empty() && !code.ends_with('\n') {
        out.push('\n');
    }
}
