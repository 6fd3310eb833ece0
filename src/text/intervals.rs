//! Line intervals for `read_fragment`: turn requested ranges, keyword lines
//! and symbol ranges into a few merged regions, then fit them in a budget.
//!
//! Agents ask for several overlapping pieces of a file at once ("lines
//! 10-15, 12-18, and wherever `parse` appears"). Returning each piece
//! separately repeats lines and wastes tokens; returning the whole file
//! defeats the purpose. So requests are expanded by a few lines of context,
//! sorted, and merged when they overlap or touch, and every region remembers
//! which requests formed it. A line budget then keeps the response bounded
//! and says precisely what was cut, so the caller can ask for the rest.

use crate::error::{Error, ErrorCode, Result};
use crate::text::lines::LineIndex;
use crate::text::matcher::KeywordMatcher;
use serde::{Deserialize, Serialize};

// A 1-based inclusive line range, as passed in `ranges` and `line_range`
// (a plain comment: the fields that take one describe it, once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineRange {
    // Plain comments, not doc comments: the fields that take a range say
    // "1-based, inclusive" once in their own description (tools/list budget).
    // First line (1-based).
    pub start: usize,
    // Last line (1-based, inclusive).
    pub end: usize,
}

/// One requested interval with the label that explains it, e.g. `"10-15"`,
/// `"keyword:parse"` or `"symbol:Parser.run"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRequest {
    pub label: String,
    pub start: usize,
    pub end: usize,
}

impl LineRequest {
    pub fn new(label: impl Into<String>, start: usize, end: usize) -> Self {
        LineRequest {
            label: label.into(),
            start,
            end,
        }
    }
}

/// A merged region of lines and the requests that formed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Region {
    pub start: usize,
    pub end: usize,
    /// Labels of the requests inside this region, in line order, each once.
    pub sources: Vec<String>,
}

impl Region {
    pub fn line_count(&self) -> usize {
        self.end + 1 - self.start
    }
}

/// Expand each request by `context_lines` (clamped to `1..=total_lines`),
/// sort, and merge regions that overlap or are adjacent. Requests that start
/// after the last line are left out (see [`validate_ranges`], which reports
/// them); an empty text gives no regions.
pub fn merge(requests: &[LineRequest], context_lines: usize, total_lines: usize) -> Vec<Region> {
    let mut expanded: Vec<(usize, usize, &str)> = requests
        .iter()
        .filter(|r| r.start <= total_lines && r.start <= r.end)
        .map(|r| {
            let start = r.start.max(1).saturating_sub(context_lines).max(1);
            let end = r.end.saturating_add(context_lines).min(total_lines);
            (start, end, r.label.as_str())
        })
        .collect();
    expanded.sort_by_key(|&(s, e, _)| (s, e));
    let mut out: Vec<Region> = Vec::new();
    for (start, end, label) in expanded {
        match out.last_mut() {
            Some(last) if start <= last.end.saturating_add(1) => {
                last.end = last.end.max(end);
                if !last.sources.iter().any(|s| s == label) {
                    last.sources.push(label.to_string());
                }
            }
            _ => out.push(Region {
                start,
                end,
                sources: vec![label.to_string()],
            }),
        }
    }
    out
}

/// What a budget cut off: lines `start..=end` (ask for them as a range to
/// read them), with the labels of the region they belonged to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DroppedRegion {
    pub start: usize,
    pub end: usize,
    pub sources: Vec<String>,
    /// True when the region was cut in the middle: its first part was kept.
    pub partial: bool,
}

/// The regions that fit in a line budget and what did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetOutcome {
    pub kept: Vec<Region>,
    pub truncated: bool,
    pub dropped: Vec<DroppedRegion>,
}

/// Keep regions in order until `max_lines` lines are used; the region that
/// crosses the budget is cut (its remainder is reported as a partial drop),
/// later regions are dropped whole.
pub fn apply_budget(regions: Vec<Region>, max_lines: usize) -> BudgetOutcome {
    let mut left = max_lines;
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for r in regions {
        let n = r.line_count();
        if n <= left {
            left -= n;
            kept.push(r);
        } else if left > 0 {
            let cut = r.start + left - 1;
            dropped.push(DroppedRegion {
                start: cut + 1,
                end: r.end,
                sources: r.sources.clone(),
                partial: true,
            });
            kept.push(Region { end: cut, ..r });
            left = 0;
        } else {
            dropped.push(DroppedRegion {
                start: r.start,
                end: r.end,
                sources: r.sources,
                partial: false,
            });
        }
    }
    BudgetOutcome {
        truncated: !dropped.is_empty(),
        kept,
        dropped,
    }
}

