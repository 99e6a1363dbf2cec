//! Dereferencing a Reference (same-document only), applying its transforms
//! and streaming the result into the digest.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use vtdx_c14n::xpath::XPathNodeSet;
use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::tape::{RecordId, RecordKind, Tape};
use vtdx_core::{Document, Node, NodeId, NodeKind, XML_NAMESPACE};
use vtdx_xpath::{Context, Functions, Namespaces, NodeSet, Value, XNode, XNodeKind, XPath};

use crate::alg::WSU_NS;
use crate::crypto::DigestContext;
use crate::error::{Error, ErrorKind};
use crate::pipe;
use crate::signature::{Reference, Transform};

/// The ID-like attributes of a document, by value: `Id`, `ID`, `id` (no
/// namespace), `wsu:Id`, `xml:id` and attributes the internal subset
/// declares with type ID; and where its comments are. Built once per
/// verification, in one pass over the tape ([`IdIndex::scan`]).
pub(crate) struct IdIndex<'d> {
    map: HashMap<String, (Node<'d>, usize)>,
    /// The comment records of the tape, in order (their word indexes).
    comments: Vec<u32>,
}

pub(crate) fn is_id_like(a: &Node<'_>) -> bool {
    if a.is_namespace_declaration() {
        return false;
    }
    match (a.namespace_uri(), a.local_name()) {
        (None, "Id" | "ID" | "id") => true,
        (Some(WSU_NS), "Id") => true,
        _ => a.is_id(),
    }
}

/// The symbols of the expanded names `wanted` (namespace, local name), each with its index in `wanted`.
fn wanted_syms(doc: &Document<'_>, wanted: &[(&str, &str)]) -> Vec<(vtdx_core::Sym, usize)> {
    let names = doc.names();
    wanted
        .iter()
        .enumerate()
        .flat_map(|(k, (ns, local))| names.syms_matching(Some(ns), Some(local)).into_iter().map(move |s| (s, k)))
        .collect()
}

