//! Stdout for the CLI. A closed pipe (`scalpel symbols . | head`) ends the
//! process quietly with success instead of panicking, as ripgrep does.

use std::io::{self, Write};

pub struct Out {
    inner: io::BufWriter<io::Stdout>,
}

impl Out {
    pub fn stdout() -> Out {
        Out {
            inner: io::BufWriter::new(io::stdout()),
        }
    }

    pub fn raw(&mut self, s: &str) {
        if let Err(e) = self.inner.write_all(s.as_bytes()) {
            Self::fail(e);
        }
    }

    pub fn line(&mut self, s: &str) {
        self.raw(s);
        self.raw("\n");
    }

    /// Write out what is buffered (before printing to stderr).
    pub fn flush(&mut self) {
        if let Err(e) = self.inner.flush() {
            Self::fail(e);
        }
    }

    fn fail(e: io::Error) -> ! {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error[IO]: cannot write to stdout: {e}");
        std::process::exit(2);
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        if let Err(e) = self.inner.flush() {
            Self::fail(e);
        }
    }
}
