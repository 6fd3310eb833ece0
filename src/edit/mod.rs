//! Edit plans: where new code goes, how it is fitted in (indentation, line
//! endings), and whether the result still parses. Pure: the new content is
//! built in memory and written as a `change::Change` (through
//! `disk::commit_write`, the only writer).

pub mod indent;
pub mod rescale;
pub mod second;
pub mod symbol;
pub mod validate;

pub use symbol::{Operation, Overwrite, SymbolEdit, plan};
pub use validate::{
    Splice, SyntaxProblem, Validation, ValidationStatus, judge, reparse, syntax_problems,
};
