//! `vtdx`: check, inspect and format XML from the command line.
//!
//! Conventions follow `xmllint`: `-` reads standard input, diagnostics go to
//! standard error as `FILE:LINE:COL: message`, and the exit status is 0 when
//! every input is well-formed, 1 when one is not, 2 on a usage or I/O problem.

#![forbid(unsafe_code)]

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser as ClapParser, Subcommand, ValueEnum};
use vtdx::{Document, ExternalEntityPolicy, NodeKind, ParseOptions, Parser};

mod c14n;
mod edit;
mod query;

#[derive(ClapParser)]
#[command(name = "vtdx", version, about = "A fast, strict XML toolkit: check, inspect and format XML")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check that each FILE is well-formed XML (namespace-aware). Exit 0 if all are, 1 otherwise.
    Check {
        /// Files to check; `-` reads standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print nothing; only the exit status tells.
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        opts: ParseFlags,
    },
    /// Print statistics about a document and how fast it parses.
    Stats {
        /// The file; `-` reads standard input.
        file: PathBuf,
        /// Parse this many times and report the median time.
        #[arg(long, default_value_t = 5)]
        repeat: u32,
        #[command(flatten)]
        opts: ParseFlags,
    },
    /// Pretty-print (re-indent) a document to standard output.
    Fmt {
        /// The file; `-` reads standard input.
        file: PathBuf,
        /// Spaces per indentation level.
        #[arg(long, default_value_t = 2)]
        indent: usize,
        #[command(flatten)]
        opts: ParseFlags,
    },
    /// Evaluate an XPath 1.0 expression: `vtdx query [--ns P=URI]... [--var N=V]... FILE... EXPR`.
    /// Exit 0 on success, 1 if a document is not well-formed, 2 on an XPath error.
    Query(query::QueryArgs),
    /// Edit a document without reserializing it (xmlstarlet ed style):
    /// -d XPATH | -u XPATH -v VALUE | -i/-a/-s XPATH -t elem|attr|text -n NAME [-v VALUE]
    /// | -r XPATH -v NEWNAME | -m XPATH TARGET; -N PREFIX=URI; -L in place; -o OUT; then FILE.
    Edit(edit::EditArgs),
    /// Write the canonical XML of a document or subtree: `vtdx c14n [--exclusive] [--c14n11] [--with-comments]
    /// [--inclusive-prefixes "p1 p2"] [--subtree XPATH] [--exclude XPATH] FILE`.
    /// Exit 0 on success, 1 if the document is not well-formed, 2 on a bad XPath.
    C14n(c14n::C14nArgs),
    /// Developer tools.
    Debug {
        #[command(subcommand)]
        what: DebugCmd,
    },
}

#[derive(Subcommand)]
enum DebugCmd {
    /// Dump the token index, one record per line, as in docs/index-format.md.
    Index {
        /// The file; `-` reads standard input.
        file: PathBuf,
    },
}

#[derive(Args, Clone)]
struct ParseFlags {
    /// Maximum element nesting depth.
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,
    /// Maximum total bytes produced by entity expansion.
    #[arg(long, value_name = "BYTES")]
    max_entity_expansion: Option<u64>,
    /// Maximum document size in bytes.
    #[arg(long, value_name = "BYTES")]
    max_size: Option<u64>,
    /// Treat colons as ordinary name characters (no namespace processing).
    #[arg(long)]
    no_namespaces: bool,
    /// What to do with references to external entities (never fetched).
    #[arg(long, value_enum, default_value_t = ExtPolicy::Skip)]
    external_entities: ExtPolicy,
}

#[derive(ValueEnum, Clone, Copy)]
enum ExtPolicy {
    /// Leave them unexpanded.
    Skip,
    /// Report an error.
    Error,
}

impl ParseFlags {
    fn options(&self) -> ParseOptions {
        let mut o = ParseOptions::new().namespaces(!self.no_namespaces);
        if let Some(n) = self.max_depth {
            o = o.max_depth(n);
        }
        if let Some(n) = self.max_entity_expansion {
            o = o.max_entity_expansion_bytes(n);
        }
        if let Some(n) = self.max_size {
            o = o.max_document_size(n);
        }
        o.external_entities(match self.external_entities {
            ExtPolicy::Skip => ExternalEntityPolicy::Skip,
            ExtPolicy::Error => ExternalEntityPolicy::Error,
        })
    }
}

