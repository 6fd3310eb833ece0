//! Reading the indentation of code an agent sends, and judging where it
//! landed.
//!
//! New code arrives in many shapes: as `extract_code` printed it (first line
//! at column 0, later lines at the file's absolute indentation), dedented to
//! column 0, with every line already at the target's indentation, with or
//! without its decorators, with a one-line body or a docstring first. The
//! first line's own indentation is always dropped (the splice point supplies
//! it); what is unknown is the *base*: how much indentation the later lines
//! carry that is not theirs relative to the first line. [`readings`] lists
//! the plausible bases, most likely first. The caller places each, reparses,
//! and keeps the first reading that adds no parse problem and whose layout
//! agrees with its own syntax tree ([`layout_penalty`] zero); a coincidence of
//! columns cannot fool it, because the tree, not a column count, decides.

pub use super::rescale::{
    Role, block_units, narrowest_step, rescale, steps_deeper, steps_unit, steps_units,
};
use crate::lang::Language;
use crate::source::Indent;
use crate::text::indent::{is_blank, leading_ws};
use std::collections::HashSet;
use tree_sitter::{Node, Tree};

/// Width of one indentation step in the file, in bytes of its own
/// indentation characters (a tab is one byte).
pub fn unit(indent: Indent) -> usize {
    match indent {
        Indent::Tabs => 1,
        Indent::Spaces(w) if w > 0 => w as usize,
        _ => 4,
    }
}

/// The indentation style of the file parsed as `tree` (its text is
/// `body`): tabs or spaces as its layout lines show ([`layout_style`]), and
/// for spaces, the width its blocks step in ([`block_unit`]) when they show
/// one, else the width its layout lines step in most often. Continuation lines
/// are layout lines too, and in a file whose continuations go two steps in
/// they can outnumber its blocks' steps: the JDK's `SunJCE` steps 8 from
/// one line to the next 165 times, and its blocks go 4 deeper; read as 8,
/// a method's body one step in would be half a step deep.
pub fn file_style(lang: &Language, tree: &Tree, body: &str, profile: Indent) -> Indent {
    match layout_style(lang, tree, body, profile) {
        Indent::Spaces(w) => match block_unit(lang, tree, body) {
            Some(unit) => Indent::Spaces(unit as u8),
            None => Indent::Spaces(w),
        },
        other => other,
    }
}

/// [`file_style`] of a parsed file, read once per parse (each edit of it
/// asks).
pub fn style_of(file: &crate::symbols::ParsedFile) -> Indent {
    file.indentation(|f| {
        file_style(
            &f.language,
            &f.tree,
            f.source.body(),
            f.source.profile.indent,
        )
    })
}

/// The width the blocks of the file parsed as `tree` step in
/// ([`super::rescale::file_step_counts`] over the whole file's [`roles`]),
/// when more than half of their steps take it: a data file's continued
/// strings step every width (CPython's `pydoc_data/topics.py`, one dict of
/// strings concatenated 11 columns in under keys 10 in, and 20 in after
/// them), and say nothing of a unit.
fn block_unit(lang: &Language, tree: &Tree, body: &str) -> Option<usize> {
    let depths: Vec<Option<usize>> = body
        .split('\n')
        .map(|l| {
            Some(leading_ws(l))
                .filter(|ws| !ws.contains('\t'))
                .map(str::len)
        })
        .collect();
    let roles = roles(lang, tree, body, 0..body.len());
    let counts = super::rescale::file_step_counts(&depths, &roles);
    let total: usize = counts.iter().sum();
    (1..counts.len()).find(|&w| 2 * counts[w] > total)
}

/// The indentation style of the file parsed as `tree` (its text is
/// `body`), read from its layout lines: lines that begin inside a
/// multi-line string (any `[edit] verbatim` kind, docstrings included) or
/// a multi-line comment (an extra node: ` * ` lines of a JSDoc block, one
/// column in) are left out, because their indentation is content. `profile`
/// is the style read from every line ([`crate::source::FileProfile`]), which
/// this equals when the file has no multi-line string.
///
/// Only nodes spanning several lines can hold a line start, so the walk
/// descends into those alone.
fn layout_style(lang: &Language, tree: &Tree, body: &str, profile: Indent) -> Indent {
    let kinds = &lang.kinds().verbatim;
    // Rows (0-based) whose line begins inside a string or comment, as
    // sorted ranges.
    let mut inside: Vec<std::ops::Range<usize>> = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let n = cursor.node();
        let (start, end) = (n.start_position(), n.end_position());
        if end.row > start.row {
            if is_comment(&n) || kinds.contains(&n) {
                // The line of the end row begins inside unless the string
                // ends right at its start.
                let last = if end.column > 0 { end.row } else { end.row - 1 };
                inside.push(start.row + 1..last + 1);
            } else if cursor.goto_first_child() {
                continue;
            }
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    if inside.is_empty() {
        return profile;
    }
    let mut next = inside.iter().peekable();
    let layout = body.lines().enumerate().filter_map(|(row, line)| {
        while next.peek().is_some_and(|r| r.end <= row) {
            next.next();
        }
        match next.peek() {
            Some(r) if r.contains(&row) => None,
            _ => Some(line),
        }
    });
    crate::source::indent_of_lines(layout)
}

/// Candidate bases for the later lines of `lines` (already in the file's
/// indentation style), most likely first, without duplicates:
/// - the first line's own indentation (every line at some common depth);
/// - the target's indentation (`extract_code`'s shape);
/// - 0 (code written from column 0);
/// - the later lines' least indentation, and one step less (code taken from
///   some other depth, with or without a closing line at header level).
pub fn readings(lines: &[&str], target: usize, unit: usize) -> Vec<usize> {
    let first = lines.first().map_or(0, |l| leading_ws(l).len());
    let least = lines
        .iter()
        .skip(1)
        .filter(|l| !is_blank(l))
        .map(|l| leading_ws(l).len())
        .min();
    let Some(least) = least else {
        return vec![0];
    };
    let mut out: Vec<usize> = Vec::new();
    let mut add = |b: usize| {
        if !out.contains(&b) {
            out.push(b);
        }
    };
    if first > 0 {
        add(first);
    }
    add(target);
    add(0);
    add(least);
    add(least.saturating_sub(unit));
    // Bases no later line can carry come last: they leave lines untouched.
    let (fits, rest): (Vec<usize>, Vec<usize>) = out.into_iter().partition(|&b| b <= least);
    fits.into_iter().chain(rest).collect()
}

/// How many lines of a reading sit where their syntax says they should not,
/// in two tiers compared in order (the derived `Ord`): lines of the code's
/// blocks and statements first, then lines continued inside a bracket whose
/// first item follows it on the same line (`def f(a,` / `      b):`).
///
/// The second tier is weaker evidence. Such a line may sit under the
/// bracket's first item (visual indentation) or one step in (a hanging
/// indent), and real code also puts it elsewhere: tkinter's `Text.search`
/// continues its parameters at column 11, neither under `self` (15) nor one
/// step in from `def` (8). A reading that shifts all later lines by 4 lines
/// those up under `self` and misplaces only the body's first line, so with
/// one flat count it beat the unchanged layout; a block line outranks any
/// number of continuation lines. Yet when no block line votes (a one-line
/// function, `def barfoo2(x: int,` / `y: str): ...`), the continuation
/// lines alone must tell the aligned layout from the one that moves them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Penalty {
    /// Lines of the code's blocks and statements.
    pub block: usize,
    /// Lines continued inside a visually indented bracket.
    pub bracket: usize,
}

