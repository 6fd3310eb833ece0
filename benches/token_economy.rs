//! Token economy (`cargo bench --bench token_economy`): realistic agent
//! tasks on real code, done with Scalpel's MCP tools and the plain way
//! (whole-file `cat`, `grep`, `sed` and whole-file rewrites), counting the
//! tokens the agent sends (tool arguments, commands, written files) and
//! receives (the text content of each result, which is what most clients
//! show the model; command output) with a real tokenizer (o200k_base).
//!
//! The code: CPython's `http/client.py`, `textwrap.py` and `json/decoder.py`
//! from the local Python 3 standard library, and `strsim`'s `lib.rs` from
//! the cargo registry (a dependency of Scalpel), copied into a fresh root
//! per task. Every Scalpel call must succeed and every edit must land (the
//! bench checks the file afterwards); the plain commands are counted, and
//! the `grep`s and `cat`s are run for their real output.

mod session;

use serde_json::{Value, json};
use session::Session;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the plain approach does in one step.
enum Plain {
    /// `cat FILE`: the whole file comes back.
    Cat(&'static str),
    /// A `grep` run in the root (its output comes back).
    Grep(&'static [&'static str]),
    /// A command whose output is empty (`sed -i ...`).
    Quiet(String),
    /// The whole new file sent (`cat > FILE <<'EOF'`).
    Write(&'static str, String),
}

/// One Scalpel call: tool and arguments, built from what earlier calls
/// returned (`prev`: the structured result of each earlier call).
type Call = Box<dyn Fn(&[Value]) -> (&'static str, Value)>;

/// The plain steps of a task, given the root holding the original files.
type PlainSteps = Box<dyn Fn(&Path) -> Vec<Plain>>;

struct Task {
    name: &'static str,
    scalpel: Vec<Call>,
    plain: PlainSteps,
    /// Text the edited file must contain afterwards: (file, text).
    check: Option<(&'static str, &'static str)>,
}

fn call(f: impl Fn(&[Value]) -> (&'static str, Value) + 'static) -> Call {
    Box::new(f)
}

fn fixed(tool: &'static str, args: Value) -> Call {
    Box::new(move |_| (tool, args.clone()))
}

const HTTP: &str = "py/http_client.py";
const TEXTWRAP: &str = "py/textwrap.py";
const DECODER: &str = "py/json_decoder.py";
const STRSIM: &str = "rs/strsim.rs";

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

/// The code of the first structured result, as `extract_code` returned it.
fn code(prev: &[Value]) -> String {
    prev[0]["code"].as_str().unwrap().to_string()
}

/// `code` with `from` replaced by `to` (which must occur).
fn changed(code: &str, from: &str, to: &str) -> String {
    assert!(code.contains(from), "{from:?} not in {code}");
    code.replacen(from, to, 1)
}

/// Change one line of a symbol's body: with Scalpel, read the symbol and
/// send it back changed; the plain way, read the file and send it back
/// changed (`from` first occurs in that symbol).
fn change_body(
    name: &'static str,
    path: &'static str,
    symbol: &'static str,
    from: &'static str,
    to: &'static str,
) -> Task {
    Task {
        name,
        scalpel: vec![
            fixed("extract_code", json!({"path": path, "symbol": symbol})),
            call(move |prev| {
                let new = changed(&code(prev), from, to);
                (
                    "update_symbol",
                    json!({"path": path, "symbol": symbol, "new_code": new}),
                )
            }),
        ],
        plain: Box::new(move |root| {
            let new = changed(&read(root, path), from, to);
            vec![Plain::Cat(path), Plain::Write(path, new)]
        }),
        check: Some((path, to)),
    }
}

fn tasks() -> Vec<Task> {
    vec![
        Task {
            name: "find a function by name and read it",
            scalpel: vec![
                fixed(
                    "search_files",
                    json!({"keywords": ["_read_next_chunk_size"]}),
                ),
                fixed(
                    "extract_code",
                    json!({"path": HTTP, "symbol": "_read_next_chunk_size"}),
                ),
            ],
            plain: Box::new(|_| {
                vec![
                    Plain::Grep(&["-rn", "_read_next_chunk_size", "."]),
                    Plain::Cat(HTTP),
                ]
            }),
            check: None,
        },
        Task {
            name: "read one method",
            scalpel: vec![fixed(
                "extract_code",
                json!({"path": HTTP, "symbol": "HTTPResponse.read"}),
            )],
            plain: Box::new(|_| vec![Plain::Cat(HTTP)]),
            check: None,
        },
        Task {
            name: "outline a module",
            scalpel: vec![fixed("list_symbols", json!({"path": HTTP}))],
            plain: Box::new(|_| vec![Plain::Grep(&["-n", "-E", "^ *(class|def) ", HTTP])]),
            check: None,
        },
        Task {
            name: "list a class's members",
            scalpel: vec![fixed(
                "list_symbols",
                json!({"path": TEXTWRAP, "symbol": "TextWrapper"}),
            )],
            plain: Box::new(|_| vec![Plain::Grep(&["-n", "-E", "^ *(class|def) ", TEXTWRAP])]),
            check: None,
        },
        Task {
            name: "read a function with what it uses",
            scalpel: vec![fixed(
                "extract_code",
                json!({"path": HTTP, "symbol": "HTTPResponse._read_chunked", "include_context": true}),
            )],
            plain: Box::new(|_| vec![Plain::Cat(HTTP)]),
            check: None,
        },
        Task {
            name: "find a behaviour across the tree",
            scalpel: vec![fixed(
                "search_files",
                json!({"keywords": ["chunked"], "context_lines": 2}),
            )],
            plain: Box::new(|_| vec![Plain::Grep(&["-rn", "-i", "-C2", "chunked", "."])]),
            check: None,
        },
        Task {
            name: "read the lines around a keyword",
            scalpel: vec![fixed(
                "read_fragment",
                json!({"path": DECODER, "keywords": ["JSONDecodeError("]}),
            )],
            plain: Box::new(|_| {
                vec![Plain::Grep(&[
                    "-n",
                    "-C3",
                    "-F",
                    "JSONDecodeError(",
                    DECODER,
                ])]
            }),
            check: None,
        },
        change_body(
            "change a method's body",
            TEXTWRAP,
            "TextWrapper._munge_whitespace",
            "text = text.expandtabs(self.tabsize)",
            "text = text.expandtabs(self.tabsize or 8)",
        ),
        Task {
            name: "rename a local variable",
            scalpel: vec![
                fixed(
                    "extract_code",
                    json!({"path": TEXTWRAP, "symbol": "dedent"}),
                ),
                call(|prev| {
                    let n = code(prev).matches("margin").count();
                    let (a, b) = (&prev[0]["start_line"], &prev[0]["end_line"]);
                    (
                        "edit_file",
                        json!({"path": TEXTWRAP, "edits": [{"old_text": "margin", "new_text": "common", "whole_word": true, "expected_matches": n, "anchor": {"line_range": {"start": a, "end": b}}}]}),
                    )
                }),
            ],
            plain: Box::new(|_| {
                vec![
                    Plain::Cat(TEXTWRAP),
                    Plain::Quiet("sed -i '419,467s/\\bmargin\\b/common/g' py/textwrap.py".into()),
                ]
            }),
            check: Some((TEXTWRAP, "common = indent")),
        },
        Task {
            name: "add a method to a class",
            scalpel: vec![
                fixed(
                    "list_symbols",
                    json!({"path": DECODER, "symbol": "JSONDecoder"}),
                ),
                fixed(
                    "update_symbol",
                    json!({"path": DECODER, "symbol": "JSONDecoder.raw_decode", "operation": "insert_after",
                    "new_code": "def decode_bytes(self, b, encoding='utf-8'):\n    \"\"\"Decode UTF-8 bytes holding a JSON document.\"\"\"\n    return self.decode(b.decode(encoding))\n"}),
                ),
            ],
            plain: Box::new(|root| {
                let mut new = read(root, DECODER);
                new.push_str("\n    def decode_bytes(self, b, encoding='utf-8'):\n        \"\"\"Decode UTF-8 bytes holding a JSON document.\"\"\"\n        return self.decode(b.decode(encoding))\n");
                vec![Plain::Cat(DECODER), Plain::Write(DECODER, new)]
            }),
            check: Some((DECODER, "def decode_bytes(self, b, encoding='utf-8'):")),
        },
        Task {
            name: "delete a function",
            scalpel: vec![fixed(
                "update_symbol",
                json!({"path": TEXTWRAP, "symbol": "shorten", "operation": "delete"}),
            )],
            plain: Box::new(|_| {
                vec![
                    Plain::Cat(TEXTWRAP),
                    Plain::Quiet("sed -i '398,417d' py/textwrap.py".into()),
                ]
            }),
            check: None,
        },
        Task {
            name: "rename a method and its callers",
            scalpel: vec![
                fixed(
                    "search_files",
                    json!({"keywords": ["_get_chunk_left"], "whole_word": true}),
                ),
                call(|prev| {
                    let n = prev[0]["total_matches"].clone();
                    (
                        "edit_file",
                        json!({"path": HTTP, "edits": [{"old_text": "_get_chunk_left", "new_text": "_chunk_left", "whole_word": true, "expected_matches": n}]}),
                    )
                }),
            ],
            plain: Box::new(|_| {
                vec![
                    Plain::Grep(&["-rnw", "_get_chunk_left", "."]),
                    Plain::Quiet(
                        "sed -i 's/\\b_get_chunk_left\\b/_chunk_left/g' py/http_client.py".into(),
                    ),
                ]
            }),
            check: Some((HTTP, "def _chunk_left(self):")),
        },
        Task {
            name: "add a parameter and update its callers",
            scalpel: vec![
                fixed(
                    "extract_code",
                    json!({"path": HTTP, "symbol": "_read_next_chunk_size"}),
                ),
                fixed(
                    "search_files",
                    json!({"keywords": ["_read_next_chunk_size("]}),
                ),
                call(|prev| {
                    let new = changed(
                        &code(prev),
                        "def _read_next_chunk_size(self):",
                        "def _read_next_chunk_size(self, limit=_MAXLINE):",
                    );
                    let new = changed(
                        &new,
                        "self.fp.readline(_MAXLINE + 1)",
                        "self.fp.readline(limit + 1)",
                    );
                    (
                        "update_symbol",
                        json!({"path": HTTP, "symbol": "_read_next_chunk_size", "new_code": new}),
                    )
                }),
                fixed(
                    "edit_file",
                    json!({"path": HTTP, "edits": [{"old_text": "chunk_left = self._read_next_chunk_size()", "new_text": "chunk_left = self._read_next_chunk_size(_MAXLINE)"}]}),
                ),
            ],
            plain: Box::new(|root| {
                let new = changed(
                    &read(root, HTTP),
                    "def _read_next_chunk_size(self):",
                    "def _read_next_chunk_size(self, limit=_MAXLINE):",
                );
                let new = changed(
                    &new,
                    "line = self.fp.readline(_MAXLINE + 1)\n        if len(line) > _MAXLINE:\n            raise LineTooLong(\"chunk size\")",
                    "line = self.fp.readline(limit + 1)\n        if len(line) > _MAXLINE:\n            raise LineTooLong(\"chunk size\")",
                );
                let new = changed(
                    &new,
                    "chunk_left = self._read_next_chunk_size()",
                    "chunk_left = self._read_next_chunk_size(_MAXLINE)",
                );
                vec![
                    Plain::Grep(&["-rn", "_read_next_chunk_size(", "."]),
                    Plain::Cat(HTTP),
                    Plain::Write(HTTP, new),
                ]
            }),
            check: Some((HTTP, "self._read_next_chunk_size(_MAXLINE)")),
        },
        Task {
            name: "fix a word in a docstring",
            scalpel: vec![fixed(
                "edit_file",
                json!({"path": TEXTWRAP, "edits": [{"old_text": "Remove any common leading whitespace", "new_text": "Remove the common leading whitespace"}]}),
            )],
            plain: Box::new(|_| {
                vec![Plain::Quiet("sed -i 's/Remove any common leading/Remove the common leading/' py/textwrap.py".into())]
            }),
            check: Some((TEXTWRAP, "Remove the common leading whitespace")),
        },
        Task {
            name: "Rust: read a function",
            scalpel: vec![fixed(
                "extract_code",
                json!({"path": STRSIM, "symbol": "jaro_winkler"}),
            )],
            plain: Box::new(|_| vec![Plain::Cat(STRSIM)]),
            check: None,
        },
        change_body(
            "Rust: change a function's body",
            STRSIM,
            "normalized_levenshtein",
            "if a.is_empty() && b.is_empty() {",
            "if a.is_empty() && b.is_empty() {\n        // Two empty strings are the same string.",
        ),
    ]
}

/// The sources, copied from where any machine that builds Scalpel has them.
fn sources() -> Vec<(&'static str, PathBuf)> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3");
    let stdlib = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let home = PathBuf::from(
        std::env::var("CARGO_HOME")
            .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap())),
    );
    let strsim = std::fs::read_dir(home.join("registry/src"))
        .unwrap()
        .flatten()
        .flat_map(|index| std::fs::read_dir(index.path()).unwrap().flatten())
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("strsim-0.11"))
        })
        .expect("strsim 0.11 in the cargo registry");
    vec![
        (HTTP, stdlib.join("http/client.py")),
        (TEXTWRAP, stdlib.join("textwrap.py")),
        (DECODER, stdlib.join("json/decoder.py")),
        (STRSIM, strsim.join("src/lib.rs")),
    ]
}

