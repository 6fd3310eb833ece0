use super::*;
use proptest::prelude::*;

fn apply(text: &str, edits: &[TextEdit]) -> Result<(String, EditPlan)> {
    let plan = plan_edits(text, edits)?;
    let out = plan.apply(text)?;
    Ok((out, plan))
}

fn one(text: &str, edit: TextEdit) -> Result<String> {
    apply(text, &[edit]).map(|(s, _)| s)
}

fn err(text: &str, edit: TextEdit) -> Error {
    plan_edits(text, &[edit]).unwrap_err()
}

fn anchored(old: &str, new: &str, anchor: Anchor) -> TextEdit {
    TextEdit {
        anchor: Some(anchor),
        ..TextEdit::new(old, new)
    }
}

fn fuzzy(old: &str, new: &str, mode: FuzzyMode) -> TextEdit {
    TextEdit {
        fuzzy: mode,
        ..TextEdit::new(old, new)
    }
}

const PY: &str = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x * 2\n";

#[test]
fn unique_exact_match_replaces_only_its_span() {
    let (out, plan) = apply(
        "let a = 1;\nlet b = 2;\n",
        &[TextEdit::new("b = 2", "b = 3")],
    )
    .unwrap();
    assert_eq!(out, "let a = 1;\nlet b = 3;\n");
    let e = &plan.edits[0];
    assert_eq!(e.mode, MatchMode::Exact);
    assert_eq!(e.matches[0].start_line, 2);
    assert_eq!((e.matches[0].start_byte, e.matches[0].end_byte), (15, 20));
}

#[test]
fn multiple_matches_list_each_with_a_picking_anchor() {
    let e = err(PY, TextEdit::new("    x = 1\n", "    x = 10\n"));
    assert_eq!(e.code(), ErrorCode::MultipleMatches);
    assert_eq!(e.details["total_matches"], 2);
    let m = e.details["matches"].as_array().unwrap();
    assert_eq!(m[0]["start_line"], 2);
    assert_eq!(m[1]["start_line"], 6);
    assert_eq!(m[0]["anchor"]["before"], "def a():");
    assert_eq!(m[1]["anchor"]["before"], "def b():");
    assert!(
        e.suggestion.contains("⟦expected_matches=2⟧"),
        "{}",
        e.suggestion
    );
    assert!(e.suggestion.contains("def a():"), "{}", e.suggestion);
    // Using the suggested anchor works.
    let anchor: Anchor = serde_json::from_value(m[1]["anchor"].clone()).unwrap();
    let out = one(PY, anchored("    x = 1\n", "    x = 10\n", anchor)).unwrap();
    assert!(out.contains("def b():\n    x = 10\n"));
    assert!(out.contains("def a():\n    x = 1\n"));
}

#[test]
fn anchors_before_after_and_line_range() {
    let before = Anchor {
        before: Some("def a".into()),
        ..Anchor::default()
    };
    let out = one(PY, anchored("x = 1", "x = 5", before)).unwrap();
    assert!(out.starts_with("def a():\n    x = 5\n"));
    let after = Anchor {
        after: Some("x * 2".into()),
        ..Anchor::default()
    };
    let out = one(PY, anchored("x = 1", "x = 6", after)).unwrap();
    assert!(out.contains("def b():\n    x = 6\n"));
    let range = Anchor {
        line_range: Some(LineRange { start: 5, end: 7 }),
        ..Anchor::default()
    };
    let out = one(PY, anchored("x = 1", "x = 7", range)).unwrap();
    assert!(out.contains("def b():\n    x = 7\n"));
}

