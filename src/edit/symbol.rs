//! Planning a symbol edit: replace, insert before/after, delete. New code is
//! fitted to its place: re-indented to the target's indentation, given the
//! file's line endings and indentation style; inserted definitions are
//! separated by the file's own blank-line convention; deletions take their
//! blank lines with them tidily.
//!
//! **Invariant:** `replace(S, extract(S).code)` yields the file unchanged,
//! byte for byte, and no edit changes a byte outside the symbol's lines.

use super::indent;
use crate::error::{Error, Result};
use crate::source::{Eol, Indent, SourceText};
use crate::symbols::{ParsedFile, Symbol};
use crate::text::indent::{is_blank, leading_ws, spaces_to_tabs, tabs_to_spaces};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What to do with the addressed symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Replace the symbol's whole range (as `extract_code` returns it).
    Replace,
    /// Insert a new definition before the symbol (and its decorators/docs).
    InsertBefore,
    /// Insert a new definition after the symbol.
    InsertAfter,
    /// Remove the symbol and the blank lines it leaves behind.
    Delete,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Replace => "replace",
            Operation::InsertBefore => "insert_before",
            Operation::InsertAfter => "insert_after",
            Operation::Delete => "delete",
        }
    }

    pub fn parse(s: &str) -> Result<Operation> {
        match s.replace('-', "_").as_str() {
            "replace" => Ok(Operation::Replace),
            "insert_before" => Ok(Operation::InsertBefore),
            "insert_after" => Ok(Operation::InsertAfter),
            "delete" => Ok(Operation::Delete),
            _ => Err(
                Error::invalid_argument(format!("unknown operation `{s}`")).with_suggestion(
                    "set ⟦operation⟧ to replace, insert_before, insert_after or delete",
                ),
            ),
        }
    }
}

/// The planned result: the whole new content and where it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolEdit {
    pub new_text: String,
    /// File offsets: `old_start..old_end` in the old text became
    /// `old_start..new_end` in the new text.
    pub old_start: usize,
    pub old_end: usize,
    pub new_end: usize,
    /// Where the new code itself sits in the new text (empty for delete).
    pub code_start: usize,
    pub code_end: usize,
}

/// How much of the target's leading trivia a replacement overwrites.
///
/// The rule: leading trivia (decorators, attributes, doc comments) is kept
/// when the new code brings none and replaced when it brings its own. Trivia
/// comes in two parts: whole lines above the definition line (`@property`,
/// `#[inline]`, `/// doc`, JSDoc) and a prefix on the definition line itself
/// (`export `, `export default `); each part is kept unless the new code has
/// that part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Replace the whole range, trivia included.
    All,
    /// Keep the trivia lines; replace from the definition line on.
    FromDefinitionLine,
    /// Keep the trivia lines and the prefix: replace the bare definition.
    BareDefinition,
}

/// Where a replacement starts for `overwrite`.
pub fn replace_start(src: &SourceText, target: &Symbol, overwrite: Overwrite) -> usize {
    let full = target.full_span().start_byte;
    let bare = target.bare_span().start_byte;
    match overwrite {
        Overwrite::All => full,
        Overwrite::BareDefinition => bare,
        Overwrite::FromDefinitionLine => {
            let text = src.text.as_str();
            let ls = line_start(text, bare).max(full);
            ls + leading_ws(&text[ls..bare]).len()
        }
    }
}

/// The leading trivia of `target` that a replacement starting at `start`
/// keeps, one entry per item: a run of comments (the tree's extras) as `the
/// 41-line doc comment`, anything else (an attribute, a decorator) by its
/// first line, shortened. Read from the tree, so no language is named.
pub fn kept_trivia(file: &ParsedFile, target: &Symbol, start: usize) -> Vec<String> {
    let full = target.full_span().start_byte;
    if start <= full {
        return Vec::new();
    }
    let offset = file.source.body_offset();
    let (from, to) = (full.saturating_sub(offset), start.saturating_sub(offset));
    // The outermost nodes lying wholly in the trivia, in document order.
    let mut items: Vec<tree_sitter::Node> = Vec::new();
    let mut cursor = file.tree.root_node().walk();
    let mut stack = vec![file.tree.root_node()];
    while let Some(node) = stack.pop() {
        let children: Vec<_> = node.children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            if child.end_byte() <= from || child.start_byte() >= to {
                continue;
            }
            if from <= child.start_byte() && child.end_byte() <= to {
                items.push(child);
            } else {
                stack.push(child);
            }
        }
    }
    items.sort_by_key(|n| n.start_byte());
    let body = file.source.body();
    let mut kept: Vec<String> = Vec::new();
    let mut comment_rows: Option<(usize, usize)> = None;
    let close = |rows: &mut Option<(usize, usize)>, kept: &mut Vec<String>| {
        if let Some((first, last)) = rows.take() {
            kept.push(format!("the {}-line doc comment", last - first + 1));
        }
    };
    for item in items {
        let (first, end) = (item.start_position(), item.end_position());
        let first = first.row;
        // A node that ends with its newline ends on the line before.
        let last = if end.column == 0 && end.row > first {
            end.row - 1
        } else {
            end.row
        };
        if item.is_extra() {
            comment_rows = Some(comment_rows.map_or((first, last), |(f, _)| (f, last)));
            continue;
        }
        close(&mut comment_rows, &mut kept);
        let line = body[item.start_byte()..item.end_byte()]
            .lines()
            .next()
            .unwrap_or("")
            .trim();
        let mut shown: String = line.chars().take(40).collect();
        if shown.len() < line.len() {
            shown.push('…');
        }
        kept.push(shown);
    }
    close(&mut comment_rows, &mut kept);
    kept
}

