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
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::rc::Rc;

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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    Exact,
    Whitespace,
    Levenshtein,
    /// `old_text` equals `new_text`: nothing to do (reported as a warning).
    Noop,
}

/// Context that must surround the intended occurrence of `old_text`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(description = "Picks one match: text within 50 lines before/after, or line_range.")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Anchor>,
    /// Fallback when there is no exact match: "exact" (default),
    /// "whitespace", or "levenshtein".
    #[schemars(
        description = "Fallback: ignore whitespace, or levenshtein within max_distance (default len/10)."
    )]
    #[serde(default)]
    pub fuzzy: FuzzyMode,
    // Largest edit distance accepted by "levenshtein" (default: a tenth of
    // `old_text`'s length, at least 1); described in `fuzzy`'s description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_distance: Option<usize>,
    /// Replace exactly this many occurrences (a deliberate replace-all);
    /// fails if the file has a different number.
    #[schemars(description = "Replace exactly N occurrences.")]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EditMatch {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_line: usize,
    pub end_line: usize,
    pub new_start_line: usize,
    pub new_end_line: usize,
}

/// The outcome of planning one edit.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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
    /// The splices, sorted by position, non-overlapping.
    pub fn replacements(&self) -> &[Replacement] {
        &self.replacements
    }

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

/// Anchor texts normalised like `old_text`.
struct NormAnchor {
    before: Option<String>,
    after: Option<String>,
    line_range: Option<LineRange>,
}

impl NormAnchor {
    fn new(anchor: Option<&Anchor>) -> Result<Self> {
        let Some(a) = anchor else {
            return Ok(NormAnchor {
                before: None,
                after: None,
                line_range: None,
            });
        };
        let norm = |term: Term, t: &Option<String>| -> Result<Option<String>> {
            match t {
                Some(t) if t.is_empty() => Err(Error::invalid_argument(format!(
                    "the anchor's {} text is empty",
                    term.name().trim_start_matches("anchor.")
                ))
                .with_suggestion(format!(
                    "omit {}, or give text that occurs near the intended match",
                    hint::term(term)
                ))),
                Some(t) => Ok(Some(normalize_input(t))),
                None => Ok(None),
            }
        };
        if let Some(r) = a.line_range
            && (r.start == 0 || r.start > r.end)
        {
            return Err(Error::new(
                ErrorCode::InvalidRange,
                format!(
                    "the anchor's line range {}-{} is not a valid range",
                    r.start, r.end
                ),
            )
            .with_suggestion(
                "give 1-based lines with start <= end, e.g. ⟦anchor.line_range=10-20⟧",
            ));
        }
        Ok(NormAnchor {
            before: norm(Term::AnchorBefore, &a.before)?,
            after: norm(Term::AnchorAfter, &a.after)?,
            line_range: a.line_range,
        })
    }

    fn is_set(&self) -> bool {
        self.before.is_some() || self.after.is_some() || self.line_range.is_some()
    }

    /// Why candidate `i` of `cands` (sorted by start) fails this anchor
    /// (empty when it passes). `before` picks the first candidate after an
    /// occurrence of its text, `after` the last one before an occurrence, so
    /// an anchor names "the match right after `def b():`" even when earlier
    /// matches also have that text somewhere above them.
    fn failures(&self, view: &View, cands: &[(usize, usize)], i: usize) -> Vec<&'static str> {
        let mut out = Vec::new();
        let (start, end) = cands[i];
        let (first, last) = view.lines_of(start, end);
        if let Some(r) = self.line_range
            && (first < r.start || last > r.end)
        {
            out.push("line_range");
        }
        if let Some(b) = &self.before {
            let from = view
                .lines
                .span(first.saturating_sub(ANCHOR_WINDOW_LINES).max(1))
                .start;
            let window = &view.norm[from.min(start)..start];
            let ok = window.rfind(b.as_str()).is_some_and(|p| {
                let anchor_end = from.min(start) + p + b.len();
                i == 0 || cands[i - 1].0 < anchor_end
            });
            if !ok {
                out.push("before");
            }
        }
        if let Some(a) = &self.after {
            let to = view
                .lines
                .span((last + ANCHOR_WINDOW_LINES).min(view.line_count()))
                .end
                .max(end);
            let ok = view.norm[end..to].find(a.as_str()).is_some_and(|p| {
                let anchor_start = end + p;
                cands.get(i + 1).is_none_or(|next| next.0 >= anchor_start)
            });
            if !ok {
                out.push("after");
            }
        }
        out
    }
}