struct Count {
    steps: usize,
    sent: usize,
    received: usize,
}

fn main() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = |s: &str| bpe.encode_with_special_tokens(s).len();
    let sources = sources();
    let mut rows = Vec::new();
    let (mut all_s, mut all_p) = (
        Count {
            steps: 0,
            sent: 0,
            received: 0,
        },
        Count {
            steps: 0,
            sent: 0,
            received: 0,
        },
    );
    for task in tasks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (rel, from) in &sources {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::copy(from, root.join(rel)).unwrap();
        }
        // The plain way, on the original files.
        let mut plain = Count {
            steps: 0,
            sent: 0,
            received: 0,
        };
        for step in (task.plain)(root) {
            plain.steps += 1;
            let (sent, received) = match step {
                Plain::Cat(f) => (format!("cat {f}"), read(root, f)),
                Plain::Grep(args) => {
                    let out = Command::new("grep")
                        .args(args)
                        .current_dir(root)
                        .output()
                        .unwrap();
                    (
                        format!("grep {}", args.join(" ")),
                        String::from_utf8_lossy(&out.stdout).into_owned(),
                    )
                }
                Plain::Quiet(cmd) => (cmd, String::new()),
                Plain::Write(f, content) => {
                    (format!("cat > {f} <<'EOF'\n{content}EOF"), String::new())
                }
            };
            plain.sent += tokens(&sent);
            plain.received += tokens(&received);
        }
        // With Scalpel, over MCP.
        let mut s = Session::start(root);
        s.initialize();
        let mut scalpel = Count {
            steps: 0,
            sent: 0,
            received: 0,
        };
        let mut prev: Vec<Value> = Vec::new();
        for step in &task.scalpel {
            let (tool, args) = step(&prev);
            let request = json!({"name": tool, "arguments": args});
            let result = s.call(tool, args);
            let text: String = result["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|c| c["text"].as_str())
                .collect();
            assert_ne!(result["isError"], true, "{}: {tool}: {text}", task.name);
            scalpel.steps += 1;
            scalpel.sent += tokens(&request.to_string());
            scalpel.received += tokens(&text);
            prev.push(result["structuredContent"].clone());
        }
        s.close();
        if let Some((file, text)) = task.check {
            assert!(
                read(root, file).contains(text),
                "{}: {file} lacks {text:?}",
                task.name
            );
        }
        rows.push(format!(
            "| {} | {} | {} / {} | **{}** | {} | {} / {} | **{}** | {:.1}× |",
            task.name,
            scalpel.steps,
            scalpel.sent,
            scalpel.received,
            scalpel.sent + scalpel.received,
            plain.steps,
            plain.sent,
            plain.received,
            plain.sent + plain.received,
            (plain.sent + plain.received) as f64 / (scalpel.sent + scalpel.received) as f64
        ));
        for (all, c) in [(&mut all_s, &scalpel), (&mut all_p, &plain)] {
            all.steps += c.steps;
            all.sent += c.sent;
            all.received += c.received;
        }
    }
    let sizes: Vec<String> = sources
        .iter()
        .map(|(rel, from)| {
            let text = std::fs::read_to_string(from).unwrap();
            format!(
                "{rel} {} lines, {} tokens",
                text.lines().count(),
                tokens(&text)
            )
        })
        .collect();
    println!("files: {}", sizes.join("; "));
    println!(
        "| task | Scalpel calls | sent / received | total | plain steps | sent / received | total | plain ÷ Scalpel |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in rows {
        println!("{r}");
    }
    println!(
        "| **all {} tasks** | {} | {} / {} | **{}** | {} | {} / {} | **{}** | {:.1}× |",
        tasks().len(),
        all_s.steps,
        all_s.sent,
        all_s.received,
        all_s.sent + all_s.received,
        all_p.steps,
        all_p.sent,
        all_p.received,
        all_p.sent + all_p.received,
        (all_p.sent + all_p.received) as f64 / (all_s.sent + all_s.received) as f64
    );
}