#[test]
fn anchor_failures() {
    let missing = Anchor {
        before: Some("def zzz".into()),
        ..Anchor::default()
    };
    let e = err(PY, anchored("x = 1", "x = 2", missing));
    assert_eq!(e.code(), ErrorCode::AnchorFailed);
    assert_eq!(e.details["candidates"].as_array().unwrap().len(), 2);
    assert_eq!(e.details["candidates"][0]["failed"][0], "before");
    // The anchor is honoured even for a unique match.
    let range = Anchor {
        line_range: Some(LineRange { start: 1, end: 3 }),
        ..Anchor::default()
    };
    let e = err(PY, anchored("x * 2", "x * 3", range));
    assert_eq!(e.code(), ErrorCode::AnchorFailed);
    assert!(e.suggestion.contains("single match"));
    // Both anchors ambiguous still: MULTIPLE_MATCHES.
    let wide = Anchor {
        line_range: Some(LineRange { start: 1, end: 7 }),
        ..Anchor::default()
    };
    assert_eq!(
        err(PY, anchored("x = 1", "x = 2", wide)).code(),
        ErrorCode::MultipleMatches
    );
    // Invalid anchors.
    let empty = Anchor {
        after: Some(String::new()),
        ..Anchor::default()
    };
    assert_eq!(
        err(PY, anchored("x * 2", "y", empty)).code(),
        ErrorCode::InvalidArgument
    );
    let bad = Anchor {
        line_range: Some(LineRange { start: 4, end: 2 }),
        ..Anchor::default()
    };
    assert_eq!(
        err(PY, anchored("x * 2", "y", bad)).code(),
        ErrorCode::InvalidRange
    );
}

#[test]
fn anchors_pick_the_nearest_match() {
    let text = "call()\ncall()\nEND\ncall()\n";
    let after = Anchor {
        after: Some("END".into()),
        ..Anchor::default()
    };
    let (out, plan) = apply(text, &[anchored("call()", "x()", after)]).unwrap();
    assert_eq!(out, "call()\nx()\nEND\ncall()\n");
    assert_eq!(plan.edits[0].matches[0].start_line, 2);
    let before = Anchor {
        before: Some("END".into()),
        ..Anchor::default()
    };
    assert_eq!(
        one(text, anchored("call()", "y()", before)).unwrap(),
        "call()\ncall()\nEND\ny()\n"
    );
}

#[test]
fn anchor_window_is_bounded() {
    let mut text = String::from("marker\n");
    for _ in 0..60 {
        text.push_str("filler\n");
    }
    text.push_str("target\n");
    let a = Anchor {
        before: Some("marker".into()),
        ..Anchor::default()
    };
    assert_eq!(
        err(&text, anchored("target", "t", a)).code(),
        ErrorCode::AnchorFailed
    );
}

#[test]
fn expected_matches_replaces_all_or_fails() {
    let text = "foo(1); foo(2);\nfoo(3);\n";
    let edit = TextEdit {
        expected_matches: Some(3),
        ..TextEdit::new("foo(", "bar(")
    };
    let (out, plan) = apply(text, &[edit]).unwrap();
    assert_eq!(out, "bar(1); bar(2);\nbar(3);\n");
    assert_eq!(plan.edits[0].matches.len(), 3);
    let edit = TextEdit {
        expected_matches: Some(2),
        ..TextEdit::new("foo(", "bar(")
    };
    let e = err(text, edit);
    assert_eq!(e.code(), ErrorCode::MultipleMatches);
    assert!(e.suggestion.contains("⟦expected_matches=3⟧"));
    let edit = TextEdit {
        expected_matches: Some(0),
        ..TextEdit::new("foo(", "bar(")
    };
    assert_eq!(err(text, edit).code(), ErrorCode::InvalidArgument);
    // Overlapping occurrences cannot all be replaced.
    let edit = TextEdit {
        expected_matches: Some(2),
        ..TextEdit::new("aa", "b")
    };
    assert_eq!(err("aaa", edit).code(), ErrorCode::Conflict);
    assert_eq!(
        err("aaa", TextEdit::new("aa", "b")).code(),
        ErrorCode::MultipleMatches
    );
}

#[test]
fn whitespace_fuzzy_reindents_new_text() {
    let text = "class A:\n    def f(self):\n        if x:\n            y()\n        return 1\n";
    let old = "if x:\n    y()\n";
    let new = "if x:\n    y()\n    z()\n";
    // Exact fails with a clear diagnosis.
    let e = err(text, TextEdit::new(old, new));
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["reason"], "indentation");
    assert!(
        e.suggestion.contains("⟦fuzzy=whitespace⟧"),
        "{}",
        e.suggestion
    );
    assert!(e.suggestion.contains("lines 3-4"), "{}", e.suggestion);
    let (out, plan) = apply(text, &[fuzzy(old, new, FuzzyMode::Whitespace)]).unwrap();
    assert_eq!(
        out,
        "class A:\n    def f(self):\n        if x:\n            y()\n            z()\n        return 1\n"
    );
    assert_eq!(plan.edits[0].mode, MatchMode::Whitespace);
    assert!(plan.warnings[0].contains("re-indented"));
}

