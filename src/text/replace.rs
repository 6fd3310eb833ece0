//! Safe text replacement (ADR-001 `safe_replace`, ADR-002 batch edits): the
//! engine behind `edit_file`.
//!
//! The one rule is that the wrong place is never edited. So:
//! - `old_text` must match exactly once (or exactly `expected_matches` times);
//!   several matches are an error listing each one with an anchor that would
//!   pick it, never a guess;
//! - anchors (`before`, `after`, `line_range`) narrow several matches, and
//!   are checked even when there is only one (they are the caller's stated
//!   expectation);
//! - fuzzy matching (whitespace, then bounded Levenshtein) runs only when the
//!   exact match finds nothing, only when asked for, and only applies to a
//!   unique best candidate; the plan says which mode matched;
//! - every edit of a batch is matched against the original text, the spans
//!   are sorted and checked for overlap, and one failing edit fails the whole
//!   plan (nothing is half-applied).
//!
//! Line endings are not the caller's problem: matching happens on a view of
//! the text where `\r\n` reads as `\n`, so LF `old_text` matches a CRLF file,
//! and new text is written with the file's dominant line ending. A leading
//! BOM is outside that view: it can neither be matched nor altered.
//!
//! When nothing matches, the error carries a diagnosis (closest candidate,
//! similarity, a short diff, and the likely reason: indentation, tabs vs
//! spaces, trailing whitespace, escaped `\n`, line endings, final newline),
//! because "no match" alone sends an agent into a retry loop.

use crate::error::{Error, ErrorCode, Result};
use crate::hint::{self, Term};
use crate::text::intervals::LineRange;
use crate::text::lines::LineIndex;
use crate::text::matcher::is_whole_word;
use crate::text::preview::{PREVIEW_WIDTH, preview};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::rc::Rc;

mod anchor;
mod diagnose;
mod levenshtein;
mod whitespace;

use anchor::*;
use diagnose::*;
use levenshtein::*;
use whitespace::*;

/// Anchors are searched within this many lines before / after a candidate.
pub const ANCHOR_WINDOW_LINES: usize = 50;
/// At most this many candidates are listed in an error.
const MAX_LISTED: usize = 20;
/// Anchor suggestions are computed only when there are at most this many matches.
const MAX_SUGGEST: usize = 200;
/// Levenshtein matching is refused for longer `old_text` (quadratic cost).
const LEV_MAX_CHARS: usize = 10_000;
/// Candidates measured exactly when looking for the closest text.
const CLOSEST_SHORTLIST: usize = 8;
/// Texts up to this size get an exact (quadratic) similarity measure.
const EXACT_SIMILARITY_MAX_BYTES: usize = 8_000;
/// Longest diff (in lines) included in a `NO_MATCH` error.
const MAX_DIFF_LINES: usize = 30;

const BOM: char = '\u{FEFF}';

/// How far an edit may deviate from the file's text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FuzzyMode {
    /// `old_text` must occur verbatim (line endings aside).
    #[default]
    Exact,
    /// If there is no exact match, match whole lines ignoring indentation and
    /// trailing whitespace; `new_text` is re-indented by the same amount.
    Whitespace,
    /// Like `whitespace`, then a bounded edit distance (`max_distance`) over
    /// whole lines. Only a unique closest candidate is accepted.
    Levenshtein,
}

/// Which rule matched an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    Exact,
    Whitespace,
    Levenshtein,
    /// `old_text` equals `new_text`: nothing to do (reported as a warning).
    Noop,
}

/// Context that must surround the intended occurrence of `old_text`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    // Text that must occur within 50 lines before the match (the part of the
    // match's own line before it counts), e.g. the enclosing `def name(`.
    // (Plain comments: the anchor's own description covers its fields.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    // Text that must occur within 50 lines after the match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    // The match must lie entirely within these lines (1-based, inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_range: Option<LineRange>,
}