/// How many lines of the code at `code` (body offsets in `body`, parsed as
/// `tree`) sit where their syntax says they should not (see [`Penalty`]).
/// For each line after the first, the *anchor* is the nearest enclosing node
/// that starts on an earlier line:
/// - a line that ends its anchor (a closing `}` or `)`) belongs at the
///   anchor line's indentation;
/// - a line whose anchor starts before the code is a sibling of the code's
///   first line and belongs at its indentation;
/// - any other line is nested: never shallower than its anchor line, and
///   one step deeper when deeper at all, or, inside a bracket whose first
///   item follows it on its line, under that item.
///
/// Comments and lines that begin inside multi-line strings are not judged:
/// their leading whitespace is content, so a closing quote's column says
/// nothing about the reading (the dedented reading of a test whose raw
/// strings close at column 8 lost to a wrong one on exactly those lines).
/// Docstrings included: a docstring that opens on the `def` line and is
/// written from column 0, as CPython's `test_doctest.py` has them, closes
/// at column 0, where no reading of the code's lines can be told wrong.
///
/// A line whose text (trimmed) is among `old`'s `excused` is not judged:
/// the old symbol's own lines that sit where this judge cannot read them
/// ([`old_layout`]) are the file's layout, not evidence against a reading
/// (the JDK's `Configuration.getAppConfigurationEntry` continues its
/// header with `(String name);` 52 columns in, neither one nor two steps;
/// judged, it made the reading that moves it back to the header's own
/// column the only one with nothing out of place).
///
/// A line among `old`'s `continued` that a reading puts at its anchor
/// line's own column counts as a block line out of place. A continuation
/// outside brackets may sit there (Rust's `where`, a C return type on the
/// line above the name), so this judge cannot tell it wrong alone; but
/// the file had this line deeper, and the code sent says nothing else:
/// the JDK's `Watchable.register`, its parameters 10 columns in and
/// `throws` at 2 in steps of 2, reads flat (`throws` at the header's
/// column, the parameters two steps in) with nothing else out of place,
/// where the rescaled reading keeps `throws` one step in.
pub fn layout_penalty(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
    unit: usize,
    old: &OldLayout,
) -> Penalty {
    let mut penalty = Penalty::default();
    judge_layout(lang, tree, body, code, unit, |line, verdict| {
        let key = line.trim();
        match verdict {
            Verdict::Misplaced { .. } if old.excused.contains(key) => {}
            Verdict::Misplaced { aligned: true, .. } => penalty.bracket += 1,
            Verdict::Misplaced { .. } => penalty.block += 1,
            Verdict::Flat if old.continued.contains(key) => penalty.block += 1,
            Verdict::Flat | Verdict::Continued => {}
        }
    });
    penalty
}

/// What the old symbol's lines tell [`layout_penalty`] of the file's
/// layout (trimmed lines).
#[derive(Debug, Default)]
pub struct OldLayout {
    /// Lines the judge counts, with nothing excused, that sit more than two
    /// steps right of their anchor line, or inside a bracket at its anchor
    /// line's column: a layout of the file's the judge cannot read. A line
    /// off its step by a column or two stays judged: a reading that copies
    /// such a slip is worse than one that puts the line on its step (the
    /// JDK's `PipedInputStream` constructor has its body 5 columns in, in a
    /// file of 4). Except inside a bracket that ends its line (a hanging
    /// indent), right of the anchor line but off its steps: the file's
    /// layout too (the Python standard library's `test_http2time_formats`
    /// hangs a list's items one column in; its code sent in steps of 2 puts
    /// them two columns in when rescaled to the file's 4, and four only
    /// when every step is made 8: judged, sixteen items outvoted the two
    /// block lines that reading misplaces, and the method came back in
    /// steps of 8).
    pub excused: HashSet<String>,
    /// Lines continued outside brackets deeper than their anchor line
    /// ([`Verdict::Continued`]).
    pub continued: HashSet<String>,
}

/// [`OldLayout`] of the code at `code`.
pub fn old_layout(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
    unit: usize,
) -> OldLayout {
    let mut out = OldLayout::default();
    judge_layout(
        lang,
        tree,
        body,
        code,
        unit,
        |line, verdict| match verdict {
            Verdict::Misplaced { wide: true, .. } | Verdict::Misplaced { hanging: true, .. } => {
                out.excused.insert(line.trim().to_string());
            }
            Verdict::Continued => {
                out.continued.insert(line.trim().to_string());
            }
            _ => {}
        },
    );
    out
}

/// What [`judge_layout`] says of a line.
#[derive(Clone, Copy)]
enum Verdict {
    /// It sits where its syntax says it should not: continued inside a
    /// visually indented bracket (`aligned`, see [`layout_penalty`]) or
    /// not, and more than two steps right of its anchor line or flat
    /// inside a bracket (`wide`: what [`old_layout`] excuses); inside a
    /// bracket that ends its line, right of its anchor line but off its
    /// steps (`hanging`: what [`old_layout`] excuses too).
    Misplaced {
        aligned: bool,
        wide: bool,
        hanging: bool,
    },
    /// Continued outside brackets, deeper than its anchor line, in place.
    Continued,
    /// Continued outside brackets at its anchor line's own column.
    Flat,
}

