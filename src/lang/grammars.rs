//! The compiled-in tree-sitter grammars: one line per language. A
//! `grammars/<lang>.toml` names one of these in its `grammar` key. Adding a
//! language: add the crate to Cargo.toml, a line here, a TOML file and a
//! `tags.scm` (see ARCHITECTURE.md, "Adding a language").

use tree_sitter::Language;

type GrammarFn = fn() -> Language;

pub(crate) const GRAMMARS: &[(&str, GrammarFn)] = &[
    ("python", || tree_sitter_python::LANGUAGE.into()),
    ("rust", || tree_sitter_rust::LANGUAGE.into()),
    ("typescript", || {
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
    }),
    ("tsx", || tree_sitter_typescript::LANGUAGE_TSX.into()),
    ("javascript", || tree_sitter_javascript::LANGUAGE.into()),
    // Go, Java, C and C++ (#30).
    ("go", || tree_sitter_go::LANGUAGE.into()),
    ("java", || tree_sitter_java::LANGUAGE.into()),
    ("c", || tree_sitter_c::LANGUAGE.into()),
    ("cpp", || tree_sitter_cpp::LANGUAGE.into()),
    // C#, Ruby, PHP, Bash (#30)
    ("c_sharp", || tree_sitter_c_sharp::LANGUAGE.into()),
    ("ruby", || tree_sitter_ruby::LANGUAGE.into()),
    ("php", || tree_sitter_php::LANGUAGE_PHP.into()),
    ("bash", || tree_sitter_bash::LANGUAGE.into()),
];

pub(crate) fn grammar(name: &str) -> Option<Language> {
    GRAMMARS.iter().find(|(n, _)| *n == name).map(|(_, f)| f())
}

pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    GRAMMARS.iter().map(|(n, _)| *n)
}