#[test]
fn whitespace_fuzzy_forgives_spacing_inside_lines() {
    let text = "def f(a, b):\n    total  = compute(a,b)\n    return total\n";
    let old = "    total = compute(a, b)\n";
    let new = "    total = compute(a, b) + 1\n";
    assert_eq!(
        err(text, TextEdit::new(old, new)).code(),
        ErrorCode::NoMatch
    );
    let (out, plan) = apply(text, &[fuzzy(old, new, FuzzyMode::Whitespace)]).unwrap();
    assert_eq!(
        out,
        "def f(a, b):\n    total = compute(a, b) + 1\n    return total\n"
    );
    assert_eq!(plan.edits[0].mode, MatchMode::Whitespace);
    // Whitespace between two words is not forgiven away: `return total`
    // is not `returntotal`.
    let e = err(
        text,
        fuzzy("    returntotal\n", "    return 0\n", FuzzyMode::Whitespace),
    );
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(squeeze(" f( a ,b )  "), "f(a,b)");
    assert_eq!(squeeze("return   x"), "return x");
}

#[test]
fn a_typo_inside_a_long_line_is_found_at_character_level() {
    let long = format!(
        "    result = compute_totals(orders, include_tax=True, currency=\"EUR\", rounding=2)  # {}\n",
        "x".repeat(80)
    );
    let text = format!("def f(orders):\n    total = 0\n{long}    return result\n");
    // One character off inside the long line.
    let e = err(
        &text,
        TextEdit::new("include_tax=Ture", "include_tax=False"),
    );
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["closest_in_line"]["line"], 3, "{}", e.details);
    assert_eq!(e.details["closest_in_line"]["text"], "include_tax=True");
    assert_eq!(e.details["closest"]["start_line"], 3);
    assert!(
        e.suggestion.contains("\"include_tax=True\""),
        "{}",
        e.suggestion
    );
}

#[test]
fn whitespace_fuzzy_dedents_and_ignores_trailing_space() {
    let text = "fn f() {\n  a();   \n  b();\n}\n";
    let old = "        a();\n        b();";
    let new = "        a();\n    c();\n        b();";
    let out = one(text, fuzzy(old, new, FuzzyMode::Whitespace)).unwrap();
    assert_eq!(out, "fn f() {\n  a();\nc();\n  b();\n}\n");
}

#[test]
fn whitespace_fuzzy_shifts_or_scales_deeper_lines() {
    // Written two levels deep, the file has it one level deep: a shift.
    let text = "def f():\n    if x:\n        y()\n";
    let old = "        if x:\n            y()\n";
    let new = "        if x:\n            for i in r:\n                y(i)\n";
    let out = one(text, fuzzy(old, new, FuzzyMode::Whitespace)).unwrap();
    assert_eq!(
        out,
        "def f():\n    if x:\n        for i in r:\n            y(i)\n"
    );
    // Written with 2-space levels for a 4-space file: a scale.
    let old = "if x:\n  y()\n";
    let new = "if x:\n  for i in r:\n    y(i)\n";
    let out = one("if x:\n    y()\n", fuzzy(old, new, FuzzyMode::Whitespace)).unwrap();
    assert_eq!(out, "if x:\n    for i in r:\n        y(i)\n");
}

#[test]
fn whitespace_fuzzy_converts_tabs_and_spaces() {
    let text = "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n";
    let old = "    if x {\n        y()\n    }";
    let new = "    if x {\n        y()\n        z()\n    }";
    let e = err(text, TextEdit::new(old, new));
    assert_eq!(e.details["reason"], "tabs_vs_spaces");
    let out = one(text, fuzzy(old, new, FuzzyMode::Whitespace)).unwrap();
    assert_eq!(out, "func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n");
}

