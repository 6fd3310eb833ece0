//! The wire types of the tools whose requests the library also takes from
//! the CLI (`read_fragment`, `edit_file`, `edit_files`, `write_file`,
//! `list_directory`, and the fields they share with `update_symbol`): what a
//! client sends, with the descriptions tools/list shows. Only this adapter
//! knows the schema; each type becomes its library twin with `From`, so the
//! compiler checks that the two keep the same fields.
//!
//! The descriptions are budgeted (tools/list is paid for by every session):
//! a doc comment is the schema description, a `#[schemars(description)]`
//! a shorter one where the doc says more than the model needs, and a plain
//! `//` comment a field the name or the tool's description already explains.

use crate::disk::tree as lib_tree;
use crate::edit::Operation as LibOperation;
use crate::ops::textops as lib;
use crate::text as lib_text;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// A 1-based inclusive line range, as passed in `ranges` and `line_range`
// (a plain comment: the fields that take one describe it, once).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineRange {
    // First line (1-based).
    pub start: usize,
    // Last line (1-based, inclusive).
    pub end: usize,
}

impl From<LineRange> for lib_text::LineRange {
    fn from(r: LineRange) -> Self {
        lib_text::LineRange {
            start: r.start,
            end: r.end,
        }
    }
}

/// How far an edit may deviate from the file's text. (`Serialize` only so
/// the schema states the default.)
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FuzzyMode {
    /// `old_text` must occur verbatim (line endings aside).
    #[default]
    Exact,
    /// If there is no exact match, match whole lines ignoring indentation and
    /// trailing whitespace; `new_text` is re-indented by the same amount.
    Whitespace,
    /// Like `whitespace`, then a bounded edit distance (`max_distance`) over
    /// whole lines. Only a unique closest candidate is accepted.
    Levenshtein,
}

impl From<FuzzyMode> for lib_text::FuzzyMode {
    fn from(m: FuzzyMode) -> Self {
        match m {
            FuzzyMode::Exact => lib_text::FuzzyMode::Exact,
            FuzzyMode::Whitespace => lib_text::FuzzyMode::Whitespace,
            FuzzyMode::Levenshtein => lib_text::FuzzyMode::Levenshtein,
        }
    }
}

/// Context that must surround the intended occurrence of `old_text`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    // Text that must occur within 50 lines before the match (the part of the
    // match's own line before it counts), e.g. the enclosing `def name(`.
    // (Plain comments: the anchor's own description covers its fields.)
    #[serde(default)]
    pub before: Option<String>,
    // Text that must occur within 50 lines after the match.
    #[serde(default)]
    pub after: Option<String>,
    // The match must lie entirely within these lines (1-based, inclusive).
    #[serde(default)]
    pub line_range: Option<LineRange>,
}

impl From<Anchor> for lib_text::Anchor {
    fn from(a: Anchor) -> Self {
        lib_text::Anchor {
            before: a.before,
            after: a.after,
            line_range: a.line_range.map(Into::into),
        }
    }
}

/// One replacement of `old_text` by `new_text`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextEdit {
    // The current text to replace; must be unique in the file unless
    // `expected_matches` is set. Include a few surrounding lines to make it
    // unique. LF line endings match CRLF files. (A plain comment: the tool's
    // description says it must match once.)
    pub old_text: String,
    // The replacement text. Written with the file's line ending.
    pub new_text: String,
    /// Context that picks one of several matches.
    #[schemars(description = "Picks a match: text 50 lines before/after or line_range.")]
    #[serde(default)]
    pub anchor: Option<Anchor>,
    /// Fallback when there is no exact match: "exact" (default),
    /// "whitespace" (every run of whitespace forgiven: indentation, trailing
    /// spaces, spacing inside lines; line breaks still count), or
    /// "levenshtein".
    #[schemars(
        description = "Fallback: whitespace (any spacing) or levenshtein within max_distance (default len/10)."
    )]
    #[serde(default)]
    pub fuzzy: FuzzyMode,
    // Largest edit distance accepted by "levenshtein" (default: a tenth of
    // `old_text`'s length, at least 1); described in `fuzzy`'s description.
    #[serde(default)]
    pub max_distance: Option<usize>,
    /// Replace exactly this many occurrences (a deliberate replace-all);
    /// fails if the file has a different number.
    #[schemars(description = "Replace exactly N matches.")]
    #[serde(default)]
    pub expected_matches: Option<usize>,
    // Match only where `old_text` is not part of a longer word (the name
    // says it).
    #[serde(default)]
    pub whole_word: bool,
}