/// Plan `op` on `target` of `file`. `code` is required except for delete.
/// A write of new code may have several readings of its indentation (see
/// [`indent::readings`]): one plan per reading, most likely first; the
/// caller validates them and keeps the best. Delete has one plan.
pub fn plan(
    file: &ParsedFile,
    target: &Symbol,
    op: Operation,
    code: Option<&str>,
    overwrite: Overwrite,
    style: Indent,
) -> Result<Vec<SymbolEdit>> {
    let src = &file.source;
    let text = src.text.as_str();
    let span = target.full_span();
    let nl = src.profile.newline();
    let needs_code = || -> Result<&str> {
        match code {
            Some(c) if !c.trim().is_empty() => Ok(c),
            _ => Err(Error::invalid_argument(format!(
                "{} needs new code, and the code given is empty",
                op.as_str()
            ))
            .with_suggestion(if op == Operation::Replace {
                "to remove the symbol use ⟦operation=delete⟧; otherwise pass ⟦new_code⟧"
            } else {
                "pass the code of the definition to insert"
            })),
        }
    };
    let original = &text[span.start_byte..span.end_byte];
    match op {
        Operation::Replace => {
            let start = replace_start(src, target, overwrite);
            let ctx = Ctx::new(file, target, start, style).with_own_style(file, target);
            // Keep whatever line terminator the original range ended with.
            let trail = &original[original.trim_end_matches(['\r', '\n']).len()..];
            let code = needs_code()?;
            let masks = line_masks(file, start..span.end_byte - trail.len(), "", code, "")?;
            let mut readings = fit(code, &masks, &ctx, src);
            // Code that brings its own leading comment, over a definition
            // whose line sits at another column than its comment's, may be
            // laid out from the definition's line: the Python standard
            // library's `test_compile_top_level_await_invalid_cases` has a
            // comment at 9 over an `async def` at 8, and its code sent
            // dedented placed the `def` at 9, under which its block's end
            // at 8 matched no outer level. The judge ([`choose`]) weighs
            // these readings after the others.
            if let Some(at_def) = ctx.at_definition_line(file, target, start) {
                for r in fit(code, &masks, &at_def, src) {
                    if !readings.contains(&r) {
                        readings.push(r);
                    }
                }
            }
            let old = &text[start..span.end_byte - trail.len()];
            if src.profile.eol == Eol::Mixed {
                for r in &mut readings {
                    *r = keep_old_endings(r, old);
                }
            }
            prefer_old_layout(&mut readings, old, &masks.roles, &ctx);
            Ok(readings
                .into_iter()
                .map(|mut fitted| {
                    fitted.push_str(trail);
                    splice(text, start, span.end_byte, &fitted, 0)
                })
                .collect())
        }
        Operation::InsertBefore => {
            let ctx = Ctx::new(file, target, span.start_byte, style);
            let gap = blank_gap(file, target, Side::Before);
            let code = needs_code()?;
            let at = span.start_byte;
            let masks = line_masks(file, at..at, "", code, nl)?;
            Ok(fit(code, &masks, &ctx, src)
                .into_iter()
                .map(|fitted| {
                    let insert = format!("{fitted}{}{}", nl.repeat(gap + 1), ctx.indent);
                    splice(text, span.start_byte, span.start_byte, &insert, 0)
                })
                .collect())
        }
        Operation::InsertAfter => {
            let ctx = Ctx::new(file, target, span.start_byte, style);
            let gap = blank_gap(file, target, Side::After);
            // After the rest of the line (a `;`, a trailing comment), unless
            // another definition starts on that same line.
            let eol = line_end(text, span.end_byte);
            let shares_line = file.symbols.iter().any(|s| {
                s.full_span().start_byte >= span.end_byte && s.full_span().start_byte < eol
            });
            let at = if shares_line { span.end_byte } else { eol };
            let lead = format!("{}{}", nl.repeat(gap + 1), ctx.indent);
            let code = needs_code()?;
            let masks = line_masks(file, at..at, &lead, code, "")?;
            Ok(fit(code, &masks, &ctx, src)
                .into_iter()
                .map(|fitted| {
                    let insert = format!("{lead}{fitted}");
                    splice(text, at, at, &insert, lead.len())
                })
                .collect())
        }
        Operation::Delete => Ok(vec![delete(file, target)]),
    }
}

/// Where the target sits: the indentation of its first line.
#[derive(Clone)]
struct Ctx {
    indent: String,
    /// The file's indentation style, read from its layout lines
    /// ([`indent::file_style`]).
    style: Indent,
    /// The unit new code's indentation is rescaled to: the target's own
    /// (a file that mixes units keeps each symbol's), else the file's.
    unit: usize,
    /// The least column a line of code may keep: the symbol's own column,
    /// or, for a replacement whose old lines sit further left (a doc
    /// comment one space deeper than its property), the least of those.
    floor: usize,
    /// The narrowest step the target's own lines take
    /// ([`indent::narrowest_step`]).
    narrowest: Option<usize>,
    /// The code replaces the target ([`Ctx::with_own_style`]): code laid
    /// out in the target's own unit is placed as it is only when it shows
    /// the target's narrowest step too (see [`fit`]).
    replacing: bool,
}

impl Ctx {
    fn new(file: &ParsedFile, target: &Symbol, start: usize, style: Indent) -> Ctx {
        let src = &file.source;
        let text = &src.text;
        let ls = line_start(text, start).max(src.body_offset());
        let line = &text[ls..];
        let ws_len = line.len() - line.trim_start_matches([' ', '\t']).len();
        // Read from the definition's line, not its leading trivia's: the
        // JDK's `RandomGenerator.of` has its doc comment one column right of
        // it, and from there its body reads as one step of 3.
        // When its most frequent steps tie, the file's unit if it is one of
        // them (the JDK's `Math.multiplyExact` goes 3, 4 and 5 deeper once
        // each, the 3 and 5 an `if` one column left of its place), or if
        // its steps show the file's unit when counted as the file's are,
        // continued lines nesting what follows (the JDK's
        // `BreakIteratorRules.getContents` concatenates strings under an
        // aligned item 2 columns right of its `{`: counted from the `{`,
        // steps of 2 outnumber its blocks' steps of 4).
        let offset = src.body_offset();
        let steps = indent::code_steps(
            &file.language,
            &file.tree,
            src.body(),
            target.bare_span().start_byte - offset..target.full_span().end_byte - offset,
        );
        let file_unit = indent::unit(style);
        let unit = match [&steps.units, &steps.nested, &steps.blocks]
            .iter()
            .any(|units| units.contains(&file_unit))
        {
            true => file_unit,
            false => steps.units.first().copied().unwrap_or(file_unit),
        };
        Ctx {
            indent: line[..ws_len].to_string(),
            style,
            unit,
            floor: ws_len,
            narrowest: steps.narrowest,
            replacing: false,
        }
    }
}

impl Ctx {
    /// The same place with lines after the first counted from the column
    /// of the target's definition line, when a replacement from `start`
    /// begins on an earlier line (its leading trivia) at another column.
    fn at_definition_line(&self, file: &ParsedFile, target: &Symbol, start: usize) -> Option<Ctx> {
        let text = file.source.text.as_str();
        let bare = target.bare_span().start_byte;
        let ls = line_start(text, bare).max(file.source.body_offset());
        if ls <= start {
            return None;
        }
        let indent = leading_ws(&text[ls..]);
        // Only a definition that opens its line: after anything else (a
        // decorator on the same line), its column is not its line's.
        if indent == self.indent || ls + indent.len() != bare {
            return None;
        }
        Some(Ctx {
            indent: indent.to_string(),
            floor: self.floor.min(indent.len()),
            ..self.clone()
        })
    }