/// Hand each line of the code at `code` that sits where its syntax says it
/// should not, or that continues a line outside brackets, to `verdict`
/// ([`Verdict`]).
fn judge_layout(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
    unit: usize,
    mut verdict: impl FnMut(&str, Verdict),
) {
    let bytes = body.as_bytes();
    let line_start = |p: usize| memchr::memrchr(b'\n', &bytes[..p]).map_or(0, |i| i + 1);
    let indent_at = |ls: usize| leading_ws(&body[ls..]).len();
    let first_ls = line_start(code.start.min(body.len()));
    let first_row = memchr::memchr_iter(b'\n', &bytes[..first_ls]).count();
    let first_indent = indent_at(first_ls);
    let mut ls = match memchr::memchr(b'\n', &bytes[first_ls..]) {
        Some(i) => first_ls + i + 1,
        None => return,
    };
    let mut row = first_row + 1;
    let mut walk = Ancestry::new(lang, tree);
    while ls < code.end.min(body.len()) {
        let le = memchr::memchr(b'\n', &bytes[ls..]).map_or(body.len(), |i| ls + i);
        let line = &body[ls..le];
        if !is_blank(line) && string_around(lang, walk.at(ls), ls).is_none() {
            let p = ls + leading_ws(line).len();
            if let Some(place) = place_at(walk.at(p), p, row)
                && !place.leaf().is_extra()
            {
                let (leaf, anchor) = (place.leaf(), place.anchor());
                let here = indent_at(ls);
                let anchor_row = anchor.start_position().row;
                let closes = place.closes();
                let aligned = (anchor_row < row)
                    .then(|| aligned_under(lang, &place))
                    .flatten()
                    .map(|(at, _)| column(bytes, at));
                // A body whose brace ends a continued header line (the
                // JDK's `throws X {` one or two steps in) belongs to the
                // line its definition or statement starts on.
                let anchor_indent =
                    || indent_at(line_start(place.anchor_line_node(lang, body).start_byte()));
                let misplaced = |wide: bool, hanging: bool| Verdict::Misplaced {
                    aligned: aligned.is_some(),
                    wide,
                    hanging,
                };
                let said = if anchor_row < row && closes {
                    (here != anchor_indent()).then(|| misplaced(false, false))
                } else if anchor_row < first_row || anchor_row >= row {
                    (here != first_indent).then(|| misplaced(false, false))
                } else {
                    // Inside a bracket, or starting with an operator (a
                    // C++ constructor's `: member(x)`, a `&& more`), a
                    // continuation may also sit two steps in (the JDK's
                    // and clang-format's continuation indent).
                    let base = anchor_indent();
                    // A line of a definition's or statement's header, not
                    // of its body (Java's `throws` clause), is a
                    // continuation too.
                    let in_header = bodies(lang, anchor).any(|b| b.start_byte() > p);
                    // A statement of a body in braces is one step in: the
                    // braces are a block's, not a continuation's.
                    let block = place
                        .parent_of_anchor()
                        .is_some_and(|owner| is_body_of(lang, owner, anchor));
                    let bracket = opens_with_bracket(anchor) && !block;
                    let steps = if bracket || is_punctuation(leaf) || in_header {
                        2
                    } else {
                        1
                    };
                    // A body's opening bracket on a line of its own may sit
                    // anywhere right of its header (the JDK's one-line
                    // methods put `{ return …; }` under a column of others).
                    let opens_body = bracketed_body_at(lang, anchor, p).is_some();
                    // Inside a bracket that is not a block, a line at its
                    // anchor line's own column continues nothing (the
                    // JDK's `CADistrustPolicy.checkDistrust`, sent in steps
                    // of 2, had its second parameter put there, under the
                    // header's first letter). Where the file itself does
                    // that, [`old_layout`] excuses it.
                    let flat = bracket && here == base && !opens_body;
                    // Under the anchor's own start, when it begins after
                    // text on its line: lined up with it (tkinter's
                    // `simpledialog` test continues `text="This…"` with
                    // strings under its first one, a column right of a
                    // step; judged as steps, the file's own layout was
                    // four lines out of place, and the reading that moved
                    // them a step right of `text=` beat it).
                    let at_anchor = column(bytes, anchor.start_byte());
                    let under_anchor = !bracket
                        && !closes
                        && at_anchor > base
                        && here == at_anchor
                        && !is_body_of(lang, anchor, place.below_anchor());
                    let wrong = here < base
                        || flat
                        || (here > base
                            && !opens_body
                            && !under_anchor
                            && !(1..=steps).any(|k| here - base == k * unit)
                            && Some(here) != aligned);
                    if wrong {
                        let wide = flat || here > base + 2 * unit;
                        let hanging = bracket && aligned.is_none() && here > base;
                        Some(misplaced(wide, hanging))
                    } else if block || bracket || opens_body {
                        None
                    } else if here == base {
                        Some(Verdict::Flat)
                    } else {
                        Some(Verdict::Continued)
                    }
                };
                if let Some(v) = said {
                    verdict(line, v);
                }
            }
        }
        ls = le + 1;
        row += 1;
    }
}

/// The token a line begins with, its *anchor* (the nearest enclosing node
/// that starts on an earlier line, the root when none does), and the nodes
/// that hold it, so that the tree between them is read with no
/// `Node::parent` climb (each one walks down from the root again).
struct Place<'c, 't> {
    /// The nodes holding the token, the token last.
    held: Held<'c, 't>,
    /// Where the anchor is in `held.chain`.
    anchor: usize,
}

impl<'t> Place<'_, 't> {
    fn chain(&self) -> &[Node<'t>] {
        self.held.chain
    }

    fn leaf(&self) -> Node<'t> {
        self.chain()[self.chain().len() - 1]
    }

    fn anchor(&self) -> Node<'t> {
        self.chain()[self.anchor]
    }

    /// The node the anchor is a child of (none for the root).
    fn parent_of_anchor(&self) -> Option<Node<'t>> {
        self.anchor.checked_sub(1).map(|i| self.chain()[i])
    }

    /// Does the token close the anchor (its last token, a `}`, `)` or
    /// Ruby's `end`, when its first is an opening token too)? The last
    /// token of a node that opens with a named one closes nothing: Java's
    /// `private`, the last of a method's modifiers after `@java.io.Serial`,
    /// is not a brace.
    fn closes(&self) -> bool {
        let (leaf, anchor) = (self.leaf(), self.anchor());
        !leaf.is_named()
            && self.anchor + 2 == self.chain().len()
            && anchor.end_byte() == leaf.end_byte()
            && anchor
                .child(0)
                .is_some_and(|open| !open.is_named() && open != leaf)
    }

    /// The node whose first line the line's step is counted from: the
    /// anchor, or, when the anchor is a body whose bracket ends a line of
    /// text begun on an earlier row (the JDK's `throws X {` one or two steps
    /// in), the definition or statement it is the body of.
    fn anchor_line_node(&self, lang: &Language, body: &str) -> Node<'t> {
        let anchor = self.anchor();
        let at = anchor.start_byte();
        let ls = memchr::memrchr(b'\n', &body.as_bytes()[..at]).map_or(0, |i| i + 1);
        let after_text = at - ls > leading_ws(&body[ls..]).len();
        self.parent_of_anchor()
            .filter(|owner| {
                after_text
                    && owner.start_position().row < anchor.start_position().row
                    && is_body_of(lang, *owner, anchor)
            })
            .unwrap_or(anchor)
    }

    /// The anchor's child that holds the token (the token itself when it
    /// is the anchor).
    fn below_anchor(&self) -> Node<'t> {
        self.chain()
            .get(self.anchor + 1)
            .copied()
            .unwrap_or(self.leaf())
    }
}

