//! Edit plans: where new code goes, how it is fitted in (indentation, line
//! endings), and whether the result still parses. Pure: the new content is
//! built in memory and handed to `disk::commit_write`, the only writer.

pub mod indent;
pub mod symbol;
pub mod validate;

pub use symbol::{Operation, Overwrite, SymbolEdit, plan};
pub use validate::{
    Change, SyntaxProblem, Validation, ValidationStatus, judge, reparse, syntax_problems,
};
