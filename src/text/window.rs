//! Line windows for `read_file`: the whole file, a line range, its head or
//! its tail, always bounded.
//!
//! An agent that reads a 20,000-line file whole burns its context; one that
//! reads a window without knowing it was cut draws wrong conclusions. So every
//! window is limited by lines and bytes, says whether it was cut, and gives
//! the line to continue from. The window is taken from an already decoded
//! [`SourceText`] (pure: no I/O here), and lines keep their original endings
//! so that what the agent sees is byte-for-byte what `edit_file` will match.

use crate::error::{Error, ErrorCode, Result};
use crate::source::SourceText;
use crate::text::lines::LineIndex;
use serde::{Deserialize, Serialize};

/// Default line limit of one window.
pub const DEFAULT_READ_MAX_LINES: usize = 1000;
/// Default byte limit of one window (about 12k tokens).
pub const DEFAULT_READ_MAX_BYTES: usize = 48 * 1024;

/// Which lines to read. With nothing set, the file from line 1.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowRequest {
    /// First line to read (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<usize>,
    /// Last line to read (1-based, inclusive; clamped to the file's end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// Read only the first N lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<usize>,
    /// Read only the last N lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<usize>,
    /// Line limit (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<usize>,
    /// Byte limit (default 49152).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<usize>,
}

/// A window of lines and where it sits in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// The lines, with their original line endings (no BOM).
    pub text: String,
    /// First line in `text` (1-based).
    pub start_line: usize,
    /// Last line in `text`; `start_line - 1` when the window is empty.
    pub end_line: usize,
    pub total_lines: usize,
    /// True when the limits cut the requested window short.
    pub truncated: bool,
    /// Where to continue reading (`start_line`) after a cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<usize>,
    /// A single line longer than `max_bytes` is cut at a character boundary;
    /// this names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_line: Option<usize>,
    pub file_hash: String,
}

/// Take the requested window out of `src`.
pub fn read_window(src: &SourceText, req: &WindowRequest) -> Result<Window> {
    let body = src.body();
    let index = LineIndex::new(body);
    let total = index.line_count();
    let (start, end) = requested_lines(req, total)?;
    let max_lines = req.max_lines.unwrap_or(DEFAULT_READ_MAX_LINES);
    let max_bytes = req.max_bytes.unwrap_or(DEFAULT_READ_MAX_BYTES);
    if max_lines == 0 || max_bytes == 0 {
        return Err(
            Error::invalid_argument("the line and byte limits must be at least 1")
                .with_suggestion("omit them to use the defaults (1000 lines, 48 KiB)"),
        );
    }

    let mut text = String::new();
    let mut last = start.saturating_sub(1);
    let mut partial_line = None;
    for line in start..=end {
        if line - start >= max_lines {
            break;
        }
        let content = &body[index.span(line)];
        if text.len() + content.len() > max_bytes {
            if text.is_empty() {
                // One huge line (minified code): give its beginning.
                let cut = crate::text::preview::floor_boundary(content, max_bytes);
                text.push_str(&content[..cut]);
                last = line;
                partial_line = Some(line);
            }
            break;
        }
        text.push_str(content);
        last = line;
    }
    let truncated = last < end;
    Ok(Window {
        text,
        start_line: start,
        end_line: last,
        total_lines: total,
        truncated: truncated || partial_line.is_some(),
        next_start_line: (last < end).then_some(last + 1),
        partial_line,
        file_hash: src.hash.clone(),
    })
}

