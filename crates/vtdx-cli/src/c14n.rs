//! `vtdx c14n`: canonical XML of a document or a document subset.
//!
//! `vtdx c14n [--exclusive] [--c14n11] [--with-comments] [--inclusive-prefixes "p1 p2"]
//! [--subtree XPATH] [--exclude XPATH] FILE` writes to standard output the
//! canonical form (Canonical XML 1.0 by default, 1.1 with `--c14n11`,
//! Exclusive XML Canonicalization 1.0 with `--exclusive`) of the document, or
//! of the subtree rooted at the first element `--subtree` selects — the
//! node-set an XML Signature same-document reference produces — minus the
//! subtrees `--exclude` selects (the enveloped-signature transform).
//!
//! The prefixes used in the XPath expressions are those declared in the
//! document (the first declaration of each prefix wins); `--ns P=URI` adds or
//! overrides a binding.
//!
//! Exit status: 0 on success, 1 when the document is not well-formed (or
//! cannot be canonicalized, e.g. a relative namespace URI), 2 on a bad XPath
//! (syntax error, or `--subtree` selecting no element) or a usage error.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use vtdx::c14n::{Algorithm, C14nError, Canonicalizer, SetNode};
use vtdx::xpath::{Namespaces, XNodeKind, XPath};
use vtdx::{Document, Node, NodeKind};

/// Arguments of `vtdx c14n`.
#[derive(Args)]
pub struct C14nArgs {
    /// Exclusive XML Canonicalization 1.0 (http://www.w3.org/2001/10/xml-exc-c14n#).
    #[arg(long, conflicts_with = "c14n11")]
    exclusive: bool,
    /// Canonical XML 1.1 (http://www.w3.org/2006/12/xml-c14n11).
    #[arg(long)]
    c14n11: bool,
    /// Keep comments (the #WithComments variants).
    #[arg(long)]
    with_comments: bool,
    /// The InclusiveNamespaces PrefixList for --exclusive: space-separated prefixes, `#default` for the default namespace.
    #[arg(long, value_name = "PREFIXES", requires = "exclusive")]
    inclusive_prefixes: Option<String>,
    /// Canonicalize only the subtree rooted at the first element this XPath selects.
    #[arg(long, value_name = "XPATH")]
    subtree: Option<String>,
    /// Leave out the subtrees rooted at the nodes this XPath selects.
    #[arg(long, value_name = "XPATH")]
    exclude: Option<String>,
    /// Bind a namespace prefix for the XPath expressions (repeatable).
    #[arg(long = "ns", value_name = "PREFIX=URI")]
    ns: Vec<String>,
    /// The document; `-` reads standard input.
    file: PathBuf,
    #[command(flatten)]
    opts: crate::ParseFlags,
}

/// The prefixes declared in the document, first declaration first.
fn document_namespaces(doc: &Document<'_>, extra: &[String]) -> Result<Namespaces, String> {
    let mut ns = Namespaces::declared_in(doc);
    for b in extra {
        let (p, u) = b.split_once('=').ok_or_else(|| format!("--ns `{b}` is not of the form PREFIX=URI"))?;
        ns.insert(p, u);
    }
    Ok(ns)
}

fn compile(expr: &str, ns: &Namespaces, what: &str) -> Result<XPath, String> {
    XPath::compile(expr, ns).map_err(|e| format!("bad {what} expression: {e}"))
}

/// Runs the subcommand, writing the canonical form to `out`.
pub fn run(a: C14nArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let doc = match crate::parse_input(&mut a.opts.parser(), &a.file) {
        Ok(Ok(d)) => d,
        Ok(Err(e)) => {
            crate::report(&crate::display(&a.file), "", &e);
            return Ok(ExitCode::from(1));
        }
        Err(e) => {
            eprintln!("{}: cannot read: {e}", crate::display(&a.file));
            return Ok(ExitCode::from(1));
        }
    };
    let alg = if a.exclusive {
        Algorithm::ExcC14n10
    } else if a.c14n11 {
        Algorithm::C14n11
    } else {
        Algorithm::C14n10
    };
    let mut c = Canonicalizer::new(alg).with_comments(a.with_comments);
    if let Some(list) = &a.inclusive_prefixes {
        c = c.inclusive_prefix_list(list);
    }
    let bad_xpath = |msg: String| {
        eprintln!("vtdx c14n: {msg}");
        Ok(ExitCode::from(2))
    };
    let ns = if a.subtree.is_none() && a.exclude.is_none() {
        Namespaces::new()
    } else {
        match document_namespaces(&doc, &a.ns) {
            Ok(n) => n,
            Err(m) => return bad_xpath(m),
        }
    };
    let apex: Node<'_> = match &a.subtree {
        None => doc.root(),
        Some(expr) => {
            let xp = match compile(expr, &ns, "--subtree") {
                Ok(x) => x,
                Err(m) => return bad_xpath(m),
            };
            let set = match xp.select(doc.root()) {
                Ok(s) => s,
                Err(e) => return bad_xpath(format!("bad --subtree expression: {e}")),
            };
            match set.iter().find(|x| x.kind() == XNodeKind::Element) {
                Some(x) => x.node(),
                None => return bad_xpath(format!("--subtree `{expr}` selects no element")),
            }
        }
    };
    let mut excluded: Vec<Node<'_>> = Vec::new();
    let mut excluded_other = false;
    if let Some(expr) = &a.exclude {
        let xp = match compile(expr, &ns, "--exclude") {
            Ok(x) => x,
            Err(m) => return bad_xpath(m),
        };
        match xp.select(doc.root()) {
            Ok(set) => {
                for x in set.iter() {
                    match x.kind() {
                        XNodeKind::Namespace => excluded_other = true,
                        XNodeKind::Element => excluded.push(x.node()),
                        _ => {
                            excluded_other = true;
                            excluded.push(x.node());
                        }
                    }
                }
            }
            Err(e) => return bad_xpath(format!("bad --exclude expression: {e}")),
        }
    }
    let r = if !excluded_other {
        c.canonicalize_subtree_excluding(apex, &excluded, out)
    } else {
        // non-element exclusions (text, comments, attributes, namespace nodes): the
        // general node-set walk over the subtree minus the selected nodes
        let xp = compile(a.exclude.as_deref().unwrap_or(""), &ns, "--exclude").ok();
        let ex_ns: Vec<(vtdx::NodeId, String)> = xp
            .and_then(|x| x.select(doc.root()).ok())
            .map(|set| set.iter().filter_map(|x| x.namespace().map(|(p, _)| (x.node().id(), p.to_string()))).collect())
            .unwrap_or_default();
        let in_subtree = |n: Node<'_>| -> bool {
            let mut cur = Some(n);
            let mut inside = apex.kind() == NodeKind::Root;
            while let Some(x) = cur {
                if excluded.contains(&x) {
                    return false;
                }
                if x == apex {
                    inside = true;
                }
                cur = x.parent();
            }
            inside
        };
        c.canonicalize_node_set(
            &doc,
            |n| match n {
                SetNode::Node(x) => in_subtree(x),
                SetNode::Namespace { element, prefix } => {
                    in_subtree(element) && !ex_ns.iter().any(|(id, p)| *id == element.id() && p == prefix)
                }
            },
            out,
        )
    };
    match r {
        Ok(()) => {
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Err(C14nError::Io(e)) => Err(e),
        Err(e) => {
            eprintln!("{}: {e}", crate::display(&a.file));
            Ok(ExitCode::from(1))
        }
    }
}
