#!/usr/bin/env python3
"""Symbol recall and precision of Scalpel's outline against each language's
own parser, on the pinned corpora of tests/data/front_ends.toml (provisioned
under target/tmp by `cargo test --test trust`):

- Bash: functions, against `shfmt --tojson` (FuncDecl);
- Ruby: modules, classes, `def` and `def self.` methods, against Ripper;
- PHP: namespaces, classes, interfaces, traits, enums, functions and
  methods, against PHP's own tokenizer (`token_get_all`).

A definition is (file, line of its name, name). Files tree-sitter reads
with errors are counted apart (their symbols are best effort).

    python3 benches/lang_symbols.py [target/debug/scalpel]
"""
import glob, json, os, shutil, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
scalpel = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target/debug/scalpel"))
tmp = os.path.join(root, "target/tmp")

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

def lines_truth(cmd, files, script_stdin):
    p = subprocess.run(cmd, input="\n".join(files) + "\n", capture_output=True, text=True)
    out = set()
    for l in p.stdout.splitlines():
        parts = l.split("\t")
        if len(parts) == 3:
            out.add((parts[0], int(parts[1]), parts[2]))
    return out

def scalpel_symbols(lang, files, kinds, alias):
    """(file, name line, name) of Scalpel's outline, and the files it reads
    with parse errors."""
    out, broken = set(), set()
    for f in files:
        p = subprocess.run([scalpel, "symbols", alias.get(f, f), "--json"], capture_output=True, text=True)
        if p.returncode != 0:
            continue
        d = json.loads(p.stdout)
        if d.get("parse_errors"):
            broken.add(f)
        for s in d["symbols"]:
            # `define_method` is a call to the oracles; `class A::B` is `B`.
            if s["kind"] in kinds and not s["signature"].startswith("define_method"):
                out.add((f, s["name_line"], s["name"].split("::")[-1]))
    return out, broken

def report(lang, truth, found, broken):
    clean_t = {t for t in truth if t[0] not in broken}
    clean_f = {t for t in found if t[0] not in broken}
    hit = len(clean_t & clean_f)
    print(f"{lang}: {len({t[0] for t in truth})} files with definitions ({len(broken)} read with tree-sitter errors, left out); "
          f"{len(clean_t)} definitions by the oracle, {len(clean_f)} by Scalpel, "
          f"recall {100*hit/max(1,len(clean_t)):.2f} %, precision {100*hit/max(1,len(clean_f)):.2f} %")
    for miss in sorted(clean_t - clean_f)[:5]:
        print("   missed:", miss)
    for extra in sorted(clean_f - clean_t)[:5]:
        print("   extra: ", extra)

def main():
    # Bash: bash-completion's scripts have no extension: linked as `.sh`.
    comp = glob.glob(os.path.join(tmp, "deb-bash-completion*/root/usr/share/bash-completion/completions/*"))
    comp = sorted(f for f in comp if os.path.isfile(f) and not os.path.islink(f))
    work = tempfile.mkdtemp()
    alias = {}
    for i, f in enumerate(comp):
        a = os.path.join(work, f"c{i}.sh")
        shutil.copy(f, a)
        alias[f] = a
    truth = shfmt_truth(comp)
    found, broken = scalpel_symbols("bash", comp, {"function"}, alias)
    report("bash (bash-completion 1:2.11-6, shfmt --tojson)", truth, found, broken)

    libdir = subprocess.run(["ruby", "-e", "print RbConfig::CONFIG['rubylibdir']"], capture_output=True, text=True).stdout
    rb = sorted(glob.glob(os.path.join(libdir, "**/*.rb"), recursive=True))
    truth = lines_truth(["ruby", "-e", RIPPER], rb, True)
    found, broken = scalpel_symbols("ruby", rb, {"module", "class", "method", "function"}, {})
    # Ripper sees `define_method` and `attr_*` as calls: leave Scalpel's out.
    report("ruby (rubylibdir, Ripper)", truth, found, broken)

    php = sorted(glob.glob(os.path.join(tmp, "deb-php-doctrine-orm*/root/usr/share/php/Doctrine/ORM/**/*.php"), recursive=True))
    truth = lines_truth(["php", "-r", PHP], php, True)
    found, broken = scalpel_symbols("php", php, {"namespace", "class", "interface", "trait", "enum", "function", "method"}, {})
    report("php (php-doctrine-orm 2.14.1, token_get_all)", truth, found, broken)

main()