fn read_input(path: &PathBuf) -> io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        io::stdin().lock().read_to_end(&mut v)?;
        Ok(v)
    } else {
        std::fs::read(path)
    }
}

fn display(path: &PathBuf) -> String {
    if path.as_os_str() == "-" {
        "-".to_string()
    } else {
        path.display().to_string()
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(io::stderr(), "vtdx: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> io::Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match cli.cmd {
        Cmd::Check { files, quiet, opts } => {
            let mut parser = Parser::with_options(opts.options());
            let mut all_ok = true;
            let mut io_failed = false;
            for f in &files {
                let bytes = match read_input(f) {
                    Ok(b) => b,
                    Err(e) => {
                        if !quiet {
                            eprintln!("{}: cannot read: {e}", display(f));
                        }
                        io_failed = true;
                        continue;
                    }
                };
                match parser.parse(&bytes) {
                    Ok(doc) => parser.recycle(doc),
                    Err(e) => {
                        all_ok = false;
                        if !quiet {
                            eprintln!("{}:{}:{}: {} (byte {})", display(f), e.line(), e.column(), e.kind(), e.offset());
                        }
                    }
                }
            }
            out.flush()?;
            Ok(if io_failed {
                ExitCode::from(2)
            } else if all_ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Stats { file, repeat, opts } => {
            let bytes = read_input(&file)?;
            let mut parser = Parser::with_options(opts.options());
            let mut times = Vec::new();
            for _ in 0..repeat.max(1) {
                let t0 = Instant::now();
                let r = parser.parse(&bytes);
                let dt = t0.elapsed();
                match r {
                    Ok(doc) => {
                        times.push(dt);
                        parser.recycle(doc);
                    }
                    Err(e) => {
                        eprintln!("{}:{}:{}: {}", display(&file), e.line(), e.column(), e.kind());
                        return Ok(ExitCode::from(1));
                    }
                }
            }
            times.sort();
            let med = times[times.len() / 2];
            let doc = parser.parse(&bytes).map_err(io::Error::other)?;
            let (elements, attrs, others) = doc.record_counts();
            let texts = doc.root().descendants().filter(|n| n.kind() == NodeKind::Text).count();
            let secs = med.as_secs_f64();
            writeln!(out, "file:            {}", display(&file))?;
            writeln!(out, "bytes:           {}", bytes.len())?;
            writeln!(out, "encoding:        {:?}", doc.encoding())?;
            writeln!(out, "elements:        {elements}")?;
            writeln!(out, "attributes:      {attrs} (namespace declarations included)")?;
            writeln!(out, "text nodes:      {texts}")?;
            writeln!(out, "other nodes:     {others} (comments, PIs, CDATA)")?;
            writeln!(out, "tokens:          {}", elements + attrs + others + texts)?;
            writeln!(out, "max depth:       {}", doc.max_depth())?;
            writeln!(out, "index bytes:     {} ({:.3} per input byte)", doc.index_bytes(), doc.index_bytes() as f64 / bytes.len().max(1) as f64)?;
            writeln!(out, "parse time:      {:.3} ms (median of {})", secs * 1e3, times.len())?;
            writeln!(out, "throughput:      {:.1} MB/s", bytes.len() as f64 / secs / 1e6)?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Fmt { file, indent, opts } => {
            let bytes = read_input(&file)?;
            match Document::parse_with(&bytes, &opts.options()) {
                Ok(doc) => {
                    doc.write_pretty(&mut out, indent)?;
                    out.flush()?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("{}:{}:{}: {} (byte {})", display(&file), e.line(), e.column(), e.kind(), e.offset());
                    Ok(ExitCode::from(1))
                }
            }
        }
        Cmd::Query(q) => query::run(q, &mut out),
        Cmd::Edit(a) => edit::run(a, &mut out),
        Cmd::C14n(a) => c14n::run(a, &mut out),
        Cmd::Debug { what: DebugCmd::Index { file } } => {
            let bytes = read_input(&file)?;
            let doc = match Document::parse(&bytes) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{}:{}:{}: {}", display(&file), e.line(), e.column(), e.kind());
                    return Ok(ExitCode::from(1));
                }
            };
            vtdx::core::debug::dump_index(&doc, &mut out)?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
