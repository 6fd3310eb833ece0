//! The compact text of a `find_references` result, shown by the CLI and
//! the MCP server alike (hints still marked; each interface renders them).

use super::References;

impl References {
    /// The compact text both interfaces show (hints still marked, rendered
    /// by each interface): a summary line, one line per reference, what
    /// was left alone.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let what = match &self.symbol {
            Some(s) => s.clone(),
            None => format!("name `{}`", self.name),
        };
        let mut out = format!(
            "{what}: {} in {} ({} proven, {} probable, {} name only; {} searched; backend: {})\n",
            crate::text::count(self.total, "reference"),
            crate::text::count(self.files.len(), "file"),
            self.tiers.proven,
            self.tiers.probable,
            self.tiers.name_only,
            crate::text::count(self.files_searched, "file"),
            self.backend
        );
        for r in &self.references {
            let inside = r
                .enclosing
                .as_deref()
                .map(|e| format!(" in {e}"))
                .unwrap_or_default();
            let why = r
                .why
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{}:{}:{}: {} {}{inside}: {}{why}",
                r.path,
                r.line,
                r.column,
                r.tier.as_str(),
                r.role,
                r.preview.trim()
            );
        }
        if self.left_alone_count > 0 {
            let mut why: Vec<(&str, usize)> = Vec::new();
            for l in &self.left_alone {
                match why.iter_mut().find(|w| w.0 == l.why) {
                    Some(w) => w.1 += 1,
                    None => why.push((&l.why, 1)),
                }
            }
            let why: Vec<String> = why.iter().map(|(w, n)| format!("{n} {w}")).collect();
            let _ = writeln!(
                out,
                "left alone: {} occurrences that are not references ({})",
                self.left_alone_count,
                why.join(", ")
            );
        }
        if let Some(h) = &self.hint {
            let _ = writeln!(out, "truncated: {h}");
        }
        for e in &self.errors {
            let _ = writeln!(out, "warning: {}: {}", e.path, e.message);
        }
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        out
    }
}
