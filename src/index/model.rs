//! The semantic side: a static embedding model in the Model2Vec layout
//! (`model.safetensors` with one vector per token, `tokenizer.json`,
//! `config.json`). A text's embedding is the mean of its tokens' vectors,
//! L2-normalised; vectors are kept as int8 with one scale each, and compared
//! by brute force.
//!
//! Where the model comes from: `--model DIR`, else `SCALPEL_MODEL`, else the
//! default model in the HuggingFace cache; with none, search is keyword +
//! structure only (and says so).

use super::rows::{Rows, Source, to_f32};
use super::wordpiece::WordPiece;
use crate::disk::read::{Links, open_capped, read_capped};
use crate::error::{Error, ErrorCode, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment variable naming the model folder (`off` for none).
pub const MODEL_ENV: &str = "SCALPEL_MODEL";
/// The model `scalpel model download` fetches by default: MinishLab's
/// static code model (Model2Vec layout, MIT), the successor of
/// `potion-code-16M`, distilled from CodeRankEmbed and trained for code
/// retrieval (BENCHMARKS.md, issue 31: what could be found out about static
/// code models from here).
pub const DEFAULT_MODEL: &str = "minishlab/potion-code-16M-v2";
/// Models looked for in the HuggingFace cache when none is named, best
/// first: a user who downloaded the first version keeps it.
const CACHED_MODELS: [&str; 2] = [DEFAULT_MODEL, "minishlab/potion-code-16M"];
/// Tokens of a text that are embedded at most.
const MAX_TOKENS: usize = 512;

/// A loaded static model.
pub struct Model {
    /// `tokenizer.json`'s bytes, for [`Model::tokenizer`].
    tokenizer_json: Vec<u8>,
    /// `tokenizers`' reading of `tokenizer_json`: at load when the fast
    /// path cannot serve, else on first use (a query of plain words never
    /// needs it; loading it was most of a model's load). `None`: it
    /// refused the file (said once, on stderr).
    tokenizer: OnceLock<Option<tokenizers::Tokenizer>>,
    /// The model's own WordPiece for plain ASCII words, when its tokenizer
    /// is a BERT WordPiece (`wordpiece.rs`); `None`: every text goes
    /// through `tokenizers`.
    wordpiece: Option<WordPiece>,
    /// The tokenizer without truncation or padding: the words the fast
    /// path does not take, one at a time. Cloned on first use: most texts
    /// never need it, and the clone was a tenth of a model's load.
    plain: OnceLock<Option<tokenizers::Tokenizer>>,
    /// Tokens of a text that count: the tokenizer's truncation, else
    /// [`MAX_TOKENS`].
    limit: usize,
    /// The embedding table, one row per token (converted on first use).
    vectors: Rows,
    dim: usize,
    /// Token id → row (vocabulary quantisation), when the model has one.
    mapping: Option<Vec<u32>>,
    /// Ids of special tokens, dropped from texts.
    special: Vec<u32>,
    /// Identifies the model's weights (for the persisted vectors).
    pub id: String,
    pub dir: PathBuf,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("dir", &self.dir)
            .field("dim", &self.dim)
            .finish()
    }
}

fn model_error(dir: &Path, what: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("cannot load the embedding model in {}: {what}", dir.display()),
    )
    .with_suggestion(
        "give a folder with model.safetensors and tokenizer.json (Model2Vec layout), or `off` for keyword search only",
    )
    .with_details(serde_json::json!({"model": dir.display().to_string()}))
}

/// Where the model is looked for: `explicit` (a flag), else
/// [`MODEL_ENV`], else the HuggingFace cache. `Ok(None)`: no model (asked
/// for `off`, or none in the cache).
pub fn locate(explicit: Option<&Path>) -> Result<Option<PathBuf>> {
    let given = explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(MODEL_ENV).map(PathBuf::from))
        .filter(|p| !p.as_os_str().is_empty());
    match given {
        Some(p) if p == Path::new("off") || p == Path::new("none") => Ok(None),
        Some(p) => Ok(Some(p)),
        None => Ok(CACHED_MODELS.iter().find_map(|m| hf_cached(m))),
    }
}

