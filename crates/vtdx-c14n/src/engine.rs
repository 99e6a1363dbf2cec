//! The node-set walk: canonicalization of an arbitrary XPath node-set, given
//! as a membership test, following the node-set rules of the specs (C14N 1.0
//! §2.3/§2.4, C14N 1.1 §2.4, Exc-C14N §3). The whole document is visited and
//! every node asked about; namespace nodes are (element, prefix) pairs.
//!
//! Namespace state is kept in small stacks: `scope` (every binding declared
//! on the open elements, nearest last), `ctx` (inclusive algorithms: the
//! namespace nodes in the set of each open output element, compared against
//! the nearest one as C14N 1.0 §2.3 says) and `xstack` (exclusive: the
//! namespace nodes each output element utilizes or lists, with whether each
//! is in the set).
//!
//! The document, subtree and excluded-subtree entry points use the faster
//! tape walk of `tree.rs`; the property tests check that both give the same
//! bytes for the same node-sets.

use std::io::{self, Write};

use vtdx_core::dtd::AttDefault;
use vtdx_core::{Document, Node, NodeKind, NsId, NS_NONE};

use crate::common::{self, lookup, Att, Sink};
use crate::escape;
use crate::{Algorithm, C14nError, Canonicalizer, SetNode};

type Pred<'s, 'd> = dyn FnMut(SetNode<'d>) -> bool + 's;

#[derive(Clone, Copy)]
struct Decl<'d> {
    prefix: &'d str,
    ns: NsId,
    node: Node<'d>,
}

/// Stack heights to restore when an element closes.
#[derive(Clone, Copy)]
struct Marks {
    scope: usize,
    ctx: usize,
    ctx_frames: usize,
    x: usize,
    x_frames: usize,
}