/// The [`Place`] of the token that begins at byte `p` (the first of the
/// line at `row`), from the nodes holding `p` ([`Ancestry::at`]).
fn place_at<'c, 't>(held: Held<'c, 't>, p: usize, row: usize) -> Option<Place<'c, 't>> {
    let chain = held.chain;
    let leaf = *chain.last()?;
    if leaf.start_byte() != p {
        return None;
    }
    let above = chain.len() - 1;
    let anchor = (0..above)
        .rev()
        .find(|&i| chain[i].start_position().row < row)
        .unwrap_or(0);
    Some(Place { held, anchor })
}

/// The nodes holding an offset ([`Ancestry::at`]).
#[derive(Clone, Copy)]
struct Held<'c, 't> {
    /// The root first and the smallest last.
    chain: &'c [Node<'t>],
    /// For each node of `chain`, where the outermost node of `chain` that
    /// starts where it does is: nested nodes that start together (a
    /// left-nested `a + b + c`, thousands deep in the JDK's generated
    /// character tables) are crossed in one step.
    runs: &'c [usize],
    /// For each node of `chain`, where the innermost comment or
    /// `[edit] verbatim` string of `chain` up to it is: a line's start is
    /// looked up among those alone, not along the whole chain.
    marks: &'c [Option<usize>],
}

impl<'t> Held<'_, 't> {
    /// Where in `chain` the comments and verbatim strings are, innermost
    /// first.
    fn marked(&self) -> impl Iterator<Item = usize> + '_ {
        let first = self.marks.last().copied().flatten();
        std::iter::successors(first, |&at| at.checked_sub(1).and_then(|up| self.marks[up]))
    }
}

/// The nodes holding each of a rising sequence of byte offsets
/// (`start <= at < end`), from one walk along the tree. `Node::parent`
/// walks down from the root again at each step up, and so does a fresh
/// walk down for each offset, scanning every earlier child of each node on
/// the way: over the lines of a file with thousands of members that is
/// quadratic (it was nearly all the time of an edit's layout judging in
/// Go's and Java's largest files). Here each level keeps a cursor on the
/// child it reached, so the lines of a whole file cost one pass over the
/// nodes that hold them.
struct Ancestry<'l, 't> {
    verbatim: &'l crate::lang::KindSet,
    root: Node<'t>,
    /// A cursor on the child of each node of `chain` the walk has reached
    /// (`false`: past its last child).
    cursors: Vec<(tree_sitter::TreeCursor<'t>, bool)>,
    chain: Vec<Node<'t>>,
    runs: Vec<usize>,
    marks: Vec<Option<usize>>,
    last: usize,
}

impl<'l, 't> Ancestry<'l, 't> {
    fn new(lang: &'l Language, tree: &'t Tree) -> Ancestry<'l, 't> {
        Ancestry {
            verbatim: &lang.kinds().verbatim,
            root: tree.root_node(),
            cursors: Vec::new(),
            chain: Vec::new(),
            runs: Vec::new(),
            marks: Vec::new(),
            last: 0,
        }
    }

    /// The nodes holding byte `at`. An offset less than the one asked
    /// before starts the walk again from the root.
    fn at(&mut self, at: usize) -> Held<'_, 't> {
        if at < self.last {
            while !self.chain.is_empty() {
                self.pop();
            }
        }
        self.last = at;
        while self.chain.last().is_some_and(|n| n.end_byte() <= at) {
            self.pop();
        }
        if self.chain.is_empty() && self.root.start_byte() <= at && at < self.root.end_byte() {
            self.push(self.root);
        }
        while let Some((cursor, more)) = self.cursors.last_mut() {
            while *more && cursor.node().end_byte() <= at {
                *more = cursor.goto_next_sibling();
            }
            let child = cursor.node();
            if !*more || child.start_byte() > at {
                break;
            }
            self.push(child);
        }
        Held {
            chain: &self.chain,
            runs: &self.runs,
            marks: &self.marks,
        }
    }

    fn push(&mut self, node: Node<'t>) {
        let run = match self.chain.last() {
            Some(up) if up.start_byte() == node.start_byte() => self.runs[self.runs.len() - 1],
            _ => self.chain.len(),
        };
        let mark = match is_comment(&node) || self.verbatim.contains(&node) {
            true => Some(self.chain.len()),
            false => self.marks.last().copied().flatten(),
        };
        let mut cursor = node.walk();
        let more = cursor.goto_first_child();
        self.cursors.push((cursor, more));
        self.chain.push(node);
        self.runs.push(run);
        self.marks.push(mark);
    }