    /// For a replacement, the layout the old symbol had, so that its own
    /// code sent back gives back the same file: a symbol indented with
    /// spaces in a file of tabs (or the other way round) keeps its own
    /// style, as it keeps its own unit (Go's `map0.go` has a function of
    /// 8-space lines among tab ones), and its lines may sit as far left as
    /// its old ones did ([`Ctx::floor`]).
    fn with_own_style(mut self, file: &ParsedFile, target: &Symbol) -> Ctx {
        let span = target.full_span();
        let offset = file.source.body_offset();
        let (body, code) = (
            file.source.body(),
            span.start_byte - offset..span.end_byte - offset,
        );
        // Its layout lines: after the first, not inside a multi-line string
        // or comment (their indentation is content).
        let content = indent::content_lines(&file.language, &file.tree, body, code.clone());
        let layout: Vec<&str> = body[code.clone()]
            .split('\n')
            .enumerate()
            .skip(1)
            .filter(|(i, l)| !is_blank(l) && !content.get(*i).copied().unwrap_or(false))
            .map(|(_, l)| l)
            .collect();
        let own = crate::source::indent_of_lines(layout.iter().copied());
        // Only lines a reading can strand count: a line comment the JDK's
        // `DateTimeFormatter.toString` has at column 0 inside its body may
        // sit anywhere, and would let every line of new code go there too.
        let roles = indent::roles(&file.language, &file.tree, body, code.clone());
        let least = body[code.clone()]
            .split('\n')
            .enumerate()
            .skip(1)
            .filter(|(i, l)| {
                !is_blank(l)
                    && !content.get(*i).copied().unwrap_or(false)
                    && roles
                        .get(*i)
                        .is_some_and(|r| r.steps() || *r == indent::Role::Close)
            })
            .map(|(_, l)| leading_ws(l).len())
            .min();
        self.floor = least.map_or(self.floor, |l| l.min(self.floor));
        self.replacing = true;
        let tabs = |s: Indent| s == Indent::Tabs;
        if own != Indent::Unknown && self.style != Indent::Unknown && tabs(own) != tabs(self.style)
        {
            self.style = own;
        }
        // A file whose layout tells no width (yaml-cpp's `depthguard.cpp`:
        // a constructor's continuation at 29 and its initializer at 4 are
        // all it has) is still spaces when its symbol's lines are: in the
        // symbol's own unit, or tab-indented code would be written into it
        // as it came.
        let starts = |c: char| layout.iter().any(|l| l.starts_with(c));
        if self.style == Indent::Unknown && own == Indent::Unknown && starts(' ') && !starts('\t') {
            self.style = Indent::Spaces(self.unit.clamp(1, 8) as u8);
        }
        self
    }
}

fn line_start(text: &str, pos: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..pos]).map_or(0, |p| p + 1)
}

/// Offset of the line terminator of the line holding `pos` (or the end).
fn line_end(text: &str, pos: usize) -> usize {
    let end = memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |p| pos + p);
    if end > pos && text.as_bytes()[end - 1] == b'\r' && end < text.len() {
        end - 1
    } else {
        end
    }
}

/// New code as it is fitted: without a byte-order mark and trailing line
/// breaks.
fn trimmed(code: &str) -> &str {
    let code = code.strip_prefix('\u{feff}').unwrap_or(code);
    code.trim_end_matches(['\r', '\n'])
}

/// Which lines of new code begin inside something whose whitespace is its
/// own, per line of the code.
#[derive(Default)]
struct Masks {
    /// Inside a multi-line string literal that is not a docstring
    /// ([`indent::verbatim_lines`]): never moved.
    verbatim: Vec<bool>,
    /// Inside any multi-line string or comment ([`indent::content_lines`]):
    /// moved with the code, but left out when reading the code's own
    /// indentation style (a JSDoc block's ` * ` lines are not a unit of 1).
    content: Vec<bool>,
    /// Inside a multi-line comment ([`indent::comment_lines`]).
    comment: Vec<bool>,
    /// How each line moves when the code's indentation is rescaled
    /// ([`indent::roles`]).
    roles: Vec<indent::Role>,
    /// The line each line of a block counts its step from
    /// ([`indent::block_anchors`]).
    blocks: Vec<Option<usize>>,
}

/// The [`Masks`] of `code`, read from a parse of the code placed as it is
/// over `range` of the file, between `before` and `after`. Strings and
/// comments are lexed the same at any indentation, so one raw placement
/// tells for every reading.
fn line_masks(
    file: &ParsedFile,
    range: std::ops::Range<usize>,
    before: &str,
    code: &str,
    after: &str,
) -> Result<Masks> {
    let code = trimmed(code);
    if !code.contains('\n') {
        return Ok(Masks::default());
    }
    let offset = file.source.body_offset();
    let old_body = file.source.body();
    let (start, end) = (range.start - offset, range.end - offset);
    // Only the top-level nodes around the change are parsed again, with the
    // code in place: a string's extent is settled by the text from the start
    // of its top-level node, and reparsing a whole multi-megabyte file for
    // it cost as much as validating the edit.
    let root = file.tree.root_node();
    let mut cursor = root.walk();
    let (mut from, mut to) = (start, end);
    for top in root.children(&mut cursor) {
        if top.start_byte() <= start && start < top.end_byte() {
            from = from.min(top.start_byte());
        }
        if top.start_byte() < end && end <= top.end_byte() {
            to = to.max(top.end_byte());
        }
    }
    if to - from > REGION_PARSE_MAX {
        // One top-level node spans much of the file (a Java or C# file's
        // one class, a parse error): reparsing the whole file incrementally
        // is cheaper. A fresh parse of the region was over a third of an
        // edit's time in the JDK's `Character.java` (450 KB, one class).
        (from, to) = (0, old_body.len());
    }
    // A region parsed on its own, not from the file's start, starts with
    // the language's `edit.region_prefix` (PHP's `<?php`: without it, code
    // is HTML text).
    let whole = (from, to) == (0, old_body.len());
    let prefix = if from == 0 {
        ""
    } else {
        file.language.config.edit.region_prefix.as_str()
    };
    let region = format!(
        "{prefix}{}{before}{code}{after}{}",
        &old_body[from..start],
        &old_body[end..to]
    );
    let code_start = prefix.len() + start - from + before.len();
    let tree = if whole {
        let splice = super::Splice {
            start,
            old_end: end,
            new_end: code_start + code.len() + after.len(),
        };
        super::validate::reparse_tree(&file.language, &file.tree, old_body, &region, splice)?
    } else {
        crate::symbols::parse_tree(&file.language, &region, None)?
    };
    let code_range = code_start..code_start + code.len();
    Ok(Masks {
        verbatim: indent::verbatim_lines(&file.language, &tree, &region, code_range.clone()),
        content: indent::content_lines(&file.language, &tree, &region, code_range.clone()),
        comment: indent::comment_lines(&file.language, &tree, &region, code_range.clone()),
        roles: indent::roles(&file.language, &tree, &region, code_range.clone()),
        blocks: indent::block_anchors(&file.language, &tree, &region, code_range),
    })
}

