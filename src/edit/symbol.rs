//! Planning a symbol edit: replace, insert before/after, delete. New code is
//! fitted to its place: re-indented to the target's indentation, given the
//! file's line endings and indentation style; inserted definitions are
//! separated by the file's own blank-line convention; deletions take their
//! blank lines with them tidily.
//!
//! **Invariant:** `replace(S, extract(S).code)` yields the file unchanged,
//! byte for byte, and no edit changes a byte outside the symbol's lines.

use crate::error::{Error, Result};
use crate::fs::{Eol, Indent, SourceText};
use crate::symbols::{ParsedFile, Symbol};
use serde::{Deserialize, Serialize};

/// What to do with the addressed symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Replace the symbol's whole range (as `extract_code` returns it).
    Replace,
    /// Insert a new definition before the symbol (and its decorators/docs).
    InsertBefore,
    /// Insert a new definition after the symbol.
    InsertAfter,
    /// Remove the symbol and the blank lines it leaves behind.
    Delete,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Replace => "replace",
            Operation::InsertBefore => "insert_before",
            Operation::InsertAfter => "insert_after",
            Operation::Delete => "delete",
        }
    }

    pub fn parse(s: &str) -> Result<Operation> {
        match s.replace('-', "_").as_str() {
            "replace" => Ok(Operation::Replace),
            "insert_before" => Ok(Operation::InsertBefore),
            "insert_after" => Ok(Operation::InsertAfter),
            "delete" => Ok(Operation::Delete),
            _ => Err(
                Error::invalid_argument(format!("unknown operation `{s}`")).with_suggestion(
                    "set ⟦operation⟧ to replace, insert_before, insert_after or delete",
                ),
            ),
        }
    }
}

/// The planned result: the whole new content and where it changed.
#[derive(Debug, Clone)]
pub struct SymbolEdit {
    pub new_text: String,
    /// File offsets: `old_start..old_end` in the old text became
    /// `old_start..new_end` in the new text.
    pub old_start: usize,
    pub old_end: usize,
    pub new_end: usize,
    /// Where the new code itself sits in the new text (empty for delete).
    pub code_start: usize,
    pub code_end: usize,
}

/// Plan `op` on `target` of `file`. `code` is required except for delete.
pub fn plan(
    file: &ParsedFile,
    target: &Symbol,
    op: Operation,
    code: Option<&str>,
) -> Result<SymbolEdit> {
    let src = &file.source;
    let text = src.text.as_str();
    let span = target.full_span();
    let nl = src.profile.newline();
    let ctx = Ctx::new(src, span.start_byte);
    let needs_code = || -> Result<&str> {
        match code {
            Some(c) if !c.trim().is_empty() => Ok(c),
            _ => Err(Error::invalid_argument(format!(
                "{} needs new code, and the code given is empty",
                op.as_str()
            ))
            .with_suggestion(if op == Operation::Replace {
                "to remove the symbol use ⟦operation=delete⟧; otherwise pass ⟦new_code⟧"
            } else {
                "pass the code of the definition to insert"
            })),
        }
    };
    let original = &text[span.start_byte..span.end_byte];
    match op {
        Operation::Replace => {
            let code = needs_code()?;
            let mut fitted = fit(code, &ctx, rel_indent(original, &ctx.indent), src);
            // Keep whatever line terminator the original range ended with.
            let trail = &original[original.trim_end_matches(['\r', '\n']).len()..];
            fitted.push_str(trail);
            Ok(splice(text, span.start_byte, span.end_byte, &fitted, 0))
        }
        Operation::InsertBefore => {
            let code = needs_code()?;
            let fitted = fit(code, &ctx, rel_indent(original, &ctx.indent), src);
            let gap = blank_gap(file, target);
            let insert = format!("{fitted}{}{}", nl.repeat(gap + 1), ctx.indent);
            Ok(splice(text, span.start_byte, span.start_byte, &insert, 0))
        }
        Operation::InsertAfter => {
            let code = needs_code()?;
            let fitted = fit(code, &ctx, rel_indent(original, &ctx.indent), src);
            let gap = blank_gap(file, target);
            // After the rest of the line (a `;`, a trailing comment), unless
            // another definition starts on that same line.
            let eol = line_end(text, span.end_byte);
            let shares_line = file.symbols.iter().any(|s| {
                s.full_span().start_byte >= span.end_byte && s.full_span().start_byte < eol
            });
            let at = if shares_line { span.end_byte } else { eol };
            let lead = format!("{}{}", nl.repeat(gap + 1), ctx.indent);
            let insert = format!("{lead}{fitted}");
            Ok(splice(text, at, at, &insert, lead.len()))
        }
        Operation::Delete => Ok(delete(file, target)),
    }
}

/// Where the target sits: the indentation of its first line.
struct Ctx {
    indent: String,
}

