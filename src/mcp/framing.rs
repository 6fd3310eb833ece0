//! The stdio transport: newline-delimited JSON-RPC between the client and
//! rmcp's service loop, framed by us so that every line gets an answer.
//!
//! rmcp's own stdio transport drops a line over 16 MiB and lines that are
//! not UTF-8 or not JSON without replying, so the client waits forever. Here a
//! reader task takes stdin line by line under a byte limit ([`line_limit`]):
//!
//! - a line that is not UTF-8 or not JSON is answered with `-32700` (parse
//!   error) and `"id": null`;
//! - JSON that is not a JSON-RPC message is answered with `-32600` (invalid
//!   request), or `-32602` (invalid params) for a request whose envelope is
//!   right, with the request's id when it can be read;
//! - a line over the limit is answered with `-32600` naming the limit (and the
//!   id, when it stands in the line's first [`HEAD_BYTES`]); the rest of the
//!   line is skipped without being buffered;
//! - a malformed notification (a `method` without an `id`) gets no reply, as
//!   JSON-RPC forbids replying to notifications;
//! - everything else goes to rmcp as a parsed message.
//!
//! Our replies and rmcp's frames share one writer behind one lock, and each
//! frame is written and flushed whole under it, so they never interleave.

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use std::fmt;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc};

/// JSON-RPC 2.0: invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: not a valid request object (also: a request line over the limit).
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0: a request whose envelope is valid but whose params are not.
pub const INVALID_PARAMS: i64 = -32602;

/// How much of an over-long line is kept to look for its id.
pub const HEAD_BYTES: usize = 4096;

