//! `vtdx validate --schema S.xsd [--schema T.xsd]... [--use-schema-location] [--json] FILE...`:
//! XML Schema 1.0 validation. With `--use-schema-location` (and then `--schema` may be
//! left out) each FILE is validated against the schema its document element's
//! `xsi:schemaLocation` / `xsi:noNamespaceSchemaLocation` hints name, resolved only as
//! local paths relative to the FILE (standard input: the current directory).
//!
//! Exit status: 0 when every FILE is valid; 1 when some FILE is invalid or not
//! well-formed (one line per error on standard error, `FILE:LINE:COL: message`);
//! 2 when a schema cannot be loaded or is invalid, or on a usage or I/O error.
//! With `--json` the errors go to standard output as one JSON document.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use vtdx_schema::{HintScope, Schema, SchemaBuilder, SchemaError, SchemaLimits, ValidateOptions};

use crate::{display, parse_input, ParseFlags};

/// Arguments of `vtdx validate`.
#[derive(Args)]
pub struct ValidateArgs {
    /// A schema document; repeat to build one schema from several (e.g. one per namespace).
    #[arg(long, value_name = "S.xsd", required_unless_present = "use_schema_location")]
    schema: Vec<PathBuf>,
    /// Also load the schema documents each FILE names in xsi:schemaLocation /
    /// xsi:noNamespaceSchemaLocation on its document element, as local paths relative to
    /// the FILE's directory (a URL such as http://... is an error: nothing is fetched).
    /// --schema documents take precedence for the namespaces they cover.
    #[arg(long)]
    use_schema_location: bool,
    /// Print the errors as JSON on standard output: {"valid": bool, "files": [{"file", "valid",
    /// "errors": [{"file", "line", "column", "offset", "path", "message"}]}]}. An error in a packed
    /// input also has "packed_offset" (the byte of the packed file); its "line", "column" and
    /// "offset" are 0 when the packed frame itself is wrong.
    #[arg(long)]
    json: bool,
    /// Report at most N errors per file.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_errors: usize,
    /// Print nothing; only the exit status tells.
    #[arg(short, long)]
    quiet: bool,
    /// Documents to validate; `-` reads standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    opts: ParseFlags,
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

struct Err1 {
    /// Line, column and byte offset in the text (none for a damaged packed frame).
    at: Option<(u32, u32, u64)>,
    /// The byte of a packed input where the error was found.
    packed_offset: Option<u64>,
    path: String,
    message: String,
}

/// Runs `vtdx validate`.
pub fn run(a: ValidateArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let builder = a.schema.iter().fold(SchemaBuilder::new().limits(SchemaLimits::default()), |b, p| b.file(p));
    let schema_error = |e: SchemaError| {
        eprintln!("{}:{}:{}: invalid schema: {}", e.location.file, e.location.line, e.location.column, e.message);
        Ok(ExitCode::from(2))
    };
    // What the loader skipped (an include or import naming no readable file) changes
    // what is validated: say so, on standard error, without changing the exit status.
    let warn = |s: &Schema| {
        if !a.quiet {
            for w in s.warnings() {
                eprintln!("{}:{}:{}: warning: {}", w.location.file, w.location.line, w.location.column, w.message);
            }
        }
    };
    // Without hints one schema serves every FILE; with them each FILE has its own.
    let shared = if a.use_schema_location {
        None
    } else {
        match builder.clone().build() {
            Ok(s) => {
                warn(&s);
                Some(s)
            }
            Err(e) => return schema_error(e),
        }
    };
    let mut parser = a.opts.parser();
    let mut any_invalid = false;
    let mut json_files: Vec<String> = Vec::new();
    for f in &a.files {
        let name = display(f);
        let mut errs: Vec<Err1> = Vec::new();
        match parse_input(&mut parser, f) {
            Err(e) => {
                eprintln!("vtdx: {name}: {e}");
                return Ok(ExitCode::from(2));
            }
            Ok(Err(e)) => errs.push(Err1 {
                at: e.in_text().map(|t| (t.line(), t.column(), t.offset())),
                packed_offset: e.packed_offset(),
                path: String::new(),
                message: match &e {
                    crate::InputError::Packed(p) if !matches!(p.kind(), vtdx_binary::ErrorKind::Document(_)) => e.message(),
                    _ => format!("not well-formed: {}", e.message()),
                },
            }),
            Ok(Ok(doc)) => {
                let own;
                let schema = match &shared {
                    Some(s) => s,
                    None => {
                        let base = f.parent().map(PathBuf::from).unwrap_or_default();
                        match builder
                            .clone()
                            .schema_location_hints(&doc, &name, base, HintScope::DocumentElement)
                            .and_then(SchemaBuilder::build)
                        {
                            Ok(s) => {
                                warn(&s);
                                own = s;
                                &own
                            }
                            Err(e) => return schema_error(e),
                        }
                    }
                };
                let opts =
                    ValidateOptions { max_errors: a.max_errors, typed_values: false, file: name.clone(), ..ValidateOptions::default() };
                let v = schema.validate_with(&doc, &opts);
                for e in v.errors() {
                    errs.push(Err1 {
                        at: Some((e.location.line, e.location.column, e.location.offset)),
                        packed_offset: None,
                        path: e.path.clone(),
                        message: e.message.clone(),
                    });
                }
            }
        }
        any_invalid |= !errs.is_empty();
        if a.json {
            let items: Vec<String> = errs
                .iter()
                .map(|e| {
                    let at = crate::json_position(e.at, e.packed_offset);
                    format!("{{\"file\":{}{at},\"path\":{},\"message\":{}}}", json_str(&name), json_str(&e.path), json_str(&e.message))
                })
                .collect();
            json_files.push(format!("{{\"file\":{},\"valid\":{},\"errors\":[{}]}}", json_str(&name), errs.is_empty(), items.join(",")));
        } else if !a.quiet {
            let mut err = io::stderr().lock();
            for e in &errs {
                let at = match e.at {
                    Some((line, column, _)) => format!(":{line}:{column}"),
                    None => String::new(),
                };
                let packed = match e.packed_offset {
                    Some(p) => format!(" (packed byte {p})"),
                    None => String::new(),
                };
                if e.path.is_empty() {
                    writeln!(err, "{name}{at}: {}{packed}", e.message)?;
                } else {
                    writeln!(err, "{name}{at}: {} (at {}){packed}", e.message, e.path)?;
                }
            }
        }
    }
    if a.json {
        writeln!(out, "{{\"valid\":{},\"files\":[{}]}}", !any_invalid, json_files.join(","))?;
        out.flush()?;
    }
    Ok(ExitCode::from(u8::from(any_invalid)))
}
