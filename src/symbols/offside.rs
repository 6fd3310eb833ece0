//! Indentation as strict as an offside-rule language's own tokenizer.
//!
//! tree-sitter-python recovers from most indentation mistakes without an
//! ERROR node (a line shifted by two columns, a body dedented to its header),
//! yet CPython refuses them all. This check replays CPython's tokenizer rules
//! over the tree's tokens:
//!
//! - a *logical line* starts at the first token of a physical line that is
//!   not inside brackets, not inside a multi-line string (an `atomic` node)
//!   and not after an explicit line continuation; comments and blank lines
//!   do not count;
//! - its indentation is compared with a stack of open indentation levels:
//!   deeper pushes (and is an *unexpected indent* unless the previous logical
//!   line ended with the block opener `:`), shallower pops and must land on
//!   an open level (*unindent does not match any outer indentation level*),
//!   and a block opener followed by no deeper line is *expected an indented
//!   block*;
//! - columns are computed twice, with tabs to the next multiple of
//!   `tab_size` and with tabs as one column: when the two orders disagree the
//!   file mixes tabs and spaces inconsistently (CPython's `TabError`).
//!
//! - brackets nested deeper than `max_bracket_depth` are *too many nested
//!   parentheses* (CPython's tokenizer stops at 200 levels);
//! - a logical line must begin a statement or a clause (a node whose parent
//!   is one of `line_parents`, or one of `line_nodes`): the tokenizer ends a
//!   statement at a line break outside brackets, where tree-sitter's parser
//!   may go on with it (*invalid syntax*).
//!
//! Which tokens are brackets, strings and block openers is data
//! (`[offside]` in the language's TOML); no node kind is named here.

use super::ErrorNode;
use crate::lang::OffsideRules;
use tree_sitter::{Node, Tree};

/// One violation: where the offending logical line starts and which rule.
struct Violation {
    byte: usize,
    row: usize,
    column: usize,
    rule: &'static str,
}

pub const UNEXPECTED_INDENT: &str = "unexpected indent";
pub const EXPECTED_BLOCK: &str = "expected an indented block";
pub const UNINDENT_MISMATCH: &str = "unindent does not match any outer indentation level";
pub const INCONSISTENT_TABS: &str = "inconsistent use of tabs and spaces in indentation";
pub const TOO_DEEP: &str = "too many nested parentheses";
pub const MID_STATEMENT: &str = "invalid syntax (a line break ends the statement before this line)";

/// Every indentation violation in `tree`, as error nodes whose `rule` names
/// it, in document order.
pub fn violations(rules: &OffsideRules, tree: &Tree, body: &str) -> Vec<ErrorNode> {
    let mut run = Run::new(rules, body);
    run.feed(tree.root_node());
    error_nodes(body, run.finish())
}

/// The violations of two versions of a file around one change, for
/// comparing them (`start..old_end` of the old body became `start..new_end`
/// of the new): the same multiset difference as comparing both whole files,
/// without walking every token of a large file for each candidate edit.
///
/// Both versions are checked from a top-level node before the change where
/// any run, whatever came before, is *settled* (a code line at column 0,
/// outside brackets, not after a block opener or a continuation; the text
/// before it has no parse error, so its brackets are balanced) up to the
/// first top-level node after the change where both runs are settled again
/// at the same place from the end. Before and after those points both
/// versions have the same text and the same checker state, so the same
/// violations. `None` when no such start is found (a parse error before the
/// change, ...): the caller compares whole files.
pub fn around_change(
    rules: &OffsideRules,
    old: (&Tree, &str),
    new: (&Tree, &str),
    start: usize,
    old_end: usize,
    new_end: usize,
) -> Option<(Vec<ErrorNode>, Vec<ErrorNode>)> {
    let old_top = top_level(old.0);
    let new_top = top_level(new.0);
    // The last top-level node starting at or before the change, present at
    // the same offset in both versions, with error-free text before it.
    let a = new_top.iter().rposition(|n| n.start_byte() <= start)?;
    let a_start = new_top[a].start_byte();
    let a_old = old_top
        .binary_search_by_key(&a_start, |n| n.start_byte())
        .ok()?;
    if new_top[..a]
        .iter()
        .chain(&old_top[..a_old])
        .any(|n| n.has_error())
    {
        return None;
    }
    let mut old_run = Window::start(rules, old.1, &old_top, a_old, old_end)?;
    let mut new_run = Window::start(rules, new.1, &new_top, a, new_end)?;
    // Advance whichever run is behind until both settle at the same
    // distance from the end (at worst the end of the file).
    let (mut o, mut n) = (old_run.next_settled(), new_run.next_settled());
    while o != n {
        if o > n {
            o = old_run.next_settled();
        } else {
            n = new_run.next_settled();
        }
    }
    Some((old_run.into_violations(o), new_run.into_violations(n)))
}

