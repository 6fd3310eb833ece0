#!/usr/bin/env python3
"""Symbol recall and precision of Scalpel's outline against each language's
own parser, on the pinned corpora of tests/data/front_ends.toml (provisioned
under target/tmp by `cargo test --test trust`):

- go: go/parser (benches/support/go_names.go) over the Go standard library
  (golang-1.19-src): functions, methods (`Type.Method`, pointer and generic
  receivers), types, fields and interface methods of the package's types,
  package-level consts and vars; as (file, name path), overloads one path;
- java: javac's parser (`tests/support/JavaParse.java names`) over the JDK's
  `java.base` (openjdk-17-source): classes, interfaces, enums, records,
  annotation types, methods, constructors, fields, enum constants; as
  (file, name path);
- c, cpp: libclang (benches/support/clang_names.py, the PyPI `libclang`
  wheel pinned below, in a venv under target/tmp) over the C files (`.c`,
  `.h`) of golang-1.19-src, and over yaml-cpp 0.7.0 (`src/`, `include/`)
  and cereal 1.3.2's headers (Debian's libcereal-dev, downloaded here):
  per kind, as (file, line of the name, name);
- c_sharp: mono's C# parser (benches/support/CsNames.cs over
  Mono.CSharp.dll: Debian's libmono-csharp4.0c-cil; C# 7 and mcs's
  experimental features, so newer files are left out as rejected) over
  pythonnet 3.0.5's `src/runtime`: types, members, enum members, per kind,
  as (file, line of the name, name);
- bash: functions, against `shfmt --tojson` (FuncDecl), bash-completion;
  and its top-level variables (assignments, `declare`, `export X=..`);
- ruby: modules, classes, `def` and `def self.` methods, against Ripper,
  the installed Ruby's own library; ruby_members: its constants (`X = ..`,
  `A::X = ..`) and `attr_*` accessors, per kind;
- php: namespaces, classes, interfaces, traits, enums, functions and
  methods, against PHP's own tokenizer (`token_get_all`), php-doctrine-orm;
  bash, ruby, php as (file, line of the name, name).

Files the oracle rejects, and files tree-sitter reads with errors (their
symbols are best effort), are left out and counted.

    python3 benches/lang_symbols.py [--scalpel target/debug/scalpel] [LANG...]

LANG is any of go java c cpp c_sharp bash ruby ruby_members php (default:
all).
"""
import argparse, collections, glob, json, os, shutil, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tmp = os.path.join(root, "target/tmp")
LIBCLANG = "libclang==18.1.1"
scalpel = None

RIPPER = r'''
require "ripper"
ARGF.each_line do |path|
  path = path.chomp
  tree = Ripper.sexp(File.read(path))
  next puts("#{path}\tERROR") unless tree
  walk = lambda do |n|
    next unless n.is_a?(Array)
    case n[0]
    when :def then puts "#{path}\t#{n[1][2][0]}\t#{n[1][1]}" if n[1].is_a?(Array) && n[1][2]
    when :defs then puts "#{path}\t#{n[3][2][0]}\t#{n[3][1]}" if n[3].is_a?(Array) && n[3][2]
    when :class, :module
      c = n[1]; c = c[-1] while c.is_a?(Array) && !c[0].is_a?(String) && c[0] != :@const
      puts "#{path}\t#{c[2][0]}\t#{c[1]}" if c.is_a?(Array) && c[0] == :@const
    end
    n.each { |k| walk.(k) }
  end
  walk.(tree)
end
'''

