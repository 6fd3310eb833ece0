//! Mapping between byte offsets and 1-based line numbers.
//!
//! Every consumer of line numbers (read windows, keyword lines, edit receipts)
//! goes through this one index so that they all agree on what "line 12" is:
//! a line ends after its `\n`, and a trailing newline does not start a new
//! (empty) line, exactly like `count_lines` in the file profile.

use std::ops::Range;

/// Start offsets of every line in a text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|p| p + 1));
        // A trailing newline does not open a new line; neither does an empty text.
        if starts.last() == Some(&text.len()) {
            starts.pop();
        }
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// Number of lines as an editor shows them (0 for an empty text).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 1-based line holding byte `offset` (offsets past the end map to
    /// the last line; an empty text has only "line 1").
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i.max(1),
        }
    }

    /// Byte range of a 1-based line, terminator included. Lines outside the
    /// text give an empty range at the end.
    pub fn span(&self, line: usize) -> Range<usize> {
        if line == 0 || line > self.starts.len() {
            return self.len..self.len;
        }
        let start = self.starts[line - 1];
        let end = self.starts.get(line).copied().unwrap_or(self.len);
        start..end
    }

    /// Byte range covering lines `first..=last` (clamped), terminators included.
    pub fn lines_span(&self, first: usize, last: usize) -> Range<usize> {
        let first = first.max(1);
        let last = last.min(self.starts.len());
        if first > last {
            return self.len..self.len;
        }
        self.span(first).start..self.span(last).end
    }
}

/// A line without its terminator (`\n` or `\r\n`).
pub fn strip_eol(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_spans() {
        let t = "a\nbb\r\nc";
        let ix = LineIndex::new(t);
        assert_eq!(ix.line_count(), 3);
        assert_eq!(&t[ix.span(2)], "bb\r\n");
        assert_eq!(&t[ix.span(3)], "c");
        assert_eq!(ix.line_of(0), 1);
        assert_eq!(ix.line_of(2), 2);
        assert_eq!(ix.line_of(6), 3);
        assert_eq!(ix.span(4), 7..7);
        assert_eq!(&t[ix.lines_span(1, 2)], "a\nbb\r\n");
        assert_eq!(LineIndex::new("").line_count(), 0);
        assert_eq!(LineIndex::new("x\n").line_count(), 1);
        assert_eq!(LineIndex::new("\n\n").line_count(), 2);
        assert_eq!(strip_eol("x\r\n"), "x");
    }

    #[test]
    fn agrees_with_profile_count() {
        for t in ["", "a", "a\n", "a\n\n", "\n", "a\r\nb", "a\nb\n"] {
            assert_eq!(
                LineIndex::new(t).line_count(),
                crate::source::count_lines(t),
                "{t:?}"
            );
        }
    }
}