impl From<TextEdit> for lib_text::TextEdit {
    fn from(e: TextEdit) -> Self {
        lib_text::TextEdit {
            old_text: e.old_text,
            new_text: e.new_text,
            anchor: e.anchor.map(Into::into),
            fuzzy: e.fuzzy.into(),
            max_distance: e.max_distance,
            expected_matches: e.expected_matches,
            whole_word: e.whole_word,
        }
    }
}

fn edits(list: Vec<TextEdit>) -> Vec<lib_text::TextEdit> {
    list.into_iter().map(Into::into).collect()
}

/// What to do with the addressed symbol.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
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

impl From<Operation> for LibOperation {
    fn from(o: Operation) -> Self {
        match o {
            Operation::Replace => LibOperation::Replace,
            Operation::InsertBefore => LibOperation::InsertBefore,
            Operation::InsertAfter => LibOperation::InsertAfter,
            Operation::Delete => LibOperation::Delete,
        }
    }
}

/// What to read from one file (`read_fragment`): line ranges, lines holding
/// keywords, and symbols by name path, in any combination.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FragmentParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    /// Line ranges `{start, end}` (1-based, inclusive).
    #[serde(default)]
    pub ranges: Vec<LineRange>,
    /// Read the lines that contain any of these (literal text). With
    /// `symbols`, only lines inside those symbols are searched and read.
    #[schemars(
        description = "Read lines containing any of these; with `symbols`, only inside them."
    )]
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Read these symbols (name paths such as `Parser.run`), decorators and
    /// doc comments included.
    #[schemars(description = "Name paths of symbols to read.")]
    #[serde(default)]
    pub symbols: Vec<String>,
    /// Lines of context around each piece (default 3).
    #[serde(default)]
    pub context_lines: Option<usize>,
    /// Most lines returned (default 500); what does not fit is listed in
    /// `dropped`.
    #[schemars(description = "Line budget (default 500).")]
    #[serde(default)]
    pub max_lines: Option<usize>,
    /// Keywords match case exactly.
    #[serde(default)]
    pub case_sensitive: bool,
    // Keywords match whole words only (the name says it).
    #[serde(default)]
    pub whole_word: bool,
}

impl From<FragmentParams> for lib::FragmentParams {
    fn from(p: FragmentParams) -> Self {
        lib::FragmentParams {
            path: p.path,
            ranges: p.ranges.into_iter().map(Into::into).collect(),
            keywords: p.keywords,
            symbols: p.symbols,
            context_lines: p.context_lines,
            max_lines: p.max_lines,
            case_sensitive: p.case_sensitive,
            whole_word: p.whole_word,
        }
    }
}

/// A batch of text edits to one file (`edit_file`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditParams {
    // A file, relative to the root (the instructions say so once).
    pub path: String,
    // Replacements, all matched against the current content and applied
    // together; if one fails, nothing is written (the tool's description
    // says so).
    pub edits: Vec<TextEdit>,
    // Match, validate and show the diff, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Refuse with STALE_FILE unless the file still has this hash (from a read).
    #[schemars(description = "Refuse unless the file has this file_hash.")]
    #[serde(default)]
    pub expected_hash: Option<String>,
    // Write even if the result has new parse errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

impl From<EditParams> for lib::EditParams {
    fn from(p: EditParams) -> Self {
        lib::EditParams {
            path: p.path,
            edits: edits(p.edits),
            dry_run: p.dry_run,
            expected_hash: p.expected_hash,
            allow_syntax_errors: p.allow_syntax_errors,
        }
    }
}

