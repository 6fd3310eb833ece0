//! WordPiece for the one kind of text the index embeds: plain lower-case
//! ASCII words (what `tokens::plain_words` makes of code). For such a word
//! the general `tokenizers` pipeline (added-token scan, BERT normalizer with
//! its Unicode tables, pre-tokenizer, offsets, truncation, padding) reduces
//! to WordPiece's greedy longest match over the vocabulary, which this does
//! with two hash lookups per candidate piece and no allocation.
//!
//! Only built when the model's tokenizer is exactly that pipeline (BERT
//! normalizer, BERT pre-tokenizer, WordPiece model, no added token that could
//! match inside a word); any other word (non-ASCII) is left to `tokenizers`
//! by the caller. `tests/search_index.rs`
//! (`own_wordpiece_matches_tokenizers_on_real_units`) holds the two equal on
//! the units of real code.

use serde::Deserialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use tokenizers::{ModelWrapper, NormalizerWrapper, PreTokenizerWrapper};

/// A small multiplicative hash for short vocabulary keys (the default
/// SipHash costs more than the lookup it guards).
#[derive(Default, Clone, Copy)]
struct PieceHasher(u64);

impl Hasher for PieceHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap_or_default());
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
        self.0 = h;
    }

    fn write_u8(&mut self, b: u8) {
        self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Pieces = HashMap<Box<[u8]>, u32, BuildHasherDefault<PieceHasher>>;

/// What the embedding needs of a `tokenizer.json` whose pipeline the fast
/// path reproduces, read without `tokenizers` ([`WordPiece::from_json`]).
#[derive(Debug, PartialEq)]
pub struct Lean {
    pub wordpiece: WordPiece,
    /// Ids of the special added tokens.
    pub special: Vec<u32>,
    /// The truncation's length and whether it cuts from the right; `None`:
    /// no truncation.
    pub truncation: Option<(usize, bool)>,
}

/// The parts of `tokenizer.json` read by [`WordPiece::from_json`]; any
/// other field is ignored, a missing one makes the reader decline.
#[derive(Deserialize)]
struct Json<'a> {
    #[serde(borrow)]
    normalizer: Option<Typed<'a>>,
    #[serde(borrow)]
    pre_tokenizer: Option<Typed<'a>>,
    #[serde(borrow)]
    model: JsonModel<'a>,
    #[serde(borrow)]
    added_tokens: Vec<JsonAdded<'a>>,
    truncation: Option<JsonTruncation>,
}

#[derive(Deserialize)]
struct Typed<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    lowercase: Option<bool>,
}

#[derive(Deserialize)]
struct JsonModel<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    unk_token: Cow<'a, str>,
    #[serde(borrow)]
    continuing_subword_prefix: Cow<'a, str>,
    max_input_chars_per_word: usize,
    #[serde(borrow, deserialize_with = "pairs")]
    vocab: Vec<(Cow<'a, str>, u32)>,
}

#[derive(Deserialize)]
struct JsonAdded<'a> {
    id: u32,
    #[serde(borrow)]
    content: Cow<'a, str>,
    special: bool,
}

#[derive(Deserialize)]
struct JsonTruncation {
    max_length: usize,
    #[serde(default)]
    direction: Direction,
}

#[derive(Deserialize, Default, PartialEq)]
enum Direction {
    #[default]
    Right,
    Left,
}

/// A JSON object's entries in file order, without hashing them into a map
/// first (the vocabulary is the bulk of the file).
fn pairs<'de, D>(d: D) -> Result<Vec<(Cow<'de, str>, u32)>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct Pairs;
    impl<'de> serde::de::Visitor<'de> for Pairs {
        type Value = Vec<(Cow<'de, str>, u32)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of pieces to ids")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1 << 20));
            while let Some((k, v)) = map.next_entry::<Cow<'de, str>, u32>()? {
                out.push((k, v));
            }
            Ok(out)
        }
    }
    d.deserialize_map(Pairs)
}

