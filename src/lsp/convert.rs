//! Between LSP's coordinates and Scalpel's: `file://` URIs and paths,
//! UTF-16 positions and byte offsets, a `WorkspaceEdit` and each file's new
//! text.

use lsp_types::{DocumentChangeOperation, DocumentChanges, TextEdit, WorkspaceEdit};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `file://` URI of an absolute path.
pub fn uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a `file://` URI.
pub fn path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let mut bytes = Vec::with_capacity(rest.len());
    let raw = rest.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = std::str::from_utf8(raw.get(i + 1..i + 3)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    let p = PathBuf::from(String::from_utf8(bytes).ok()?);
    p.is_absolute().then_some(p)
}

/// The LSP position (0-based line, UTF-16 column) of byte `at` in `text`.
pub fn position(text: &str, at: usize) -> lsp_types::Position {
    let before = &text[..at];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[start..].encode_utf16().count();
    lsp_types::Position::new(line as u32, character as u32)
}

/// The byte offset of an LSP position in `text`, `None` past the end or
/// inside a character.
pub fn offset(text: &str, p: lsp_types::Position) -> Option<usize> {
    let mut start = 0;
    for _ in 0..p.line {
        start += text[start..].find('\n')? + 1;
    }
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0;
    for (i, c) in text[start..line_end].char_indices() {
        if units == p.character as usize {
            return Some(start + i);
        }
        units += c.len_utf16();
        if units > p.character as usize {
            return None;
        }
    }
    (units == p.character as usize).then_some(line_end)
}

/// A `WorkspaceEdit`'s text edits by file, or why it cannot be taken
/// (file operations, a URI that is not a file).
pub fn edits_by_file(edit: WorkspaceEdit) -> Result<BTreeMap<PathBuf, Vec<TextEdit>>, String> {
    let mut out: BTreeMap<PathBuf, Vec<TextEdit>> = BTreeMap::new();
    let mut add = |u: &lsp_types::Uri, edits: Vec<TextEdit>| -> Result<(), String> {
        let p = path(u.as_str()).ok_or_else(|| format!("`{}` is not a file URI", u.as_str()))?;
        out.entry(p).or_default().extend(edits);
        Ok(())
    };
    match edit.document_changes {
        Some(DocumentChanges::Edits(docs)) => {
            for d in docs {
                let edits = d.edits.into_iter().map(plain).collect();
                add(&d.text_document.uri, edits)?;
            }
        }
        Some(DocumentChanges::Operations(ops)) => {
            for op in ops {
                match op {
                    DocumentChangeOperation::Edit(d) => {
                        let edits = d.edits.into_iter().map(plain).collect();
                        add(&d.text_document.uri, edits)?;
                    }
                    DocumentChangeOperation::Op(_) => {
                        return Err("it creates, renames or deletes files".into());
                    }
                }
            }
        }
        None => {
            for (u, edits) in edit.changes.into_iter().flatten() {
                add(&u, edits)?;
            }
        }
    }
    Ok(out)
}

fn plain(e: lsp_types::OneOf<TextEdit, lsp_types::AnnotatedTextEdit>) -> TextEdit {
    match e {
        lsp_types::OneOf::Left(e) => e,
        lsp_types::OneOf::Right(a) => a.text_edit,
    }
}

/// `text` with `edits` applied, each of which must replace exactly `old`
/// (a rename's edit): else why not (overlapping, out of range, or a range
/// that does not hold the old name: the server's view of the file is not
/// the file on disk).
pub fn apply(text: &str, edits: &[TextEdit], old: &str) -> Result<(String, usize), String> {
    let mut spans = Vec::with_capacity(edits.len());
    for e in edits {
        let (Some(a), Some(b)) = (offset(text, e.range.start), offset(text, e.range.end)) else {
            return Err(format!(
                "an edit at line {} is outside the file",
                e.range.start.line + 1
            ));
        };
        if a > b || &text[a..b] != old {
            return Err(format!(
                "an edit at line {} replaces `{}`, not `{old}`",
                e.range.start.line + 1,
                text.get(a..b)
                    .unwrap_or("?")
                    .chars()
                    .take(40)
                    .collect::<String>()
            ));
        }
        spans.push((a, b, e.new_text.as_str()));
    }
    spans.sort_by_key(|s| s.0);
    spans.dedup();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for &(a, b, new) in &spans {
        if a < last {
            return Err("two edits overlap".into());
        }
        out.push_str(&text[last..a]);
        out.push_str(new);
        last = b;
    }
    out.push_str(&text[last..]);
    Ok((out, spans.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    #[test]
    fn uris_round_trip() {
        for p in ["/a/b c/d.py", "/tmp/é/x#y%.ts", "/plain/file.rs"] {
            let u = uri(Path::new(p));
            assert!(u.starts_with("file:///"), "{u}");
            assert!(!u.contains([' ', '#']) && u.is_ascii(), "{u}");
            assert_eq!(path(&u).unwrap(), PathBuf::from(p));
        }
        assert_eq!(uri(Path::new("/a b")), "file:///a%20b");
        assert_eq!(path("file:///a%2"), None);
        assert_eq!(path("http://x/y"), None);
        assert_eq!(path("file://relative"), None);
    }

    #[test]
    fn utf16_positions() {
        let text = "a = 1\nb = \"é😀\"; c\n";
        let c = text.find("c\n").unwrap();
        let p = position(text, c);
        assert_eq!(p, Position::new(1, 11));
        assert_eq!(offset(text, p), Some(c));
        assert_eq!(
            offset(text, Position::new(1, 7)),
            None,
            "inside the surrogate pair"
        );
        assert_eq!(offset(text, Position::new(0, 5)), Some(5));
        assert_eq!(offset(text, Position::new(0, 6)), None);
        assert_eq!(offset(text, Position::new(9, 0)), None);
    }

    #[test]
    fn edits_apply_only_to_the_old_name() {
        let text = "def m(): pass\nm()\n";
        let e = |l, c| TextEdit {
            range: Range::new(Position::new(l, c), Position::new(l, c + 1)),
            new_text: "mm".into(),
        };
        assert_eq!(
            apply(text, &[e(1, 0), e(0, 4)], "m").unwrap(),
            ("def mm(): pass\nmm()\n".to_string(), 2)
        );
        assert!(
            apply(text, &[e(0, 0)], "m")
                .unwrap_err()
                .contains("replaces `d`")
        );
        assert!(apply(text, &[e(7, 0)], "m").is_err());
    }
}