/// The largest region [`line_masks`] parses on its own.
const REGION_PARSE_MAX: usize = 64 << 10;

/// Fit agent-supplied code to the target's place: file line endings, file
/// indentation style, and the target's indentation. Returns one text per
/// reading of the code's indentation ([`indent::readings`]), most likely
/// first, without duplicates.
fn fit(code: &str, masks: &Masks, ctx: &Ctx, src: &SourceText) -> Vec<String> {
    let body = trimmed(code);
    let verbatim = masks.verbatim.as_slice();
    // A file with no tab at all cannot hold a deliberate mixture.
    let file_has_tabs = memchr::memchr(b'\t', src.text.as_bytes()).is_some();
    let restyled = restyle(body, masks, ctx.style, file_has_tabs);
    // Each line with its own terminator ("" for the last one).
    let lines: Vec<(&str, &str)> = lines_and_endings(&restyled).collect();
    let t = ctx.indent.as_str();
    // Line endings: the file's style; a mixed file keeps each line's own.
    let eol = |own: &str| -> String {
        if own.is_empty() {
            return String::new();
        }
        match src.profile.eol {
            Eol::Mixed => own.to_string(),
            _ => src.profile.newline().to_string(),
        }
    };
    let is_verbatim = |i: usize| verbatim.get(i).copied().unwrap_or(false);
    // The readings are read from the lines of code, not of string contents.
    let contents: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| !is_verbatim(i))
        .map(|(_, (l, _))| *l)
        .collect();
    let spaces = matches!(ctx.style, Indent::Spaces(_))
        && lines.iter().all(|(l, _)| !leading_ws(l).contains('\t'));
    let roles = |i: usize| {
        masks.roles.get(i).copied().unwrap_or(match is_verbatim(i) {
            true => indent::Role::Fixed,
            false => indent::Role::Step,
        })
    };
    let all_roles: Vec<indent::Role> = (0..lines.len()).map(roles).collect();
    // The same with every line of the code's layout read as its whole
    // column in steps ([`indent::Role::Column`]), as a converter that
    // rescales each line's indentation on its own writes them: a line under
    // a bracket's first item or right of it may be such steps
    // ([`indent::Role::Under`]), and steps counted from the line above
    // would carry what that line had left over.
    let as_columns: Vec<indent::Role> = all_roles
        .iter()
        .map(|&r| match r {
            indent::Role::Follow | indent::Role::Fixed => r,
            _ => indent::Role::Column,
        })
        .collect();
    // Each reading: its base, each line's depth below the first line in it
    // (`None`: not moved: inside a string literal, blank, or shallower than
    // the base), whether it leaves a line of code left of the symbol's own
    // column (then it is not a candidate; a comment's or string's line may
    // sit there), and the code's unit as it reads.
    let readings: Vec<Reading> = indent::readings(&contents, t.len(), indent::unit(ctx.style))
        .into_iter()
        .map(|base| {
            let depths: Vec<Option<usize>> = lines
                .iter()
                .enumerate()
                .map(|(i, (line, _))| match i {
                    0 => Some(0),
                    _ if is_verbatim(i) || is_blank(line) => None,
                    _ => leading_ws(line).len().checked_sub(base),
                })
                .collect();
            // The least column of the lines of code the reading leaves where
            // they are, left of its base: they strand left of the symbol's
            // own column.
            let unmoved = lines
                .iter()
                .enumerate()
                .filter(|&(i, (line, _))| {
                    depths[i].is_none()
                        && !is_blank(line)
                        && (all_roles[i].steps() || all_roles[i] == indent::Role::Close)
                })
                .map(|(_, (line, _))| leading_ws(line).len())
                .min();
            let strands = unmoved.is_some_and(|c| c < ctx.floor);
            let moves_all = unmoved.is_none();
            let units = indent::steps_units(&depths, &all_roles);
            let narrowest = indent::narrowest_step(&depths, &all_roles);
            let nested = indent::nested_unit(&depths, &all_roles);
            let block_units = indent::block_units(&depths, &masks.blocks);
            // Its step lines flat (none deeper than the first line), so
            // that its unit, if any, is read from comment lines alone.
            let flat = !indent::steps_deeper(&depths, &all_roles)
                && (1..lines.len())
                    .any(|i| all_roles[i] == indent::Role::Step && depths[i].is_some());
            Reading {
                base,
                depths,
                strands,
                moves_all,
                unit: units.first().copied(),
                tied: units.get(1..).unwrap_or_default().to_vec(),
                narrowest,
                nested,
                blocks: block_units.first().copied(),
                blocks_other: block_units.iter().any(|&u| u != ctx.unit),
                flat,
            }
        })
        .collect();
    // The code is rescaled only when no reading already gives it the
    // place's unit: with one step line, the unit a reading shows is the
    // base it assumes (tkinter's `Text.search` printed with its first line
    // bare reads as steps of 8 from column 0 and of 4 from the target's).
    // A unit read from steps wider than any unit only is not one the code
    // shows (the JDK's `Parser.docType`, `throws` two steps in, sent in
    // steps of 8 and read from the target's column, is 12 deep: "8").
    // Code that replaces a symbol shows its unit only with its narrowest
    // step too: the JDK's generated `FormatData.getContents` nests arrays
    // two steps deeper more often than its body goes one, so its own steps
    // read as 8 in a file of 4, and so does its code sent in steps of 8,
    // whose narrowest step is 8 where the method's is 4.
    //
    // A reading that leaves a line of code where it is shows nothing of
    // that line's step: the JDK's `BaseLocaleDataMetaInfo.getType` closes
    // at column 0 under a header at 4, so its code sent in steps of 8 (its
    // body 8 in, its `}` at 0) also reads with 4 columns of the target
    // already in, its body one step of 4 deep and its `}` left alone; taken
    // for the place's unit, that left the code unscaled and the body two
    // steps in.
    //
    // Nor does a flat reading whose unit only its comments show
    // ([`Reading::flat`]), or one whose blocks step in another unit as
    // often or more: lib2to3's `setup_test_source_trees` sent in steps of
    // 8 with its first line bare reads, from the target's column, as a
    // body one step of 4 in and a `with` body 8 deeper, a tie its steps of
    // 4 won; left unscaled, the `with` body stayed two steps in.
    let rescalable = spaces
        && !readings.iter().any(|r| {
            r.moves_all
                && r.narrowest.is_some()
                && r.unit == Some(ctx.unit)
                && !r.blocks_other
                && !r.flat
                && (!ctx.replacing || r.narrowest == ctx.narrowest)
        });
    let mut out: Vec<String> = Vec::new();
    let mut left_of_symbol: Vec<String> = Vec::new();
    for Reading {
        base,
        depths,
        strands,
        moves_all: _,
        unit,
        tied,
        narrowest,
        nested,
        blocks,
        blocks_other: _,
        flat: _,
    } in readings
    {
        // From the code's most frequent step to the symbol's own unit, and
        // from its narrowest step to the file's. A symbol whose own lines
        // read as another unit only by chance comes back as it was: racc's
        // generated Ruby puts a body 6 and 4 columns in, in a file of 2
        // (its steps read as 4, a tie); yaml-cpp's `Utf8Adjust` has a body
        // one step of 2 in and two continuations two steps in (read as 4;
        // sent in steps of 4, its most frequent step is 8, and its body, 4
        // deep, less than one of those).
        let mut rescaled: Vec<Vec<Option<usize>>> = Vec::new();
        if rescalable {
            // Then each other step the most frequent ones tie with (the
            // JDK's `Math.copySign` in steps of 8 goes 8 and 5 deeper once
            // each: the 5 is what its steps of 8 left over).
            let mut pairs = vec![
                (unit, ctx.unit),
                (narrowest.or(unit), indent::unit(ctx.style)),
            ];
            pairs.extend(tied.iter().map(|&u| (Some(u), ctx.unit)));
            // Then its unit counted as a file's is: the JDK's
            // `BreakIteratorRules.getContents` sent in steps of 3 goes 3
            // deeper twice and 2 deeper once per group of strings
            // concatenated under an item two columns right of the group's
            // `{`; counted from the item's line, those are no steps.
            pairs.push((nested, ctx.unit));
            // Then the unit its blocks' lines show: the JDK's generated
            // `SocketOptionRegistry` puts a call's arguments 42, 52 and 54
            // columns in, so its steps (and its code's sent in steps of 3)
            // read as 2, where its blocks step in 4 (and 3).
            pairs.push((blocks, ctx.unit));
            for roles in [&all_roles, &as_columns] {
                for &(from, to) in &pairs {
                    if let Some(from) = from.filter(|&f| to > 0 && f != to) {
                        let r = indent::rescale(&depths, roles, from, to);
                        if !rescaled.contains(&r) {
                            rescaled.push(r);
                        }
                    }
                }
            }
        }
        for scaled in rescaled.iter().map(Some).chain([None]) {
            let mut text = String::with_capacity(restyled.len() + lines.len() * (t.len() + 1));
            for (i, (line, term)) in lines.iter().enumerate() {
                let ws = leading_ws(line);
                if is_verbatim(i) {
                    // Inside a multi-line string literal: content, never moved.
                    text.push_str(line);
                } else if i == 0 {
                    text.push_str(&line[ws.len()..]);
                } else if is_blank(line) {
                    // Blank lines get no indentation (no trailing whitespace
                    // is invented), but code placed as it is keeps its own:
                    // a symbol's own text sent back gives back the file
                    // (yaml-cpp's `HandleNode` has a line of two spaces),
                    // and code moved by its base moves it too (the JDK's
                    // `CharacterData01.getNumericValue`, sent dedented, has
                    // a line of 8 spaces that was 12).
                    if scaled.is_none() && base == t.len() {
                        text.push_str(line);
                    } else if scaled.is_none() && !line.is_empty() && line.len() >= base {
                        text.push_str(t);
                        text.push_str(&line[base..]);
                    }
                } else if let Some(Some(d)) = scaled.map(|s| s[i]) {
                    text.push_str(t);
                    text.extend(std::iter::repeat_n(' ', d));
                    text.push_str(&line[ws.len()..]);
                } else if scaled.is_none() && base == t.len() && !line.starts_with(t) {
                    // Placed as it is, with another indentation than the
                    // target's before the code's own: kept whole, not cut
                    // by bytes (the JDK's `CharacterData02` has a line of a
                    // tab and 8 spaces among lines of spaces).
                    text.push_str(line);
                } else if ws.len() >= base {
                    text.push_str(t);
                    text.push_str(&line[base..]);
                } else {
                    // Shallower than the reading's base: a line of a multi-line
                    // string or comment written at its own column; left as is.
                    text.push_str(line);
                }
                text.push_str(&eol(term));
            }
            let list = if strands {
                &mut left_of_symbol
            } else {
                &mut out
            };
            if !list.contains(&text) {
                list.push(text);
            }
        }
    }
    if out.is_empty() {
        // Every reading strands a line: the judge picks the least bad.
        out = left_of_symbol;
    }
    out
}