/// The inclusive line range a request asks for, validated and clamped.
fn requested_lines(req: &WindowRequest, total: usize) -> Result<(usize, usize)> {
    let ranged = req.start_line.is_some() || req.end_line.is_some();
    let modes = [ranged, req.head.is_some(), req.tail.is_some()];
    if modes.iter().filter(|&&m| m).count() > 1 {
        return Err(
            Error::invalid_argument("use only one of start_line/end_line, head, or tail")
                .with_suggestion("e.g. ⟦start_line/end_line=100-150⟧, or ⟦head=50⟧, or ⟦tail=50⟧"),
        );
    }
    if let Some(n) = req.head {
        return Ok((1, n.min(total)));
    }
    if let Some(n) = req.tail {
        return Ok((total.saturating_sub(n) + 1, total));
    }
    let start = req.start_line.unwrap_or(1);
    let end = req.end_line.unwrap_or(total).min(total);
    let details = serde_json::json!({"start_line": req.start_line, "end_line": req.end_line, "total_lines": total});
    if start == 0 {
        return Err(Error::new(
            ErrorCode::InvalidRange,
            "start_line is 0; lines are numbered from 1",
        )
        .with_suggestion("lines start at 1, e.g. ⟦start_line/end_line=1-50⟧")
        .with_details(details));
    }
    if let Some(e) = req.end_line
        && e < start
    {
        return Err(Error::new(
            ErrorCode::InvalidRange,
            format!("end_line {e} is before start_line {start}"),
        )
        .with_suggestion(format!("swap them: ⟦start_line/end_line={e}-{start}⟧"))
        .with_details(details));
    }
    if start > total && !(start == 1 && total == 0) {
        return Err(Error::new(
            ErrorCode::InvalidRange,
            format!("start_line {start} is past the end of the file ({total} lines)"),
        )
        .with_suggestion(if total == 0 {
            "the file is empty".to_string()
        } else {
            format!("read within 1-{total}, e.g. ⟦tail=50⟧ for the end")
        })
        .with_details(details));
    }
    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn src(text: &str) -> SourceText {
        crate::source::decode(Path::new("f.txt"), text.as_bytes().to_vec()).unwrap()
    }

    fn req() -> WindowRequest {
        WindowRequest::default()
    }

    #[test]
    fn whole_file_and_ranges_keep_line_endings() {
        let s = src("\u{FEFF}a\r\nb\nc\r\n");
        let w = read_window(&s, &req()).unwrap();
        assert_eq!(w.text, "a\r\nb\nc\r\n");
        assert_eq!(
            (w.start_line, w.end_line, w.total_lines, w.truncated),
            (1, 3, 3, false)
        );
        assert_eq!(w.file_hash, s.hash);
        let w = read_window(
            &s,
            &WindowRequest {
                start_line: Some(2),
                end_line: Some(9),
                ..req()
            },
        )
        .unwrap();
        assert_eq!(w.text, "b\nc\r\n");
        assert_eq!((w.start_line, w.end_line, w.next_start_line), (2, 3, None));
    }

    #[test]
    fn head_tail_and_limits() {
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let s = src(&text);
        let w = read_window(
            &s,
            &WindowRequest {
                head: Some(2),
                ..req()
            },
        )
        .unwrap();
        assert_eq!(w.text, "line 1\nline 2\n");
        let w = read_window(
            &s,
            &WindowRequest {
                tail: Some(2),
                ..req()
            },
        )
        .unwrap();
        assert_eq!(w.text, "line 9\nline 10\n");
        assert_eq!(w.start_line, 9);
        let w = read_window(
            &s,
            &WindowRequest {
                tail: Some(50),
                ..req()
            },
        )
        .unwrap();
        assert_eq!(w.start_line, 1);
        let w = read_window(
            &s,
            &WindowRequest {
                max_lines: Some(3),
                ..req()
            },
        )
        .unwrap();
        assert_eq!(
            (w.end_line, w.truncated, w.next_start_line),
            (3, true, Some(4))
        );
        let w = read_window(
            &s,
            &WindowRequest {
                max_bytes: Some(15),
                ..req()
            },
        )
        .unwrap();
        assert_eq!(
            (w.text.as_str(), w.next_start_line),
            ("line 1\nline 2\n", Some(3))
        );
    }

    #[test]
    fn one_huge_line_is_cut_on_a_char_boundary() {
        let s = src(&format!("{}\nnext\n", "é".repeat(100)));
        let w = read_window(
            &s,
            &WindowRequest {
                max_bytes: Some(11),
                ..req()
            },
        )
        .unwrap();
        assert_eq!(w.text, "é".repeat(5));
        assert_eq!(
            (w.partial_line, w.truncated, w.next_start_line),
            (Some(1), true, Some(2))
        );
    }

    #[test]
    fn invalid_requests() {
        let s = src("a\nb\n");
        let code = |r: WindowRequest| read_window(&s, &r).unwrap_err().code();
        assert_eq!(
            code(WindowRequest {
                start_line: Some(0),
                ..req()
            }),
            ErrorCode::InvalidRange
        );
        assert_eq!(
            code(WindowRequest {
                start_line: Some(2),
                end_line: Some(1),
                ..req()
            }),
            ErrorCode::InvalidRange
        );
        assert_eq!(
            code(WindowRequest {
                start_line: Some(3),
                ..req()
            }),
            ErrorCode::InvalidRange
        );
        assert_eq!(
            code(WindowRequest {
                head: Some(1),
                tail: Some(1),
                ..req()
            }),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            code(WindowRequest {
                max_lines: Some(0),
                ..req()
            }),
            ErrorCode::InvalidArgument
        );
        let w = read_window(&src(""), &req()).unwrap();
        assert_eq!(
            (w.text.as_str(), w.start_line, w.end_line, w.total_lines),
            ("", 1, 0, 0)
        );
    }
}