struct Engine<'d, 'c, 'w, W: Write + ?Sized> {
    c: &'c Canonicalizer,
    doc: &'d Document<'d>,
    sink: Sink<'w, W>,
    exclusive: bool,
    scope: Vec<(&'d str, NsId)>,
    ctx: Vec<(&'d str, NsId)>,
    ctx_frames: Vec<usize>,
    xstack: Vec<(&'d str, NsId, bool)>,
    xframes: Vec<usize>,
    /// The open elements, with whether each is output.
    opens: Vec<(Node<'d>, bool)>,
    recs: Vec<Node<'d>>,
    decls: Vec<Decl<'d>>,
    ns_out: Vec<(&'d str, NsId)>,
    atts: Vec<Att<'d>>,
    dtd_atts: bool,
}

impl<'d, 'c, 'w, W: Write + ?Sized> Engine<'d, 'c, 'w, W> {
    fn marks(&self) -> Marks {
        Marks {
            scope: self.scope.len(),
            ctx: self.ctx.len(),
            ctx_frames: self.ctx_frames.len(),
            x: self.xstack.len(),
            x_frames: self.xframes.len(),
        }
    }

    fn restore(&mut self, m: Marks) {
        self.scope.truncate(m.scope);
        self.ctx.truncate(m.ctx);
        self.ctx_frames.truncate(m.ctx_frames);
        self.xstack.truncate(m.x);
        self.xframes.truncate(m.x_frames);
    }

    /// Reads the element's attribute records into `recs`/`decls` and pushes its
    /// declarations on the scope stack.
    fn collect(&mut self, e: Node<'d>) {
        self.recs.clear();
        self.decls.clear();
        let names = self.doc.names();
        for a in e.all_attributes() {
            if a.is_namespace_declaration() {
                let prefix = if a.name() == "xmlns" { "" } else { a.local_name() };
                let v = a.value();
                let ns = if v.is_empty() { NS_NONE } else { names.find_ns(&v).unwrap_or(NS_NONE) };
                self.decls.push(Decl { prefix, ns, node: a });
                self.scope.push((prefix, ns));
            }
            self.recs.push(a);
        }
    }

    fn check_relative(&mut self) -> Result<(), C14nError> {
        for i in 0..self.decls.len() {
            let d = self.decls[i];
            common::check_ns_uri(self.doc.names(), d.prefix, d.ns, d.node.range().start)?;
        }
        Ok(())
    }

    /// The in-scope bindings of the current element (after `collect`), nearest
    /// first per prefix, without `xml` and without an undeclared default.
    fn in_scope(&self, out: &mut Vec<(&'d str, NsId)>) {
        for &(p, ns) in self.scope.iter().rev() {
            if p == "xml" || out.iter().any(|(q, _)| *q == p) {
                continue;
            }
            out.push((p, ns));
        }
        out.retain(|&(_, ns)| ns != NS_NONE);
    }

    fn listed(&self, p: &str) -> bool {
        self.c.prefixes.iter().any(|x| x == p)
    }

    /// Exclusive canonicalization (Exc-C14N §3) of the namespace axis of an output
    /// element: fills `out` with the declarations to render and records what the
    /// element utilizes for its descendants.
    ///
    /// * A prefix `e` visibly utilizes (its own; those of its attributes in the
    ///   node-set) is rendered when its namespace node is in the node-set and the
    ///   nearest output ancestor utilizing the prefix did not have the same binding
    ///   with its node in the node-set. An unprefixed element in no namespace gets
    ///   `xmlns=""` when the nearest binding of the default prefix is not empty.
    /// * A prefix of the InclusiveNamespaces PrefixList is treated as Canonical XML
    ///   does: rendered when its namespace node is in the node-set and the nearest
    ///   output ancestor does not have the same namespace node in the node-set.
    fn exclusive_ns(&mut self, e: Node<'d>, sel: &mut Pred<'_, 'd>, out: &mut Vec<(&'d str, NsId)>) {
        let prev_start = self.xframes.last().copied().unwrap_or(self.xstack.len());
        let mut pushes: Vec<(&'d str, NsId, bool)> = Vec::new();
        // the InclusiveNamespaces PrefixList
        for i in 0..self.c.prefixes.len() {
            let p: &str = &self.c.prefixes[i];
            if p == "xml" {
                continue;
            }
            let prev = &self.xstack[prev_start..];
            // take the prefix text from the scope, where it lives as long as the document
            let node = self.scope.iter().rev().find(|(q, _)| *q == p).copied().filter(|&(_, ns)| ns != NS_NONE);
            match node {
                Some((sp, ns)) if (sel)(SetNode::Namespace { element: e, prefix: sp }) => {
                    if !prev.iter().any(|&(q, m, v)| q == sp && m == ns && v) {
                        out.push((sp, ns));
                    }
                    pushes.push((sp, ns, true));
                }
                _ => {
                    if p.is_empty() && prev.iter().any(|&(q, m, v)| q.is_empty() && m != NS_NONE && v) {
                        out.push(("", NS_NONE));
                        pushes.push(("", NS_NONE, true));
                    }
                }
            }
        }
        // visibly utilized prefixes
        let mut used: Vec<(&'d str, NsId)> = Vec::new();
        let ep = e.prefix();
        if ep != "xml" {
            used.push((ep, e.namespace_id()));
        }
        for i in 0..self.recs.len() {
            let a = self.recs[i];
            if a.is_namespace_declaration() {
                continue;
            }
            let p = a.prefix();
            if p.is_empty() || p == "xml" || used.iter().any(|(q, _)| *q == p) || !(sel)(SetNode::Node(a)) {
                continue;
            }
            used.push((p, a.namespace_id()));
        }
        if self.dtd_atts {
            // prefixed attributes defaulted from the DTD are utilized too
            if let Some(dtd) = self.doc.dtd() {
                for ad in dtd.attributes_of(e.name()) {
                    if matches!(ad.default, AttDefault::Required | AttDefault::Implied) {
                        continue;
                    }
                    let Some((p, _)) = ad.name.split_once(':') else { continue };
                    if p == "xml" || p == "xmlns" || used.iter().any(|(q, _)| *q == p) {
                        continue;
                    }
                    if let Some(ns) = lookup(&self.scope, p) {
                        if ns != NS_NONE && !self.recs.iter().any(|r| r.name() == ad.name) {
                            used.push((&ad.name[..p.len()], ns));
                        }
                    }
                }
            }
        }
        for (p, ns) in used {
            if self.listed(p) {
                continue;
            }
            let nearest = self.xstack.iter().rev().find(|(q, _, _)| *q == p).copied();
            if ns == NS_NONE {
                // an unprefixed element in no namespace
                let covered = match nearest {
                    None => true,
                    Some((_, m, v)) => m == NS_NONE && v,
                };
                if !covered {
                    out.push(("", NS_NONE));
                }
                pushes.push(("", NS_NONE, true));
                continue;
            }
            let visible = (sel)(SetNode::Namespace { element: e, prefix: p });
            if visible && !nearest.is_some_and(|(_, m, v)| m == ns && v) {
                out.push((p, ns));
            }
            pushes.push((p, ns, visible));
        }
        self.xframes.push(self.xstack.len());
        self.xstack.extend(pushes);
    }

    /// Computes `ns_out` (sorted) for an output element.
    fn namespaces(&mut self, e: Node<'d>, sel: &mut Pred<'_, 'd>) {
        let mut cands = std::mem::take(&mut self.ns_out);
        cands.clear();
        if self.exclusive {
            self.exclusive_ns(e, sel, &mut cands);
        } else {
            // C14N 1.0 §2.3: compare with the namespace nodes (in the set) of the
            // nearest output ancestor.
            let mut l = Vec::new();
            self.in_scope(&mut l);
            l.retain(|&(p, _)| (sel)(SetNode::Namespace { element: e, prefix: p }));
            let frame = self.ctx_frames.last().map_or(&self.ctx[..0], |&s| &self.ctx[s..]);
            for &(p, ns) in &l {
                if !frame.iter().any(|&(q, m)| q == p && m == ns) {
                    cands.push((p, ns));
                }
            }
            if !l.iter().any(|(p, _)| p.is_empty()) && frame.iter().any(|(p, _)| p.is_empty()) {
                cands.push(("", NS_NONE));
            }
            self.ctx_frames.push(self.ctx.len());
            self.ctx.extend_from_slice(&l);
        }
        cands.sort_unstable_by(|a, b| common::cmp_str(a.0, b.0));
        cands.dedup_by(|a, b| common::same(a.0, b.0));
        self.ns_out = cands;
    }

    /// The output attribute list of `e` (sorted): its attributes in the set,
    /// attributes defaulted from the DTD, and (inclusive algorithms, when the
    /// parent is not output) what it inherits in the xml namespace.
    fn attributes(&mut self, e: Node<'d>, parent_output: bool, sel: &mut Pred<'_, 'd>) {
        let mut atts = std::mem::take(&mut self.atts);
        atts.clear();
        for i in 0..self.recs.len() {
            let a = self.recs[i];
            if !a.is_namespace_declaration() && (sel)(SetNode::Node(a)) {
                atts.push(Att::of(a));
            }
        }
        if self.dtd_atts {
            let names = self.doc.names();
            let scope = &self.scope;
            common::defaults_of(self.doc, e, &|p| lookup(scope, p).filter(|&n| n != NS_NONE).map(|n| names.ns_by_id(n)), &mut atts);
        }
        if !self.exclusive && !parent_output {
            let ancestors: Vec<(Node<'d>, bool)> = self.opens.iter().rev().copied().collect();
            common::inherit_xml_attrs(self.doc, self.c.alg, e, &ancestors, &mut atts);
        }
        common::sort_atts(&mut atts);
        self.atts = atts;
    }

    /// Writes the start tag of an element in the node-set.
    fn start_tag(&mut self, e: Node<'d>, parent_output: bool, sel: &mut Pred<'_, 'd>) -> Result<(), C14nError> {
        self.namespaces(e, sel);
        self.check_relative()?;
        self.attributes(e, parent_output, sel);
        let names = self.doc.names();
        let buf = &mut self.sink.buf;
        buf.push(b'<');
        buf.extend_from_slice(e.name().as_bytes());
        for &(p, ns) in &self.ns_out {
            common::write_ns(buf, names, p, ns);
        }
        for a in &self.atts {
            common::write_att(buf, a);
        }
        buf.push(b'>');
        self.sink.maybe_flush()?;
        Ok(())
    }

    /// C14N 1.0 §2.3 for an element that is not in the node-set: its namespace
    /// and attribute nodes that are in it are still output, as they would be
    /// inside a start tag (exclusive canonicalization: only the attributes, since
    /// a namespace node is rendered only when its element is output).
    fn orphan_axes(&mut self, e: Node<'d>, sel: &mut Pred<'_, 'd>) -> Result<(), C14nError> {
        let mut out: Vec<(&'d str, NsId)> = Vec::new();
        if self.exclusive {
            let prev_start = self.xframes.last().copied().unwrap_or(self.xstack.len());
            for i in 0..self.c.prefixes.len() {
                let p: &str = &self.c.prefixes[i];
                if p == "xml" {
                    continue;
                }
                let node = self.scope.iter().rev().find(|(q, _)| *q == p).copied().filter(|&(_, ns)| ns != NS_NONE);
                if let Some((sp, ns)) = node {
                    if (sel)(SetNode::Namespace { element: e, prefix: sp })
                        && !self.xstack[prev_start..].iter().any(|&(q, m, v)| q == sp && m == ns && v)
                    {
                        out.push((sp, ns));
                    }
                }
            }
            out.sort_unstable_by(|a, b| common::cmp_str(a.0, b.0));
        } else {
            let mut l = Vec::new();
            self.in_scope(&mut l);
            l.retain(|&(p, _)| (sel)(SetNode::Namespace { element: e, prefix: p }));
            let frame = self.ctx_frames.last().map_or(&self.ctx[..0], |&s| &self.ctx[s..]);
            out.extend(l.into_iter().filter(|&(p, ns)| !frame.iter().any(|&(q, m)| q == p && m == ns)));
            out.sort_unstable_by(|a, b| common::cmp_str(a.0, b.0));
        }
        let mut atts = std::mem::take(&mut self.atts);
        atts.clear();
        for i in 0..self.recs.len() {
            let a = self.recs[i];
            if !a.is_namespace_declaration() && (sel)(SetNode::Node(a)) {
                atts.push(Att::of(a));
            }
        }
        common::sort_atts(&mut atts);
        if !out.is_empty() || !atts.is_empty() {
            let names = self.doc.names();
            let buf = &mut self.sink.buf;
            for &(p, ns) in &out {
                common::write_ns(buf, names, p, ns);
            }
            for a in &atts {
                common::write_att(buf, a);
            }
            self.sink.maybe_flush()?;
        }
        self.atts = atts;
        Ok(())
    }

    fn end_tag(&mut self, e: Node<'d>) -> io::Result<()> {
        let buf = &mut self.sink.buf;
        buf.extend_from_slice(b"</");
        buf.extend_from_slice(e.name().as_bytes());
        buf.push(b'>');
        self.sink.maybe_flush()
    }

    fn text_node(&mut self, n: Node<'d>) -> io::Result<()> {
        escape::text_into(&mut self.sink.buf, n.value().as_bytes());
        self.sink.maybe_flush()
    }

    fn comment_node(&mut self, n: Node<'d>) -> io::Result<()> {
        let buf = &mut self.sink.buf;
        buf.extend_from_slice(b"<!--");
        buf.extend_from_slice(n.value().as_bytes());
        buf.extend_from_slice(b"-->");
        self.sink.maybe_flush()
    }

    fn pi_node(&mut self, n: Node<'d>) -> io::Result<()> {
        let data = n.value();
        let buf = &mut self.sink.buf;
        buf.extend_from_slice(b"<?");
        buf.extend_from_slice(n.pi_target().unwrap_or("").as_bytes());
        if !data.is_empty() {
            buf.push(b' ');
            buf.extend_from_slice(data.as_bytes());
        }
        buf.extend_from_slice(b"?>");
        self.sink.maybe_flush()
    }

    /// A child of the root node: a comment or PI, separated from the document
    /// element by a line feed on the side facing it.
    fn top_level(&mut self, n: Node<'d>, before_root: bool) -> io::Result<()> {
        if !before_root {
            self.sink.buf.push(b'\n');
        }
        match n.kind() {
            NodeKind::Comment => self.comment_node(n)?,
            NodeKind::ProcessingInstruction => self.pi_node(n)?,
            _ => {}
        }
        if before_root {
            self.sink.buf.push(b'\n');
        }
        Ok(())
    }

    /// The node-set walk over the whole document.
    fn set_walk(&mut self, sel: &mut Pred<'_, 'd>) -> Result<(), C14nError> {
        struct Frame<'d> {
            e: Node<'d>,
            next: Option<Node<'d>>,
            output: bool,
            marks: Marks,
        }
        let doc = self.doc;
        let root = doc.root();
        let root_elem_start = doc.root_element().range().start;
        let with_comments = self.c.with_comments;
        let mut stack: Vec<Frame<'d>> = Vec::new();
        let mut top_next = root.first_child();
        loop {
            let (c, depth) = match stack.last_mut() {
                Some(top) => match top.next {
                    Some(c) => {
                        top.next = c.next_sibling();
                        (c, stack.len())
                    }
                    None => {
                        let Some(f) = stack.pop() else { break };
                        self.opens.pop();
                        if f.output {
                            self.end_tag(f.e)?;
                        }
                        self.restore(f.marks);
                        continue;
                    }
                },
                None => match top_next {
                    Some(c) => {
                        top_next = c.next_sibling();
                        (c, 0)
                    }
                    None => break,
                },
            };
            match c.kind() {
                NodeKind::Element => {
                    let in_set = (sel)(SetNode::Node(c));
                    let parent_output = stack.last().is_some_and(|f| f.output);
                    let m = self.marks();
                    self.collect(c);
                    if in_set {
                        self.start_tag(c, parent_output, sel)?;
                    } else {
                        self.orphan_axes(c, sel)?;
                    }
                    self.opens.push((c, in_set));
                    stack.push(Frame { e: c, next: c.first_child(), output: in_set, marks: m });
                }
                NodeKind::Text | NodeKind::CData if (sel)(SetNode::Node(c)) => self.text_node(c)?,
                NodeKind::Comment | NodeKind::ProcessingInstruction
                    if (c.kind() == NodeKind::ProcessingInstruction || with_comments) && (sel)(SetNode::Node(c)) =>
                {
                    if depth == 0 {
                        self.top_level(c, c.range().start < root_elem_start)?;
                    } else if c.kind() == NodeKind::Comment {
                        self.comment_node(c)?;
                    } else {
                        self.pi_node(c)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

pub(crate) fn run_set<'d, W: Write + ?Sized>(
    c: &Canonicalizer,
    doc: &'d Document<'d>,
    include: &mut dyn FnMut(SetNode<'d>) -> bool,
    w: &mut W,
) -> Result<(), C14nError> {
    let mut en = Engine {
        c,
        doc,
        sink: Sink::new(w, doc.text().len() + 1024, c.write_size),
        exclusive: c.alg == Algorithm::ExcC14n10,
        scope: Vec::new(),
        ctx: Vec::new(),
        ctx_frames: Vec::new(),
        xstack: Vec::new(),
        xframes: Vec::new(),
        opens: Vec::new(),
        recs: Vec::new(),
        decls: Vec::new(),
        ns_out: Vec::new(),
        atts: Vec::new(),
        dtd_atts: doc.dtd().is_some_and(|d| !d.attributes.is_empty()),
    };
    en.set_walk(include)?;
    en.sink.flush()?;
    en.sink.w.flush()?;
    Ok(())
}