/// `fitted` with each line that the old text `old` has too (the same
/// text after the indentation, paired by a line diff) ending as it did
/// there. In a file of mixed line endings new lines keep their own ending,
/// so without this a symbol sent back with other endings than it has
/// (an agent's JSON string is LF) would change the lines it leaves alone
/// (pythonnet's `SequenceDecoder.cs`: CRLF with four LF comment lines).
fn keep_old_endings(fitted: &str, old: &str) -> String {
    let mut new_lines: Vec<(&str, &str)> = lines_and_endings(fitted).collect();
    let old_lines: Vec<(&str, &str)> = lines_and_endings(old).collect();
    let old_keys: Vec<&str> = old_lines.iter().map(|(c, _)| c.trim_start()).collect();
    let new_keys: Vec<&str> = new_lines.iter().map(|(c, _)| c.trim_start()).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old_keys, &new_keys);
    for op in ops {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                // The last line of each text has no ending of its own here
                // (the range's own ending is kept by the caller).
                let (o, n) = (old_lines[old_index + k].1, &mut new_lines[new_index + k].1);
                if !o.is_empty() && !n.is_empty() {
                    *n = o;
                }
            }
        }
    }
    new_lines.into_iter().flat_map(|(c, e)| [c, e]).collect()
}

/// Each line of `text` and its terminator (`""` for a last line without).
fn lines_and_endings(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.split_inclusive('\n').map(|l| {
        let content = l.trim_end_matches('\n').trim_end_matches('\r');
        (content, &l[content.len()..])
    })
}

