//! Anchors and choosing among candidates: narrowing several matches by
//! `before` / `after` / `line_range`, and the errors that list each match with
//! an anchor that would pick it.

use super::*;

/// Anchor texts normalised like `old_text`.
pub(super) struct NormAnchor {
    before: Option<String>,
    after: Option<String>,
    line_range: Option<LineRange>,
}

impl NormAnchor {
    pub(super) fn new(anchor: Option<&Anchor>) -> Result<Self> {
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

    pub(super) fn is_set(&self) -> bool {
        self.before.is_some() || self.after.is_some() || self.line_range.is_some()
    }

    /// Why candidate `i` of `cands` (sorted by start) fails this anchor
    /// (empty when it passes). `before` picks the first candidate after an
    /// occurrence of its text, `after` the last one before an occurrence, so
    /// an anchor names "the match right after `def b():`" even when earlier
    /// matches also have that text somewhere above them.
    pub(super) fn failures(
        &self,
        view: &View,
        cands: &[(usize, usize)],
        i: usize,
    ) -> Vec<&'static str> {
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
pub(super) fn narrow(
    view: &View,
    anchor: &NormAnchor,
    cands: Vec<Cand>,
    old: &str,
) -> Result<Vec<Cand>> {
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

pub(super) fn spans_of(cands: &[Cand]) -> Vec<(usize, usize)> {
    cands.iter().map(|c| (c.start, c.end)).collect()
}

pub(super) fn describe_anchor(a: &NormAnchor) -> String {
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
pub(super) fn short(s: &str) -> String {
    // The first line with text, its indentation kept: a near miss is often
    // a difference of leading whitespace, which the quote must show.
    let first = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_end();
    let mut out: String = first.chars().take(40).collect();
    if out.len() < first.len() || s.trim().lines().count() > 1 {
        out.push('…');
    }
    format!("{out:?}")
}

/// Enforce uniqueness or `expected_matches` on the (anchored) candidates.
pub(super) fn pick(
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

pub(super) fn fuzzy_tie(view: &View, cands: &[Cand], old: &str, mode: MatchMode) -> Error {
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
pub(super) fn unique_best(view: &View, mut cands: Vec<Cand>, old: &str) -> Result<Cand> {
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

pub(super) fn list_matches(view: &View, cands: &[Cand], with_anchor: bool) -> Vec<Value> {
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

pub(super) fn multiple_matches(view: &View, cands: &[Cand], old: &str) -> Error {
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
pub(super) fn anchor_for(view: &View, cands: &[Cand], i: usize) -> Option<Value> {
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
