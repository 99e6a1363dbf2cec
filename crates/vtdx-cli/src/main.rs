//! `vtdx`: check, inspect and format XML from the command line.
//!
//! Conventions follow `xmllint`: `-` reads standard input, diagnostics go to
//! standard error as `FILE:LINE:COL: message`, and the exit status is 0 when
//! every input is well-formed, 1 when one is not, 2 on a usage or I/O problem.
//!
//! Input files of [`MMAP_MIN_BYTES`] or more are memory-mapped and parsed where they
//! lie; standard input, pipes and smaller files are read into one buffer (see
//! [`parse_input`]).

#![deny(unsafe_code)]

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser as ClapParser, Subcommand, ValueEnum};
use vtdx::{Document, ExternalPolicy, NodeKind, ParseOptions, Parser};

mod c14n;
mod dsig;
mod edit;
mod pack;
mod query;
mod template;
mod validate;
mod xmlenc;

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
    /// Print statistics about a document and how fast it parses; with --template-cache (or several
    /// files), about a stream of documents: template hits, misses and bytes matched.
    Stats {
        /// The file; `-` reads standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
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
    /// | -r XPATH -v NEWNAME | -m XPATH TARGET; -N PREFIX=URI; -P keep the white space around
    /// removed nodes; -L in place; -o OUT; then FILE.
    Edit(edit::EditArgs),
    /// Write the canonical XML of a document or subtree: `vtdx c14n [--exclusive] [--c14n11] [--with-comments]
    /// [--inclusive-prefixes "p1 p2"] [--subtree XPATH] [--exclude XPATH] FILE`.
    /// Exit 0 on success, 1 if the document is not well-formed, 2 on a bad XPath.
    C14n(c14n::C14nArgs),
    /// Verify every XML Signature of each FILE with the caller's key:
    /// `vtdx verify (--cert CERT.pem | --hmac-key KEYFILE) [--json] FILE...`. Exit 0 when all verify and
    /// cover the SOAP Body (or the document element), 1 when one is rejected, 2 on a usage or I/O error.
    Verify(dsig::VerifyArgs),
    /// Sign a document: `vtdx sign --key KEY.pem [--cert CERT.pem] [--alg ALG] [--wss] [--sign XPATH]... [-o OUT] FILE`.
    /// Exit 0 on success, 1 when the document cannot be signed, 2 on a usage or I/O error.
    Sign(dsig::SignArgs),
    /// Encrypt parts of a document (XML Encryption 1.1): `vtdx encrypt (--cert CERT.pem | --key-file AESKEY)
    /// [--alg aes128-gcm|aes256-gcm] [--xpath EXPR | --body] [--content] [--wss] FILE`.
    /// Exit 0 on success, 1 when the document cannot be encrypted as asked, 2 on a usage or I/O error.
    Encrypt(xmlenc::EncryptArgs),
    /// Decrypt every xenc:EncryptedData: `vtdx decrypt (--key KEY.pem | --key-file AESKEY) [--allow-legacy] FILE`.
    /// Exit 0 on success, 1 with one uniform message for any cryptographic failure, 2 on a usage or I/O error.
    Decrypt(xmlenc::DecryptArgs),
    /// Validate each FILE against an XML Schema 1.0 schema: `vtdx validate --schema S.xsd [--schema T.xsd]...
    /// [--use-schema-location] [--json] FILE...` (with --use-schema-location the FILE's xsi:schemaLocation
    /// hints, local paths only, supply or add schemas). Exit 0 when all are valid, 1 when one is invalid or not
    /// well-formed, 2 when a schema cannot be loaded or is invalid, or on a usage or I/O error.
    Validate(validate::ValidateArgs),
    /// Write the compact binary form of a document (docs/binary-format.md): `vtdx pack FILE [-o OUT]`,
    /// or of several as one stream: `vtdx pack --stream FILE... [-o OUT]`. Every command that reads XML
    /// also reads a packed file. Exit 0 on success, 1 if an input is not well-formed, 2 on a usage or I/O error.
    Pack(pack::PackArgs),
    /// Give back the input of a packed file byte for byte: `vtdx unpack FILE [-o OUT]`; split a stream
    /// with `vtdx unpack --stream FILE -o DIR` (DIR/000001.xml, ...). Exit 0 on success, 1 if the packed
    /// input is damaged or refused, 2 on a usage or I/O error.
    Unpack(pack::UnpackArgs),
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
        #[command(flatten)]
        opts: ParseFlags,
    },
}

