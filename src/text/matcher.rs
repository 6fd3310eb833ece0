//! Keyword and regex matching within one line, shared by `search_files` and
//! `read_fragment`'s keyword requests so both agree on what a match is.
//!
//! Each keyword gets its own regex (escaped, optionally case-insensitive) so
//! that every hit can say which keyword it is, and so that overlapping
//! keywords (`foo` and `foobar`) are both found. Whole-word matching is
//! decided here, not by the regex: a hit counts when the characters on both
//! sides of it are not word characters (letters, digits, `_`). That is the
//! same rule as `grep -w`, and it also works for keywords that begin or end
//! with punctuation (`foo(`), where `\b` would not.

use crate::error::{Error, ErrorCode, Result};
use regex::{Regex, RegexBuilder};

/// Limit on the compiled size of a user regex, so a pathological pattern is
/// refused instead of exhausting memory.
const REGEX_SIZE_LIMIT: usize = 32 * 1024 * 1024;
/// A keyword this short, in ASCII, has its regex compiled on first use.
const LAZY_KEYWORD_LEN: usize = 256;

/// One hit inside a line: which keyword (index into [`KeywordMatcher::labels`])
/// and its byte range in the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeywordHit {
    pub keyword: usize,
    pub start: usize,
    pub end: usize,
}

/// Finds keywords (any of several literals) or one regex pattern in lines.
#[derive(Debug, Clone)]
pub struct KeywordMatcher {
    labels: Vec<String>,
    /// Each keyword's regex (or the pattern's). A short ASCII keyword's is
    /// compiled on first use: on ASCII lines it is found without it
    /// ([`find_literal`]), and compiling every keyword's regex was a
    /// twentieth of a CLI search for a rare word. Any other is compiled
    /// at once, so a bad one is refused before anything is searched.
    regexes: Vec<std::sync::OnceLock<Regex>>,
    /// The regex sources of [`Self::regexes`].
    sources: Vec<String>,
    whole_word: bool,
    case_sensitive: bool,
    is_pattern: bool,
    /// One pattern matching any keyword, for fast line prefiltering.
    alternation: String,
}

impl KeywordMatcher {
    /// Match any of `keywords` literally. Empty keywords are refused.
    pub fn keywords(keywords: &[String], case_sensitive: bool, whole_word: bool) -> Result<Self> {
        let mut labels: Vec<String> = Vec::new();
        for k in keywords {
            if k.is_empty() {
                return Err(
                    Error::invalid_argument("keywords must not contain an empty string")
                        .with_suggestion(
                            "remove the empty keyword, or pass at least one non-empty keyword",
                        )
                        .with_details(serde_json::json!({"keywords": keywords})),
                );
            }
            if k.contains('\n') {
                return Err(Error::invalid_argument(format!(
                    "keyword {k:?} contains a newline; keywords match within one line"
                ))
                .with_suggestion(
                    "split it into one keyword per line, or search for one line of it",
                ));
            }
            if !labels.contains(k) {
                labels.push(k.clone());
            }
        }
        if labels.is_empty() {
            return Err(Error::invalid_argument("no keywords given")
                .with_suggestion("pass ⟦keywords⟧, any of which matches, or a regex ⟦pattern⟧"));
        }
        let escaped: Vec<String> = labels.iter().map(|k| regex::escape(k)).collect();
        let mut regexes = Vec::with_capacity(escaped.len());
        for (label, source) in labels.iter().zip(&escaped) {
            let re = std::sync::OnceLock::new();
            if !(label.is_ascii() && label.len() <= LAZY_KEYWORD_LEN) {
                let _ = re.set(build(source, case_sensitive)?);
            }
            regexes.push(re);
        }
        Ok(KeywordMatcher {
            alternation: escaped.join("|"),
            labels,
            regexes,
            sources: escaped,
            whole_word,
            case_sensitive,
            is_pattern: false,
        })
    }

