//! What the tests install for themselves, so that `cargo test` passes on a
//! fresh clone with only the toolchain, `python3` and `npm` present: the
//! pinned Python MCP SDK (a venv, packages from PyPI) and a pinned
//! JavaScript corpus (from the npm registry).
//!
//! Each item is built once per target directory, in place, under an
//! exclusive lock on `<name>.lock` next to it, so test binaries and threads
//! running in parallel wait for one builder. A marker holding the item's
//! stamp (its pins) is written last: a directory without it, or with another
//! stamp, is half-built or outdated and is removed and built again.
#![allow(dead_code)]

use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = ".provisioned";

/// The pinned npm release whose own JavaScript (with its bundled
/// dependencies: ~1,250 `.js` files) is the JavaScript corpus.
pub const JS_CORPUS_PACKAGE: &str = "npm@10.9.2";

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/tmp/<name>`, built by `build` unless already built with `stamp`.
pub fn provisioned(
    name: &str,
    stamp: &str,
    build: impl FnOnce(&Path) -> Result<(), String>,
) -> PathBuf {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    fs::create_dir_all(&base).unwrap();
    let dir = base.join(name);
    let marker = dir.join(MARKER);
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(base.join(format!("{name}.lock")))
        .unwrap();
    // Released when `lock` is dropped, also if `build` panics.
    lock.lock().unwrap();
    if fs::read_to_string(&marker).is_ok_and(|s| s == stamp) {
        return dir;
    }
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();
    eprintln!("setting up {} (once per target directory)", dir.display());
    if let Err(e) = build(&dir) {
        panic!("could not set up {}: {e}", dir.display());
    }
    fs::write(&marker, stamp).unwrap();
    dir
}

/// What a prerequisite of the tests is, for the message when it is missing.
fn prerequisite(program: &str) -> &'static str {
    match program {
        "python3" => "python3 with its venv module (Debian: apt-get install python3 python3-venv)",
        "npm" => "npm (Debian: apt-get install npm)",
        "apt-get" | "dpkg-deb" => {
            "Debian's apt-get and dpkg-deb, with the package lists updated (apt-get update)"
        }
        "tar" => "tar",
        _ => "the packages it installs",
    }
}

/// Run `cmd`; its output becomes the error when it fails, naming the
/// prerequisite (see README, "Try it") when the program is missing.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let program = cmd.get_program().to_string_lossy().into_owned();
    let needs = prerequisite(&program);
    let out = cmd.output().map_err(|e| {
        format!("cannot run {shown}: {e}. The tests need {needs} on PATH (see the README)")
    })?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{shown} failed ({}); the tests need {needs}, with network access to PyPI and the npm registry the first time:\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// The Python of a venv holding the official MCP SDK pinned in
/// `tests/support/requirements.txt` (installed from PyPI).
pub fn mcp_venv_python() -> PathBuf {
    let requirements = manifest_dir().join("tests/support/requirements.txt");
    let pins = fs::read_to_string(&requirements).unwrap();
    let dir = provisioned("mcp-venv", &pins, |dir| {
        run(Command::new("python3").args(["-m", "venv"]).arg(dir))?;
        run(Command::new(dir.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(&requirements))
    });
    dir.join("bin/python")
}

/// Install pinned npm `packages` under `dir/node_modules` from the npm
/// registry, running no package script.
pub fn npm_install(dir: &Path, packages: &[&str]) -> Result<(), String> {
    run(Command::new("npm")
        .args(["install", "--prefix"])
        .arg(dir)
        .args(packages)
        .args([
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ]))
}

/// The folder of the pinned JavaScript corpus (installed from the npm
/// registry without running any package script).
pub fn js_corpus() -> PathBuf {
    let dir = provisioned("js-corpus", JS_CORPUS_PACKAGE, |dir| {
        npm_install(dir, &[JS_CORPUS_PACKAGE])
    });
    dir.join("node_modules/npm")
}

/// The pinned TypeScript compiler (the judge of edited TypeScript) and a
/// pinned TypeScript code base whose package ships its `.ts` sources (zod).
pub const TS_PACKAGES: [&str; 2] = ["typescript@5.6.3", "zod@3.25.76"];

/// The folder holding `node_modules/typescript` and `node_modules/zod`
/// (installed from the npm registry without running any package script).
pub fn ts_corpus() -> PathBuf {
    provisioned("ts-corpus", &TS_PACKAGES.join(" "), |dir| {
        npm_install(dir, &TS_PACKAGES)
    })
}

/// The pinned Python type checker (pyright, from the npm registry: the
/// judge of renamed Python) and a pinned Python code base (packaging, from
/// PyPI, its sources only).
pub const PY_JUDGE_PACKAGES: [&str; 2] = ["pyright@1.1.389", "packaging==24.2"];

/// The folder holding `node_modules/pyright` and `src/packaging`.
pub fn py_judged_corpus() -> PathBuf {
    provisioned("py-judged", &PY_JUDGE_PACKAGES.join(" "), |dir| {
        npm_install(dir, &PY_JUDGE_PACKAGES[..1])?;
        run(Command::new("python3")
            .args(["-m", "venv"])
            .arg(dir.join("venv")))?;
        run(Command::new(dir.join("venv/bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--no-compile",
                "--target",
            ])
            .arg(dir.join("src"))
            .arg(PY_JUDGE_PACKAGES[1]))
    })
}

/// The files of a pinned Debian binary package (`name=version`), unpacked
/// under `<dir>/root` without installing it: `apt-get download` from the
/// system's package lists, then `dpkg-deb -x`. The version is the stamp.
pub fn deb_package(name: &str, version: &str) -> PathBuf {
    let pin = format!("{name}={version}");
    let dir = provisioned(&format!("deb-{name}"), &pin, |dir| {
        run(Command::new("apt-get")
            .current_dir(dir)
            .args(["download", "-qq", &pin]))?;
        let deb = fs::read_dir(dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "deb"))
            .ok_or_else(|| format!("apt-get download {pin} left no .deb"))?;
        run(Command::new("dpkg-deb")
            .arg("-x")
            .arg(&deb)
            .arg(dir.join("root")))?;
        fs::remove_file(&deb).map_err(|e| e.to_string())
    });
    dir.join("root")
}

/// The upstream sources of a pinned Debian source package (`name=version`),
/// unpacked under `<dir>/src`: `apt-get source --download-only` with a
/// private source list and package lists (the system's apt setup is not
/// touched), then its `.orig.tar.*` unpacked by `tar`.
pub fn deb_source(name: &str, version: &str) -> PathBuf {
    let pin = format!("{name}={version}");
    let dir = provisioned(&format!("debsrc-{name}"), &pin, |dir| {
        let apt = dir.join("apt");
        fs::create_dir_all(apt.join("lists/partial")).map_err(|e| e.to_string())?;
        fs::create_dir_all(apt.join("cache/archives/partial")).map_err(|e| e.to_string())?;
        let list = apt.join("sources.list");
        fs::write(
            &list,
            "deb-src http://deb.debian.org/debian bookworm main\n",
        )
        .map_err(|e| e.to_string())?;
        let options = [
            format!("Dir::Etc::SourceList={}", list.display()),
            "Dir::Etc::SourceParts=/dev/null".to_string(),
            format!("Dir::State::Lists={}", apt.join("lists").display()),
            format!("Dir::Cache={}", apt.join("cache").display()),
            "Debug::NoLocking=1".to_string(),
        ];
        let apt_get = |args: &[&str]| {
            let mut cmd = Command::new("apt-get");
            cmd.current_dir(dir);
            for o in &options {
                cmd.args(["-o", o]);
            }
            cmd.args(["-qq"]).args(args);
            run(&mut cmd)
        };
        apt_get(&["update"])?;
        apt_get(&["source", "--download-only", &pin])?;
        let orig = fs::read_dir(dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().contains(".orig.tar."))
            .ok_or_else(|| format!("apt-get source {pin} left no .orig.tar"))?;
        fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
        run(Command::new("tar")
            .arg("-xf")
            .arg(&orig)
            .arg("-C")
            .arg(dir.join("src"))
            .arg("--strip-components=1"))?;
        fs::remove_dir_all(&apt).map_err(|e| e.to_string())
    });
    dir.join("src")
}

/// The unpacked source distribution of a pinned PyPI package
/// (`"name==version"`), downloaded by pip (no wheel, no dependencies)
/// into the venv of [`mcp_venv_python`] and unpacked with `tar`.
pub fn pypi_sdist(spec: &str) -> PathBuf {
    let python = mcp_venv_python();
    let name = format!("pypi-{}", spec.replace("==", "-"));
    provisioned(&name, spec, |dir| {
        let download = dir.join("download");
        run(Command::new(&python)
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
            ])
            .arg(&download)
            .arg(spec))?;
        for sdist in fs::read_dir(&download).map_err(|e| e.to_string())? {
            let sdist = sdist.map_err(|e| e.to_string())?.path();
            run(Command::new("tar")
                .arg("-xzf")
                .arg(&sdist)
                .arg("-C")
                .arg(dir))?;
        }
        fs::remove_dir_all(&download).map_err(|e| e.to_string())
    })
}

/// The contents of the zip archive `zip` (Java's `src.zip` in
/// `openjdk-17-source`), unpacked by Python's `zipfile` under
/// `target/tmp/<name>`; `stamp` says which archive it is.
pub fn unzipped(name: &str, zip: &Path, stamp: &str) -> PathBuf {
    provisioned(name, stamp, |dir| {
        run(Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(zip)
            .arg(dir))
    })
}

/// The pinned language servers of the semantic backend (#27), from the npm
/// registry: pyright (its package ships `pyright-langserver`),
/// typescript-language-server and the TypeScript it drives, and
/// bash-language-server (#30).
pub const LSP_PACKAGES: [&str; 4] = [
    "pyright@1.1.389",
    "typescript-language-server@4.4.1",
    "typescript@5.6.3",
    "bash-language-server@5.8.1",
];

/// The folder of the language servers' programs (`node_modules/.bin`), for
/// the front of `PATH`; each program is checked, a missing one fails naming
/// its npm package.
pub fn lsp_servers() -> PathBuf {
    let dir = provisioned("lsp-servers", &LSP_PACKAGES.join(" "), |dir| {
        run(Command::new("npm")
            .args(["install", "--prefix"])
            .arg(dir)
            .args(LSP_PACKAGES)
            .args([
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ]))
    });
    let bin = dir.join("node_modules/.bin");
    for (program, package) in [
        ("pyright-langserver", LSP_PACKAGES[0]),
        ("pyright", LSP_PACKAGES[0]),
        ("typescript-language-server", LSP_PACKAGES[1]),
        ("tsc", LSP_PACKAGES[2]),
        ("bash-language-server", LSP_PACKAGES[3]),
    ] {
        assert!(
            bin.join(program).exists(),
            "`{program}` is missing from {}: install the npm package {package} there (tests/provision installs it)",
            bin.display()
        );
    }
    bin
}
