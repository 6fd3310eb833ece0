//! The reading results: an outline, a symbol's code, a window or fragments
//! of a file, a folder tree.

use super::{Render, Rendering};
use crate::disk::tree::TreeListing;
use crate::hint::{Term, term_with};
use crate::ops::engine::{Extraction, FileSymbols};
use crate::ops::textops::{FileWindow, Fragment};
use crate::symbols::Symbol;
use crate::text::count;
use std::fmt::Write;

/// One line per symbol: address, kind, lines, signature; nested ones
/// indented under their parent, all by `base` more.
fn symbol_lines(symbols: &[Symbol], base: usize) -> String {
    let mut out = String::new();
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
    out
}

impl Render for FileSymbols {
    fn rendering(&self) -> Rendering {
        let mut r = Rendering::default();
        if self.language.is_empty() {
            // A folder: each file's outline under its path.
            r.head(format!(
                "{}/ ({})",
                self.path,
                count(self.files.len(), "file")
            ));
            for f in &self.files {
                let errors = if f.parse_errors > 0 {
                    format!(", {}", count(f.parse_errors, "parse error"))
                } else {
                    String::new()
                };
                r.body(format!(
                    "{} ({}, {}{errors})\n{}",
                    f.path,
                    f.language,
                    count(f.symbols.len(), "symbol"),
                    symbol_lines(&f.symbols, 2)
                ));
            }
            if let Some(n) = &self.hint {
                r.note(format!("note: {n}"));
            }
            return r;
        }
        let mut head = format!(
            "{} ({}, {}, hash {}",
            self.path,
            self.language,
            count(self.symbols.len(), "symbol"),
            self.file_hash
        );
        if self.parse_errors > 0 {
            let _ = write!(head, ", {}", count(self.parse_errors, "parse error"));
            if let Some(first) = self.parse_error_locations.first() {
                let _ = write!(head, ", first at line {}", first.line);
            }
        }
        head.push(')');
        r.head(head);
        r.body(symbol_lines(&self.symbols, 0));
        if let Some(note) = &self.hint {
            r.note(format!("(truncated: {note})"));
        }
        r
    }
}

impl Render for Extraction {
    fn rendering(&self) -> Rendering {
        let s = &self.symbol;
        let mut r = Rendering::default();
        r.head(format!(
            "{}:{}-{} {} {} (hash {}, ~{} tokens{})",
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
        ));
        r.body(self.printed());
        let deps = &self.dependencies;
        if !deps.symbols.is_empty() {
            let names: Vec<String> = deps
                .symbols
                .iter()
                .map(|d| format!("{} ({} {}-{})", d.address, d.kind, d.start_line, d.end_line))
                .collect();
            r.note(format!("uses: {}", names.join(", ")));
        }
        for i in &deps.imports {
            r.note(format!(
                "import (line {}): {}",
                i.start_line,
                i.code.lines().next().unwrap_or_default()
            ));
        }
        for d in &self.dependency_code {
            r.body(format!(
                "--- {} ({} {}-{})",
                d.address, d.kind, d.start_line, d.end_line
            ));
            r.body(d.printed());
        }
        r
    }
}

impl Render for FileWindow {
    fn rendering(&self) -> Rendering {
        let w = &self.window;
        let mut head = format!(
            "{} lines {}-{} of {} (hash {})",
            self.path, w.start_line, w.end_line, w.total_lines, w.file_hash
        );
        if let Some(next) = w.next_start_line {
            let _ = write!(
                head,
                "; truncated, continue at {}",
                term_with(Term::StartLine, next)
            );
        }
        if let Some(line) = w.partial_line {
            let _ = write!(head, "; line {line} is cut short (too long)");
        }
        let mut r = Rendering::default();
        r.head(head);
        r.body(w.text.as_str());
        r
    }
}

impl Render for Fragment {
    fn rendering(&self) -> Rendering {
        let mut r = Rendering::default();
        r.head(format!(
            "{}: {}, {} of {} (hash {})",
            self.path,
            count(self.regions.len(), "region"),
            self.lines_returned,
            count(self.total_lines, "line"),
            self.file_hash
        ));
        for region in &self.regions {
            r.body(format!(
                "@@ {}-{} [{}]",
                region.start_line,
                region.end_line,
                region.sources.join(", ")
            ));
            r.body(region.text.as_str());
        }
        if !self.keywords_not_found.is_empty() {
            let scope = if self.symbols.is_empty() {
                ""
            } else {
                " (inside the symbols)"
            };
            r.note(format!(
                "not found{scope}: {}",
                self.keywords_not_found.join(", ")
            ));
        }
        for n in &self.notes {
            r.note(format!("range {}: {}", n.requested, n.note));
        }
        if let Some(h) = &self.hint {
            r.note(format!("truncated: {h}"));
        }
        r
    }
}

impl Render for TreeListing {
    fn rendering(&self) -> Rendering {
        let mut r = Rendering::default();
        r.body(self.text.as_str());
        if let Some(h) = &self.hint {
            r.note(h.as_str());
        }
        r
    }
}
