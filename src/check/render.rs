//! How a check report reads. People get compiler-style lines
//! (`path:line:col: error: ...`, which editors and terminals turn into links)
//! with the source line and a caret, then one summary line; machines get the
//! report as one JSON document.

use super::CheckReport;
use crate::text::count as plural;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The human rendering: one block per counted error, then the summary.
/// Pre-existing errors are only counted in the summary (they do not fail the
/// check; `--all-errors` shows them).
pub fn render_human(report: &CheckReport) -> String {
    let mut out = String::new();
    for file in &report.files {
        for d in file.errors.iter().filter(|d| !d.preexisting) {
            let _ = writeln!(
                out,
                "{}:{}:{}: error: {}",
                file.path, d.line, d.column, d.message
            );
            let number = d.line.to_string();
            let pad = " ".repeat(number.len());
            let _ = writeln!(out, " {number} | {}", d.source_line);
            // Copy tabs so the caret lines up whatever the tab width.
            let lead: String = d
                .source_line
                .chars()
                .take(d.caret)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, " {pad} | {lead}^");
        }
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

/// `3 files checked, 1 with errors (2 errors); 1 skipped (1 binary); ...`.
fn summary(r: &CheckReport) -> String {
    let mut s = format!("{} checked", plural(r.files_checked, "file"));
    if r.error_count > 0 {
        let _ = write!(
            s,
            ", {} with {} ({})",
            r.files_with_errors,
            if r.compared_with.is_some() {
                "new parse errors"
            } else {
                "parse errors"
            },
            plural(r.error_count, "error")
        );
    } else if r.compared_with.is_some() {
        s.push_str(", no new parse errors");
    } else {
        s.push_str(", no parse errors");
    }
    if !r.skipped.is_empty() {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for k in &r.skipped {
            *by.entry(k.reason.describe()).or_default() += 1;
        }
        let parts: Vec<String> = by.iter().map(|(why, n)| format!("{n} {why}")).collect();
        let _ = write!(s, "; {} skipped ({})", r.skipped.len(), parts.join(", "));
    }
    if let Some(rev) = &r.compared_with {
        let _ = write!(s, "; compared with {rev}");
        if r.preexisting_errors > 0 {
            let _ = write!(
                s,
                ", {} already there not counted (--all-errors shows {})",
                plural(r.preexisting_errors, "error"),
                if r.preexisting_errors == 1 {
                    "it"
                } else {
                    "them"
                }
            );
        }
    }
    s
}

/// The report as one JSON document.
pub fn render_json(report: &CheckReport) -> String {
    serde_json::to_string(report)
        .unwrap_or_else(|e| format!("{{\"error\":\"serialization failed: {e}\"}}"))
}
