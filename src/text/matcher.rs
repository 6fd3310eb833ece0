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
    /// The keywords' [`Occurrences`], built on first use by
    /// [`Self::finds_in_ascii_text`] (once for a whole search); `None` when
    /// they cannot be.
    occurrences: std::sync::OnceLock<Option<Occurrences>>,
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
            occurrences: std::sync::OnceLock::new(),
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
            occurrences: std::sync::OnceLock::new(),
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
        self.find_with(line, true, |h| hits.push(h));
        if self.regexes.len() > 1 {
            hits.sort_by_key(|h| (h.start, h.keyword));
        }
        hits
    }

    /// The hits of [`Self::find_in_line`] handed to `found` as they are
    /// found, nothing kept: keyword after keyword, each keyword's by
    /// position (so by position for a pattern). A search calls this on
    /// every matching line, and a line of megabytes can have a hit every
    /// byte.
    pub fn for_each_hit_in_line(&self, line: &str, found: impl FnMut(KeywordHit)) {
        self.find_with(line, true, found);
    }

    /// Whether [`Self::for_each_hit_in_ascii_text`] may be asked: literal
    /// keywords, all of them ASCII without a line break, and not so many
    /// that they cannot be looked for together.
    pub fn finds_in_ascii_text(&self) -> bool {
        self.occurrences().is_some()
    }

    fn occurrences(&self) -> Option<&Occurrences> {
        self.occurrences
            .get_or_init(|| {
                let plain = |k: &String| k.is_ascii() && !k.contains(['\r', '\n']);
                if self.is_pattern || !self.labels.iter().all(plain) {
                    return None;
                }
                Occurrences::new(&self.labels, !self.case_sensitive)
            })
            .as_ref()
    }

    /// Every hit in `text`, ASCII and of any number of lines, handed to
    /// `found` as it is found, nothing kept: for each line of `text`,
    /// exactly the hits [`Self::find_in_line`] gives for it, moved to the
    /// line's place. A line's hits come together and lines in order (a hit
    /// is on the line of the window that found it), but within a line not
    /// by position: each keyword's by position. A search reads a file once
    /// this way instead of finding its lines, then each line's hits again.
    /// The same hits because a keyword holds no line break, so no hit spans
    /// two lines, and a line break is not a word character, as a line's
    /// ends are not; each keyword is taken at its leftmost place from where
    /// its last hit ended, and retried one byte later when not a whole
    /// word, as in a line (`accepts` decides for both). Does nothing unless
    /// [`Self::finds_in_ascii_text`].
    pub fn for_each_hit_in_ascii_text(&self, text: &str, mut found: impl FnMut(KeywordHit)) {
        let Some(occurrences) = self.occurrences() else {
            return;
        };
        debug_assert!(text.is_ascii());
        // Where each keyword may next be taken.
        let mut from = vec![0usize; self.labels.len()];
        occurrences.for_each_place(text.as_bytes(), |k, start| {
            if start < from[k] {
                return;
            }
            let end = start + self.labels[k].len();
            if self.accepts(text, start, end) {
                found(KeywordHit {
                    keyword: k,
                    start,
                    end,
                });
                from[k] = end;
            } else {
                from[k] = start + 1;
            }
        });
    }

    /// Whether an occurrence at `start..end` of `text` is a hit: not
    /// empty, and a whole word when whole words are asked.
    fn accepts(&self, text: &str, start: usize, end: usize) -> bool {
        start < end && (!self.whole_word || is_whole_word(text, start, end))
    }

    /// [`Self::find_in_line`]; `literal`: a keyword is looked for without
    /// its regex where that finds exactly the same (see [`find_literal`]):
    /// a search for a frequent word calls this on every matching line, and
    /// the regex's per-call cost was a quarter of such a search.
    fn find_with(&self, line: &str, literal: bool, mut hit: impl FnMut(KeywordHit)) {
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
                if self.accepts(line, start, end) {
                    hit(KeywordHit {
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

/// Where the keywords occur in whole ASCII texts, all found in one pass.
///
/// A few bytes of each keyword, its rarest, are looked for together, in
/// every case when folded (Teddy, as a regex's prefilter does); where one
/// is found, the keywords it belongs to are compared whole. A pass per
/// keyword was a fifth slower on two keywords than the searcher's one
/// pass; the first letter alone in its two cases stopped at every `s` of a
/// search for `self`.
#[derive(Debug, Clone)]
struct Occurrences {
    needles: Vec<Vec<u8>>,
    fold: bool,
    /// The windows: distinct and all of one width, so that at most one is
    /// found at any place, and every place where one is is found.
    searcher: aho_corasick::packed::Searcher,
    /// For each window: the needles it is part of, and where in them.
    owners: Vec<Vec<(usize, usize)>>,
}

/// Window bytes per keyword, at most (2^4 cases each when folded).
const WINDOW: usize = 4;
/// Windows looked for together, at most (what Teddy takes).
const MAX_WINDOWS: usize = 64;

impl Occurrences {
    /// `None` when the keywords' windows are too many to look for together.
    fn new(labels: &[String], fold: bool) -> Option<Self> {
        let shortest = labels.iter().map(String::len).min()?;
        for width in (1..=WINDOW.min(shortest)).rev() {
            let mut windows: Vec<Vec<u8>> = Vec::new();
            let mut owners: Vec<Vec<(usize, usize)>> = Vec::new();
            for (k, label) in labels.iter().enumerate() {
                let at = rarest_window(label.as_bytes(), width);
                for case in cases(&label.as_bytes()[at..at + width], fold) {
                    match windows.iter().position(|w| *w == case) {
                        Some(i) => owners[i].push((k, at)),
                        None => {
                            windows.push(case);
                            owners.push(vec![(k, at)]);
                        }
                    }
                }
            }
            if windows.len() <= MAX_WINDOWS {
                return Some(Occurrences {
                    needles: labels.iter().map(|l| l.as_bytes().to_vec()).collect(),
                    fold,
                    searcher: aho_corasick::packed::Searcher::new(&windows)?,
                    owners,
                });
            }
        }
        None
    }

    /// Every place where a needle occurs in `hay`, handed to `found` as
    /// `(needle, place)`: by the place of the window that found it, so each
    /// needle's places in increasing order.
    fn for_each_place(&self, hay: &[u8], mut found: impl FnMut(usize, usize)) {
        let mut i = 0;
        while let Some(m) = self
            .searcher
            .find_in(hay, aho_corasick::Span::from(i..hay.len()))
        {
            for &(k, at) in &self.owners[m.pattern().as_usize()] {
                let needle = &self.needles[k];
                let Some(start) = m.start().checked_sub(at) else {
                    continue;
                };
                let same = hay.get(start..start + needle.len()).is_some_and(|w| {
                    if self.fold {
                        w.eq_ignore_ascii_case(needle)
                    } else {
                        w == needle.as_slice()
                    }
                });
                if same {
                    found(k, start);
                }
            }
            i = m.start() + 1;
        }
    }
}

/// Every case of `bytes` (ASCII letters in both cases when `fold`).
fn cases(bytes: &[u8], fold: bool) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![Vec::with_capacity(bytes.len())];
    for &b in bytes {
        let (lo, up) = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
        if fold && lo != up {
            let upper: Vec<Vec<u8>> = out.iter().map(|c| [c.as_slice(), &[up]].concat()).collect();
            out.iter_mut().for_each(|c| c.push(lo));
            out.extend(upper);
        } else {
            out.iter_mut().for_each(|c| c.push(b));
        }
    }
    out
}

/// Where the `width` bytes of `needle` least frequent together begin, by
/// the frequency of letters in English text (which identifiers and
/// comments are made of; any other byte counts as frequent: spaces, `_`,
/// `(`, `.` are). The first of equally rare windows.
fn rarest_window(needle: &[u8], width: usize) -> usize {
    const BY_FREQUENCY: &[u8] = b"etaoinsrhldcumfpgwybvkxjqz";
    let rank = |b: &u8| {
        BY_FREQUENCY
            .iter()
            .position(|x| *x == b.to_ascii_lowercase())
            .unwrap_or(0)
    };
    let width = width.min(needle.len()).max(1);
    let mut best = (0, 0);
    for at in 0..=needle.len() - width {
        let r: usize = needle[at..at + width].iter().map(rank).sum();
        if r > best.1 {
            best = (at, r);
        }
    }
    best.0
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
                m.find_with(&line, literal, |h| hits.push(h));
                hits
            };
            proptest::prop_assert_eq!(find(true), find(false));
        }
    }

    proptest::proptest! {
        /// A whole text's hits are its lines' hits, each moved to its
        /// line's place (line breaks of both kinds, a lone `\r`, keywords
        /// that begin or end with punctuation, overlapping keywords).
        #[test]
        fn a_texts_hits_are_its_lines_hits(
            text in "[aAbB_ (\r\n-]{0,60}",
            words in proptest::collection::vec("[aAbB_(-]{1,6}", 1..4),
            case_sensitive: bool,
            whole_word: bool,
        ) {
            let m = KeywordMatcher::keywords(&words, case_sensitive, whole_word).unwrap();
            proptest::prop_assert!(m.finds_in_ascii_text());
            let mut whole = Vec::new();
            let mut line_ends = Vec::new();
            m.for_each_hit_in_ascii_text(&text, |h| {
                whole.push(h);
                line_ends.push(text[h.start..].find('\n').map_or(text.len(), |i| h.start + i));
            });
            // Lines in order, then each line's hits by position, keyword.
            proptest::prop_assert!(line_ends.is_sorted());
            whole.sort_by_key(|h| (h.start, h.keyword));
            let mut by_line = Vec::new();
            let mut at = 0;
            for line in text.split_inclusive('\n') {
                for h in m.find_in_line(line) {
                    by_line.push(KeywordHit { start: h.start + at, end: h.end + at, ..h });
                }
                at += line.len();
            }
            proptest::prop_assert_eq!(whole, by_line);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        /// Every place of every keyword is found, byte for byte or folded,
        /// keywords long and short, overlapping or sharing their windows:
        /// many false starts here.
        #[test]
        fn every_place_of_every_keyword_is_found(
            hay in "[abB_]{0,40}",
            needles in proptest::collection::vec("[abB_]{1,7}", 1..5),
            fold: bool,
        ) {
            let mut labels: Vec<String> = Vec::new();
            for n in needles {
                if !labels.contains(&n) {
                    labels.push(n);
                }
            }
            let o = Occurrences::new(&labels, fold).unwrap();
            let mut places = vec![Vec::new(); labels.len()];
            o.for_each_place(hay.as_bytes(), |k, p| places[k].push(p));
            for (k, n) in labels.iter().enumerate() {
                let n = n.as_bytes();
                let want: Vec<usize> = (0..hay.len())
                    .filter(|&i| {
                        hay.as_bytes().get(i..i + n.len()).is_some_and(|w| {
                            if fold { w.eq_ignore_ascii_case(n) } else { w == n }
                        })
                    })
                    .collect();
                proptest::prop_assert_eq!(&places[k], &want, "{:?}", n);
            }
        }
    }

    #[test]
    fn only_ascii_keywords_without_line_breaks_are_found_in_whole_texts() {
        assert!(kw(&["self", "foo("], false, true).finds_in_ascii_text());
        assert!(!kw(&["caf\u{e9}"], false, true).finds_in_ascii_text());
        assert!(!kw(&["a\rb"], false, true).finds_in_ascii_text());
        assert!(
            !KeywordMatcher::pattern("self", false, true)
                .unwrap()
                .finds_in_ascii_text()
        );
    }

    #[test]
    fn keywords_are_found_by_their_rarest_bytes_in_every_case() {
        assert_eq!(rarest_window(b"self", 1), 3);
        assert_eq!(rarest_window(b"getaddrinfo", 4), 4);
        assert_eq!(rarest_window(b"__init__", 1), 3);
        assert_eq!(rarest_window(b"--", 4), 0);
        assert_eq!(cases(b"a_B", true), [b"a_b", b"A_b", b"a_B", b"A_B"]);
        assert_eq!(cases(b"a_B", false), [b"a_B"]);
        let places = |labels: &[&str], fold, hay: &[u8]| {
            let labels: Vec<String> = labels.iter().map(|s| s.to_string()).collect();
            let mut places = vec![Vec::new(); labels.len()];
            Occurrences::new(&labels, fold)
                .unwrap()
                .for_each_place(hay, |k, p| places[k].push(p));
            places
        };
        // A false start, then the needle one byte later (its window's
        // cases, `bbbb`, overlap).
        assert_eq!(places(&["bbbba"], true, b"bBbbba"), [vec![1]]);
        // One window shared by two keywords, one of them inside the other.
        assert_eq!(
            places(&["tokenize", "untokenize"], true, b"untokenize TOKENIZE"),
            [vec![2, 11], vec![0]]
        );
        assert_eq!(places(&["Self"], false, b"self Self SELF"), [vec![5]]);
        // A keyword shorter than the window narrows everyone's.
        assert_eq!(
            places(&["getaddrinfo", "ab"], true, b"ab getAddrInfo"),
            [vec![3], vec![0]]
        );
        // Too many windows to look for together: the searcher reads those.
        let many: Vec<String> = ('!'..='z')
            .filter(|c| c.is_ascii_alphanumeric() || "!#%&*+-./:;<=>?@".contains(*c))
            .map(String::from)
            .collect();
        assert!(Occurrences::new(&many, true).is_none());
        assert!(
            !KeywordMatcher::keywords(&many, false, true)
                .unwrap()
                .finds_in_ascii_text()
        );
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