    fn pop(&mut self) {
        self.cursors.pop();
        self.chain.pop();
        self.runs.pop();
        self.marks.pop();
    }
}

/// How each line of the code at `code` (body offsets in `body`, parsed as
/// `tree`) moves when its indentation is rescaled ([`Role`]): the first
/// line is a step line; a line inside a multi-line string literal (not a
/// docstring) or a blank one is fixed; a line inside a multi-line comment
/// or docstring follows the line above, and so does a whole bracketed body
/// on a line of its own; a line continued inside a bracket whose first item
/// follows it on its line (the same bracket [`layout_penalty`] lets a line
/// align under) is under it when at or right of that item, or hangs left
/// of it; a line that
/// begins with a comment is a comment; one that begins by closing what an
/// earlier line opened closes; any other is a step line.
pub fn roles(lang: &Language, tree: &Tree, body: &str, code: std::ops::Range<usize>) -> Vec<Role> {
    let bytes = body.as_bytes();
    let end = code.end.min(body.len());
    let start = code.start.min(end);
    let mut row = memchr::memchr_iter(b'\n', &bytes[..start]).count();
    let first_row = row;
    let mut out = vec![Role::Step];
    let first_eol = memchr::memchr(b'\n', &bytes[start..end]).map_or(end, |i| start + i);
    // The column a line lines up under to align with the item at `at`. An
    // item on the code's first line is counted from that line's start: the
    // first line is placed where the old one was, its later lines sent as
    // the agent wrote them, most often with the first line bare (the JDK's
    // `Cipher.checkCryptoPerm`, parameters two steps of 8 in, left of the
    // first parameter 29 columns in).
    // An item before the code's start (a C# record's first parameter, when
    // the code replaces the second) is the file's, where it stays.
    let item_column = |at: usize| match (start..first_eol).contains(&at) {
        true => column(bytes, at) - column(bytes, start),
        false => column(bytes, at),
    };
    let mut walk = Ancestry::new(lang, tree);
    for (ls, line) in later_lines(body, start..end) {
        row += 1;
        let (string, verbatim, comment) = match is_blank(line) {
            true => (false, false, false),
            false => {
                let held = walk.at(ls);
                let string = string_around(lang, held, ls);
                (
                    string.is_some(),
                    string.is_some_and(|i| !is_statement_string(lang, held, i)),
                    in_comment(held, ls),
                )
            }
        };
        out.push(if is_blank(line) || verbatim {
            Role::Fixed
        } else if comment || string {
            Role::Follow
        } else {
            let p = ls + leading_ws(line).len();
            let place = place_at(walk.at(p), p, row);
            match place.as_ref().map(|p| (p.leaf(), p.anchor())) {
                Some((leaf, _)) if is_comment(&leaf) => Role::Comment,
                // Under the bracket's first item or right of it: aligned.
                // Left of it, a hanging indent (resolv's
                // `msg.put_pack('nnnnnn',` / `@id,` one step in). An item on
                // the code's first line is measured from that line's start
                // (`item_column`). Not a line indented with tabs, whose
                // columns are not bytes.
                Some((_, anchor))
                    if anchor.start_position().row < row
                        && place.as_ref().is_some_and(Place::closes) =>
                {
                    Role::Close
                }
                // A whole body on a line of its own after its header
                // (`{ return x; }`) is placed, not stepped: it may sit
                // anywhere right of the header ([`layout_penalty`]), and
                // the JDK lines such bodies up in a column, 8 to 26 columns
                // in. Nothing nests under it, so its depth tells no unit.
                Some((_, anchor))
                    if anchor.start_position().row < row
                        && bracketed_body_at(lang, anchor, ls + leading_ws(line).len())
                            .is_some_and(|b| b.end_position().row == row) =>
                {
                    Role::Follow
                }
                Some((_, anchor)) if anchor.start_position().row < row => {
                    let in_spaces =
                        |at: usize| !tabbed(line) && !tabbed(&body[at - column(bytes, at)..]);
                    match place.as_ref().and_then(|p| aligned_under(lang, p)) {
                        Some((at, _))
                            if in_spaces(at) && leading_ws(line).len() < item_column(at) =>
                        {
                            Role::Hang
                        }
                        // Right of an item its anchor only begins, a line
                        // is a step in from the line above (doctrine's
                        // `. (method_exists(..)` / `    ? ''`).
                        Some((at, Through::FirstItem))
                            if leading_ws(line).len() != item_column(at) =>
                        {
                            Role::Step
                        }
                        // Under the item or right of it: aligned, unless
                        // its column is steps that happen to land there
                        // (see [`Role::Under`]).
                        Some((at, _)) if in_spaces(at) => Role::Under,
                        Some((at, _)) if leading_ws(line).len() == column(bytes, at) => Role::Under,
                        Some(_) => Role::Follow,
                        None if anchor.start_position().row >= first_row
                            && place.as_ref().is_some_and(|p| continues_outside(lang, p)) =>
                        {
                            Role::Continued
                        }
                        None => Role::Step,
                    }
                }
                _ => Role::Step,
            }
        });
    }
    out
}

/// For each line of the code at `code` (body offsets in `body`, parsed as
/// `tree`) that is a member or statement of a block, the line of the code
/// (its index, the first line 0) its step is counted from: the line its
/// block's definition or statement starts on when the block opens after
/// text on its line (`void f() {`), else the block's own line; for the line
/// that begins a body (Python's first statement under its `def`), the
/// line its owner starts on. `None` for any other line, and for a line
/// whose block starts before the code.
///
/// Steps counted this way are a block's alone ([`super::rescale::block_units`]):
/// items of a bracket that hang far from their opener and lines continued
/// outside brackets tell nothing of them (the JDK's generated
/// `SocketOptionRegistry` puts a call's arguments 42, 52 and 54 columns in,
/// under a line 16 in: counted from the line above, each call stepped 2).
pub fn block_anchors(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
) -> Vec<Option<usize>> {
    let bytes = body.as_bytes();
    let end = code.end.min(body.len());
    let start = code.start.min(end);
    let first_row = memchr::memchr_iter(b'\n', &bytes[..start]).count();
    let mut out = vec![None];
    let mut row = first_row;
    let mut walk = Ancestry::new(lang, tree);
    for (ls, line) in later_lines(body, start..end) {
        row += 1;
        let p = ls + leading_ws(line).len();
        let from = match is_blank(line) || string_around(lang, walk.at(ls), ls).is_some() {
            true => None,
            false => place_at(walk.at(p), p, row)
                .filter(|place| !place.leaf().is_extra() && !place.closes())
                .and_then(|place| {
                    let (anchor, below) = (place.anchor(), place.below_anchor());
                    match place.parent_of_anchor() {
                        Some(owner) if is_body_of(lang, owner, anchor) => {
                            Some(place.anchor_line_node(lang, body))
                        }
                        _ if below.start_byte() == p && is_body_of(lang, anchor, below) => {
                            Some(anchor)
                        }
                        _ => None,
                    }
                })
                .and_then(|from| from.start_position().row.checked_sub(first_row)),
        };
        out.push(from);
    }
    out
}

/// The lines of `body` that begin inside `code` after its first, each
/// with the offset it starts at (a line runs past `code`'s end to its own).
fn later_lines(body: &str, code: std::ops::Range<usize>) -> impl Iterator<Item = (usize, &str)> {
    let bytes = body.as_bytes();
    memchr::memchr_iter(b'\n', &bytes[code.clone()]).map(move |nl| {
        let ls = code.start + nl + 1;
        let le = memchr::memchr(b'\n', &bytes[ls..]).map_or(body.len(), |i| ls + i);
        (ls, &body[ls..le])
    })
}

/// Does `line`'s indentation hold a tab?
fn tabbed(line: &str) -> bool {
    leading_ws(line).contains('\t')
}

/// The column of byte `at` of `bytes`, in bytes from its line's start.
fn column(bytes: &[u8], at: usize) -> usize {
    let at = at.min(bytes.len());
    at - memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1)
}