/// One reading of new code's indentation in [`fit`].
struct Reading {
    /// The indentation the later lines carry that is not theirs.
    base: usize,
    /// Each line's depth below the first line (`None`: not moved).
    depths: Vec<Option<usize>>,
    /// A line of code lands left of the symbol's own column.
    strands: bool,
    /// No line of code is left where it is, left of the base: a line so
    /// left only lands at the symbol's place when the old symbol had one
    /// there too (then it does not strand), and the reading shows no unit
    /// for it.
    moves_all: bool,
    /// The code's indentation unit as this reading shows it.
    unit: Option<usize>,
    /// The other steps as frequent as `unit` ([`indent::steps_units`]).
    tied: Vec<usize>,
    /// The narrowest step it takes ([`indent::narrowest_step`]).
    narrowest: Option<usize>,
    /// Its unit counted as a file's is, a continued line nesting what
    /// follows ([`indent::nested_unit`]).
    nested: Option<usize>,
    /// The unit its blocks' lines show ([`indent::block_units`]).
    blocks: Option<usize>,
    /// Its blocks' lines step in another unit than the place's as often
    /// as in any ([`indent::block_units`] holds one).
    blocks_other: bool,
    /// No step line goes deeper than the first line, yet some follow it:
    /// a unit it shows is its comment lines' alone, which says nothing of
    /// the code's steps (the standard library's `_signature_is_builtin`
    /// sent in steps of 2 reads, with its body at the `def`'s column, as
    /// comments 4 in among continued lines: "the place's unit", and no
    /// reading was rescaled).
    flat: bool,
}

/// Order the readings of code that replaces `old` so that the one keeping
/// the most of `old`'s lines exactly as they were comes first (a stable
/// sort: ties keep the likelihood order of [`indent::readings`]). The
/// readings differ only in how far the later lines move, and two of them can
/// both parse cleanly and agree with the tree: the body of an arrow function
/// on the line after `=>` with no line back at the header's column (zod's
/// `const base = (..) =>` / `z.object({..})`) reads at the header's column
/// or one step deeper. The code's lines the agent left unchanged tell which
/// layout the file had; [`choose`] still judges every reading.
///
/// Before that count, in a space-indented file, a reading whose step lines
/// show another unit than the symbol's own ([`Ctx::unit`]) goes after those
/// that keep it: a C++ constructor's `: member(x)` line two steps in, sent
/// in steps of 4 into a file of 2 (at 8, its members at 12), keeps more of
/// the old lines unchanged when only its base moves (`:` at 2, one step),
/// but the rescaled reading (`:` at 4, two steps) is the symbol's layout.
fn prefer_old_layout(readings: &mut [String], old: &str, roles: &[indent::Role], ctx: &Ctx) {
    if readings.len() < 2 {
        return;
    }
    let spaces = matches!(ctx.style, Indent::Spaces(_));
    let t = ctx.indent.len();
    let other_unit = |r: &str| {
        let depths: Vec<Option<usize>> = r
            .split('\n')
            .enumerate()
            .map(|(i, l)| match i {
                0 => Some(0),
                _ if roles.get(i) == Some(&indent::Role::Fixed) => None,
                _ => leading_ws(l).len().checked_sub(t),
            })
            .collect();
        spaces && indent::steps_unit(&depths, roles).is_some_and(|u| u != ctx.unit)
    };
    let mut old_lines: HashMap<&str, usize> = HashMap::new();
    for l in old.lines().filter(|l| !is_blank(l)) {
        *old_lines.entry(l).or_default() += 1;
    }
    readings.sort_by_cached_key(|r| {
        let mut left = old_lines.clone();
        let kept = r
            .lines()
            .filter(|l| match left.get_mut(l) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            })
            .count();
        (other_unit(r), std::cmp::Reverse(kept))
    });
}

