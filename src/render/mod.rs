//! One rendering per result, for both interfaces.
//!
//! Every result a front end shows (an outline, a symbol's code, search
//! hits, a window or fragments of a file, references, a tree, a `find`
//! answer, a write's or an undo's receipt) is turned into text lines here,
//! once: a [`Rendering`], an ordered list of lines each tagged with its
//! [`Part`] (what the result is, its content, what was cut or warned
//! about). The MCP adapter and the CLI choose only a layout: the MCP text is
//! every part in order ([`Rendering::text`]); the CLI prints the content on
//! stdout, the head above or below it (or on stderr when the content is a
//! file's own text, so it can be piped), and the notes on stderr. Neither
//! adds, drops or reformats a fact. Marked terms ([`crate::hint`]) in heads
//! and notes are rendered in each interface's words; content (code, diffs,
//! previews) is shown verbatim.

mod read;
mod refs;
mod search;
mod write;

use crate::hint::Term;

/// What a line of a rendering is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// What the result is: counts, hashes, a write's summary.
    Head,
    /// The content: outline lines, code, matches, a diff. Verbatim.
    Body,
    /// What was cut, left out, not found or warned about.
    Note,
}

/// A result as text: pieces in order, each one or more whole lines
/// (ending in `\n`) of one [`Part`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendering {
    pieces: Vec<(Part, String)>,
}

impl Rendering {
    /// Adds `text` as `part`, ending it with a newline; empty text adds
    /// nothing.
    pub fn push(&mut self, part: Part, text: impl Into<String>) {
        let mut text = text.into();
        if text.is_empty() {
            return;
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        self.pieces.push((part, text));
    }

    pub fn head(&mut self, line: impl Into<String>) {
        self.push(Part::Head, line);
    }

    pub fn body(&mut self, text: impl Into<String>) {
        self.push(Part::Body, text);
    }

    pub fn note(&mut self, line: impl Into<String>) {
        self.push(Part::Note, line);
    }

    /// Another rendering's pieces, after these.
    pub fn append(&mut self, other: Rendering) {
        self.pieces.extend(other.pieces);
    }

    /// The pieces in order, heads and notes with their marked terms in
    /// `words` (bodies verbatim).
    pub fn pieces<'a>(
        &'a self,
        words: &'a dyn Fn(Term, Option<&str>) -> String,
    ) -> impl Iterator<Item = (Part, std::borrow::Cow<'a, str>)> + 'a {
        self.pieces.iter().map(move |(part, text)| {
            let shown = match part {
                Part::Body => std::borrow::Cow::Borrowed(text.as_str()),
                Part::Head | Part::Note => {
                    std::borrow::Cow::Owned(crate::hint::render(text, words))
                }
            };
            (*part, shown)
        })
    }

    /// Every piece in order: the MCP text.
    pub fn text(&self, words: &dyn Fn(Term, Option<&str>) -> String) -> String {
        self.pieces(words).map(|(_, t)| t).collect()
    }
}

/// A result that has one rendering.
pub trait Render {
    fn rendering(&self) -> Rendering;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper(t: Term, _: Option<&str>) -> String {
        t.name().to_uppercase()
    }

    /// Heads and notes speak the interface's words; the content is shown
    /// verbatim, even when it holds a marker (Scalpel's own sources do).
    #[test]
    fn only_heads_and_notes_render_terms() {
        let mut r = Rendering::default();
        r.head("see ⟦read_file⟧");
        r.body("let s = \"⟦force⟧\";");
        r.note("pass ⟦force⟧");
        r.body("");
        assert_eq!(
            r.text(&upper),
            "see READ_FILE\nlet s = \"⟦force⟧\";\npass FORCE\n"
        );
    }
}
