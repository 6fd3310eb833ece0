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
