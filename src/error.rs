//! One error type with stable codes, shared by the library, the CLI and the MCP
//! server. Every failure carries a code, a one-line message, a suggestion the
//! caller can act on, and structured details (candidates, nearest match, lines).

mod facts;
pub use facts::detail_lines;

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// Stable error codes. The serialized form (`NOT_FOUND`, ...) is a public
/// contract: agents match on it. Never rename a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    NotFound,
    Ambiguous,
    NoMatch,
    MultipleMatches,
    AnchorFailed,
    FuzzyUnsafe,
    Conflict,
    SyntaxError,
    StaleFile,
    UnsupportedLanguage,
    Encoding,
    BinaryFile,
    TooLarge,
    OutsideRoot,
    IgnoredPath,
    InvalidRange,
    InvalidArgument,
    Io,
    /// A parse ran past its time budget (or its request was cancelled).
    Timeout,
    /// A cross-file change would touch or leave sites its backend cannot
    /// decide (a member of a value of unknown type, ...): each is listed.
    Uncertain,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::NotFound,
        ErrorCode::Ambiguous,
        ErrorCode::NoMatch,
        ErrorCode::MultipleMatches,
        ErrorCode::AnchorFailed,
        ErrorCode::FuzzyUnsafe,
        ErrorCode::Conflict,
        ErrorCode::SyntaxError,
        ErrorCode::StaleFile,
        ErrorCode::UnsupportedLanguage,
        ErrorCode::Encoding,
        ErrorCode::BinaryFile,
        ErrorCode::TooLarge,
        ErrorCode::OutsideRoot,
        ErrorCode::IgnoredPath,
        ErrorCode::InvalidRange,
        ErrorCode::InvalidArgument,
        ErrorCode::Io,
        ErrorCode::Timeout,
        ErrorCode::Uncertain,
    ];

    /// The wire name, e.g. `NOT_FOUND`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Ambiguous => "AMBIGUOUS",
            ErrorCode::NoMatch => "NO_MATCH",
            ErrorCode::MultipleMatches => "MULTIPLE_MATCHES",
            ErrorCode::AnchorFailed => "ANCHOR_FAILED",
            ErrorCode::FuzzyUnsafe => "FUZZY_UNSAFE",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::SyntaxError => "SYNTAX_ERROR",
            ErrorCode::StaleFile => "STALE_FILE",
            ErrorCode::UnsupportedLanguage => "UNSUPPORTED_LANGUAGE",
            ErrorCode::Encoding => "ENCODING",
            ErrorCode::BinaryFile => "BINARY_FILE",
            ErrorCode::TooLarge => "TOO_LARGE",
            ErrorCode::OutsideRoot => "OUTSIDE_ROOT",
            ErrorCode::IgnoredPath => "IGNORED_PATH",
            ErrorCode::InvalidRange => "INVALID_RANGE",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::Io => "IO",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Uncertain => "UNCERTAIN",
        }
    }

    /// CLI exit status: 1 when the operation itself failed (nothing matched,
    /// ambiguity, a syntax error, a stale file), 2 for usage and I/O problems
    /// (bad arguments, unreadable or unsupported input).
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorCode::NotFound
            | ErrorCode::Ambiguous
            | ErrorCode::NoMatch
            | ErrorCode::MultipleMatches
            | ErrorCode::AnchorFailed
            | ErrorCode::FuzzyUnsafe
            | ErrorCode::Conflict
            | ErrorCode::SyntaxError
            | ErrorCode::StaleFile
            | ErrorCode::Uncertain => 1,
            ErrorCode::UnsupportedLanguage
            | ErrorCode::Encoding
            | ErrorCode::BinaryFile
            | ErrorCode::TooLarge
            | ErrorCode::OutsideRoot
            | ErrorCode::IgnoredPath
            | ErrorCode::InvalidRange
            | ErrorCode::InvalidArgument
            | ErrorCode::Io
            | ErrorCode::Timeout => 2,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with everything an agent needs to recover from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Error {
    pub error_code: ErrorCode,
    /// One line: what went wrong.
    pub message: String,
    /// One line: what to do about it.
    pub suggestion: String,
    /// Structured context: candidates, nearest match, line numbers, ...
    /// Always a JSON object on the wire (`{}` when there is nothing to add).
    #[serde(serialize_with = "details_object")]
    pub details: Value,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error that does not yet say what to do about it. [`Error::new`] and
/// [`Error::invalid_argument`] give one; only [`Draft::with_suggestion`]
/// turns it into an [`Error`], so every failure the library returns carries
/// a suggestion (the compiler checks it).
#[must_use = "an error needs its suggestion: call with_suggestion"]
#[derive(Debug, Clone)]
pub struct Draft {
    code: ErrorCode,
    message: String,
    details: Value,
}

impl Draft {
    /// See [`Error::with_details`].
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = as_object(details);
        self
    }

    /// What the caller can do about it, in the vocabulary of
    /// [`crate::hint`]: the error is complete.
    pub fn with_suggestion(self, suggestion: impl Into<String>) -> Error {
        Error {
            error_code: self.code,
            message: self.message,
            suggestion: one_line(suggestion.into()),
            details: self.details,
        }
    }
}