/// The longest request line accepted: `2 × max_file_size + 1 MiB`.
///
/// A `write_file` carries the whole file as one JSON string. JSON escapes
/// `"` and `\` and the usual control characters (`\n`, `\t`, `\r`) with two
/// characters, and UTF-8 passes unescaped, so twice the file size holds any
/// text file at the size limit even if every byte needs escaping; 1 MiB
/// covers the envelope and the other arguments. Content made of the rarer
/// control characters (six characters each, `\u0001`) or of non-ASCII text
/// escaped as `\uXXXX` by the client can exceed it; such a request is
/// answered with an error naming the limit.
pub fn line_limit(max_file_size: u64) -> usize {
    let bytes = max_file_size.saturating_mul(2).saturating_add(1 << 20);
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

type SharedWriter<W> = Arc<Mutex<Option<W>>>;

/// A [`Transport`] for rmcp's server over any reader/writer pair (stdin and
/// stdout in `scalpel serve`, in-memory pipes in tests).
pub struct FramedTransport<W> {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    out: SharedWriter<W>,
    reader: tokio::task::JoinHandle<()>,
}

impl<W> FramedTransport<W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Start reading `read` (lines of at most `limit` bytes, without the
    /// line break) on a task of the current runtime.
    pub fn new<R>(read: R, write: W, limit: usize) -> FramedTransport<W>
    where
        R: AsyncRead + Unpin + Send + 'static,
    {
        let out = Arc::new(Mutex::new(Some(write)));
        // A small queue: the service takes each message as soon as it can,
        // and a slow service should stop the reader rather than let parsed
        // requests pile up.
        let (tx, incoming) = mpsc::channel(4);
        let reader = tokio::spawn(read_loop(read, limit, out.clone(), tx));
        FramedTransport {
            incoming,
            out,
            reader,
        }
    }
}

impl<W> Drop for FramedTransport<W> {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl<W> Transport<RoleServer> for FramedTransport<W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let frame = serde_json::to_vec(&item).map_err(std::io::Error::other);
        async move { write_frame(&out, frame?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        // `recv` is cancel-safe: the service polls this inside a `select!`.
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        let mut out = self.out.lock().await;
        if let Some(w) = out.as_mut() {
            w.flush().await?;
        }
        *out = None;
        Ok(())
    }
}

/// Write one frame and its line break, flushed, under the writer's lock.
async fn write_frame<W>(out: &SharedWriter<W>, mut frame: Vec<u8>) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    frame.push(b'\n');
    let mut out = out.lock().await;
    let Some(w) = out.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    w.write_all(&frame).await?;
    w.flush().await
}

/// One line read from the input.
enum Line {
    /// A whole line is in the buffer (line break removed).
    Complete,
    /// The line went over the limit; the buffer holds its first bytes.
    TooLong,
    /// End of input (a last line without a line break is dropped).
    Eof,
}

/// Read one line into `buf` (cleared first). A line longer than `limit`
/// keeps only its first [`HEAD_BYTES`] and the rest is consumed unbuffered.
async fn read_line<R>(
    read: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Line>
where
    R: AsyncRead + Unpin,
{
    buf.clear();
    let mut too_long = false;
    loop {
        let available = read.fill_buf().await?;
        if available.is_empty() {
            if !buf.is_empty() {
                tracing::debug!(bytes = buf.len(), "input ended inside a line; dropped");
            }
            return Ok(Line::Eof);
        }
        let newline = memchr::memchr(b'\n', available);
        let chunk = &available[..newline.unwrap_or(available.len())];
        let used = chunk.len() + usize::from(newline.is_some());
        if !too_long {
            if buf.len().saturating_add(chunk.len()) > limit {
                too_long = true;
                let keep = HEAD_BYTES.saturating_sub(buf.len()).min(chunk.len());
                buf.extend_from_slice(&chunk[..keep]);
                buf.truncate(HEAD_BYTES);
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        read.consume(used);
        if newline.is_some() {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

/// Read lines until the input ends: forward messages, answer bad lines.
async fn read_loop<R, W>(
    read: R,
    limit: usize,
    out: SharedWriter<W>,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut read = BufReader::with_capacity(1 << 16, read);
    let mut buf = Vec::new();
    loop {
        let reply = match read_line(&mut read, &mut buf, limit).await {
            Err(e) => {
                tracing::error!(error = %e, "reading the input failed");
                return;
            }
            Ok(Line::Eof) => return,
            Ok(Line::TooLong) => {
                let id = Envelope::scan(&buf).id;
                tracing::warn!(limit, "request line over the limit, discarded");
                Some(error_frame(
                    id,
                    INVALID_REQUEST,
                    format!(
                        "Request too large: the line is longer than the limit of {limit} bytes \
                         (2 × --max-file-size + 1 MiB) and was discarded"
                    ),
                    json!({"limit_bytes": limit}),
                ))
            }
            Ok(Line::Complete) => match classify(&buf) {
                Classified::Message(msg) => {
                    if tx.send(*msg).await.is_err() {
                        return;
                    }
                    None
                }
                Classified::Skip => None,
                Classified::Reply(frame) => Some(frame),
            },
        };
        if buf.capacity() > (1 << 20) {
            // Do not keep a huge buffer alive between requests.
            buf = Vec::new();
        }
        if let Some(frame) = reply {
            let bytes = serde_json::to_vec(&frame).unwrap_or_default();
            if let Err(e) = write_frame(&out, bytes).await {
                tracing::error!(error = %e, "writing an error reply failed");
                return;
            }
        }
    }
}

/// What to do with one complete line.
enum Classified {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to answer (an empty line, a malformed notification).
    Skip,
    Reply(Value),
}

fn classify(line: &[u8]) -> Classified {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Classified::Skip;
    }
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(at = e.valid_up_to(), "request line is not UTF-8");
            return Classified::Reply(error_frame(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "Parse error: the line is not valid UTF-8 (byte {})",
                    e.valid_up_to()
                ),
                json!({"byte": e.valid_up_to()}),
            ));
        }
    };
    let err = match serde_json::from_str::<RxJsonRpcMessage<RoleServer>>(text) {
        Ok(msg) => return Classified::Message(Box::new(msg)),
        Err(e) => e,
    };
    use serde_json::error::Category;
    if matches!(err.classify(), Category::Syntax | Category::Eof) {
        tracing::warn!(error = %err, "request line is not JSON");
        return Classified::Reply(error_frame(
            Value::Null,
            PARSE_ERROR,
            format!("Parse error: {err}"),
            json!({"line": err.line(), "column": err.column()}),
        ));
    }
    let env = Envelope::scan(line);
    if env.has_method && !env.has_id {
        tracing::warn!(error = %err, "malformed notification ignored");
        return Classified::Skip;
    }
    tracing::warn!(error = %err, "request line is not a valid JSON-RPC message");
    let (code, what) = if env.jsonrpc_2 && env.has_method && !env.id.is_null() {
        (INVALID_PARAMS, "Invalid params")
    } else {
        (INVALID_REQUEST, "Invalid request")
    };
    Classified::Reply(error_frame(
        env.id,
        code,
        format!("{what}: {err}"),
        json!({}),
    ))
}

fn error_frame(id: Value, code: i64, message: String, data: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message, "data": data},
    })
}

/// The top-level members of a JSON object that decide how to answer it,
/// read without building the (possibly huge) values of the others. Works on
/// a truncated object too: it keeps what it saw before the cut.
#[derive(Debug, Default, PartialEq)]
struct Envelope {
    /// The id when it is a string or a number (a valid JSON-RPC id), else null.
    id: Value,
    has_id: bool,
    has_method: bool,
    jsonrpc_2: bool,
}

impl Envelope {
    fn scan(bytes: &[u8]) -> Envelope {
        let mut env = Envelope {
            id: Value::Null,
            ..Envelope::default()
        };
        let mut de = serde_json::Deserializer::from_slice(bytes);
        // An error (a cut line, a value of the wrong type) ends the scan.
        let _ = serde::Deserializer::deserialize_map(&mut de, EnvelopeVisitor(&mut env));
        env
    }
}

struct EnvelopeVisitor<'a>(&'a mut Envelope);