/// Keep the candidates that satisfy the anchor; `ANCHOR_FAILED` if none do.
fn narrow(view: &View, anchor: &NormAnchor, cands: Vec<Cand>, old: &str) -> Result<Vec<Cand>> {
    if !anchor.is_set() {
        return Ok(cands);
    }
    let total = cands.len();
    let spans = spans_of(&cands);
    let mut rejected = Vec::new();
    let mut kept = Vec::new();
    for (i, c) in cands.into_iter().enumerate() {
        let why = anchor.failures(view, &spans, i);
        if why.is_empty() {
            kept.push(c);
        } else {
            rejected.push((c, why));
        }
    }
    if !kept.is_empty() {
        return Ok(kept);
    }
    let listed: Vec<Value> = rejected
        .iter()
        .take(MAX_LISTED)
        .map(|(c, why)| {
            let (a, b) = view.lines_of(c.start, c.end);
            json!({"start_line": a, "end_line": b, "preview": view.preview_at(c.start, c.end), "failed": why})
        })
        .collect();
    let lines: Vec<String> = rejected
        .iter()
        .take(5)
        .map(|(c, _)| view.lines_of(c.start, c.end).0.to_string())
        .collect();
    let what = describe_anchor(anchor);
    let mut suggestion = format!(
        "⟦old_text⟧ occurs at line(s) {} but none has {what}; check the anchor text (it must match the file exactly, within {ANCHOR_WINDOW_LINES} lines) or drop it",
        lines.join(", ")
    );
    if total == 1 {
        suggestion.push_str("; without the anchor the single match would be used");
    }
    Err(Error::new(
        ErrorCode::AnchorFailed,
        format!(
            "{total} match(es) of the old text ({}), none satisfies the anchor",
            short(old)
        ),
    )
    .with_suggestion(suggestion)
    .with_details(json!({"total_matches": total, "candidates": listed, "anchor_window_lines": ANCHOR_WINDOW_LINES})))
}

fn spans_of(cands: &[Cand]) -> Vec<(usize, usize)> {
    cands.iter().map(|c| (c.start, c.end)).collect()
}

fn describe_anchor(a: &NormAnchor) -> String {
    let mut parts = Vec::new();
    if let Some(b) = &a.before {
        parts.push(format!("{} before it", short(b)));
    }
    if let Some(t) = &a.after {
        parts.push(format!("{} after it", short(t)));
    }
    if let Some(r) = a.line_range {
        parts.push(format!("all its lines within {}-{}", r.start, r.end));
    }
    parts.join(" and ")
}

/// A short quoted rendering of a text for messages.
fn short(s: &str) -> String {
    let first = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut out: String = first.chars().take(40).collect();
    if out.len() < first.len() || s.trim().lines().count() > 1 {
        out.push('…');
    }
    format!("{out:?}")
}

/// Enforce uniqueness or `expected_matches` on the (anchored) candidates.
fn pick(
    view: &View,
    cands: Vec<Cand>,
    expected: Option<usize>,
    old: &str,
    mode: MatchMode,
) -> Result<Vec<Cand>> {
    match expected {
        Some(n) if cands.len() == n => Ok(cands),
        None if cands.len() == 1 => Ok(cands),
        Some(n) => {
            let code = if mode == MatchMode::Exact {
                ErrorCode::MultipleMatches
            } else {
                ErrorCode::FuzzyUnsafe
            };
            Err(Error::new(
                code,
                format!(
                    "expected {n} match(es) of the old text ({}) but found {}",
                    short(old),
                    cands.len()
                ),
            )
            .with_suggestion(format!(
                "set ⟦expected_matches={}⟧ to replace all of them, or add ⟦anchor⟧ or more context to select the intended ones",
                cands.len()
            ))
            .with_details(json!({"expected_matches": n, "total_matches": cands.len(), "matches": list_matches(view, &cands, false)})))
        }
        None if mode == MatchMode::Exact => Err(multiple_matches(view, &cands, old)),
        None => Err(fuzzy_tie(view, &cands, old, mode)),
    }
}