impl Error {
    /// Start an error; [`Draft::with_suggestion`] completes it.
    // A builder's first step, not a constructor of `Self`, by design.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Draft {
        Draft {
            code,
            message: one_line(message.into()),
            details: Value::Object(Map::new()),
        }
    }

    /// Replace the suggestion (a caller that knows better than the callee).
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = one_line(suggestion.into());
        self
    }

    /// Set the details; anything but an object is wrapped (`null` → `{}`,
    /// another value → `{"info": value}`), so details are always an object.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = as_object(details);
        self
    }

    pub fn code(&self) -> ErrorCode {
        self.error_code
    }

    /// An I/O failure on `path` during `step` (e.g. "read", "rename").
    pub fn io(step: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        if is_swap(err) {
            // The door met a symlink where the sandbox had seen a folder or
            // file: something is renaming things under the root right now.
            return Error::new(
                ErrorCode::Conflict,
                format!(
                    "{step} refused for {}: it changed while in use (a folder or file on its way is now a symlink)",
                    path.display()
                ),
            )
            .with_suggestion("retry; if it repeats, find what is swapping folders under the root")
            .with_details(serde_json::json!({
                "path": path.display().to_string(),
                "step": step,
                "os_error": err.to_string(),
                "kind": "changed_while_in_use",
            }));
        }
        Error::new(
            ErrorCode::Io,
            format!("{step} failed for {}: {err}", path.display()),
        )
        .with_suggestion("check that the path exists and is accessible, then retry")
        .with_details(serde_json::json!({
            "path": path.display().to_string(),
            "step": step,
            "os_error": err.to_string(),
            "kind": format!("{:?}", err.kind()),
        }))
    }

    /// Name the file in the details, so the caller knows where it happened.
    pub fn with_path(mut self, display: &str) -> Self {
        match &mut self.details {
            Value::Object(map) => {
                map.insert("path".into(), Value::String(display.to_string()));
            }
            Value::Null => self.details = serde_json::json!({"path": display}),
            _ => {}
        }
        self
    }

    /// Name the file in the details unless they already name one.
    pub fn or_path(self, display: &str) -> Self {
        if self.details.get("path").is_some() {
            self
        } else {
            self.with_path(display)
        }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Draft {
        Error::new(ErrorCode::InvalidArgument, message)
    }

    /// The error as an interface shows it: the terms marked in its message
    /// and suggestion (see [`crate::hint`]) rendered by `words`. The facts
    /// in `details` stay as they are.
    pub fn rendered(&self, words: impl Fn(crate::hint::Term, Option<&str>) -> String) -> Error {
        Error {
            error_code: self.error_code,
            message: crate::hint::render(&self.message, &words),
            suggestion: crate::hint::render(&self.suggestion, &words),
            details: self.details.clone(),
        }
    }

    /// The JSON payload shared by MCP error results and `--json` CLI output.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// `details` as an object: `null` → `{}`, another non-object → `{"info": v}`.
fn as_object(details: Value) -> Value {
    match details {
        Value::Object(_) => details,
        Value::Null => Value::Object(Map::new()),
        other => serde_json::json!({ "info": other }),
    }
}

/// Serialize `details` as an object even if a caller stored something else
/// in the public field.
fn details_object<S: serde::Serializer>(details: &Value, s: S) -> Result<S::Ok, S::Error> {
    match details {
        Value::Object(_) => details.serialize(s),
        other => as_object(other.clone()).serialize(s),
    }
}

/// Messages and suggestions are one line, whatever a wrapped library error
/// looked like (regex errors draw carets over several lines); the full text
/// belongs in `details`.
fn one_line(s: String) -> String {
    if s.contains('\n') {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        s
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.error_code, self.message)
    }
}