/// The root's children, in order.
fn top_level(tree: &Tree) -> Vec<Node<'_>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.children(&mut cursor).collect()
}

/// One version's run over its top-level nodes (see [`around_change`]).
struct Window<'a, 't> {
    run: Run<'a>,
    top: &'a [Node<'t>],
    /// The next top-level node to feed.
    next: usize,
    /// Where the change ends: settling only counts after it.
    change_end: usize,
    /// Violations found before the window's start (discarded).
    skip: usize,
}

impl<'a, 't> Window<'a, 't> {
    /// A run fed with the nodes from the last code node before `at` (or
    /// from the first node), settled before `at`; `None` if it is not. The
    /// state a settled run depends on (brackets, a pending block opener,
    /// the last row) is set by that code node and the comments after it.
    fn start(
        rules: &'a OffsideRules,
        body: &'a str,
        top: &'a [Node<'t>],
        at: usize,
        change_end: usize,
    ) -> Option<Self> {
        let mut run = Run::new(rules, body);
        let from = top[..at].iter().rposition(|n| !n.is_extra()).unwrap_or(0);
        for &node in &top[from..at] {
            run.feed(node);
        }
        if !run.settled_before(top[at]) {
            return None;
        }
        let skip = run.check.out.len();
        Some(Window {
            run,
            top,
            next: at,
            change_end,
            skip,
        })
    }

    /// Feed nodes up to the next one after the change before which the run
    /// is settled, and return its distance from the end of the body (0:
    /// the end of the file).
    fn next_settled(&mut self) -> usize {
        let len = self.run.check.body.len();
        // The node where the run stopped last time is fed first.
        let mut fed_one = false;
        while let Some(&node) = self.top.get(self.next) {
            if fed_one && node.start_byte() >= self.change_end && self.run.settled_before(node) {
                return len - node.start_byte();
            }
            self.run.feed(node);
            self.next += 1;
            fed_one = true;
        }
        0
    }

    /// The violations from the window's start to where it settled
    /// (`distance` 0: the end of the file, with its own rule).
    fn into_violations(self, distance: usize) -> Vec<ErrorNode> {
        let body = self.run.check.body;
        let out = if distance == 0 {
            self.run.finish()
        } else {
            self.run.check.out
        };
        error_nodes(body, out.into_iter().skip(self.skip).collect())
    }
}

/// The layout checker with its state, fed tokens in document order.
struct Run<'a> {
    rules: &'a OffsideRules,
    check: Checker<'a>,
    state: Walk,
}

impl<'a> Run<'a> {
    fn new(rules: &'a OffsideRules, body: &'a str) -> Self {
        Run {
            rules,
            check: Checker {
                rules,
                body,
                stack: vec![(0, 0)],
                out: Vec::new(),
            },
            state: Walk::default(),
        }
    }

    /// Check the tokens under `node`.
    fn feed(&mut self, node: Node) {
        let (check, state) = (&mut self.check, &mut self.state);
        walk_tokens(self.rules, node, &mut |tok| check.token(tok, state));
    }

