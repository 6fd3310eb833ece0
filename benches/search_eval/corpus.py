#!/usr/bin/env python3
"""The corpus of the search evaluation (issue 31), reproducibly.

    python3 benches/search_eval/corpus.py [--scalpel target/release/scalpel]

1. Fetches every repository of `repos.toml` from its registry with the
   registry's own client, pinned: `pip download` (PyPI sdists), `cargo
   fetch` in a scratch package with a private CARGO_HOME (crates.io; cargo
   checks each crate against the index), `npm pack` (npm tarballs), `apt-get
   source --download-only` with a private source list (Debian source
   packages; apt checks them against the signed Release file). The sha256
   of each PyPI/npm archive is checked against `repos.toml`; an empty one is
   printed, to be written there.
2. Unpacks each into `target/search-eval/src/<name>/` (the repository's
   tree as released, minus the folders `drop` names).
3. Generated queries: from each repository, functions and methods with a
   doc comment or docstring, sampled with a fixed seed; the query is the
   doc's first sentence, the answer the function's file and lines. A copy
   of the repository with those docs blanked (lines kept, so that line
   numbers hold) goes to `target/search-eval/stripped/<name>/`, and the
   queries to `target/search-eval/generated/<name>.json`: the bench indexes
   the stripped copy for them, so a query never finds its own words.
4. Checks the split of `repos.toml` against its rule (`split_seed`).

Everything is cached: a repository already unpacked is not fetched again
(delete its folder to refetch). Needs python3 (3.11+), pip, cargo, npm,
apt-get and a Scalpel binary (for the symbol ranges of non-Python code).
"""

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "target" / "search-eval"
# Generated queries per repository, at most, and the seed of their sample.
PER_REPO = 25
SAMPLE_SEED = 31
# A doc sentence shorter than this many words is not a question.
MIN_WORDS = 4


def sh(cmd, cwd=None, env=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{r.stderr[-2000:]}")
    return r.stdout


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def check_sha(repo, archive):
    got = sha256(archive)
    want = repo.get("sha256", "")
    if not want:
        print(f"  {repo['name']}: sha256 = \"{got}\" (write it into repos.toml)")
    elif want != got:
        sys.exit(f"{repo['name']}: sha256 {got} differs from repos.toml's {want}")


def unpack_tar(archive, dest, strip=1):
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            parts = Path(m.name).parts[strip:]
            if not parts or not (m.isfile() or m.isdir()):
                continue
            m.name = str(Path(*parts))
            t.extract(m, dest, filter="data")


def fetch_pypi(repo, dl, dest):
    sh([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
        repo["pin"], "-d", str(dl)])
    name, version = repo["pin"].split("==")
    archive = next(p for p in dl.iterdir()
                   if p.name.lower().startswith(f"{name.lower()}-{version}") and p.name.endswith(".tar.gz"))
    check_sha(repo, archive)
    unpack_tar(archive, dest)


def fetch_npm(repo, dl, dest):
    dl.mkdir(parents=True, exist_ok=True)
    out = sh(["npm", "pack", "--silent", repo["pin"]], cwd=dl)
    archive = dl / out.strip().splitlines()[-1]
    check_sha(repo, archive)
    unpack_tar(archive, dest)


def fetch_crate(repo, dl, dest):
    name, version = repo["pin"].split("=")
    home = OUT / "cargo-home"
    scratch = dl / f"fetch-{name}"
    (scratch / "src").mkdir(parents=True, exist_ok=True)
    (scratch / "src" / "lib.rs").write_text("")
    (scratch / "Cargo.toml").write_text(
        f'[package]\nname = "fetch-{name}"\nversion = "0.0.0"\nedition = "2021"\n\n'
        f'[dependencies]\n{name} = "={version}"\n')
    env = dict(os.environ, CARGO_HOME=str(home))
    sh(["cargo", "fetch", "--quiet"], cwd=scratch, env=env)
    src = next((home / "registry" / "src").glob(f"*/{name}-{version}"))
    shutil.copytree(src, dest)


def fetch_debian(repo, dl, dest):
    apt = OUT / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text("deb-src http://deb.debian.org/debian bookworm main\n")
    opts = []
    for o in [f"Dir::Etc::SourceList={apt / 'sources.list'}", "Dir::Etc::SourceParts=/dev/null",
              f"Dir::State::Lists={apt / 'lists'}", f"Dir::Cache={apt / 'cache'}",
              "Debug::NoLocking=1"]:
        opts += ["-o", o]
    if not any((apt / "lists").glob("*Sources*")):
        sh(["apt-get", *opts, "-qq", "update"])
    work = dl / repo["name"]
    work.mkdir(parents=True, exist_ok=True)
    sh(["apt-get", *opts, "-qq", "source", "--download-only", repo["pin"]], cwd=work)
    orig = next(p for p in work.iterdir() if ".orig.tar." in p.name)
    unpack_tar(orig, dest)


FETCH = {"pypi": fetch_pypi, "npm": fetch_npm, "crates": fetch_crate, "debian": fetch_debian}


def fetch(repo):
    dest = OUT / "src" / repo["name"]
    if dest.is_dir():
        return dest
    tmp = OUT / "src" / f".{repo['name']}.part"
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"fetching {repo['name']} ({repo['pin']})", flush=True)
    FETCH[repo["source"]](repo, OUT / "downloads", tmp)
    for d in repo.get("drop", []):
        shutil.rmtree(tmp / d, ignore_errors=True)
    tmp.rename(dest)
    return dest