impl std::error::Error for Error {}

/// Whether `err` is the disk door refusing a symlink on the way to a path
/// the sandbox resolved (`ELOOP`, from `RESOLVE_NO_SYMLINKS` or
/// `O_NOFOLLOW`): something swapped a folder or file for a symlink while it
/// was in use. [`Error::io`] reports it as `CONFLICT`.
pub fn is_swap(err: &std::io::Error) -> bool {
    err.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for code in ErrorCode::ALL {
            let v = serde_json::to_value(code).unwrap();
            assert_eq!(v.as_str().unwrap(), code.as_str());
        }
    }

    #[test]
    fn messages_are_one_line() {
        let e = Error::new(
            ErrorCode::InvalidArgument,
            "bad regex:\n    fn (\n       ^\nerror: unclosed group",
        )
        .with_suggestion("fix it\nplease");
        assert_eq!(e.message, "bad regex: fn ( ^ error: unclosed group");
        assert_eq!(e.suggestion, "fix it please");
    }

    #[test]
    fn details_are_always_an_object() {
        for code in ErrorCode::ALL {
            let v = Error::new(code, "m").with_suggestion("s").to_json();
            assert_eq!(v["details"], serde_json::json!({}), "{code}");
        }
        let e = Error::new(ErrorCode::Io, "m")
            .with_details(Value::Null)
            .with_suggestion("s");
        assert_eq!(e.to_json()["details"], serde_json::json!({}));
        let e = Error::new(ErrorCode::Io, "m")
            .with_details(serde_json::json!([1]))
            .with_suggestion("s");
        assert_eq!(e.to_json()["details"], serde_json::json!({"info": [1]}));
        let mut e = Error::new(ErrorCode::Io, "m").with_suggestion("s");
        e.details = Value::Null;
        assert_eq!(e.to_json()["details"], serde_json::json!({}));
        let e = Error::new(ErrorCode::NotFound, "m")
            .with_suggestion("s")
            .with_path("a.rs");
        assert_eq!(e.to_json()["details"], serde_json::json!({"path": "a.rs"}));
        assert_eq!(e.or_path("b.rs").details["path"], "a.rs");
        let e = Error::new(ErrorCode::InvalidRange, "m")
            .with_details(serde_json::json!({"total_lines": 3}))
            .with_suggestion("s")
            .or_path("b.rs");
        assert_eq!(
            e.details,
            serde_json::json!({"total_lines": 3, "path": "b.rs"})
        );
    }

    #[test]
    fn payload_shape() {
        let e = Error::new(ErrorCode::NotFound, "no symbol `x`")
            .with_suggestion("did you mean `y`?")
            .with_details(serde_json::json!({"candidates": ["y"]}));
        let v = e.to_json();
        assert_eq!(v["error_code"], "NOT_FOUND");
        assert_eq!(v["message"], "no symbol `x`");
        assert_eq!(v["suggestion"], "did you mean `y`?");
        assert_eq!(v["details"]["candidates"][0], "y");
    }
}
