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
/// lower-case.
pub fn for_each_token(text: &str, mut emit: impl FnMut(&str)) {
    let mut lower = String::new();
    for word in words(text) {
        lower.clear();
        lower.extend(word.chars().flat_map(char::to_lowercase));
        let whole = cut(&lower);
        if whole.len() >= MIN_LEN {
            emit(whole);
        }
        let mut parts = 0;
        let mut first = None;
        for_each_part(word, |p| {
            parts += 1;
            if parts == 1 {
                first = Some(p.to_string());
                return;
            }
            if parts == 2
                && let Some(f) = first.take()
            {
                emit_part(&f, &mut emit);
            }
            emit_part(p, &mut emit);
        });
    }
}

fn emit_part(p: &str, emit: &mut impl FnMut(&str)) {
    let l = p.to_lowercase();
    if l.len() >= MIN_LEN {
        emit(cut(&l));
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
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Is `word` a compound identifier (snake_case or camelCase)?
pub fn is_identifier_like(word: &str) -> bool {
    let mut n = 0;
    for_each_part(word, |_| n += 1);
    n > 1 || word.contains('_')
}

/// The parts of one word: split at `_` and at case changes
/// (`HTTPServer` → `HTTP`, `Server`; `parse2d` stays whole).
pub fn for_each_part(word: &str, mut emit: impl FnMut(&str)) {
    for piece in word.split('_').filter(|p| !p.is_empty()) {
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
}

/// `text` as plain words for an embedding model: identifiers split into
/// their parts, lower-case, separated by spaces.
pub fn plain_words(text: &str, max_words: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    'outer: for word in words(text) {
        let mut parts = Vec::new();
        for_each_part(word, |p| parts.push(p.to_lowercase()));
        for p in parts {
            if n == max_words {
                break 'outer;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&p);
            n += 1;
        }
    }
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
    fn plain_words_split_identifiers() {
        assert_eq!(
            plain_words("fn follow_redirects(maxHops: u32)", 10),
            "fn follow redirects max hops u32"
        );
    }
}