impl Ctx {
    fn new(src: &SourceText, start: usize) -> Ctx {
        let text = &src.text;
        let ls = line_start(text, start).max(src.body_offset());
        let line = &text[ls..];
        let ws_len = line.len() - line.trim_start_matches([' ', '\t']).len();
        Ctx {
            indent: line[..ws_len].to_string(),
        }
    }
}

fn line_start(text: &str, pos: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..pos]).map_or(0, |p| p + 1)
}

/// Offset of the line terminator of the line holding `pos` (or the end).
fn line_end(text: &str, pos: usize) -> usize {
    let end = memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |p| pos + p);
    if end > pos && text.as_bytes()[end - 1] == b'\r' && end < text.len() {
        end - 1
    } else {
        end
    }
}

fn leading_ws(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Indentation of the code's later lines relative to its first line's
/// column, as found in the original range (`None` for one-liners).
fn rel_indent(original: &str, target_indent: &str) -> Option<usize> {
    original
        .lines()
        .skip(1)
        .filter(|l| !is_blank(l))
        .map(|l| leading_ws(l).len())
        .min()
        .map(|m| m.saturating_sub(target_indent.len()))
}

/// Fit agent-supplied code to the target's place: file line endings, file
/// indentation style, and the target's indentation. Two shapes are
/// accepted: code whose later lines are already at the file's absolute
/// indentation (what `extract_code` returns: its first line starts at the
/// symbol's column), and code indented from column 0 (what agents write).
fn fit(code: &str, ctx: &Ctx, rel_orig: Option<usize>, src: &SourceText) -> String {
    let code = code.strip_prefix('\u{feff}').unwrap_or(code);
    let body = code.trim_end_matches(['\r', '\n']);
    let restyled = restyle(body, src.profile.indent);
    // Each line with its own terminator ("" for the last one).
    let lines: Vec<(&str, &str)> = restyled
        .split_inclusive('\n')
        .map(|l| {
            let content = l.trim_end_matches('\n').trim_end_matches('\r');
            (content, &l[content.len()..])
        })
        .collect();
    let t = ctx.indent.as_str();
    let first_ws = leading_ws(lines[0].0);
    let rest_min = lines
        .iter()
        .skip(1)
        .filter(|(l, _)| !is_blank(l))
        .map(|(l, _)| leading_ws(l).len())
        .min();

    // How much to strip from every line, and what to put in front of the
    // lines after the first.
    let (strip, prefix) = if !first_ws.is_empty() {
        (first_ws.len(), t)
    } else {
        match rest_min {
            None => (0, ""),
            Some(_) if t.is_empty() => (0, ""),
            Some(m) => {
                let absolute = m >= t.len() && Some(m - t.len()) == rel_orig;
                let dedented = Some(m) == rel_orig;
                if absolute || (!dedented && m >= t.len()) {
                    (0, "")
                } else {
                    (0, t)
                }
            }
        }
    };
    // Line endings: the file's style; a mixed file keeps each line's own.
    let eol = |own: &str| -> String {
        if own.is_empty() {
            return String::new();
        }
        match src.profile.eol {
            Eol::Mixed => own.to_string(),
            _ => src.profile.newline().to_string(),
        }
    };
    let mut out = String::with_capacity(restyled.len() + lines.len() * (t.len() + 1));
    for (i, (line, term)) in lines.iter().enumerate() {
        let ws = leading_ws(line);
        let rest = &line[ws.len().min(strip)..];
        if i == 0 {
            out.push_str(rest);
        } else if !is_blank(line) {
            out.push_str(prefix);
            out.push_str(rest);
        }
        // Blank lines get no indentation (no trailing whitespace).
        out.push_str(&eol(term));
    }
    out
}

/// Convert the code's leading indentation to the file's style: tabs in a
/// tab-indented file, spaces (of the file's width) in a space-indented one.
fn restyle(code: &str, file: Indent) -> String {
    let code_indent = crate::fs::profile_of(code).indent;
    let convert = |line: &str| -> String {
        let ws = leading_ws(line);
        let rest = &line[ws.len()..];
        match (file, code_indent) {
            (Indent::Tabs, Indent::Spaces(w)) if !ws.contains('\t') && w > 0 => {
                let w = w as usize;
                format!(
                    "{}{}{rest}",
                    "\t".repeat(ws.len() / w),
                    " ".repeat(ws.len() % w)
                )
            }
            (Indent::Spaces(w), _) if ws.contains('\t') => {
                let expanded: String = ws
                    .chars()
                    .map(|c| {
                        if c == '\t' {
                            " ".repeat(w as usize)
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                format!("{expanded}{rest}")
            }
            _ => line.to_string(),
        }
    };
    match (file, code_indent) {
        (Indent::Tabs, Indent::Spaces(_)) | (Indent::Spaces(_), Indent::Tabs) => {
            code.split('\n').map(convert).collect::<Vec<_>>().join("\n")
        }
        _ => code.to_string(),
    }
}

/// Blank lines between the target and its nearest sibling definition, or the
/// language's convention when it has none.
fn blank_gap(file: &ParsedFile, target: &Symbol) -> usize {
    let text = &file.source.text;
    let siblings: Vec<&Symbol> = file
        .symbols
        .iter()
        .filter(|s| s.parent == target.parent && s.full_span() != target.full_span())
        .collect();
    let prev = siblings
        .iter()
        .rev()
        .find(|s| s.full_span().end_byte <= target.full_span().start_byte);
    let next = siblings
        .iter()
        .find(|s| s.full_span().start_byte >= target.full_span().end_byte);
    let between = |a: usize, b: usize| -> usize {
        text[a..b]
            .split('\n')
            .skip(1)
            .collect::<Vec<_>>()
            .split_last()
            .map_or(0, |(_, mid)| mid.iter().filter(|l| is_blank(l)).count())
    };
    let observed = prev
        .map(|p| between(p.full_span().end_byte, target.full_span().start_byte))
        .or_else(|| next.map(|n| between(target.full_span().end_byte, n.full_span().start_byte)));
    let rules = &file.language.config.edit;
    let fallback = if target.parent.is_none() {
        rules.top_level_blank_lines
    } else {
        rules.blank_lines
    };
    observed.unwrap_or(fallback).min(3)
}

fn splice(text: &str, start: usize, end: usize, insert: &str, code_offset: usize) -> SymbolEdit {
    let mut new_text = String::with_capacity(text.len() - (end - start) + insert.len());
    new_text.push_str(&text[..start]);
    new_text.push_str(insert);
    new_text.push_str(&text[end..]);
    SymbolEdit {
        new_text,
        old_start: start,
        old_end: end,
        new_end: start + insert.len(),
        code_start: start + code_offset,
        code_end: start + insert.len(),
    }
}

/// Remove the symbol's lines (when it owns them) and tidy the blank lines
/// around the hole: no doubled gap, no gap left before a closing line or at
/// the end of the file, and the file's trailing-newline state kept.
fn delete(file: &ParsedFile, target: &Symbol) -> SymbolEdit {
    let src = &file.source;
    let text = src.text.as_str();
    let span = target.full_span();
    let body_start = src.body_offset();
    let ls = line_start(text, span.start_byte).max(body_start);
    let eol = line_end(text, span.end_byte);
    let owns_lines = text[ls..span.start_byte].trim().is_empty()
        && text[span.end_byte..eol]
            .trim_matches(|c: char| c.is_whitespace() || c == ';' || c == ',')
            .is_empty();
    if !owns_lines {
        return splice(text, span.start_byte, span.end_byte, "", 0);
    }
    // The removed region covers whole lines, terminators included.
    let mut start = ls;
    let mut end = next_line(text, eol);
    // Blank lines just above and just below.
    let mut above = Vec::new();
    let mut p = start;
    while p > body_start {
        let prev = line_start(text, p - 1).max(body_start);
        if !is_blank(&text[prev..p]) {
            break;
        }
        above.push(prev);
        p = prev;
    }
    let mut below_end = end;
    let mut below = 0;
    while below_end < text.len() {
        let next = next_line(text, below_end);
        if !is_blank(&text[below_end..next]) {
            break;
        }
        below += 1;
        below_end = next;
    }
    let indent = leading_ws(&text[ls..]).len();
    let next_line_text = &text[below_end..next_line(text, below_end)];
    let closes_block = below_end >= text.len() || leading_ws(next_line_text).len() < indent;
    let opens_block = p <= body_start || {
        let ps = line_start(text, p - 1).max(body_start);
        leading_ws(&text[ps..p]).len() < indent
    };
    if closes_block {
        // Nothing follows in this block: the gap above goes too.
        if let Some(&top) = above.last() {
            start = top;
        }
        end = below_end;
    } else if opens_block || below < above.len() {
        // First in its block, or the gap below is the smaller one.
        end = below_end;
    } else if let Some(&top) = above.last() {
        start = top;
    }
    let mut new_text = String::with_capacity(text.len());
    new_text.push_str(&text[..start]);
    new_text.push_str(&text[end..]);
    // Keep the file's trailing-newline state.
    if !text.ends_with('\n') && new_text.ends_with('\n') {
        let cut = if new_text.ends_with("\r\n") { 2 } else { 1 };
        new_text.truncate(new_text.len() - cut);
    }
    from_texts(text, new_text)
}

/// Describe the change between two texts by their common prefix and suffix.
fn from_texts(old: &str, new_text: String) -> SymbolEdit {
    let (a, b) = (old.as_bytes(), new_text.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let (old_end, new_end) = (a.len() - suffix, b.len() - suffix);
    SymbolEdit {
        old_start: prefix,
        old_end,
        new_end,
        code_start: prefix,
        code_end: prefix,
        new_text,
    }
}

/// Offset of the first byte of the next line (or the end).
fn next_line(text: &str, pos: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |p| pos + p + 1)
}