impl<'d> IdIndex<'d> {
    pub(crate) fn new(doc: &'d Document<'d>) -> IdIndex<'d> {
        Self::scan(doc, &[]).0
    }

    /// The index, and the elements of `doc` whose expanded name is one of `wanted`
    /// as [`elements_named`] finds them, from one pass over the tape's records.
    pub(crate) fn scan(doc: &'d Document<'d>, wanted: &[(&str, &str)]) -> (IdIndex<'d>, Vec<(usize, Node<'d>)>) {
        // By symbol, `Id`/`ID`/`id`, `wsu:Id` and `xml:id` are ID-like; with a DTD any
        // attribute may also be declared ID (or be defaulted), which the `Node` asks
        // the DTD about. The names are judged once per symbol, into `flags`; the loop
        // over the records then stops only at a record whose symbol is flagged or that
        // is a comment (a `match` on each record's kind costs a mispredicted indirect
        // jump per record: element and attribute records alternate irregularly).
        const WANTED: u8 = 1;
        const ID_NAME: u8 = 2;
        const DTD_ID: u8 = 4;
        let tape = Tape::of(doc);
        let names = doc.names();
        let with_dtd = doc.dtd().is_some();
        let syms = wanted_syms(doc, wanted);
        let mut flags: Vec<u8> = names
            .syms()
            .map(|sym| {
                let named =
                    matches!((names.ns_uri(sym), names.local(sym)), ("", "Id" | "ID" | "id") | (WSU_NS, "Id") | (XML_NAMESPACE, "id"));
                if named {
                    ID_NAME
                } else if with_dtd {
                    DTD_ID
                } else {
                    0
                }
            })
            .collect();
        for (s, _) in &syms {
            if let Some(f) = flags.get_mut(s.index()) {
                *f |= WANTED;
            }
        }
        let mut found = Vec::new();
        let mut map: HashMap<String, (Node<'d>, usize)> = HashMap::new();
        let mut comments = Vec::new();
        let mut element: Option<RecordId> = None;
        let mut r = RecordId::new(0);
        let end = tape.end();
        while r < end {
            let is_element = tape.is_element(r);
            if is_element {
                element = Some(r);
            }
            let f = flags.get(tape.symbol(r).index()).copied().unwrap_or(0);
            if f != 0 || tape.is_kind(r, RecordKind::Comment) {
                match tape.kind(r) {
                    RecordKind::Element if f & WANTED != 0 => {
                        let s = tape.symbol(r);
                        if let Some(&(_, k)) = syms.iter().find(|(x, _)| *x == s) {
                            if let Some(n) = doc.node_at_record(r.word()) {
                                found.push((k, n));
                            }
                        }
                    }
                    RecordKind::Comment => comments.push(r.word()),
                    RecordKind::Attribute | RecordKind::AttributeDefault if f & (ID_NAME | DTD_ID) != 0 => {
                        let by_name = f & ID_NAME != 0;
                        if let Some(e) = element.and_then(|e: RecordId| doc.node_at_record(e.word())) {
                            let a = e.attributes().find(|a| RecordId::of(a) == Some(r));
                            if let Some(a) = a.filter(|a| by_name || a.is_id()) {
                                let v = a.value().trim().to_string();
                                map.entry(v).and_modify(|(_, n)| *n += 1).or_insert((e, 1));
                            }
                        }
                    }
                    _ => {}
                }
            }
            r = tape.after_record(r);
        }
        (IdIndex { map, comments }, found)
    }

    /// The element with ID `id`; `DuplicateId` when two ID-like attributes carry it.
    pub(crate) fn get(&self, id: &str) -> Result<Node<'d>, ErrorKind> {
        match self.map.get(id) {
            Some((_, n)) if *n > 1 => Err(ErrorKind::DuplicateId(id.into())),
            Some((e, _)) => Ok(*e),
            None => Err(ErrorKind::IdNotFound(id.into())),
        }
    }

    /// Does the subtree of `apex` (a node of the indexed document; the whole
    /// document for the root) hold a comment? A binary search of the comment records.
    pub(crate) fn has_comment(&self, apex: Node<'_>) -> bool {
        let tape = Tape::of(apex.document());
        let (r, end) = match RecordId::of(&apex) {
            Some(r) => (r, tape.subtree_end(r)),
            None => tape.root_child_range(),
        };
        let i = self.comments.partition_point(|&c| c < r.word());
        self.comments.get(i).is_some_and(|&c| c < end.word())
    }
}

/// The elements of `doc` whose expanded name is one of `wanted` (namespace,
/// local name), in document order, each with its index in `wanted`: the names
/// are looked up once, then the tape is searched for their element records
/// (`vtdx_core::tape::elements_with_symbols`: a comparison of raw words, no
/// `Node` and no name string per element).
pub(crate) fn elements_named<'d>(doc: &'d Document<'d>, wanted: &[(&str, &str)]) -> Vec<(usize, Node<'d>)> {
    let syms = wanted_syms(doc, wanted);
    let only: Vec<vtdx_core::Sym> = syms.iter().map(|(s, _)| *s).collect();
    let tape = Tape::of(doc);
    vtdx_core::tape::elements_with_symbols(doc, &only)
        .into_iter()
        .filter_map(|r| {
            let s = tape.symbol(r);
            let k = syms.iter().find(|(x, _)| *x == s)?.1;
            Some((k, doc.node_at_record(r.word())?))
        })
        .collect()
}

/// The data between transforms.
enum Data<'d> {
    /// The subtree at `apex` (the root for the whole document) minus the
    /// `excluded` subtrees; comments kept or not.
    Tree { apex: Node<'d>, comments: bool, excluded: Vec<Node<'d>> },
    /// An explicit node-set (after an XPath or XPath Filter 2.0 transform), in document order.
    Set { apex: Node<'d>, nodes: Vec<XNode<'d>> },
    /// An octet stream.
    Octets(Vec<u8>),
}

/// What a Reference was verified to cover.
#[derive(Debug, Clone)]
pub(crate) enum Coverage<'d> {
    Tree {
        apex: Node<'d>,
        comments: bool,
        excluded: Vec<Node<'d>>,
    },
    Set {
        apex: Node<'d>,
        set: XPathNodeSet<'d>,
    },
    /// Decoded base64: the text of `apex`'s subtree, not its markup.
    Text {
        apex: Node<'d>,
    },
}