# Ruby's constants (`X = ..`, `A::X = ..`) and `attr_*` accessors (each
# symbol or string named), by Ripper: what Scalpel lists as `constant` and
# `property`. Constants assigned inside a method are a syntax error.
RIPPER_MEMBERS = r'''
require "ripper"
ATTR = %w[attr_reader attr_writer attr_accessor attr]
ARGF.each_line do |path|
  path = path.chomp
  tree = Ripper.sexp(File.read(path))
  next puts("#{path}\tERROR") unless tree
  name_of = lambda do |a|
    case a[0]
    when :symbol_literal then a[1].is_a?(Array) && a[1][0] == :symbol ? a[1][1] : nil
    when :dyna_symbol, :string_literal
      parts = a[1].is_a?(Array) && a[1][0] == :string_content ? a[1][1..] : a[1]
      parts.is_a?(Array) && parts.length == 1 && parts[0].is_a?(Array) && parts[0][0] == :@tstring_content ? parts[0] : nil
    end
  end
  attrs = lambda do |args|
    args = args[1] if args.is_a?(Array) && args[0] == :arg_paren
    args = args[1] if args.is_a?(Array) && args[0] == :args_add_block
    (args.is_a?(Array) ? args : []).each do |a|
      t = a.is_a?(Array) ? name_of.(a) : nil
      puts "#{path}\tproperty\t#{t[2][0]}\t#{t[1]}" if t && t[2]
    end
  end
  walk = lambda do |n|
    next unless n.is_a?(Array)
    case n[0]
    when :assign
      f = n[1]
      c = f[0] == :var_field ? f[1] : (f[0] == :const_path_field ? f[2] : nil)
      puts "#{path}\tconstant\t#{c[2][0]}\t#{c[1]}" if c.is_a?(Array) && c[0] == :@const
    when :command
      attrs.(n[2]) if n[1].is_a?(Array) && n[1][0] == :@ident && ATTR.include?(n[1][1])
    when :method_add_arg
      f = n[1]
      attrs.(n[2]) if f.is_a?(Array) && f[0] == :fcall && f[1][0] == :@ident && ATTR.include?(f[1][1])
    end
    n.each { |k| walk.(k) }
  end
  walk.(tree)
end
'''

PHP = r'''
foreach (explode("\n", trim(stream_get_contents(STDIN))) as $path) {
  $t = token_get_all(file_get_contents($path));
  $n = count($t);
  for ($i = 0; $i < $n; $i++) {
    if (!is_array($t[$i])) continue;
    $k = $t[$i][0];
    if (!in_array($k, [T_FUNCTION, T_CLASS, T_INTERFACE, T_TRAIT, T_ENUM, T_NAMESPACE])) continue;
    // `Foo::class`, `new class`, `enum` as a name: no declaration.
    $p = $i - 1; while ($p >= 0 && is_array($t[$p]) && $t[$p][0] == T_WHITESPACE) $p--;
    if ($p >= 0 && ((is_array($t[$p]) && in_array($t[$p][0], [T_DOUBLE_COLON, T_NEW])))) continue;
    $j = $i + 1;
    // `use function f;` imports; `function &f()` returns a reference.
    if ($p >= 0 && is_array($t[$p]) && $t[$p][0] == T_USE) continue;
    while ($j < $n && ($t[$j] === '&' || is_array($t[$j]) && ($t[$j][0] == T_WHITESPACE || $t[$j][1] === '&'))) $j++;
    // A method may be named by a keyword (`function match()`).
    if ($j < $n && is_array($t[$j]) && (in_array($t[$j][0], [T_STRING, T_NAME_QUALIFIED]) || preg_match('/^\w+$/', $t[$j][1])))
      echo $path, "\t", $t[$j][2], "\t", $t[$j][1], "\n";
  }
}
'''