    /// Match a regular expression (Rust `regex` syntax). Hits are labelled
    /// with the pattern itself.
    pub fn pattern(pattern: &str, case_sensitive: bool, whole_word: bool) -> Result<Self> {
        if pattern.is_empty() {
            return Err(Error::invalid_argument("pattern is empty")
                .with_suggestion("pass a non-empty regex, or use ⟦keywords⟧ for literal text"));
        }
        let re = build(pattern, case_sensitive)?;
        Ok(KeywordMatcher {
            labels: vec![pattern.to_string()],
            regexes: vec![std::sync::OnceLock::from(re)],
            sources: vec![pattern.to_string()],
            whole_word,
            case_sensitive,
            is_pattern: true,
            alternation: pattern.to_string(),
        })
    }

    /// The keywords (or the single pattern) hits refer to.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// True for a regex pattern, false for literal keywords.
    pub fn is_pattern(&self) -> bool {
        self.is_pattern
    }

    pub fn case_sensitive(&self) -> bool {
        self.case_sensitive
    }

    /// One regex source that matches a superset of the lines with a hit
    /// (whole-word filtering is applied afterwards by [`Self::find_in_line`]).
    pub fn alternation(&self) -> &str {
        &self.alternation
    }

    /// Every hit in `line` (terminator excluded by the caller or ignored
    /// here), ordered by position, then keyword.
    pub fn find_in_line(&self, line: &str) -> Vec<KeywordHit> {
        let mut hits = Vec::new();
        self.find_with(line, true, &mut hits);
        hits
    }

    /// [`Self::find_in_line`] into `hits` (cleared first): a search calls
    /// this on every matching line, and reuses one buffer for all of them.
    pub fn find_in_line_into(&self, line: &str, hits: &mut Vec<KeywordHit>) {
        hits.clear();
        self.find_with(line, true, hits);
    }

    /// [`Self::find_in_line`]; `literal`: a keyword is looked for without
    /// its regex where that finds exactly the same (see [`find_literal`]):
    /// a search for a frequent word calls this on every matching line, and
    /// the regex's per-call cost was a quarter of such a search.
    fn find_with(&self, line: &str, literal: bool, hits: &mut Vec<KeywordHit>) {
        let line = crate::text::lines::strip_eol(line);
        let ascii_line = line.is_ascii();
        for k in 0..self.regexes.len() {
            let label = self.labels[k].as_bytes();
            // Bytes as they are, or ASCII case folded when the keyword and
            // the line are ASCII: then no other character can fold to one
            // of theirs, and the regex's Unicode folding finds the same.
            let fold = !self.case_sensitive;
            let fast = literal && !self.is_pattern && (!fold || (ascii_line && label.is_ascii()));
            let mut at = 0;
            while at <= line.len() {
                let found = if fast {
                    find_literal(line.as_bytes(), label, at, fold).map(|i| (i, i + label.len()))
                } else {
                    self.regex(k)
                        .find_at(line, at)
                        .map(|m| (m.start(), m.end()))
                };
                let Some((start, end)) = found else { break };
                let accepted = start < end && (!self.whole_word || is_whole_word(line, start, end));
                if accepted {
                    hits.push(KeywordHit {
                        keyword: k,
                        start,
                        end,
                    });
                    at = end;
                } else {
                    // Retry one character later: a shifted occurrence may
                    // still be a whole word (or non-empty).
                    at = next_boundary(line, start);
                }
            }
        }
        if self.regexes.len() > 1 {
            hits.sort_by_key(|h| (h.start, h.keyword));
        }
    }
}

impl KeywordMatcher {
    /// Keyword `k`'s regex, compiled now if it was left for first use.
    fn regex(&self, k: usize) -> &Regex {
        self.regexes[k].get_or_init(|| {
            // Only a short ASCII keyword is left for later, and its escaped
            // form is a few hundred bytes of plain characters: far inside
            // the size limit, nothing else can make it fail.
            build(&self.sources[k], self.case_sensitive)
                .expect("a short escaped ASCII keyword always compiles")
        })
    }
}

fn build(source: &str, case_sensitive: bool) -> Result<Regex> {
    RegexBuilder::new(source)
        .case_insensitive(!case_sensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            Error::new(
                ErrorCode::InvalidArgument,
                format!("invalid regex {source:?}: {e}"),
            )
            .with_suggestion(
                "fix the pattern (Rust regex syntax), or pass literal text as ⟦keywords⟧",
            )
            .with_details(serde_json::json!({"pattern": source, "regex_error": e.to_string()}))
        })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// True when neither neighbour of `start..end` is a word character.
