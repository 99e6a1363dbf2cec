//! `vtdx pack` and `vtdx unpack`: the binary form of `vtdx-binary`
//! (`docs/binary-format.md`), and reading a packed file wherever XML is read.
//!
//! Exit status: 0 on success, 1 when an input is not well-formed XML or not a
//! valid packed file (damaged, truncated, refused), 2 on a usage or I/O problem.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use vtdx::{Document, ParseOptions};

use crate::{display, report, InputError, ParseFlags};

/// `vtdx pack`.
#[derive(Args)]
pub(crate) struct PackArgs {
    /// The XML file (`-`: standard input); with `--stream`, one or more files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write one stream of all the files, the tables kept from one document to the next.
    #[arg(long)]
    stream: bool,
    /// Write to OUT (replaced atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    #[command(flatten)]
    opts: ParseFlags,
}

/// `vtdx unpack`.
#[derive(Args)]
pub(crate) struct UnpackArgs {
    /// The packed file (`-`: standard input).
    file: PathBuf,
    /// Split a stream: write each document to DIR/000001.xml, DIR/000002.xml, ... (`-o DIR` required).
    #[arg(long)]
    stream: bool,
    /// Write to OUT (with `--stream`: the directory DIR, created if missing) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    #[command(flatten)]
    opts: ParseFlags,
}

fn read_all(path: &Path) -> io::Result<Vec<u8>> {
    let mut v = Vec::new();
    if path.as_os_str() == "-" {
        io::stdin().lock().read_to_end(&mut v)?;
    } else {
        std::fs::File::open(path)?.read_to_end(&mut v)?;
    }
    Ok(v)
}

/// Writes `bytes` to `out` (through a temporary file renamed over it) or to standard output.
fn write_out(output: Option<&Path>, bytes: &[u8], stdout: &mut dyn Write) -> io::Result<()> {
    match output {
        None => {
            stdout.write_all(bytes)?;
            stdout.flush()
        }
        Some(p) => {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let tmp = p.with_file_name(format!(".{name}.vtdx-{}.tmp", std::process::id()));
            std::fs::write(&tmp, bytes)?;
            std::fs::rename(&tmp, p).inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
        }
    }
}

/// Does the file start with the packed format's magic bytes? (`-` is read later.)
pub(crate) fn is_packed_file(path: &Path) -> bool {
    if path.as_os_str() == "-" {
        return false;
    }
    let mut head = [0u8; 8];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && vtdx_binary::is_packed(&head)
}

/// The document of a packed single-document file, or the packed input's error (at
/// its packed byte offset).
pub(crate) fn unpack_document(bytes: &[u8], opts: &ParseOptions) -> Result<Document<'static>, InputError> {
    vtdx_binary::unpack_with(bytes, opts).map_err(InputError::Packed)
}

pub(crate) fn run_pack(a: PackArgs, stdout: &mut dyn Write) -> io::Result<ExitCode> {
    if a.files.len() > 1 && !a.stream {
        eprintln!("vtdx pack: several files need --stream");
        return Ok(ExitCode::from(2));
    }
    let mut parser = a.opts.parser();
    let mut w = vtdx_binary::StreamWriter::new();
    let mut single = None;
    for f in &a.files {
        let doc = match crate::parse_input(&mut parser, f) {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => {
                report(&display(f), "", &e);
                return Ok(ExitCode::from(1));
            }
            Err(e) => {
                eprintln!("{}: cannot read: {e}", display(f));
                return Ok(ExitCode::from(2));
            }
        };
        let r = if a.stream { w.push(&doc) } else { vtdx_binary::pack(&doc).map(|p| single = Some(p)) };
        if let Err(e) = r {
            eprintln!("{}: cannot pack: {e}", display(f));
            return Ok(ExitCode::from(1));
        }
    }
    let bytes = match single {
        Some(p) => p,
        None => w.finish(),
    };
    write_out(a.output.as_deref(), &bytes, stdout)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn run_unpack(a: UnpackArgs, stdout: &mut dyn Write) -> io::Result<ExitCode> {
    let name = display(&a.file);
    let data = match read_all(&a.file) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{name}: cannot read: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let opts = a.opts.parser().options().clone();
    let fail = |e: &vtdx_binary::Error| {
        eprintln!("{name}: {e}");
        Ok(ExitCode::from(1))
    };
    if !a.stream {
        return match vtdx_binary::unpack_with(&data, &opts) {
            Ok(doc) => {
                write_out(a.output.as_deref(), doc.source(), stdout)?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                if matches!(e.kind(), vtdx_binary::ErrorKind::DocumentCount { .. }) {
                    eprintln!("{name}: {e}; use --stream -o DIR to split a stream");
                    return Ok(ExitCode::from(1));
                }
                fail(&e)
            }
        };
    }
    let Some(dir) = a.output.as_deref() else {
        eprintln!("vtdx unpack --stream: give the output directory with -o DIR");
        return Ok(ExitCode::from(2));
    };
    std::fs::create_dir_all(dir)?;
    let reader = match vtdx_binary::StreamReader::with_options(&data, &opts) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    for (i, doc) in reader.enumerate() {
        match doc {
            Ok(d) => write_out(Some(&dir.join(format!("{:06}.xml", i + 1))), d.source(), stdout)?,
            Err(e) => return fail(&e),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads standard input's bytes as a document: unpacked when they start with the
/// magic bytes, else parsed.
pub(crate) fn parse_or_unpack(parser: &mut vtdx::Parser, v: Vec<u8>) -> Result<Document<'static>, InputError> {
    if vtdx_binary::is_packed(&v) {
        unpack_document(&v, parser.options())
    } else {
        parser.parse_owned(v).map_err(InputError::Xml)
    }
}