# ---- generated queries -------------------------------------------------

def first_sentence(text):
    text = " ".join(text.split())
    m = re.search(r"(.+?[.!?])(\s|$)", text)
    s = m.group(1) if m else text
    return s.rstrip(".").strip()


TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__|testing|testdata|examples?|benches|fuzzing)(/|$)|_test\.|\.test\.|\.spec\.|(^|/)test_")


def usable(sentence):
    words = sentence.split()
    return len(words) >= MIN_WORDS and not sentence.lower().startswith(("todo", "deprecated", "see ", "copyright"))


def python_candidates(root):
    import ast
    out = []
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        try:
            text = f.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if not node.body or not isinstance(node.body[0], ast.Expr):
                continue
            doc = node.body[0].value
            if not (isinstance(doc, ast.Constant) and isinstance(doc.value, str)):
                continue
            if doc.lineno == node.lineno or len(node.body) < 2:
                continue  # a one-line def, or a body that is only its docstring
            sentence = first_sentence(doc.value)
            if not usable(sentence):
                continue
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append({"path": rel, "name": node.name, "start": start, "end": node.end_lineno,
                        "doc": (doc.lineno, doc.end_lineno), "query": sentence})
    return out


COMMENT = re.compile(r"^\s*(///?|/\*\*?|\*/?|//!)")
ANNOTATION = re.compile(r"^\s*(@\w|#\[)")
TAG = re.compile(r"^\s*@\w")


def strip_markers(line):
    line = line.strip()
    for m in ("/**", "/*", "*/", "///", "//", "*"):
        if line.startswith(m):
            line = line[len(m):]
    if line.endswith("*/"):
        line = line[:-2]
    return line.strip()