# PHP's constants (`const X = 1, Y = 2;` at the top level and in class-like
# bodies) and properties (`public $a, $b;`, and constructor parameters with
# a visibility: promoted), by PHP's tokenizer; `define()` is a call, and an
# anonymous class's members are left out.
PHP_MEMBERS = r'''
foreach (explode("\n", trim(stream_get_contents(STDIN))) as $path) {
  $t = token_get_all(file_get_contents($path));
  $n = count($t);
  $kind = fn($x) => is_array($x) ? $x[0] : $x;
  $prev = function ($i) use ($t, $kind) {
    $p = $i - 1;
    while ($p >= 0 && in_array($kind($t[$p]), [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT], true)) $p--;
    return $p;
  };
  $stack = []; $pending = false; $paren = 0;
  for ($i = 0; $i < $n; $i++) {
    $k = $kind($t[$i]);
    if (in_array($k, [T_CLASS, T_INTERFACE, T_TRAIT, T_ENUM], true)) {
      $p = $prev($i);
      $before = $p >= 0 ? $kind($t[$p]) : null;
      if ($before !== T_DOUBLE_COLON) $pending = $before === T_NEW ? 'anon' : 'class';
      continue;
    }
    if ($k === '{' || $k === T_CURLY_OPEN || $k === T_DOLLAR_OPEN_CURLY_BRACES) {
      $stack[] = [$pending ?: 'other', $paren]; $pending = false; continue;
    }
    if ($k === '}') { array_pop($stack); continue; }
    if ($k === '(') { $paren++; continue; }
    if ($k === ')') { $paren--; continue; }
    $top = end($stack);
    $inClass = $top && $top[0] === 'class';
    $classes = count(array_filter($stack, fn($s) => $s[0] !== 'other'));
    if ($k === T_CONST && (($inClass && $paren === $top[1]) || $classes === 0)) {
      for ($j = $i + 1; $j < $n && $t[$j] !== ';'; $j++) {
        // A keyword may name a constant (`const ARRAY = 'array';`).
        if (!is_array($t[$j]) || !preg_match('/^[A-Za-z_]\w*$/', $t[$j][1])) continue;
        $q = $j + 1;
        while ($q < $n && $kind($t[$q]) === T_WHITESPACE) $q++;
        if ($q < $n && $t[$q] === '=') echo $path, "\tconstant\t", $t[$j][2], "\t", $t[$j][1], "\n";
      }
      continue;
    }
    if ($k !== T_VARIABLE || !$inClass) continue;
    $name = substr($t[$i][1], 1);
    if ($paren === $top[1]) { echo $path, "\tproperty\t", $t[$i][2], "\t", $name, "\n"; continue; }
    if ($paren !== $top[1] + 1) continue;
    // A parameter with a visibility (or readonly) is a promoted property.
    for ($p = $i - 1; $p >= 0 && $t[$p] !== ',' && $t[$p] !== '('; $p--) {
      if (in_array($kind($t[$p]), [T_PUBLIC, T_PROTECTED, T_PRIVATE, T_READONLY], true)) {
        echo $path, "\tproperty\t", $t[$i][2], "\t", $name, "\n"; break;
      }
    }
  }
}
'''


def outline(files, alias=None, language=None):
    """path -> (parse_errors, symbols) of `scalpel symbols --json`, 200
    files per process (read as `language` when given)."""
    alias = alias or {}
    flags = ["--language", language] if language else []
    back = {alias.get(f, f): f for f in files}
    out = {}
    names = [alias.get(f, f) for f in files]
    for i in range(0, len(names), 200):
        p = subprocess.run([scalpel, "symbols", "--json", *flags, *names[i:i + 200]],
                           capture_output=True, text=True)
        for line in p.stdout.splitlines():
            d = json.loads(line)
            out[back.get(d["path"], d["path"])] = (d.get("parse_errors", 0), d["symbols"])
    return out


