//! Fuzzing what Scalpel parses from disk: the search index's store
//! (`.scalpel/index/index.bin`, `src/index/format.rs`), which a cloned
//! repository can ship. Random bytes and damaged real stores (bytes
//! flipped, sizes overwritten, cut, the checksum made right again so the
//! decoder itself is reached) must be refused or accepted without a panic,
//! without an abort, and without allocating more than a bound of their own
//! length; a header declaring more than the file holds is refused before
//! anything is allocated.
//!
//! This file is its own process, so a counting allocator sees every
//! allocation of the decoder (its threads included). `SCALPEL_FUZZ_CASES`
//! runs more cases (the default keeps the suite fast).

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use scalpel::index::{LiveIndex, store_header_fits, store_is_whole};
use scalpel::ops::engine::Engine;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to `System` unchanged; only counters move.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            let now = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The most bytes a decode may hold at once beyond what was live before
/// it: the flat arrays it fills are sized by the file (rows, strings,
/// signs, postings, each with room to grow), never by a number in it.
fn allowed(len: usize) -> usize {
    16 * len + (1 << 20)
}

/// Decode `bytes`, measuring the peak of what the decode allocated.
fn decode_measured(bytes: &[u8]) -> (bool, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let whole = store_is_whole(bytes);
    (whole, PEAK.load(Ordering::Relaxed).saturating_sub(before))
}

/// Whether `bytes` decode (or are refused) within [`allowed`].
fn decodes_within_bound(bytes: &[u8]) -> Result<(), TestCaseError> {
    let (_, peak) = decode_measured(bytes);
    prop_assert!(
        peak <= allowed(bytes.len()),
        "{peak} bytes for {}",
        bytes.len()
    );
    Ok(())
}

const HEADER: usize = 8 + 4 + 32 + 4 + 8 + 8;

/// A real store: the index of a few fixture files.
fn real_store() -> &'static [u8] {
    static STORE: OnceLock<Vec<u8>> = OnceLock::new();
    STORE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        for (lang, file) in [
            ("python", "inventory.py"),
            ("rust", "geometry.rs"),
            ("javascript", "cart.js"),
        ] {
            let from = fixtures.join(lang).join(file);
            {
                std::fs::create_dir_all(dir.path().join(lang)).unwrap();
                std::fs::copy(&from, dir.path().join(lang).join(file)).unwrap();
            }
        }
        std::fs::write(dir.path().join("notes.txt"), "plain words to index\n").unwrap();
        let live = LiveIndex::open(dir.path(), Engine::default(), Err("no model".into()));
        live.refresh().unwrap();
        live.save().unwrap();
        let bytes = std::fs::read(dir.path().join(".scalpel/index/index.bin")).unwrap();
        assert!(store_is_whole(&bytes), "the real store decodes");
        bytes
    })
}

/// `bytes` with the checksum made right again (it covers what lies before
/// the vector records, when the header says where that is).
fn sealed(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 44 {
        let len = |at: usize| {
            let b = bytes.get(at..at + 8)?;
            usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok()
        };
        let end = len(48)
            .zip(len(56))
            .and_then(|(h, k)| HEADER.checked_add(h)?.checked_add(k))
            .filter(|&end| end <= bytes.len())
            .unwrap_or(bytes.len());
        let sum = blake3::hash(&bytes[44..end]);
        bytes[12..44].copy_from_slice(sum.as_bytes());
    }
    bytes
}

/// One damage done to a real store.
#[derive(Debug, Clone)]
enum Damage {
    Flip(usize, u8),
    /// A little-endian u32 (most sizes and counts) overwritten.
    Word(usize, u32),
    Cut(usize),
    Insert(usize, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    let word = prop_oneof![
        Just(u32::MAX),
        Just(u32::MAX / 2),
        Just(0),
        Just(1),
        0u32..4096,
        any::<u32>(),
    ];
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(at, x)| Damage::Flip(at, x)),
        (any::<usize>(), word).prop_map(|(at, w)| Damage::Word(at, w)),
        any::<usize>().prop_map(Damage::Cut),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, b)| Damage::Insert(at, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    let n = bytes.len();
    match d {
        Damage::Flip(at, x) => bytes[at % n] ^= x,
        Damage::Word(at, w) => {
            let at = at % (n - 3);
            bytes[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
        Damage::Cut(at) => bytes.truncate(at % n),
        Damage::Insert(at, b) => {
            let at = at % n;
            bytes.splice(at..at, b.iter().copied());
        }
    }
}

fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("SCALPEL_FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Run `test` over `strategy`'s values (one runner at a time: the
/// allocation counters are the process's).
fn check<S: Strategy>(
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let mut runner = TestRunner::new(cases(default_cases));
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

/// Everything in one test: another test's allocations would count in this
/// one's peaks.
#[test]
fn the_store_decoder_refuses_within_bounds() {
    // The real store decodes, within its bound.
    let store = real_store();
    let (whole, peak) = decode_measured(store);
    assert!(whole);
    assert!(peak <= allowed(store.len()), "{peak} for {}", store.len());

    // Random bytes, most of them behind a right magic and version (else
    // nothing past the header is reached) and a right checksum.
    check(
        4000,
        (prop::collection::vec(any::<u8>(), 0..2048), any::<bool>()),
        |(body, framed)| {
            let bytes = if framed {
                let mut b = real_store()[..12].to_vec();
                b.extend_from_slice(&[0; 32]);
                b.extend_from_slice(&body);
                sealed(b)
            } else {
                body
            };
            decodes_within_bound(&bytes)
        },
    );

    // A real store damaged one to four times, its checksum made right.
    check(4000, prop::collection::vec(damage(), 1..5), |damages| {
        let mut bytes = real_store().to_vec();
        for d in &damages {
            if bytes.len() > 4 {
                apply(&mut bytes, d);
            }
        }
        let bytes = sealed(bytes);
        decodes_within_bound(&bytes)
    });

    // A header declaring more units, or a longer first section, than the
    // file holds is refused before the decoder allocates anything of size.
    check(
        1000,
        (
            prop_oneof![Just(u32::MAX), (1u32 << 16)..u32::MAX],
            prop_oneof![Just(u64::MAX), (1u64 << 20)..u64::MAX],
            0..3u8,
        ),
        |(units, head_len, which)| {
            let mut bytes = real_store().to_vec();
            if which != 1 {
                bytes[44..48].copy_from_slice(&units.to_le_bytes());
            }
            if which != 0 {
                bytes[48..56].copy_from_slice(&head_len.to_le_bytes());
            }
            let bytes = sealed(bytes);
            prop_assert!(!store_header_fits(&bytes[..HEADER], bytes.len() as u64));
            let (whole, peak) = decode_measured(&bytes);
            prop_assert!(!whole);
            prop_assert!(peak < 4096, "{peak} bytes allocated for a refused header");
            Ok(())
        },
    );
}