/// One replacement of `old_text` by `new_text`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextEdit {
    // The current text to replace; must be unique in the file unless
    // `expected_matches` is set. Include a few surrounding lines to make it
    // unique. LF line endings match CRLF files. (A plain comment: the tool's
    // description says it must match once.)
    pub old_text: String,
    // The replacement text. Written with the file's line ending.
    pub new_text: String,
    /// Context that picks one of several matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Anchor>,
    /// Fallback when there is no exact match: "exact" (default),
    /// "whitespace" (every run of whitespace forgiven: indentation, trailing
    /// spaces, spacing inside lines; line breaks still count), or
    /// "levenshtein".
    #[serde(default)]
    pub fuzzy: FuzzyMode,
    // Largest edit distance accepted by "levenshtein" (default: a tenth of
    // `old_text`'s length, at least 1); described in `fuzzy`'s description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_distance: Option<usize>,
    /// Replace exactly this many occurrences (a deliberate replace-all);
    /// fails if the file has a different number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_matches: Option<usize>,
    // Match only where `old_text` is not part of a longer word: neither
    // neighbour of the match is a letter, digit or `_` (the keyword rule of
    // `crate::text::matcher::is_whole_word`). Applies to exact matches;
    // fuzzy matches are whole lines anyway.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole_word: bool,
}

impl TextEdit {
    pub fn new(old_text: impl Into<String>, new_text: impl Into<String>) -> Self {
        TextEdit {
            old_text: old_text.into(),
            new_text: new_text.into(),
            ..TextEdit::default()
        }
    }
}

/// Where one occurrence was replaced: byte span and lines in the original
/// text, and the lines the new text occupies in the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditMatch {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_line: usize,
    pub end_line: usize,
    pub new_start_line: usize,
    pub new_end_line: usize,
}

/// The outcome of planning one edit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedEdit {
    /// Index of the edit in the batch.
    pub index: usize,
    pub mode: MatchMode,
    pub matches: Vec<EditMatch>,
    /// Levenshtein distance of a fuzzy match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<usize>,
    /// Similarity (0..1) of a fuzzy match to `old_text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

/// One splice into the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub edit_index: usize,
    pub start: usize,
    pub end: usize,
    pub new_text: String,
}

/// A checked batch of edits, ready to apply to the text it was planned on.
#[derive(Debug, Clone, PartialEq)]
pub struct EditPlan {
    pub edits: Vec<PlannedEdit>,
    /// Non-fatal remarks: no-op edits, fuzzy matches, re-indentation.
    pub warnings: Vec<String>,
    replacements: Vec<Replacement>,
    source_len: usize,
    source_hash: blake3::Hash,
}

impl EditPlan {
    /// True when applying the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        self.replacements.is_empty()
    }

    /// Apply the plan in one pass. `text` must be the text the plan was made
    /// from; any other text is refused with `STALE_FILE` rather than spliced
    /// at offsets that no longer mean anything.
    pub fn apply(&self, text: &str) -> Result<String> {
        if text.len() != self.source_len || blake3::hash(text.as_bytes()) != self.source_hash {
            return Err(Error::new(
                ErrorCode::StaleFile,
                "the text changed since the edits were planned",
            )
            .with_suggestion("plan the edits again on the current text"));
        }
        let added: usize = self.replacements.iter().map(|r| r.new_text.len()).sum();
        let mut out = String::with_capacity(text.len() + added);
        let mut at = 0;
        for r in &self.replacements {
            out.push_str(&text[at..r.start]);
            out.push_str(&r.new_text);
            at = r.end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }
}

