//! Nothing panics on any input: random bytes and random damage to real
//! fixtures go through decode, parse, outline, resolution and dependencies
//! for every language.

mod common;

use proptest::prelude::*;
use scalpel::lang::Registry;
use scalpel::ops::engine::{ExtractRequest, extract_from};
use scalpel::symbols;
use std::path::Path;
use std::sync::Arc;

fn exercise(lang_name: &str, bytes: Vec<u8>) {
    let reg = Registry::builtin();
    let lang = reg.by_name(lang_name).unwrap().clone();
    let Ok(src) = scalpel::source::decode(Path::new("x"), bytes) else {
        return;
    };
    let file = symbols::parse(&lang, Arc::new(src)).unwrap();
    for s in file.symbols.iter().take(20) {
        for q in [s.address(), s.name.as_str(), &format!("{}#2", s.name)] {
            let req = ExtractRequest {
                symbol: q.to_string(),
                include_context: true,
                include_trivia: true,
                ..Default::default()
            };
            if let Ok(x) = extract_from(&file, "x", &req) {
                assert_eq!(
                    x.code,
                    &file.source.text[x.symbol.start_byte..x.symbol.end_byte]
                );
            }
        }
    }
    let _ = symbols::resolve(&file.symbols, "no::such::thing", None);
}

fn fixture_sources() -> Vec<(String, Vec<u8>)> {
    common::fixture_files()
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            let lang = Registry::builtin()
                .detect(&p, Some(&text))
                .unwrap()
                .name()
                .to_string();
            (lang, bytes)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000), lang in any::<prop::sample::Index>()) {
        // Every registered language, so a new one is covered without
        // editing this test.
        let reg = Registry::builtin();
        let names: Vec<&str> = reg.languages().iter().map(|l| l.name()).collect();
        exercise(names[lang.index(names.len())], bytes);
    }

    #[test]
    fn damaged_fixtures_never_panic(
        which in 0usize..5,
        cuts in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..40, "[{}()\\[\\];:,\"'`\\n\\t @#a-z]{0,6}"), 1..6),
    ) {
        let sources = fixture_sources();
        let (lang, mut bytes) = sources[which % sources.len()].clone();
        for (at, len, insert) in cuts {
            let start = at.index(bytes.len().max(1)).min(bytes.len());
            let end = (start + len).min(bytes.len());
            bytes.splice(start..end, insert.into_bytes());
        }
        exercise(&lang, bytes);
    }
}
