//! `vtdx edit`: edit a document in place of bytes, with `xmlstarlet ed` habits.
//!
//! ```text
//! vtdx edit [-N PREFIX=URI]... [-P] [PARSE OPTIONS] OPERATION... [-L | -o OUT] FILE
//!   -d XPATH                              delete the selected nodes
//!   -u XPATH -v VALUE                     set the value (element text, attribute, text node)
//!   -i|-a|-s XPATH -t elem|attr|text -n NAME [-v VALUE]
//!                                         insert before / after / as last child
//!   -r XPATH -v NEWNAME                   rename elements or attributes
//!   -m XPATH TARGET                       move the selected nodes to the end of TARGET
//! ```
//!
//! Operations apply in order, each to the result of the previous one. Output goes
//! to standard output, to `-o OUT`, or back to FILE with `-L` (written to a
//! temporary file in the same directory and renamed over it, so a reader never
//! sees a half-written file). Untouched bytes are copied exactly. Inserted
//! fragments are checked for well-formedness where they land, and prefixes must be
//! declared there. A node removed from a line of its own takes its indentation and
//! line break along; with `-P` (`--preserve-whitespace`, as xmlstarlet's `-P`) the
//! white space around removed nodes stays, so the output is the input minus exactly
//! the removed nodes' bytes (an attribute goes with the white space before it
//! either way). The parse options of the other commands (`--external POLICY`, ...)
//! are taken before the operations or among them. Exit status: 0 done, 1 the
//! document is not well-formed or an edit cannot be made, 2 usage or XPath error.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, FromArgMatches};
use vtdx::xpath::{Namespaces, XNode, XNodeKind, XPath};
use vtdx::{escape_text, is_name, Document, EditError, Editor, Node, NodeKind};

use crate::ParseFlags;

