//! Bounded Levenshtein matching over line windows, filtered by character
//! histograms before the quadratic check.

use super::*;

/// A coarse character histogram; the L1 difference between two of them
/// bounds the edit distance from below (each edit moves at most one count in
/// each direction), which filters most windows before the quadratic check.
pub(super) type Hist = [u32; 64];

pub(super) fn bucket(c: char) -> usize {
    (c as u32 % 64) as usize
}

pub(super) fn histogram(s: &str) -> Hist {
    let mut h = [0u32; 64];
    for c in s.chars() {
        h[bucket(c)] += 1;
    }
    h
}

pub(super) fn hist_lower_bound(a: &Hist, b: &Hist) -> usize {
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
pub(super) fn window_text(view: &View, first: usize, k: usize) -> String {
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
pub(super) fn for_each_window(view: &View, k: usize, mut f: impl FnMut(usize, usize, &Hist)) {
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
pub(super) fn levenshtein_candidates(
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