def oracle_lines(cmd, files, **kw):
    p = subprocess.run(cmd, input="\n".join(files) + "\n", capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {p.stderr[-2000:]}")
    return [l.split("\t") for l in p.stdout.splitlines()]


def pct(a, b):
    return f"{100 * a / max(1, b):.2f} %"


# go, java: (file, name path).

def by_name_path(label, files, oracle_cmd, kinds, **kw):
    oracle, rejected = set(), set()
    for path, name in oracle_lines(oracle_cmd, files, **kw):
        if name == "!error":
            rejected.add(path)
        else:
            oracle.add((path, name))
    ours, with_errors = set(), set()
    for path, (errors, symbols) in outline(files).items():
        if errors:
            with_errors.add(path)
            continue
        ours |= {(path, s["name_path"]) for s in symbols if s["kind"] in kinds}
    skip = rejected | with_errors
    oracle = {x for x in oracle if x[0] not in skip}
    ours = {x for x in ours if x[0] not in skip}
    hit = len(oracle & ours)
    print(f"{label}: {len({p for p, _ in oracle})} files ({len(rejected)} rejected by its own "
          f"parser, {len(with_errors - rejected)} read with errors by tree-sitter, left out)")
    print(f"{label}: {len(oracle)} symbols by its own parser, {len(ours)} by scalpel, {hit} in "
          f"both: recall {pct(hit, len(oracle))}, precision {pct(hit, len(ours))}")
    for title, diff in (("missed", oracle - ours), ("extra", ours - oracle)):
        for x in sorted(diff)[:15]:
            print(f"  {title}: {x[0]} {x[1]}")


def go():
    d = os.path.join(tmp, "deb-golang-1.19-src/root/usr/share/go-1.19/src")
    files = sorted(glob.glob(f"{d}/**/*.go", recursive=True))
    with tempfile.TemporaryDirectory() as w:
        by_name_path("go (golang-1.19-src, go/parser)", files,
                     ["go", "run", "benches/support/go_names.go"],
                     {"function", "method", "type", "struct", "interface", "field",
                      "constant", "variable"},
                     cwd=root, env={**os.environ, "GOCACHE": f"{w}/gocache"})


def java():
    files = sorted(glob.glob(os.path.join(tmp, "java-corpus/java.base/**/*.java"), recursive=True))
    by_name_path("java (openjdk-17-source java.base, javac's parser)", files,
                 ["java", "tests/support/JavaParse.java", "names"],
                 {"class", "interface", "enum", "method", "constructor", "field", "constant",
                  "enum_member", "function"}, cwd=root)


# c, cpp: (file, line, name) per kind, against libclang.

def libclang_python():
    """The Python of target/tmp/libclang-venv, with the pinned wheel."""
    venv = os.path.join(tmp, "libclang-venv")
    py = os.path.join(venv, "bin/python")
    stamp = os.path.join(venv, ".provisioned")
    if not (os.path.exists(stamp) and open(stamp).read() == LIBCLANG):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        LIBCLANG], check=True)
        open(stamp, "w").write(LIBCLANG)
    return py


def same_name(name):
    """The spelling both sides compare: `operator ()` as `operator()`, any
    conversion (`operator bool`, libclang's `operator type-parameter-0-0 *`)
    as one, a specialization (`as_if<T, void>`) by its template's name."""
    if name.startswith("operator") and not (name[8:9].isalnum() or name[8:9] == "_"):
        rest = name[8:].strip()
        if rest[:1].isalpha() or rest[:1] == "_":
            if rest.split()[0].rstrip("[]") not in ("new", "delete", "co_await"):
                return "operator (conversion)"
        return "operator" + rest.replace(" ", "")
    return name.split("<")[0]


def by_kind(label, lang, files, includes):
    rows = oracle_lines([libclang_python(), "benches/support/clang_names.py", lang, *includes],
                        files, cwd=root)
    oracle, rejected, skipped = collections.defaultdict(set), set(), collections.defaultdict(list)
    for r in rows:
        if r[1] == "!error":
            rejected.add(r[0])
        elif r[1] == "!skipped":
            skipped[r[0]].append((int(r[2]), int(r[3])))
        else:
            oracle[r[1]].add((r[0], int(r[2]), same_name(r[3])))
    # A header that includes itself again (through another header) has its
    # whole body skipped the second time: a range holding declarations
    # libclang saw was not skipped where it counts.
    seen = collections.defaultdict(set)
    for k in oracle:
        for path, line, _ in oracle[k]:
            seen[path].add(line)
    for path in skipped:
        skipped[path] = [(a, b) for a, b in skipped[path]
                         if not any(a <= l <= b for l in seen[path])]
    ours, with_errors, in_skipped = collections.defaultdict(set), set(), 0
    # A `.h` is C to Scalpel unless told (`--language cpp`).
    for path, (errors, symbols) in outline(files, language=lang).items():
        if errors:
            with_errors.add(path)
            continue
        for s in symbols:
            line = s["name_line"]
            # What the preprocessor skipped (`#if 0`, another platform's
            # branch) libclang never sees.
            if any(a <= line <= b for a, b in skipped[path]):
                in_skipped += 1
                continue
            # `namespace a::b` is one symbol here, two namespaces there.
            for name in s["name"].split("::") if s["kind"] == "namespace" else [s["name"]]:
                ours[s["kind"]].add((path, line, same_name(name)))
    kind_table(label, files, oracle, ours, rejected, with_errors,
               f"; {in_skipped} of Scalpel's symbols in branches the preprocessor skipped: "
               "left out")