/// The parse options every command that parses takes.
///
/// Options left out are `None` (not their default), so that [`ParseFlags::merge`]
/// can lay flags given later on the command line over earlier ones (`vtdx edit`
/// takes them among its operations).
#[derive(Args, Clone, Default)]
pub(crate) struct ParseFlags {
    /// Maximum element nesting depth.
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,
    /// Maximum total bytes produced by entity expansion.
    #[arg(long, value_name = "BYTES")]
    max_entity_expansion: Option<u64>,
    /// Maximum document size in bytes.
    #[arg(long, value_name = "BYTES")]
    max_size: Option<u64>,
    /// Maximum attributes (namespace declarations included) on one element [default: 10000].
    #[arg(long, value_name = "N")]
    max_attributes: Option<u32>,
    /// Maximum length of a name, in bytes [default: 50000].
    #[arg(long, value_name = "BYTES")]
    max_name_len: Option<u32>,
    /// Maximum ratio of entity-expanded bytes to document bytes [default: 20].
    #[arg(long, value_name = "RATIO")]
    max_entity_amplification: Option<u32>,
    /// Maximum nesting of entity references inside replacement text [default: 32].
    #[arg(long, value_name = "N")]
    max_entity_depth: Option<u32>,
    /// Maximum ratio of a packed document's text to its packed frame, checked once the
    /// text passes 64 KiB (docs/binary-format.md) [default: 256].
    #[arg(long, value_name = "RATIO")]
    max_packed_amplification: Option<u32>,
    /// Treat colons as ordinary name characters (no namespace processing).
    #[arg(long)]
    no_namespaces: bool,
    /// What to do with external identifiers in the DOCTYPE (an external DTD subset,
    /// external general or parameter entities, unparsed NDATA entities). Nothing
    /// external is ever fetched or opened, whatever the value [default: forbid]
    #[arg(long, value_enum, value_name = "POLICY")]
    external: Option<External>,
    /// Match each input against the templates of earlier inputs with the same structure
    /// before parsing it (docs/template-cache.md); results and errors are the same.
    #[arg(long)]
    template_cache: bool,
    /// The old spelling of --external: `skip` is `ignore`, `error` is `reject-references`.
    #[arg(long, value_enum, value_name = "skip|error", hide = true, conflicts_with = "external")]
    external_entities: Option<OldExternal>,
}

/// The values of `--external` ([`ExternalPolicy`]).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum External {
    /// Refuse the document at the first external identifier (exit 1; the message
    /// names the declaration and quotes the identifier).
    Forbid,
    /// Read the document without the external content: the declarations are
    /// parsed, a reference to an external entity reads as nothing, and
    /// declarations after a reference to an external parameter entity are skipped.
    Ignore,
    /// Like `ignore`, but a reference to an external entity in content is an error.
    RejectReferences,
}

impl External {
    fn policy(self) -> ExternalPolicy {
        match self {
            External::Forbid => ExternalPolicy::Forbid,
            External::Ignore => ExternalPolicy::Ignore,
            External::RejectReferences => ExternalPolicy::RejectReferences,
        }
    }
}

/// The values of the old `--external-entities` flag.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum OldExternal {
    /// `--external ignore`.
    Skip,
    /// `--external reject-references`.
    Error,
}

impl ParseFlags {
    fn options(&self) -> ParseOptions {
        // A file of 1 MiB or more is checked (UTF-8, `Char`) on a second core while parsing.
        let mut o = ParseOptions::new().namespaces(!self.no_namespaces).parallel_check(true).parallel_parse(true);
        if let Some(n) = self.max_depth {
            o = o.max_depth(n);
        }
        if let Some(n) = self.max_entity_expansion {
            o = o.max_entity_expansion_bytes(n);
        }
        if let Some(n) = self.max_size {
            o = o.max_document_size(n);
        }
        if let Some(n) = self.max_attributes {
            o = o.max_attributes(n);
        }
        if let Some(n) = self.max_name_len {
            o = o.max_name_len(n);
        }
        if let Some(n) = self.max_entity_amplification {
            o = o.max_entity_amplification(n);
        }
        if let Some(n) = self.max_entity_depth {
            o = o.max_entity_depth(n);
        }
        if let Some(n) = self.max_packed_amplification {
            o = o.max_packed_amplification(n);
        }
        let external = match (self.external, self.external_entities) {
            (Some(e), _) => e.policy(),
            (None, Some(OldExternal::Skip)) => ExternalPolicy::Ignore,
            (None, Some(OldExternal::Error)) => ExternalPolicy::RejectReferences,
            (None, None) => ExternalPolicy::Forbid,
        };
        o.external(external)
    }