/// The HuggingFace hub cache folder.
pub fn hf_cache() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HF_HUB_CACHE") {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = std::env::var_os("HF_HOME") {
        return Some(PathBuf::from(p).join("hub"));
    }
    let home = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(home.join("huggingface").join("hub"))
}

/// The snapshot folder of `repo` (`owner/name`) in the HuggingFace cache.
pub fn hf_snapshot_dir(repo: &str, revision: &str) -> Option<PathBuf> {
    Some(
        hf_cache()?
            .join(format!("models--{}", repo.replace('/', "--")))
            .join("snapshots")
            .join(revision),
    )
}

fn hf_cached(repo: &str) -> Option<PathBuf> {
    let snapshots = hf_snapshot_dir(repo, "")?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&snapshots)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("model.safetensors").is_file() && p.join("tokenizer.json").is_file())
        .collect();
    dirs.sort();
    dirs.pop()
}

/// The largest model weights read (static models take tens of MB).
const MAX_WEIGHTS: u64 = 2 << 30;
/// The largest `tokenizer.json` read.
const MAX_TOKENIZER: u64 = 64 << 20;

/// The largest safetensors header read (the `safetensors` crate's own
/// limit).
const MAX_HEADER: u64 = 100_000_000;
/// The largest optional tensor (`weights`, `mapping`) read into memory.
const MAX_SMALL_TENSOR: u64 = 64 << 20;

/// `model.safetensors` opened: its header read and checked, its content
/// hashed (the model's id), nothing else read.
struct Weights<'d> {
    dir: &'d Path,
    source: Source,
    /// Where the tensors' data starts.
    data_at: u64,
    meta: safetensors::tensor::Metadata,
    id: String,
}

impl<'d> Weights<'d> {
    fn open(dir: &'d Path) -> Result<Weights<'d>> {
        let err = |what: String| model_error(dir, format!("model.safetensors: {what}"));
        let (file, len) = open_capped(&dir.join("model.safetensors"), MAX_WEIGHTS, Links::Follow)
            .map_err(|e| err(e.to_string()))?;
        // The id: the hash of the whole file, as for any file.
        let id = crate::source::hash_reader(std::io::Read::take(&file, len))
            .map_err(|e| err(e.to_string()))?;
        let source = Source { file, len };
        let header = source
            .read_vec(0, 8)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| err("no header".into()))?;
        let n = u64::from_le_bytes(header);
        if n > MAX_HEADER || n + 8 > len {
            return Err(err(format!("a header of {n} bytes")));
        }
        let header = source
            .read_vec(8, n)
            .ok_or_else(|| err("the header cannot be read".into()))?;
        let meta: safetensors::tensor::Metadata =
            serde_json::from_slice(&header).map_err(|e| err(e.to_string()))?;
        let data_at = 8 + n;
        if data_at + meta.data_len() as u64 != len {
            return Err(err("the tensors do not fill the file".into()));
        }
        Ok(Weights {
            dir,
            source,
            data_at,
            meta,
            id,
        })
    }

    fn tensor(&self, name: &str) -> Result<&safetensors::tensor::TensorInfo> {
        self.meta
            .info(name)
            .ok_or_else(|| model_error(self.dir, format!("no tensor `{name}`")))
    }

    /// Where `t`'s bytes are in the file, and how many.
    fn span(&self, t: &safetensors::tensor::TensorInfo) -> (u64, u64) {
        let (from, to) = t.data_offsets;
        (self.data_at + from as u64, (to - from) as u64)
    }

    /// The optional tensor `name` in `f32`, when there is one of a type
    /// [`to_f32`] knows and of a reasonable size.
    fn small(&self, name: &str) -> Option<Vec<f32>> {
        let t = self.meta.info(name)?;
        let (at, n) = self.span(t);
        if n > MAX_SMALL_TENSOR {
            return None;
        }
        to_f32(t.dtype, &self.source.read_vec(at, n)?)
    }
}