/// Match every edit against `text` (the whole file, BOM included) and build
/// the plan. The first failing edit fails the plan; its error names the
/// edit's index in `details.edit_index`.
pub fn plan_edits(text: &str, edits: &[TextEdit]) -> Result<EditPlan> {
    let view = View::new(text);
    let newline = crate::source::profile_of(text).newline();
    let mut planned = Vec::with_capacity(edits.len());
    let mut warnings = Vec::new();
    let mut replacements = Vec::new();
    for (index, edit) in edits.iter().enumerate() {
        let found = plan_one(&view, edit).map_err(|e| for_edit(e, index))?;
        match found {
            None => {
                warnings.push(format!(
                    "edit {index}: the old and new text are identical; nothing to change"
                ));
                planned.push(PlannedEdit {
                    index,
                    mode: MatchMode::Noop,
                    matches: Vec::new(),
                    distance: None,
                    similarity: None,
                });
            }
            Some(found) => {
                if let Some(note) = &found.note {
                    warnings.push(format!("edit {index}: {note}"));
                }
                for c in &found.cands {
                    replacements.push(Replacement {
                        edit_index: index,
                        start: view.to_orig(c.start),
                        end: view.to_orig(c.end),
                        new_text: with_newline(&c.new_text, newline),
                    });
                }
                planned.push(PlannedEdit {
                    index,
                    mode: found.mode,
                    matches: Vec::new(),
                    distance: found.distance,
                    similarity: found.similarity,
                });
            }
        }
    }
    replacements.sort_by_key(|r| (r.start, r.end, r.edit_index));
    check_conflicts(&view, &replacements)?;
    // Receipts: where each replacement sits, before and after.
    let mut delta: isize = 0;
    for r in &replacements {
        let start_line = view.orig_lines.line_of(r.start);
        let end_line = view
            .orig_lines
            .line_of(r.end.saturating_sub(1).max(r.start));
        let old_nl = count_nl(&text[r.start..r.end]) as isize;
        let new_nl = count_nl(&r.new_text);
        let new_start_line = (start_line as isize + delta).max(1) as usize;
        let inner_nl = count_nl(r.new_text.strip_suffix('\n').unwrap_or(&r.new_text));
        planned[r.edit_index].matches.push(EditMatch {
            start_byte: r.start,
            end_byte: r.end,
            start_line,
            end_line,
            new_start_line,
            new_end_line: new_start_line + inner_nl,
        });
        delta += new_nl as isize - old_nl;
    }
    Ok(EditPlan {
        edits: planned,
        warnings,
        replacements,
        source_len: text.len(),
        source_hash: blake3::hash(text.as_bytes()),
    })
}

fn count_nl(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

/// Attach the edit index to an error (message prefix and `details.edit_index`).
fn for_edit(mut e: Error, index: usize) -> Error {
    e.message = format!("edit {index}: {}", e.message);
    e.details = match e.details {
        Value::Object(mut map) => {
            map.insert("edit_index".into(), json!(index));
            Value::Object(map)
        }
        Value::Null => json!({"edit_index": index}),
        other => json!({"edit_index": index, "info": other}),
    };
    e
}

fn check_conflicts(view: &View, reps: &[Replacement]) -> Result<()> {
    for pair in reps.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if b.start < a.end {
            let la = view.orig_lines.line_of(a.start);
            let lb = view.orig_lines.line_of(b.start);
            let (msg, suggestion) = if a.edit_index == b.edit_index {
                (
                    format!(
                        "edit {}: its occurrences overlap each other (lines {la} and {lb})",
                        a.edit_index
                    ),
                    "make ⟦old_text⟧ longer so that its occurrences cannot overlap".to_string(),
                )
            } else {
                (
                    format!(
                        "edits {} and {} overlap (lines {la} and {lb}); every edit is matched against the original text",
                        a.edit_index, b.edit_index
                    ),
                    format!(
                        "merge edits {} and {} into one edit, or make their ⟦old_text⟧ cover disjoint text",
                        a.edit_index, b.edit_index
                    ),
                )
            };
            return Err(Error::new(ErrorCode::Conflict, msg)
                .with_suggestion(suggestion)
                .with_details(json!({
                    "edit_index": a.edit_index,
                    "other_edit_index": b.edit_index,
                    "edits": [a.edit_index, b.edit_index],
                    "spans": [
                        {"edit_index": a.edit_index, "start_byte": a.start, "end_byte": a.end, "line": la},
                        {"edit_index": b.edit_index, "start_byte": b.start, "end_byte": b.end, "line": lb},
                    ],
                })));
        }
    }
    Ok(())
}

/// The body of the text (after any BOM) with `\r\n` read as `\n`.
struct View {
    offset: usize,
    norm: String,
    /// Positions (in `norm`) of `\n` that were `\r\n` in the original.
    crs: Vec<usize>,
    lines: LineIndex,
    orig_lines: LineIndex,
}