/// Lines containing any of `keywords`, as `(line, keyword)` pairs sorted by
/// line; a line with two keywords appears twice, a keyword repeated on one
/// line once.
pub fn keyword_lines(
    text: &str,
    keywords: &[String],
    case_sensitive: bool,
    whole_word: bool,
) -> Result<Vec<(usize, String)>> {
    let matcher = KeywordMatcher::keywords(keywords, case_sensitive, whole_word)?;
    let index = LineIndex::new(text);
    let mut out = Vec::new();
    for line in 1..=index.line_count() {
        let span = index.span(line);
        let Some(content) = text.get(span) else {
            continue;
        };
        let mut seen: Vec<usize> = Vec::new();
        for hit in matcher.find_in_line(content) {
            if !seen.contains(&hit.keyword) {
                seen.push(hit.keyword);
            }
        }
        seen.sort_unstable();
        for k in seen {
            out.push((line, matcher.labels()[k].clone()));
        }
    }
    Ok(out)
}

/// A note about a requested range that was adjusted or left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RangeNote {
    /// The range as requested, e.g. `"90-120"`.
    pub requested: String,
    /// What happened: `"clamped to 90-100"` or `"starts after the last line (100)"`.
    pub note: String,
}

/// Ranges checked against a file's length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeCheck {
    /// Valid requests (labels `"start-end"` as requested, ends clamped).
    pub requests: Vec<LineRequest>,
    /// Ranges that were clamped or dropped because they run past the end.
    pub notes: Vec<RangeNote>,
}

/// Check requested ranges: a start of 0 or a start after the end is
/// `INVALID_RANGE`; ranges running past the last line are clamped, ranges
/// starting after it are dropped, and both are reported in `notes`. If no
/// range is left at all, that is `INVALID_RANGE` too.
pub fn validate_ranges(ranges: &[LineRange], total_lines: usize) -> Result<RangeCheck> {
    let mut requests = Vec::new();
    let mut notes = Vec::new();
    for (i, r) in ranges.iter().enumerate() {
        let label = format!("{}-{}", r.start, r.end);
        if r.start == 0 {
            return Err(range_error(
                format!("range {i} ({label}) starts at line 0; lines are numbered from 1"),
                format!("use ⟦ranges=1-{}⟧", r.end.max(1)),
                i,
                r,
                total_lines,
            ));
        }
        if r.start > r.end {
            return Err(range_error(
                format!("range {i} ({label}) ends before it starts"),
                format!("swap them: ⟦ranges={}-{}⟧", r.end, r.start),
                i,
                r,
                total_lines,
            ));
        }
        if r.start > total_lines {
            notes.push(RangeNote {
                requested: label,
                note: format!("starts after the last line ({total_lines}); skipped"),
            });
            continue;
        }
        let end = r.end.min(total_lines);
        if end < r.end {
            notes.push(RangeNote {
                requested: label.clone(),
                note: format!(
                    "clamped to {}-{end} (the file has {total_lines} lines)",
                    r.start
                ),
            });
        }
        requests.push(LineRequest::new(label, r.start, end));
    }
    if requests.is_empty() && !ranges.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidRange,
            format!("every requested range starts after the last line ({total_lines})"),
        )
        .with_suggestion(if total_lines == 0 {
            "the file is empty; there are no lines to read".to_string()
        } else {
            format!("request lines within 1-{total_lines}")
        })
        .with_details(serde_json::json!({"total_lines": total_lines, "ranges": ranges})));
    }
    Ok(RangeCheck { requests, notes })
}

