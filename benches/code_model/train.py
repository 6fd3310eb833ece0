#!/usr/bin/env python3
"""A static code embedding of our own (issue 31, item 3), reproducibly.

    python3 benches/code_model/train.py pairs [--allow-missing]   # doc/code pairs -> target/code-model/pairs.jsonl
    python3 benches/code_model/train.py train   # -> target/code-model/model/ (Model2Vec layout)
      [--base DIR] [--epochs N] [--lr X] [--tau X] [--keep X] [--negatives N] [--out DIR]

Starts from a general static model (`--base`, default
`../shared/models/minilm-static-256`, one vector per WordPiece token) and
moves its token vectors so that the first sentence of a function's doc
comment or docstring lands next to the function's code as Scalpel embeds it
(the words `scalpel parse --dump-units` prints for the function's unit, its
doc blanked first, so the code has to speak for itself). The loss is the
symmetric in-batch InfoNCE of the mean-pooled, L2-normalised vectors, with
a pull back towards the base vectors (`--keep`) so the words a code corpus
rarely shows keep their general meaning. With `--negatives N`, each query
is also scored against up to N other units of its function's file as the
index sees them (their docs kept, the sampled functions' blanked): a search
has to tell a function from its neighbours, whose docs often share the
question's words. Session 41 (BENCHMARKS.md) measured it at 8: tuning half
+0.008, held-out half unchanged, so the default stays 0.

The pairs come from code that the search evaluation (`benches/search_eval/
repos.toml`) and the old 102 questions (the Python standard library and
eight crates of `benches/search.rs`) never index: crates of the cargo
registry, the corpora the tests provision under `target/tmp/` (Go's and
Java's standard libraries, npm's CLI, zod and TypeScript, yaml-cpp,
doctrine-orm, the Python packages of the MCP test venv). Every package of the evaluation is refused by name.

Needs: the release binary (`cargo build --release`), the provisioned
corpora (a `cargo test` run; `pairs` refuses without them unless
`--allow-missing`), and numpy, scipy, safetensors, tokenizers
(installed into `target/code-model-venv` when missing).
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "target" / "code-model"
VENV = REPO / "target" / "code-model-venv"
SCALPEL = Path(os.environ.get("SCALPEL_BIN", REPO / "target" / "release" / "scalpel"))
TMP = REPO / "target" / "tmp"
SEED = 31
# Other units of the function's file kept with each pair: the hard
# negatives of `train --negatives`.
NEGATIVES = 8

sys.path.insert(0, str(HERE.parent / "search_eval"))
import corpus as eval_corpus  # noqa: E402  (its doc extraction, shared)

# Crates the old 102 questions index (benches/search.rs CRATES).
OLD_SET_CRATES = {"serde_json", "ryu", "itoa", "memchr", "strsim", "tempfile", "globset", "similar"}


def evaluation_names():
    repos = tomllib.loads((HERE.parent / "search_eval" / "repos.toml").read_text())
    names = set()
    for r in repos["repo"]:
        names.add(r["name"].lower())
        for key in ("pypi", "npm", "crate", "debian"):
            v = r.get(key)
            if isinstance(v, str):
                names.add(re.split(r"[=@ ]", v)[0].lower())
    return names | OLD_SET_CRATES


PACKAGES = ["numpy==2.4.6", "scipy==1.16.3", "safetensors==0.7.0", "tokenizers==0.23.3"]


def ensure_venv():
    """Re-run under the venv that has numpy, scipy, safetensors and
    tokenizers (installing what it lacks)."""
    try:
        import numpy  # noqa: F401
        import safetensors  # noqa: F401
        import scipy  # noqa: F401
        import tokenizers  # noqa: F401
        return
    except ImportError:
        pass
    py = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        sys.exit("the venv lacks a package though it was installed: " + " ".join(PACKAGES))
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q"] + PACKAGES, check=True)
    os.execv(str(py), [str(py)] + sys.argv)


# ---- sources ------------------------------------------------------------

def registry_crates(refused):
    """The newest version of each crate in the cargo registry."""
    best = {}
    home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    for reg in sorted((home / "registry" / "src").glob("*")):
        for d in sorted(reg.iterdir()):
            m = re.match(r"(.+?)-(\d+\.\d+\.\d+.*)$", d.name)
            if not m:
                continue
            name = m.group(1)
            if name.lower() in refused or name.lower().replace("_", "-") in refused:
                continue
            if name.startswith(("ra_ap_", "windows")):
                continue  # one project's 60 crates / generated bindings: would outweigh the rest
            best[name] = d
    return sorted(best.items())


def python_packages(refused):
    site = sorted(TMP.glob("mcp-venv/lib/python3*/site-packages"))
    if not site:
        return []
    out = []
    for d in sorted(site[0].iterdir()):
        if d.is_dir() and not d.name.endswith((".dist-info", "__pycache__")) and not d.name.startswith("_"):
            if d.name.lower() not in refused and d.name not in ("pip", "setuptools", "pkg_resources"):
                out.append((d.name, d))
    # pip and setuptools are large and well documented, but they vendor
    # other packages (requests, among them): only their own code.
    for name in ("pip/_internal", "setuptools/command"):
        p = site[0] / name
        if p.is_dir():
            out.append((name.replace("/", "-"), p))
    return out


# The corpora the test suite provisions under target/tmp that the pairs
# read, and the test binaries that provision them. On a machine where the
# tests never ran they are absent, and the pairs would silently be fewer
# (24,323 instead of 39,835 on session 44's fresh machine: no Go, Java or
# PHP at all), so `pairs` refuses unless told to go on without them.
LOCAL_CORPORA = [
    ("the MCP test venv's Python packages", "mcp-venv/lib/python3*/site-packages", "mcp_python"),
    ("Go's standard library", "deb-golang-1.19-src/root/usr/share/go-1.19/src", "trust"),
    ("Java's standard library", "java-corpus/java.base", "trust"),
    ("zod", "ts-corpus/node_modules/zod/src", "corpus"),
    ("npm's CLI", "js-corpus/node_modules/npm/lib", "corpus"),
    ("yaml-cpp", "debsrc-yaml-cpp/src/src", "trust"),
    ("doctrine-orm", "deb-php-doctrine-orm/root/usr/share/php", "trust"),
]


def missing_local_corpora():
    """(what, test) of every local corpus that is not there."""
    return [(what, test) for what, rel, test in LOCAL_CORPORA
            if not any(p.is_dir() for p in TMP.glob(rel))]


def sources(refused):
    """(language, name, root) of every source of pairs."""
    out = [("rust", n, d) for n, d in registry_crates(refused)]
    out += [("python", n, d) for n, d in python_packages(refused)]
    go = TMP / "deb-golang-1.19-src/root/usr/share/go-1.19/src"
    if go.is_dir():
        out += [("go", f"go-{d.name}", d) for d in sorted(go.iterdir()) if d.is_dir() and d.name not in ("cmd", "vendor")]
    java = TMP / "java-corpus"
    for m in ("java.base", "java.desktop", "java.net.http", "java.sql", "java.xml", "jdk.compiler"):
        if (java / m).is_dir():
            out.append(("java", m, java / m))
    for lang, name, rel in (("typescript", "zod", "ts-corpus/node_modules/zod/src"),
                            ("javascript", "npm", "js-corpus/node_modules/npm/lib"),
                            ("cpp", "yaml-cpp", "debsrc-yaml-cpp/src/src"),
                            ("php", "doctrine-orm", "deb-php-doctrine-orm/root/usr/share/php")):
        if (TMP / rel).is_dir():
            out.append((lang, name, TMP / rel))
    out += fetch_extra()
    return [s for s in out if s[1].lower() not in refused]


# More packages for the languages the local corpora hold little of, pinned,
# fetched by the search evaluation's own registry clients
# (`corpus.FETCH`) into `target/code-model/src/<name>/`; (language, name,
# registry, pin, folder of the package's code).
EXTRA = [
    ("typescript", "effect", "npm", "effect@3.12.7", "src", "f3704c8f086169e2a6a4d428b7a34700685fd062772ec469d2eb0e4dc9f17a4f"),
    ("typescript", "tanstack-query-core", "npm", "@tanstack/query-core@5.62.8", "src", "3e027c391d9bd3713b6efe867ce6d00a17e456784db5538d40acd55af80e1ca9"),
    ("javascript", "lodash", "npm", "lodash@4.17.21", ".", "6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804"),
    ("javascript", "ws", "npm", "ws@8.18.0", "lib", "a08221f2851472c944ca0178d89a9888c7f43fbd9998afc8a7ec6fe417c4ca20"),
    ("javascript", "yargs", "npm", "yargs@17.7.2", "build/lib", "48ec935f10b5d760620a2670fcb2e237a7dee58a1bd4a53f1908dd7dcb83aec9"),
    ("javascript", "async", "npm", "async@3.2.6", "internal", "6bb45cfba08cd2eea39eb3ce6eaa94113070fe137ec0bd4a9f122be9a0250e6f"),
    ("python", "rich", "pypi", "rich==13.9.4", "rich", "439594978a49a09530cff7ebc4b5c7103ef57baf48d5ea3184f21d9a2befa098"),
    ("python", "jinja2", "pypi", "jinja2==3.1.4", "src", "4a3aee7acbbe7303aede8e9648d13b8bf88a429282aa6122a993f0ac800cb369"),
    ("python", "werkzeug", "pypi", "werkzeug==3.1.3", "src", "60723ce945c19328679790e3282cc758aa4a6040e4bb330f53d30fa546d44746"),
    ("python", "more-itertools", "pypi", "more-itertools==10.5.0", "more_itertools", "5482bfef7849c25dc3c6dd53a6173ae4795da2a41a80faea6700d9f5846c5da6"),
    ("c", "libyaml", "debian", "libyaml", "src", ""),
    ("c", "jansson", "debian", "jansson", "src", ""),
    ("c", "lz4", "debian", "lz4", "lib", ""),
    ("c", "libuv1", "debian", "libuv1", "src", ""),
    ("cpp", "nlohmann-json3", "debian", "nlohmann-json3", "include", ""),
    ("cpp", "pugixml", "debian", "pugixml", "src", ""),
    ("cpp", "spdlog", "debian", "spdlog", "include", ""),
    ("typescript", "trpc-server", "npm", "@trpc/server@11.25.2", "src", "43d5562bf3d3ca2ba55bb37a91020c19d90ddaa3359a1eb55e5fefc62c6cb29a"),
    ("typescript", "tanstack-router-core", "npm", "@tanstack/router-core@1.171.39", "src", "0c9345f2830bda69901d464a293d101f10635d3c935f7f1e310681b71bd2e962"),
    ("typescript", "tanstack-db", "npm", "@tanstack/db@0.15.2", "src", "18682e004ce628f78fd144409e8780c9cca774eaac141f953d1a146a573738b9"),
    ("typescript", "tanstack-form-core", "npm", "@tanstack/form-core@1.33.5", "src", "086165f02c5208fb01dab15e3a9b1c6bf2247fb2c9576f1ac138fe73c11330d7"),
    ("typescript", "effect-platform", "npm", "@effect/platform@0.97.2", "src", "329d4da0307fafb8689c522fbc312551c66760b2b41ceaa51c7f0a96e9da2874"),
    ("typescript", "effect-sql", "npm", "@effect/sql@0.52.1", "src", "896895747fe0a82233ec5c8f6a5eb8a38557f088cc4ac0c60d25c34b3d8202d0"),
    ("typescript", "effect-cli", "npm", "@effect/cli@0.77.2", "src", "7298ad832e8f2d8f6775e99c77c9a13da3dd1ddd0e4bf5f7b677decba27270e5"),
    ("javascript", "eslint", "npm", "eslint@10.16.0", "lib", "dd276c6ce30dce8c2a2ab63db48f814baa2f492e85e7b124d9976d7bb023b751"),
    ("javascript", "webpack", "npm", "webpack@5.113.0", "lib", "095755cb8e271b3f38615ae794264f314b1e4dd3158c5677e8700aee9ea20bb7"),
    ("javascript", "mongoose", "npm", "mongoose@9.13.2", "lib", "7ff3808205a4f6e68b2978f4b0db81e1459dd8f5e2e160441ce1e29dd79d514b"),
    ("javascript", "sequelize", "npm", "sequelize@6.37.8", "lib", "fabd247885c91dba5208f3db4f2d3632986591462230006149783355068cb9ff"),
    ("javascript", "moment", "npm", "moment@2.31.0", "src", "efddf549c13aa7cf270f573d9c464978ab0810c0652673ae6af1189bb56ab3f8"),
    ("javascript", "jquery", "npm", "jquery@4.1.0", "src", "1cf3fd7020a7ba620a7cf7b7123312374ee1c169eb41a29d67ea4c9f9c15c187"),
    ("javascript", "underscore", "npm", "underscore@1.13.8", "modules", "6547214df2878ae60cc552422ef14af38b8d4e3aa613be5bfe9c52b775d96f7a"),
    ("python", "flask", "pypi", "flask==3.1.0", "src", "5f873c5184c897c8d9d1b05df1e3d01b14910ce69607a117bd3277098a5836ac"),
    ("python", "attrs", "pypi", "attrs==24.3.0", "src", "8f5c07333d543103541ba7be0e2ce16eeee8130cb0b3f9238ab904ce1e85baff"),
    ("python", "httpx", "pypi", "httpx==0.28.1", "httpx", "75e98c5f16b0f35b567856f597f06ff2270a374470a5c2392242528e3e3e42fc"),
    ("python", "pytest", "pypi", "pytest==8.3.4", "src", "965370d062bce11e73868e0335abac31b4d3de0e82f4007408d242b4f8610761"),
    ("python", "django", "pypi", "django==5.1.4", "django", "de450c09e91879fa5a307f696e57c851955c910a438a35e6b4c895e86bedc82a"),
    ("c", "sqlite3", "debian", "sqlite3", "src", ""),
    ("c", "curl", "debian", "curl", "lib", ""),
    ("c", "zlib", "debian", "zlib", ".", ""),
    ("c", "redis", "debian", "redis", "src", ""),
    ("c", "libgit2", "debian", "libgit2", "src", ""),
    ("cpp", "leveldb", "debian", "leveldb", ".", ""),
    ("cpp", "rapidjson", "debian", "rapidjson", "include", ""),
    ("cpp", "re2", "debian", "re2", "re2", ""),
    ("cpp", "snappy", "debian", "snappy", ".", ""),
]


def fetch_extra():
    out = []
    for lang, name, registry, pin, under, sha in EXTRA:
        dest = OUT / "src" / name
        if not dest.is_dir():
            part = OUT / "src" / f".{name}.part"
            shutil.rmtree(part, ignore_errors=True)
            print(f"fetching {pin}", file=sys.stderr, flush=True)
            try:
                eval_corpus.FETCH[registry]({"name": name, "pin": pin, "sha256": sha}, OUT / "downloads", part)
            except SystemExit as e:  # one package's failure is said, not fatal
                print(f"  {pin}: {e}", file=sys.stderr)
                continue
            part.rename(dest)
        if (dest / under).is_dir():
            out.append((lang, name, dest / under))
    return out


# ---- pairs --------------------------------------------------------------

# At most this many pairs per source (by language: many small crates,
# few large TypeScript packages) and per language, sampled with SEED.
PER_SOURCE = {"rust": 400, "go": 400, "python": 800, "java": 1500}
PER_SOURCE_OTHER = 2500
PER_LANGUAGE = 9000


# Copies of other projects inside a package (spdlog bundles {fmt}, which
# the evaluation indexes): never trained on.
VENDORED = re.compile(r"(^|/)(_?vendor(ed)?|bundled|third_party|external)(/|$)")


def dump_units(path):
    r = subprocess.run([str(SCALPEL), "parse", str(path), "--dump-units"], capture_output=True, text=True)
    return [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]


def pairs_of(lang, name, root):
    cands = eval_corpus.python_candidates(root) if lang == "python" else eval_corpus.comment_candidates(root, str(SCALPEL))
    cands = [c for c in cands if not eval_corpus.TEST_PATH.search(c["path"]) and not VENDORED.search(c["path"])]
    seen = {}
    for c in cands:
        seen.setdefault(c["query"].lower(), []).append(c)
    cands = sorted((v[0] for v in seen.values() if len(v) == 1), key=lambda c: (c["path"], c["start"]))
    cap = PER_SOURCE.get(lang, PER_SOURCE_OTHER)
    cands = random.Random(f"{SEED}-{name}").sample(cands, min(cap, len(cands)))
    if not cands:
        return []
    # The code as the index would see it with the doc gone.
    stripped = OUT / "stripped" / name
    by_file = {}
    for c in cands:
        by_file.setdefault(c["path"], []).append(c)
    shutil.rmtree(stripped, ignore_errors=True)
    out = []
    for rel, cs in sorted(by_file.items()):
        dest = stripped / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, dest)
    eval_corpus.blank_docs_in_place(stripped, cands)
    for rel, cs in sorted(by_file.items()):
        # The units as the index sees them: the sampled functions' docs
        # blanked (not only in the function's own unit: a doc comment can
        # also be a module-level block of its own), the others' docs kept.
        units = dump_units(stripped / rel)
        for c in cs:
            # The unit that starts where the function starts (a split
            # unit: its first part), else the one holding its first line.
            best = [u for u in units if u["start_line"] == c["start"] and u["part"] <= 1]
            best = best or [u for u in units if u["start_line"] <= c["start"] <= u["end_line"] and u["kind"] != "module"]
            if not best:
                continue
            code = unit_words(best[0])
            lo, hi = best[0]["start_line"], best[0]["end_line"]
            negs = [unit_words(u) for u in units if u["end_line"] < lo or u["start_line"] > hi]
            negs = [n for n in negs if n]
            negs = random.Random(f"{SEED}-{name}-{rel}-{lo}").sample(negs, min(NEGATIVES, len(negs)))
            out.append({"lang": lang, "source": name, "query": plain_words(c["query"], 64), "code": code, "negs": negs})
    shutil.rmtree(stripped, ignore_errors=True)
    return out


def unit_words(u):
    """A unit's text as the model is given it (`embedding_words`)."""
    w = u["words"]
    return " ".join(x for x in (w["name"], w["file"], w["signature"], w["doc"], w["body"]) if x)


CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+")


def plain_words(text, max_words):
    """Scalpel's `tokens::plain_words` for prose: words split at
    punctuation, identifiers into their parts, lower-case."""
    out = []
    for word in re.findall(r"[A-Za-z0-9_]+", text):
        for part in word.split("_"):
            for p in CAMEL.findall(part) or ([part] if part else []):
                out.append(p.lower())
                if len(out) == max_words:
                    return " ".join(out)
    return " ".join(out)


def cmd_pairs(args):
    if not SCALPEL.exists():
        sys.exit("no target/release/scalpel: cargo build --release")
    missing = missing_local_corpora()
    if missing and not args.allow_missing:
        tests = " ".join(f"--test {t}" for t in sorted({t for _, t in missing}))
        sys.exit("the corpora the tests provision are missing under target/tmp: "
                 + ", ".join(w for w, _ in missing)
                 + f". Run `cargo test {tests}` once (with the README's prerequisites"
                 " installed), or pass --allow-missing to make pairs without them"
                 " (they then differ from the ones BENCHMARKS.md measured).")
    refused = evaluation_names()
    srcs = sources(refused)
    print(f"{len(srcs)} sources", file=sys.stderr)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda s: pairs_of(*s), srcs))
    by_lang = {}
    for (lang, name, _), ps in zip(srcs, results):
        by_lang.setdefault(lang, []).extend(ps)
    all_pairs = []
    for lang, ps in sorted(by_lang.items()):
        ps = random.Random(f"{SEED}-{lang}").sample(ps, min(PER_LANGUAGE, len(ps)))
        print(f"  {lang:<11} {len(ps):>6} pairs from {len({p['source'] for p in ps})} sources", file=sys.stderr)
        all_pairs += ps
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "pairs.jsonl", "w") as f:
        for p in all_pairs:
            f.write(json.dumps(p) + "\n")
    print(f"{len(all_pairs)} pairs -> {OUT / 'pairs.jsonl'}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stage", choices=["pairs", "train"])
    ap.add_argument("--base", default=str(REPO.parent / "shared" / "models" / "minilm-static-256"))
    ap.add_argument("--out", default=str(OUT / "model"))
    ap.add_argument("--epochs", type=float, default=6)
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--keep", type=float, default=0.0)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--grouped", type=float, default=0.5)
    ap.add_argument("--negatives", type=int, default=0)
    ap.add_argument("--allow-missing", action="store_true",
                    help="pairs: go on when corpora the tests provision are missing")
    args = ap.parse_args()
    if args.stage == "pairs":
        cmd_pairs(args)
    else:
        ensure_venv()
        import train_model
        train_model.train(args, OUT / "pairs.jsonl")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
