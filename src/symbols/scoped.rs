//! Errors a language's compiler reports on text its grammar accepts,
//! declared in its TOML (`[[rules.scoped]]`, `[[rules.unique]]`,
//! `[[rules.order]]`): CPython's `'return' outside function`, `'break'
//! outside loop`, `nonlocal declaration not allowed at module level`,
//! `duplicate argument` or `positional argument follows keyword argument`, which
//! tree-sitter-python parses without complaint. They are problems like
//! parse errors (`syntax_errors`), so `check`, validation and the receipt
//! see them the same way.
//!
//! Each rule holds within one top-level node (its scopes and parameter
//! lists are inside it), so comparing two versions over the top-level
//! nodes around a change gives the whole files' difference.

use super::{ErrorNode, walk_preorder, walk_with_ancestors};
use crate::lang::Language;
use tree_sitter::{Node, Tree};

/// The violations of `lang`'s compile rules in the top-level nodes of
/// `tree` (text `body`) that overlap `range`.
pub fn violations(
    lang: &Language,
    tree: &Tree,
    body: &str,
    range: std::ops::Range<usize>,
) -> Vec<ErrorNode> {
    let rules = &lang.config.rules;
    if rules.scoped.is_empty() && rules.unique.is_empty() && rules.order.is_empty() {
        return Vec::new();
    }
    // Kinds resolved to ids at load: most nodes are skipped by one lookup
    // (this walk covers whole files when either version has a parse error).
    let kinds = lang.kinds();
    let has = |list: &[String], kind: &str| list.iter().any(|k| k == kind);
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    let tops: Vec<Node> = root
        .children(&mut cursor)
        .filter(|t| t.start_byte() < range.end.max(range.start + 1) && t.end_byte() > range.start)
        .collect();
    for top in tops {
        walk_with_ancestors(top, root, |node, ancestors| {
            // Named nodes only: the keyword inside `yield` is a `yield` too.
            if !node.is_named() {
                return false;
            }
            if !kinds.ruled.contains(&node) {
                return true;
            }
            let kind = node.kind();
            for rule in rules.scoped.iter().filter(|r| has(&r.kinds, kind)) {
                let scope = ancestors.iter().rev().find(|n| has(&rule.scopes, n.kind()));
                if scope.is_some_and(|s| !has(&rule.allowed, s.kind())) {
                    out.push(violation(node, rule.message.clone()));
                }
            }
            for rule in rules.unique.iter().filter(|r| has(&r.kinds, kind)) {
                let mut seen: Vec<&str> = Vec::new();
                let mut c = node.walk();
                for child in node.named_children(&mut c) {
                    let mut name = None;
                    walk_preorder(child, |n| {
                        if name.is_none() && kinds.identifiers.contains(&n) {
                            name = Some(n);
                        }
                        name.is_none()
                    });
                    let Some(name) = name else { continue };
                    let text = &body[name.byte_range()];
                    if seen.contains(&text) {
                        out.push(violation(name, rule.message.clone()));
                    } else {
                        seen.push(text);
                    }
                }
            }
            for rule in rules.order.iter().filter(|r| has(&r.kinds, kind)) {
                let mut begun = false;
                let mut c = node.walk();
                for child in node.named_children(&mut c) {
                    let k = match child.named_child(0) {
                        Some(first) if has(&rule.through, child.kind()) => first.kind(),
                        _ => child.kind(),
                    };
                    if has(&rule.until, k) {
                        break;
                    }
                    if begun && !has(&rule.free, k) && !child.is_extra() {
                        out.push(violation(child, rule.message.clone()));
                    }
                    begun |= has(&rule.after, k);
                }
            }
            true
        });
    }
    out
}

/// A rule broken at `node`: located, and focused, at its start.
fn violation(node: Node, message: String) -> ErrorNode {
    ErrorNode {
        rule: Some(message.into()),
        ..ErrorNode::of(node, node)
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::Registry;

    /// The rules find what CPython's `compile()` rejects, and nothing in
    /// the same constructs where they are legal.
    #[test]
    fn python_compile_rules() {
        let reg = Registry::builtin();
        let lang = reg.by_name("python").unwrap();
        let found = |src: &str| -> Vec<String> {
            let tree = crate::symbols::parse_tree(lang, src, None).unwrap();
            assert!(!tree.root_node().has_error(), "{src}");
            let root = tree.root_node();
            super::violations(lang, &tree, src, 0..root.end_byte())
                .iter()
                .map(|e| format!("{}: {}", e.line, e.message(src)))
                .collect()
        };
        assert_eq!(found("return 1\n"), ["1: 'return' outside function"]);
        assert_eq!(
            found("def f():\n    class A:\n        return 1\n"),
            ["3: 'return' outside function"]
        );
        assert_eq!(
            found("class A:\n    yield 1\n"),
            ["2: 'yield' outside function"]
        );
        assert_eq!(found("await x\n"), ["1: 'await' outside function"]);
        assert_eq!(
            found("nonlocal x\n"),
            ["1: nonlocal declaration not allowed at module level"]
        );
        assert_eq!(found("if x:\n    break\n"), ["2: 'break' outside loop"]);
        assert_eq!(
            found("def f():\n    continue\n"),
            ["2: 'continue' not properly in loop"]
        );
        assert_eq!(
            found("def f(a, b=1, *, a): pass\n"),
            ["1: duplicate argument in function definition"]
        );
        assert_eq!(
            found("g = lambda a, *a: 1\n"),
            ["1: duplicate argument in function definition"]
        );
        assert_eq!(
            found("f(a=1, b)\nf(**k, c)\n"),
            [
                "1: positional argument follows keyword argument",
                "2: positional argument follows keyword argument"
            ]
        );
        assert_eq!(
            found(
                "def f(a=1, b): pass\ng = lambda a, b=2, c: 1\ndef h(a: int = 1, b: int): pass\n"
            ),
            [
                "1: non-default argument follows default argument",
                "2: non-default argument follows default argument",
                "3: non-default argument follows default argument"
            ]
        );
        assert_eq!(
            found("def f(**k, a): pass\nlambda **k, *a: 0\ndef g(**k: int, b=1): pass\n"),
            [
                "1: arguments cannot follow var-keyword argument",
                "2: arguments cannot follow var-keyword argument",
                "3: arguments cannot follow var-keyword argument"
            ]
        );
        // Legal orders.
        assert!(
            found("f(a, *b, c=1, *d, **e)\nf(x=1, *y)\ndef g(a, b=1, *c, d, e=2, **f): pass\ndef h(a=1, /, b=2, *, c): pass\nlambda a=1, *, b: 0\ndef t(a: int = 1, *b: int, c: int, **d: int): pass\ndef u(a=1, **k: int): pass\ndef v(a, **k,): pass\n")
                .is_empty()
        );
        // Legal: inside a function, a lambda, a loop; distinct names.
        assert!(
            found(
                "def f(a, b: int = 2, *c, d, **e):\n    def g():\n        nonlocal a\n        yield a\n    for x in a:\n        while x:\n            break\n        continue\n    h = lambda: (yield)\n    return g\n"
            )
            .is_empty()
        );
    }
}