fn fuzzy_tie(view: &View, cands: &[Cand], old: &str, mode: MatchMode) -> Error {
    let lines: Vec<String> = cands
        .iter()
        .take(5)
        .map(|c| {
            let (a, b) = view.lines_of(c.start, c.end);
            format!("{a}-{b}")
        })
        .collect();
    let how = if mode == MatchMode::Whitespace {
        "ignoring whitespace".to_string()
    } else {
        format!("at edit distance {}", cands[0].distance)
    };
    Error::new(
        ErrorCode::FuzzyUnsafe,
        format!(
            "no exact match for {}, and {} places match equally well {how} (lines {})",
            short(old),
            cands.len(),
            lines.join(", ")
        ),
    )
    .with_suggestion(format!(
        "copy ⟦old_text⟧ exactly from the intended place, or add an anchor such as ⟦anchor.line_range={}-{}⟧",
        view.lines_of(cands[0].start, cands[0].end).0,
        view.lines_of(cands[0].start, cands[0].end).1
    ))
    .with_details(json!({"total_matches": cands.len(), "matches": list_matches(view, cands, true)}))
}

/// The closest Levenshtein candidate, which must be strictly closer than
/// every other.
fn unique_best(view: &View, mut cands: Vec<Cand>, old: &str) -> Result<Cand> {
    cands.sort_by_key(|c| (c.distance, c.start));
    let best = cands[0].distance;
    let tied: Vec<Cand> = cands
        .iter()
        .take_while(|c| c.distance == best)
        .cloned()
        .collect();
    if tied.len() > 1 {
        return Err(fuzzy_tie(view, &tied, old, MatchMode::Levenshtein));
    }
    Ok(cands.swap_remove(0))
}

fn list_matches(view: &View, cands: &[Cand], with_anchor: bool) -> Vec<Value> {
    let suggest = with_anchor && cands.len() <= MAX_SUGGEST;
    cands
        .iter()
        .enumerate()
        .take(MAX_LISTED)
        .map(|(i, c)| {
            let (a, b) = view.lines_of(c.start, c.end);
            let mut m =
                json!({"start_line": a, "end_line": b, "preview": view.preview_at(c.start, c.end)});
            if suggest && let Some(anchor) = anchor_for(view, cands, i) {
                m["anchor"] = anchor;
            }
            m
        })
        .collect()
}

fn multiple_matches(view: &View, cands: &[Cand], old: &str) -> Error {
    let matches = list_matches(view, cands, true);
    let mut suggestion = String::from("add ⟦anchor⟧ to pick one");
    if let Some(example) = matches.iter().find_map(|m| {
        m.get("anchor").map(|a| {
            format!(
                ", e.g. ⟦anchor={a}⟧ for the match at line {}",
                m["start_line"]
            )
        })
    }) {
        suggestion.push_str(&example);
        suggestion.push_str(" (each listed match has one)");
    }
    suggestion.push_str(&format!(
        "; or include more surrounding lines in ⟦old_text⟧; or set ⟦expected_matches={}⟧ to replace all",
        cands.len()
    ));
    let lines: Vec<String> = cands
        .iter()
        .take(10)
        .map(|c| view.lines_of(c.start, c.end).0.to_string())
        .collect();
    Error::new(
        ErrorCode::MultipleMatches,
        format!(
            "the old text ({}) matches {} places (lines {}{})",
            short(old),
            cands.len(),
            lines.join(", "),
            if cands.len() > 10 { ", …" } else { "" }
        ),
    )
    .with_suggestion(suggestion)
    .with_details(
        json!({"total_matches": cands.len(), "matches": matches, "listed": matches.len()}),
    )
}

/// An anchor that selects candidate `i` alone: a distinctive nearby line
/// above it as `before`, else one below as `after`, else its `line_range`.
fn anchor_for(view: &View, cands: &[Cand], i: usize) -> Option<Value> {
    const TRIES: usize = 15;
    let c = &cands[i];
    let (first, last) = view.lines_of(c.start, c.end);
    let spans = spans_of(cands);
    let selects_only_i = |anchor: &NormAnchor| {
        (0..spans.len()).all(|j| anchor.failures(view, &spans, j).is_empty() == (j == i))
    };
    let distinctive = |l: usize| -> Option<String> {
        let t = view.line(l).trim();
        (t.chars().count() >= 3 && t.chars().any(char::is_alphanumeric)).then(|| t.to_string())
    };
    let above = (first.saturating_sub(ANCHOR_WINDOW_LINES).max(1)..first).rev();
    for l in above.filter_map(distinctive).take(TRIES) {
        let a = NormAnchor {
            before: Some(l.clone()),
            after: None,
            line_range: None,
        };
        if selects_only_i(&a) {
            return Some(json!({"before": l}));
        }
    }
    let below = (last + 1)..=(last + ANCHOR_WINDOW_LINES).min(view.line_count());
    for l in below.filter_map(distinctive).take(TRIES) {
        let a = NormAnchor {
            before: None,
            after: Some(l.clone()),
            line_range: None,
        };
        if selects_only_i(&a) {
            return Some(json!({"after": l}));
        }
    }
    let range = LineRange {
        start: first,
        end: last,
    };
    let a = NormAnchor {
        before: None,
        after: None,
        line_range: Some(range),
    };
    selects_only_i(&a).then(|| json!({"line_range": range}))
}

