"""Print the function and class definitions Python's own `ast` finds.

Reads file paths (one per line) on stdin; prints one JSON object per file:
{"path": ..., "defs": [[name, first_line, last_line], ...]} where first_line
is the `def`/`class` line (decorators excluded), or {"path", "error"}.
"""
import ast
import json
import sys

for line in sys.stdin:
    path = line.rstrip("\n")
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
    except (SyntaxError, ValueError, UnicodeDecodeError) as e:
        print(json.dumps({"path": path, "error": str(e)}))
        continue
    defs = [
        [n.name, n.lineno, n.end_lineno]
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    print(json.dumps({"path": path, "defs": defs}))