/// Text edits to several files (`edit_files`), written as one transaction.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFilesParams {
    /// One entry per file: path, edits, optional expected_hash.
    #[schemars(
        description = "[{path, edits, expected_hash?}], each as in edit_file.",
        with = "Vec<serde_json::Map<String, serde_json::Value>>"
    )]
    pub files: Vec<FileEdits>,
    /// Match, validate and show the diffs, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Write even if a result has new parse errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

/// The edits of one file in `edit_files`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEdits {
    pub path: String,
    pub edits: Vec<TextEdit>,
    #[serde(default)]
    pub expected_hash: Option<String>,
}

impl From<EditFilesParams> for lib::EditFilesParams {
    fn from(p: EditFilesParams) -> Self {
        lib::EditFilesParams {
            files: p
                .files
                .into_iter()
                .map(|f| lib::FileEdits {
                    path: f.path,
                    edits: edits(f.edits),
                    expected_hash: f.expected_hash,
                })
                .collect(),
            dry_run: p.dry_run,
            allow_syntax_errors: p.allow_syntax_errors,
        }
    }
}

/// A whole file to create or overwrite (`write_file`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteParams {
    /// The file, relative to the root or absolute inside it; missing parent
    /// folders are created (inside the root only).
    #[schemars(description = "Missing parent folders are created.")]
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// Refuse with STALE_FILE unless the file still has this hash.
    #[schemars(description = "Refuse unless the file has this file_hash.")]
    #[serde(default)]
    pub expected_hash: Option<String>,
    // Validate and show the diff, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    // Write even if the content has (new) parse errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

impl From<WriteParams> for lib::WriteParams {
    fn from(p: WriteParams) -> Self {
        lib::WriteParams {
            path: p.path,
            content: p.content,
            expected_hash: p.expected_hash,
            dry_run: p.dry_run,
            allow_syntax_errors: p.allow_syntax_errors,
        }
    }
}

/// What to list (`list_directory`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TreeParams {
    /// Folder, relative to the root (default: the root).
    #[serde(default)]
    pub path: Option<String>,
    /// Levels below the folder to show (default 3).
    #[serde(default)]
    pub depth: Option<usize>,
    /// Most entries shown (default 200); the rest are counted in "… N more" lines.
    #[schemars(description = "Most entries shown (default 200).")]
    #[serde(default)]
    pub max_items: Option<usize>,
    /// Show file sizes.
    #[serde(default)]
    pub sizes: bool,
    /// Include hidden files and folders (never `.git`).
    #[schemars(description = "Include hidden entries.")]
    #[serde(default)]
    pub hidden: bool,
}

impl From<TreeParams> for lib_tree::TreeParams {
    fn from(p: TreeParams) -> Self {
        lib_tree::TreeParams {
            path: p.path,
            depth: p.depth,
            max_items: p.max_items,
            sizes: p.sizes,
            hidden: p.hidden,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_the_tool_describes_carry_no_description() {
        let schema = schemars::schema_for!(TextEdit);
        // The fields the tool's description covers carry none (tools/list
        // budget); the others describe themselves.
        let props = &schema.as_value()["properties"];
        assert!(props["old_text"].get("description").is_none());
        assert!(props["anchor"]["description"].is_string());
    }

    #[test]
    fn a_wire_edit_becomes_the_same_library_edit() {
        let v = serde_json::json!({
            "old_text": "a", "new_text": "b", "fuzzy": "whitespace",
            "anchor": {"before": "def f(", "line_range": {"start": 2, "end": 9}},
            "expected_matches": 2, "max_distance": 3, "whole_word": true
        });
        let wire: TextEdit = serde_json::from_value(v.clone()).unwrap();
        let lib: lib_text::TextEdit = serde_json::from_value(v).unwrap();
        assert_eq!(lib_text::TextEdit::from(wire), lib);
    }
}
