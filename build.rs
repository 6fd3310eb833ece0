//! Embeds `grammars/*.toml` and `queries/**/*.scm` into the binary, so the
//! built-in language data goes through the same loader as a user's override
//! directory (see `lang::Registry`).

use std::fmt::Write as _;
use std::path::Path;

fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, root, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("toml" | "scm")
        ) {
            out.push(
                path.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
}

fn main() {
    // Read when the script runs, not when it is compiled: a build script
    // compiled in one checkout (a copied target/) must embed this one's data.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest_dir);
    println!("cargo:rerun-if-changed=grammars");
    println!("cargo:rerun-if-changed=queries");
    let mut files = Vec::new();
    collect(&root.join("grammars"), root, &mut files);
    collect(&root.join("queries"), root, &mut files);
    let mut code = String::from("pub static EMBEDDED: &[(&str, &str)] = &[\n");
    for rel in &files {
        let abs = root.join(rel);
        println!("cargo:rerun-if-changed={}", abs.display());
        writeln!(
            code,
            "    ({rel:?}, include_str!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("embedded.rs");
    std::fs::write(out, code).unwrap();
}