/// Arguments of `vtdx edit` (parsed in order by hand: operations are a sequence).
/// `-P` and the parse options are read here when they come before the first
/// operation, and by [`parse_plan`] when they come among the operations.
#[derive(Args)]
pub struct EditArgs {
    /// Keep the white space around removed nodes (by default a node alone on its
    /// line goes with its indentation and line break).
    #[arg(short = 'P', long)]
    preserve_whitespace: bool,
    #[command(flatten)]
    opts: ParseFlags,
    /// Operations and options, in order, then the file (see `vtdx edit --help`).
    #[arg(required = true, num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true, value_name = "OPERATION... FILE")]
    args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Where {
    Before,
    After,
    Sub,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Elem,
    Attr,
    Text,
}

#[derive(Debug)]
enum Op {
    Delete(String),
    Update(String, String),
    Insert { at: Where, xpath: String, what: What, name: String, value: Option<String> },
    Rename(String, String),
    Move(String, String),
}

struct Plan {
    ns: Namespaces,
    ops: Vec<Op>,
    in_place: bool,
    out: Option<PathBuf>,
    file: PathBuf,
    /// `-P` among the operations.
    preserve_whitespace: bool,
    /// Parse options among the operations.
    flags: ParseFlags,
}

fn usage(msg: &str) -> String {
    format!("{msg} (see `vtdx edit --help`)")
}

/// The parse options, as a command that reads nothing else.
fn parse_flags_command() -> clap::Command {
    <ParseFlags as Args>::augment_args(clap::Command::new("vtdx edit").no_binary_name(true))
}

fn parse_plan(args: &[String]) -> Result<Plan, String> {
    let mut ns = Namespaces::new();
    let mut ops = Vec::new();
    let mut in_place = false;
    let mut out = None;
    let mut file = None;
    let mut preserve_whitespace = false;
    let flags_cmd = parse_flags_command();
    let mut flag_tokens: Vec<String> = Vec::new();
    let mut i = 0;
    let next = |i: &mut usize, what: &str| -> Result<String, String> {
        *i += 1;
        args.get(*i).cloned().ok_or_else(|| usage(&format!("{what} expected")))
    };
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-N" => {
                let b = next(&mut i, "PREFIX=URI after -N")?;
                let (p, u) = b.split_once('=').ok_or_else(|| usage(&format!("-N `{b}` is not PREFIX=URI")))?;
                ns.insert(p, u);
            }
            "-d" => ops.push(Op::Delete(next(&mut i, "XPATH after -d")?)),
            "-u" => {
                let x = next(&mut i, "XPATH after -u")?;
                if next(&mut i, "-v VALUE after -u XPATH")? != "-v" {
                    return Err(usage("-u XPATH must be followed by -v VALUE"));
                }
                ops.push(Op::Update(x, next(&mut i, "VALUE after -v")?));
            }
            "-r" => {
                let x = next(&mut i, "XPATH after -r")?;
                if next(&mut i, "-v NEWNAME after -r XPATH")? != "-v" {
                    return Err(usage("-r XPATH must be followed by -v NEWNAME"));
                }
                ops.push(Op::Rename(x, next(&mut i, "NEWNAME after -v")?));
            }
            "-m" => {
                let x = next(&mut i, "XPATH after -m")?;
                ops.push(Op::Move(x, next(&mut i, "TARGET after -m XPATH")?));
            }
            "-i" | "-a" | "-s" => {
                let at = match a {
                    "-i" => Where::Before,
                    "-a" => Where::After,
                    _ => Where::Sub,
                };
                let xpath = next(&mut i, "XPATH")?;
                let (mut what, mut name, mut value) = (None, None, None);
                while let Some(flag) = args.get(i + 1).map(String::as_str) {
                    match flag {
                        "-t" => {
                            i += 1;
                            what = Some(match next(&mut i, "elem|attr|text after -t")?.as_str() {
                                "elem" => What::Elem,
                                "attr" => What::Attr,
                                "text" => What::Text,
                                o => return Err(usage(&format!("-t `{o}`: expected elem, attr or text"))),
                            });
                        }
                        "-n" => {
                            i += 1;
                            name = Some(next(&mut i, "NAME after -n")?);
                        }
                        "-v" => {
                            i += 1;
                            value = Some(next(&mut i, "VALUE after -v")?);
                        }
                        _ => break,
                    }
                }
                let what = what.ok_or_else(|| usage(&format!("{a} needs -t elem|attr|text")))?;
                let name = match (what, name) {
                    (What::Text, n) => n.unwrap_or_default(),
                    (_, Some(n)) => n,
                    (_, None) => return Err(usage(&format!("{a} -t elem|attr needs -n NAME"))),
                };
                ops.push(Op::Insert { at, xpath, what, name, value });
            }
            "-L" => in_place = true,
            "-P" | "--preserve-whitespace" => preserve_whitespace = true,
            "-o" => out = Some(PathBuf::from(next(&mut i, "OUT after -o")?)),
            s if s.starts_with("--") && s.len() > 2 => {
                // a parse option (`--external ignore`, `--max-depth=5`): clap reads them all below
                let (long, value) = match s[2..].split_once('=') {
                    Some((l, _)) => (l, true),
                    None => (&s[2..], false),
                };
                let arg = flags_cmd.get_arguments().find(|a| a.get_long() == Some(long));
                let Some(arg) = arg else { return Err(usage(&format!("unknown option `{s}`"))) };
                flag_tokens.push(s.to_string());
                if !value && arg.get_action().takes_values() {
                    flag_tokens.push(next(&mut i, &format!("a value after {s}"))?);
                }
            }
            s if s.starts_with('-') && s != "-" => return Err(usage(&format!("unknown option `{s}`"))),
            s => {
                if file.is_some() {
                    return Err(usage("only one FILE may be edited at a time"));
                }
                file = Some(PathBuf::from(s));
            }
        }
        i += 1;
    }
    let file = file.ok_or_else(|| usage("FILE expected"))?;
    if in_place && (out.is_some() || file.as_os_str() == "-") {
        return Err(usage("-L edits FILE in place: it cannot be combined with -o or standard input"));
    }
    let flags = if flag_tokens.is_empty() {
        ParseFlags::default()
    } else {
        let m = flags_cmd.try_get_matches_from(&flag_tokens).map_err(|e| {
            let msg = e.to_string();
            usage(msg.lines().next().unwrap_or_default().trim_start_matches("error: "))
        })?;
        ParseFlags::from_arg_matches(&m).map_err(|e| usage(&e.to_string()))?
    };
    Ok(Plan { ns, ops, in_place, out, file, preserve_whitespace, flags })
}