#[test]
fn whitespace_fuzzy_ties_are_unsafe() {
    let e = err(PY, fuzzy("\tx = 1", "\tx = 2", FuzzyMode::Whitespace));
    assert_eq!(e.code(), ErrorCode::FuzzyUnsafe);
    assert_eq!(e.details["total_matches"], 2);
    assert!(e.details["matches"][0]["anchor"].is_object());
    // ...unless an anchor or expected_matches settles it.
    let a = Anchor {
        before: Some("def b".into()),
        ..Anchor::default()
    };
    let edit = TextEdit {
        fuzzy: FuzzyMode::Whitespace,
        ..anchored("\tx = 1", "\tx = 2", a)
    };
    assert!(one(PY, edit).unwrap().contains("def b():\n    x = 2\n"));
}

#[test]
fn levenshtein_fuzzy_needs_a_unique_best_within_distance() {
    let text = "fn main() {\n    let total = compute_sum(values);\n    println!(\"{total}\");\n}\n";
    let old = "let totl = compute_sum(value);";
    let new = "let total = compute_sum(&values);";
    assert_eq!(
        err(text, TextEdit::new(old, new)).code(),
        ErrorCode::NoMatch
    );
    assert_eq!(
        err(text, fuzzy(old, new, FuzzyMode::Whitespace)).code(),
        ErrorCode::NoMatch
    );
    let (out, plan) = apply(text, &[fuzzy(old, new, FuzzyMode::Levenshtein)]).unwrap();
    assert!(
        out.contains("\n    let total = compute_sum(&values);\n"),
        "{out}"
    );
    assert_eq!(plan.edits[0].mode, MatchMode::Levenshtein);
    assert_eq!(plan.edits[0].distance, Some(2));
    assert!(plan.edits[0].similarity.unwrap() > 0.9);
    // Too far for a small max_distance.
    let edit = TextEdit {
        max_distance: Some(1),
        ..fuzzy(old, new, FuzzyMode::Levenshtein)
    };
    let e = err(text, edit);
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert!(e.message.contains("edit distance 1"), "{}", e.message);
    // Two equally close lines: refused.
    let text = "let a = 1;\nlet c = 1;\n";
    let e = err(
        text,
        fuzzy("let b = 1;", "let b = 2;", FuzzyMode::Levenshtein),
    );
    assert_eq!(e.code(), ErrorCode::FuzzyUnsafe);
    // A strictly closer one wins.
    let text = "let ab = 1;\nlet b = 1;\n";
    let out = one(
        text,
        fuzzy("let b = 1 ;", "let b = 2;", FuzzyMode::Levenshtein),
    )
    .unwrap();
    assert_eq!(out, "let ab = 1;\nlet b = 2;\n");
}

#[test]
fn fuzzy_is_not_used_when_exact_matches() {
    let text = "  call(a)\ncall(a)  \n";
    let (out, plan) = apply(
        text,
        &[fuzzy("  call(a)\n", "  call(b)\n", FuzzyMode::Levenshtein)],
    )
    .unwrap();
    assert_eq!(out, "  call(b)\ncall(a)  \n");
    assert_eq!(plan.edits[0].mode, MatchMode::Exact);
    assert!(plan.warnings.is_empty());
    // Exact ambiguity is never resolved by fuzzy matching.
    let e = err("a\na\n", fuzzy("a", "b", FuzzyMode::Levenshtein));
    assert_eq!(e.code(), ErrorCode::MultipleMatches);
}

#[test]
fn conflicts_name_both_edits() {
    let text = "alpha beta gamma\n";
    let e = plan_edits(
        text,
        &[
            TextEdit::new("gamma", "G"),
            TextEdit::new("alpha beta", "AB"),
            TextEdit::new("beta gamma", "BG"),
        ],
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conflict);
    assert_eq!(e.details["edits"], json!([1, 2]));
    assert!(e.message.contains("edits 1 and 2"));
}

