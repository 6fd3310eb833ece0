//! Diagnosis of a miss: the closest candidate, its similarity, a short diff
//! and the likely reason, so that "no match" is something an agent can act on.

use super::*;
use crate::text::indent::leading_ws;

/// Why old_text did not match: a machine-readable reason and a one-line
/// suggestion.
pub(super) struct Reason {
    code: &'static str,
    suggestion: String,
}

pub(super) fn diagnose(
    view: &View,
    old: &str,
    fuzzy: FuzzyMode,
    lev_note: Option<String>,
) -> Error {
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

    // 5. The closest text by similarity: inside a line for a one-line old
    // text (a typo in a fragment of a long line), else by whole lines.
    let mut inside = None;
    if closest.is_none() {
        inside = (k == 1)
            .then(|| closest_inside_line(view, old_lines[0]))
            .flatten();
        closest = match inside {
            Some(ref c) => Some((c.line, c.similarity)),
            None => closest_window(view, &old_lines),
        };
    }
    let mut details = json!({"old_text_lines": k});
    if let Some(c) = &inside {
        details["closest_in_line"] = json!({
            "line": c.line,
            "column": c.column,
            "text": c.text,
            "similarity": round2(c.similarity),
        });
        if reasons.is_empty() {
            reasons.push(Reason {
                code: "content_differs",
                suggestion: format!(
                    "line {} has {:?} at column {} (similarity {:.2}): pass that as ⟦old_text⟧ if it is the place, or use ⟦fuzzy=levenshtein⟧ if the difference is a typo",
                    c.line, c.text, c.column, c.similarity
                ),
            });
        }
    }
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
pub(super) fn whitespace_reason(
    view: &View,
    old_lines: &[&str],
    first: usize,
) -> (&'static str, String) {
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
pub(super) fn closest_window(view: &View, old_lines: &[&str]) -> Option<(usize, f64)> {
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

/// The text inside one line most like `old` (one line, shorter than the
/// line): the same number of characters at every position of the lines
/// that hold most of `old`'s characters, by normalised Levenshtein.
pub(super) struct InLine {
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub text: String,
    pub similarity: f64,
}

/// Lines looked at character by character, chosen by a character count.
const INSIDE_LINES: usize = 24;
/// Longest old text compared character by character.
const INSIDE_MAX_CHARS: usize = 200;

pub(super) fn closest_inside_line(view: &View, old: &str) -> Option<InLine> {
    let old = old.trim();
    let m = old.chars().count();
    if !(4..=INSIDE_MAX_CHARS).contains(&m) {
        return None;
    }
    let want = histogram(old);
    // The lines longer than `old` holding most of its characters.
    let mut lines: Vec<(u32, usize)> = (1..=view.line_count())
        .filter_map(|l| {
            let text = view.line(l);
            (text.chars().count() > m + 1).then(|| {
                let have = histogram(text);
                let common: u32 = want.iter().zip(&have).map(|(a, b)| *a.min(b)).sum();
                (common, l)
            })
        })
        .filter(|(common, _)| *common as usize * 10 >= m * 7)
        .collect();
    lines.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    lines.truncate(INSIDE_LINES);
    let mut best: Option<InLine> = None;
    for (_, l) in lines {
        let chars: Vec<char> = view.line(l).chars().collect();
        for start in 0..=chars.len() - m {
            let text: String = chars[start..start + m].iter().collect();
            let s = strsim::normalized_levenshtein(old, &text);
            if best.as_ref().is_none_or(|b| s > b.similarity) {
                best = Some(InLine {
                    line: l,
                    column: start + 1,
                    text,
                    similarity: s,
                });
            }
        }
    }
    // Worth offering only when it is close (one or two characters in a
    // short fragment) and inside the line is where it is.
    best.filter(|b| b.similarity >= 0.75)
}

/// Similarity in 0..1: normalised Levenshtein for texts of reasonable size,
/// a line-diff ratio beyond that.
pub(super) fn similarity(a: &str, b: &str) -> f64 {
    if a.len() + b.len() <= EXACT_SIMILARITY_MAX_BYTES {
        strsim::normalized_levenshtein(a, b)
    } else {
        f64::from(similar::TextDiff::from_lines(a, b).ratio())
    }
}

/// A short unified diff from `old` to the file's text, with whitespace made
/// visible (`⇥` for a tab, `·` for trailing spaces) because that is so
/// often the difference.
pub(super) fn short_diff(old: &str, file: &str, first_line: usize) -> String {
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

pub(super) fn visible_ws(s: &str) -> String {
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

pub(super) fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
