"""Judge for tests/refs.rs: where NAME occurs as a Python token (code), by
CPython's own tokenizer. Reads `root name` lines... one query per argv:
    py_names.py ROOT NAME
Prints `code PATH LINE COL` (1-based, COL in characters) for every NAME
token equal to NAME in every .py file under ROOT, and `fstring PATH LINE`
for every line of an f-string (whose inner names 3.11 does not tokenize).
"""
import io, os, sys, tokenize

root, name = sys.argv[1], sys.argv[2]
for d, dirs, files in os.walk(root):
    dirs[:] = sorted(x for x in dirs if not x.startswith('.') and x != '__pycache__')
    for f in sorted(files):
        if not f.endswith('.py'):
            continue
        p = os.path.join(d, f)
        rel = os.path.relpath(p, root).replace(os.sep, '/')
        with open(p, 'rb') as fh:
            data = fh.read()
        try:
            toks = list(tokenize.tokenize(io.BytesIO(data).readline))
        except (tokenize.TokenError, SyntaxError):
            continue
        for t in toks:
            if t.type == tokenize.NAME and t.string == name:
                print('code', rel, t.start[0], t.start[1] + 1)
            elif t.type == tokenize.STRING and t.string.lstrip('rRbBuU')[:1] in 'fF' and name in t.string:
                for line in range(t.start[0], t.end[0] + 1):
                    print('fstring', rel, line)
