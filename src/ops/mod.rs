//! Operations: what a user asks of a workspace, planned, validated,
//! committed and answered here, for every front end (CLI, MCP over stdio,
//! and any later transport).
//!
//! - [`session`]: a [`Session`] — the workspace, the configuration, the
//!   parse cache and the cancel of one caller — on which both front ends run
//!   every operation;
//! - [`config`]: what every operation is configured with ([`Engine`]: the
//!   language registry, the size limit, the parse budget), and loading a
//!   file through it;
//! - planners: [`engine`] (symbols: outline, extract, update), [`textops`]
//!   (text: read, search, edit, write, tree) and [`rename`] (across files);
//!   each produces a [`change::Change`];
//! - [`change`]: a planned change, committed once — the one write path;
//! - [`receipt`]: what a write did, rendered once;
//! - [`cache`]: the parse cache.
//!
//! Below: `refs` (references, which a symbol delete and a rename ask for),
//! `edit` (symbol-edit planning and validation), `disk` (the door). Above:
//! `index`, `check` and the adapters.

pub mod cache;
pub mod change;
pub mod config;
pub mod engine;
pub mod lsp;
pub mod receipt;
pub mod rename;
pub mod search;
pub mod session;
pub mod textops;

pub use config::Engine;
pub use session::Session;
