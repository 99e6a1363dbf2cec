//! `vtdx query`: evaluate an XPath 1.0 expression on documents.
//!
//! Output modes:
//!
//! * default, as `xmllint --xpath` users expect: elements as their exact XML
//!   bytes (the root node as the whole document), other nodes as their
//!   string-values, one per line; numbers,
//!   strings and booleans printed by XPath's `string()` rules;
//! * `--value`: one string-value per line;
//! * `--count`: the number of nodes;
//! * `--json` (one file): the machine-readable contract
//!   `{"type":"nodeset","nodes":[{"path":P,"kind":K,"value":S},...]}`,
//!   `{"type":"number","value":N}` (a JSON number, or `"NaN"`, `"Infinity"`,
//!   `"-Infinity"`), `{"type":"string","value":S}`, `{"type":"boolean","value":B}`;
//! * `--json` (several files): JSON Lines, one object per file in order,
//!   `{"file":F,"result":R}` with R as for one file, or
//!   `{"file":F,"error":{"message":M,"line":L,"column":C,"offset":O}}` for a
//!   document that is not well-formed (`{"file":F,"error":{"message":M}}` when
//!   it cannot be read; the message goes to standard error too). For a packed
//!   input (`docs/binary-format.md`) the error also has `"packed_offset":P`, the
//!   byte of the packed file where it was found; `line`, `column` and `offset`
//!   are positions in the unpacked text when the frame decodes and its document
//!   is refused by a check of its text, and 0 when there is no such position (a
//!   damaged or malformed frame, or a limit checked against the frame).
//!
//! Exit status: 0 on success, 1 when a document is not well-formed (or cannot
//! be read), 2 on an XPath syntax error (the message shows the column).

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use vtdx::xpath::{Context, Namespaces, Value, XNodeKind, XPath};

use crate::ParseFlags;

/// Arguments of `vtdx query`.
#[derive(Args)]
pub struct QueryArgs {
    /// Bind a namespace prefix for the expression (repeatable).
    #[arg(long = "ns", value_name = "PREFIX=URI")]
    ns: Vec<String>,
    /// Bind `$NAME` to the string VALUE (repeatable; NAME may be `prefix:local`).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    vars: Vec<String>,
    /// Print one string-value per line.
    #[arg(long, conflicts_with_all = ["count", "json"])]
    value: bool,
    /// Print the number of selected nodes.
    #[arg(long, conflicts_with = "json")]
    count: bool,
    /// Print the result as JSON (several files: one JSON object per line, with the file name).
    #[arg(long)]
    json: bool,
    /// Files to query (`-` reads standard input), then the XPath expression
    /// (after `--` if it starts with `-`).
    #[arg(required = true, num_args = 2.., value_name = "FILE... EXPR")]
    args: Vec<String>,
    #[command(flatten)]
    opts: ParseFlags,
}

fn split_binding<'a>(s: &'a str, what: &str) -> Result<(&'a str, &'a str), String> {
    s.split_once('=').ok_or_else(|| format!("{what} `{s}` is not of the form NAME=VALUE"))
}