// ---------------------------------------------------------------------------
// Whitespace-insensitive matching.

/// `old` split into lines; `true` when it ended with a newline.
fn split_lines(old: &str) -> (Vec<&str>, bool) {
    let ends_nl = old.ends_with('\n');
    let body = if ends_nl { &old[..old.len() - 1] } else { old };
    (body.split('\n').collect(), ends_nl)
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

/// The `norm` span of `k` whole lines starting at `first` (terminator of
/// the last line included when `ends_nl`).
fn window_span(view: &View, first: usize, k: usize, ends_nl: bool) -> (usize, usize) {
    let start = view.lines.span(first).start;
    let last = view.lines.span(first + k - 1);
    let end = if ends_nl {
        last.end
    } else {
        let text = &view.norm[last.clone()];
        last.start + text.strip_suffix('\n').map_or(text.len(), str::len)
    };
    (start, end)
}

/// A fuzzy candidate over whole lines. When `old` ended with a newline but
/// the window is the file's unterminated last line, the new text's final
/// newline is dropped so the file's "no newline at end" is preserved.
fn line_cand(
    view: &View,
    old_lines: &[&str],
    first: usize,
    ends_nl: bool,
    new: &str,
    distance: usize,
) -> Cand {
    let k = old_lines.len();
    let (start, end) = window_span(view, first, k, ends_nl);
    let mut new_text = reindent_for(view, old_lines, first, new);
    if ends_nl && !view.norm[start..end].ends_with('\n') && new_text.ends_with('\n') {
        new_text.pop();
    }
    Cand {
        start,
        end,
        new_text: Rc::from(new_text),
        distance,
    }
}

/// Windows of whole lines equal to `old` line by line after trimming.
fn whitespace_candidates(view: &View, old: &str, new: &str) -> Vec<Cand> {
    let (old_lines, ends_nl) = split_lines(old);
    if old_lines.iter().all(|l| l.trim().is_empty()) {
        return Vec::new();
    }
    let trimmed: Vec<&str> = old_lines.iter().map(|l| l.trim()).collect();
    let k = trimmed.len();
    let n = view.line_count();
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    for first in 1..=(n + 1 - k) {
        if (0..k).all(|i| view.line(first + i).trim() == trimmed[i]) {
            out.push(line_cand(view, &old_lines, first, ends_nl, new, 0));
        }
    }
    out
}

/// `new` re-indented to fit the file: each indentation level that `old`
/// uses maps to the indentation of the file line it matched, so a block
/// written at the wrong depth, with another indent width, or with spaces
/// for tabs lands at the file's depth and in the file's style.
fn reindent_for(view: &View, old_lines: &[&str], first: usize, new: &str) -> String {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (i, o) in old_lines.iter().enumerate() {
        if o.trim().is_empty() {
            continue;
        }
        let from = leading_ws(o);
        if !pairs.iter().any(|(f, _)| *f == from) {
            pairs.push((from, leading_ws(view.line(first + i))));
        }
    }
    if pairs.iter().all(|(f, t)| f == t) {
        return new.to_string();
    }
    let scale = space_scale(&pairs);
    let mut out = String::with_capacity(new.len() + 16);
    for line in new.split_inclusive('\n') {
        let indent = leading_ws(line);
        if line.trim().is_empty() {
            out.push_str(line);
            continue;
        }
        // The deepest known level this line is at or below.
        let known = pairs
            .iter()
            .filter(|(f, _)| indent.starts_with(f))
            .max_by_key(|(f, _)| f.len());
        match known {
            Some((from, to)) => {
                out.push_str(to);
                let extra = &indent[from.len()..];
                match scale {
                    Some((a, b)) if extra.chars().all(|c| c == ' ') => {
                        out.push_str(&" ".repeat(extra.len() * b / a));
                    }
                    _ => out.push_str(&convert_indent(extra, from, to)),
                }
                out.push_str(&line[indent.len()..]);
            }
            None => out.push_str(&shift_indent(line, pairs[0].0, pairs[0].1)),
        }
    }
    out
}

/// Move every line of `text` from indentation `from` to `to`: lines starting
/// with `from` get it replaced by `to` (deeper indentation converted between
/// tabs and spaces when the two styles differ); shallower lines are shifted
/// by the same amount where that is well defined, else left alone.
fn shift_indent(text: &str, from: &str, to: &str) -> String {
    if from == to {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.push_str(line);
            continue;
        }
        let indent = leading_ws(line);
        let rest = &line[indent.len()..];
        if let Some(deeper) = indent.strip_prefix(from) {
            out.push_str(to);
            out.push_str(&convert_indent(deeper, from, to));
        } else if let Some(extra) = to.strip_suffix(from) {
            out.push_str(extra);
            out.push_str(indent);
        } else if let Some(excess) = from.strip_suffix(to) {
            let cut = excess.len().min(indent.len());
            out.push_str(&indent[cut..]);
        } else {
            out.push_str(indent);
        }
        out.push_str(rest);
    }
    out
}

