//! The code-aware tokenizer shared by indexing and queries: every run of
//! letters, digits and `_` is a word; a word yields itself case-folded and,
//! when it is a compound, its parts (`parseHTTPResponse` → `parsehttpresponse`,
//! `parse`, `http`, `response`; `follow_redirects` → `follow_redirects`,
//! `follow`, `redirects`). Kebab and dotted names split on their punctuation
//! like any other text. No stemming.

/// Words shorter than this are not indexed (single letters are noise).
const MIN_LEN: usize = 2;
/// Words longer than this are cut (minified blobs, hashes).
const MAX_LEN: usize = 48;

/// English words that carry no meaning in a question about code.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "in", "is", "it", "of", "on", "or", "the", "this", "that", "to", "what", "when", "where",
    "which", "who", "why", "with", "get", "gets", "used", "use", "code", "function", "find",
];

/// Call `emit` with each token of `text`: whole words and their parts,
/// lower-case. No allocation per word (two buffers reused).
pub fn for_each_token(text: &str, mut emit: impl FnMut(&str)) {
    let mut lower = String::new();
    let mut part = String::new();
    for word in words(text) {
        lower.clear();
        if word.is_ascii() {
            lower.push_str(word);
            lower.make_ascii_lowercase();
        } else {
            lower.extend(word.chars().flat_map(char::to_lowercase));
        }
        let whole = cut(&lower);
        if whole.len() >= MIN_LEN {
            emit(whole);
        }
        let mut parts = 0;
        let mut first = None;
        for_each_part(word, |p| {
            parts += 1;
            if parts == 1 {
                first = Some(p);
                return;
            }
            if parts == 2
                && let Some(f) = first.take()
            {
                emit_part(f, &mut part, &mut emit);
            }
            emit_part(p, &mut part, &mut emit);
        });
    }
}

fn emit_part(p: &str, buf: &mut String, emit: &mut impl FnMut(&str)) {
    lower_into(p, buf);
    if buf.len() >= MIN_LEN {
        emit(cut(buf));
    }
}

/// `p` lower-cased into `buf` (as `str::to_lowercase`).
fn lower_into(p: &str, buf: &mut String) {
    buf.clear();
    if p.is_ascii() {
        buf.push_str(p);
        buf.make_ascii_lowercase();
    } else {
        buf.push_str(&p.to_lowercase());
    }
}

fn cut(s: &str) -> &str {
    if s.len() <= MAX_LEN {
        return s;
    }
    let mut end = MAX_LEN;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Every token of `text`, in order (repeats kept).
pub fn tokens(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    for_each_token(text, |t| v.push(t.to_string()));
    v
}

/// The distinct tokens of a query, stop words dropped (unless nothing else
/// is left), in first-seen order.
pub fn query_tokens(query: &str) -> Vec<String> {
    let mut all = Vec::new();
    for_each_token(query, |t| {
        if !all.iter().any(|x: &String| x == t) {
            all.push(t.to_string());
        }
    });
    let kept: Vec<String> = all
        .iter()
        .filter(|t| !STOP_WORDS.contains(&t.as_str()))
        .cloned()
        .collect();
    if kept.is_empty() { all } else { kept }
}

/// Other forms of an English query word, to look for as well: the index
/// does not stem, so a query's `redirects` also asks for `redirect`, and
/// `parse` for `parses`, `parsed`, `parser` (weighted lower by the caller).
pub fn variants(t: &str) -> Vec<String> {
    let mut v = Vec::new();
    if t.len() < 4 || !t.chars().all(|c| c.is_ascii_lowercase()) {
        return v;
    }
    let strip = |suffix: &str| t.strip_suffix(suffix).filter(|s| s.len() >= 3);
    if let Some(s) = strip("ies") {
        v.push(format!("{s}y"));
    }
    if let Some(s) = strip("es") {
        v.push(s.to_string());
    }
    if let Some(s) = strip("s").filter(|s| !s.ends_with('s')) {
        v.push(s.to_string());
    }
    if let Some(s) = strip("ed") {
        v.push(s.to_string());
        v.push(format!("{s}e"));
    }
    if let Some(s) = strip("ing") {
        v.push(s.to_string());
        v.push(format!("{s}e"));
    }
    if let Some(s) = strip("er") {
        v.push(s.to_string());
        v.push(format!("{s}e"));
    }
    if let Some(stem) = t.strip_suffix('e') {
        v.extend([
            format!("{t}s"),
            format!("{t}d"),
            format!("{t}r"),
            format!("{stem}ing"),
        ]);
    } else if !t.ends_with('s') {
        v.extend([
            format!("{t}s"),
            format!("{t}ed"),
            format!("{t}er"),
            format!("{t}ing"),
        ]);
    }
    v.retain(|x| x != t);
    v.dedup();
    v
}

/// The words of `text` (runs of alphanumerics and `_`).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    Words { text, pos: 0 }
}

/// [`words`], a byte at a time over ASCII (decoding a char only where the
/// text is not ASCII).
struct Words<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Words<'a> {
    /// Whether the char at `pos` belongs to a word, and its length.
    fn at(&self) -> (bool, usize) {
        let b = self.text.as_bytes()[self.pos];
        if b.is_ascii() {
            return (b.is_ascii_alphanumeric() || b == b'_', 1);
        }
        let c = self.text[self.pos..].chars().next().unwrap_or(' ');
        (c.is_alphanumeric(), c.len_utf8())
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let len = self.text.len();
        while self.pos < len {
            let (word, n) = self.at();
            if word {
                break;
            }
            self.pos += n;
        }
        if self.pos >= len {
            return None;
        }
        let start = self.pos;
        while self.pos < len {
            let (word, n) = self.at();
            if !word {
                break;
            }
            self.pos += n;
        }
        Some(&self.text[start..self.pos])
    }
}