def comment_candidates(root, scalpel):
    out = []
    for line in subprocess.run([scalpel, "symbols", str(root), "--json", "--no-trivia"],
                               capture_output=True, text=True).stdout.splitlines():
        try:
            f = json.loads(line)
        except json.JSONDecodeError:
            continue
        if f.get("language") == "python":
            continue
        rel = Path(f["path"]).resolve().relative_to(root.resolve()).as_posix()
        try:
            lines = (root / rel).read_text(encoding="utf-8").split("\n")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for s in f.get("symbols", []):
            if s["kind"] not in ("function", "method"):
                continue
            start, end = s["start_line"], s["end_line"]
            if end - start < 2:
                continue
            # The comment block right above the definition (annotations and
            # attributes between them skipped).
            i = start - 2
            while i >= 0 and ANNOTATION.match(lines[i]) and not COMMENT.match(lines[i]):
                i -= 1
            last = i
            while i >= 0 and COMMENT.match(lines[i]) and lines[i].strip():
                i -= 1
            first = i + 1
            if first > last:
                continue
            text = []
            for ln in lines[first:last + 1]:
                if TAG.match(strip_markers(ln)):
                    break  # @param, @return ...: the prose is over
                text.append(strip_markers(ln))
            sentence = first_sentence(" ".join(text))
            if not usable(sentence):
                continue
            out.append({"path": rel, "name": s["name_path"], "start": start, "end": end,
                        "doc": (first + 1, last + 1), "query": sentence})
    return out


def blank_docs(src, dest, chosen):
    """The copy of `src` with the chosen docs blanked, lines kept."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    blank_docs_in_place(dest, chosen)


def blank_docs_in_place(dest, chosen):
    """Blank the chosen docs in the files under `dest`, lines kept."""
    by_file = {}
    for c in chosen:
        by_file.setdefault(c["path"], []).append(c)
    for rel, cs in by_file.items():
        p = dest / rel
        lines = p.read_text(encoding="utf-8").split("\n")
        for c in cs:
            a, b = c["doc"]
            if rel.endswith(".py"):
                indent = re.match(r"\s*", lines[a - 1]).group(0)
                lines[a - 1] = indent + '""'
                for k in range(a, b):
                    lines[k] = ""
            else:
                for k in range(a - 1, b):
                    lines[k] = ""
        p.write_text("\n".join(lines), encoding="utf-8")


def generate(repo, src, scalpel):
    gen = OUT / "generated" / f"{repo['name']}.json"
    stripped = OUT / "stripped" / repo["name"]
    if gen.is_file() and stripped.is_dir():
        return json.loads(gen.read_text())
    cands = python_candidates(src) if repo["lang"] == "python" else comment_candidates(src, scalpel)
    # Tests and examples are left out: their docs describe a test, not code
    # a user looks for.
    cands = [c for c in cands if not TEST_PATH.search(c["path"])]
    # One query per sentence: a sentence shared by several functions names
    # none of them.
    seen = {}
    for c in cands:
        seen.setdefault(c["query"].lower(), []).append(c)
    cands = sorted((v[0] for v in seen.values() if len(v) == 1), key=lambda c: (c["path"], c["start"]))
    chosen = random.Random(f"{SAMPLE_SEED}-{repo['name']}").sample(cands, min(PER_REPO, len(cands)))
    chosen.sort(key=lambda c: (c["path"], c["start"]))
    blank_docs(src, stripped, chosen)
    queries = [{"query": c["query"], "kind": "generated",
                "answers": [{"path": c["path"], "lines": [c["start"], c["end"]]}],
                "symbol": c["name"]} for c in chosen]
    gen.parent.mkdir(parents=True, exist_ok=True)
    gen.write_text(json.dumps(queries, indent=1))
    return queries


ANSWER = re.compile(r'\{ path = "([^"]+)", symbol = "([^"]+)"( \})')


def symbols_of(scalpel, path):
    out = subprocess.run([scalpel, "symbols", str(path), "--json"], capture_output=True, text=True)
    syms = []
    for line in out.stdout.splitlines():
        try:
            syms += json.loads(line).get("symbols", [])
        except json.JSONDecodeError:
            pass
    return syms


def norm(name):
    return re.sub(r"::|/|#", ".", name)


def text_definition(path, sym):
    """Lines of a definition Scalpel does not list as a symbol (JavaScript's
    `res.redirect = function redirect(...) {`): the first line that starts
    with `sym`, to the brace that closes the first one opened there."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        if not line.lstrip().startswith(sym):
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            for ch in lines[j]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if opened and depth <= 0:
                return i + 1, j + 1
        return None
    return None