impl<'de> Visitor<'de> for EnvelopeVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-RPC object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => {
                    self.0.has_id = true;
                    let id: Value = map.next_value()?;
                    if id.is_string() || id.is_number() {
                        self.0.id = id;
                    }
                }
                "method" => {
                    self.0.has_method = map.next_value::<Value>()?.is_string();
                }
                "jsonrpc" => {
                    self.0.jsonrpc_2 = map.next_value::<Value>()? == "2.0";
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn lines(out: &[u8]) -> Vec<Value> {
        out.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    /// Feed `input` to a transport with `limit`, collect the messages it
    /// forwards and the frames it writes by itself.
    async fn run(input: Vec<u8>, limit: usize) -> (Vec<RxJsonRpcMessage<RoleServer>>, Vec<Value>) {
        let (mut client_in, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_out) = tokio::io::duplex(1 << 16);
        let mut t = FramedTransport::new(server_in, server_out, limit);
        let feeder = tokio::spawn(async move {
            client_in.write_all(&input).await.unwrap();
            drop(client_in);
        });
        let mut got = Vec::new();
        while let Some(m) = t.receive().await {
            got.push(m);
        }
        feeder.await.unwrap();
        t.close().await.unwrap();
        drop(t);
        let mut out = Vec::new();
        client_out.read_to_end(&mut out).await.unwrap();
        (got, lines(&out))
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;

    #[tokio::test]
    async fn bad_lines_are_answered_and_good_ones_forwarded() {
        let bad: [&[u8]; 7] = [
            b"\xff\xfe not utf8",
            b"{not json",
            b"[1, 2]",
            br#"{"jsonrpc":"2.0","id":"a","method":5}"#,
            br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":5}"#,
            // A malformed notification: no reply allowed.
            br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":5}"#,
        ];
        let mut input = Vec::new();
        for line in bad {
            input.extend_from_slice(line);
            input.push(b'\n');
        }
        input.extend_from_slice(b"\n  \r\n");
        input.extend_from_slice(PING.as_bytes());
        input.extend_from_slice(b"\r\n");
        let (got, replies) = run(input, 1 << 20).await;
        assert_eq!(got.len(), 1, "only the ping reaches rmcp: {got:?}");
        let answer: Vec<(i64, Value)> = replies
            .iter()
            .map(|r| {
                assert_eq!(r["jsonrpc"], "2.0");
                (r["error"]["code"].as_i64().unwrap(), r["id"].clone())
            })
            .collect();
        assert_eq!(
            answer,
            [
                (PARSE_ERROR, Value::Null),
                (PARSE_ERROR, Value::Null),
                (INVALID_REQUEST, Value::Null),
                (INVALID_REQUEST, json!("a")),
                (INVALID_REQUEST, json!(3)),
                (INVALID_PARAMS, json!(4)),
            ]
        );
        assert!(
            replies.iter().all(|r| r.get("id").is_some()),
            "id: null is written out"
        );
        let msg = replies[0]["error"]["message"].as_str().unwrap();
        assert!(msg.contains("UTF-8"), "{msg}");
    }

    #[tokio::test]
    async fn an_over_long_line_is_answered_with_the_limit_and_skipped() {
        let limit = 10_000;
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"name":"write_file","arguments":{{"content":"{}"}}}}}}"#,
            "x".repeat(50_000)
        );
        let mut no_id = format!(
            r#"{{"params":{{"content":"{}"}},"id":43}}"#,
            "y".repeat(50_000)
        );
        no_id.push('\n');
        let input = format!("{big}\n{no_id}{PING}\n").into_bytes();
        let (got, replies) = run(input, limit).await;
        assert_eq!(got.len(), 1, "the request after it is served");
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["id"], 42);
        assert_eq!(replies[0]["error"]["code"], INVALID_REQUEST);
        let msg = replies[0]["error"]["message"].as_str().unwrap();
        assert!(msg.contains("10000 bytes"), "{msg}");
        assert_eq!(replies[0]["error"]["data"]["limit_bytes"], limit);
        assert!(replies[1]["id"].is_null(), "the id comes after the cut");
    }

    #[tokio::test]
    async fn a_line_at_the_limit_passes() {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"ping","params":{{"_meta":{{"p":"{}"}}}}}}"#,
            "z".repeat(100)
        );
        let (got, replies) = run(format!("{line}\n").into_bytes(), line.len()).await;
        assert_eq!((got.len(), replies.len()), (1, 0), "{replies:?}");
        let (got, replies) = run(format!("{line}\n").into_bytes(), line.len() - 1).await;
        assert_eq!((got.len(), replies.len()), (0, 1));
    }

    #[test]
    fn envelope_reads_only_top_level_members() {
        let e = Envelope::scan(br#"{"params":{"id":1,"method":"x"},"jsonrpc":"2.0","id":"k"}"#);
        assert_eq!(e.id, "k");
        assert!(e.jsonrpc_2 && e.has_id && !e.has_method);
        let e = Envelope::scan(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#);
        assert!(e.id.is_null() && e.has_id && e.has_method);
        let e = Envelope::scan(br#"{"jsonrpc":"2.0","params":{"content":"abc"#);
        assert_eq!(
            e,
            Envelope {
                id: Value::Null,
                has_id: false,
                has_method: false,
                jsonrpc_2: true
            }
        );
    }

    #[test]
    fn limit_is_twice_the_file_size_plus_one_mib() {
        assert_eq!(line_limit(32 << 20), (64 << 20) + (1 << 20));
        assert_eq!(line_limit(u64::MAX), usize::MAX);
    }
}