/// Problems while applying operations.
enum Fail {
    /// XPath syntax or usage: exit 2.
    Usage(String),
    /// An edit that cannot be made, or a malformed document: exit 1.
    Edit(String),
}

fn compile(x: &str, ns: &Namespaces) -> Result<XPath, Fail> {
    XPath::compile(x, ns).map_err(|e| Fail::Usage(format!("{e}")))
}

fn select<'d>(x: &XPath, doc: &'d Document<'d>) -> Result<Vec<XNode<'d>>, Fail> {
    x.select(doc.root()).map(|s| s.into_vec()).map_err(|e| Fail::Usage(format!("{e}")))
}

/// The core nodes behind an XPath node: a text node is a run of text and CDATA siblings.
fn members<'d>(n: &XNode<'d>) -> Result<Vec<Node<'d>>, Fail> {
    match n.kind() {
        XNodeKind::Namespace => Err(Fail::Edit("namespace nodes cannot be edited; edit the xmlns attribute instead".into())),
        XNodeKind::Root => Err(Fail::Edit("the root node cannot be edited".into())),
        XNodeKind::Text => {
            let mut v = vec![n.node()];
            let mut cur = n.node().next_sibling();
            while let Some(c) = cur.filter(|c| matches!(c.kind(), NodeKind::Text | NodeKind::CData)) {
                v.push(c);
                cur = c.next_sibling();
            }
            Ok(v)
        }
        _ => Ok(vec![n.node()]),
    }
}

fn ed(e: EditError) -> Fail {
    Fail::Edit(e.to_string())
}

/// Applies one operation to `doc`, returning the new bytes. Removed nodes take the
/// indentation of their line along unless `preserve_whitespace`.
fn apply(op: &Op, doc: &Document<'_>, ns: &Namespaces, preserve_whitespace: bool) -> Result<Vec<u8>, Fail> {
    let mut editor = Editor::new(doc).check_fragments(true).remove_indentation(!preserve_whitespace);
    match op {
        Op::Delete(x) => {
            let x = compile(x, ns)?;
            for n in select(&x, doc)? {
                for m in members(&n)? {
                    editor.remove(m).map_err(ed)?;
                }
            }
        }
        Op::Update(x, v) => {
            let x = compile(x, ns)?;
            for n in select(&x, doc)? {
                let ms = members(&n)?;
                editor.set_value(ms[0], v).map_err(ed)?;
                for m in &ms[1..] {
                    editor.remove(*m).map_err(ed)?;
                }
            }
        }
        Op::Rename(x, name) => {
            let x = compile(x, ns)?;
            for n in select(&x, doc)? {
                // through `members`: a namespace node's `node()` is its element
                editor.rename(members(&n)?[0], name).map_err(ed)?;
            }
        }
        Op::Insert { at, xpath, what, name, value } => {
            let x = compile(xpath, ns)?;
            let value = value.as_deref().unwrap_or("");
            for n in select(&x, doc)? {
                let target = members(&n)?;
                let node = if *at == Where::After { *target.last().unwrap_or(&target[0]) } else { target[0] };
                match what {
                    What::Attr => {
                        let el = if node.is_element() {
                            node
                        } else {
                            return Err(Fail::Edit(format!("cannot add attribute `{name}` to a {:?} node", node.kind())));
                        };
                        editor.set_attribute(el, name, value).map_err(ed)?;
                    }
                    What::Elem | What::Text => {
                        // the name goes into the fragment as it is: `a b="1"` must not pass
                        if *what == What::Elem && !is_name(name.as_bytes()) {
                            return Err(Fail::Edit(format!("`{name}` is not a valid element name")));
                        }
                        let frag = if *what == What::Text {
                            escape_text(value).into_owned()
                        } else if value.is_empty() {
                            format!("<{name}/>")
                        } else {
                            format!("<{name}>{}</{name}>", escape_text(value))
                        };
                        match at {
                            Where::Before => editor.insert_before(node, &frag),
                            Where::After => editor.insert_after(node, &frag),
                            Where::Sub => editor.append_child(node, &frag),
                        }
                        .map_err(ed)?;
                    }
                }
            }
        }
        Op::Move(x, target) => {
            let x = compile(x, ns)?;
            let t = compile(target, ns)?;
            let dest = select(&t, doc)?
                .into_iter()
                .find(|n| n.is_element())
                .ok_or_else(|| Fail::Edit(format!("move target `{target}` selects no element")))?;
            let dest = dest.node();
            // ranges already moved: a selected node inside one travels with it
            let mut moved: Vec<std::ops::Range<usize>> = Vec::new();
            for n in select(&x, doc)? {
                for m in members(&n)? {
                    let r = m.range();
                    if moved.iter().any(|o| o.start <= r.start && r.end <= o.end) {
                        continue;
                    }
                    if r.start <= dest.range().start && dest.range().end <= r.end {
                        return Err(Fail::Edit("cannot move a node into itself".into()));
                    }
                    if m.is_attribute() && m.parent() == Some(dest) {
                        continue; // already there (setting then removing it would delete it)
                    }
                    moved.push(r);
                    if m.is_attribute() {
                        let v = m.value();
                        editor.set_attribute(dest, m.name(), &v).map_err(ed)?;
                    } else {
                        editor.append_bytes(dest, m.raw()).map_err(ed)?;
                    }
                    editor.remove(m).map_err(ed)?;
                }
            }
        }
    }
    editor.to_vec().map_err(ed)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.vtdx-{}.tmp", std::process::id()));
    let res = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res
}

