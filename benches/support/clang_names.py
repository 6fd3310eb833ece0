"""The C and C++ oracle of benches/lang_symbols.py: libclang's reading of
each file (the PyPI `libclang` wheel, which bundles its own libclang.so;
the builtin headers, `stddef.h` and the like, come from the installed
clang's `-print-resource-dir`).

Run with the Python of a venv holding that wheel:
    clang_names.py c|cpp INCLUDE_DIR... < paths > lines

For each path on stdin prints, for what Scalpel lists, one line
`path<TAB>kind<TAB>line of the name<TAB>name`, with kind one of: function
(a definition), prototype, struct, union, enum, class, typedef (`typedef`
and `using` aliases), variable (at file or namespace scope), field,
enum_member, macro (object- and function-like); C++ also namespace,
method (declared in its class or defined outside it), constructor,
destructor, operator (and conversions). Templates are their class or
function. Only the file's own declarations (not its headers'), only
definitions of types (not `struct s;`), no anonymous ones.
`path<TAB>!error<TAB>message` for a file libclang reads with errors, and
`path<TAB>!skipped<TAB>first<TAB>last` for each line range the
preprocessor skipped (`#if 0`, `#ifdef _WIN32`): Scalpel reads those
branches too, libclang does not see them.
"""
import ctypes
import re
import subprocess
import sys

import clang.cindex as ci

K = ci.CursorKind
TYPES = {K.STRUCT_DECL: "struct", K.UNION_DECL: "union", K.ENUM_DECL: "enum",
         K.CLASS_DECL: "class", K.CLASS_TEMPLATE: "class",
         K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION: "class"}
ALIASES = (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL, K.TYPE_ALIAS_TEMPLATE_DECL)
SCOPES = (K.TRANSLATION_UNIT, K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL)
# What holds declarations worth walking into.
CONTAINERS = set(TYPES) | {K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL, K.FRIEND_DECL}


class RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


def skipped_ranges(tu, path):
    lib = ci.conf.lib
    lib.clang_getAllSkippedRanges.argtypes = [ctypes.c_void_p]
    lib.clang_getAllSkippedRanges.restype = ctypes.POINTER(RangeList)
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(RangeList)]
    rl = lib.clang_getAllSkippedRanges(tu.obj)
    out = []
    for i in range(rl.contents.count):
        r = rl.contents.ranges[i]
        if r.start.file and r.start.file.name == path:
            out.append((r.start.line, r.end.line))
    lib.clang_disposeSourceRangeList(rl)
    return out


def kind_of(c, cpp):
    k = c.kind
    name = c.spelling
    if k in TYPES:
        # `typedef struct { .. } t;`: libclang spells the struct `t` (the
        # typedef's name, for linkage); its own name is none.
        tokens = [t.spelling for t in c.get_tokens()][:2]
        unnamed = len(tokens) < 2 or tokens[1] in ("{", ":")
        named = name and not c.is_anonymous() and not unnamed
        return TYPES[k] if c.is_definition() and named else None
    if k in ALIASES:
        return "typedef"
    if k == K.NAMESPACE:
        return "namespace" if name else None
    if k == K.MACRO_DEFINITION:
        return "macro"
    if k == K.FIELD_DECL:
        return "field" if name else None
    if k == K.ENUM_CONSTANT_DECL:
        return "enum_member"
    if k == K.VAR_DECL:
        parent = c.semantic_parent
        if parent is not None and parent.kind in TYPES:
            return "field"  # a static data member
        return "variable" if c.lexical_parent.kind in SCOPES else None
    if k in (K.CONSTRUCTOR, K.DESTRUCTOR):
        return k.name.lower()
    if k == K.CONVERSION_FUNCTION:
        return "operator"
    if k in (K.CXX_METHOD, K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
        if name.startswith("operator") and not name[8:9].isalnum() and name[8:9] != "_":
            return "operator"
        parent = c.semantic_parent
        if k == K.CXX_METHOD or (parent is not None and parent.kind in TYPES):
            if name == getattr(parent, "spelling", None):
                return "constructor"
            if name.startswith("~"):
                return "destructor"
            return "method"
        return "function" if c.is_definition() else "prototype"
    return None


def walk(c, path, cpp, out, lines):
    for ch in c.get_children():
        loc = ch.location
        if not loc.file or loc.file.name != path:
            continue
        kind = kind_of(ch, cpp)
        if kind:
            name = ch.spelling
            # A name a macro writes (`CEREAL_SAVE_FUNCTION_NAME(...)`) is
            # compared as written in the file, as Scalpel reads it.
            text = lines[loc.line - 1] if loc.line <= len(lines) else ""
            written = re.match(r"[A-Za-z_]\w*", text[loc.column - 1:])
            if (written and written.group() != name and name.isidentifier()
                    and written.group() != "operator"):
                name = written.group()
            # A template's constructor is spelled `Matrix<T, R, C>`.
            if kind != "operator" and "<" in name:
                name = name[:name.index("<")]
            out.append((kind, loc.line, name))
        if ch.kind in CONTAINERS or ch.kind in ALIASES or ch.kind == K.VAR_DECL:
            walk(ch, path, cpp, out, lines)


def main():
    lang, includes = sys.argv[1], sys.argv[2:]
    cpp = lang == "cpp"
    resource = subprocess.run(["clang", "-print-resource-dir"], capture_output=True,
                              text=True).stdout.strip()
    args = ["-x", "c++", "-std=gnu++17"] if cpp else ["-x", "c", "-std=gnu11"]
    args += ["-isystem", resource + "/include", "-w"]
    index = ci.Index.create()
    # Bodies are parsed (with them skipped no function is a definition);
    # the walk does not go into them.
    opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    for path in sys.stdin.read().split("\n"):
        if not path:
            continue
        folder = path.rsplit("/", 1)[0]
        inc = [a for d in [folder] + includes for a in ("-I", d)]
        tu = index.parse(path, args=args + inc, options=opts)
        errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            print(f"{path}\t!error\t{errors[0].spelling}")
            continue
        for first, last in skipped_ranges(tu, path):
            print(f"{path}\t!skipped\t{first}\t{last}")
        out = []
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
        walk(tu.cursor, path, cpp, out, lines)
        for kind, line, name in sorted(set(out)):
            print(f"{path}\t{kind}\t{line}\t{name}")


main()