    /// Would any run go on from `node` as this one does? `node` starts a
    /// logical line at column 0 (which closes every open level without a
    /// violation), outside brackets, not owed an indented block.
    fn settled_before(&self, node: Node) -> bool {
        let at = node.start_position();
        let st = &self.state;
        let between = &self.check.body[st.last_end.min(node.start_byte())..node.start_byte()];
        !node.is_extra()
            && at.column == 0
            && st.depth == 0
            && !st.ended_with_opener
            && st.last_row.is_none_or(|r| at.row > r)
            && !self
                .rules
                .line_continuation
                .as_deref()
                .is_some_and(|c| joins_lines(between, c))
    }

    /// The violations, with the end-of-file rule: a block opener with no
    /// block after it.
    fn finish(mut self) -> Vec<Violation> {
        if self.state.ended_with_opener
            && let Some((byte, row)) = self.state.last_token
        {
            self.check.out.push(Violation {
                byte,
                row,
                column: 0,
                rule: EXPECTED_BLOCK,
            });
        }
        self.check.out
    }
}

fn error_nodes(body: &str, violations: Vec<Violation>) -> Vec<ErrorNode> {
    violations
        .into_iter()
        .map(|v| ErrorNode {
            start_byte: v.byte,
            end_byte: line_end(body, v.byte),
            line: v.row + 1,
            column: v.column + 1,
            end_line: v.row + 1,
            focus_byte: v.byte,
            focus_line: v.row + 1,
            focus_column: v.column + 1,
            missing: None,
            rule: Some(v.rule.into()),
        })
        .collect()
}

/// One token for layout purposes: a leaf, or an atomic node taken whole.
#[derive(Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    row: usize,
    extra: bool,
    zero_width: bool,
    /// The token begins a statement or a clause (see [`may_start_line`]);
    /// `true` for a token that does not begin its row.
    may_start_line: bool,
}

#[derive(Default)]
struct Walk {
    /// Bracket nesting before the current token.
    depth: usize,
    /// Row of the last token seen (any token, comments included).
    last_row: Option<usize>,
    /// End of the last token seen (any token).
    last_end: usize,
    /// The last code token's start and row (for an unfinished block at EOF).
    last_token: Option<(usize, usize)>,
    /// The last code token at bracket depth 0 was the block opener.
    ended_with_opener: bool,
}

struct Checker<'a> {
    rules: &'a OffsideRules,
    body: &'a str,
    /// Open indentation levels: (column with tabs to tab stops, column with
    /// tabs as one).
    stack: Vec<(usize, usize)>,
    out: Vec<Violation>,
}

