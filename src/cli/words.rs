//! The CLI's words for the hint vocabulary ([`crate::hint`]): each MCP
//! field becomes its flag, each tool its command, and a value is written as
//! it would be typed, so a hint can be pasted.

use crate::hint::{self, Term};

/// The CLI spelling of `term` (with `value` when the hint has one).
pub fn cli_words(term: Term, value: Option<&str>) -> String {
    let flag = |f: &str| match value {
        Some(v) => format!("`{f} {}`", shell_word(v)),
        None => format!("`{f}`"),
    };
    match term {
        Term::ListSymbols => "`scalpel symbols FILE`".into(),
        Term::ExtractCode => "`scalpel extract`".into(),
        Term::UpdateSymbol => "`scalpel update`".into(),
        Term::SearchFiles => "`scalpel search`".into(),
        Term::ReadFile => "`scalpel read`".into(),
        Term::ReadFragment => "`scalpel read` (--lines, --keywords, --symbols)".into(),
        Term::EditFile => "`scalpel edit`".into(),
        Term::WriteFile => "`scalpel write`".into(),
        Term::ListDirectory => "`scalpel tree`".into(),
        Term::UndoEdit => "`scalpel undo`".into(),
        Term::SearchCodebase => "`scalpel find`".into(),
        Term::AllowSyntaxErrors => "`--allow-syntax-errors`".into(),
        Term::Force => "`--force`".into(),
        Term::ExpectedHash => flag("--expected-hash"),
        Term::ExpectedMatches => flag("--expected-matches"),
        Term::OldText => "--old".into(),
        Term::NewText => "--new".into(),
        Term::Edits => "`--edits F.json`".into(),
        Term::Anchor => match value.and_then(anchor_flags) {
            Some(flags) => format!("`{flags}`"),
            None => "an anchor (--anchor-before T, --anchor-after T or --anchor-lines A-B)".into(),
        },
        Term::AnchorBefore => flag("--anchor-before"),
        Term::AnchorAfter => flag("--anchor-after"),
        Term::AnchorLineRange => flag("--anchor-lines"),
        Term::Fuzzy => flag("--fuzzy"),
        Term::WholeWord => "`--whole-word`".into(),
        Term::Keywords => "plain terms (without --regex)".into(),
        Term::Pattern => "`--regex`".into(),
        Term::Path => flag("--path"),
        Term::Include => flag("--include"),
        Term::Exclude => flag("--exclude"),
        Term::IncludeNameOnly => "`--include-name-only`".into(),
        Term::LeaveUncertain => "`--leave-uncertain`".into(),
        Term::MaxResults => flag("--max-results"),
        Term::MaxMatchesPerFile => flag("--max-matches-per-file"),
        Term::MaxItems => flag("--max-items"),
        Term::MaxFiles => "a narrower folder (`scalpel symbols` lists every file)".into(),
        Term::MaxLines => flag("--max-lines"),
        Term::Ranges | Term::Lines => flag("--lines"),
        Term::StartLine => flag("--from"),
        Term::Head => flag("--head"),
        Term::Tail => flag("--tail"),
        Term::Depth => flag("--depth"),
        Term::Kind => flag("--kind"),
        Term::Language => flag("--language"),
        Term::Operation => match value {
            Some(v) => format!("`--op {}`", v.replace('_', "-")),
            None => "`--op`".into(),
        },
        Term::NewCode => "the new code (on stdin or with --code-file F)".into(),
        Term::EditId => flag("--edit"),
        Term::RecentEditIds => "the edit ids `scalpel history FILE` lists".into(),
        Term::Root => "`--root DIR`".into(),
        Term::MaxFileSize => flag("--max-file-size"),
        Term::ParseTimeout => flag("--parse-timeout"),
        Term::MaxSymbols => flag("--max-symbols"),
        Term::Cursor => flag("--cursor"),
        Term::Symbol => flag("--symbol"),
        Term::MaxTokens => flag("--max-tokens"),
    }
}

/// `anchor` given as JSON (`{"before": "def f("}`) as the flags of
/// `scalpel edit`.
fn anchor_flags(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let mut flags = Vec::new();
    if let Some(t) = v.get("before").and_then(|t| t.as_str()) {
        flags.push(format!("--anchor-before {}", shell_word(t)));
    }
    if let Some(t) = v.get("after").and_then(|t| t.as_str()) {
        flags.push(format!("--anchor-after {}", shell_word(t)));
    }
    if let Some(r) = v.get("line_range") {
        flags.push(format!("--anchor-lines {}-{}", r["start"], r["end"]));
    }
    (!flags.is_empty()).then(|| flags.join(" "))
}

/// `s` as one shell word: bare when that is safe, else single-quoted.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,:=+@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// `text` with its marked terms in CLI words.
pub fn cli_text(text: &str) -> String {
    hint::render(text, cli_words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::{term, term_with};

    #[test]
    fn values_are_typed_as_they_would_be_pasted() {
        assert_eq!(
            cli_text(&format!("set {}", term_with(Term::ExpectedMatches, 66))),
            "set `--expected-matches 66`"
        );
        assert_eq!(
            cli_text(&term_with(Term::Anchor, r#"{"before":"def f(x):"}"#)),
            "`--anchor-before 'def f(x):'`"
        );
        assert_eq!(
            cli_text(&term_with(Term::Operation, "insert_before")),
            "`--op insert-before`"
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(cli_text(&term(Term::ListDirectory)), "`scalpel tree`");
    }
}
