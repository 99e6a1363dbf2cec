//! Running one test document: parse (and canonicalize) on a worker thread, so a
//! panic or a hang in the parser is reported as that test's failure instead of
//! taking the whole run down.
//!
//! The worker is long-lived: every test runs on the same thread, one after the
//! other, so documents are parsed the way the benchmarks and the Python package
//! parse them — with default options through `Document::parse`, the per-thread
//! parser whose name tables and scratch state carry over from one document to
//! the next. Tests that need other options (namespaces off, external identifiers
//! read with `ExternalPolicy::Ignore`) use a `Parser` kept on the worker for each
//! option set, reused the same way (`parse` without `recycle`, as the per-thread
//! parser does). A panic is caught on the worker, which goes on with the next
//! test; a test that hangs is abandoned with its worker, and a new worker takes
//! the remaining tests.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use vtdx_core::{Document, ErrorKind, ExternalPolicy, ParseOptions, Parser};

use crate::canon;

/// What happened when the document was parsed.
#[derive(Debug)]
pub struct Exec {
    /// `Err` holds the parser's error message.
    pub parse: Result<(), String>,
    /// Time spent parsing (both parses when the default policy refused the document first).
    pub parse_time: Duration,
    /// The canonical form, when asked for and the parse succeeded.
    pub canonical: Option<Result<Vec<u8>, String>>,
    /// The default policy (`ExternalPolicy::Forbid`) refused the document with
    /// `ErrorKind::ExternalReference`, and `parse` is the answer of a second parse
    /// with `ExternalPolicy::Ignore` (see [`Job::retry_external`]).
    pub refused_external: Option<String>,
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

/// One test document to run.
#[derive(Debug, Clone)]
pub struct Job {
    pub path: PathBuf,
    pub namespaces: bool,
    /// `ExternalPolicy::Forbid` (the default) or `ExternalPolicy::Ignore`.
    pub external: ExternalPolicy,
    /// With the default policy: when the document is refused for an external
    /// identifier, parse it again with `ExternalPolicy::Ignore` and report both.
    pub retry_external: bool,
    pub want_canonical: bool,
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The worker's parsers for option sets other than the default, reused across tests.
    static PARSERS: RefCell<Vec<(ParseOptions, Parser)>> = const { RefCell::new(Vec::new()) };
}

/// Installs a panic hook that records the message for [`Runner::execute`] instead of
/// printing it.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.to_string();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(msg));
    }));
}

type Request = (Job, mpsc::Sender<ExecOutcome>);

/// The worker thread and the channel to it.
pub struct Runner {
    jobs: Option<mpsc::Sender<Request>>,
    /// Workers started (1 unless a test hung).
    pub workers: usize,
}

impl Runner {
    pub fn new() -> Runner {
        Runner { jobs: None, workers: 0 }
    }

    fn worker(&mut self) -> Result<&mpsc::Sender<Request>, String> {
        if self.jobs.is_none() {
            let (tx, rx) = mpsc::channel::<Request>();
            thread::Builder::new()
                .name("xmlconf-worker".into())
                .stack_size(64 << 20)
                .spawn(move || {
                    for (job, answer) in rx {
                        let _ = answer.send(run_caught(&job));
                    }
                })
                .map_err(|e| format!("cannot start a worker thread: {e}"))?;
            self.jobs = Some(tx);
            self.workers += 1;
        }
        Ok(self.jobs.as_ref().expect("just set"))
    }

    /// Runs `job` on the worker. Gives up waiting after `hard_limit`; the worker is then
    /// left behind and the next job starts a new one.
    pub fn execute(&mut self, job: Job, hard_limit: Duration) -> ExecOutcome {
        let (tx, rx) = mpsc::channel();
        let sent = match self.worker() {
            Ok(w) => w.send((job, tx)).is_ok(),
            Err(e) => return ExecOutcome::Io(e),
        };
        if !sent {
            self.jobs = None;
            return ExecOutcome::Panicked("worker thread ended without an answer".to_string());
        }
        match rx.recv_timeout(hard_limit) {
            Ok(o) => o,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.jobs = None; // abandoned: busy with this document
                ExecOutcome::TimedOut(hard_limit)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.jobs = None;
                ExecOutcome::Panicked("worker thread ended without an answer".to_string())
            }
        }
    }
}

fn run_caught(job: &Job) -> ExecOutcome {
    match std::panic::catch_unwind(|| run(job)) {
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
            // a parser that panicked may hold half-updated state: start the next test afresh
            PARSERS.with(|p| p.borrow_mut().clear());
            ExecOutcome::Panicked(msg.replace('\n', " "))
        }
    }
}

/// Parses with the per-thread parser (default options) or the worker's parser for `opts`.
fn parse<'a>(bytes: &'a [u8], opts: &ParseOptions) -> Result<Document<'a>, vtdx_core::Error> {
    if *opts == ParseOptions::default() {
        return Document::parse(bytes);
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let i = match parsers.iter().position(|(o, _)| o == opts) {
            Some(i) => i,
            None => {
                parsers.push((opts.clone(), Parser::with_options(opts.clone())));
                parsers.len() - 1
            }
        };
        parsers[i].1.parse(bytes)
    })
}

fn run(job: &Job) -> ExecOutcome {
    let bytes = match std::fs::read(&job.path) {
        Ok(b) => b,
        Err(e) => return ExecOutcome::Io(format!("cannot read {}: {e}", job.path.display())),
    };
    let mut opts = ParseOptions::new().namespaces(job.namespaces).external(job.external);
    let t0 = Instant::now();
    let mut parsed = parse(&bytes, &opts);
    let mut refused_external = None;
    if job.retry_external {
        if let Err(e) = &parsed {
            if matches!(e.kind(), ErrorKind::ExternalReference { .. }) {
                refused_external = Some(e.to_string());
                opts = opts.external(ExternalPolicy::Ignore);
                parsed = parse(&bytes, &opts);
            }
        }
    }
    let parse_time = t0.elapsed();
    match parsed {
        Err(e) => ExecOutcome::Done(Exec { parse: Err(e.to_string()), parse_time, canonical: None, refused_external }),
        Ok(doc) => {
            let canonical = job.want_canonical.then(|| canon::canonical(&doc, &opts));
            ExecOutcome::Done(Exec { parse: Ok(()), parse_time, canonical, refused_external })
        }
    }
}

/// The job for a test document.
pub fn job(path: &Path, namespaces: bool, entities: &str, want_canonical: bool) -> Job {
    // ENTITIES names the external entities the test needs ("parameter", "general",
    // "both"): they are read with ExternalPolicy::Ignore (never fetched). "none": the
    // default policy, and a second parse with Ignore when it refuses an external
    // identifier that ENTITIES does not mention (an unparsed entity, an external
    // entity declared but not referenced; README).
    let needs_external = entities != "none";
    Job {
        path: path.to_path_buf(),
        namespaces,
        external: if needs_external { ExternalPolicy::Ignore } else { ExternalPolicy::default() },
        retry_external: !needs_external,
        want_canonical,
    }
}