impl Checker<'_> {
    fn token(&mut self, tok: Token, st: &mut Walk) {
        if tok.zero_width {
            return;
        }
        let first_on_row = st.last_row.is_none_or(|r| tok.row > r);
        let continued = self
            .rules
            .line_continuation
            .as_deref()
            .is_some_and(|c| joins_lines(&self.body[st.last_end.min(tok.start)..tok.start], c));
        if !tok.extra && first_on_row && st.depth == 0 && !continued {
            if !tok.may_start_line {
                self.report(tok, MID_STATEMENT);
            }
            self.logical_line(tok, st);
        }
        st.last_row = Some(end_row(self.body, tok));
        st.last_end = tok.end;
        if tok.extra {
            return;
        }
        let text = &self.body[tok.start..tok.end];
        if self.rules.brackets.iter().any(|[open, _]| open == text) {
            // One violation where the nesting first passes the limit, not
            // one per bracket beyond it.
            if self.rules.max_bracket_depth == Some(st.depth) {
                self.report(tok, TOO_DEEP);
            }
            st.depth += 1;
        } else if self.rules.brackets.iter().any(|[_, close]| close == text) {
            st.depth = st.depth.saturating_sub(1);
        }
        st.last_token = Some((tok.start, tok.row));
        if st.depth == 0 {
            st.ended_with_opener = text == self.rules.block_opener;
        }
    }

    /// A violation of `rule` at `tok`.
    fn report(&mut self, tok: Token, rule: &'static str) {
        let line_start = self.body[..tok.start].rfind('\n').map_or(0, |p| p + 1);
        self.out.push(Violation {
            byte: tok.start,
            row: tok.row,
            column: tok.start - line_start,
            rule,
        });
    }

    /// A logical line starts at `tok`: compare its indentation with the
    /// open levels, as CPython's tokenizer does.
    fn logical_line(&mut self, tok: Token, st: &mut Walk) {
        let line_start = self.body[..tok.start].rfind('\n').map_or(0, |p| p + 1);
        let ws = &self.body[line_start..tok.start];
        let (col, alt) = columns(ws, self.rules.tab_size);
        let pending = std::mem::take(&mut st.ended_with_opener);
        let &(top, top_alt) = self.stack.last().expect("the stack keeps level 0");
        if col > top {
            if alt <= top_alt {
                self.report(tok, INCONSISTENT_TABS);
            } else if !pending {
                self.report(tok, UNEXPECTED_INDENT);
            }
            self.stack.push((col, alt));
        } else {
            if pending {
                self.report(tok, EXPECTED_BLOCK);
            }
            while self.stack.len() > 1 && col < self.stack.last().map_or(0, |l| l.0) {
                self.stack.pop();
            }
            let &(level, level_alt) = self.stack.last().expect("level 0 stays");
            if col != level {
                self.report(tok, UNINDENT_MISMATCH);
                // Recover as CPython would not: treat the line as a new
                // level so one bad line is one error, not a cascade.
                self.stack.push((col, alt));
            } else if alt != level_alt {
                self.report(tok, INCONSISTENT_TABS);
            }
        }
    }
}

/// Does the text between two tokens end a line with the continuation token?
fn joins_lines(between: &str, cont: &str) -> bool {
    between
        .split('\n')
        .rev()
        .skip(1)
        .any(|line| line.trim_end_matches('\r').trim_end().ends_with(cont))
}

/// Indentation width with tabs to the next multiple of `tab_size`, and with
/// tabs as one column.
fn columns(ws: &str, tab_size: usize) -> (usize, usize) {
    let (mut col, mut alt) = (0, 0);
    for c in ws.chars() {
        match c {
            '\t' => {
                col = (col / tab_size + 1) * tab_size;
                alt += 1;
            }
            '\u{c}' => {
                // A form feed resets the column (CPython).
                col = 0;
                alt = 0;
            }
            _ => {
                col += 1;
                alt += 1;
            }
        }
    }
    (col, alt)
}

/// The row a token ends on (multi-line strings end below where they start).
fn end_row(body: &str, tok: Token) -> usize {
    tok.row + memchr::memchr_iter(b'\n', &body.as_bytes()[tok.start..tok.end]).count()
}

fn line_end(body: &str, from: usize) -> usize {
    memchr::memchr(b'\n', &body.as_bytes()[from..]).map_or(body.len(), |p| from + p)
}

/// Visit the layout tokens under `root` in document order.
fn walk_tokens(rules: &OffsideRules, root: Node, visit: &mut dyn FnMut(Token)) {
    let mut last_row = None;
    super::walk_preorder(root, |node| {
        let atomic = rules.atomic.iter().any(|k| k == node.kind());
        let token = (atomic || node.child_count() == 0) && !node.is_missing();
        if token {
            let row = node.start_position().row;
            // Only a row's first code token can begin a logical line.
            let first = !node.is_extra() && last_row.is_none_or(|r| row > r);
            if !node.is_extra() {
                last_row = Some(node.end_position().row);
            }
            visit(Token {
                start: node.start_byte(),
                end: node.end_byte(),
                row,
                extra: node.is_extra(),
                zero_width: node.start_byte() == node.end_byte(),
                may_start_line: !first || may_start_line(rules, node),
            });
        }
        !token
    });
}

