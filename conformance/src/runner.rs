//! Running one test document: parse (and canonicalize) on a worker thread, so a
//! panic or a hang in the parser is reported as that test's failure instead of
//! taking the whole run down.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use vtdx_core::{Document, ParseOptions};

use crate::canon;

/// What happened when the document was parsed.
#[derive(Debug)]
pub struct Exec {
    /// `Err` holds the parser's error message.
    pub parse: Result<(), String>,
    /// Time spent in `Document::parse_with`.
    pub parse_time: Duration,
    /// The canonical form, when asked for and the parse succeeded.
    pub canonical: Option<Result<Vec<u8>, String>>,
}

#[derive(Debug)]
pub enum ExecOutcome {
    Done(Exec),
    /// The test document could not be read.
    Io(String),
    /// The parser (or the canonical writer) panicked; the panic message.
    Panicked(String),
    /// No answer within the hard limit.
    TimedOut(Duration),
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs a panic hook that records the message for [`execute`] instead of
/// printing it.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.to_string();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(msg));
    }));
}

/// Parses `path` with `namespaces` on or off; computes the canonical form too when
/// `want_canonical`. Gives up waiting after `hard_limit` (the worker thread is
/// then left behind).
pub fn execute(path: PathBuf, namespaces: bool, want_canonical: bool, hard_limit: Duration) -> ExecOutcome {
    let (tx, rx) = mpsc::channel();
    let spawned = thread::Builder::new().name("xmlconf-test".into()).stack_size(64 << 20).spawn(move || {
        let r = std::panic::catch_unwind(|| run(&path, namespaces, want_canonical));
        let outcome = match r {
            Ok(o) => o,
            Err(payload) => {
                let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
                let msg = recorded.unwrap_or_else(|| {
                    payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "non-string panic payload".to_string())
                });
                ExecOutcome::Panicked(msg.replace('\n', " "))
            }
        };
        let _ = tx.send(outcome);
    });
    let handle = match spawned {
        Ok(h) => h,
        Err(e) => return ExecOutcome::Io(format!("cannot start a worker thread: {e}")),
    };
    match rx.recv_timeout(hard_limit) {
        Ok(o) => {
            let _ = handle.join();
            o
        }
        Err(mpsc::RecvTimeoutError::Timeout) => ExecOutcome::TimedOut(hard_limit),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let _ = handle.join();
            ExecOutcome::Panicked("worker thread ended without an answer".to_string())
        }
    }
}

fn run(path: &std::path::Path, namespaces: bool, want_canonical: bool) -> ExecOutcome {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return ExecOutcome::Io(format!("cannot read {}: {e}", path.display())),
    };
    let opts = ParseOptions::new().namespaces(namespaces);
    let t0 = Instant::now();
    let parsed = Document::parse_with(&bytes, &opts);
    let parse_time = t0.elapsed();
    match parsed {
        Err(e) => ExecOutcome::Done(Exec { parse: Err(e.to_string()), parse_time, canonical: None }),
        Ok(doc) => {
            let canonical = want_canonical.then(|| canon::canonical(&doc, &opts));
            ExecOutcome::Done(Exec { parse: Ok(()), parse_time, canonical })
        }
    }
}