#[test]
fn batch_is_matched_against_the_original_and_applied_once() {
    let text = "a = 1\nb = 2\nc = 3\n";
    let (out, plan) = apply(
        text,
        &[
            TextEdit::new("c = 3", "c = 30\nd = 4"),
            TextEdit::new("a = 1\n", ""),
            // Matches the original "b = 2" even though edit 0 adds lines before... after it.
            TextEdit::new("b = 2", "b = 20"),
        ],
    )
    .unwrap();
    assert_eq!(out, "b = 20\nc = 30\nd = 4\n");
    assert_eq!(plan.edits[2].matches[0].start_line, 2);
    assert_eq!(plan.edits[2].matches[0].new_start_line, 1);
    assert_eq!(plan.edits[0].matches[0].new_start_line, 2);
    assert_eq!(plan.edits[0].matches[0].new_end_line, 3);
}

#[test]
fn one_failing_edit_fails_all_and_is_named() {
    let text = "one\ntwo\nthree\n";
    let e = plan_edits(
        text,
        &[
            TextEdit::new("one", "1"),
            TextEdit::new("fourr", "4"),
            TextEdit::new("three", "3"),
        ],
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["edit_index"], 1);
    assert!(e.message.starts_with("edit 1:"));
}

#[test]
fn noop_edits_warn_and_change_nothing() {
    let text = "same\n";
    let (out, plan) = apply(text, &[TextEdit::new("same", "same")]).unwrap();
    assert_eq!(out, text);
    assert!(plan.is_noop());
    assert_eq!(plan.edits[0].mode, MatchMode::Noop);
    assert!(plan.warnings[0].contains("identical"));
    // A no-op among real edits does not block them.
    let (out, _) = apply(
        "x\ny\n",
        &[TextEdit::new("x", "x"), TextEdit::new("y", "z")],
    )
    .unwrap();
    assert_eq!(out, "x\nz\n");
}

#[test]
fn empty_old_text_is_invalid() {
    let e = err("abc", TextEdit::new("", "x"));
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(e.details["edit_index"], 0);
}

#[test]
fn crlf_files_match_lf_text_and_keep_crlf() {
    let text = "a\r\nb\r\nc\r\n";
    let (out, plan) = apply(text, &[TextEdit::new("a\nb\n", "x\ny\nz\n")]).unwrap();
    assert_eq!(out, "x\r\ny\r\nz\r\nc\r\n");
    assert_eq!(
        (
            plan.edits[0].matches[0].start_byte,
            plan.edits[0].matches[0].end_byte
        ),
        (0, 6)
    );
    // CRLF old_text matches too; a span ending before the newline keeps it.
    assert_eq!(
        one(text, TextEdit::new("b\r\nc", "B\r\nC")).unwrap(),
        "a\r\nB\r\nC\r\n"
    );
    assert_eq!(
        one(text, TextEdit::new("b", "q")).unwrap(),
        "a\r\nq\r\nc\r\n"
    );
    // An LF file gets LF even when new_text has CRLF.
    assert_eq!(
        one("a\nb\n", TextEdit::new("a", "1\r\n2")).unwrap(),
        "1\n2\nb\n"
    );
    // Whitespace fuzzy in a CRLF file.
    let out = one(
        "if x:\r\n    y()\r\n",
        fuzzy("if x:\n  y()\n", "if x:\n  z()\n", FuzzyMode::Whitespace),
    )
    .unwrap();
    assert_eq!(out, "if x:\r\n    z()\r\n");
}

#[test]
fn mixed_files_use_the_dominant_ending() {
    let text = "a\r\nb\r\nc\nd\r\n";
    assert_eq!(
        one(text, TextEdit::new("c", "c1\nc2")).unwrap(),
        "a\r\nb\r\nc1\r\nc2\nd\r\n"
    );
}

