//! Decoded text and its shape (the "file profile"): encoding, BOM, line
//! endings, trailing newline, indentation unit, content hash. Everything that
//! later writes must preserve is recorded here.
//!
//! Pure: bytes come in from [`crate::disk`] (the door to the disk) and nothing
//! here touches the disk, so every layer above can use these types without
//! depending on the disk layer.

use crate::error::{Error, ErrorCode, Result};
use serde::Serialize;
use std::path::Path;

/// How many leading bytes are inspected for NUL to call a file binary (git's
/// heuristic uses the same window).
const BINARY_SNIFF: usize = 8000;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
/// UTF-16's byte-order marks, little- and big-endian.
const UTF16_BOMS: [&[u8]; 2] = [b"\xFF\xFE", b"\xFE\xFF"];

/// Whether `bytes` start with a byte-order mark: UTF-8's or one of
/// UTF-16's.
pub fn has_bom(bytes: &[u8]) -> bool {
    bytes.starts_with(UTF8_BOM) || UTF16_BOMS.iter().any(|b| bytes.starts_with(b))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Eol {
    Lf,
    Crlf,
    Mixed,
    /// A single line without terminator: no evidence either way.
    None,
}

impl Eol {
    /// The terminator new text should use in this file. Mixed files use the
    /// majority style (ties go to LF).
    pub fn preferred<'a>(self, crlf_lines: usize, lf_lines: usize) -> &'a str {
        match self {
            Eol::Crlf => "\r\n",
            Eol::Mixed if crlf_lines > lf_lines => "\r\n",
            _ => "\n",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "style", content = "width")]
pub enum Indent {
    Tabs,
    Spaces(u8),
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileProfile {
    pub bom: bool,
    pub eol: Eol,
    pub crlf_lines: usize,
    pub lf_lines: usize,
    pub trailing_newline: bool,
    pub indent: Indent,
}

impl FileProfile {
    pub fn newline(&self) -> &'static str {
        self.eol.preferred(self.crlf_lines, self.lf_lines)
    }
}

/// A decoded text file. `text` holds the whole file (BOM included, so byte
/// offsets into it are file offsets); `body()` is what parsers see.
#[derive(Debug, Clone)]
pub struct SourceText {
    pub text: String,
    pub profile: FileProfile,
    pub hash: String,
}

impl SourceText {
    /// Offset of the first byte after the BOM.
    pub fn body_offset(&self) -> usize {
        if self.profile.bom { UTF8_BOM.len() } else { 0 }
    }

    pub fn body(&self) -> &str {
        &self.text[self.body_offset()..]
    }

    pub fn total_lines(&self) -> usize {
        count_lines(self.body())
    }
}

/// Number of lines as an editor shows them (a trailing newline does not start
/// a new line; an empty file has zero lines).
pub fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let n = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if text.ends_with('\n') { n } else { n + 1 }
}

/// Content hash used for `file_hash` / `expected_hash`: the first 16 hex
/// digits of BLAKE3 over the raw bytes. 64 bits is ample to detect a change.
pub fn hash_bytes(bytes: &[u8]) -> String {
    short_hex(&blake3::hash(bytes))
}

/// [`hash_bytes`] of what `reader` gives, read through blake3's own buffer
/// (a model's weights: tens of MB not held in memory).
pub fn hash_reader(reader: impl std::io::Read) -> std::io::Result<String> {
    Ok(short_hex(
        &blake3::Hasher::new().update_reader(reader)?.finalize(),
    ))
}

fn short_hex(h: &blake3::Hash) -> String {
    h.to_hex()[..16].to_string()
}

/// Decode raw bytes as a text file: UTF-8 with or without BOM. Binary data and
/// other encodings are refused with `BINARY_FILE` / `ENCODING`.
pub fn decode(path: &Path, bytes: Vec<u8>) -> Result<SourceText> {
    let shown = path.display().to_string();
    if UTF16_BOMS.iter().any(|b| bytes.starts_with(b)) {
        return Err(Error::new(
            ErrorCode::Encoding,
            format!("{shown} is UTF-16 (byte-order mark found); only UTF-8 is supported"),
        )
        .with_suggestion(
            "convert the file to UTF-8 (e.g. `iconv -f UTF-16 -t UTF-8`) or edit it another way",
        )
        .with_details(serde_json::json!({"path": shown, "encoding": "utf-16"})));
    }
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF)];
    if let Some(pos) = memchr::memchr(0, sniff) {
        return Err(Error::new(
            ErrorCode::BinaryFile,
            format!("{shown} looks binary (NUL byte at offset {pos})"),
        )
        .with_suggestion("Scalpel only reads and edits text files; skip this file")
        .with_details(serde_json::json!({"path": shown, "nul_offset": pos})));
    }
    let hash = hash_bytes(&bytes);
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let bad = e.utf8_error().valid_up_to();
            let raw = e.as_bytes();
            let line = memchr::memchr_iter(b'\n', &raw[..bad]).count() + 1;
            let col = bad
                - raw[..bad]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1)
                + 1;
            return Err(Error::new(
                ErrorCode::Encoding,
                format!("{shown} is not valid UTF-8 (first bad byte at line {line}, column {col})"),
            )
            .with_suggestion(
                "convert the file to UTF-8 first; Scalpel never rewrites other encodings",
            )
            .with_details(serde_json::json!({
                "path": shown, "byte_offset": bad, "line": line, "column": col,
                "byte": format!("0x{:02X}", raw[bad]),
            })));
        }
    };
    let profile = profile_of(&text);
    Ok(SourceText {
        text,
        profile,
        hash,
    })
}