def kind_table(label, files, oracle, ours, rejected, with_errors, more):
    """Recall per oracle kind and precision per Scalpel kind, over the
    files neither side left out; then a few misses and extras."""
    skip = rejected | with_errors
    for k in list(oracle):
        oracle[k] = {x for x in oracle[k] if x[0] not in skip}
    for k in list(ours):
        ours[k] = {x for x in ours[k] if x[0] not in skip}
    every_oracle = set().union(*oracle.values())
    every_ours = set().union(*ours.values())
    left = len({f for f in files if f not in skip})
    print(f"{label}: {len(files)} files, {left} compared ({len(rejected)} the oracle rejects "
          f"or reads with errors, {len(with_errors - rejected)} tree-sitter reads with errors: "
          f"left out){more}")
    print(f"| kind (oracle) | symbols | found by Scalpel | recall |")
    print(f"|---|---|---|---|")
    for k in sorted((k for k in oracle if oracle[k]), key=lambda k: -len(oracle[k])):
        hit = len(oracle[k] & every_ours)
        print(f"| {k} | {len(oracle[k]):,} | {hit:,} | {pct(hit, len(oracle[k]))} |")
    hit = len(every_oracle & every_ours)
    print(f"| all | {len(every_oracle):,} | {hit:,} | {pct(hit, len(every_oracle))} |")
    print(f"| kind (Scalpel) | symbols | the oracle's too | precision |")
    print(f"|---|---|---|---|")
    for k in sorted((k for k in ours if ours[k]), key=lambda k: -len(ours[k])):
        hit = len(ours[k] & every_oracle)
        print(f"| {k} | {len(ours[k]):,} | {hit:,} | {pct(hit, len(ours[k]))} |")
    hit = len(every_ours & every_oracle)
    print(f"| all | {len(every_ours):,} | {hit:,} | {pct(hit, len(every_ours))} |")
    for k in sorted(oracle):
        for x in sorted(oracle[k] - every_ours)[:8]:
            print(f"  missed {k}: {x[0]}:{x[1]} {x[2]}")
    for k in sorted(ours):
        for x in sorted(ours[k] - every_oracle)[:8]:
            print(f"  extra {k}: {x[0]}:{x[1]} {x[2]}")


def c():
    d = os.path.join(tmp, "deb-golang-1.19-src/root/usr/share/go-1.19/src")
    files = sorted(glob.glob(f"{d}/**/*.[ch]", recursive=True))
    by_kind("c (golang-1.19-src, libclang 18.1.1)", "c", files, [])


def deb(pin):
    """A pinned Debian package (`name=version`) unpacked under
    target/tmp/deb-NAME/root, as tests/provision lays it (`apt-get
    download`, `dpkg-deb -x`; nothing installed)."""
    name = pin.split("=")[0]
    d = os.path.join(tmp, f"deb-{name}")
    stamp = os.path.join(d, ".provisioned")
    if not (os.path.exists(stamp) and open(stamp).read() == pin):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        subprocess.run(["apt-get", "download", "-qq", pin], cwd=d, check=True)
        debs = glob.glob(f"{d}/*.deb")
        subprocess.run(["dpkg-deb", "-x", debs[0], f"{d}/root"], check=True)
        os.remove(debs[0])
        open(stamp, "w").write(pin)
    return os.path.join(d, "root")