impl View {
    fn new(text: &str) -> Self {
        let offset = if text.starts_with(BOM) {
            BOM.len_utf8()
        } else {
            0
        };
        let body = &text[offset..];
        let mut norm = String::with_capacity(body.len());
        let mut crs = Vec::new();
        let mut last = 0;
        for pos in memchr::memmem::find_iter(body.as_bytes(), b"\r\n") {
            norm.push_str(&body[last..pos]);
            crs.push(norm.len());
            last = pos + 1;
        }
        norm.push_str(&body[last..]);
        let lines = LineIndex::new(&norm);
        View {
            offset,
            norm,
            crs,
            lines,
            orig_lines: LineIndex::new(text),
        }
    }

    /// Map an offset in `norm` to an offset in the original text.
    fn to_orig(&self, n: usize) -> usize {
        self.offset + n + self.crs.partition_point(|&p| p < n)
    }

    /// Line `l` of `norm` without its `\n`.
    fn line(&self, l: usize) -> &str {
        let s = self.lines.span(l);
        let text = &self.norm[s];
        text.strip_suffix('\n').unwrap_or(text)
    }

    fn line_count(&self) -> usize {
        self.lines.line_count()
    }

    /// Lines `(first, last)` covered by the `norm` span `start..end`.
    fn lines_of(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.lines.line_of(start);
        let last = self.lines.line_of(end.saturating_sub(1).max(start));
        (first, last)
    }

    fn preview_at(&self, start: usize, end: usize) -> String {
        let l = self.lines.line_of(start);
        let span = self.lines.span(l);
        let line_end = span.end;
        let line = &self.norm[span.start..line_end];
        preview(
            line,
            start - span.start,
            end.min(line_end) - span.start,
            PREVIEW_WIDTH,
        )
    }
}

/// A matched span in `norm` and the text that replaces it (LF newlines).
#[derive(Debug, Clone)]
struct Cand {
    start: usize,
    end: usize,
    /// Shared: a common `old_text` can have a million exact candidates.
    new_text: Rc<str>,
    distance: usize,
}

struct Found {
    mode: MatchMode,
    cands: Vec<Cand>,
    note: Option<String>,
    distance: Option<usize>,
    similarity: Option<f64>,
}

fn normalize_input(s: &str) -> String {
    let s = s.strip_prefix(BOM).unwrap_or(s);
    s.replace("\r\n", "\n")
}

fn with_newline(s: &str, newline: &str) -> String {
    if newline == "\n" {
        s.to_string()
    } else {
        s.replace('\n', newline)
    }
}

