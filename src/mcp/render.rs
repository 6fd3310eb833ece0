//! Compact text renderings of tool results. The structured result carries
//! every field; the text is what a model reads first, so it says the same
//! thing in as few tokens as possible: an outline rather than a JSON dump,
//! code verbatim, one line per fact.

use super::reply::Render;
use crate::disk::UndoOutcome;
use crate::disk::tree::TreeListing;
use crate::ops::engine::{Extraction, FileSymbols};
use crate::ops::receipt::{Describe, Planned, Receipt};
use crate::ops::search::SearchResult;
use crate::ops::textops::{FileWindow, Fragment};
use crate::text::count;
use std::fmt::Write;

/// One line per symbol: address, kind, lines, signature; nested ones
/// indented under their parent, all by `base` more.
fn symbol_lines(out: &mut String, symbols: &[crate::symbols::Symbol], base: usize) {
    for s in symbols {
        let depth = s.depth().min(8);
        let _ = writeln!(
            out,
            "{:indent$}{} {} {}-{}: {}",
            "",
            s.address(),
            s.kind,
            s.start_line,
            s.end_line,
            s.signature,
            indent = base + depth * 2
        );
    }
}

impl Render for FileSymbols {
    fn render(&self) -> String {
        if self.language.is_empty() {
            // A folder: each file's outline under its path.
            let mut out = format!("{}/ ({})\n", self.path, count(self.files.len(), "file"));
            for f in &self.files {
                let errors = if f.parse_errors > 0 {
                    format!(", {}", count(f.parse_errors, "parse error"))
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "{} ({}, {}{errors})",
                    f.path,
                    f.language,
                    count(f.symbols.len(), "symbol")
                );
                symbol_lines(&mut out, &f.symbols, 2);
            }
            if let Some(n) = &self.hint {
                let _ = writeln!(out, "note: {n}");
            }
            return out;
        }
        let mut out = format!(
            "{} ({}, {}, hash {}",
            self.path,
            self.language,
            count(self.symbols.len(), "symbol"),
            self.file_hash
        );
        if self.parse_errors > 0 {
            let _ = write!(out, ", {}", count(self.parse_errors, "parse error"));
            if let Some(first) = self.parse_error_locations.first() {
                let _ = write!(out, ", first at line {}", first.line);
            }
        }
        out.push_str(")\n");
        symbol_lines(&mut out, &self.symbols, 0);
        if let Some(note) = &self.hint {
            let _ = writeln!(out, "(truncated: {note})");
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
        push_code(&mut out, &self.printed());
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
            push_code(&mut out, &d.printed());
        }
        out
    }
}

/// A write or an undo: the summary, its notes, the diff.
fn described(d: &dyn Describe) -> String {
    let mut out = d.summary();
    out.push('\n');
    for n in d.notes() {
        out.push_str(&n);
        out.push('\n');
    }
    push_code(&mut out, d.diff_to_show());
    out
}

impl Render for UndoOutcome {
    fn render(&self) -> String {
        described(self)
    }
}

impl<P: Planned> Render for Receipt<P> {
    fn render(&self) -> String {
        described(self)
    }
}

impl Render for FileWindow {
    fn render(&self) -> String {
        let w = &self.window;
        let mut out = format!(
            "{} lines {}-{} of {} (hash {})",
            self.path, w.start_line, w.end_line, w.total_lines, w.file_hash
        );
        if let Some(next) = w.next_start_line {
            let _ = write!(out, "; truncated, continue at start_line {next}");
        }
        if let Some(line) = w.partial_line {
            let _ = write!(out, "; line {line} is cut short (too long)");
        }
        out.push('\n');
        push_code(&mut out, &w.text);
        out
    }
}

impl Render for Fragment {
    fn render(&self) -> String {
        let mut out = format!(
            "{}: {}, {} of {} (hash {})\n",
            self.path,
            count(self.regions.len(), "region"),
            self.lines_returned,
            count(self.total_lines, "line"),
            self.file_hash
        );
        for r in &self.regions {
            let _ = writeln!(
                out,
                "@@ {}-{} [{}]",
                r.start_line,
                r.end_line,
                r.sources.join(", ")
            );
            push_code(&mut out, &r.text);
        }
        if !self.keywords_not_found.is_empty() {
            let scope = if self.symbols.is_empty() {
                ""
            } else {
                " (inside the symbols)"
            };
            let _ = writeln!(
                out,
                "not found{scope}: {}",
                self.keywords_not_found.join(", ")
            );
        }
        if let Some(h) = &self.hint {
            let _ = writeln!(out, "truncated: {h}");
        }
        out
    }
}

