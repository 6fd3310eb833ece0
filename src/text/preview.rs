//! One-line previews centred on a match, for search results and error
//! candidates. A preview is short (about 80 characters) so that a hundred of
//! them stay cheap in tokens, keeps the match visible even on very long
//! (minified) lines, and is always cut on character boundaries.

/// Default preview width in characters.
pub const PREVIEW_WIDTH: usize = 80;

const ELLIPSIS: char = '…';

/// A preview of `line` of at most `width` characters (plus ellipses) that
/// shows the byte range `start..end` of the line. Offsets that are out of
/// range or not on character boundaries are snapped to valid ones, so any
/// input is safe. The line terminator and leading indentation are dropped.
pub fn preview(line: &str, start: usize, end: usize, width: usize) -> String {
    let line = crate::text::lines::strip_eol(line);
    let width = width.max(8);
    let start = floor_boundary(line, start.min(line.len()));
    let end = floor_boundary(line, end.clamp(start, line.len()));
    // Drop indentation unless the match itself is in it.
    let indent = line.len() - line.trim_start().len();
    let skip = if start >= indent { indent } else { start };
    let body = line[skip..].trim_end();
    let (start, end) = (start - skip, (end - skip).min(body.len()).max(start - skip));

    // Work proportional to the preview, not the line: on a minified line of
    // several MB only the characters around the match are walked.
    if body.chars().nth(width).is_none() {
        return body.to_string();
    }
    let match_chars = body[start..end].chars().take(width).count();
    let (from_b, to_b) = if match_chars >= width {
        (start, char_offset(body, start, width))
    } else {
        let room = width - match_chars;
        let before_avail = body[..start].chars().rev().take(room).count();
        let after_avail = body[end..].chars().take(room).count();
        let before = (room / 2).min(before_avail);
        let after = (room - before).min(after_avail);
        let before = (room - after).min(before_avail);
        let from_b = match before {
            0 => start,
            n => body[..start]
                .char_indices()
                .rev()
                .nth(n - 1)
                .map_or(0, |(i, _)| i),
        };
        (from_b, char_offset(body, end, after))
    };
    let mut out = String::with_capacity(to_b - from_b + 8);
    if from_b > 0 {
        out.push(ELLIPSIS);
    }
    out.push_str(&body[from_b..to_b]);
    if to_b < body.len() {
        out.push(ELLIPSIS);
    }
    out
}

/// The byte offset `n` characters after `at` in `s` (its end if shorter).
fn char_offset(s: &str, at: usize, n: usize) -> usize {
    s[at..]
        .char_indices()
        .nth(n)
        .map_or(s.len(), |(i, _)| at + i)
}

/// The largest char boundary not after `i`.
pub fn floor_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_trimmed_whole() {
        assert_eq!(preview("    let x = 1;\r\n", 8, 9, 80), "let x = 1;");
    }

    #[test]
    fn long_lines_centre_the_match() {
        let line = format!("{}NEEDLE{}", "a".repeat(200), "b".repeat(200));
        let p = preview(&line, 200, 206, 80);
        assert!(p.starts_with('…') && p.ends_with('…'));
        assert!(p.contains("NEEDLE"));
        assert_eq!(p.chars().count(), 82);
        let idx = p.find("NEEDLE").unwrap();
        assert!((35..=45).contains(&idx), "{p}");
    }

    #[test]
    fn edges_and_unicode_are_safe() {
        let line = "é".repeat(300);
        for (s, e) in [(0, 2), (1, 3), (599, 600), (700, 900), (10, 5)] {
            let p = preview(&line, s, e, 80);
            assert!(p.chars().count() <= 82);
        }
        let p = preview(&line, 0, 2, 80);
        assert!(!p.starts_with('…') && p.ends_with('…'));
        let p = preview(&line, 598, 600, 80);
        assert!(p.starts_with('…') && !p.ends_with('…'));
        assert_eq!(preview("", 0, 0, 80), "");
    }

    #[test]
    fn a_huge_line_gives_the_same_preview_as_a_short_one() {
        let tail = "y".repeat(5_000_000);
        let line = format!("{}NEEDLE{tail}", "x".repeat(5_000_000));
        let p = preview(&line, 5_000_000, 5_000_006, 80);
        assert_eq!(p, format!("…{}NEEDLE{}…", "x".repeat(37), "y".repeat(37)));
    }

    #[test]
    fn long_match_is_cut_at_width() {
        let line = "x".repeat(500);
        let p = preview(&line, 0, 500, 80);
        assert_eq!(p.chars().count(), 81);
    }
}
