//! Whitespace-insensitive matching, and re-indenting the new text to the
//! indentation of the lines it matched.

use super::*;
use crate::text::indent::{leading_ws, spaces_to_tabs, tabs_to_spaces};

/// `old` split into lines; `true` when it ended with a newline.
pub(super) fn split_lines(old: &str) -> (Vec<&str>, bool) {
    let ends_nl = old.ends_with('\n');
    let body = if ends_nl { &old[..old.len() - 1] } else { old };
    (body.split('\n').collect(), ends_nl)
}

/// The `norm` span of `k` whole lines starting at `first` (terminator of
/// the last line included when `ends_nl`).
pub(super) fn window_span(view: &View, first: usize, k: usize, ends_nl: bool) -> (usize, usize) {
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
pub(super) fn line_cand(
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

/// A line with every run of whitespace forgiven: runs between two word
/// characters become one space (`return x` stays apart from `returnx`),
/// runs next to anything else go (`f(a,b)` is `f( a, b )`), and the ends
/// are trimmed.
pub(super) fn squeeze(line: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(line.len());
    let mut gap = false;
    for c in line.chars() {
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && out.chars().next_back().is_some_and(word) && word(c) {
            out.push(' ');
        }
        gap = false;
        out.push(c);
    }
    out
}

/// Windows of whole lines equal to `old` line by line once every run of
/// whitespace is forgiven ([`squeeze`]): indentation, trailing spaces and
/// the spacing inside lines.
pub(super) fn whitespace_candidates(view: &View, old: &str, new: &str) -> Vec<Cand> {
    let (old_lines, ends_nl) = split_lines(old);
    if old_lines.iter().all(|l| l.trim().is_empty()) {
        return Vec::new();
    }
    let squeezed: Vec<String> = old_lines.iter().map(|l| squeeze(l)).collect();
    let k = squeezed.len();
    let n = view.line_count();
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    for first in 1..=(n + 1 - k) {
        // Cheap first: the trimmed lines, as most near misses are indentation.
        if (0..k).all(|i| {
            let line = view.line(first + i);
            line.trim() == old_lines[i].trim() || squeeze(line) == squeezed[i]
        }) {
            out.push(line_cand(view, &old_lines, first, ends_nl, new, 0));
        }
    }
    out
}

/// `new` re-indented to fit the file: each indentation level that `old`
/// uses maps to the indentation of the file line it matched, so a block
/// written at the wrong depth, with another indent width, or with spaces
/// for tabs lands at the file's depth and in the file's style.
pub(super) fn reindent_for(view: &View, old_lines: &[&str], first: usize, new: &str) -> String {
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
pub(super) fn shift_indent(text: &str, from: &str, to: &str) -> String {
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
pub(super) fn space_scale(pairs: &[(&str, &str)]) -> Option<(usize, usize)> {
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
pub(super) fn convert_indent(extra: &str, from: &str, to: &str) -> String {
    let all = |s: &str, c: char| !s.is_empty() && s.chars().all(|x| x == c);
    if all(from, ' ') && all(to, '\t') && from.len().is_multiple_of(to.len()) {
        spaces_to_tabs(extra, from.len() / to.len())
    } else if all(from, '\t') && all(to, ' ') && to.len().is_multiple_of(from.len()) {
        tabs_to_spaces(extra, to.len() / from.len())
    } else {
        extra.to_string()
    }
}