#[test]
fn bom_is_never_matched_or_altered() {
    let text = "\u{FEFF}first\nsecond\n";
    let (out, plan) = apply(text, &[TextEdit::new("first", "1st")]).unwrap();
    assert_eq!(out, "\u{FEFF}1st\nsecond\n");
    assert_eq!(plan.edits[0].matches[0].start_byte, 3);
    assert_eq!(plan.edits[0].matches[0].start_line, 1);
    // old_text carrying a BOM (copied from raw bytes) still targets the body.
    let out = one(text, TextEdit::new("\u{FEFF}first", "\u{FEFF}one")).unwrap();
    assert_eq!(out, "\u{FEFF}one\nsecond\n");
    // Deleting the whole first line keeps the BOM.
    assert_eq!(
        one(text, TextEdit::new("first\n", "")).unwrap(),
        "\u{FEFF}second\n"
    );
    // Whitespace fuzzy on line 1 of a BOM file.
    let out = one("\u{FEFF}  a\n", fuzzy("a", "b", FuzzyMode::Whitespace)).unwrap();
    assert_eq!(out, "\u{FEFF}  b\n");
}

#[test]
fn escaped_newlines_are_diagnosed() {
    let text = "fn f() {\n    a();\n    b();\n}\n";
    let e = err(text, TextEdit::new("a();\\n    b();", "c();"));
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["reason"], "escaped_newline");
    assert!(e.suggestion.contains("matches line 2"), "{}", e.suggestion);
}

#[test]
fn trailing_whitespace_and_final_newline_are_diagnosed() {
    let text = "a = 1   \nb = 2\n";
    let e = err(text, TextEdit::new("a = 1\nb = 2\n", "x"));
    assert_eq!(e.details["reason"], "trailing_whitespace");
    assert!(e.details["closest"]["diff"].as_str().unwrap().contains('·'));
    let e = err("x\nlast", TextEdit::new("last\n", "final\n"));
    assert_eq!(e.details["reason"], "final_newline");
    // Whitespace fuzzy keeps the missing final newline missing.
    assert_eq!(
        one(
            "x\n  last",
            fuzzy("last\n", "final\n", FuzzyMode::Whitespace)
        )
        .unwrap(),
        "x\n  final"
    );
}

#[test]
fn no_match_reports_the_closest_candidate_with_a_diff() {
    let text = "def load(path):\n    with open(path) as f:\n        return json.load(f)\n";
    let e = err(
        text,
        TextEdit::new(
            "    with open(pth) as f:\n        return json.loads(f)\n",
            "x",
        ),
    );
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["reason"], "content_differs");
    let c = &e.details["closest"];
    assert_eq!(c["start_line"], 2);
    assert_eq!(c["end_line"], 3);
    assert!(c["similarity"].as_f64().unwrap() > 0.8);
    let diff = c["diff"].as_str().unwrap();
    assert!(diff.contains("-    with open(pth) as f:"), "{diff}");
    assert!(diff.contains("+    with open(path) as f:"), "{diff}");
    assert!(e.suggestion.contains("lines 2-3"));
    // Nothing similar at all.
    let e = err(text, TextEdit::new("zzzzqqqq", "x"));
    assert_eq!(e.details["reason"], "not_present");
    let e = err("", TextEdit::new("a", "b"));
    assert_eq!(e.code(), ErrorCode::NoMatch);
}

#[test]
fn stale_text_is_refused_by_apply() {
    let plan = plan_edits("abc", &[TextEdit::new("b", "x")]).unwrap();
    assert_eq!(plan.apply("abd").unwrap_err().code(), ErrorCode::StaleFile);
    assert_eq!(plan.apply("abc").unwrap(), "axc");
}

#[test]
fn serde_shape() {
    let e: TextEdit = serde_json::from_value(json!({
        "old_text": "a", "new_text": "b", "fuzzy": "whitespace",
        "anchor": {"before": "x", "line_range": {"start": 1, "end": 2}}
    }))
    .unwrap();
    assert_eq!(e.fuzzy, FuzzyMode::Whitespace);
    assert!(
        serde_json::from_value::<TextEdit>(
            json!({"old_text": "a", "new_text": "b", "old_string": "c"})
        )
        .is_err()
    );
    assert_eq!(
        serde_json::from_value::<TextEdit>(json!({"old_text": "a", "new_text": "b"}))
            .unwrap()
            .fuzzy,
        FuzzyMode::Exact
    );
}