def cpp():
    d = os.path.join(tmp, "debsrc-yaml-cpp/src")
    files = sorted(glob.glob(f"{d}/src/**/*.cpp", recursive=True)
                   + glob.glob(f"{d}/src/**/*.h", recursive=True)
                   + glob.glob(f"{d}/include/**/*.h", recursive=True))
    by_kind("cpp (yaml-cpp 0.7.0, libclang 18.1.1)", "cpp", files, [f"{d}/include"])
    # Header-only and template-heavy: cereal's headers (its bundled
    # third-party `external/` folder left out).
    inc = os.path.join(deb("libcereal-dev=1.3.2+dfsg-4"), "usr/include")
    files = sorted(f for f in glob.glob(f"{inc}/cereal/**/*.hpp", recursive=True)
                   if "/external/" not in f)
    by_kind("cpp (cereal 1.3.2 headers, libclang 18.1.1)", "cpp", files, [inc])


# bash, ruby, php: (file, line, name).

def shfmt_truth(files):
    out = set()
    for f in files:
        p = subprocess.run(["shfmt", "--tojson"], stdin=open(f, "rb"), capture_output=True)
        if p.returncode != 0:
            continue

        def walk(n):
            if isinstance(n, dict):
                if n.get("Type") == "FuncDecl":
                    out.add((f, n["Name"]["Pos"]["Line"], n["Name"]["Value"]))
                for v in n.values():
                    walk(v)
            elif isinstance(n, list):
                for v in n:
                    walk(v)
        walk(json.loads(p.stdout))
    return out


def shfmt_variables(files):
    """Top-level variables by `shfmt --tojson`: a bare assignment (`X=1`,
    `A=1 B=2`; not `X=1 cmd`), every name `declare`/`typeset`/`local`
    declare, and the names `export`/`readonly` give a value (without one
    they change an existing variable's attributes); not an array element
    (`A[k]=1`). Read as bash: in POSIX mode `export X=1` is a plain
    command to shfmt."""
    out = set()
    for f in files:
        p = subprocess.run(["shfmt", "-ln", "bash", "--tojson"], stdin=open(f, "rb"),
                           capture_output=True)
        if p.returncode != 0:
            continue
        for st in json.loads(p.stdout).get("Stmts", []):
            c = st.get("Cmd") or {}
            if c.get("Type") == "CallExpr" and not c.get("Args"):
                names = [a for a in c.get("Assigns", [])]
            elif c.get("Type") == "DeclClause":
                variant = c["Variant"]["Value"]
                names = [a for a in c.get("Args", [])
                         if variant in ("declare", "typeset", "local") or not a.get("Naked")]
            else:
                continue
            for a in names:
                if a.get("Name") and not a.get("Index"):
                    out.add((f, a["Name"]["Pos"]["Line"], a["Name"]["Value"]))
    return out


def lines_truth(cmd, files):
    return {(r[0], int(r[1]), r[2]) for r in oracle_lines(cmd, files) if len(r) == 3}


def scalpel_symbols(files, kinds, alias=None):
    """(file, name line, name) of Scalpel's outline, and the files it reads
    with parse errors."""
    out, broken = set(), set()
    for f, (errors, symbols) in outline(files, alias).items():
        if errors:
            broken.add(f)
        for s in symbols:
            # `define_method` is a call to the oracles; `class A::B` is `B`.
            if s["kind"] in kinds and not s["signature"].startswith("define_method"):
                out.add((f, s["name_line"], s["name"].split("::")[-1]))
    return out, broken


def report(lang, truth, found, broken):
    clean_t = {t for t in truth if t[0] not in broken}
    clean_f = {t for t in found if t[0] not in broken}
    hit = len(clean_t & clean_f)
    print(f"{lang}: {len({t[0] for t in truth})} files with definitions ({len(broken)} read "
          f"with tree-sitter errors, left out); {len(clean_t)} definitions by the oracle, "
          f"{len(clean_f)} by Scalpel, recall {pct(hit, len(clean_t))}, "
          f"precision {pct(hit, len(clean_f))}")
    for miss in sorted(clean_t - clean_f)[:5]:
        print("   missed:", miss)
    for extra in sorted(clean_f - clean_t)[:5]:
        print("   extra: ", extra)