pub fn is_whole_word(line: &str, start: usize, end: usize) -> bool {
    let before = line.get(..start).and_then(|s| s.chars().next_back());
    let after = line.get(end..).and_then(|s| s.chars().next());
    !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
}

/// Where `needle` (not empty) first occurs in `hay` at or after `from`:
/// byte for byte, or with ASCII letters folded (`fold`; for ASCII text).
/// A literal keyword's regex finds the same leftmost occurrence.
fn find_literal(hay: &[u8], needle: &[u8], from: usize, fold: bool) -> Option<usize> {
    let rest = hay.get(from..)?;
    if !fold {
        return memchr::memmem::find(rest, needle).map(|i| from + i);
    }
    let first = needle[0];
    let (lo, up) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let mut at = 0;
    while let Some(i) = memchr::memchr2(lo, up, &rest[at..]) {
        let start = at + i;
        match rest.get(start..start + needle.len()) {
            Some(w) if w.eq_ignore_ascii_case(needle) => return Some(from + start),
            Some(_) => at = start + 1,
            None => return None,
        }
    }
    None
}

fn next_boundary(s: &str, i: usize) -> usize {
    let mut j = i + 1;
    while j < s.len() && !s.is_char_boundary(j) {
        j += 1;
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kw(ks: &[&str], cs: bool, ww: bool) -> KeywordMatcher {
        let ks: Vec<String> = ks.iter().map(|s| s.to_string()).collect();
        KeywordMatcher::keywords(&ks, cs, ww).unwrap()
    }

    proptest::proptest! {
        /// Keywords found without their regex are found exactly where the
        /// regex finds them, in either case mode, whole words or not, on
        /// ASCII lines and lines with characters that fold to ASCII ones
        /// (the Kelvin sign, the long s).
        #[test]
        fn literal_search_finds_what_the_regex_finds(
            line in "[kKsSx_ (\u{212A}\u{17F}\u{E9}]{0,24}",
            words in proptest::collection::vec("[kKsSx_(\u{E9}]{1,3}", 1..3),
            case_sensitive: bool,
            whole_word: bool,
        ) {
            let m = KeywordMatcher::keywords(&words, case_sensitive, whole_word).unwrap();
            let find = |literal| {
                let mut hits = Vec::new();
                m.find_with(&line, literal, &mut hits);
                hits
            };
            proptest::prop_assert_eq!(find(true), find(false));
        }
    }

    #[test]
    fn overlapping_keywords_are_all_found() {
        let m = kw(&["foo", "foobar"], true, false);
        let hits = m.find_in_line("x foobar\n");
        assert_eq!(hits.len(), 2);
        assert_eq!((hits[0].keyword, hits[0].start), (0, 2));
        assert_eq!((hits[1].keyword, hits[1].end), (1, 8));
    }

    #[test]
    fn whole_word_and_case() {
        let m = kw(&["foo"], false, true);
        let hits = m.find_in_line("food FOO foo_x (foo)");
        assert_eq!(
            hits.iter().map(|h| h.start).collect::<Vec<_>>(),
            vec![5, 16]
        );
        let m = kw(&["foo("], true, true);
        assert_eq!(m.find_in_line("foo(x) foo( y").len(), 1);
        let m = kw(&["Foo"], true, false);
        assert!(m.find_in_line("foo").is_empty());
    }

    #[test]
    fn regex_patterns_and_errors() {
        let m = KeywordMatcher::pattern(r"fn \w+", true, false).unwrap();
        assert_eq!(m.find_in_line("pub fn main() {").len(), 1);
        // Empty matches are never hits and never loop.
        let m = KeywordMatcher::pattern(r"x*", true, false).unwrap();
        assert_eq!(m.find_in_line("ab x é").len(), 1);
        let e = KeywordMatcher::pattern("(", true, false).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(KeywordMatcher::keywords(&["".into()], true, false).is_err());
        assert!(KeywordMatcher::keywords(&[], true, false).is_err());
        assert!(m.labels()[0] == "x*");
    }
}