/// Runs the subcommand, writing results to `out`.
pub fn run(a: QueryArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let Some((expr, files)) = a.args.split_last() else { return Ok(ExitCode::from(2)) };
    let mut ns = Namespaces::new();
    for b in &a.ns {
        match split_binding(b, "--ns") {
            Ok((p, u)) => {
                ns.insert(p, u);
            }
            Err(e) => {
                eprintln!("vtdx query: {e}");
                return Ok(ExitCode::from(2));
            }
        }
    }
    let mut vars: Vec<(String, String, String)> = Vec::new();
    for b in &a.vars {
        let (name, value) = match split_binding(b, "--var") {
            Ok(x) => x,
            Err(e) => {
                eprintln!("vtdx query: {e}");
                return Ok(ExitCode::from(2));
            }
        };
        let (uri, local) = match name.split_once(':') {
            Some((p, l)) => match ns.get(p) {
                Some(u) => (u.to_string(), l.to_string()),
                None => {
                    eprintln!("vtdx query: --var {name}: namespace prefix `{p}` is not bound (use --ns {p}=URI)");
                    return Ok(ExitCode::from(2));
                }
            },
            None => (String::new(), name.to_string()),
        };
        vars.push((uri, local, value.to_string()));
    }
    // several files with --json: JSON Lines, one object per file
    let lines = a.json && files.len() > 1;
    let xp = match XPath::compile(expr, &ns) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("vtdx query: XPath error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut status = 0u8;
    let mut parser = a.opts.parser();
    for f in files {
        let doc = match crate::parse_input(&mut parser, Path::new(f)) {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => {
                crate::report(f, "", &e);
                if lines {
                    let mut s = String::from("{\"file\":");
                    json_string(&mut s, f);
                    s.push_str(",\"error\":{\"message\":");
                    json_string(&mut s, &e.message());
                    s.push_str(&e.json_position());
                    s.push_str("}}\n");
                    out.write_all(s.as_bytes())?;
                }
                status = status.max(1);
                continue;
            }
            Err(e) => {
                eprintln!("{f}: cannot read: {e}");
                if lines {
                    let mut s = String::from("{\"file\":");
                    json_string(&mut s, f);
                    s.push_str(",\"error\":{\"message\":");
                    json_string(&mut s, &format!("cannot read: {e}"));
                    s.push_str("}}\n");
                    out.write_all(s.as_bytes())?;
                }
                status = status.max(1);
                continue;
            }
        };
        let mut ctx = Context::new(&doc);
        for (uri, local, value) in &vars {
            ctx.set_variable_ns(uri, local, value.clone());
        }
        let v = match xp.evaluate_in(&ctx, doc.root().into()) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("vtdx query: XPath error: {e}");
                return Ok(ExitCode::from(2));
            }
        };
        if lines {
            let mut s = String::from("{\"file\":");
            json_string(&mut s, f);
            s.push_str(",\"result\":");
            s.push_str(&json_value(&v));
            s.push_str("}\n");
            out.write_all(s.as_bytes())?;
        } else if a.json {
            write_json(out, &v)?;
        } else if a.count {
            match &v {
                Value::NodeSet(s) => writeln!(out, "{}", s.len())?,
                other => {
                    eprintln!("vtdx query: --count needs a node-set; the expression is a {}", other.type_name());
                    return Ok(ExitCode::from(2));
                }
            }
        } else {
            match &v {
                Value::NodeSet(s) => {
                    for n in s {
                        if !a.value && n.kind() == XNodeKind::Element {
                            out.write_all(n.node().raw())?;
                            out.write_all(b"\n")?;
                        } else if !a.value && n.kind() == XNodeKind::Root {
                            // The document, as `xmllint --xpath /` prints it.
                            out.write_all(doc.text())?;
                            out.write_all(b"\n")?;
                        } else {
                            writeln!(out, "{}", n.string_value())?;
                        }
                    }
                }
                other => writeln!(out, "{}", other.string())?,
            }
        }
        drop((v, ctx));
        parser.recycle(doc);
    }
    out.flush()?;
    Ok(ExitCode::from(status))
}

/// Writes `s` as a JSON string.
pub fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The `--json` contract, one line.
fn write_json(out: &mut dyn Write, v: &Value<'_>) -> io::Result<()> {
    let mut s = json_value(v);
    s.push('\n');
    out.write_all(s.as_bytes())
}

/// The `--json` object of a result.
fn json_value(v: &Value<'_>) -> String {
    let mut s = String::new();
    match v {
        Value::NodeSet(set) => {
            s.push_str("{\"type\":\"nodeset\",\"nodes\":[");
            for (i, n) in set.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str("{\"path\":");
                json_string(&mut s, &n.path());
                s.push_str(",\"kind\":\"");
                s.push_str(n.kind().name());
                s.push_str("\",\"value\":");
                json_string(&mut s, &n.string_value());
                s.push('}');
            }
            s.push_str("]}");
        }
        Value::Number(x) => {
            s.push_str("{\"type\":\"number\",\"value\":");
            if x.is_finite() {
                s.push_str(&vtdx::xpath::number::to_string(*x));
            } else {
                json_string(&mut s, &vtdx::xpath::number::to_string(*x));
            }
            s.push('}');
        }
        Value::String(t) => {
            s.push_str("{\"type\":\"string\",\"value\":");
            json_string(&mut s, t);
            s.push('}');
        }
        Value::Boolean(b) => {
            s.push_str(if *b { "{\"type\":\"boolean\",\"value\":true}" } else { "{\"type\":\"boolean\",\"value\":false}" });
        }
    }
    s
}