def bash():
    # bash-completion's scripts have no extension: copied as `.sh`.
    comp = glob.glob(os.path.join(
        tmp, "deb-bash-completion*/root/usr/share/bash-completion/completions/*"))
    comp = sorted(f for f in comp if os.path.isfile(f) and not os.path.islink(f))
    with tempfile.TemporaryDirectory() as work:
        alias = {}
        for i, f in enumerate(comp):
            a = os.path.join(work, f"c{i}.sh")
            shutil.copy(f, a)
            alias[f] = a
        functions = scalpel_symbols(comp, {"function"}, alias)
        variables = scalpel_symbols(comp, {"variable", "constant"}, alias)
    report("bash (bash-completion 1:2.11-6, shfmt --tojson)", shfmt_truth(comp), *functions)
    report("bash top-level variables (bash-completion 1:2.11-6, shfmt --tojson)",
           shfmt_variables(comp), *variables)


def ruby():
    libdir = subprocess.run(["ruby", "-e", "print RbConfig::CONFIG['rubylibdir']"],
                            capture_output=True, text=True).stdout
    rb = sorted(glob.glob(os.path.join(libdir, "**/*.rb"), recursive=True))
    # Ripper sees `define_method` and `attr_*` as calls: Scalpel's are left out.
    found, broken = scalpel_symbols(rb, {"module", "class", "method", "function"})
    report("ruby (rubylibdir, Ripper)", lines_truth(["ruby", "-e", RIPPER], rb), found, broken)


def ruby_members():
    libdir = subprocess.run(["ruby", "-e", "print RbConfig::CONFIG['rubylibdir']"],
                            capture_output=True, text=True).stdout
    rb = sorted(glob.glob(os.path.join(libdir, "**/*.rb"), recursive=True))
    oracle, rejected = collections.defaultdict(set), set()
    for r in oracle_lines(["ruby", "-e", RIPPER_MEMBERS], rb):
        if len(r) == 2:
            rejected.add(r[0])
        elif len(r) == 4:
            oracle[r[1]].add((r[0], int(r[2]), r[3]))
    ours, with_errors = collections.defaultdict(set), set()
    for path, (errors, symbols) in outline(rb).items():
        if errors:
            with_errors.add(path)
            continue
        for sym in symbols:
            if sym["kind"] in ("constant", "property"):
                ours[sym["kind"]].add((path, sym["name_line"], sym["name"].split("::")[-1]))
    kind_table("ruby constants and attr_* (rubylibdir, Ripper)", rb, oracle, ours, rejected,
               with_errors, "")


def php():
    php = sorted(glob.glob(os.path.join(
        tmp, "deb-php-doctrine-orm*/root/usr/share/php/Doctrine/ORM/**/*.php"), recursive=True))
    found, broken = scalpel_symbols(php, {"namespace", "class", "interface", "trait", "enum",
                                          "function", "method"})
    report("php (php-doctrine-orm 2.14.1, token_get_all)",
           lines_truth(["php", "-r", PHP], php), found, broken)


def php_members():
    php = sorted(glob.glob(os.path.join(
        tmp, "deb-php-doctrine-orm*/root/usr/share/php/Doctrine/ORM/**/*.php"), recursive=True))
    oracle = collections.defaultdict(set)
    for r in oracle_lines(["php", "-r", PHP_MEMBERS], php):
        if len(r) == 4:
            oracle[r[1]].add((r[0], int(r[2]), r[3]))
    ours, with_errors = collections.defaultdict(set), set()
    for path, (errors, symbols) in outline(php).items():
        if errors:
            with_errors.add(path)
            continue
        for sym in symbols:
            if sym["kind"] in ("constant", "property"):
                ours[sym["kind"]].add((path, sym["name_line"], sym["name"]))
    kind_table("php constants and properties (php-doctrine-orm 2.14.1, token_get_all)", php,
               oracle, ours, set(), with_errors, "")


