//! The vocabulary of hints. Error suggestions and truncation notes are
//! written once, in the library, and name parameters and tools only through
//! marked terms: `⟦allow_syntax_errors⟧`, `⟦expected_matches=3⟧`,
//! `⟦read_file⟧`. A term is spelled with its MCP name; a value after `=`
//! is what the caller would pass. Each interface renders the terms in its
//! own words ([`render`] with its table): the MCP adapter as fields and tools
//! (`src/mcp/reply.rs`), the CLI as flags and commands (`src/cli/words.rs`).
//! So a CLI user never reads `allow_syntax_errors`, and an agent never reads
//! `--allow-syntax-errors`.

/// Opens a marked term.
pub const OPEN: char = '⟦';
/// Closes a marked term.
pub const CLOSE: char = '⟧';

macro_rules! terms {
    ($($variant:ident = $name:literal,)*) => {
        /// A parameter or tool a hint can name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Term {
            $($variant,)*
        }

        impl Term {
            pub const ALL: &[Term] = &[$(Term::$variant,)*];

            /// The neutral (and MCP) spelling used inside the markers.
            pub fn name(self) -> &'static str {
                match self {
                    $(Term::$variant => $name,)*
                }
            }
        }
    };
}

terms! {
    // Tools (CLI: commands).
    ListSymbols = "list_symbols",
    ExtractCode = "extract_code",
    UpdateSymbol = "update_symbol",
    SearchFiles = "search_files",
    ReadFile = "read_file",
    ReadFragment = "read_fragment",
    EditFile = "edit_file",
    WriteFile = "write_file",
    ListDirectory = "list_directory",
    UndoEdit = "undo_edit",
    SearchCodebase = "search_codebase",
    // Parameters (CLI: flags and arguments).
    AllowSyntaxErrors = "allow_syntax_errors",
    Force = "force",
    ExpectedHash = "expected_hash",
    ExpectedMatches = "expected_matches",
    OldText = "old_text",
    NewText = "new_text",
    Edits = "edits",
    Anchor = "anchor",
    AnchorBefore = "anchor.before",
    AnchorAfter = "anchor.after",
    AnchorLineRange = "anchor.line_range",
    Fuzzy = "fuzzy",
    WholeWord = "whole_word",
    Keywords = "keywords",
    Pattern = "pattern",
    Path = "path",
    Include = "include",
    Exclude = "exclude",
    IncludeNameOnly = "include_name_only",
    LeaveUncertain = "leave_uncertain",
    MaxResults = "max_results",
    MaxMatchesPerFile = "max_matches_per_file",
    MaxItems = "max_items",
    MaxFiles = "max_files",
    MaxLines = "max_lines",
    Ranges = "ranges",
    Lines = "start_line/end_line",
    StartLine = "start_line",
    Head = "head",
    Tail = "tail",
    Depth = "depth",
    Kind = "kind",
    Language = "language",
    Operation = "operation",
    NewCode = "new_code",
    EditId = "edit_id",
    RecentEditIds = "recent_edit_ids",
    Root = "root",
    MaxFileSize = "max_file_size",
    ParseTimeout = "parse_timeout",
    MaxSymbols = "max_symbols",
    Cursor = "cursor",
    Symbol = "symbol",
    MaxTokens = "max_tokens",
}

impl Term {
    pub fn from_name(name: &str) -> Option<Term> {
        Term::ALL.iter().copied().find(|t| t.name() == name)
    }
}

/// `⟦term⟧`, for building hints with a computed value.
pub fn term(t: Term) -> String {
    format!("{OPEN}{}{CLOSE}", t.name())
}

/// `⟦term=value⟧`.
pub fn term_with(t: Term, value: impl std::fmt::Display) -> String {
    format!("{OPEN}{}={value}{CLOSE}", t.name())
}

/// `text` with every marked term replaced by `words(term, value)`. A marker
/// that names no known term is kept as it is (it may be the user's own
/// text), so rendering twice changes nothing.
pub fn render(text: &str, words: impl Fn(Term, Option<&str>) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(OPEN) {
        out.push_str(&rest[..open]);
        let after = &rest[open + OPEN.len_utf8()..];
        let Some(close) = after.find(CLOSE) else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &after[..close];
        let (name, value) = match inner.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (inner, None),
        };
        match Term::from_name(name) {
            Some(t) => out.push_str(&words(t, value)),
            None => {
                out.push(OPEN);
                out.push_str(inner);
                out.push(CLOSE);
            }
        }
        rest = &after[close + CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// Every marked term in `text` (known or not), for tests.
pub fn marked(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(OPEN) {
        let after = &rest[open + OPEN.len_utf8()..];
        let Some(close) = after.find(CLOSE) else {
            break;
        };
        let inner = &after[..close];
        found.push(inner.split_once('=').map_or(inner, |(n, _)| n).to_string());
        rest = &after[close + CLOSE.len_utf8()..];
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper(t: Term, v: Option<&str>) -> String {
        match v {
            Some(v) => format!("{}({v})", t.name().to_uppercase()),
            None => t.name().to_uppercase(),
        }
    }

    #[test]
    fn renders_terms_and_values() {
        let s = format!(
            "pass {} or set {}",
            term(Term::AllowSyntaxErrors),
            term_with(Term::ExpectedMatches, 3)
        );
        assert_eq!(
            render(&s, upper),
            "pass ALLOW_SYNTAX_ERRORS or set EXPECTED_MATCHES(3)"
        );
    }

    #[test]
    fn unknown_and_unclosed_markers_stay() {
        assert_eq!(render("a ⟦nope⟧ b", upper), "a ⟦nope⟧ b");
        assert_eq!(render("a ⟦force", upper), "a ⟦force");
        assert_eq!(render("no markers", upper), "no markers");
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = Term::ALL.iter().map(|t| t.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Term::ALL.len());
    }

    /// Every term marked anywhere in the sources is in the vocabulary, so a
    /// typo cannot slip through unrendered.
    #[test]
    fn every_marked_term_in_the_sources_is_known() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut unknown = Vec::new();
        for entry in ignore::Walk::new(&src) {
            let f = entry.unwrap().into_path();
            if f.extension().is_none_or(|e| e != "rs") || f.ends_with("hint.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            for name in marked(&text) {
                if Term::from_name(&name).is_none() {
                    unknown.push(format!("{}: {name}", f.display()));
                }
            }
        }
        assert!(unknown.is_empty(), "unknown terms: {unknown:#?}");
    }
}