    /// A parser with these options.
    pub(crate) fn parser(&self) -> Parser {
        let p = Parser::with_options(self.options());
        if self.template_cache {
            return p.with_template_cache(std::sync::Arc::new(vtdx::core::TemplateCache::new()));
        }
        p
    }

    /// These flags with those given after them on the command line laid over them.
    pub(crate) fn merge(self, later: ParseFlags) -> ParseFlags {
        let (external, external_entities) = if later.external.is_some() || later.external_entities.is_some() {
            (later.external, later.external_entities)
        } else {
            (self.external, self.external_entities)
        };
        ParseFlags {
            max_depth: later.max_depth.or(self.max_depth),
            max_entity_expansion: later.max_entity_expansion.or(self.max_entity_expansion),
            max_size: later.max_size.or(self.max_size),
            max_attributes: later.max_attributes.or(self.max_attributes),
            max_name_len: later.max_name_len.or(self.max_name_len),
            max_entity_amplification: later.max_entity_amplification.or(self.max_entity_amplification),
            max_entity_depth: later.max_entity_depth.or(self.max_entity_depth),
            max_packed_amplification: later.max_packed_amplification.or(self.max_packed_amplification),
            no_namespaces: self.no_namespaces || later.no_namespaces,
            template_cache: self.template_cache || later.template_cache,
            external,
            external_entities,
        }
    }
}

/// Input files at least this large are memory-mapped; smaller ones are read, which
/// costs less than setting up and tearing down a map.
pub(crate) const MMAP_MIN_BYTES: u64 = 64 * 1024;

/// Parses FILE (`-`: standard input) with `parser`; a packed file (told apart by its
/// magic bytes, `docs/binary-format.md`) is unpacked instead, checked against the
/// parser's options. A regular file of
/// [`MMAP_MIN_BYTES`] or more is memory-mapped and parsed in place; standard input,
/// pipes, devices, smaller files and files that cannot be mapped are read into one
/// buffer, which the document then owns. Nothing else copies the input. The outer
/// error is an I/O problem, the inner one a parse error or a packed input's.
///
/// A mapped file must not be truncated or rewritten in place while its document is
/// alive; this program writes files only by renaming a new file over them.
pub(crate) fn parse_input(parser: &mut Parser, path: &Path) -> io::Result<Result<Document<'static>, InputError>> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        io::stdin().lock().read_to_end(&mut v)?;
        return Ok(pack::parse_or_unpack(parser, v));
    }
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        // a pipe or a device can be read once: read it, then tell a packed input from
        // XML by its first bytes
        let mut v = Vec::new();
        std::fs::File::open(path)?.read_to_end(&mut v)?;
        return Ok(pack::parse_or_unpack(parser, v));
    }
    if pack::is_packed_file(path) {
        return Ok(pack::unpack_document(&std::fs::read(path)?, parser.options()));
    }
    if meta.len() >= MMAP_MIN_BYTES {
        // a file system that cannot map falls back to reading
        #[allow(unsafe_code)]
        // SAFETY: `parse_file_mmap` needs the file unchanged while the document lives.
        // The document lives only while this process runs the command; vtdx itself never
        // writes a file in place (output goes to a new file renamed over the old one), and
        // a file another program rewrites during the run is documented as the caller's
        // hazard (HACKING/docs/security.md), as for every tool that maps its input.
        if let Ok(r) = unsafe { parser.parse_file_mmap(path) } {
            return Ok(r.map_err(InputError::Xml));
        }
    }
    let mut f = std::fs::File::open(path)?;
    let mut v = Vec::with_capacity(meta.len() as usize + 1);
    f.read_to_end(&mut v)?;
    Ok(parser.parse_owned(v).map_err(InputError::Xml))
}

