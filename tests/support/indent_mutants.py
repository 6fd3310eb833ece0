"""Indentation mutants of real Python files, judged by CPython and by
`scalpel check`.

Usage: indent_mutants.py SCALPEL OUT_DIR SEED PER_FILE FILE...

For every FILE that CPython compiles and `scalpel check` passes, writes
PER_FILE mutants of each kind to OUT_DIR:
  shift   one code line moved 1-3 columns left or right (or given a tab),
  dedent  the body of a block header dedented to the header's column,
  under   the line after a simple statement indented one level deeper.
Each mutant is labelled by `compile()` (the judge), then the whole folder is
checked with one `scalpel check --json --all-errors` run. Prints one JSON
object: counts, false accepts (CPython rejects, scalpel passes) and false
rejects (CPython accepts, scalpel fails), with examples.
"""

import json
import os
import random
import subprocess
import sys
import warnings

warnings.simplefilter("ignore")


def compiles(src):
    try:
        compile(src, "<mutant>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False


def indent_of(line):
    return line[: len(line) - len(line.lstrip(" \t"))]


def code_lines(lines):
    """Indices of lines that start a statement (roughly: non-blank, not a
    comment, and the previous line does not end inside brackets)."""
    out = []
    depth = 0
    for i, line in enumerate(lines):
        s = line.strip()
        if depth == 0 and s and not s.startswith("#"):
            out.append(i)
        for c in s.split("#")[0]:
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
    return out


def shift(lines, rng):
    cands = code_lines(lines)
    if not cands:
        return None
    i = rng.choice(cands)
    ws = indent_of(lines[i])
    op = rng.choice(["add", "remove", "tab"])
    if op == "add":
        new = " " * rng.randint(1, 3) + lines[i]
    elif op == "remove" and len(ws) > 0:
        new = lines[i][min(len(ws), rng.randint(1, 3)) :]
    else:
        new = "\t" + lines[i].lstrip(" \t") if ws else None
    if new is None or new == lines[i]:
        return None
    return lines[:i] + [new] + lines[i + 1 :]


def dedent_body(lines, rng):
    heads = [
        i
        for i in code_lines(lines)
        if lines[i].split("#")[0].rstrip().endswith(":") and i + 1 < len(lines)
    ]
    if not heads:
        return None
    h = rng.choice(heads)
    hw = indent_of(lines[h])
    out = list(lines)
    j = h + 1
    body_ws = None
    while j < len(lines):
        s = lines[j].strip()
        if s:
            ws = indent_of(lines[j])
            if body_ws is None:
                if len(ws) <= len(hw):
                    return None
                body_ws = ws
            if not ws.startswith(body_ws):
                break
            out[j] = hw + lines[j][len(body_ws) :]
        j += 1
    return out if body_ws is not None else None


def under_simple(lines, rng):
    cands = [
        i
        for i in code_lines(lines)
        if not lines[i].split("#")[0].rstrip().endswith((":", "\\", ",", "(", "[", "{"))
        and i + 1 < len(lines)
        and lines[i + 1].strip()
        and not lines[i + 1].strip().startswith("#")
        and indent_of(lines[i + 1]) == indent_of(lines[i])
    ]
    if not cands:
        return None
    i = rng.choice(cands)
    out = list(lines)
    out[i + 1] = "    " + lines[i + 1]
    return out


KINDS = {"shift": shift, "dedent": dedent_body, "under": under_simple}


def main():
    scalpel, out_dir, seed, per_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    files = sys.argv[5:]
    rng = random.Random(seed)
    os.makedirs(out_dir, exist_ok=True)
    labels = {}
    n = 0
    for path in files:
        try:
            src = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        if "\r" in src or not compiles(src):
            continue
        lines = src.split("\n")
        for kind, mutate in KINDS.items():
            made = 0
            for _ in range(per_file * 4):
                if made == per_file:
                    break
                m = mutate(lines, rng)
                if m is None:
                    continue
                text = "\n".join(m)
                name = f"m{n:05d}_{kind}.py"
                n += 1
                made += 1
                with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
                    f.write(text)
                labels[name] = {"kind": kind, "valid": compiles(text), "source": path}
        # The original itself, as a control: must pass.
        name = f"m{n:05d}_orig.py"
        n += 1
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            f.write(src)
        labels[name] = {"kind": "orig", "valid": True, "source": path}
    run = subprocess.run(
        [scalpel, "check", "--json", "--all-errors", out_dir],
        capture_output=True,
        text=True,
    )
    report = json.loads(run.stdout)
    failed = {os.path.basename(f["path"]): f for f in report["files"] if f.get("errors")}
    result = {"mutants": 0, "invalid": 0, "valid": 0, "false_accept": 0, "false_reject": 0,
              "parser_only_false_accept": 0, "by_kind": {}, "examples_false_accept": [], "examples_false_reject": []}
    for name, lab in sorted(labels.items()):
        if lab["kind"] == "orig":
            if name in failed:
                # The original must pass: count it as a false reject.
                result["false_reject"] += 1
                result["examples_false_reject"].append(lab["source"])
            continue
        result["mutants"] += 1
        k = result["by_kind"].setdefault(lab["kind"], {"invalid": 0, "valid": 0, "false_accept": 0, "false_reject": 0})
        flagged = name in failed
        if lab["valid"]:
            result["valid"] += 1
            k["valid"] += 1
            if flagged:
                result["false_reject"] += 1
                k["false_reject"] += 1
                if len(result["examples_false_reject"]) < 10:
                    result["examples_false_reject"].append(
                        {"mutant": os.path.join(out_dir, name), "source": lab["source"],
                         "errors": [e["message"] for e in failed[name]["errors"]][:3]})
        else:
            result["invalid"] += 1
            k["invalid"] += 1
            if not flagged or all(e["kind"] == "rule" for e in failed[name]["errors"]):
                # What the parser alone (no indentation rule) would accept.
                result["parser_only_false_accept"] += 1
            if not flagged:
                result["false_accept"] += 1
                k["false_accept"] += 1
                if len(result["examples_false_accept"]) < 10:
                    result["examples_false_accept"].append(
                        {"mutant": os.path.join(out_dir, name), "source": lab["source"]})
    result["false_accept_rate"] = result["false_accept"] / max(1, result["invalid"])
    result["false_reject_rate"] = result["false_reject"] / max(1, result["valid"] + len(files))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