impl<'d> Coverage<'d> {
    /// The node the Reference's URI selected.
    pub(crate) fn apex(&self) -> Node<'d> {
        match self {
            Coverage::Tree { apex, .. } | Coverage::Set { apex, .. } | Coverage::Text { apex } => *apex,
        }
    }
}

/// Resolves the URI of a same-document Reference: (apex, comments kept).
pub(crate) fn dereference<'d>(doc: &'d Document<'d>, uri: Option<&str>, ids: &IdIndex<'d>) -> Result<(Node<'d>, bool), ErrorKind> {
    let Some(uri) = uri else {
        // the application is to know the data: nothing in the document says what it is
        return Err(ErrorKind::ExternalReference("(no URI)".into()));
    };
    if uri.is_empty() {
        return Ok((doc.root(), false));
    }
    let Some(frag) = uri.strip_prefix('#') else {
        return Err(ErrorKind::ExternalReference(uri.into()));
    };
    if frag == "xpointer(/)" {
        return Ok((doc.root(), true));
    }
    if let Some(inner) = frag.strip_prefix("xpointer(id(").and_then(|r| r.strip_suffix("))")) {
        let id = inner
            .strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .or_else(|| inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
            .ok_or_else(|| ErrorKind::UnsupportedReference(uri.into()))?;
        return Ok((ids.get(id)?, true));
    }
    if frag.is_empty() || !vtdx_core::is_name(frag.as_bytes()) || frag.contains(':') {
        return Err(ErrorKind::UnsupportedReference(uri.into()));
    }
    Ok((ids.get(frag)?, false))
}

/// Every node of the subtree at `apex` as XPath sees it (attributes and
/// namespace nodes included), in document order.
fn all_nodes<'d>(apex: Node<'d>, comments: bool, excluded: &[Node<'d>]) -> Result<Vec<XNode<'d>>, Error> {
    let expr = if apex.kind() == NodeKind::Root {
        "(//. | //@* | //namespace::*)"
    } else {
        "(descendant-or-self::node() | descendant-or-self::node()/@* | descendant-or-self::node()/namespace::*)"
    };
    let set =
        XPath::compile(expr, &Namespaces::new()).and_then(|x| x.select(apex)).map_err(|e| Error::new(ErrorKind::XPath(e.to_string())))?;
    Ok(set.iter().copied().filter(|x| (comments || x.kind() != XNodeKind::Comment) && !under_any(x.node(), excluded)).collect())
}

/// Is `n` (or, for attributes and namespace nodes, its element) in one of the subtrees at `roots`?
fn under_any(n: Node<'_>, roots: &[Node<'_>]) -> bool {
    if roots.is_empty() {
        return false;
    }
    let mut cur = Some(n);
    while let Some(c) = cur {
        if roots.contains(&c) {
            return true;
        }
        cur = c.parent();
    }
    false
}

fn xpath_err(e: impl std::fmt::Display, at: Node<'_>) -> Error {
    Error::at(ErrorKind::XPath(e.to_string()), at.range().start)
}

/// The namespace context of an XPath element: the declarations in scope on it.
fn namespaces_of(x: Node<'_>) -> Namespaces {
    let mut ns = Namespaces::new();
    for (p, u) in x.namespaces() {
        if !p.is_empty() {
            ns.insert(p, u);
        }
    }
    ns
}

/// `here()` (XML Signature §6.6.3.1): the element that bears the expression,
/// by its record index in the tape.
struct Here(u32);

impl vtdx_xpath::Function for Here {
    fn call<'d>(&self, cx: &vtdx_xpath::CallContext<'_, 'd>, args: Vec<Value<'d>>) -> Result<Value<'d>, String> {
        if !args.is_empty() {
            return Err("here() takes no argument".to_string());
        }
        let n = cx.document().node_at_record(self.0).ok_or("here(): no such node")?;
        Ok(Value::NodeSet(NodeSet::from_nodes(vec![XNode::from_node(n)])))
    }
}

fn here_functions(x: Node<'_>) -> Functions {
    let mut f = Functions::new();
    if let Some(rec) = x.record() {
        f.insert("here", Here(rec));
    }
    f
}