/// The space widths of one indentation step in `old` and in the file, when
/// two matched levels show that they differ (2-space code written for a
/// 4-space file). One level alone cannot tell a scale from a shift.
fn space_scale(pairs: &[(&str, &str)]) -> Option<(usize, usize)> {
    let spaces = |s: &str| s.chars().all(|c| c == ' ');
    let mut levels: Vec<(usize, usize)> = pairs
        .iter()
        .filter(|(f, t)| spaces(f) && spaces(t))
        .map(|(f, t)| (f.len(), t.len()))
        .collect();
    levels.sort_unstable();
    levels.windows(2).find_map(|w| {
        let (a, b) = (w[1].0 - w[0].0, w[1].1.checked_sub(w[0].1)?);
        (a > 0 && b > 0 && a != b).then_some((a, b))
    })
}

/// Convert extra indentation written in `from`'s style into `to`'s style
/// (spaces ↔ tabs), using the width ratio between the two.
fn convert_indent(extra: &str, from: &str, to: &str) -> String {
    let all = |s: &str, c: char| !s.is_empty() && s.chars().all(|x| x == c);
    if all(from, ' ') && all(to, '\t') && from.len().is_multiple_of(to.len()) {
        let unit = " ".repeat(from.len() / to.len());
        let mut rest = extra;
        let mut out = String::new();
        while let Some(r) = rest.strip_prefix(unit.as_str()) {
            out.push('\t');
            rest = r;
        }
        out.push_str(rest);
        out
    } else if all(from, '\t') && all(to, ' ') && to.len().is_multiple_of(from.len()) {
        let unit = " ".repeat(to.len() / from.len());
        extra.replace('\t', &unit)
    } else {
        extra.to_string()
    }
}

// ---------------------------------------------------------------------------
// Levenshtein matching.

/// A coarse character histogram; the L1 difference between two of them
/// bounds the edit distance from below (each edit moves at most one count in
/// each direction), which filters most windows before the quadratic check.
type Hist = [u32; 64];

fn bucket(c: char) -> usize {
    (c as u32 % 64) as usize
}

fn histogram(s: &str) -> Hist {
    let mut h = [0u32; 64];
    for c in s.chars() {
        h[bucket(c)] += 1;
    }
    h
}

fn hist_lower_bound(a: &Hist, b: &Hist) -> usize {
    let (mut pos, mut neg) = (0usize, 0usize);
    for (x, y) in a.iter().zip(b) {
        if x > y {
            pos += (x - y) as usize;
        } else {
            neg += (y - x) as usize;
        }
    }
    pos.max(neg)
}

/// `k` lines from `first`, trimmed and joined with `\n`: the text fuzzy
/// matching compares against a trimmed `old_text`.
fn window_text(view: &View, first: usize, k: usize) -> String {
    let mut out = String::new();
    for i in 0..k {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(view.line(first + i).trim());
    }
    out
}