/// Describe the shape of a decoded text.
pub fn profile_of(text: &str) -> FileProfile {
    let bom = text.as_bytes().starts_with(UTF8_BOM);
    let bytes = text.as_bytes();
    let mut crlf = 0usize;
    let mut lf = 0usize;
    for pos in memchr::memchr_iter(b'\n', bytes) {
        if pos > 0 && bytes[pos - 1] == b'\r' {
            crlf += 1;
        } else {
            lf += 1;
        }
    }
    let eol = match (crlf, lf) {
        (0, 0) => Eol::None,
        (_, 0) => Eol::Crlf,
        (0, _) => Eol::Lf,
        _ => Eol::Mixed,
    };
    FileProfile {
        bom,
        eol,
        crlf_lines: crlf,
        lf_lines: lf,
        trailing_newline: text.ends_with('\n'),
        indent: detect_indent(text),
    }
}

/// Guess the indentation unit from how indentation grows between
/// consecutive non-blank lines.
fn detect_indent(text: &str) -> Indent {
    indent_of_lines(text.lines())
}

/// [`detect_indent`] over chosen lines: the editor reads a file's style
/// from its layout lines only, without the lines of multi-line strings,
/// whose indentation is content (an embedded XML document indented by 2
/// must not make a file indented by 4 read as 2).
pub fn indent_of_lines<'a>(lines: impl Iterator<Item = &'a str>) -> Indent {
    let mut tabs = 0usize;
    let mut widths = [0usize; 9];
    let mut prev = 0usize;
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with('\t') {
            tabs += 1;
            continue;
        }
        let n = line.len() - line.trim_start_matches(' ').len();
        if n > prev && n - prev <= 8 {
            widths[n - prev] += 1;
        }
        prev = n;
    }
    let (best, count) = widths
        .iter()
        .enumerate()
        .skip(1)
        .max_by_key(|(w, c)| (**c, usize::MAX - *w))
        .map(|(w, c)| (w, *c))
        .unwrap_or((0, 0));
    if tabs > count {
        Indent::Tabs
    } else if count > 0 {
        Indent::Spaces(best as u8)
    } else {
        Indent::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(b: &[u8]) -> Result<SourceText> {
        decode(Path::new("t.py"), b.to_vec())
    }

    #[test]
    fn profiles() {
        let s = dec(b"\xEF\xBB\xBFa\r\nb\r\n").unwrap();
        assert!(s.profile.bom);
        assert_eq!(s.profile.eol, Eol::Crlf);
        assert_eq!(s.body(), "a\r\nb\r\n");
        assert_eq!(s.profile.newline(), "\r\n");
        let s = dec(b"a\nb\r\nc").unwrap();
        assert_eq!(s.profile.eol, Eol::Mixed);
        assert!(!s.profile.trailing_newline);
        assert_eq!(s.total_lines(), 3);
        assert_eq!(dec(b"").unwrap().total_lines(), 0);
    }

    #[test]
    fn indent_detection() {
        assert_eq!(
            profile_of("a\n    b\n        c\n    d\n").indent,
            Indent::Spaces(4)
        );
        assert_eq!(profile_of("a\n  b\n    c\n").indent, Indent::Spaces(2));
        assert_eq!(profile_of("a\n\tb\n\t\tc\n").indent, Indent::Tabs);
        assert_eq!(profile_of("a\nb\n").indent, Indent::Unknown);
    }

    #[test]
    fn refusals() {
        assert_eq!(dec(b"ab\0cd").unwrap_err().code(), ErrorCode::BinaryFile);
        assert_eq!(dec(b"\xFF\xFEa\0").unwrap_err().code(), ErrorCode::Encoding);
        let e = dec(b"ok\nb\xE9d\n").unwrap_err();
        assert_eq!(e.code(), ErrorCode::Encoding);
        assert_eq!(e.details["line"], 2);
        assert_eq!(e.details["column"], 2);
    }
}
