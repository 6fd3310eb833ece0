//! The CLI's layout of a result's one rendering ([`crate::render`]): the
//! content on stdout, the head above or below it (or on stderr when the
//! content is a file's own text, so `scalpel extract … > f` stays code), and
//! the notes on stderr. Lines are the rendering's own; marked terms become
//! flags and commands ([`super::words`]).

use super::output::Out;
use super::words::cli_words;
use crate::render::{Part, Render};

/// Where the head goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Head {
    /// On stdout, before the content (outlines, hits, references).
    Above,
    /// On stdout, after the content, like `git` after a diff (writes).
    Below,
    /// On stderr, so stdout is only the file's text (extract, read).
    Stderr,
}

/// Print `result`'s rendering in the CLI's layout.
pub(super) fn show(out: &mut Out, result: &dyn Render, head: Head) {
    let rendering = result.rendering();
    let pieces: Vec<(Part, String)> = rendering
        .pieces(&cli_words)
        .map(|(p, t)| (p, t.into_owned()))
        .collect();
    let of = |part: Part| pieces.iter().filter(move |p| p.0 == part).map(|p| &p.1);
    if head == Head::Above {
        of(Part::Head).for_each(|t| out.raw(t));
    }
    of(Part::Body).for_each(|t| out.raw(t));
    if head == Head::Below {
        of(Part::Head).for_each(|t| out.raw(t));
    }
    let mut stderr: Vec<&String> = Vec::new();
    if head == Head::Stderr {
        stderr.extend(of(Part::Head));
    }
    stderr.extend(of(Part::Note));
    if !stderr.is_empty() {
        // What is on stdout so far first, so a terminal shows the notes
        // after the content they are about.
        out.flush();
        for t in stderr {
            eprint!("{t}");
        }
    }
}