impl Model {
    /// Load the model in `dir`.
    pub fn load(dir: &Path) -> Result<Model> {
        // Each file: a regular file (a symlink is followed: the HuggingFace
        // cache links its snapshots to blobs), read up to its cap.
        let read = |name: &str, cap: u64| {
            read_capped(&dir.join(name), cap, Links::Follow)
                .map_err(|e| model_error(dir, format!("{name}: {e}")))
        };
        // The weights are read and hashed on their own thread while the
        // tokenizer is read (a missing file is named weights first).
        let (weights, tokenizer_json) = std::thread::scope(|s| {
            let weights = s.spawn(|| Weights::open(dir));
            let json = read("tokenizer.json", MAX_TOKENIZER).map(|bytes| {
                let lean = WordPiece::from_json(&bytes);
                (bytes, lean)
            });
            let weights = weights
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (weights, json)
        });
        let weights = weights?;
        let (tokenizer_json, lean) = tokenizer_json?;
        // Cut from the left, the fast path cannot stop early: then, as
        // for any other pipeline, `tokenizers` tokenizes.
        let (tokenizer, wordpiece, special, truncation) = match lean {
            Some(l) if l.truncation.is_none_or(|(_, from_right)| from_right) => (
                OnceLock::new(),
                Some(l.wordpiece),
                l.special,
                l.truncation.map(|(n, _)| n),
            ),
            _ => {
                let tokenizer = tokenizers::Tokenizer::from_bytes(&tokenizer_json)
                    .map_err(|e| model_error(dir, format!("tokenizer.json: {e}")))?;
                let special = tokenizer
                    .get_added_tokens_decoder()
                    .iter()
                    .filter(|(_, t)| t.special)
                    .map(|(id, _)| *id)
                    .collect();
                // `tokenizers` cuts an encoding to its truncation length
                // (even without special tokens) before anything else: only
                // those tokens are embedded.
                let (truncation, from_right) = match tokenizer.get_truncation() {
                    Some(t) => (
                        Some(t.max_length),
                        t.direction == tokenizers::TruncationDirection::Right,
                    ),
                    None => (None, true),
                };
                let wordpiece = WordPiece::for_tokenizer(&tokenizer).filter(|_| from_right);
                (
                    OnceLock::from(Some(tokenizer)),
                    wordpiece,
                    special,
                    truncation,
                )
            }
        };
        let limit = truncation.map_or(MAX_TOKENS, |n| n.min(MAX_TOKENS));
        let emb = weights.tensor("embeddings")?;
        let [rows, dim] = emb.shape[..] else {
            return Err(model_error(
                dir,
                format!("`embeddings` has shape {:?}", emb.shape),
            ));
        };
        // Where the table lies in the file: it stays there, and each row is
        // read and converted when first used (`rows.rs`).
        let table = weights.span(emb);
        let dtype = emb.dtype;
        // Optional per-token weights and vocabulary mapping (newer Model2Vec).
        let row_weights = weights.small("weights");
        let mapping = weights
            .small("mapping")
            .map(|ids| ids.into_iter().map(|x| x as u32).collect::<Vec<u32>>());
        let id = weights.id.clone();
        let vectors = Rows::new(weights.source, table, dtype, (rows, dim), row_weights)
            .map_err(|e| model_error(dir, e))?;
        Ok(Model {
            tokenizer_json,
            tokenizer,
            wordpiece,
            plain: OnceLock::new(),
            limit,
            vectors,
            dim,
            mapping,
            special,
            id,
            dir: dir.to_path_buf(),
        })
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// [`Model::tokenizer`], read on first use.
    fn tokenizer(&self) -> Option<&tokenizers::Tokenizer> {
        self.tokenizer
            .get_or_init(|| {
                tokenizers::Tokenizer::from_bytes(&self.tokenizer_json)
                    .inspect_err(|e| {
                        tracing::warn!(
                            model = %self.dir.display(),
                            error = %e,
                            "tokenizer.json: words outside plain ASCII are not embedded"
                        )
                    })
                    .ok()
            })
            .as_ref()
    }

    /// [`Model::plain`], made on first use. Removing truncation cannot fail
    /// (it only checks a truncation's own parameters).
    fn plain(&self) -> Option<&tokenizers::Tokenizer> {
        self.plain
            .get_or_init(|| {
                let mut plain = self.tokenizer()?.clone();
                let _ = plain.with_truncation(None);
                plain.with_padding(None);
                Some(plain)
            })
            .as_ref()
    }

    /// The normalised embedding of `text` (zero when it has no known token).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        if self.wordpiece.is_none() {
            return self.embed_reference(text);
        }
        let mut t = self.tokens();
        for w in text.split_ascii_whitespace() {
            if !t.push(w) {
                break;
            }
        }
        t.embed()
    }

    /// An empty token list, filled word by word ([`Tokens::push`]).
    pub fn tokens(&self) -> Tokens<'_> {
        Tokens {
            model: self,
            ids: Vec::new(),
            text: String::new(),
        }
    }

    /// The ids of `text` that are embedded, through `tokenizers` alone
    /// (truncated as the tokenizer says, special tokens dropped): what the
    /// fast path must give (see `tests/search_index.rs`).
    pub fn reference_ids(&self, text: &str) -> Vec<u32> {
        let Some(Ok(enc)) = self.tokenizer().map(|t| t.encode_fast(text, false)) else {
            return Vec::new();
        };
        enc.get_ids()
            .iter()
            .take(MAX_TOKENS)
            .copied()
            .filter(|id| !self.special.contains(id))
            .collect()
    }

    /// The embedding of `text` through `tokenizers` alone (what
    /// [`Model::embed`] must equal).
    pub fn embed_reference(&self, text: &str) -> Vec<f32> {
        self.embed_ids(&self.reference_ids(text))
    }

    /// Whether texts of plain ASCII words skip `tokenizers` (the model's
    /// tokenizer is a BERT WordPiece).
    pub fn has_fast_tokenizer(&self) -> bool {
        self.wordpiece.is_some()
    }

    /// The mean of the rows of `ids` (special ones skipped), normalised.
    fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        let mut out = vec![0f32; self.dim];
        let mut n = 0usize;
        for &id in ids {
            if self.special.contains(&id) {
                continue;
            }
            let row = match &self.mapping {
                Some(m) => m.get(id as usize).copied().unwrap_or(u32::MAX) as usize,
                None => id as usize,
            };
            let Some(v) = self.vectors.row(row) else {
                continue;
            };
            for (o, v) in out.iter_mut().zip(v) {
                *o += v;
            }
            n += 1;
        }
        if n > 0 {
            normalize(&mut out);
        }
        out
    }
}