/// Convert the code's leading indentation to the file's style: tabs in a
/// tab-indented file, spaces (of the file's width) in a space-indented one.
fn restyle(code: &str, masks: &Masks, file: Indent, file_has_tabs: bool) -> String {
    let verbatim = masks.verbatim.as_slice();
    // The code's own style is read from its layout lines only: a string's
    // or comment's lines keep whatever indentation their content has (a
    // tab-indented test with a long space-indented raw string is still
    // tab-indented; a JSDoc block's ` * ` lines do not make a unit of 1).
    // When those say nothing (a body that is only a docstring), the lines
    // of strings that move with the code say it (docstrings: never a
    // comment, whose ` * ` lines would read as a unit of one).
    let style_without = |skip: &dyn Fn(usize) -> bool| {
        let layout: String = code
            .split('\n')
            .enumerate()
            .filter(|(i, _)| !skip(*i))
            .map(|(_, l)| l)
            .collect::<Vec<_>>()
            .join("\n");
        crate::source::profile_of(&layout).indent
    };
    let is = |mask: &[bool], i: usize| mask.get(i).copied().unwrap_or(false);
    // Layout lines of both styles (one starting with a tab, one with a
    // space) in a file that has tabs: the mixture is deliberate (emacs'
    // tabs for every 8 columns, a file's own mixed lines), and no
    // conversion can keep it. Into a file without a tab, tabs are never
    // written as they came (racc's generated Ruby mixes 1- and 4-space
    // lines; the same code sent with tabs for its steps kept them).
    let starts = |c: char| {
        code.split('\n').enumerate().any(|(i, l)| {
            !is(verbatim, i) && !is(&masks.comment, i) && !l.trim().is_empty() && l.starts_with(c)
        })
    };
    if starts('\t') && starts(' ') && file_has_tabs {
        return code.to_string();
    }
    let code_indent = match style_without(&|i| is(&masks.content, i)) {
        Indent::Unknown => style_without(&|i| is(verbatim, i) || is(&masks.comment, i)),
        known => known,
    };
    let convert = |line: &str| -> String {
        let ws = leading_ws(line);
        let rest = &line[ws.len()..];
        match (file, code_indent) {
            (Indent::Tabs, Indent::Spaces(w)) if !ws.contains('\t') && w > 0 => {
                format!("{}{rest}", spaces_to_tabs(ws, w as usize))
            }
            (Indent::Spaces(w), _) if ws.contains('\t') => {
                format!("{}{rest}", tabs_to_spaces(ws, w as usize))
            }
            _ => line.to_string(),
        }
    };
    let convert_all = match (file, code_indent) {
        (Indent::Tabs, Indent::Spaces(_)) | (Indent::Spaces(_), Indent::Tabs) => true,
        // Mixed code whose spaces outvote its tabs, into a file of spaces
        // only: its tab lines still become spaces.
        (Indent::Spaces(_), _) => !file_has_tabs && starts('\t'),
        _ => false,
    };
    if !convert_all {
        return code.to_string();
    }
    code.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if verbatim.get(i).copied().unwrap_or(false) {
                l.to_string()
            } else {
                convert(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Which side of the target an insert goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
}

/// The blank lines an insert puts between the target and the new code.
///
/// The insert splits the gap on its `side` (between the target and its
/// sibling there), whose blank lines stay on the far side of the new code;
/// using that same gap on the near side makes both sides equal. At the edge
/// of a block (no sibling on that side) the gap on the other side is used,
/// and without siblings the language's convention.
fn blank_gap(file: &ParsedFile, target: &Symbol, side: Side) -> usize {
    let text = &file.source.text;
    let siblings: Vec<&Symbol> = file
        .symbols
        .iter()
        .filter(|s| s.parent == target.parent && s.full_span() != target.full_span())
        .collect();
    let prev = siblings
        .iter()
        .rev()
        .find(|s| s.full_span().end_byte <= target.full_span().start_byte);
    let next = siblings
        .iter()
        .find(|s| s.full_span().start_byte >= target.full_span().end_byte);
    let between = |a: usize, b: usize| -> usize {
        text[a..b]
            .split('\n')
            .skip(1)
            .collect::<Vec<_>>()
            .split_last()
            .map_or(0, |(_, mid)| mid.iter().filter(|l| is_blank(l)).count())
    };
    let before = || prev.map(|p| between(p.full_span().end_byte, target.full_span().start_byte));
    let after = || next.map(|n| between(target.full_span().end_byte, n.full_span().start_byte));
    let observed = match side {
        Side::Before => before().or_else(after),
        Side::After => after().or_else(before),
    };
    let rules = &file.language.config.edit;
    let fallback = if target.parent.is_none() {
        rules.top_level_blank_lines
    } else {
        rules.blank_lines
    };
    observed.unwrap_or(fallback).min(3)
}

fn splice(text: &str, start: usize, end: usize, insert: &str, code_offset: usize) -> SymbolEdit {
    let mut new_text = String::with_capacity(text.len() - (end - start) + insert.len());
    new_text.push_str(&text[..start]);
    new_text.push_str(insert);
    new_text.push_str(&text[end..]);
    SymbolEdit {
        new_text,
        old_start: start,
        old_end: end,
        new_end: start + insert.len(),
        code_start: start + code_offset,
        code_end: start + insert.len(),
    }
}

/// Remove the symbol's lines (when it owns them) and tidy the blank lines
/// around the hole: no doubled gap, no gap left before a closing line or at
/// the end of the file, and the file's trailing-newline state kept.
fn delete(file: &ParsedFile, target: &Symbol) -> SymbolEdit {
    let src = &file.source;
    let text = src.text.as_str();
    let span = target.full_span();
    let body_start = src.body_offset();
    let ls = line_start(text, span.start_byte).max(body_start);
    let eol = line_end(text, span.end_byte);
    let owns_lines = text[ls..span.start_byte].trim().is_empty()
        && text[span.end_byte..eol]
            .trim_matches(|c: char| c.is_whitespace() || c == ';' || c == ',')
            .is_empty();
    if !owns_lines {
        return splice(text, span.start_byte, span.end_byte, "", 0);
    }
    // The removed region covers whole lines, terminators included.
    let mut start = ls;
    let mut end = next_line(text, eol);
    // Blank lines just above and just below.
    let mut above = Vec::new();
    let mut p = start;
    while p > body_start {
        let prev = line_start(text, p - 1).max(body_start);
        if !is_blank(&text[prev..p]) {
            break;
        }
        above.push(prev);
        p = prev;
    }
    let mut below_end = end;
    let mut below = 0;
    while below_end < text.len() {
        let next = next_line(text, below_end);
        if !is_blank(&text[below_end..next]) {
            break;
        }
        below += 1;
        below_end = next;
    }
    let indent = leading_ws(&text[ls..]).len();
    let next_line_text = &text[below_end..next_line(text, below_end)];
    let closes_block = below_end >= text.len() || leading_ws(next_line_text).len() < indent;
    let opens_block = p <= body_start || {
        let ps = line_start(text, p - 1).max(body_start);
        leading_ws(&text[ps..p]).len() < indent
    };
    if closes_block {
        // Nothing follows in this block: the gap above goes too.
        if let Some(&top) = above.last() {
            start = top;
        }
        end = below_end;
    } else if opens_block || below < above.len() {
        // First in its block, or the gap below is the smaller one.
        end = below_end;
    } else if let Some(&top) = above.last() {
        start = top;
    }
    let mut new_text = String::with_capacity(text.len());
    new_text.push_str(&text[..start]);
    new_text.push_str(&text[end..]);
    // Keep the file's trailing-newline state.
    if !text.ends_with('\n') && new_text.ends_with('\n') {
        let cut = if new_text.ends_with("\r\n") { 2 } else { 1 };
        new_text.truncate(new_text.len() - cut);
    }
    from_texts(text, new_text)
}

/// Describe the change between two texts by their common prefix and suffix.
fn from_texts(old: &str, new_text: String) -> SymbolEdit {
    let (prefix, old_end, new_end) =
        crate::text::changed_window(old.as_bytes(), new_text.as_bytes());
    SymbolEdit {
        old_start: prefix,
        old_end,
        new_end,
        code_start: prefix,
        code_end: prefix,
        new_text,
    }
}

/// Offset of the first byte of the next line (or the end).
fn next_line(text: &str, pos: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |p| pos + p + 1)
}

/// A planned symbol edit after validation: the new tree (incrementally
/// reparsed) and the problems it would add.
pub struct Checked {
    pub edit: SymbolEdit,
    pub tree: tree_sitter::Tree,
    pub introduced: super::validate::Problems,
    /// How many readings of the code's indentation were tried.
    pub readings_tried: usize,
}

/// Validate the plans of one edit (one per reading of the new code's
/// indentation, most likely first) and keep the best: the first that adds
/// no parse problem and whose layout agrees with its syntax tree; failing
/// that, the one with no new problem and the fewest misplaced lines (block
/// lines first, then continuation lines: [`indent::Penalty`]); failing
/// that, the least bad (the caller refuses it unless errors are allowed).
pub fn choose(file: &ParsedFile, mut plans: Vec<SymbolEdit>, style: Indent) -> Result<Checked> {
    // A reading that gives back the file as it is goes first: another one
    // may also look right to the layout penalty, and come first in the
    // likelihood order (BigDecimal's `writeObject` sits at 3 under
    // `@java.io.Serial` at 4; its bare code as extracted also reads, one
    // column right, as a method at 4 with nothing out of place).
    if let Some(i) = plans.iter().position(|p| p.new_text == file.source.text) {
        let same = plans.remove(i);
        plans.insert(0, same);
    }
    let offset = file.source.body_offset();
    let unit = indent::unit(style);
    let mut best: Option<((bool, indent::Penalty), Checked)> = None;
    let mut tried = 0;
    // The replaced lines this judge finds out of place are the file's own
    // layout: not held against any reading; those it continued deeper than
    // their anchor are held against a reading that flattens them (see
    // [`indent::layout_penalty`]).
    // Every plan of one call replaces the same range.
    let old = match plans.first() {
        Some(p) if p.old_end > p.old_start => indent::old_layout(
            &file.language,
            &file.tree,
            file.source.body(),
            p.old_start - offset..p.old_end - offset,
            unit,
        ),
        _ => Default::default(),
    };
    for plan in plans {
        tried += 1;
        let change = super::Splice {
            start: plan.old_start - offset,
            old_end: plan.old_end - offset,
            new_end: plan.new_end - offset,
        };
        let new_body = &plan.new_text[offset..];
        let (tree, introduced) = super::validate::reparse_against(
            &file.language,
            &file.tree,
            file.source.body(),
            new_body,
            change,
        )?;
        let penalty = if plan.code_end > plan.code_start {
            indent::layout_penalty(
                &file.language,
                &tree,
                new_body,
                plan.code_start - offset..plan.code_end - offset,
                unit,
                &old,
            )
        } else {
            indent::Penalty::default()
        };
        // The file as it is (the code is the symbol in another shape) is
        // its own layout, even where that layout disagrees with the tree (a
        // doc comment one column right of its method).
        let unchanged = introduced.is_empty() && plan.new_text == file.source.text;
        let key = (!introduced.is_empty(), penalty);
        let checked = Checked {
            edit: plan,
            tree,
            introduced,
            readings_tried: tried,
        };
        if unchanged || key == (false, indent::Penalty::default()) {
            return Ok(checked);
        }
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, checked));
        }
    }
    let (_, mut checked) = best.ok_or_else(|| {
        Error::invalid_argument("nothing to write").with_suggestion("pass the new code")
    })?;
    checked.readings_tried = tried;
    Ok(checked)
}