impl Render for SearchResult {
    fn render(&self) -> String {
        let mut out = format!(
            "{} in {} ({} searched)\n",
            count(self.total_matches, "match"),
            count(self.files_matched, "file"),
            self.files_searched
        );
        for f in &self.files {
            let defines = if f.defines.is_empty() {
                String::new()
            } else {
                format!(", defines {}", f.defines.join(", "))
            };
            let _ = writeln!(
                out,
                "{} ({}{defines})",
                f.path,
                count(f.match_count, "match")
            );
            for m in &f.matches {
                // Context lines grep-style: `N-` before and after, `N:col:`
                // for the match.
                let first = m.line - m.context_before.len();
                for (i, c) in m.context_before.iter().enumerate() {
                    let _ = writeln!(out, "  {}- {c}", first + i);
                }
                let hits = if m.hits > 1 {
                    format!(" ({} hits)", m.hits)
                } else {
                    String::new()
                };
                let _ = writeln!(out, "  {}:{}: {}{hits}", m.line, m.column, m.preview.trim());
                for (i, c) in m.context_after.iter().enumerate() {
                    let _ = writeln!(out, "  {}- {c}", m.line + 1 + i);
                }
            }
            if f.matches_truncated {
                out.push_str("  …\n");
            }
        }
        if let Some(h) = &self.hint {
            let _ = writeln!(out, "truncated: {h}");
        }
        if self.error_count > 0 {
            let _ = writeln!(
                out,
                "{} could not be searched",
                count(self.error_count, "file")
            );
        }
        out
    }
}

impl Render for TreeListing {
    fn render(&self) -> String {
        let mut out = self.text.clone();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if let Some(h) = &self.hint {
            let _ = writeln!(out, "{h}");
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

impl Render for crate::refs::References {
    fn render(&self) -> String {
        self.text()
    }
}

impl Render for crate::ops::rename::RenameReceipt {
    fn render(&self) -> String {
        self.text()
    }
}

impl Render for crate::ops::textops::EditFilesReceipt {
    fn render(&self) -> String {
        let mut out = match &self.edit_id {
            Some(id) => format!(
                "edited {} as edit {id} (undo_edit with it restores every file)\n",
                count(self.files.len(), "file")
            ),
            None => format!(
                "{} {}; nothing written\n",
                if self.dry_run {
                    "would edit"
                } else {
                    "checked"
                },
                count(self.files.len(), "file")
            ),
        };
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        for f in &self.files {
            out.push_str(&f.render());
        }
        out
    }
}

impl Render for crate::index::SearchAnswer {
    fn render(&self) -> String {
        let mut out = format!(
            "{} for {:?} ({}{})\n",
            count(self.results.len(), "result"),
            self.query,
            self.mode,
            if self.complete {
                String::new()
            } else {
                format!(
                    ", {} of {} indexed",
                    self.indexed_files,
                    count(self.total_files, "file")
                )
            }
        );
        for (i, h) in self.results.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}. {}:{}-{} {}",
                i + 1,
                h.path,
                h.start_line,
                h.end_line,
                h.summary
            );
            for line in h.snippet.lines() {
                let _ = writeln!(out, "   {line}");
            }
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        if let Some(h) = &self.hint {
            let _ = writeln!(out, "hint: {h}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of a thing is said in the singular: `1 match in 1 file`.
    #[test]
    fn counts_of_one_are_singular() {
        let result = SearchResult {
            files: Vec::new(),
            total_matches: 1,
            files_matched: 1,
            files_searched: 3,
            truncated: false,
            cancelled: false,
            hint: None,
            binary_files_skipped: 0,
            definitions_checked: 0,
            errors: Vec::new(),
            error_count: 1,
        };
        let text = result.render();
        assert!(
            text.starts_with("1 match in 1 file (3 searched)\n"),
            "{text}"
        );
        assert!(text.contains("1 file could not be searched"), "{text}");
    }
}