/// Call `f(first, chars, histogram)` for every window of `k` lines (as
/// [`window_text`] would render it) in one sliding pass: linear in the
/// text, however large `k` is.
fn for_each_window(view: &View, k: usize, mut f: impl FnMut(usize, usize, &Hist)) {
    let n = view.line_count();
    if k == 0 || k > n {
        return;
    }
    let mut hist = [0u32; 64];
    hist[bucket('\n')] += (k - 1) as u32;
    let mut len = k - 1;
    let add = |l: usize, hist: &mut Hist, len: &mut usize, sign: bool| {
        for c in view.line(l).trim().chars() {
            let b = &mut hist[bucket(c)];
            if sign {
                *b += 1;
                *len += 1;
            } else {
                *b -= 1;
                *len -= 1;
            }
        }
    };
    for l in 1..=k {
        add(l, &mut hist, &mut len, true);
    }
    f(1, len, &hist);
    for first in 2..=(n + 1 - k) {
        add(first - 1, &mut hist, &mut len, false);
        add(first + k - 1, &mut hist, &mut len, true);
        f(first, len, &hist);
    }
}

/// Windows of the same number of lines as `old` whose trimmed text is
/// within `max_d` edits of `old`'s trimmed text.
fn levenshtein_candidates(
    view: &View,
    old: &str,
    new: &str,
    max_d: usize,
) -> std::result::Result<Vec<Cand>, String> {
    let (old_lines, ends_nl) = split_lines(old);
    let target = old_lines
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join("\n");
    let target_len = target.chars().count();
    if target_len > LEV_MAX_CHARS {
        return Err(format!(
            "the old text is too long for levenshtein matching ({target_len} > {LEV_MAX_CHARS} characters)"
        ));
    }
    if target.trim().is_empty() {
        return Ok(Vec::new());
    }
    let target_hist = histogram(&target);
    let k = old_lines.len();
    let mut out = Vec::new();
    for_each_window(view, k, |first, len, hist| {
        if len.abs_diff(target_len) > max_d || hist_lower_bound(&target_hist, hist) > max_d {
            return;
        }
        let d = strsim::levenshtein(&target, &window_text(view, first, k));
        if d <= max_d {
            out.push(line_cand(view, &old_lines, first, ends_nl, new, d));
        }
    });
    Ok(out)
}

// ---------------------------------------------------------------------------
// Diagnosis of a miss.

/// Why old_text did not match: a machine-readable reason and a one-line
/// suggestion.
struct Reason {
    code: &'static str,
    suggestion: String,
}