/// The indentation unit of the code at `code` (body offsets in `body`,
/// parsed as `tree`) as its own lines show it ([`super::rescale::steps_unit`]
/// over its [`roles`], depths relative to its first line), if any line of
/// it goes a step deeper.
pub fn code_unit(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
) -> Option<usize> {
    code_units(lang, tree, body, code).first().copied()
}

/// Every unit [`code_unit`] could read, smallest first: several when the
/// code's most frequent steps tie ([`super::rescale::steps_units`]).
pub fn code_units(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
) -> Vec<usize> {
    code_steps(lang, tree, body, code).units
}

/// The units the lines of some code show, read several ways ([`code_steps`]).
pub struct Steps {
    /// [`code_units`].
    pub units: Vec<usize>,
    /// The narrowest step the code takes ([`super::rescale::narrowest_step`]).
    pub narrowest: Option<usize>,
    /// The units its steps show when a continued line nests what follows
    /// it, as the file's own unit is read ([`super::rescale::file_step_counts`]).
    pub nested: Vec<usize>,
    /// The units its blocks' lines show ([`super::rescale::block_units`]).
    pub blocks: Vec<usize>,
}

/// The [`Steps`] of the code at `code` (body offsets in `body`, parsed as
/// `tree`), from one reading of its roles.
pub fn code_steps(lang: &Language, tree: &Tree, body: &str, code: std::ops::Range<usize>) -> Steps {
    let bytes = body.as_bytes();
    let ls = memchr::memrchr(b'\n', &bytes[..code.start.min(body.len())]).map_or(0, |i| i + 1);
    let first = leading_ws(&body[ls..]).len();
    let text = &body[code.start.min(body.len())..code.end.min(body.len())];
    let depths: Vec<Option<usize>> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| match i {
            0 => Some(0),
            _ if leading_ws(l).contains('\t') => None,
            _ => leading_ws(l).len().checked_sub(first),
        })
        .collect();
    let roles = roles(lang, tree, body, code.clone());
    let nested = super::rescale::file_step_counts(&depths, &roles);
    let most = nested.iter().copied().max().unwrap_or(0);
    Steps {
        units: super::rescale::steps_units(&depths, &roles),
        narrowest: super::rescale::narrowest_step(&depths, &roles),
        nested: (1..nested.len())
            .filter(|&w| most > 0 && nested[w] == most)
            .collect(),
        blocks: block_units(&depths, &block_anchors(lang, tree, body, code)),
    }
}

/// Every width the Step lines of `depths` go deeper most often, counted as
/// a file's are ([`super::rescale::file_step_counts`]: a continued line
/// nests what follows it), smallest first.
fn nested_units(depths: &[Option<usize>], roles: &[Role]) -> Vec<usize> {
    let counts = super::rescale::file_step_counts(depths, roles);
    let most = counts.iter().copied().max().unwrap_or(0);
    (1..counts.len())
        .filter(|&w| most > 0 && counts[w] == most)
        .collect()
}

/// The smallest of [`nested_units`], if any.
pub fn nested_unit(depths: &[Option<usize>], roles: &[Role]) -> Option<usize> {
    nested_units(depths, roles).first().copied()
}

/// The first item of `node` when `node` opens with a bracket and that item
/// follows the bracket on the same line (`(a,` of `def f(a,` / `b)`): the
/// byte offset its continued lines may line up under. Read from the tree
/// alone, so no language names its brackets: the opening child is an
/// anonymous token with no letter or digit in it (a keyword such as `def`
/// or `class` is not a bracket, and its name is not an item).
fn aligned_item(node: Node<'_>) -> Option<usize> {
    // `child(1)`, not `open.next_sibling()`: a sibling is found through
    // the parent, which walks down from the root again.
    let open = node.child(0)?;
    let item = node.child(1)?;
    (opens_with_bracket(node)
        && !item.is_extra()
        && item.start_position().row == open.end_position().row)
        .then(|| item.start_byte())
}

/// How a line lines up with a bracket's first item ([`aligned_under`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Through {
    /// The anchor is the bracket.
    Bracket,
    /// The anchor is the bracket's first item.
    FirstItem,
}

/// Where a line at `place` may line up: the [`aligned_item`] of its anchor,
/// or, when the anchor is itself a bracket's first item and opens with no
/// bracket of its own, that item (the JDK's `(ch == 0xff || ch == 0xb5 ||`
/// / ` ch == 0x49 ||`: the anchor is the `||` chain, which starts right
/// after the bracket; zod's `z.object({` / `hello: …` is anchored at the
/// `{`, whose lines are its own). Not when the line
/// begins the anchor's body (a `symbols.body_fields` field) or closes it:
/// the statements of Ruby's `x.select { |a, b|` block follow its parameters
/// on the bracket's line, yet are a block's lines, counted in steps, and
/// its `}` goes back to the line that opened it.
fn aligned_under(lang: &Language, place: &Place<'_, '_>) -> Option<(usize, Through)> {
    let anchor = place.anchor();
    let at = match aligned_item(anchor) {
        Some(at) => (at, Through::Bracket),
        None if !opens_with_bracket(anchor) => (first_item_of_bracket(place)?, Through::FirstItem),
        None => return None,
    };
    if place.closes() {
        return None;
    }
    (!is_body_of(lang, anchor, place.below_anchor())).then_some(at)
}

/// The start of `place`'s anchor when it is the first item of a bracket
/// ([`aligned_item`]), directly or as the first of nodes that all start
/// where it does (a left-nested `a || b || c` is `(a || b) || c`): then the
/// bracket is the node around the outermost of them (a node that starts
/// where its bracket does has no item there).
fn first_item_of_bracket(place: &Place<'_, '_>) -> Option<usize> {
    let start = place.anchor().start_byte();
    let outer = place.held.runs[place.anchor].checked_sub(1)?;
    (aligned_item(place.chain()[outer]) == Some(start)).then_some(start)
}

/// Does the line whose first token is at `place` continue its anchor line
/// outside brackets ([`Role::Continued`])? Not when it closes its anchor,
/// when its anchor is the root, a body (a `symbols.body_fields` field:
/// the line is a statement or member of a block) or a bracket, or when the
/// line begins its anchor's body (Python's first statement under its
/// `def`, a brace on a line of its own).
fn continues_outside(lang: &Language, place: &Place<'_, '_>) -> bool {
    let anchor = place.anchor();
    let below = place.below_anchor();
    place.anchor > 0
        && !place.closes()
        && !opens_with_bracket(anchor)
        && !place
            .parent_of_anchor()
            .is_some_and(|owner| is_body_of(lang, owner, anchor))
        && (below.start_byte() != place.leaf().start_byte() || !is_body_of(lang, anchor, below))
}