#[test]
fn shift_indent_rules() {
    assert_eq!(shift_indent("a\n  b\n", "", "    "), "    a\n      b\n");
    assert_eq!(shift_indent("    a\n  b\nc", "    ", "  "), "  a\nb\nc");
    assert_eq!(shift_indent("\ta\n\t\tb\n", "\t", "  "), "  a\n    b\n");
    assert_eq!(shift_indent("  a\n\n", "  ", "  "), "  a\n\n");
}

fn body_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just(" "),
            Just("\t"),
            Just("é"),
            Just("\n"),
            Just("\r\n"),
            Just("xyz")
        ],
        0..60,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn exact_edit_changes_only_its_span(text in body_strategy(), a in 0usize..200, len in 1usize..20, new in "[a-z ]{0,8}") {
        let chars: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let a = chars[a % chars.len()];
        let b = chars.iter().copied().find(|&i| i >= a + len).unwrap_or(text.len());
        let old = &text[a..b];
        // Only spans that are unique, do not split a "\r\n", and are not no-ops.
        prop_assume!(!old.is_empty() && old != new);
        prop_assume!(!text[..a].ends_with('\r') && !old.ends_with('\r'));
        prop_assume!(find_all(&text.replace("\r\n", "\n"), &old.replace("\r\n", "\n")).len() == 1);
        let out = one(&text, TextEdit::new(old, new.clone())).unwrap();
        prop_assert_eq!(out, format!("{}{}{}", &text[..a], new, &text[b..]));
    }

    #[test]
    fn crlf_files_keep_every_untouched_line_ending(lines in proptest::collection::vec("[a-z ]{0,6}", 1..12), pick in 0usize..12, new in "[a-z]{1,4}(\n[a-z]{1,4}){0,2}") {
        let tag = format!("UNIQUE{}", pick % lines.len());
        let mut lines = lines;
        let i = pick % lines.len();
        lines[i] = format!("{}{tag}", lines[i]);
        let text = lines.iter().map(|l| format!("{l}\r\n")).collect::<String>();
        let out = one(&text, TextEdit::new(tag.clone(), new.clone())).unwrap();
        prop_assert!(!out.replace("\r\n", "").contains('\n'), "bare LF in {:?}", out);
        prop_assert!(!out.replace("\r\n", "").contains('\r'));
        let kept: Vec<&str> = out.split("\r\n").collect();
        prop_assert_eq!(kept.len(), lines.len() + 1 + new.matches('\n').count());
        for (j, l) in lines.iter().enumerate().filter(|(j, _)| *j != i) {
            let k = if j < i { j } else { j + new.matches('\n').count() };
            prop_assert_eq!(kept[k], l.as_str());
        }
    }

    #[test]
    fn planning_never_panics(text in body_strategy(), old in body_strategy(), new in "[a-z\n]{0,6}", mode in 0u8..3) {
        let fuzzy = [FuzzyMode::Exact, FuzzyMode::Whitespace, FuzzyMode::Levenshtein][mode as usize];
        let edit = TextEdit { fuzzy, ..TextEdit::new(old, new) };
        if let Ok(plan) = plan_edits(&text, &[edit]) {
            prop_assert!(plan.apply(&text).is_ok());
        }
    }
}

#[test]
fn large_texts_stay_fast() {
    // 40k lines (~1.3 MB): exact, fuzzy and a miss's diagnosis are all
    // linear passes, not per-window quadratic work.
    let text: String = (0..40_000)
        .map(|i| format!("    let value_{i} = compute({i});\n"))
        .collect();
    let started = std::time::Instant::now();
    let out = one(
        &text,
        TextEdit::new("let value_20000 = compute(20000);", "let v = 0;"),
    )
    .unwrap();
    assert!(out.contains("    let v = 0;\n"));
    let lev = fuzzy(
        "let value_2000O = compute(20000);\nlet value_20001 = compute(20001);",
        "x",
        FuzzyMode::Levenshtein,
    );
    assert!(one(&text, lev).is_ok());
    let e = err(
        &text,
        TextEdit::new(
            "let valeu_123 = compute(123);\nlet value_124 = compute(124);\nzzz\n",
            "x",
        ),
    );
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["closest"]["start_line"], 124, "{}", e.details);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
