//! Pure text algorithms: line indexing, keyword matching, previews, interval
//! merging for `read_fragment`, and the safe text replacement behind
//! `edit_file`.
//!
//! Nothing in this module touches the disk. Callers in `disk` read a file into a
//! [`SourceText`](crate::source::SourceText), hand its text to these functions and
//! write back what they return. Keeping the algorithms pure is what lets us
//! test the hard parts (uniqueness, anchors, fuzzy matching, line endings)
//! exhaustively, including with property tests, without a file system, and
//! it guarantees that a dry run can never write anything.
//!
//! Conventions shared by every submodule:
//! - line numbers are 1-based and ranges inclusive, as an editor shows them;
//! - byte offsets are offsets into the text exactly as given (a leading BOM
//!   included), so they are file offsets;
//! - "\r\n" and "\n" both end a line; a trailing newline does not start a
//!   new line.

pub mod indent;
pub mod intervals;
pub mod lines;
pub mod matcher;
pub mod preview;
pub mod replace;
pub mod window;

/// The smallest window in which `new` differs from `old`: their common
/// prefix ends at `start`, and `old[start..old_end]` became
/// `new[start..new_end]` (the common suffix never overlaps the prefix).
pub fn changed_window(old: &[u8], new: &[u8]) -> (usize, usize, usize) {
    let prefix = old.iter().zip(new).take_while(|(x, y)| x == y).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    (prefix, old.len() - suffix, new.len() - suffix)
}

/// `1 file`, `2 files`, `1 match`, `0 matches`: a count and its noun, in
/// the singular for one (every count a rendering prints goes through here).
pub fn count(n: usize, noun: &str) -> String {
    let ending = match (n, noun.ends_with("ch") || noun.ends_with('s')) {
        (1, _) => "",
        (_, true) => "es",
        (_, false) => "s",
    };
    format!("{n} {noun}{ending}")
}

pub use intervals::{
    BudgetOutcome, DroppedRegion, LineRange, LineRequest, RangeCheck, RangeNote, Region,
    apply_budget, keyword_lines, merge, validate_ranges,
};
pub use lines::LineIndex;
pub use matcher::{KeywordHit, KeywordMatcher};
pub use preview::preview;
pub use replace::{
    Anchor, EditMatch, EditPlan, FuzzyMode, MatchMode, PlannedEdit, Replacement, TextEdit,
    plan_edits,
};

#[cfg(test)]
mod count_tests {
    #[test]
    fn counts_say_one_in_the_singular() {
        assert_eq!(super::count(1, "file"), "1 file");
        assert_eq!(super::count(2, "file"), "2 files");
        assert_eq!(super::count(1, "match"), "1 match");
        assert_eq!(super::count(0, "match"), "0 matches");
        assert_eq!(super::count(3, "parse error"), "3 parse errors");
    }
}