fn diagnose(view: &View, old: &str, fuzzy: FuzzyMode, lev_note: Option<String>) -> Error {
    let (old_lines, _) = split_lines(old);
    let k = old_lines.len();
    let mut reasons: Vec<Reason> = Vec::new();
    let mut closest: Option<(usize, f64)> = None; // (first line, similarity)

    // 1. Escaped newlines / tabs: `\n` typed as two characters.
    if old.contains("\\n") || old.contains("\\t") {
        let unescaped = old
            .replace("\\r\\n", "\n")
            .replace("\\n", "\n")
            .replace("\\t", "\t");
        if unescaped != old {
            let found = find_all(&view.norm, &unescaped).first().copied();
            let hint = match found {
                Some(at) => format!(
                    " (with real line breaks it matches line {})",
                    view.lines.line_of(at)
                ),
                None => String::new(),
            };
            if found.is_some() || !old.contains('\n') {
                reasons.push(Reason {
                    code: "escaped_newline",
                    suggestion: format!(
                        "⟦old_text⟧ contains a literal backslash-n (\\n) where the file has line breaks{hint}; send real newlines in ⟦old_text⟧ and ⟦new_text⟧, not escaped ones"
                    ),
                });
            }
        }
    }
    // 2. Lone carriage returns (old Mac line endings) on either side.
    if old.contains('\r') || view.norm.contains('\r') {
        reasons.push(Reason {
            code: "line_endings",
            suggestion: "the file or ⟦old_text⟧ contains bare carriage returns (\\r); copy ⟦old_text⟧ exactly from ⟦read_file⟧ output".into(),
        });
    }
    // 3. A final newline the file does not have.
    if let Some(stem) = old.strip_suffix('\n')
        && !stem.is_empty()
        && !view.norm.ends_with('\n')
        && view.norm.ends_with(stem)
    {
        reasons.push(Reason {
            code: "final_newline",
            suggestion: "the file does not end with a newline; drop the trailing newline from ⟦old_text⟧ (and ⟦new_text⟧)".into(),
        });
    }
    // 4. Whitespace-only differences.
    let ws = whitespace_candidates(view, old, "");
    if let Some(c) = ws.first() {
        let first = view.lines.line_of(c.start);
        let (code, what) = whitespace_reason(view, &old_lines, first);
        let count = if ws.len() > 1 {
            format!(" ({} places match this way; add ⟦anchor⟧ too)", ws.len())
        } else {
            String::new()
        };
        let fix = if fuzzy == FuzzyMode::Exact {
            "retry with ⟦fuzzy=whitespace⟧ (⟦new_text⟧ is re-indented to fit) or copy the lines exactly from ⟦read_file⟧"
        } else {
            "copy the lines exactly from ⟦read_file⟧"
        };
        reasons.push(Reason {
            code,
            suggestion: format!(
                "the old text matches lines {}-{} except for {what}{count}; {fix}",
                first,
                first + k - 1
            ),
        });
        closest = Some((first, 0.0));
    }

    // 5. The closest text by similarity.
    if closest.is_none() {
        closest = closest_window(view, &old_lines);
    }
    let mut details = json!({"old_text_lines": k});
    if let Some((first, _)) = closest {
        let last = (first + k - 1).min(view.line_count());
        let cand_text: String = (first..=last)
            .map(|l| view.line(l))
            .collect::<Vec<_>>()
            .join("\n");
        let old_cmp = old.strip_suffix('\n').unwrap_or(old);
        let similarity = round2(similarity(old_cmp, &cand_text));
        details["closest"] = json!({
            "start_line": first,
            "end_line": last,
            "similarity": similarity,
            "text": truncate_chars(&cand_text, 2000),
            "diff": short_diff(old_cmp, &cand_text, first),
        });
        if reasons.is_empty() {
            reasons.push(Reason {
                code: "content_differs",
                suggestion: format!(
                    "the closest text is lines {first}-{last} (similarity {similarity:.2}); read those lines again and copy ⟦old_text⟧ exactly, or use ⟦fuzzy=levenshtein⟧ if the difference is a typo"
                ),
            });
        }
    } else if reasons.is_empty() {
        reasons.push(Reason {
            code: "not_present",
            suggestion: "nothing in the file resembles ⟦old_text⟧; check the file path, or ⟦search_files⟧ for a distinctive word of it".into(),
        });
    }
    if let Some(note) = &lev_note {
        details["levenshtein"] = json!(note);
    }
    details["reason"] = json!(reasons[0].code);
    details["reasons"] = json!(reasons.iter().map(|r| r.code).collect::<Vec<_>>());
    let suggestion = reasons
        .iter()
        .map(|r| r.suggestion.as_str())
        .collect::<Vec<_>>()
        .join("; also ");
    let mut message = format!("the old text ({}) was not found", short(old));
    if fuzzy != FuzzyMode::Exact {
        let mode = if fuzzy == FuzzyMode::Whitespace {
            "whitespace"
        } else {
            "whitespace and levenshtein"
        };
        message.push_str(&format!(" (also tried fuzzy {mode})"));
    }
    if let Some(note) = lev_note {
        message.push_str(&format!(": {note}"));
    }
    Error::new(ErrorCode::NoMatch, message)
        .with_suggestion(suggestion)
        .with_details(details)
}

/// Describe how `old_lines` and the file lines from `first` differ in
/// whitespace: a reason code and a human phrase.
fn whitespace_reason(view: &View, old_lines: &[&str], first: usize) -> (&'static str, String) {
    for (i, o) in old_lines.iter().enumerate() {
        let f = view.line(first + i);
        let (oi, fi) = (leading_ws(o), leading_ws(f));
        if !o.trim().is_empty() && oi != fi {
            let style = |s: &str| {
                let tabs = s.chars().filter(|&c| c == '\t').count();
                let spaces = s.chars().filter(|&c| c == ' ').count();
                match (tabs, spaces) {
                    (0, 0) => "no indentation".to_string(),
                    (0, n) => format!("{n} space(s)"),
                    (n, 0) => format!("{n} tab(s)"),
                    (t, s) => format!("{t} tab(s) + {s} space(s)"),
                }
            };
            let mixed = (oi.contains('\t') && fi.contains(' ') && !fi.contains('\t'))
                || (oi.contains(' ') && !oi.contains('\t') && fi.contains('\t'));
            let code = if mixed {
                "tabs_vs_spaces"
            } else {
                "indentation"
            };
            return (
                code,
                format!(
                    "indentation (line {}: the file has {}, the old text has {})",
                    first + i,
                    style(fi),
                    style(oi)
                ),
            );
        }
        if o.trim_end() != *o || f.trim_end() != f {
            let (ot, ft) = (o.len() - o.trim_end().len(), f.len() - f.trim_end().len());
            if ot != ft {
                return (
                    "trailing_whitespace",
                    format!(
                        "trailing whitespace (line {}: the file has {ft} trailing character(s), the old text has {ot})",
                        first + i
                    ),
                );
            }
        }
    }
    ("indentation", "whitespace".to_string())
}

