//! Search results: `search_files` hits and `search_codebase` answers.

use super::{Render, Rendering};
use crate::index::SearchAnswer;
use crate::ops::search::SearchResult;
use crate::text::count;
use std::fmt::Write;

impl Render for SearchResult {
    fn rendering(&self) -> Rendering {
        let mut r = Rendering::default();
        r.head(format!(
            "{} in {} ({} searched)",
            count(self.total_matches, "match"),
            count(self.files_matched, "file"),
            self.files_searched
        ));
        for f in &self.files {
            let defines = if f.defines.is_empty() {
                String::new()
            } else {
                format!(", defines {}", f.defines.join(", "))
            };
            let mut out = format!("{} ({}{defines})\n", f.path, count(f.match_count, "match"));
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
            r.body(out);
        }
        if let Some(h) = &self.hint {
            r.note(format!("truncated: {h}"));
        }
        for e in &self.errors {
            r.note(format!("warning: {}: {}", e.path, e.message));
        }
        if self.error_count > 0 {
            r.note(format!(
                "{} could not be searched",
                count(self.error_count, "file")
            ));
        }
        r
    }
}

impl Render for SearchAnswer {
    fn rendering(&self) -> Rendering {
        let mut r = Rendering::default();
        r.head(format!(
            "{} for {:?} ({}{})",
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
        ));
        for (i, h) in self.results.iter().enumerate() {
            let mut out = format!(
                "{}. {}:{}-{} {}\n",
                i + 1,
                h.path,
                h.start_line,
                h.end_line,
                h.summary
            );
            for line in h.snippet.lines() {
                let _ = writeln!(out, "   {line}");
            }
            r.body(out);
        }
        for n in &self.notes {
            r.note(format!("note: {n}"));
        }
        if let Some(h) = &self.hint {
            r.note(format!("hint: {h}"));
        }
        r
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
        let text = result.rendering().text(&|t, _| t.name().to_string());
        assert!(
            text.starts_with("1 match in 1 file (3 searched)\n"),
            "{text}"
        );
        assert!(text.contains("1 file could not be searched"), "{text}");
    }
}