/// Is `node` the body of `owner` (a `symbols.body_fields` field)?
fn is_body_of(lang: &Language, owner: Node<'_>, node: Node<'_>) -> bool {
    bodies(lang, owner).any(|b| b == node)
}

/// The children of `owner` in its `symbols.body_fields` fields.
fn bodies<'t>(lang: &Language, owner: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    lang.rules()
        .body_fields
        .iter()
        .filter_map(move |f| owner.child_by_field_name(f))
}

/// The body of `owner` (a `symbols.body_fields` field) that opens with a
/// bracket at byte `p`: a body's opening bracket on a line of its own.
fn bracketed_body_at<'t>(lang: &Language, owner: Node<'t>, p: usize) -> Option<Node<'t>> {
    bodies(lang, owner).find(|b| b.start_byte() == p && opens_with_bracket(*b))
}

/// Is `node` an anonymous token with no letter or digit in it (an
/// operator or punctuation, never a keyword)?
fn is_punctuation(node: Node<'_>) -> bool {
    !node.is_named() && !node.kind().chars().any(char::is_alphanumeric)
}

/// Does `node` open with a bracket: an anonymous token with no letter or
/// digit in it (read from the tree, so no language names its brackets)?
fn opens_with_bracket(node: Node<'_>) -> bool {
    node.child(0).is_some_and(is_punctuation)
}

/// For each line of the code at `code` (body offsets in `body`, parsed as
/// `tree`), whether it begins inside a multi-line string literal (a node of
/// a kind in `[edit] verbatim`): its bytes, leading whitespace included,
/// are content, so re-indenting must not move it. A string that is a
/// statement of its own (the `symbols.docstring` shape: a docstring) is
/// documentation laid out with the code and is not verbatim. The first line
/// never is.
pub fn verbatim_lines(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
) -> Vec<bool> {
    per_line(lang, tree, body, code, |held, ls| {
        string_around(lang, held, ls).is_some_and(|i| !is_statement_string(lang, held, i))
    })
}

/// `[false]` for the code's first line, then `f(nodes holding its start,
/// line start)` for each following line of `body[code]`.
fn per_line(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
    f: impl Fn(Held<'_, '_>, usize) -> bool,
) -> Vec<bool> {
    let end = code.end.min(body.len());
    let start = code.start.min(end);
    let mut walk = Ancestry::new(lang, tree);
    let mut out = vec![false];
    for nl in memchr::memchr_iter(b'\n', &body.as_bytes()[start..end]) {
        let ls = start + nl + 1;
        out.push(f(walk.at(ls), ls));
    }
    out
}

/// A comment: an extra node that is not an error. Error recovery wraps
/// skipped text in extra `ERROR` nodes, which are code the parse could not
/// place: their lines are layout (code placed at a wrong column in a Python
/// block is one such error, and counting its lines as comment lines left
/// the code's own tabs unconverted).
fn is_comment(n: &tree_sitter::Node) -> bool {
    n.is_extra() && !n.is_error()
}

/// For each line of the code at `code` (as in [`verbatim_lines`]), whether
/// it begins inside a multi-line string of any kind (docstrings included)
/// or a multi-line comment: its leading whitespace belongs to the string
/// or comment, not to the code's indentation.
pub fn content_lines(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
) -> Vec<bool> {
    per_line(lang, tree, body, code, |held, ls| {
        in_comment(held, ls) || string_around(lang, held, ls).is_some()
    })
}

/// For each line of the code at `code` (as in [`verbatim_lines`]), whether
/// it begins inside a multi-line comment.
pub fn comment_lines(
    lang: &Language,
    tree: &Tree,
    body: &str,
    code: std::ops::Range<usize>,
) -> Vec<bool> {
    per_line(lang, tree, body, code, in_comment)
}

/// Whether byte `ls` lies strictly inside a comment (`held`: the nodes
/// holding it, [`Ancestry::at`]).
fn in_comment(held: Held<'_, '_>, ls: usize) -> bool {
    held.marked().any(|at| {
        let n = held.chain[at];
        is_comment(&n) && n.start_byte() < ls
    })
}

/// Where in `held` (the nodes holding `ls`) the multi-line string is (a
/// node of a kind in `[edit] verbatim`, docstrings included:
/// [`is_statement_string`] tells them) that the line starting at `ls`
/// begins inside, if it does.
fn string_around(lang: &Language, held: Held<'_, '_>, ls: usize) -> Option<usize> {
    let kinds = &lang.kinds().verbatim;
    held.marked().find(|&at| {
        let n = held.chain[at];
        kinds.contains(&n) && n.start_byte() < ls
    })
}