# c_sharp: (file, line of the name, name) per kind, against mono's parser.

def cs_names():
    """benches/support/CsNames.cs compiled by mcs under target/tmp/cs-names
    (again when the source changes)."""
    src = os.path.join(root, "benches/support/CsNames.cs")
    d = os.path.join(tmp, "cs-names")
    exe = os.path.join(d, "CsNames.exe")
    stamp = os.path.join(d, ".provisioned")
    text = open(src).read()
    if not (os.path.exists(stamp) and open(stamp).read() == text):
        dll = subprocess.run(["find", "/usr/lib/mono", "-name", "Mono.CSharp.dll"],
                             capture_output=True, text=True).stdout.split()
        if not dll:
            sys.exit("Mono.CSharp.dll is missing: apt-get install libmono-csharp4.0c-cil")
        os.makedirs(d, exist_ok=True)
        subprocess.run(["mcs", f"-r:{dll[0]}", src, f"-out:{exe}"], check=True)
        open(stamp, "w").write(text)
    return exe


def pypi_sdist(spec):
    """A PyPI sdist unpacked under target/tmp/pypi-NAME-VERSION, as
    tests/provision lays it."""
    d = os.path.join(tmp, "pypi-" + spec.replace("==", "-"))
    stamp = os.path.join(d, ".provisioned")
    if not (os.path.exists(stamp) and open(stamp).read() == spec):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(f"{d}/download")
        py = os.path.join(tmp, "mcp-venv/bin/python")
        subprocess.run([py if os.path.exists(py) else sys.executable, "-m", "pip", "download",
                        "--quiet", "--no-deps", "--no-binary", ":all:", "-d", f"{d}/download",
                        spec], check=True)
        for f in glob.glob(f"{d}/download/*"):
            subprocess.run(["tar", "-xzf", f, "-C", d], check=True)
        shutil.rmtree(f"{d}/download")
        open(stamp, "w").write(spec)
    return d


def c_sharp():
    d = os.path.join(pypi_sdist("pythonnet==3.0.5"), "pythonnet-3.0.5/src/runtime")
    files = sorted(glob.glob(f"{d}/**/*.cs", recursive=True))
    oracle, rejected = collections.defaultdict(set), set()
    for r in oracle_lines(["mono", cs_names()], files):
        if r[1] == "!error":
            rejected.add(r[0])
            continue
        kind, line, name = r[1], int(r[2]), r[3]
        # Spelled as Scalpel spells them: `this[...]`, `~Order`, `operator +`.
        name = {"Indexer": "this", "Destructor": "~"}.get(kind, name)
        if kind == "Operator":
            name = "operator"
        oracle[kind].add((r[0], line, name))
    ours, with_errors = collections.defaultdict(set), set()
    for path, (errors, symbols) in outline(files).items():
        if errors:
            with_errors.add(path)
            continue
        for s in symbols:
            if s["kind"] == "namespace":
                continue
            name = s["name"]
            if s["kind"] == "operator":
                name = "operator"
            elif name.startswith("~"):
                name = "~"
            ours[s["kind"]].add((path, s["name_line"], name))
    kind_table("c_sharp (pythonnet 3.0.5 src/runtime, Mono.CSharp's parser)", files, oracle, ours,
               rejected, with_errors, "")


LANGS = {"go": go, "java": java, "c": c, "cpp": cpp, "c_sharp": c_sharp, "bash": bash,
         "ruby": ruby, "ruby_members": ruby_members, "php": php, "php_members": php_members}


def main():
    global scalpel
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scalpel", default=os.path.join(root, "target/debug/scalpel"))
    ap.add_argument("langs", nargs="*", choices=[[]] + list(LANGS), default=[])
    a = ap.parse_args()
    scalpel = os.path.abspath(a.scalpel)
    for lang in a.langs or LANGS:
        LANGS[lang]()


main()
