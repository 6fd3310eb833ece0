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

/// The model's WordPiece vocabulary, split for lookups without building
/// strings: pieces that may start a word, and continuation pieces with
/// their `##` prefix removed.
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
        // An added token made only of letters and digits would be matched
        // inside a word before WordPiece sees it.
        let decoder = tokenizer.get_added_tokens_decoder();
        if decoder
            .values()
            .any(|t| t.content.bytes().all(|b| b.is_ascii_alphanumeric()))
        {
            return None;
        }
        let vocab = tokenizers::Model::get_vocab(wp);
        let unk = *vocab.get(&wp.unk_token)?;
        let prefix = wp.continuing_subword_prefix.as_str();
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
            first.insert(piece.into_bytes().into_boxed_slice(), id);
        }
        Some(WordPiece {
            first,
            rest,
            unk,
            max_chars: wp.max_input_chars_per_word,
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