/// [`digest_input`] into the digest `ctx`, finished: what the Reference covers
/// and its digest. With `parallel`, a Reference whose subtree is large is
/// hashed by this thread's helper (`crate::pipe`) while it is canonicalized.
pub(crate) fn digest_streamed<'d>(
    doc: &'d Document<'d>,
    r: &Reference<'d>,
    signature: Node<'d>,
    ids: &IdIndex<'d>,
    mut ctx: Box<dyn DigestContext>,
    parallel: bool,
) -> Result<(Coverage<'d>, Vec<u8>), Error> {
    let large = || dereference(doc, r.uri.as_deref(), ids).is_ok_and(|(a, _)| a.range().len() >= pipe::STREAM_MIN_BYTES);
    if parallel && large() {
        match pipe::stream(ctx) {
            Ok(mut w) => {
                let coverage = digest_input(doc, r, signature, ids, &mut w, pipe::CHUNK)?;
                return Ok((coverage, w.finish()));
            }
            Err(c) => ctx = c,
        }
    }
    let coverage = digest_input(doc, r, signature, ids, &mut ctx, usize::MAX)?;
    Ok((coverage, ctx.finish()))
}

/// Applies the transforms of `r` to the data the URI selects and writes the
/// digest input to `out`, in writes of about `write_size` bytes (see
/// [`Canonicalizer::write_size`]). Returns what the Reference covers.
pub(crate) fn digest_input<'d, W: Write + ?Sized>(
    doc: &'d Document<'d>,
    r: &Reference<'d>,
    signature: Node<'d>,
    ids: &IdIndex<'d>,
    out: &mut W,
    write_size: usize,
) -> Result<Coverage<'d>, Error> {
    let at = r.node.range().start;
    let (apex, comments) = dereference(doc, r.uri.as_deref(), ids).map_err(|k| Error::at(k, at))?;
    let mut data = Data::Tree { apex, comments, excluded: Vec::new() };
    let n = r.transforms.len();
    for (i, t) in r.transforms.iter().enumerate() {
        let last = i + 1 == n;
        let tat = t.node.range().start;
        let transform_err = |reason: &str| Error::at(ErrorKind::Transform { uri: t.uri.clone(), reason: reason.into() }, tat);
        data = match (&t.kind, data) {
            (Transform::Enveloped, Data::Tree { apex, comments, mut excluded }) => {
                excluded.push(signature);
                Data::Tree { apex, comments, excluded }
            }
            (Transform::Enveloped, Data::Set { apex, nodes }) => {
                Data::Set { apex, nodes: nodes.into_iter().filter(|x| !under_any(x.node(), &[signature])).collect() }
            }
            (Transform::C14n(c), d @ (Data::Tree { .. } | Data::Set { .. })) => {
                if last {
                    return finish(d, c, out, tat, write_size);
                }
                let mut v = Vec::new();
                finish(d, c, &mut v, tat, write_size)?;
                Data::Octets(v)
            }
            (Transform::Base64, d) => {
                let text: String = match d {
                    Data::Octets(o) => String::from_utf8_lossy(&o).into_owned(),
                    Data::Tree { apex, excluded, .. } => {
                        let mut s = String::new();
                        for x in apex.descendants() {
                            if matches!(x.kind(), NodeKind::Text | NodeKind::CData) && !under_any(x, &excluded) {
                                s.push_str(&x.value());
                            }
                        }
                        s
                    }
                    Data::Set { nodes, .. } => {
                        nodes.iter().filter(|x| x.kind() == XNodeKind::Text).map(|x| x.string_value().into_owned()).collect()
                    }
                };
                Data::Octets(crate::key::decode_base64(&text).ok_or_else(|| transform_err("the input is not base64"))?)
            }
            (Transform::XPath(x), d) => {
                let (apex, nodes) = to_set(d, tat, &t.uri)?;
                let ns = namespaces_of(*x);
                let xp = XPath::compile_with(&x.value(), &ns, &here_functions(*x)).map_err(|e| xpath_err(e, *x))?;
                let ctx = Context::new(doc);
                let mut kept = Vec::with_capacity(nodes.len());
                for node in nodes {
                    if xp.evaluate_in(&ctx, node).map_err(|e| xpath_err(e, *x))?.boolean() {
                        kept.push(node);
                    }
                }
                Data::Set { apex, nodes: kept }
            }
            (Transform::Filter2(xs), d) => {
                let (apex, nodes) = to_set(d, tat, &t.uri)?;
                // XPath Filter 2.0 §3.4: Z starts as every node of the document; each
                // filter intersects, subtracts or unions the subtree expansion of its
                // node-set; the output is the input node-set intersected with Z
                let mut ops: Vec<(u8, HashSet<NodeId>)> = Vec::new();
                for x in xs {
                    let op = match x.attribute("Filter").as_deref() {
                        Some("intersect") => 0,
                        Some("subtract") => 1,
                        Some("union") => 2,
                        _ => {
                            return Err(Error::at(
                                ErrorKind::Malformed("XPath Filter 2.0 Filter must be intersect, subtract or union".into()),
                                x.range().start,
                            ))
                        }
                    };
                    let xp = XPath::compile_with(&x.value(), &namespaces_of(*x), &here_functions(*x)).map_err(|e| xpath_err(e, *x))?;
                    let set = xp.select(doc.root()).map_err(|e| xpath_err(e, *x))?;
                    ops.push((op, set.iter().map(|n| n.node().id()).collect()));
                }
                let in_expansion = |n: Node<'_>, s: &HashSet<NodeId>| {
                    let mut cur = Some(n);
                    while let Some(c) = cur {
                        if s.contains(&c.id()) {
                            return true;
                        }
                        cur = c.parent();
                    }
                    false
                };
                let kept = nodes
                    .into_iter()
                    .filter(|x| {
                        let mut z = true;
                        for (op, s) in &ops {
                            let e = in_expansion(x.node(), s);
                            z = match op {
                                0 => z && e,
                                1 => z && !e,
                                _ => z || e,
                            };
                        }
                        z
                    })
                    .collect();
                Data::Set { apex, nodes: kept }
            }
            (_, Data::Octets(_)) => return Err(transform_err("it needs a node-set, and parsing octets back into XML is not offered")),
        };
    }
    match data {
        Data::Octets(o) => {
            out.write_all(&o).map_err(|e| Error::at(ErrorKind::C14n(e.to_string()), at))?;
            Ok(Coverage::Text { apex })
        }
        d => finish(d, &Canonicalizer::new(Algorithm::C14n10), out, at, write_size),
    }
}

