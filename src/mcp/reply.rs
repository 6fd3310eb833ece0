//! How a tool's outcome becomes an MCP `CallToolResult`.
//!
//! - Success: [`Answer<T>`] puts `T` in `structuredContent` and a compact
//!   text rendering ([`Render`], in `crate::render`, shared with the CLI) in
//!   `content`, in place of rmcp's JSON-dump
//!   text, at a fraction of the tokens. It is not named `Json` on purpose:
//!   the `#[tool]` macro derives an `outputSchema` from `T` for a return type
//!   written `Json<T>`, which would make every result type below this adapter
//!   carry a schema (and its doc comments as schema text). Every tool's output
//!   schema is `{"type": "object"}` instead, set once where the router is
//!   built (`ScalpelServer::router`; why that is enough: `schema.rs`).
//! - Failure: [`ToolError`] becomes `isError: true` with `structuredContent`
//!   `{error_code, message, suggestion, details}` and one line of text.
//!   Never a JSON-RPC error: those are for malformed requests only.
//! - Panics and lost blocking tasks become `ToolError`s too ([`internal`]).

use crate::error::{Error, ErrorCode};
use crate::hint::Term;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::json;

pub use crate::render::Render;

/// A successful result: `structuredContent` plus `T::render()` as text.
pub struct Answer<T>(pub T);

impl<T: Serialize + Render> IntoCallToolResult for Answer<T> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, rmcp::ErrorData> {
        // The one rendering of the result (crate::render), every part in
        // order; hints name fields and tools through marked terms.
        let text = self.0.rendering().text(&mcp_words);
        match serde_json::to_value(&self.0) {
            Ok(mut value) => {
                if let Some(serde_json::Value::String(h)) = value.get_mut("hint") {
                    *h = crate::hint::render(h, mcp_words);
                }
                let mut result = CallToolResult::structured(value);
                result.content = vec![ContentBlock::text(text)];
                Ok(result.into())
            }
            // Our result types serialize infallibly; should one ever fail,
            // the caller still gets an error result, not a protocol error.
            Err(e) => ToolError(
                Error::new(ErrorCode::Io, format!("cannot serialize the result: {e}"))
                    .with_suggestion("this is a bug in Scalpel; please report it"),
            )
            .into_call_tool_result(),
        }
    }
}

/// A failed tool call, carried as an `isError: true` result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError(pub Error);

impl From<Error> for ToolError {
    fn from(e: Error) -> Self {
        ToolError(e)
    }
}

impl ToolError {
    /// The text shown next to the structured payload: one line with the
    /// code, message and hint, then the facts of `details` the next call
    /// needs ([`crate::error::detail_lines`]), one per line, because many
    /// clients show the model only this text.
    pub fn text(&self) -> String {
        let e = &self.0;
        let mut out = if e.suggestion.is_empty() {
            format!("{}: {}", e.error_code, e.message)
        } else {
            format!("{}: {} Hint: {}", e.error_code, e.message, e.suggestion)
        };
        for line in crate::error::detail_lines(&e.details, mcp_words) {
            out.push_str("\n  ");
            out.push_str(&line);
        }
        out
    }

    pub fn into_result(self) -> CallToolResult {
        let this = ToolError(self.0.rendered(mcp_words));
        let mut result = CallToolResult::structured_error(this.0.to_json());
        result.content = vec![ContentBlock::text(this.text())];
        result
    }
}

/// The MCP's words for the hint vocabulary ([`crate::hint`]): fields and
/// tools as the agent sends them, a value as the JSON it would pass.
pub fn mcp_words(term: Term, value: Option<&str>) -> String {
    let name = term.name();
    // A value as JSON: numbers and JSON stay, anything else is a string.
    let json = |v: &str| match serde_json::from_str::<serde_json::Value>(v) {
        Ok(j) if !j.is_string() => v.to_string(),
        _ => serde_json::Value::String(v.to_string()).to_string(),
    };
    let range = |v: &str| {
        let (a, b) = v.split_once('-').unwrap_or((v, v));
        format!("{{\"start\": {a}, \"end\": {b}}}")
    };
    match (term, value) {
        (Term::AllowSyntaxErrors | Term::Force | Term::WholeWord | Term::IncludeNameOnly, _) => {
            format!("`\"{name}\": true`")
        }
        (Term::AnchorBefore | Term::AnchorAfter, Some(v)) => {
            let field = name.trim_start_matches("anchor.");
            format!("`\"anchor\": {{\"{field}\": {}}}`", json(v))
        }
        (Term::AnchorLineRange, Some(v)) => {
            format!("`\"anchor\": {{\"line_range\": {}}}`", range(v))
        }
        (Term::Ranges, Some(v)) => format!(
            "`\"ranges\": [{}]`",
            v.split(',').map(range).collect::<Vec<_>>().join(", ")
        ),
        (Term::Lines, Some(v)) => {
            let (a, b) = v.split_once('-').unwrap_or((v, v));
            format!("`\"start_line\": {a}, \"end_line\": {b}`")
        }
        (Term::RecentEditIds, _) => "`details.recent_edit_ids`".into(),
        (Term::Root, _) => {
            "the server's root (`scalpel serve --root DIR`, or the client's roots)".into()
        }
        (Term::MaxFileSize, _) => "the server's `--max-file-size`".into(),
        (Term::ParseTimeout, _) => "the server's `--parse-timeout`".into(),
        (_, Some(v)) => format!("`\"{name}\": {}`", json(v)),
        (_, None) => format!("`{name}`"),
    }
}

impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, rmcp::ErrorData> {
        Ok(self.into_result().into())
    }
}

/// An error for a bug inside a tool (a panic, a lost worker): the call fails,
/// the server keeps serving. The code set is fixed, so it is reported as `IO`
/// with `details.internal: true` and the panic message.
pub fn internal(tool: &str, what: &str) -> ToolError {
    ToolError(
        Error::new(
            ErrorCode::Io,
            format!("internal error in {tool}: {what}; nothing was written by this call"),
        )
        .with_suggestion(
            "this is a bug in Scalpel; retry once, else use the text tools and report it",
        )
        .with_details(json!({"tool": tool, "internal": true, "cause": what})),
    )
}

/// The message of a caught panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("panic: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("panic: {s}")
    } else {
        "panic".to_string()
    }
}

/// Map a failed `spawn_blocking` join (the task panicked outside our
/// `catch_unwind`, or the runtime is shutting down) to a tool error.
pub fn from_join_error(tool: &str, e: tokio::task::JoinError) -> ToolError {
    if e.is_panic() {
        internal(tool, &panic_message(e.into_panic().as_ref()))
    } else {
        internal(
            tool,
            "the worker task was cancelled (server shutting down?)",
        )
    }
}

/// Run blocking library work on tokio's blocking pool, with panics caught
/// and turned into an error result for this call only.
pub async fn blocking<T, F>(tool: &'static str, f: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> crate::Result<T> + Send + 'static,
{
    let joined = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    })
    .await;
    match joined {
        Ok(Ok(result)) => result.map_err(ToolError),
        Ok(Err(payload)) => {
            let what = panic_message(payload.as_ref());
            tracing::error!(tool, %what, "tool panicked; the call fails, the server goes on");
            Err(internal(tool, &what))
        }
        Err(e) => Err(from_join_error(tool, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn panics_become_error_results() {
        let e = blocking::<(), _>("demo", || panic!("boom"))
            .await
            .unwrap_err();
        assert_eq!(e.0.code(), ErrorCode::Io);
        assert_eq!(e.0.details["internal"], true);
        assert_eq!(e.0.details["cause"], "panic: boom");

        let ok = blocking("demo", || Ok(41 + 1)).await.unwrap();
        assert_eq!(ok, 42);
        let err = blocking::<(), _>("demo", || {
            Err(Error::invalid_argument("bad").with_suggestion("s"))
        })
        .await
        .unwrap_err();
        assert_eq!(err.0.code(), ErrorCode::InvalidArgument);
    }

    #[tokio::test]
    async fn join_errors_become_error_results() {
        let join = tokio::task::spawn_blocking(|| -> () { panic!("lost {}", 7) })
            .await
            .unwrap_err();
        let e = from_join_error("demo", join);
        assert_eq!(e.0.details["cause"], "panic: lost 7");
        assert!(e.0.message.contains("internal error in demo"));

        let task = tokio::spawn(std::future::pending::<()>());
        task.abort();
        let e = from_join_error("demo", task.await.unwrap_err());
        assert!(e.0.message.contains("cancelled"));
    }

    #[test]
    fn error_result_shape() {
        let r = ToolError(
            Error::new(ErrorCode::NotFound, "no symbol `x` in a.py")
                .with_suggestion("did you mean `y`?"),
        )
        .into_result();
        assert_eq!(r.is_error, Some(true));
        let s = r.structured_content.unwrap();
        assert_eq!(s["error_code"], "NOT_FOUND");
        assert_eq!(s["suggestion"], "did you mean `y`?");
        assert!(s.get("details").is_some());
        let text = r.content[0].as_text().unwrap().text.clone();
        assert_eq!(
            text,
            "NOT_FOUND: no symbol `x` in a.py Hint: did you mean `y`?"
        );
    }

    #[test]
    fn hints_name_fields_as_json_arguments() {
        use crate::hint::{render, term, term_with};
        let words = |s: &str| render(s, mcp_words);
        assert_eq!(
            words(&term_with(Term::ExpectedMatches, 66)),
            "`\"expected_matches\": 66`"
        );
        assert_eq!(
            words(&term_with(Term::Ranges, "21-30,60-70")),
            "`\"ranges\": [{\"start\": 21, \"end\": 30}, {\"start\": 60, \"end\": 70}]`"
        );
        assert_eq!(
            words(&term_with(Term::Anchor, r#"{"before":"def a():"}"#)),
            "`\"anchor\": {\"before\":\"def a():\"}`"
        );
        assert_eq!(
            words(&term_with(Term::Kind, "method")),
            "`\"kind\": \"method\"`"
        );
        assert_eq!(words(&term(Term::ListDirectory)), "`list_directory`");
        let e = ToolError(
            Error::new(ErrorCode::SyntaxError, "bad")
                .with_suggestion(format!("pass {}", term(Term::AllowSyntaxErrors))),
        )
        .into_result();
        assert_eq!(
            e.structured_content.unwrap()["suggestion"],
            "pass `\"allow_syntax_errors\": true`"
        );
    }
}