/// Plan one edit; `None` for a no-op.
fn plan_one(view: &View, edit: &TextEdit) -> Result<Option<Found>> {
    let old = normalize_input(&edit.old_text);
    let new = normalize_input(&edit.new_text);
    if old.is_empty() {
        return Err(Error::invalid_argument("the old text is empty")
            .with_suggestion("to insert text, put a neighbouring line in ⟦old_text⟧ and repeat it with the addition in ⟦new_text⟧; to replace the whole file use ⟦write_file⟧"));
    }
    let anchor = NormAnchor::new(edit.anchor.as_ref())?;
    if edit.expected_matches == Some(0) {
        return Err(Error::invalid_argument("the expected number of matches is 0")
            .with_suggestion("omit ⟦expected_matches⟧ for a unique match, or set it to the number of occurrences to replace"));
    }
    if old == new {
        return Ok(None);
    }

    let shared: Rc<str> = Rc::from(new.as_str());
    let mut starts = find_all(&view.norm, &old);
    let occurrences = starts.len();
    if edit.whole_word {
        starts.retain(|&start| is_whole_word(&view.norm, start, start + old.len()));
        if starts.is_empty() && occurrences > 0 {
            return Err(inside_words(view, &old, occurrences));
        }
    }
    let exact: Vec<Cand> = starts
        .into_iter()
        .map(|start| Cand {
            start,
            end: start + old.len(),
            new_text: Rc::clone(&shared),
            distance: 0,
        })
        .collect();
    if !exact.is_empty() {
        // Matches inside longer words, when whole_word could skip them.
        let inside = exact
            .iter()
            .filter(|c| !edit.whole_word && !is_whole_word(&view.norm, c.start, c.end))
            .count();
        let cands = narrow(view, &anchor, exact, &old)?;
        let cands = pick(view, cands, edit.expected_matches, &old, MatchMode::Exact)
            .map_err(|e| whole_word_tip(e, inside))?;
        return Ok(Some(Found {
            mode: MatchMode::Exact,
            cands,
            note: None,
            distance: None,
            similarity: None,
        }));
    }

    if edit.fuzzy != FuzzyMode::Exact {
        let ws = whitespace_candidates(view, &old, &new);
        if !ws.is_empty() {
            let cands = narrow(view, &anchor, ws, &old)?;
            let cands = pick(
                view,
                cands,
                edit.expected_matches,
                &old,
                MatchMode::Whitespace,
            )?;
            let (a, b) = view.lines_of(cands[0].start, cands[0].end);
            return Ok(Some(Found {
                mode: MatchMode::Whitespace,
                note: Some(format!(
                    "matched ignoring indentation/trailing whitespace at lines {a}-{b}; the new text was re-indented to match"
                )),
                cands,
                distance: None,
                similarity: None,
            }));
        }
    }

    let mut lev_note = None;
    if edit.fuzzy == FuzzyMode::Levenshtein {
        let max_d = edit
            .max_distance
            .unwrap_or_else(|| default_max_distance(&old));
        match levenshtein_candidates(view, &old, &new, max_d) {
            Err(note) => lev_note = Some(note),
            Ok(lev) if lev.is_empty() => {
                lev_note = Some(format!(
                    "no text within edit distance {max_d} of the old text"
                ));
            }
            Ok(lev) => {
                let cands = narrow(view, &anchor, lev, &old)?;
                if let Some(n) = edit.expected_matches.filter(|&n| n != 1) {
                    return Err(Error::new(
                        ErrorCode::FuzzyUnsafe,
                        format!("{n} expected matches cannot be combined with a levenshtein match"),
                    )
                    .with_suggestion("fuzzy levenshtein edits one unique place; make ⟦old_text⟧ exact to replace several"));
                }
                let best = unique_best(view, cands, &old)?;
                let old_chars = old.chars().count().max(1);
                let similarity = 1.0 - best.distance as f64 / old_chars as f64;
                let (a, b) = view.lines_of(best.start, best.end);
                return Ok(Some(Found {
                    mode: MatchMode::Levenshtein,
                    note: Some(format!(
                        "fuzzy match at lines {a}-{b} (edit distance {}, similarity {:.2}); the new text replaces those whole lines",
                        best.distance, similarity
                    )),
                    distance: Some(best.distance),
                    similarity: Some(round2(similarity.max(0.0))),
                    cands: vec![best],
                }));
            }
        }
    }
    Err(diagnose(view, &old, edit.fuzzy, lev_note))
}

/// A `MULTIPLE_MATCHES` error that ⟦whole_word⟧ could narrow says so.
fn whole_word_tip(mut e: Error, inside: usize) -> Error {
    if inside == 0 || e.code() != ErrorCode::MultipleMatches {
        return e;
    }
    e.suggestion = format!(
        "{}; or set {} to skip the {inside} match(es) inside longer words",
        e.suggestion,
        hint::term(Term::WholeWord)
    );
    if let Value::Object(map) = &mut e.details {
        map.insert("inside_words".into(), json!(inside));
    }
    e
}

/// `NO_MATCH` for a whole-word edit whose text occurs only inside longer
/// words.
fn inside_words(view: &View, old: &str, occurrences: usize) -> Error {
    let first = find_all(&view.norm, old)[0];
    let line = view.lines.line_of(first);
    Error::new(
        ErrorCode::NoMatch,
        format!(
            "the old text ({}) occurs {occurrences} time(s), each inside a longer word",
            short(old)
        ),
    )
    .with_suggestion(format!(
        "drop {} to replace inside words, or include the whole word in {}",
        hint::term(Term::WholeWord),
        hint::term(Term::OldText)
    ))
    .with_details(json!({
        "reason": "inside_words",
        "occurrences": occurrences,
        "first": {"line": line, "preview": view.preview_at(first, first + old.len())},
    }))
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn default_max_distance(old: &str) -> usize {
    (old.chars().count() / 10).max(1)
}

/// Every (possibly overlapping) occurrence of `needle`.
fn find_all(hay: &str, needle: &str) -> Vec<usize> {
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let bytes = hay.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(i) = finder.find(&bytes[at..]) else {
            break;
        };
        out.push(at + i);
        at += i + 1;
    }
    out
}

#[cfg(test)]
mod tests;