/// Is the string at `held.chain[at]` a statement of its own
/// (`symbols.docstring` read from the inside out: `string` whose parent is
/// an `expression_statement`)?
fn is_statement_string(lang: &Language, held: Held<'_, '_>, at: usize) -> bool {
    let kinds = &lang.rules().docstring;
    !kinds.is_empty()
        && at + 1 >= kinds.len()
        && kinds
            .iter()
            .rev()
            .enumerate()
            .all(|(up, kind)| held.chain[at - up].kind() == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_put_the_likely_base_first() {
        // extract_code's shape of a method at column 4: body at 8.
        assert_eq!(readings(&["def f():", "        return 1"], 4, 4), [4, 0, 8]);
        // Dedented: body at 4, target 4.
        assert_eq!(readings(&["def f():", "    return 1"], 4, 4), [4, 0]);
        // Every line at the target's depth.
        assert_eq!(readings(&["    def f():", "        x"], 4, 4), [4, 0, 8]);
        // A closing line at column 0 leaves 0 as the only clean base.
        assert_eq!(readings(&["fn f() {", "    1", "}"], 4, 4), [0, 4]);
        // One line: nothing to read.
        assert_eq!(readings(&["x = 1"], 4, 4), [0]);
    }

    #[test]
    fn an_item_before_the_code_on_its_first_line_is_the_files() {
        // The code replaces `b` in `f(a, b,` / `  c)`: `a` is left of it.
        let reg = crate::lang::Registry::builtin();
        let lang = reg.by_name("python").unwrap();
        let text = "f(a, b,\n  c)\n";
        let tree = crate::symbols::parse_tree(lang, text, None).unwrap();
        assert_eq!(
            roles(lang, &tree, text, 5..text.len() - 1),
            [Role::Step, Role::Under]
        );
    }

    /// `(language, code, each line's role)`: the code is the whole text.
    fn check_roles(lang: &str, code: &str, expect: &[Role]) {
        let reg = crate::lang::Registry::builtin();
        let lang = reg.by_name(lang).unwrap();
        let tree = crate::symbols::parse_tree(lang, code, None).unwrap();
        assert_eq!(roles(lang, &tree, code, 0..code.len()), expect, "{code}");
    }

    #[test]
    fn roles_tell_steps_from_placed_lines() {
        use Role::*;
        // The JDK's `Pattern.bitsOrSingle`: each continued line's anchor is
        // a `&&` or `||` chain that is a bracket's first item, so it lines
        // up under that item (or hangs left of it), as under the bracket.
        check_roles(
            "java",
            "class P {\n  int f(int ch) {\n    if (ch < 256 &&\n      !(a(1) && a(2) &&\n        (ch == 0xff || ch == 0xb5 ||\n         ch == 0x49))) {\n      b(ch);\n    }\n  }\n}",
            &[
                Step, Step, Step, Hang, Under, Under, Step, Close, Close, Close,
            ],
        );
        // A whole body on its own line after its header is placed, not
        // stepped (the JDK's `Collections` lines them up in a column); a
        // body that goes on is stepped.
        check_roles(
            "java",
            "class C {\n  int f(int k)\n                { return k; }\n  int g(int k)\n  {\n    return k;\n  }\n}",
            &[Step, Step, Follow, Step, Step, Step, Close, Close],
        );
        // Right of a bracket's first item is aligned too; left of an item
        // on the code's first line hangs, measured from that line's start
        // (the JDK's `Collectors.toSet`, `Cipher.checkCryptoPerm`).
        check_roles(
            "java",
            "void checkCryptoPerm(int a,\n        int c) {\n  return g(a,\n             b);\n}",
            &[Step, Hang, Step, Under, Close],
        );
        // A line that continues outside brackets (`throws`, an operand of
        // a chain written down the page) is continued; a member, a
        // statement, and Python's first statement under its `def` (which
        // begins the body) are steps, and so is an item of a bracket.
        check_roles(
            "java",
            "interface A {\n  void a(int s)\n      throws X;\n  int b = 1 +\n      2;\n  int[] c = {\n    1,\n  };\n}",
            &[
                Step, Step, Continued, Step, Continued, Step, Step, Close, Close,
            ],
        );
        check_roles(
            "python",
            "def f():\n    a = 1\n    return (a +\n            2)\n",
            &[Step, Step, Step, Under, Fixed],
        );
    }

    /// Block lines count their step from their block's line: a statement
    /// from its method's header (its `{` ends that line), a member from
    /// its class's; Python's first statement from its `def`, the next one
    /// from the first (where its block starts). Continued lines, items
    /// of a bracket and closers are no block's lines.
    #[test]
    fn block_lines_count_from_their_blocks_line() {
        let check = |lang: &str, code: &str, expect: &[Option<usize>]| {
            let reg = crate::lang::Registry::builtin();
            let lang = reg.by_name(lang).unwrap();
            let tree = crate::symbols::parse_tree(lang, code, None).unwrap();
            assert_eq!(
                block_anchors(lang, &tree, code, 0..code.len()),
                expect,
                "{code}"
            );
        };
        check(
            "java",
            "class A {\n  int f(int s)\n      throws X {\n    g(1,\n      2);\n    int[] c = {\n      1,\n    };\n  }\n}",
            &[
                None,
                Some(0),
                None,
                Some(1),
                None,
                Some(1),
                None,
                None,
                None,
                None,
            ],
        );
        check(
            "python",
            "def f():\n    a = 1\n    if a:\n        b()\n",
            &[None, Some(0), Some(1), None, None],
        );
    }

    /// The nodes holding `at`, by a fresh walk down from the root with
    /// `TreeCursor::goto_first_child_for_byte`: what [`Ancestry`] must give.
    fn walked_down(tree: &Tree, at: usize) -> Vec<Node<'_>> {
        let mut cursor = tree.walk();
        let root = cursor.node();
        let mut out = Vec::new();
        if !(root.start_byte() <= at && at < root.end_byte()) {
            return out;
        }
        out.push(root);
        while cursor.goto_first_child_for_byte(at).is_some() && cursor.node().start_byte() <= at {
            out.push(cursor.node());
        }
        out
    }

    /// Every fixture file of every language, each line start and first
    /// token, rising: [`Ancestry`] gives the chain a walk down from the root
    /// gives, its runs start where nodes start together, and its marks are
    /// the comments and verbatim strings of the chain, innermost first.
    #[test]
    fn one_walk_along_the_tree_holds_what_a_walk_down_from_the_root_holds() {
        let reg = crate::lang::Registry::builtin();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut files = 0;
        for lang_dir in std::fs::read_dir(&dir).unwrap().flatten() {
            for file in std::fs::read_dir(lang_dir.path()).unwrap().flatten() {
                let path = file.path();
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let Some(lang) = reg.detect(&path, Some(&text)) else {
                    continue;
                };
                let tree = crate::symbols::parse_tree(lang, &text, None).unwrap();
                files += 1;
                let mut walk = Ancestry::new(lang, &tree);
                let mut ls = 0;
                loop {
                    let line = &text[ls..];
                    let line = &line[..line.find('\n').unwrap_or(line.len())];
                    for at in [ls, ls + leading_ws(line).len()] {
                        let held = walk.at(at);
                        assert_eq!(held.chain, walked_down(&tree, at), "{path:?} at {at}");
                        for (i, n) in held.chain.iter().enumerate() {
                            let run = held.runs[i];
                            assert_eq!(held.chain[run].start_byte(), n.start_byte());
                            assert!(run == 0 || held.chain[run - 1].start_byte() != n.start_byte());
                        }
                        let marked: Vec<usize> = (0..held.chain.len())
                            .rev()
                            .filter(|&i| {
                                let n = held.chain[i];
                                is_comment(&n) || lang.kinds().verbatim.contains(&n)
                            })
                            .collect();
                        assert_eq!(
                            held.marked().collect::<Vec<_>>(),
                            marked,
                            "{path:?} at {at}"
                        );
                    }
                    match text[ls..].find('\n') {
                        Some(i) => ls += i + 1,
                        None => break,
                    }
                }
            }
        }
        assert!(files >= 20, "{files} fixture files");
    }
}