/// Is `word` a compound identifier (snake_case or camelCase)?
pub fn is_identifier_like(word: &str) -> bool {
    let mut n = 0;
    for_each_part(word, |_| n += 1);
    n > 1 || word.contains('_')
}

/// The parts of one word: split at `_` and at case changes
/// (`HTTPServer` → `HTTP`, `Server`; `parse2d` stays whole).
pub fn for_each_part<'a>(word: &'a str, mut emit: impl FnMut(&'a str)) {
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        if piece.is_ascii() {
            ascii_parts(piece, &mut emit);
        } else {
            char_parts(piece, &mut emit);
        }
    }
}

/// [`for_each_part`] of one piece (no `_`), char by char.
fn char_parts<'a>(piece: &'a str, emit: &mut impl FnMut(&'a str)) {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = (prev.is_lowercase() && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next_lower)
            || (prev.is_alphabetic() && c.is_ascii_digit() && !prev.is_lowercase())
            || (prev.is_ascii_digit() && c.is_alphabetic() && c.is_uppercase());
        if boundary {
            emit(&piece[start..at]);
            start = at;
        }
    }
    emit(&piece[start..]);
}

/// [`for_each_part`] of an ASCII piece (no `_`), over bytes: the same
/// boundaries without collecting the chars.
fn ascii_parts<'a>(piece: &'a str, emit: &mut impl FnMut(&'a str)) {
    let b = piece.as_bytes();
    let mut start = 0;
    for i in 1..b.len() {
        let (prev, c) = (b[i - 1], b[i]);
        let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
            || (prev.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower)
            || (prev.is_ascii_uppercase() && c.is_ascii_digit())
            || (prev.is_ascii_digit() && c.is_ascii_uppercase());
        if boundary {
            emit(&piece[start..i]);
            start = i;
        }
    }
    emit(&piece[start..]);
}

/// Call `emit` with the plain words of `text` ([`plain_words`]), at most
/// `max_words`, lower-cased into `buf`; stops when `emit` says `false` and
/// then returns `false`.
pub fn for_each_plain_word(
    text: &str,
    max_words: usize,
    buf: &mut String,
    mut emit: impl FnMut(&str) -> bool,
) -> bool {
    let mut n = 0;
    let mut go = true;
    for word in words(text) {
        for_each_part(word, |p| {
            if !go || n == max_words {
                return;
            }
            lower_into(p, buf);
            n += 1;
            go = emit(buf.as_str());
        });
        if !go || n == max_words {
            break;
        }
    }
    go
}

/// `text` as plain words for an embedding model: identifiers split into
/// their parts, lower-case, separated by spaces.
pub fn plain_words(text: &str, max_words: usize) -> String {
    let mut out = String::new();
    let mut buf = String::new();
    for_each_plain_word(text, max_words, &mut buf, |w| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
        true
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_give_themselves_and_their_parts() {
        assert_eq!(
            tokens("parseHTTPResponse follow_redirects x"),
            [
                "parsehttpresponse",
                "parse",
                "http",
                "response",
                "follow_redirects",
                "follow",
                "redirects"
            ]
        );
        assert_eq!(tokens("follow-redirects"), ["follow", "redirects"]);
        assert_eq!(tokens("Point::new"), ["point", "new"]);
    }

    #[test]
    fn queries_drop_stop_words_and_repeats() {
        assert_eq!(
            query_tokens("where are HTTP redirects followed, redirects"),
            ["http", "redirects", "followed"]
        );
        assert_eq!(query_tokens("the"), ["the"]);
    }

    #[test]
    fn query_words_have_their_other_forms() {
        assert!(variants("redirects").contains(&"redirect".to_string()));
        assert!(variants("followed").contains(&"follow".to_string()));
        assert!(variants("parse").contains(&"parser".to_string()));
        assert!(variants("class").iter().all(|v| v != "clas"));
        assert!(variants("io").is_empty());
    }

    #[test]
    fn ascii_parts_cut_where_the_char_rules_cut() {
        // The byte path is a shortcut of the char rules: the same cuts on
        // every shape of identifier (case runs, digits on either side).
        let words = [
            "HTTPServer",
            "parse2d",
            "utf8Decode",
            "X11R6",
            "ABC",
            "getHTTP2Frame",
            "a1B2c3",
            "IOError",
            "v8",
            "MAX",
            "parseHTTPResponse",
            "Base64URLEncoder",
            "x",
            "A1b",
            "aB",
            "Ab",
            "AB1c",
        ];
        for w in words {
            let (mut by_bytes, mut by_chars) = (Vec::new(), Vec::new());
            ascii_parts(w, &mut |p| by_bytes.push(p));
            char_parts(w, &mut |p| by_chars.push(p));
            assert_eq!(by_bytes, by_chars, "{w}");
        }
    }

    #[test]
    fn plain_words_split_identifiers() {
        assert_eq!(
            plain_words("fn follow_redirects(maxHops: u32)", 10),
            "fn follow redirects max hops u32"
        );
    }
}
