//! The facts in an error's `details` that the caller needs for the next
//! step, as text lines: where the matches are (with the anchor that picks
//! each), the candidates of an ambiguous name, the closest text's diff, the
//! new parse errors, the lines that changed under a stale caller, the edits
//! that can be undone. Both interfaces print them under the message and
//! hint (the CLI on stderr, MCP in the text content, which is all many
//! clients show the model), with the hint vocabulary in their own words.

use crate::hint::{self, Term};
use serde_json::Value;

/// At most this many matches or candidates are listed under an error.
pub const MAX_DETAIL_ITEMS: usize = 10;
/// At most this many lines of a diff or changed region are listed.
const MAX_DETAIL_TEXT_LINES: usize = 40;

/// The lines, in the words of `words` ([`crate::hint::render`]).
pub fn detail_lines(details: &Value, words: impl Fn(Term, Option<&str>) -> String) -> Vec<String> {
    let mut lines = Vec::new();
    for key in ["matches", "candidates"] {
        if let Some(items) = details.get(key).and_then(Value::as_array) {
            place_lines(&mut lines, items, &words);
        }
    }
    // A rename's undecided sites, and those its verification found changed.
    for sites in ["uncertain", "sites"].map(|k| details.get(k).and_then(Value::as_array)) {
        let Some(sites) = sites else { continue };
        for s in sites.iter().take(MAX_DETAIL_ITEMS) {
            let why = str_at(s, "why").unwrap_or_default();
            lines.push(format!(
                "{}:{}: {}: {}",
                str_at(s, "path").unwrap_or_default(),
                s["line"],
                match str_at(s, "tier") {
                    Some(tier) => format!("{tier} ({why})"),
                    None => why.to_string(),
                },
                str_at(s, "preview").unwrap_or_default()
            ));
        }
        if sites.len() > MAX_DETAIL_ITEMS {
            lines.push(format!(
                "… {} more listed in the details",
                sites.len() - MAX_DETAIL_ITEMS
            ));
        }
    }
    if let Some(first) = details.get("first")
        && let (Some(line), Some(preview)) = (first.get("line"), str_at(first, "preview"))
    {
        lines.push(format!("first at line {line}: {preview}"));
    }
    if let Some(diff) = details.pointer("/closest/diff").and_then(Value::as_str) {
        text_block(&mut lines, diff);
    }
    if let Some(errors) = details.get("new_errors").and_then(Value::as_array) {
        for e in errors.iter().take(MAX_DETAIL_ITEMS) {
            lines.push(format!(
                "line {}, column {}: {} `{}`",
                e["line"],
                e["column"],
                str_at(e, "what").unwrap_or_default(),
                str_at(e, "snippet").unwrap_or_default()
            ));
        }
    }
    if let (Some(a), Some(region)) = (
        details.get("changed_start_line"),
        str_at(details, "current_region"),
    ) {
        let b = &details["changed_end_line"];
        lines.push(format!("lines {a}-{b} now read:"));
        text_block(&mut lines, region);
    }
    if let Some(ids) = details.get("recent_edit_ids").and_then(Value::as_array)
        && !ids.is_empty()
    {
        let ids: Vec<&str> = ids.iter().filter_map(Value::as_str).collect();
        lines.push(format!("recent edits, newest first: {}", ids.join(", ")));
    }
    lines
}