/// Runs `vtdx edit`.
pub fn run(a: EditArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let plan = match parse_plan(&a.args) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("vtdx edit: {m}");
            return Ok(ExitCode::from(2));
        }
    };
    let display = crate::display(&plan.file);
    // XPath expressions compile once up front, so a typo fails before any work
    for op in &plan.ops {
        let xs: Vec<&String> = match op {
            Op::Delete(x) | Op::Update(x, _) | Op::Rename(x, _) => vec![x],
            Op::Insert { xpath, .. } => vec![xpath],
            Op::Move(x, t) => vec![x, t],
        };
        for x in xs {
            if let Err(e) = XPath::compile(x, &plan.ns) {
                eprintln!("vtdx edit: {e}");
                return Ok(ExitCode::from(2));
            }
        }
    }
    let preserve = a.preserve_whitespace || plan.preserve_whitespace;
    // every parse (the input, then each operation's result) with the same options
    let mut parser = a.opts.merge(plan.flags).parser();
    let mut doc = match crate::parse_input(&mut parser, &plan.file) {
        Ok(Ok(d)) => d,
        Ok(Err(e)) => {
            crate::report(&display, "", &e);
            return Ok(ExitCode::from(1));
        }
        Err(e) => {
            eprintln!("{display}: cannot read: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    for (k, op) in plan.ops.iter().enumerate() {
        let bytes = match apply(op, &doc, &plan.ns, preserve) {
            Ok(b) => b,
            Err(Fail::Usage(m)) => {
                eprintln!("vtdx edit: {m}");
                return Ok(ExitCode::from(2));
            }
            Err(Fail::Edit(m)) => {
                eprintln!("{display}: operation {} ({op:?}): {m}", k + 1);
                return Ok(ExitCode::from(1));
            }
        };
        // each result is checked (raw moves are not checked where they land) and is
        // what the next operation selects in
        parser.recycle(doc);
        doc = match parser.parse_owned(bytes) {
            Ok(d) => d,
            Err(e) => {
                // the position is in the result of the operation, not in FILE, so it
                // does not take the `FILE:LINE:COL` slot of [`crate::report`]
                eprintln!(
                    "{display}: operation {} produced a document that is not well-formed: {}:{}: {} (byte {} of the result)",
                    k + 1,
                    e.line(),
                    e.column(),
                    e.kind(),
                    e.offset()
                );
                return Ok(ExitCode::from(1));
            }
        };
    }
    // with no operation this is the input as it was (checked, as xmlstarlet does)
    let bytes = doc.source();
    if plan.in_place {
        write_atomically(&plan.file, bytes)?;
    } else if let Some(o) = &plan.out {
        write_atomically(o, bytes)?;
    } else {
        out.write_all(bytes)?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}