/// Whether `token` begins a statement or a clause: climbing the nodes it
/// begins, one is a `line_nodes` kind or the child of a `line_parents` one.
fn may_start_line(rules: &OffsideRules, token: Node) -> bool {
    if rules.line_parents.is_empty() {
        return true;
    }
    let mut n = token;
    loop {
        if rules.line_nodes.iter().any(|k| k == n.kind()) {
            return true;
        }
        let Some(p) = n.parent() else { return true };
        // Inside a parse error the grammar's reading is a guess: that
        // error is the problem.
        if p.is_error() || rules.line_parents.iter().any(|k| k == p.kind()) {
            return true;
        }
        if p.start_byte() != n.start_byte() {
            return false;
        }
        n = p;
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::Registry;

    /// `(source, expected rules with their 1-based lines)`.
    fn check(src: &str, expect: &[(usize, &str)]) {
        let reg = Registry::builtin();
        let lang = reg.by_name("python").unwrap();
        let tree = crate::symbols::parse_tree(lang, src, None).unwrap();
        let rules = lang.config.offside.as_ref().unwrap();
        let found = super::violations(rules, &tree, src);
        let got: Vec<(usize, &str)> = found
            .iter()
            .map(|e| (e.line, e.rule.as_deref().unwrap()))
            .collect();
        assert_eq!(got, expect, "for:\n{src}");
    }

    #[test]
    fn cpython_indentation_rules() {
        use super::*;
        let cases: &[(&str, &[(usize, &str)])] = &[
            ("def f():\n    return 1\n", &[]),
            (
                "def f():\n    x = 1\n      y = 2\n",
                &[(3, UNEXPECTED_INDENT)],
            ),
            ("def f():\nreturn 1\n", &[(2, EXPECTED_BLOCK)]),
            (
                "class A:\n    def m(self):\n        pass\n   def n(self):\n        pass\n",
                &[(4, UNINDENT_MISMATCH)],
            ),
            ("if x:\n\tpass\n        y = 1\n", &[(3, INCONSISTENT_TABS)]),
            // Continuation lines, strings, comments and blank lines are free.
            ("x = f(1,\n        2,\n  3)\n", &[]),
            ("x = '''\n  a\n b\n'''\ny = 1\n", &[]),
            ("def f():\n    # c\n# d\n\n    return 1\n", &[]),
            ("x = 1 + \\\n      2\n", &[]),
            ("if x: pass\ny = 1\n", &[]),
            ("d = {\n  'a': 1,\n}\n", &[]),
            // CPython's tokenizer takes 200 levels of brackets, not 201;
            // strings do not count.
            (
                &format!("x = {}1{}\n", "(".repeat(200), ")".repeat(200)),
                &[],
            ),
            (
                &format!("x = 1\ny = {}1{}\n", "[".repeat(201), "]".repeat(201)),
                &[(2, TOO_DEEP)],
            ),
            (&format!("x = '{}'\n", "(".repeat(300)), &[]),
            // A line break outside brackets ends the statement: the grammar
            // reads these as one assignment and one call, CPython does not.
            ("def f():\n    x = \n    g()\n", &[(3, MID_STATEMENT)]),
            ("y = 1 +\n2\nz = 2\n", &[(2, MID_STATEMENT)]),
            // Statements and clauses begin lines.
            (
                "@d\n@e(1)\nclass A:\n    pass\nif a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n",
                &[],
            ),
            (
                "try:\n    pass\nexcept* E:\n    pass\nfinally:\n    pass\nfor i in x:\n    pass\nelse:\n    pass\n",
                &[],
            ),
            (
                "match x:\n    case 1:\n        pass\n    case _:\n        pass\n",
                &[],
            ),
            ("@dec\ndef f():\n    '''Doc.'''\n", &[]),
            ("    x = 1\n", &[(1, UNEXPECTED_INDENT)]),
            ("def f():\n", &[(1, EXPECTED_BLOCK)]),
        ];
        for (src, expect) in cases {
            check(src, expect);
        }
    }
}