/// A symbol edit planned, fitted and validated, with what the trivia rule
/// did (see [`Overwrite`]).
pub struct Prepared {
    pub checked: Checked,
    /// Problems the old file already had.
    pub preexisting: usize,
    /// Leading trivia lines of the target that were kept.
    pub kept_trivia: Vec<String>,
    /// What the new code defines, outermost first, read from the chosen
    /// tree (empty for delete).
    pub defined: Vec<crate::symbols::Defined>,
    pub warnings: Vec<String>,
}

/// Plan `op`, try every reading of the new code's indentation, and apply the
/// trivia rule: a replacement first overwrites the whole range; if the new
/// code, read from its own parse in place, brings no trivia lines (or no
/// definition-line prefix), it is planned again to keep those of the target.
pub fn prepare(
    file: &ParsedFile,
    target: &Symbol,
    op: Operation,
    code: Option<&str>,
) -> Result<Prepared> {
    let body = file.source.body();
    let count = || file.problem_count();
    // The old file's own problems are only counted (the receipt's
    // `preexisting_errors`): candidates are compared with it around the
    // change. Counting walks every token, so on a large file it runs beside
    // the planning.
    std::thread::scope(|s| {
        let counting = (body.len() >= COUNT_BESIDE_MIN).then(|| s.spawn(count));
        let prepared = prepare_uncounted(file, target, op, code)?;
        let preexisting = match counting {
            Some(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => count(),
        };
        Ok(Prepared {
            preexisting,
            ..prepared
        })
    })
}

/// Files from this size on count their old problems on a second thread.
const COUNT_BESIDE_MIN: usize = 256 * 1024;

/// [`prepare`] with `preexisting` left at 0.
fn prepare_uncounted(
    file: &ParsedFile,
    target: &Symbol,
    op: Operation,
    code: Option<&str>,
) -> Result<Prepared> {
    let offset = file.source.body_offset();
    let defined_in = |c: &Checked| {
        crate::symbols::definitions_in(
            &file.language,
            &c.tree,
            &c.edit.new_text[offset..],
            c.edit.code_start - offset..c.edit.code_end - offset,
        )
    };
    let style = indent::style_of(file);
    let mut checked = choose(
        file,
        plan(file, target, op, code, Overwrite::All, style)?,
        style,
    )?;
    let mut warnings = Vec::new();
    let mut kept = Vec::new();
    let mut defined = None;
    let has_trivia = target.full_span().start_byte < target.bare_span().start_byte;
    if op == Operation::Replace && has_trivia {
        let brought = defined_in(&checked)?;
        let overwrite = match brought.first() {
            Some(d) if d.trivia_lines => Overwrite::All,
            Some(d) if d.trivia_prefix => Overwrite::FromDefinitionLine,
            _ => Overwrite::BareDefinition,
        };
        if overwrite == Overwrite::All {
            let bare = replace_start(&file.source, target, Overwrite::BareDefinition);
            let replaced = kept_trivia(file, target, bare);
            if !replaced.is_empty() {
                warnings.push(format!(
                    "the new code brings its own leading trivia, so it replaced the old: {}",
                    replaced.join(", ")
                ));
            }
            defined = Some(brought);
        } else {
            checked = choose(file, plan(file, target, op, code, overwrite, style)?, style)?;
            kept = kept_trivia(file, target, replace_start(&file.source, target, overwrite));
        }
    }
    let defined = match defined {
        Some(d) => d,
        None if op == Operation::Delete => Vec::new(),
        None => defined_in(&checked)?,
    };
    Ok(Prepared {
        checked,
        preexisting: 0,
        kept_trivia: kept,
        defined,
        warnings,
    })
}