def resolve(repo, src, scalpel):
    """Fill `lines` of the hand-written answers that name a `symbol`: the
    symbol's lines (with its doc comment and decorators) as Scalpel lists
    them; of several definitions of the name in the file (overloads, a
    declaration and its body), the longest."""
    qfile = HERE / "questions" / f"{repo['name']}.toml"
    if not qfile.is_file():
        return
    text = qfile.read_text()
    cache = {}

    def fill(m):
        path, sym = m.group(1), m.group(2)
        if path not in cache:
            cache[path] = symbols_of(scalpel, src / path)
        want = norm(sym)
        found = [s for s in cache[path]
                 if norm(s["name_path"]) == want or norm(s["name_path"]).endswith("." + want)
                 or (s.get("parent") and norm(f"{s['parent']}.{s['name']}") == want)]
        if not found:
            span = text_definition(src / path, sym)
            if span:
                return f'{{ path = "{path}", symbol = "{sym}", lines = [{span[0]}, {span[1]}] }}'
            near = sorted({s["name_path"] for s in cache[path] if s["name"] == want.split(".")[-1]})
            sys.exit(f"{qfile.name}: no symbol {sym!r} in {path} (same name: {near})")
        best = max(found, key=lambda s: (s["end_line"] - s["start_line"], -s["start_line"]))
        return f'{{ path = "{path}", symbol = "{sym}", lines = [{best["start_line"]}, {best["end_line"]}] }}'

    new = ANSWER.sub(fill, text)
    if new != text:
        qfile.write_text(new)
        print(f"  {qfile.name}: lines filled")


def split(repos, seed):
    by_lang = {}
    for r in repos:
        by_lang.setdefault(r["lang"], []).append(r["name"])
    halves = {}
    for names in by_lang.values():
        names = sorted(names)
        random.Random(seed).shuffle(names)
        k = math.ceil(len(names) / 2)
        for i, n in enumerate(names):
            halves[n] = "held-out" if i < k else "tuning"
    return halves


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scalpel", default=str(REPO / "target" / "release" / "scalpel"))
    ap.add_argument("--split", action="store_true", help="print the split and check it, nothing else")
    ap.add_argument("--fetch-only", action="store_true", help="fetch and unpack, no generated queries")
    ap.add_argument("--resolve", action="store_true",
                    help="fill the lines of hand-written answers from their symbols")
    args = ap.parse_args()
    data = tomllib.loads((HERE / "repos.toml").read_text())
    repos = data["repo"]
    halves = split(repos, data["split_seed"])
    for r in repos:
        if r.get("half") != halves[r["name"]]:
            sys.exit(f"{r['name']}: repos.toml says half = {r.get('half')!r}, the rule gives {halves[r['name']]!r}")
    if args.split:
        for h in ("tuning", "held-out"):
            print(h, sorted(n for n, x in halves.items() if x == h))
        return
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = []
    if not args.fetch_only and not Path(args.scalpel).is_file():
        sys.exit(f"no Scalpel binary at {args.scalpel}: cargo build --release, or pass --scalpel")
    for r in repos:
        src = fetch(r)
        if args.fetch_only:
            continue
        if args.resolve:
            resolve(r, src, args.scalpel)
            continue
        q = generate(r, src, args.scalpel)
        manifest.append({"name": r["name"], "lang": r["lang"], "half": r["half"],
                         "src": str(src), "stripped": str(OUT / "stripped" / r["name"]),
                         "generated": str(OUT / "generated" / f"{r['name']}.json"),
                         "files": sum(1 for p in src.rglob("*") if p.is_file()),
                         "generated_queries": len(q)})
        print(f"{r['name']:<12} {r['lang']:<10} {r['half']:<8} {manifest[-1]['files']:>5} files, "
              f"{len(q)} generated queries", flush=True)
    if args.fetch_only or args.resolve:
        return
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"manifest: {OUT / 'manifest.json'}")


if __name__ == "__main__":
    main()