/// One line per listed place: its lines and preview, or its address and
/// kind, then how to pick it.
fn place_lines(
    lines: &mut Vec<String>,
    items: &[Value],
    words: impl Fn(Term, Option<&str>) -> String,
) {
    for item in items.iter().take(MAX_DETAIL_ITEMS) {
        let span = format!("lines {}-{}", item["start_line"], item["end_line"]);
        let mut line = match (str_at(item, "address"), str_at(item, "preview")) {
            (Some(a), _) => format!("{a} ({}, {span})", str_at(item, "kind").unwrap_or_default()),
            (None, Some(p)) => format!("{span}: {p}"),
            (None, None) => continue,
        };
        if let Some(anchor) = item.get("anchor") {
            let pick = hint::render(&hint::term_with(Term::Anchor, anchor), &words);
            line.push_str(&format!("  pick it with {pick}"));
        }
        if let Some(failed) = item.get("failed").and_then(Value::as_array) {
            let why: Vec<&str> = failed.iter().filter_map(Value::as_str).collect();
            line.push_str(&format!("  (anchor fails: {})", why.join(", ")));
        }
        lines.push(line);
    }
    if items.len() > MAX_DETAIL_ITEMS {
        lines.push(format!("… {} more", items.len() - MAX_DETAIL_ITEMS));
    }
}

/// A multi-line text (diff, region), bounded.
fn text_block(lines: &mut Vec<String>, text: &str) {
    let total = text.lines().count();
    lines.extend(text.lines().take(MAX_DETAIL_TEXT_LINES).map(str::to_string));
    if total > MAX_DETAIL_TEXT_LINES {
        lines.push(format!("… {} more lines", total - MAX_DETAIL_TEXT_LINES));
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plain(t: Term, v: Option<&str>) -> String {
        match v {
            Some(v) => format!("<{} {v}>", t.name()),
            None => format!("<{}>", t.name()),
        }
    }

    #[test]
    fn each_kind_of_fact_has_its_lines() {
        let cases = [
            (
                json!({"matches": [{"start_line": 3, "end_line": 3, "preview": "x = 1", "anchor": {"before": "def a():"}}]}),
                vec![r#"lines 3-3: x = 1  pick it with <anchor {"before":"def a():"}>"#],
            ),
            (
                json!({"candidates": [{"address": "/A.f", "kind": "method", "start_line": 1, "end_line": 2}]}),
                vec!["/A.f (method, lines 1-2)"],
            ),
            (
                json!({"candidates": [{"start_line": 4, "end_line": 5, "preview": "y", "failed": ["before"]}]}),
                vec!["lines 4-5: y  (anchor fails: before)"],
            ),
            (
                json!({"closest": {"diff": "@@ line 2\n-a\n+b"}}),
                vec!["@@ line 2", "-a", "+b"],
            ),
            (
                json!({"first": {"line": 7, "preview": "parser = 1"}}),
                vec!["first at line 7: parser = 1"],
            ),
            (
                json!({"new_errors": [{"line": 2, "column": 5, "what": "missing `)`", "snippet": "f(x"}]}),
                vec!["line 2, column 5: missing `)` `f(x`"],
            ),
            (
                json!({"changed_start_line": 2, "changed_end_line": 3, "current_region": "B\nX\n"}),
                vec!["lines 2-3 now read:", "B", "X"],
            ),
            (
                json!({"recent_edit_ids": ["e2", "e1"]}),
                vec!["recent edits, newest first: e2, e1"],
            ),
            (json!({"recent_edit_ids": []}), vec![]),
            (json!({"path": "a.py"}), vec![]),
        ];
        for (details, expect) in cases {
            assert_eq!(detail_lines(&details, plain), expect, "{details}");
        }
    }

    #[test]
    fn long_lists_and_texts_are_bounded() {
        let many: Vec<Value> = (1..=12)
            .map(|i| json!({"start_line": i, "end_line": i, "preview": "p"}))
            .collect();
        let lines = detail_lines(&json!({"matches": many}), plain);
        assert_eq!(lines.len(), MAX_DETAIL_ITEMS + 1);
        assert_eq!(lines.last().unwrap(), "… 2 more");
        let diff: String = (0..50).map(|i| format!("+{i}\n")).collect();
        let lines = detail_lines(&json!({"closest": {"diff": diff}}), plain);
        assert_eq!(lines.len(), MAX_DETAIL_TEXT_LINES + 1);
        assert_eq!(lines.last().unwrap(), "… 10 more lines");
    }
}