fn range_error(
    message: String,
    suggestion: String,
    i: usize,
    r: &LineRange,
    total: usize,
) -> Error {
    Error::new(ErrorCode::InvalidRange, message)
        .with_suggestion(suggestion)
        .with_details(serde_json::json!({
            "range_index": i, "start": r.start, "end": r.end, "total_lines": total,
        }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(s: usize, e: usize) -> LineRequest {
        LineRequest::new(format!("{s}-{e}"), s, e)
    }

    fn spans(rs: &[Region]) -> Vec<(usize, usize)> {
        rs.iter().map(|r| (r.start, r.end)).collect()
    }

    #[test]
    fn adr_001_example() {
        let reqs = [req(10, 15), req(12, 18), req(50, 55), req(52, 60)];
        let out = merge(&reqs, 3, 1000);
        assert_eq!(spans(&out), vec![(7, 21), (47, 63)]);
        assert_eq!(out[0].sources, vec!["10-15", "12-18"]);
        assert_eq!(out[1].sources, vec!["50-55", "52-60"]);
    }

    #[test]
    fn adjacent_regions_merge_and_clamp() {
        let out = merge(&[req(1, 2), req(3, 4), req(9, 12)], 0, 10);
        assert_eq!(spans(&out), vec![(1, 4), (9, 10)]);
        let out = merge(&[req(1, 1), req(8, 8)], 3, 10);
        assert_eq!(spans(&out), vec![(1, 10)]);
        // Unsorted input, duplicates, and a request past the end.
        let out = merge(&[req(5, 5), req(5, 5), req(2, 2), req(40, 41)], 0, 10);
        assert_eq!(spans(&out), vec![(2, 2), (5, 5)]);
        assert_eq!(out[1].sources, vec!["5-5"]);
        assert!(merge(&[req(1, 3)], 3, 0).is_empty());
    }

    #[test]
    fn labels_of_all_kinds() {
        let reqs = [
            LineRequest::new("keyword:parse", 20, 20),
            LineRequest::new("symbol:Parser.run", 15, 30),
            LineRequest::new("keyword:parse", 25, 25),
        ];
        let out = merge(&reqs, 1, 100);
        assert_eq!(spans(&out), vec![(14, 31)]);
        assert_eq!(out[0].sources, vec!["symbol:Parser.run", "keyword:parse"]);
    }

    #[test]
    fn budget_cuts_and_reports() {
        let regions = merge(&[req(1, 10), req(20, 29), req(40, 45)], 0, 100);
        let b = apply_budget(regions.clone(), 15);
        assert!(b.truncated);
        assert_eq!(spans(&b.kept), vec![(1, 10), (20, 24)]);
        assert_eq!(b.dropped.len(), 2);
        assert_eq!(
            (b.dropped[0].start, b.dropped[0].end, b.dropped[0].partial),
            (25, 29, true)
        );
        assert_eq!(
            (b.dropped[1].start, b.dropped[1].end, b.dropped[1].partial),
            (40, 45, false)
        );
        let b = apply_budget(regions.clone(), 26);
        assert!(!b.truncated && b.dropped.is_empty());
        let b = apply_budget(regions, 10);
        assert_eq!(spans(&b.kept), vec![(1, 10)]);
        assert!(!b.dropped[0].partial);
    }

    #[test]
    fn keyword_lines_finds_each_keyword() {
        let text = "fn parse() {}\nlet Parse = 1;\nparser();\nparse parse Parse\n";
        let ks = vec!["parse".to_string(), "Parse".to_string()];
        let got = keyword_lines(text, &ks, true, true).unwrap();
        let want: Vec<(usize, String)> = vec![
            (1, "parse".into()),
            (2, "Parse".into()),
            (4, "parse".into()),
            (4, "Parse".into()),
        ];
        assert_eq!(got, want);
        let got = keyword_lines(text, &["PARSE".to_string()], false, false).unwrap();
        assert_eq!(
            got.iter().map(|g| g.0).collect::<Vec<_>>(),
            vec![1, 2, 3, 4]
        );
    }

    #[test]
    fn range_validation() {
        let r = |s, e| LineRange { start: s, end: e };
        let e = validate_ranges(&[r(5, 2)], 10).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRange);
        assert!(e.suggestion.contains("⟦ranges=2-5⟧"), "{}", e.suggestion);
        assert_eq!(
            validate_ranges(&[r(0, 2)], 10).unwrap_err().code(),
            ErrorCode::InvalidRange
        );
        let c = validate_ranges(&[r(8, 20), r(30, 40), r(1, 2)], 10).unwrap();
        assert_eq!(
            c.requests,
            vec![
                LineRequest::new("8-20", 8, 10),
                LineRequest::new("1-2", 1, 2)
            ]
        );
        assert_eq!(c.notes.len(), 2);
        assert!(c.notes[0].note.contains("clamped to 8-10"));
        assert!(c.notes[1].note.contains("skipped"));
        assert_eq!(
            validate_ranges(&[r(30, 40)], 10).unwrap_err().code(),
            ErrorCode::InvalidRange
        );
        assert!(validate_ranges(&[], 10).unwrap().requests.is_empty());
    }
}