fn to_set<'d>(d: Data<'d>, at: usize, uri: &str) -> Result<(Node<'d>, Vec<XNode<'d>>), Error> {
    match d {
        Data::Tree { apex, comments, excluded } => Ok((apex, all_nodes(apex, comments, &excluded)?)),
        Data::Set { apex, nodes } => Ok((apex, nodes)),
        Data::Octets(_) => Err(Error::at(
            ErrorKind::Transform { uri: uri.into(), reason: "it needs a node-set, and parsing octets back into XML is not offered".into() },
            at,
        )),
    }
}

/// Canonicalizes a node-set into `out` (streamed: a digest context is a `Write`).
fn finish<'d, W: Write + ?Sized>(d: Data<'d>, c: &Canonicalizer, out: &mut W, at: usize, write_size: usize) -> Result<Coverage<'d>, Error> {
    let c14n_err = |e: vtdx_c14n::C14nError| Error::at(ErrorKind::C14n(e.to_string()), at);
    match d {
        Data::Tree { apex, comments, excluded } => {
            let c = if comments { c.clone() } else { c.clone().with_comments(false) };
            c.write_size(write_size).canonicalize_subtree_excluding(apex, &excluded, out).map_err(c14n_err)?;
            Ok(Coverage::Tree { apex, comments, excluded })
        }
        Data::Set { apex, nodes } => {
            let set = XPathNodeSet::from_nodes(nodes);
            c.clone().write_size(write_size).canonicalize_xpath_node_set(apex.document(), &set, out).map_err(c14n_err)?;
            Ok(Coverage::Set { apex, set })
        }
        Data::Octets(_) => Err(Error::at(
            ErrorKind::Transform { uri: c.algorithm().uri(false).into(), reason: "canonicalization needs a node-set".into() },
            at,
        )),
    }
}