/// Whether an added token with this text rules the fast path out: made
/// only of letters and digits, it would be matched inside a word before
/// WordPiece sees it.
fn splits_words(content: &str) -> bool {
    content.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The model's WordPiece vocabulary, split for lookups without building
/// strings: pieces that may start a word, and continuation pieces with
/// their `##` prefix removed.
#[derive(Debug, PartialEq)]
pub struct WordPiece {
    first: Pieces,
    rest: Pieces,
    unk: u32,
    max_chars: usize,
    /// Longest piece, in bytes: the longest candidate worth looking up.
    longest: usize,
    /// Whether the normalizer lower-cases (then an upper-case letter is not
    /// a plain word: left to `tokenizers`).
    lowercase: bool,
}

impl WordPiece {
    /// The fast path for `tokenizer`, when its pipeline is one this module
    /// reproduces exactly on ASCII words; `None` otherwise.
    pub fn for_tokenizer(tokenizer: &tokenizers::Tokenizer) -> Option<WordPiece> {
        let lowercase = match tokenizer.get_normalizer() {
            Some(NormalizerWrapper::BertNormalizer(b)) => b.lowercase,
            _ => return None,
        };
        if !matches!(
            tokenizer.get_pre_tokenizer(),
            Some(PreTokenizerWrapper::BertPreTokenizer(_))
        ) {
            return None;
        }
        let ModelWrapper::WordPiece(wp) = tokenizer.get_model() else {
            return None;
        };
        let decoder = tokenizer.get_added_tokens_decoder();
        if decoder.values().any(|t| splits_words(&t.content)) {
            return None;
        }
        let vocab = tokenizers::Model::get_vocab(wp);
        WordPiece::build(
            vocab.iter().map(|(p, &id)| (p.as_str(), id)),
            &wp.unk_token,
            &wp.continuing_subword_prefix,
            wp.max_input_chars_per_word,
            lowercase,
        )
    }

    /// What [`WordPiece::for_tokenizer`] and the model's loader find in a
    /// tokenizer, read straight from its `tokenizer.json`: `None` when the
    /// pipeline is another, or the file is not what the reader expects
    /// (then the caller loads `tokenizers`, which judges the file). A
    /// third of what `tokenizers` takes to load it: its deserializer tries
    /// each model in turn over a buffered copy of the whole file, and the
    /// vocabulary is cloned to be read (that was most of a warm `scalpel
    /// find` with a model's load, issue 31).
    ///
    /// Agrees with `tokenizers` on every field it reads: the test model
    /// (`tests::the_lean_reader_agrees_with_tokenizers`), the units of real
    /// code (`tests/search_index.rs`, `own_wordpiece_matches_tokenizers_on_real_units`).
    pub fn from_json(bytes: &[u8]) -> Option<Lean> {
        let j: Json = serde_json::from_slice(bytes).ok()?;
        let lowercase = match j.normalizer? {
            Typed { kind, lowercase } if kind == "BertNormalizer" => lowercase?,
            _ => return None,
        };
        if j.pre_tokenizer?.kind != "BertPreTokenizer" || j.model.kind != "WordPiece" {
            return None;
        }
        if j.added_tokens.iter().any(|t| splits_words(&t.content)) {
            return None;
        }
        let m = &j.model;
        // `tokenizers` keeps the last of a repeated piece; so do the maps.
        let wordpiece = WordPiece::build(
            m.vocab.iter().map(|(p, id)| (&**p, *id)),
            &m.unk_token,
            &m.continuing_subword_prefix,
            m.max_input_chars_per_word,
            lowercase,
        )?;
        // `tokenizers` gives an added token the vocabulary's id of its
        // text, whatever the file says, and a new id when it has none:
        // read here only when the two agree.
        if j.added_tokens
            .iter()
            .any(|t| wordpiece.first.get(t.content.as_bytes()) != Some(&t.id))
        {
            return None;
        }
        let mut special: Vec<u32> = j
            .added_tokens
            .iter()
            .filter(|t| t.special)
            .map(|t| t.id)
            .collect();
        special.sort_unstable();
        special.dedup();
        Some(Lean {
            wordpiece,
            special,
            truncation: j
                .truncation
                .map(|t| (t.max_length, t.direction == Direction::Right)),
        })
    }

    fn build<'v>(
        vocab: impl Iterator<Item = (&'v str, u32)>,
        unk_token: &str,
        prefix: &str,
        max_chars: usize,
        lowercase: bool,
    ) -> Option<WordPiece> {
        let mut first = Pieces::default();
        let mut rest = Pieces::default();
        let mut longest = 0;
        for (piece, id) in vocab {
            longest = longest.max(piece.len());
            if let Some(tail) = piece.strip_prefix(prefix)
                && !prefix.is_empty()
            {
                rest.insert(tail.as_bytes().into(), id);
            }
            first.insert(piece.as_bytes().into(), id);
        }
        let unk = *first.get(unk_token.as_bytes())?;
        Some(WordPiece {
            first,
            rest,
            unk,
            max_chars,
            longest,
            lowercase,
        })
    }

    /// Whether `word` is one this module tokenizes (ASCII letters and
    /// digits, lower-case when the normalizer lower-cases).
    pub fn handles(&self, word: &str) -> bool {
        !word.is_empty()
            && word.bytes().all(|b| {
                b.is_ascii_digit()
                    || b.is_ascii_lowercase()
                    || (!self.lowercase && b.is_ascii_uppercase())
            })
    }

    /// Append the ids of `word` (one [`WordPiece::handles`] accepts) to
    /// `out`: greedy longest match from the left, the whole word unknown
    /// when some part has no piece or the word is too long.
    pub fn word(&self, word: &str, out: &mut Vec<u32>) {
        let w = word.as_bytes();
        if w.len() > self.max_chars {
            out.push(self.unk);
            return;
        }
        let mark = out.len();
        let mut start = 0;
        while start < w.len() {
            let vocab = if start == 0 { &self.first } else { &self.rest };
            let mut end = w.len().min(start + self.longest);
            let found = loop {
                if end == start {
                    break None;
                }
                if let Some(&id) = vocab.get(&w[start..end]) {
                    break Some(id);
                }
                end -= 1;
            };
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(mark);
                    out.push(self.unk);
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn fixture() -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/model");
        std::fs::read(dir.join("tokenizer.json")).unwrap()
    }

    /// On the test model, the lean reader finds what `tokenizers` does:
    /// the same vocabulary split, unknown token, limits and case, the same
    /// special tokens and truncation.
    #[test]
    fn the_lean_reader_agrees_with_tokenizers() {
        let bytes = fixture();
        let lean = WordPiece::from_json(&bytes).expect("a BERT WordPiece");
        let tok = tokenizers::Tokenizer::from_bytes(&bytes).unwrap();
        assert_eq!(
            Some(&lean.wordpiece),
            WordPiece::for_tokenizer(&tok).as_ref()
        );
        let mut special: Vec<u32> = tok
            .get_added_tokens_decoder()
            .iter()
            .filter(|(_, t)| t.special)
            .map(|(id, _)| *id)
            .collect();
        special.sort_unstable();
        assert_eq!(lean.special, special);
        let t = tok.get_truncation().unwrap();
        assert_eq!(
            lean.truncation,
            Some((
                t.max_length,
                t.direction == tokenizers::TruncationDirection::Right
            ))
        );
    }

    /// What the reader does not reproduce exactly, it declines (the loader
    /// then asks `tokenizers`): `check(change, expect)` over the fixture.
    #[test]
    fn the_lean_reader_declines_what_it_does_not_reproduce() {
        let base: Value = serde_json::from_slice(&fixture()).unwrap();
        let check = |change: &dyn Fn(&mut Value), accepted: bool| {
            let mut j = base.clone();
            change(&mut j);
            let got = WordPiece::from_json(&serde_json::to_vec(&j).unwrap());
            assert_eq!(
                got.is_some(),
                accepted,
                "{}",
                &j.to_string()[..200.min(j.to_string().len())]
            );
            got
        };
        check(&|_| {}, true);
        check(
            &|j| j["normalizer"] = json!({"type": "Sequence", "normalizers": []}),
            false,
        );
        check(&|j| j["normalizer"] = Value::Null, false);
        check(
            &|j| {
                j["normalizer"].as_object_mut().unwrap().remove("lowercase");
            },
            false,
        );
        check(
            &|j| j["pre_tokenizer"] = json!({"type": "Whitespace"}),
            false,
        );
        check(&|j| j["model"]["type"] = json!("BPE"), false);
        check(&|j| j["model"]["unk_token"] = json!("<not a piece>"), false);
        // An added token of letters would be matched inside words.
        check(&|j| j["added_tokens"][0]["content"] = json!("the"), false);
        // An added token whose id is not its vocabulary id.
        check(&|j| j["added_tokens"][0]["id"] = json!(7), false);
        check(&|j| j["added_tokens"][0]["special"] = json!(false), true);
        let left = check(&|j| j["truncation"]["direction"] = json!("Left"), true);
        assert_eq!(left.unwrap().truncation, Some((128, false)));
        let none = check(&|j| j["truncation"] = Value::Null, true);
        assert_eq!(none.unwrap().truncation, None);
        assert!(WordPiece::from_json(b"{ not json").is_none());
        assert!(WordPiece::from_json(b"").is_none());
    }
}
