//! Indentation as text: the one set of primitives that both re-indenting
//! engines use — symbol fitting (`edit::symbol`, which chooses among
//! readings with the syntax tree, `edit::indent`) and the whitespace-fuzzy
//! text replace (`text::replace`, which maps matched levels).

/// The spaces and tabs a line starts with.
pub fn leading_ws(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// A line with nothing but whitespace.
pub fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// `ws` with its leading groups of `width` spaces written as tabs; what
/// follows the last whole group is kept as it is.
pub fn spaces_to_tabs(ws: &str, width: usize) -> String {
    if width == 0 {
        return ws.to_string();
    }
    let group = " ".repeat(width);
    let mut rest = ws;
    let mut out = String::with_capacity(ws.len());
    while let Some(r) = rest.strip_prefix(group.as_str()) {
        out.push('\t');
        rest = r;
    }
    out.push_str(rest);
    out
}

/// `ws` with every tab written as `width` spaces.
pub fn tabs_to_spaces(ws: &str, width: usize) -> String {
    ws.replace('\t', &" ".repeat(width))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respelling() {
        assert_eq!(leading_ws("  \tx = 1"), "  \t");
        assert!(is_blank(" \t\r") && !is_blank("  x"));
        assert_eq!(spaces_to_tabs("          ", 4), "\t\t  ");
        assert_eq!(spaces_to_tabs("    \t ", 4), "\t\t ");
        assert_eq!(tabs_to_spaces("\t \t", 2), "     ");
        assert_eq!(spaces_to_tabs("   ", 0), "   ");
    }
}