/// The first line of the window most similar to `old_lines`. The shortlist
/// measured exactly holds the windows where most of `old`'s distinctive
/// lines occur verbatim (one changed line in a block), then the best by a
/// cheap histogram score (a typo everywhere); normalised Levenshtein decides.
fn closest_window(view: &View, old_lines: &[&str]) -> Option<(usize, f64)> {
    let n = view.line_count();
    let k = old_lines.len().min(n);
    if k == 0 {
        return None;
    }
    let target = old_lines[..k]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join("\n");

    let mut wanted: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, l) in old_lines[..k].iter().enumerate() {
        let t = l.trim();
        if t.chars().filter(|c| c.is_alphanumeric()).count() >= 3 {
            wanted.entry(t).or_default().push(i);
        }
    }
    let mut votes: HashMap<usize, usize> = HashMap::new();
    if !wanted.is_empty() {
        for l in 1..=n {
            if let Some(is) = wanted.get(view.line(l).trim()) {
                for &i in is {
                    if l > i && l - i + k - 1 <= n {
                        *votes.entry(l - i).or_default() += 1;
                    }
                }
            }
        }
    }
    let mut voted: Vec<(usize, usize)> = votes.into_iter().collect();
    voted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));

    let target_hist = histogram(&target);
    let target_len = target.chars().count().max(1);
    let mut scored: Vec<(f64, usize)> = Vec::new();
    for_each_window(view, k, |first, len, hist| {
        let common: u32 = target_hist.iter().zip(hist).map(|(a, b)| *a.min(b)).sum();
        scored.push((common as f64 / target_len.max(len) as f64, first));
    });
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

    let mut shortlist: Vec<usize> = voted
        .iter()
        .take(CLOSEST_SHORTLIST / 2)
        .map(|v| v.0)
        .collect();
    for (_, first) in scored {
        if shortlist.len() >= CLOSEST_SHORTLIST {
            break;
        }
        if !shortlist.contains(&first) {
            shortlist.push(first);
        }
    }
    shortlist
        .into_iter()
        .map(|first| (first, similarity(&target, &window_text(view, first, k))))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .filter(|&(_, s)| s > 0.3)
}

/// Similarity in 0..1: normalised Levenshtein for texts of reasonable size,
/// a line-diff ratio beyond that.
fn similarity(a: &str, b: &str) -> f64 {
    if a.len() + b.len() <= EXACT_SIMILARITY_MAX_BYTES {
        strsim::normalized_levenshtein(a, b)
    } else {
        f64::from(similar::TextDiff::from_lines(a, b).ratio())
    }
}

/// A short unified diff from `old` to the file's text, with whitespace made
/// visible (`⇥` for a tab, `·` for trailing spaces) because that is so
/// often the difference.
fn short_diff(old: &str, file: &str, first_line: usize) -> String {
    let (a, b) = (visible_ws(old), visible_ws(file));
    let diff = similar::TextDiff::from_lines(&a, &b);
    let text = diff
        .unified_diff()
        .context_radius(1)
        .header("old text", &format!("file (from line {first_line})"))
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > MAX_DIFF_LINES {
        let mut s = lines[..MAX_DIFF_LINES].join("\n");
        s.push_str(&format!(
            "\n… {} more diff lines",
            lines.len() - MAX_DIFF_LINES
        ));
        s
    } else {
        text
    }
}

fn visible_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for line in s.split('\n') {
        let body = line.trim_end();
        let trailing = &line[body.len()..];
        out.push_str(&body.replace('\t', "⇥"));
        for c in trailing.chars() {
            out.push(if c == '\t' { '⇥' } else { '·' });
        }
        out.push('\n');
    }
    out
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests;