/// The tokens of one text, given word by word: with the model's own
/// WordPiece each word is tokenized as it comes and the text stops once
/// the tokenizer's truncation is reached (the rest would be cut anyway);
/// without it the words are joined and `tokenizers` runs at the end.
pub struct Tokens<'m> {
    model: &'m Model,
    ids: Vec<u32>,
    text: String,
}

impl Tokens<'_> {
    /// Add one word (no ASCII whitespace inside); `false` once later words
    /// would not count.
    pub fn push(&mut self, word: &str) -> bool {
        let m = self.model;
        let Some(wp) = &m.wordpiece else {
            if !self.text.is_empty() {
                self.text.push(' ');
            }
            self.text.push_str(word);
            return true;
        };
        if wp.handles(word) {
            wp.word(word, &mut self.ids);
        } else if let Some(Ok(enc)) = m.plain().map(|p| p.encode_fast(word, false)) {
            self.ids.extend_from_slice(enc.get_ids());
        }
        self.ids.len() < m.limit
    }

    /// The ids that are embedded (truncated, special tokens dropped).
    pub fn ids(&self) -> Vec<u32> {
        if self.model.wordpiece.is_none() {
            return self.model.reference_ids(&self.text);
        }
        self.ids
            .iter()
            .take(self.model.limit)
            .copied()
            .filter(|id| !self.model.special.contains(id))
            .collect()
    }

    /// The normalised embedding of the words given (zero when none is
    /// known).
    pub fn embed(self) -> Vec<f32> {
        if self.model.wordpiece.is_none() {
            let ids = self.model.reference_ids(&self.text);
            return self.model.embed_ids(&ids);
        }
        let n = self.ids.len().min(self.model.limit);
        self.model.embed_ids(&self.ids[..n])
    }
}

fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// An embedding kept as int8 with one scale: `value ≈ q * scale`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quantized {
    pub scale: f32,
    pub q: Vec<i8>,
}

/// The dot product of two int8 vectors of the same length.
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    // Sixteen lanes of i16 products summed into i32: the shape the
    // compiler turns into SIMD multiply-adds.
    let mut lanes = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(&x, &y)| x as i32 * y as i32)
        .sum();
    for (ca, cb) in ca.zip(cb) {
        for ((l, &x), &y) in lanes.iter_mut().zip(ca).zip(cb) {
            *l += (x as i16 * y as i16) as i32;
        }
    }
    lanes.iter().sum::<i32>() + tail
}

impl Quantized {
    pub fn new(v: &[f32]) -> Quantized {
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        if max == 0.0 {
            return Quantized {
                scale: 0.0,
                q: vec![0; v.len()],
            };
        }
        let scale = max / 127.0;
        Quantized {
            scale,
            q: v.iter().map(|x| (x / scale).round() as i8).collect(),
        }
    }

    /// Cosine with a normalised query `query` (quantized the same way).
    pub fn dot(&self, query: &Quantized) -> f32 {
        dot_i8(&self.q, &query.q) as f32 * self.scale * query.scale
    }

    /// Hex text of the scale and values (for the persisted index).
    pub fn to_hex(&self) -> String {
        use std::fmt::Write;
        let mut s = String::with_capacity(8 + self.q.len() * 2);
        let bytes = self.scale.to_le_bytes();
        for b in bytes.iter().copied().chain(self.q.iter().map(|&x| x as u8)) {
            let _ = write!(s, "{b:02x}");
        }
        s
    }