/// [`parse_input`] for a command that only needs the verdict (`check`): the same
/// inputs, the same errors, but a plain file is checked without an index being
/// assembled ([`Parser::check`]).
fn check_input(parser: &mut Parser, path: &Path) -> io::Result<Result<(), InputError>> {
    let meta = if path.as_os_str() == "-" { None } else { Some(std::fs::metadata(path)?) };
    let plain = match &meta {
        Some(m) => m.is_file() && !pack::is_packed_file(path),
        None => false,
    };
    if !plain {
        return Ok(parse_input(parser, path)?.map(|d| parser.recycle(d)));
    }
    if meta.as_ref().is_some_and(|m| m.len() >= MMAP_MIN_BYTES) {
        #[allow(unsafe_code)]
        // SAFETY: as for `parse_file_mmap` in `parse_input`: the file must stay
        // unchanged while it is mapped, for the check only.
        if let Ok(r) = unsafe { parser.check_file_mmap(path) } {
            return Ok(r.map_err(InputError::Xml));
        }
    }
    Ok(parser.check(&std::fs::read(path)?).map_err(InputError::Xml))
}

/// [`parse_input`] for a command that takes one document: the document, or the exit
/// status once the problem is reported (1: not well-formed, 2: cannot be read).
pub(crate) fn load_one(parser: &mut Parser, path: &Path) -> Result<Document<'static>, ExitCode> {
    let name = display(path);
    match parse_input(parser, path) {
        Ok(Ok(d)) => Ok(d),
        Ok(Err(e)) => {
            report(&name, "", &e);
            Err(ExitCode::from(1))
        }
        Err(e) => {
            eprintln!("{name}: cannot read: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// Why an input is not a document: the parser's error, at a position in the text,
/// or a packed input's (`docs/binary-format.md`), at a byte of the packed file;
/// a packed document that decodes but is refused has both.
pub(crate) enum InputError {
    /// XML that is not well-formed (or reached a limit).
    Xml(vtdx::Error),
    /// A packed input that is damaged, malformed or refused.
    Packed(vtdx_binary::Error),
}

impl InputError {
    /// The error at its position in the document's text, when it has one (a packed
    /// document refused by a check of its text; not a damaged frame, nor a limit
    /// checked against the frame before any text is made, whose line is 0).
    pub(crate) fn in_text(&self) -> Option<&vtdx::Error> {
        match self {
            InputError::Xml(e) => Some(e),
            InputError::Packed(p) => match p.kind() {
                vtdx_binary::ErrorKind::Document(e) if e.line() != 0 => Some(e),
                _ => None,
            },
        }
    }

    /// The byte of the packed file where the error was found (for a packed input).
    pub(crate) fn packed_offset(&self) -> Option<u64> {
        match self {
            InputError::Xml(_) => None,
            InputError::Packed(p) => Some(p.offset()),
        }
    }

    /// The JSON members giving where the error is: `,"line":L,"column":C,"offset":O`
    /// (zeros without a position in the text), then `,"packed_offset":P` for a
    /// packed input.
    pub(crate) fn json_position(&self) -> String {
        json_position(self.in_text().map(|t| (t.line(), t.column(), t.offset())), self.packed_offset())
    }

    /// What is wrong, without a position.
    pub(crate) fn message(&self) -> String {
        match self {
            InputError::Xml(e) => e.kind().to_string(),
            InputError::Packed(p) => match p.kind() {
                vtdx_binary::ErrorKind::Document(e) => e.kind().to_string(),
                k => k.to_string(),
            },
        }
    }
}

/// The JSON members of an error's position, as `--json` outputs write them: the
/// line, column and byte offset in the text (always present, as the contracts
/// list them; 0, 0 and 0 when the error has no position in the text, a damaged
/// packed frame), then the byte of a packed input.
pub(crate) fn json_position(at: Option<(u32, u32, u64)>, packed_offset: Option<u64>) -> String {
    let (line, column, offset) = at.unwrap_or((0, 0, 0));
    let mut s = format!(",\"line\":{line},\"column\":{column},\"offset\":{offset}");
    if let Some(p) = packed_offset {
        s.push_str(&format!(",\"packed_offset\":{p}"));
    }
    s
}

/// Prints a parse error as `FILE:LINE:COL: message (byte N)`, as xmllint and
/// compilers do. `context`, when not empty, stands before the message (ending with
/// `: `); the position is then in the document the context names. An error in a
/// packed input is printed as `vtdx unpack` prints it, `FILE: message (packed byte N)`
/// (with the line, column and byte in the unpacked text inside the message when the
/// frame decodes but its document is refused).
pub(crate) fn report(file: &str, context: &str, e: &InputError) {
    match e {
        InputError::Xml(e) => eprintln!("{file}:{}:{}: {context}{} (byte {})", e.line(), e.column(), e.kind(), e.offset()),
        InputError::Packed(p) => eprintln!("{file}: {context}{p}"),
    }
}

pub(crate) fn display(path: &Path) -> String {
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
            let mut parser = opts.parser();
            let mut all_ok = true;
            let mut io_failed = false;
            for f in &files {
                match check_input(&mut parser, f) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        all_ok = false;
                        if !quiet {
                            report(&display(f), "", &e);
                        }
                    }
                    Err(e) => {
                        if !quiet {
                            eprintln!("{}: cannot read: {e}", display(f));
                        }
                        io_failed = true;
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
        Cmd::Stats { files, repeat, opts } => {
            if opts.template_cache || files.len() > 1 {
                return template::stats(&files, &opts, &mut out);
            }
            let file = files[0].clone();
            let mut parser = opts.parser();
            // the first parse maps (or reads) the input; the timed ones parse its bytes
            let doc = match parse_input(&mut parser, &file)? {
                Ok(d) => d,
                Err(e) => {
                    report(&display(&file), "", &e);
                    return Ok(ExitCode::from(1));
                }
            };
            let bytes = doc.source();
            let mut times = Vec::new();
            for _ in 0..repeat.max(1) {
                let t0 = Instant::now();
                let r = parser.parse(bytes);
                let dt = t0.elapsed();
                times.push(dt);
                match r {
                    Ok(d) => parser.recycle(d),
                    Err(e) => return Err(io::Error::other(e)), // parsed the first time
                }
            }
            times.sort();
            let med = times[times.len() / 2];
            let counts = doc.record_counts();
            let (elements, attrs, others) = (counts.elements, counts.attributes, counts.others);
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
            writeln!(
                out,
                "index bytes:     {} ({:.3} per input byte)",
                doc.index_bytes(),
                doc.index_bytes() as f64 / bytes.len().max(1) as f64
            )?;
            writeln!(out, "parse time:      {:.3} ms (median of {})", secs * 1e3, times.len())?;
            writeln!(out, "throughput:      {:.1} MB/s", bytes.len() as f64 / secs / 1e6)?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Fmt { file, indent, opts } => match parse_input(&mut opts.parser(), &file)? {
            Ok(doc) => {
                doc.write_pretty(&mut out, indent)?;
                out.flush()?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                report(&display(&file), "", &e);
                Ok(ExitCode::from(1))
            }
        },
        Cmd::Query(q) => query::run(q, &mut out),
        Cmd::Edit(a) => edit::run(a, &mut out),
        Cmd::C14n(a) => c14n::run(a, &mut out),
        Cmd::Verify(a) => dsig::run_verify(a, &mut out),
        Cmd::Sign(a) => dsig::run_sign(a, &mut out),
        Cmd::Encrypt(a) => xmlenc::run_encrypt(a, &mut out),
        Cmd::Decrypt(a) => xmlenc::run_decrypt(a, &mut out),
        Cmd::Validate(a) => validate::run(a, &mut out),
        Cmd::Pack(a) => pack::run_pack(a, &mut out),
        Cmd::Unpack(a) => pack::run_unpack(a, &mut out),
        Cmd::Debug { what: DebugCmd::Index { file, opts } } => {
            let doc = match parse_input(&mut opts.parser(), &file)? {
                Ok(d) => d,
                Err(e) => {
                    report(&display(&file), "", &e);
                    return Ok(ExitCode::from(1));
                }
            };
            vtdx::core::debug::dump_index(&doc, &mut out)?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