    /// The inverse of [`Quantized::to_hex`].
    pub fn from_hex(s: &str) -> Option<Quantized> {
        if s.len() < 8 || !s.len().is_multiple_of(2) || !s.is_ascii() {
            return None;
        }
        let bytes: Option<Vec<u8>> = (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
            .collect();
        let bytes = bytes?;
        let scale = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        Some(Quantized {
            scale,
            q: bytes[4..].iter().map(|&b| b as i8).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test model in a folder of its own, its `tokenizer.json` changed
    /// by `change`.
    fn model_with(change: impl Fn(&mut serde_json::Value)) -> tempfile::TempDir {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/model");
        let dir = tempfile::tempdir().unwrap();
        for f in ["model.safetensors", "config.json"] {
            std::fs::copy(from.join(f), dir.path().join(f)).unwrap();
        }
        let mut j: serde_json::Value =
            serde_json::from_slice(&std::fs::read(from.join("tokenizer.json")).unwrap()).unwrap();
        change(&mut j);
        std::fs::write(
            dir.path().join("tokenizer.json"),
            serde_json::to_vec(&j).unwrap(),
        )
        .unwrap();
        dir
    }

    /// The weights are not read into memory, yet the model's id is the
    /// hash of the whole file (what stores saved before hold), and a
    /// weights file that is cut short, has a header past its end, or one
    /// that is not JSON is refused with the file named.
    #[test]
    fn the_weights_are_hashed_whole_and_checked() {
        let dir = model_with(|_| {});
        let path = dir.path().join("model.safetensors");
        let bytes = std::fs::read(&path).unwrap();
        let m = Model::load(dir.path()).unwrap();
        assert_eq!(m.id, crate::source::hash_bytes(&bytes));
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let cases: [(&str, Vec<u8>); 4] = [
            ("cut short", bytes[..bytes.len() - 1].to_vec()),
            ("header past the end", {
                let mut b = bytes.clone();
                b[..8].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
                b
            }),
            ("header not JSON", {
                let mut b = bytes.clone();
                b[8] = b'!';
                b
            }),
            ("no header", bytes[..5].to_vec()),
        ];
        for (what, b) in cases {
            std::fs::write(&path, &b).unwrap();
            let e = Model::load(dir.path()).expect_err(what);
            assert!(
                e.message.contains("model.safetensors"),
                "{what}: {}",
                e.message
            );
        }
        // Rows are read after the load from the file that was opened: one
        // put in its place later (a rename) does not change them; the file
        // cut short under the model leaves the rows not yet read empty.
        std::fs::write(&path, &bytes).unwrap();
        let m = Model::load(dir.path()).unwrap();
        let want = good_embedding(&bytes);
        let other = dir.path().join("other");
        std::fs::write(&other, vec![0u8; bytes.len()]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(m.embed("gzip reader"), want);
        std::fs::write(&path, &bytes).unwrap();
        let m = Model::load(dir.path()).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(n as u64)
            .unwrap();
        assert!(m.embed("gzip reader").iter().all(|&x| x == 0.0));
    }

    /// "gzip reader" embedded by the test model whose weights are `bytes`.
    fn good_embedding(bytes: &[u8]) -> Vec<f32> {
        let dir = model_with(|_| {});
        std::fs::write(dir.path().join("model.safetensors"), bytes).unwrap();
        let v = Model::load(dir.path()).unwrap().embed("gzip reader");
        assert!(v.iter().any(|&x| x != 0.0));
        v
    }

    /// A query of plain words is embedded without loading `tokenizers`, to
    /// the same vector `tokenizers` gives.
    #[test]
    fn plain_words_need_no_tokenizers_and_embed_the_same() {
        let dir = model_with(|_| {});
        let m = Model::load(dir.path()).unwrap();
        assert!(m.has_fast_tokenizer());
        let fast = m.embed("parse a time duration string");
        assert!(m.tokenizer.get().is_none(), "tokenizers was loaded");
        assert_eq!(fast, m.embed_reference("parse a time duration string"));
        // A word the fast path does not take loads it.
        let cafe = m.embed("café au lait");
        assert_eq!(cafe, m.embed_reference("café au lait"));
        assert!(cafe.iter().any(|&x| x != 0.0));
    }

    /// A `tokenizer.json` that is not JSON is refused at load with the
    /// file named; one the fast path reads but `tokenizers` refuses still
    /// embeds plain words, and the rest is not embedded (not a panic).
    #[test]
    fn a_broken_tokenizer_is_refused_or_leaves_only_plain_words() {
        let dir = model_with(|_| {});
        std::fs::write(dir.path().join("tokenizer.json"), b"{ not json").unwrap();
        let e = Model::load(dir.path()).unwrap_err();
        assert!(e.message.contains("tokenizer.json"), "{}", e.message);

        let dir = model_with(|j| j["decoder"] = serde_json::json!({"type": "NoSuchDecoder"}));
        let good = model_with(|_| {});
        let (m, good) = (
            Model::load(dir.path()).unwrap(),
            Model::load(good.path()).unwrap(),
        );
        assert_eq!(m.embed("gzip reader"), good.embed("gzip reader"));
        assert!(m.embed("café").iter().all(|&x| x == 0.0));
        assert!(m.reference_ids("gzip reader").is_empty());
    }

    #[test]
    fn quantized_round_trips_and_keeps_cosine() {
        let mut a = vec![0.3f32, -0.5, 0.1, 0.8];
        let mut b = vec![0.2f32, -0.4, 0.3, 0.7];
        normalize(&mut a);
        normalize(&mut b);
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let (qa, qb) = (Quantized::new(&a), Quantized::new(&b));
        assert!((qa.dot(&qb) - exact).abs() < 0.02);
        assert_eq!(Quantized::from_hex(&qa.to_hex()), Some(qa));
    }
}
