//! Evaluation on the token index.
//!
//! Location paths are evaluated as nested loops over axis iterators ("push"
//! style: each step calls the next for every node it selects), which yields
//! document order without sorting for the paths the optimizer marks
//! streamable, and stops early when the consumer has seen enough (`(//a)[1]`,
//! `boolean(//a)`, `//a = 'x'`). Other paths are evaluated step by step into
//! vectors, sorted and deduplicated only when a step's output is not already
//! in document order (checked in one pass).
//!
//! Element-only node tests never look at text: child steps walk the element
//! records of the tape, descendant steps scan the tape (or a per-name element
//! list cached in the [`Context`]), and name tests compare interned symbols.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use vtdx_core::dtd::AttType;
use vtdx_core::{Document, Node, NodeKind, Sym};

use crate::ast::*;
use crate::error::{ErrorKind, XPathError};
use crate::functions::{self, CallContext, CoreFn};
use crate::number;
use crate::tape::Tape;
use crate::value::{is_textish, ordered_namespaces, text_member_is_empty, NodeSet, Value, XNode, XNodeKind};

mod frontier;

type Result<T> = std::result::Result<T, XPathError>;

/// Per-document evaluation state: variable bindings and lazily built indexes
/// (per-name element lists for `//name`, the ID table for `id()`, name
/// lookups). Build one per document and evaluate any number of compiled
/// expressions with it; [`crate::XPath::evaluate`] builds a throwaway one.
///
/// A `Context` is `Send` but not `Sync`: use one per thread.
pub struct Context<'d> {
    doc: &'d Document<'d>,
    vars: HashMap<VarName, Value<'d>>,
    elem_lists: RefCell<HashMap<Sym, ListState<'d>>>,
    ids: OnceCell<HashMap<String, Node<'d>>>,
}

enum ListState<'d> {
    /// Asked for once: scanned, not stored.
    Seen,
    Built(Arc<[Node<'d>]>),
}

impl<'d> Context<'d> {
    /// A context for `doc` with no variables bound.
    pub fn new(doc: &'d Document<'d>) -> Context<'d> {
        Context { doc, vars: HashMap::new(), elem_lists: RefCell::new(HashMap::new()), ids: OnceCell::new() }
    }

    /// The document.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }

    /// Binds `$name` (a name without prefix) to `value`.
    pub fn set_variable(&mut self, name: &str, value: impl Into<Value<'d>>) -> &mut Self {
        self.set_variable_ns("", name, value)
    }

    /// Binds the variable with expanded name (`uri`, `local`), referenced as
    /// `$p:local` with `p` bound to `uri` at compile time.
    pub fn set_variable_ns(&mut self, uri: &str, local: &str, value: impl Into<Value<'d>>) -> &mut Self {
        self.vars.insert(VarName { uri: uri.into(), local: local.into() }, value.into());
        self
    }

    /// The elements named `sym` in document order, if a list is worth having:
    /// the first request for a name returns `None` (the caller scans the tape,
    /// which costs the same as building the list); later requests build the
    /// list once and share it.
    fn elements_named(&self, sym: Sym) -> Option<Arc<[Node<'d>]>> {
        let mut m = self.elem_lists.borrow_mut();
        match m.get(&sym) {
            None => {
                m.insert(sym, ListState::Seen);
                None
            }
            Some(ListState::Built(l)) => Some(l.clone()),
            Some(ListState::Seen) => {
                let l: Arc<[Node<'d>]> = self.doc.root().descendant_elements().filter(|e| e.sym() == Some(sym)).collect();
                m.insert(sym, ListState::Built(l.clone()));
                Some(l)
            }
        }
    }

    /// ID value → element, from attributes declared with type ID in the DTD
    /// (first element in document order wins).
    fn ids(&self) -> &HashMap<String, Node<'d>> {
        self.ids.get_or_init(|| {
            let mut m = HashMap::new();
            let Some(dtd) = self.doc.dtd() else { return m };
            let decls: Vec<(&str, &str)> =
                dtd.attributes.iter().filter(|a| a.ty == AttType::Id).map(|a| (a.element.as_str(), a.name.as_str())).collect();
            if decls.is_empty() {
                return m;
            }
            for e in self.doc.root().descendant_elements() {
                let en = e.name();
                if !decls.iter().any(|(de, _)| *de == en) {
                    continue;
                }
                for a in e.attributes() {
                    let an = a.name();
                    if decls.iter().any(|(de, da)| *de == en && *da == an) {
                        m.entry(a.value().into_owned()).or_insert(e);
                    }
                }
            }
            m
        })
    }
}

/// The evaluation context of one expression (§1): node, position, size.
/// `size` is 0 where no predicate needs it.
#[derive(Clone, Copy)]
pub(crate) struct Cx<'d> {
    pub node: XNode<'d>,
    pub pos: usize,
    pub size: usize,
}

/// A string that borrows from the document or from the expression.
pub(crate) enum Str<'a, 'd> {
    Doc(Cow<'d, str>),
    Lit(&'a str),
}

impl<'a, 'd> Str<'a, 'd> {
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Str::Doc(c) => c,
            Str::Lit(s) => s,
        }
    }
    pub(crate) fn into_doc(self) -> Cow<'d, str> {
        match self {
            Str::Doc(c) => c,
            Str::Lit(s) => Cow::Owned(s.to_string()),
        }
    }
}

/// A value during evaluation.
pub(crate) enum Val<'a, 'd> {
    Nodes(Vec<XNode<'d>>),
    Num(f64),
    Str(Str<'a, 'd>),
    Bool(bool),
}

impl<'a, 'd> Val<'a, 'd> {
    fn boolean(&self) -> bool {
        match self {
            Val::Nodes(v) => !v.is_empty(),
            Val::Num(n) => *n != 0.0 && !n.is_nan(),
            Val::Str(s) => !s.as_str().is_empty(),
            Val::Bool(b) => *b,
        }
    }
    fn number(&self) -> f64 {
        match self {
            Val::Nodes(v) => v.first().map_or(f64::NAN, |n| n.number_value()),
            Val::Num(n) => *n,
            Val::Str(s) => number::parse(s.as_str()),
            Val::Bool(b) => *b as u8 as f64,
        }
    }
    fn string(self) -> Str<'a, 'd> {
        match self {
            Val::Nodes(v) => Str::Doc(v.first().map_or(Cow::Borrowed(""), |n| n.string_value())),
            Val::Num(n) => Str::Doc(Cow::Owned(number::to_string(n))),
            Val::Str(s) => s,
            Val::Bool(b) => Str::Lit(if b { "true" } else { "false" }),
        }
    }
    pub(crate) fn into_value(self) -> Value<'d> {
        match self {
            Val::Nodes(v) => Value::NodeSet(NodeSet::from_sorted(v)),
            Val::Num(n) => Value::Number(n),
            Val::Str(s) => Value::String(s.into_doc()),
            Val::Bool(b) => Value::Boolean(b),
        }
    }
    fn from_value(v: &Value<'d>) -> Val<'a, 'd> {
        match v {
            Value::NodeSet(s) => Val::Nodes(s.nodes.clone()),
            Value::Number(n) => Val::Num(*n),
            Value::String(s) => Val::Str(Str::Doc(s.clone())),
            Value::Boolean(b) => Val::Bool(*b),
        }
    }
}

/// Symbols matching a name test in the current document.
enum SymSet {
    Empty,
    One(Sym),
    Many(Vec<bool>),
}

impl SymSet {
    #[inline]
    fn contains(&self, s: Sym) -> bool {
        match self {
            SymSet::Empty => false,
            SymSet::One(x) => *x == s,
            SymSet::Many(v) => v.get(s as usize).copied().unwrap_or(false),
        }
    }
}

/// Element-only matching for element-principal name tests.
#[derive(Clone, Copy)]
enum ElemMatch<'s> {
    Any,
    Set(&'s SymSet),
}

impl ElemMatch<'_> {
    #[inline]
    fn test(&self, e: &Node<'_>) -> bool {
        match self {
            ElemMatch::Any => true,
            ElemMatch::Set(s) => e.sym().is_some_and(|x| s.contains(x)),
        }
    }
    #[inline(always)]
    fn sym(&self, s: Sym) -> bool {
        match self {
            ElemMatch::Any => true,
            ElemMatch::Set(set) => set.contains(s),
        }
    }
}

/// The start nodes of a path: usually one, so no allocation.
enum Starts<'d> {
    One(XNode<'d>),
    Many(Vec<XNode<'d>>),
}

impl<'d> Starts<'d> {
    fn as_slice(&self) -> &[XNode<'d>] {
        match self {
            Starts::One(n) => std::slice::from_ref(n),
            Starts::Many(v) => v,
        }
    }
}

/// Continue (`true`) or stop (`false`) a traversal.
type Flow = bool;

/// The evaluator for one call: the context, the expression text (for error
/// positions) and the name tests resolved against this document.
pub(crate) struct Eval<'a, 'd> {
    pub ctx: &'a Context<'d>,
    pub doc: &'d Document<'d>,
    pub expr: &'a str,
    sets: Vec<OnceCell<SymSet>>,
    tests: &'a [NodeTest],
    tape: Tape<'d>,
}

// ---- the XPath data model over core nodes ------------------------------------------

/// Children in the XPath data model: text and CDATA runs merged (the run is
/// represented by its first member), empty runs dropped.
pub(crate) struct XChildren<'d> {
    next: Option<Node<'d>>,
    maybe_empty: bool,
}

impl<'d> Iterator for XChildren<'d> {
    type Item = XNode<'d>;
    fn next(&mut self) -> Option<XNode<'d>> {
        loop {
            let n = self.next?;
            self.next = n.next_sibling();
            if !is_textish(&n) {
                return Some(XNode::plain(n));
            }
            let mut nonempty = !(self.maybe_empty || n.kind() == NodeKind::CData) || !text_member_is_empty(&n);
            while let Some(m) = self.next {
                if !is_textish(&m) {
                    break;
                }
                if !nonempty && !text_member_is_empty(&m) {
                    nonempty = true;
                }
                self.next = m.next_sibling();
            }
            if nonempty {
                return Some(XNode::plain(n));
            }
        }
    }
}

/// Can text in this document be empty after expansion (entities declared)?
#[inline]
fn text_may_be_empty(doc: &Document<'_>) -> bool {
    doc.dtd().is_some_and(|d| !d.entities.is_empty())
}

/// The XPath children of a node (none for attributes, text, namespace nodes...).
pub(crate) fn xpath_children(n: Node<'_>) -> XChildren<'_> {
    let first = match n.kind() {
        NodeKind::Root | NodeKind::Element => n.first_child(),
        _ => None,
    };
    XChildren { next: first, maybe_empty: text_may_be_empty(n.document()) }
}

/// The siblings after `x` in the XPath data model.
fn following_siblings(x: XNode<'_>) -> XChildren<'_> {
    let n = x.node;
    let maybe_empty = text_may_be_empty(n.document());
    if x.ns != 0 || matches!(n.kind(), NodeKind::Root | NodeKind::Attribute) {
        return XChildren { next: None, maybe_empty };
    }
    let mut next = n.next_sibling();
    if is_textish(&n) {
        while let Some(m) = next {
            if !is_textish(&m) {
                break;
            }
            next = m.next_sibling();
        }
    }
    XChildren { next, maybe_empty }
}

/// Sorts nodes into document order and removes duplicates, unless they are
/// already strictly increasing (checked in one pass).
pub(crate) fn sort_dedup(v: &mut Vec<XNode<'_>>) {
    if v.len() < 2 {
        return;
    }
    let mut prev = v[0].order();
    let mut sorted = true;
    for x in &v[1..] {
        let k = x.order();
        if k <= prev {
            sorted = false;
            break;
        }
        prev = k;
    }
    if sorted {
        return;
    }
    let mut keyed: Vec<((u64, u32), XNode<'_>)> = v.iter().map(|x| (x.order(), *x)).collect();
    keyed.sort_unstable_by_key(|p| p.0);
    keyed.dedup_by_key(|p| p.0);
    v.clear();
    v.extend(keyed.into_iter().map(|p| p.1));
}

/// Merges two sorted node lists without duplicates.
fn merge<'d>(a: Vec<XNode<'d>>, b: Vec<XNode<'d>>) -> Vec<XNode<'d>> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    let (mut ka, mut kb) = (a[0].order(), b[0].order());
    loop {
        if ka < kb {
            out.push(a[i]);
            i += 1;
            if i == a.len() {
                out.extend_from_slice(&b[j..]);
                break;
            }
            ka = a[i].order();
        } else {
            if ka == kb {
                i += 1;
                if i == a.len() {
                    out.extend_from_slice(&b[j..]);
                    break;
                }
                ka = a[i].order();
            }
            out.push(b[j]);
            j += 1;
            if j == b.len() {
                out.extend_from_slice(&a[i..]);
                break;
            }
            kb = b[j].order();
        }
    }
    out
}

/// The principal node type of an axis (§2.3).
#[inline]
fn principal(axis: Axis) -> XNodeKind {
    match axis {
        Axis::Attribute => XNodeKind::Attribute,
        Axis::Namespace => XNodeKind::Namespace,
        _ => XNodeKind::Element,
    }
}

impl<'a, 'd> Eval<'a, 'd> {
    pub(crate) fn new(ctx: &'a Context<'d>, expr: &'a str, tests: &'a [NodeTest]) -> Eval<'a, 'd> {
        Eval { ctx, doc: ctx.doc, expr, sets: (0..tests.len()).map(|_| OnceCell::new()).collect(), tests, tape: Tape::new(ctx.doc) }
    }

    fn err(&self, kind: ErrorKind, pos: usize) -> XPathError {
        XPathError::new(kind, pos, self.expr)
    }

    // ---- node tests -------------------------------------------------------------

    fn sym_set(&self, slot: usize) -> &SymSet {
        self.sets[slot].get_or_init(|| {
            let names = self.doc.names();
            let syms: Vec<Sym> = match &self.tests[slot] {
                NodeTest::Name { uri, local, .. } => match uri.as_deref().unwrap_or("") {
                    // no namespace: the one symbol of the unprefixed name
                    "" if self.doc.options().namespaces => names.find_ns("").and_then(|none| names.sym_of(local, none)).into_iter().collect(),
                    // any prefix may stand for the namespace: compare namespace ids, then local names
                    want => match names.find_ns(want) {
                        None => Vec::new(),
                        Some(id) => (0..names.sym_count() as Sym).filter(|&s| names.ns_id(s) == id && names.local(s) == &**local).collect(),
                    },
                },
                NodeTest::AnyInNs { uri, .. } => match names.find_ns(uri) {
                    None => Vec::new(),
                    Some(id) => (0..names.sym_count() as Sym).filter(|&s| names.ns_id(s) == id).collect(),
                },
                _ => Vec::new(),
            };
            match syms.len() {
                0 => SymSet::Empty,
                1 => SymSet::One(syms[0]),
                _ => {
                    let mut bits = vec![false; names.sym_count()];
                    for s in syms {
                        bits[s as usize] = true;
                    }
                    SymSet::Many(bits)
                }
            }
        })
    }

    /// For a test on an element-principal axis that only elements can pass:
    /// how to match elements.
    fn elem_match(&self, test: &NodeTest) -> Option<ElemMatch<'_>> {
        match test {
            // The root is never on the axes that use this (child, descendant,
            // siblings, following), so "element or root" is "element" there.
            NodeTest::Any | NodeTest::ElementOrRoot => Some(ElemMatch::Any),
            NodeTest::Name { slot, .. } | NodeTest::AnyInNs { slot, .. } => Some(ElemMatch::Set(self.sym_set(*slot))),
            _ => None,
        }
    }

    /// Does `x` pass `test` on an axis whose principal node type is `p`?
    #[inline]
    fn test(&self, test: &NodeTest, x: &XNode<'d>, p: XNodeKind) -> bool {
        match test {
            NodeTest::Node => true,
            NodeTest::Text => x.kind() == XNodeKind::Text,
            NodeTest::Comment => x.kind() == XNodeKind::Comment,
            NodeTest::Pi(t) => x.kind() == XNodeKind::ProcessingInstruction && t.as_deref().is_none_or(|t| x.node.name() == t),
            NodeTest::Any => x.kind() == p,
            NodeTest::AnyInNs { slot, .. } => {
                x.kind() == p && p != XNodeKind::Namespace && x.node.sym().is_some_and(|s| self.sym_set(*slot).contains(s))
            }
            NodeTest::Name { uri, local, slot } => {
                if x.kind() != p {
                    return false;
                }
                if p == XNodeKind::Namespace {
                    uri.is_none() && x.name() == &**local
                } else {
                    x.node.sym().is_some_and(|s| self.sym_set(*slot).contains(s))
                }
            }
            NodeTest::ElementOrRoot => x.ns == 0 && matches!(x.node.kind(), NodeKind::Element | NodeKind::Root),
        }
    }

    // ---- axes -------------------------------------------------------------------

    /// Calls `g` for each node on `axis` from `x` that passes `test`, in axis
    /// order (reverse document order for reverse axes). Returns `false` if `g` stopped.
    pub(crate) fn axis_each(
        &self,
        axis: Axis,
        test: &NodeTest,
        x: XNode<'d>,
        g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>,
    ) -> Result<Flow> {
        let p = principal(axis);
        let is_tree = x.ns == 0 && matches!(x.node.kind(), NodeKind::Element | NodeKind::Root);
        match axis {
            Axis::SelfAxis => {
                if self.test(test, &x, p) {
                    return g(x);
                }
                Ok(true)
            }
            Axis::Child => {
                if !is_tree {
                    return Ok(true);
                }
                if let Some(m) = self.elem_match(test) {
                    let tape = self.tape;
                    let Some(range) = tape.child_range(&x.node) else { return Ok(true) };
                    return tape.child_elements(range, |s| m.sym(s), |j| g(XNode::plain(tape.node(j))));
                }
                if let (NodeTest::Text, Some(e)) = (test, x.node.record()) {
                    // A leaf element (no child records) has at most one text child.
                    if !self.tape.has_child_records(e) {
                        return match x.node.first_child() {
                            Some(c) if !text_may_be_empty(self.doc) || !text_member_is_empty(&c) => g(XNode::plain(c)),
                            _ => Ok(true),
                        };
                    }
                }
                for c in xpath_children(x.node) {
                    if self.test(test, &c, p) && !g(c)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Axis::Descendant | Axis::DescendantOrSelf => {
                if axis == Axis::DescendantOrSelf && self.test(test, &x, p) && !g(x)? {
                    return Ok(false);
                }
                if !is_tree {
                    return Ok(true);
                }
                self.descendants(test, x.node, g)
            }
            Axis::Parent => match x.parent() {
                Some(par) if self.test(test, &par, p) => g(par),
                _ => Ok(true),
            },
            Axis::Ancestor | Axis::AncestorOrSelf => {
                if axis == Axis::AncestorOrSelf && self.test(test, &x, p) && !g(x)? {
                    return Ok(false);
                }
                let mut cur = x.parent();
                while let Some(a) = cur {
                    if self.test(test, &a, p) && !g(a)? {
                        return Ok(false);
                    }
                    cur = a.parent();
                }
                Ok(true)
            }
            Axis::FollowingSibling => {
                if let (Some(m), true) = (self.elem_match(test), x.ns == 0 && !x.node.is_attribute()) {
                    let tape = self.tape;
                    if let Some(range) = tape.following_sibling_range(&x.node) {
                        return tape.child_elements(range, |s| m.sym(s), |j| g(XNode::plain(tape.node(j))));
                    }
                    let mut c = x.node.next_element_sibling();
                    while let Some(e) = c {
                        if m.test(&e) && !g(XNode::plain(e))? {
                            return Ok(false);
                        }
                        c = e.next_element_sibling();
                    }
                    return Ok(true);
                }
                for s in following_siblings(x) {
                    if self.test(test, &s, p) && !g(s)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Axis::PrecedingSibling => {
                if x.ns != 0 || matches!(x.node.kind(), NodeKind::Root | NodeKind::Attribute) {
                    return Ok(true);
                }
                let Some(par) = x.node.parent() else { return Ok(true) };
                let mut before: Vec<XNode<'d>> = Vec::new();
                if let Some(m) = self.elem_match(test) {
                    // The context may be a text node, which is not among the
                    // element children: stop at its position.
                    let stop = x.node.order_key();
                    for e in par.element_children() {
                        if e.order_key() >= stop {
                            break;
                        }
                        if m.test(&e) {
                            before.push(XNode::plain(e));
                        }
                    }
                } else {
                    for c in xpath_children(par) {
                        if c == x {
                            break;
                        }
                        if self.test(test, &c, p) {
                            before.push(c);
                        }
                    }
                }
                for n in before.into_iter().rev() {
                    if !g(n)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Axis::Following => self.following(test, x, g),
            Axis::Preceding => {
                let mut v = Vec::new();
                self.preceding_in_order(test, x, &mut v)?;
                for n in v.into_iter().rev() {
                    if !g(n)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Axis::Attribute => {
                if x.ns != 0 || !x.node.is_element() {
                    return Ok(true);
                }
                for a in x.node.attributes() {
                    let a = XNode::plain(a);
                    if self.test(test, &a, p) && !g(a)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Axis::Namespace => {
                if x.ns != 0 || !x.node.is_element() {
                    return Ok(true);
                }
                let n = ordered_namespaces(&x.node).len();
                for i in 0..n {
                    let nsn = XNode { node: x.node, ns: i as u32 + 1 };
                    if self.test(test, &nsn, p) && !g(nsn)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    /// Descendants of a root or element node (not itself), in document order.
    fn descendants(&self, test: &NodeTest, n: Node<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        if let Some(m) = self.elem_match(test) {
            if let (ElemMatch::Set(SymSet::One(sym)), true) = (m, matches!(test, NodeTest::Name { .. })) {
                if let Some(list) = self.ctx.elements_named(*sym) {
                    // Binary search the subtree's range in the per-name list.
                    let (lo, hi) = if n.is_root() {
                        (0, list.len())
                    } else {
                        let r = n.range();
                        let lo = list.partition_point(|e| e.range().start <= r.start);
                        let hi = list.partition_point(|e| e.range().start < r.end);
                        (lo, hi)
                    };
                    for e in &list[lo..hi] {
                        if !g(XNode::plain(*e))? {
                            return Ok(false);
                        }
                    }
                    return Ok(true);
                }
            }
            if let ElemMatch::Set(SymSet::Empty) = m {
                return Ok(true);
            }
            let tape = self.tape;
            let Some(range) = tape.subtree_range(&n) else { return Ok(true) };
            if let ElemMatch::Set(SymSet::One(sym)) = m {
                let sym = *sym;
                return tape.descendant_elements(range, |s| s == sym, |j| g(XNode::plain(tape.node(j))));
            }
            return tape.descendant_elements(range, |s| m.sym(s), |j| g(XNode::plain(tape.node(j))));
        }
        let p = XNodeKind::Element;
        let maybe_empty = text_may_be_empty(self.doc);
        // Core descendants, text runs merged: a text member directly after a text
        // member with the same parent continues the run.
        let mut prev_text: Option<Node<'d>> = None;
        for d in n.descendants().skip(1) {
            if is_textish(&d) {
                if let Some(pt) = prev_text {
                    if pt.parent() == d.parent() {
                        continue;
                    }
                }
                prev_text = Some(d);
                let x = XNode::plain(d);
                if matches!(test, NodeTest::Text | NodeTest::Node) {
                    let nonempty = !(maybe_empty || d.kind() == NodeKind::CData) || self.run_nonempty(d);
                    if nonempty && !g(x)? {
                        return Ok(false);
                    }
                }
                continue;
            }
            prev_text = None;
            let x = XNode::plain(d);
            if self.test(test, &x, p) && !g(x)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn run_nonempty(&self, first: Node<'d>) -> bool {
        let mut cur = Some(first);
        while let Some(m) = cur {
            if !is_textish(&m) {
                return false;
            }
            if !text_member_is_empty(&m) {
                return true;
            }
            cur = m.next_sibling();
        }
        false
    }

    /// A node and its descendants (for the following and preceding axes).
    fn subtree(&self, test: &NodeTest, x: XNode<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        if self.test(test, &x, XNodeKind::Element) && !g(x)? {
            return Ok(false);
        }
        if x.ns == 0 && x.node.is_element() {
            return self.descendants(test, x.node, g);
        }
        Ok(true)
    }

    fn following(&self, test: &NodeTest, x: XNode<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        if let Some(m) = self.elem_match(test) {
            // Elements after the context node's subtree (for an attribute or
            // namespace node: after its element's start) are a tape suffix.
            let tape = self.tape;
            let from = match x.kind() {
                XNodeKind::Root => return Ok(true),
                XNodeKind::Namespace => x.node.record().map(|e| e + 5),
                XNodeKind::Attribute => x.node.parent().and_then(|e| e.record()).map(|e| e + 5),
                _ => tape.following_sibling_range(&x.node).map(|r| r.0),
            };
            if let Some(from) = from {
                let end = tape.t.len() as u32;
                return tape.descendant_elements((from, end), |s| m.sym(s), |j| g(XNode::plain(tape.node(j))));
            }
        }
        let mut cur = match x.kind() {
            XNodeKind::Root => return Ok(true),
            XNodeKind::Attribute | XNodeKind::Namespace => {
                // After an attribute or namespace node come its element's
                // children (they are not its descendants).
                let e = x.node.parent().filter(|_| x.ns == 0).unwrap_or(x.node);
                if !self.descendants(test, e, g)? {
                    return Ok(false);
                }
                XNode::plain(e)
            }
            _ => x,
        };
        let elem_only = self.elem_match(test);
        loop {
            if let (Some(m), XNodeKind::Element) = (elem_only, cur.kind()) {
                let mut c = cur.node.next_element_sibling();
                while let Some(e) = c {
                    if m.test(&e) && !g(XNode::plain(e))? {
                        return Ok(false);
                    }
                    if !self.descendants(test, e, g)? {
                        return Ok(false);
                    }
                    c = e.next_element_sibling();
                }
            } else {
                for s in following_siblings(cur) {
                    if !self.subtree(test, s, g)? {
                        return Ok(false);
                    }
                }
            }
            match cur.parent() {
                Some(par) if par.kind() != XNodeKind::Root => cur = par,
                _ => return Ok(true),
            }
        }
    }

    /// The preceding axis in document order (the caller reverses it).
    fn preceding_in_order(&self, test: &NodeTest, x: XNode<'d>, out: &mut Vec<XNode<'d>>) -> Result<()> {
        let target = match x.kind() {
            XNodeKind::Root => return Ok(()),
            XNodeKind::Attribute => x.node.parent().map_or(x, XNode::plain),
            XNodeKind::Namespace => XNode::plain(x.node),
            _ => x,
        };
        let mut chain = vec![target];
        let mut cur = target.parent();
        while let Some(a) = cur {
            chain.push(a);
            cur = a.parent();
        }
        chain.reverse();
        let mut push = |n: XNode<'d>| {
            out.push(n);
            Ok(true)
        };
        for w in chain.windows(2) {
            let (par, stop) = (w[0], w[1]);
            for c in xpath_children(par.node) {
                if c == stop {
                    break;
                }
                self.subtree(test, c, &mut push)?;
            }
        }
        Ok(())
    }

    // ---- steps and paths ----------------------------------------------------------

    /// Is predicate `p` true at context `cx`?
    #[inline]
    fn pred_true(&self, p: &Predicate, cx: &Cx<'d>) -> Result<bool> {
        match p.kind {
            PredKind::Index(k) => Ok(cx.pos == k),
            PredKind::Last => Ok(cx.pos == cx.size),
            PredKind::Never => Ok(false),
            PredKind::Filter => self.eval_bool(&p.expr, cx),
            PredKind::Positional | PredKind::Dynamic => match self.eval(&p.expr, cx)? {
                Val::Num(n) => Ok(n == cx.pos as f64),
                v => Ok(v.boolean()),
            },
        }
    }

    /// Filters `v` (in axis order) by each predicate in turn.
    fn filter_all(&self, mut v: Vec<XNode<'d>>, preds: &[Predicate]) -> Result<Vec<XNode<'d>>> {
        for p in preds {
            if v.is_empty() {
                break;
            }
            let size = v.len();
            v = match p.kind {
                PredKind::Index(k) => v.get(k - 1).map_or(Vec::new(), |n| vec![*n]),
                PredKind::Last => vec![v[size - 1]],
                PredKind::Never => Vec::new(),
                _ => {
                    let mut out = Vec::new();
                    for (i, n) in v.iter().enumerate() {
                        if self.pred_true(p, &Cx { node: *n, pos: i + 1, size })? {
                            out.push(*n);
                        }
                    }
                    out
                }
            };
        }
        Ok(v)
    }

    /// Calls `g` for each node a step selects from `x`, in document order.
    pub(crate) fn step_each(&self, step: &Step, x: XNode<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        let rev = step.axis.is_reverse();
        if step.preds.is_empty() {
            if !rev {
                return self.axis_each(step.axis, &step.test, x, g);
            }
            let mut v = Vec::new();
            self.axis_each(step.axis, &step.test, x, &mut |n| {
                v.push(n);
                Ok(true)
            })?;
            for n in v.into_iter().rev() {
                if !g(n)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        let first = &step.preds[0];
        if step.preds.len() == 1 {
            match first.kind {
                PredKind::Never => return Ok(true),
                PredKind::Index(k) => {
                    // Stop at the k-th node of the axis.
                    let mut i = 0;
                    let mut found = None;
                    self.axis_each(step.axis, &step.test, x, &mut |n| {
                        i += 1;
                        if i == k {
                            found = Some(n);
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                    return match found {
                        Some(n) => g(n),
                        None => Ok(true),
                    };
                }
                PredKind::Last => {
                    let mut last = None;
                    self.axis_each(step.axis, &step.test, x, &mut |n| {
                        last = Some(n);
                        Ok(true)
                    })?;
                    return match last {
                        Some(n) => g(n),
                        None => Ok(true),
                    };
                }
                _ if !first.uses_last && !rev => {
                    // Positions counted on the fly.
                    let mut i = 0;
                    return self.axis_each(step.axis, &step.test, x, &mut |n| {
                        i += 1;
                        if self.pred_true(first, &Cx { node: n, pos: i, size: 0 })? {
                            return g(n);
                        }
                        Ok(true)
                    });
                }
                _ => {}
            }
        }
        let mut v = Vec::new();
        self.axis_each(step.axis, &step.test, x, &mut |n| {
            v.push(n);
            Ok(true)
        })?;
        let v = self.filter_all(v, &step.preds)?;
        if rev {
            for n in v.into_iter().rev() {
                if !g(n)? {
                    return Ok(false);
                }
            }
        } else {
            for n in v {
                if !g(n)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Nested loops over `steps` from `x`.
    fn steps_each(&self, steps: &[Step], x: XNode<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        match steps {
            [] => g(x),
            [s] => self.step_each(s, x, g),
            [s, rest @ ..] => self.step_each(s, x, &mut |n| self.steps_each(rest, n, g)),
        }
    }

    /// The nodes a path's start denotes (sorted, distinct).
    fn path_start(&self, path: &Path, cx: &Cx<'d>) -> Result<Starts<'d>> {
        Ok(match &path.start {
            Start::Root => Starts::One(XNode::plain(self.doc.root())),
            Start::Context => Starts::One(cx.node),
            Start::Expr(e) => Starts::Many(self.nodes_of(e, cx, path.pos)?),
        })
    }

    /// Calls `g` for each node of a path in document order, each once.
    pub(crate) fn path_each(&self, path: &Path, cx: &Cx<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        // `name` or `*` relative to an element (predicates such as
        // `[price < 100]`): a direct scan of its child records.
        if let ([step], Start::Context) = (&path.steps[..], &path.start) {
            if step.axis == Axis::Child && step.preds.is_empty() && cx.node.ns == 0 {
                if let Some(m) = self.elem_match(&step.test) {
                    let tape = self.tape;
                    let Some(range) = tape.child_range(&cx.node.node) else { return Ok(true) };
                    return tape.child_elements(range, |s| m.sym(s), |j| g(XNode::plain(tape.node(j))));
                }
            }
        }
        let start = self.path_start(path, cx)?;
        if path.streamable == path.steps.len() {
            for &s in start.as_slice() {
                if !self.steps_each(&path.steps, s, g)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        for n in self.path_rest(path, start.as_slice())? {
            if !g(n)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A path evaluated into a vector: the streamable prefix as nested loops,
    /// then one step at a time with sorting where needed.
    fn path_rest(&self, path: &'a Path, start: &[XNode<'d>]) -> Result<Vec<XNode<'d>>> {
        let k = path.streamable;
        let mut cur: Vec<XNode<'d>> = Vec::new();
        for &s in start {
            self.steps_each(&path.steps[..k], s, &mut |n| {
                cur.push(n);
                Ok(true)
            })?;
        }
        self.steps_rest(&path.steps[k..], cur, false)
    }

    /// `steps` from the nodes `cur` (sorted, distinct), one step at a time.
    /// `antichain`: no node of `cur` is an ancestor of another, so a child,
    /// attribute or namespace step gives sorted, distinct nodes that are
    /// again unrelated, with no need to check.
    fn steps_rest(&self, steps: &'a [Step], mut cur: Vec<XNode<'d>>, mut antichain: bool) -> Result<Vec<XNode<'d>>> {
        for step in steps {
            if cur.is_empty() {
                break;
            }
            let mut out = Vec::new();
            let positional = step.preds.iter().any(|p| p.kind != PredKind::Filter);
            let in_order = antichain && matches!(step.axis, Axis::Child | Axis::Attribute | Axis::Namespace);
            antichain = in_order;
            if positional {
                for x in &cur {
                    self.step_each(step, *x, &mut |n| {
                        out.push(n);
                        Ok(true)
                    })?;
                }
                sort_dedup(&mut out);
            } else {
                // Filters commute with the union over context nodes: select,
                // deduplicate, then filter each node once.
                for x in &cur {
                    self.axis_each(step.axis, &step.test, *x, &mut |n| {
                        out.push(n);
                        Ok(true)
                    })?;
                }
                if !in_order {
                    sort_dedup(&mut out);
                }
                for p in &step.preds {
                    let mut kept = Vec::with_capacity(out.len());
                    for n in out {
                        if self.eval_bool(&p.expr, &Cx { node: n, pos: 1, size: 1 })? {
                            kept.push(n);
                        }
                    }
                    out = kept;
                }
            }
            cur = out;
        }
        Ok(cur)
    }

    /// A path's nodes, sorted and distinct.
    fn path_nodes(&self, path: &'a Path, cx: &Cx<'d>) -> Result<Vec<XNode<'d>>> {
        let start = self.path_start(path, cx)?;
        if path.frontier > 0 {
            if let Some(v) = self.path_frontier(path, start.as_slice())? {
                return Ok(v);
            }
        }
        if path.streamable == path.steps.len() {
            let mut v = Vec::new();
            for &s in start.as_slice() {
                self.steps_each(&path.steps, s, &mut |n| {
                    v.push(n);
                    Ok(true)
                })?;
            }
            return Ok(v);
        }
        self.path_rest(path, start.as_slice())
    }

    /// The node-set value of `e` (an error if it is not a node-set).
    pub(crate) fn nodes_of(&self, e: &Expr, cx: &Cx<'d>, pos: usize) -> Result<Vec<XNode<'d>>> {
        match e {
            Expr::Path(p) => self.path_nodes(p, cx),
            _ => match self.eval(e, cx)? {
                Val::Nodes(v) => Ok(v),
                _ => Err(self.err(ErrorKind::NotANodeSet("the expression before `/` or `[`".into()), pos)),
            },
        }
    }

    /// Calls `g` for each node of the node-set `e` in document order.
    pub(crate) fn nodes_each(&self, e: &Expr, cx: &Cx<'d>, pos: usize, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        match e {
            Expr::Path(p) => self.path_each(p, cx, g),
            Expr::Filter(inner, preds, fpos) if preds.len() == 1 && matches!(preds[0].kind, PredKind::Index(_) | PredKind::Filter) => {
                // `(expr)[k]` stops at the k-th node; `(expr)[test]` filters in order.
                let p = &preds[0];
                let mut i = 0;
                // After the k-th node the filter is done: the caller's answer
                // (continue or stop) is what `g` said about that node.
                let mut at_k: Option<Flow> = None;
                let flow = self.nodes_each(inner, cx, *fpos, &mut |n| {
                    i += 1;
                    match p.kind {
                        PredKind::Index(k) => {
                            if i == k {
                                at_k = Some(g(n)?);
                                return Ok(false);
                            }
                            Ok(true)
                        }
                        _ => {
                            if self.eval_bool(&p.expr, &Cx { node: n, pos: i, size: 0 })? {
                                return g(n);
                            }
                            Ok(true)
                        }
                    }
                })?;
                Ok(at_k.unwrap_or(flow))
            }
            _ => {
                for n in self.nodes_of(e, cx, pos)? {
                    if !g(n)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    /// The first node of `e` in document order.
    pub(crate) fn first_node(&self, e: &Expr, cx: &Cx<'d>, pos: usize) -> Result<Option<XNode<'d>>> {
        if let Expr::Union(parts, upos) = e {
            let mut best: Option<XNode<'d>> = None;
            for p in parts {
                if let Some(n) = self.first_node(p, cx, *upos)? {
                    if best.is_none_or(|b| n.order() < b.order()) {
                        best = Some(n);
                    }
                }
            }
            return Ok(best);
        }
        let mut found = None;
        self.nodes_each(e, cx, pos, &mut |n| {
            found = Some(n);
            Ok(false)
        })?;
        Ok(found)
    }

    // ---- expressions --------------------------------------------------------------

    pub(crate) fn eval(&self, e: &'a Expr, cx: &Cx<'d>) -> Result<Val<'a, 'd>> {
        Ok(match e {
            Expr::Or(..) | Expr::And(..) | Expr::Cmp(..) | Expr::PositionCmp(..) | Expr::PositionMod(..) | Expr::ChildNumCmp(..) => {
                Val::Bool(self.eval_bool(e, cx)?)
            }
            Expr::Arith(..) | Expr::Neg(_) | Expr::Number(_) => Val::Num(self.eval_number(e, cx)?),
            Expr::Literal(s) => Val::Str(Str::Lit(s)),
            Expr::Var(name, pos) => match self.ctx.vars.get(name) {
                Some(v) => Val::from_value(v),
                None => return Err(self.err(ErrorKind::UnboundVariable(name.to_string()), *pos)),
            },
            Expr::Union(parts, pos) => {
                let mut acc: Vec<XNode<'d>> = Vec::new();
                for p in parts {
                    let v = match self.nodes_of(p, cx, *pos) {
                        Ok(v) => v,
                        Err(_) if !matches!(p, Expr::Path(_)) => {
                            return Err(self.err(ErrorKind::NotANodeSet("each operand of `|`".into()), *pos))
                        }
                        Err(e) => return Err(e),
                    };
                    acc = merge(acc, v);
                }
                Val::Nodes(acc)
            }
            Expr::Path(p) => Val::Nodes(self.path_nodes(p, cx)?),
            Expr::Filter(inner, preds, pos) => {
                if preds.len() == 1 && matches!(preds[0].kind, PredKind::Index(_)) {
                    return Ok(Val::Nodes(self.first_of_filter(inner, &preds[0], cx, *pos)?));
                }
                let v = self.nodes_of(inner, cx, *pos)?;
                Val::Nodes(self.filter_all(v, preds)?)
            }
            Expr::Call(f, args, pos) => return self.call(f, args, cx, *pos),
        })
    }

    fn first_of_filter(&self, inner: &'a Expr, p: &Predicate, cx: &Cx<'d>, pos: usize) -> Result<Vec<XNode<'d>>> {
        let PredKind::Index(k) = p.kind else { return Ok(Vec::new()) };
        let mut i = 0;
        let mut found = Vec::new();
        self.nodes_each(inner, cx, pos, &mut |n| {
            i += 1;
            if i == k {
                found.push(n);
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(found)
    }

    pub(crate) fn eval_bool(&self, e: &'a Expr, cx: &Cx<'d>) -> Result<bool> {
        Ok(match e {
            Expr::Or(a, b) => self.eval_bool(a, cx)? || self.eval_bool(b, cx)?,
            Expr::And(a, b) => self.eval_bool(a, cx)? && self.eval_bool(b, cx)?,
            Expr::Cmp(op, a, b) => self.compare(*op, a, b, cx)?,
            Expr::PositionCmp(op, n) => op.numbers(cx.pos as f64, *n),
            Expr::PositionMod(m, r) => crate::ast::remainder(cx.pos as f64, *m) == *r,
            Expr::ChildNumCmp(test, op, n) => self.child_num_cmp(test, *op, *n, cx),
            Expr::Path(_) | Expr::Union(..) | Expr::Filter(..) if e.ty() == Type::NodeSet => self.first_node(e, cx, 0)?.is_some(),
            Expr::Call(Func::Core(c), args, pos) if c.result_type() == Type::Boolean => self.call_bool(*c, args, cx, *pos)?,
            _ => self.eval(e, cx)?.boolean(),
        })
    }

    pub(crate) fn eval_number(&self, e: &'a Expr, cx: &Cx<'d>) -> Result<f64> {
        Ok(match e {
            Expr::Number(n) => *n,
            Expr::Arith(op, a, b) => op.apply(self.eval_number(a, cx)?, self.eval_number(b, cx)?),
            Expr::Neg(a) => -self.eval_number(a, cx)?,
            Expr::Path(_) | Expr::Union(..) | Expr::Filter(..) if e.ty() == Type::NodeSet => {
                self.first_node(e, cx, 0)?.map_or(f64::NAN, |n| n.number_value())
            }
            Expr::Literal(s) => number::parse(s),
            Expr::Call(Func::Core(c), args, pos) if c.result_type() == Type::Number => self.call_number(*c, args, cx, *pos)?,
            _ => self.eval(e, cx)?.number(),
        })
    }

    pub(crate) fn eval_string(&self, e: &'a Expr, cx: &Cx<'d>) -> Result<Str<'a, 'd>> {
        Ok(match e {
            Expr::Literal(s) => Str::Lit(s),
            Expr::Path(_) | Expr::Union(..) | Expr::Filter(..) if e.ty() == Type::NodeSet => {
                Str::Doc(self.first_node(e, cx, 0)?.map_or(Cow::Borrowed(""), |n| n.string_value()))
            }
            _ => self.eval(e, cx)?.string(),
        })
    }

    // ---- comparisons (§3.4) -------------------------------------------------------------

    fn compare(&self, op: CmpOp, a: &'a Expr, b: &'a Expr, cx: &Cx<'d>) -> Result<bool> {
        let (ta, tb) = (a.ty(), b.ty());
        // Node-set against a scalar, without materializing the node-set.
        if ta == Type::NodeSet && tb != Type::NodeSet && tb != Type::Unknown {
            let s = if tb == Type::Number { Val::Num(self.eval_number(b, cx)?) } else { self.eval(b, cx)? };
            return self.compare_nodes_scalar(op, a, &s, cx);
        }
        if tb == Type::NodeSet && ta != Type::NodeSet && ta != Type::Unknown {
            let s = self.eval(a, cx)?;
            return self.compare_nodes_scalar(op.swap(), b, &s, cx);
        }
        // Scalars of known types.
        if ta != Type::NodeSet && tb != Type::NodeSet && ta != Type::Unknown && tb != Type::Unknown {
            let relational = !matches!(op, CmpOp::Eq | CmpOp::Ne);
            if relational || ta == Type::Number || tb == Type::Number {
                if !relational && (ta == Type::Boolean || tb == Type::Boolean) {
                    return Ok(eq_op(op, self.eval_bool(a, cx)? == self.eval_bool(b, cx)?));
                }
                return Ok(op.numbers(self.eval_number(a, cx)?, self.eval_number(b, cx)?));
            }
            if ta == Type::Boolean || tb == Type::Boolean {
                return Ok(eq_op(op, self.eval_bool(a, cx)? == self.eval_bool(b, cx)?));
            }
            let (x, y) = (self.eval_string(a, cx)?, self.eval_string(b, cx)?);
            return Ok(eq_op(op, x.as_str() == y.as_str()));
        }
        let va = self.eval(a, cx)?;
        let vb = self.eval(b, cx)?;
        Ok(compare_values(op, va, vb))
    }

    /// `name op n` ([`Expr::ChildNumCmp`]): some child element of the context
    /// node passing `test` has a number value `v` with `v op n`.
    fn child_num_cmp(&self, test: &NodeTest, op: CmpOp, n: f64, cx: &Cx<'d>) -> bool {
        let tape = self.tape;
        let (Some(m), 0) = (self.elem_match(test), cx.node.ns) else { return false };
        let Some(range) = tape.child_range(&cx.node.node) else { return false };
        let mut found = false;
        let _ = tape.child_elements(range, |s| m.sym(s), |j| {
            found = op.numbers(XNode::plain(tape.node(j)).number_value(), n);
            Ok::<bool, ()>(!found)
        });
        found
    }

    /// `nodes op scalar`: true if some node's string-value compares true (§3.4).
    fn compare_nodes_scalar(&self, op: CmpOp, nodes: &'a Expr, s: &Val<'a, 'd>, cx: &Cx<'d>) -> Result<bool> {
        match s {
            Val::Bool(b) => {
                let has = self.first_node(nodes, cx, 0)?.is_some();
                Ok(compare_scalars(op, &Val::Bool(has), &Val::Bool(*b)))
            }
            Val::Num(n) => {
                let n = *n;
                let mut found = false;
                self.nodes_each(nodes, cx, 0, &mut |x| {
                    if op.numbers(x.number_value(), n) {
                        found = true;
                        return Ok(false);
                    }
                    Ok(true)
                })?;
                Ok(found)
            }
            Val::Str(st) => {
                let st = st.as_str();
                let mut found = false;
                if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    self.nodes_each(nodes, cx, 0, &mut |x| {
                        if x.string_value_is(st) == (op == CmpOp::Eq) {
                            found = true;
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                } else {
                    let n = number::parse(st);
                    self.nodes_each(nodes, cx, 0, &mut |x| {
                        if op.numbers(x.number_value(), n) {
                            found = true;
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                }
                Ok(found)
            }
            Val::Nodes(_) => unreachable_nodes(),
        }
    }

    // ---- function calls -------------------------------------------------------------------

    fn call(&self, f: &'a Func, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<Val<'a, 'd>> {
        match f {
            Func::Core(c) => self.call_core(*c, args, cx, pos),
            Func::Ext { name, f } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, cx)?.into_value());
                }
                let call_cx =
                    CallContext { node: cx.node, position: cx.pos, size: cx.size, doc: self.doc, _marker: std::marker::PhantomData };
                match f.call(&call_cx, vals) {
                    Ok(v) => Ok(Val::from_value(&v)),
                    Err(message) => Err(self.err(ErrorKind::Function { function: name.to_string(), message }, pos)),
                }
            }
        }
    }

    fn arg_nodes(&self, c: CoreFn, a: &'a Expr, cx: &Cx<'d>, pos: usize) -> Result<Vec<XNode<'d>>> {
        self.nodes_of(a, cx, pos).map_err(|e| match e.kind() {
            ErrorKind::NotANodeSet(_) => self.err(ErrorKind::NotANodeSet(format!("the argument of {}()", c.name())), pos),
            _ => e,
        })
    }

    /// The node an optional node-set argument names: its first node, or the context node.
    fn arg_first_node(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<Option<XNode<'d>>> {
        match args.first() {
            None => Ok(Some(cx.node)),
            Some(a) => {
                if a.ty() != Type::NodeSet && a.ty() != Type::Unknown {
                    return Err(self.err(ErrorKind::NotANodeSet(format!("the argument of {}()", c.name())), pos));
                }
                if a.ty() == Type::NodeSet {
                    return self.first_node(a, cx, pos);
                }
                Ok(self.arg_nodes(c, a, cx, pos)?.first().copied())
            }
        }
    }

    fn string_arg(&self, args: &'a [Expr], i: usize, cx: &Cx<'d>) -> Result<Str<'a, 'd>> {
        match args.get(i) {
            Some(a) => self.eval_string(a, cx),
            None => Ok(Str::Doc(cx.node.string_value())),
        }
    }

    fn call_bool(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<bool> {
        Ok(match c {
            CoreFn::True => true,
            CoreFn::False => false,
            CoreFn::Not => !self.eval_bool(&args[0], cx)?,
            CoreFn::Boolean => self.eval_bool(&args[0], cx)?,
            CoreFn::StartsWith => {
                let (s, t) = (self.eval_string(&args[0], cx)?, self.eval_string(&args[1], cx)?);
                s.as_str().starts_with(t.as_str())
            }
            CoreFn::Contains => {
                let (s, t) = (self.eval_string(&args[0], cx)?, self.eval_string(&args[1], cx)?);
                s.as_str().contains(t.as_str())
            }
            CoreFn::Lang => {
                let want = self.eval_string(&args[0], cx)?;
                lang_matches(cx.node, want.as_str())
            }
            _ => self.call_core(c, args, cx, pos)?.boolean(),
        })
    }

    fn call_number(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<f64> {
        Ok(match c {
            CoreFn::Last => cx.size as f64,
            CoreFn::Position => cx.pos as f64,
            CoreFn::Count => {
                let a = &args[0];
                if let Expr::Path(p) = a {
                    if p.streamable == p.steps.len() {
                        let mut n = 0usize;
                        self.path_each(p, cx, &mut |_| {
                            n += 1;
                            Ok(true)
                        })?;
                        return Ok(n as f64);
                    }
                }
                self.arg_nodes(c, a, cx, pos)?.len() as f64
            }
            CoreFn::Sum => {
                let mut total = 0.0;
                let a = &args[0];
                if a.ty() != Type::NodeSet && a.ty() != Type::Unknown {
                    return Err(self.err(ErrorKind::NotANodeSet("the argument of sum()".into()), pos));
                }
                for n in self.arg_nodes(c, a, cx, pos)? {
                    total += n.number_value();
                }
                total
            }
            CoreFn::StringLength => self.string_arg(args, 0, cx)?.as_str().chars().count() as f64,
            CoreFn::Number => match args.first() {
                None => cx.node.number_value(),
                Some(a) => self.eval_number(a, cx)?,
            },
            CoreFn::Floor => self.eval_number(&args[0], cx)?.floor(),
            CoreFn::Ceiling => self.eval_number(&args[0], cx)?.ceil(),
            CoreFn::Round => number::round(self.eval_number(&args[0], cx)?),
            _ => self.call_core(c, args, cx, pos)?.number(),
        })
    }

    fn call_core(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<Val<'a, 'd>> {
        use CoreFn::*;
        Ok(match c {
            Last | Position | Count | Sum | StringLength | Number | Floor | Ceiling | Round => {
                Val::Num(self.call_number(c, args, cx, pos)?)
            }
            True | False | Not | Boolean | StartsWith | Contains | Lang => Val::Bool(self.call_bool(c, args, cx, pos)?),
            Id => {
                let ids = self.ctx.ids();
                let mut out: Vec<XNode<'d>> = Vec::new();
                let mut add = |s: &str| {
                    for tok in s.split([' ', '\t', '\r', '\n']).filter(|t| !t.is_empty()) {
                        if let Some(e) = ids.get(tok) {
                            out.push(XNode::plain(*e));
                        }
                    }
                };
                let a = &args[0];
                match self.eval(a, cx)? {
                    Val::Nodes(v) => {
                        for n in v {
                            add(&n.string_value());
                        }
                    }
                    other => add(other.string().as_str()),
                }
                sort_dedup(&mut out);
                Val::Nodes(out)
            }
            LocalName | NamespaceUri | Name => {
                let n = self.arg_first_node(c, args, cx, pos)?;
                Val::Str(Str::Doc(Cow::Borrowed(match n {
                    None => "",
                    Some(n) => match c {
                        LocalName => n.local_name(),
                        NamespaceUri => n.namespace_uri().unwrap_or(""),
                        _ => n.name(),
                    },
                })))
            }
            String => Val::Str(self.string_arg(args, 0, cx)?),
            Concat => {
                let mut s = std::string::String::new();
                for a in args {
                    s.push_str(self.eval_string(a, cx)?.as_str());
                }
                Val::Str(Str::Doc(Cow::Owned(s)))
            }
            SubstringBefore | SubstringAfter => {
                let s = self.eval_string(&args[0], cx)?;
                let t = self.eval_string(&args[1], cx)?;
                let r = match s.as_str().find(t.as_str()) {
                    None => "",
                    Some(i) if c == SubstringBefore => &s.as_str()[..i],
                    Some(i) => &s.as_str()[i + t.as_str().len()..],
                };
                Val::Str(sub_str(s.as_str(), r, &s))
            }
            Substring => {
                let s = self.eval_string(&args[0], cx)?;
                let start = self.eval_number(&args[1], cx)?;
                let len = match args.get(2) {
                    Some(a) => Some(self.eval_number(a, cx)?),
                    None => None,
                };
                let r = functions::substring(s.as_str(), start, len);
                Val::Str(sub_str(s.as_str(), r, &s))
            }
            NormalizeSpace => {
                let s = self.string_arg(args, 0, cx)?;
                let r = match functions::normalize_space(s.as_str()) {
                    Cow::Borrowed(b) => sub_str(s.as_str(), b, &s),
                    Cow::Owned(o) => Str::Doc(Cow::Owned(o)),
                };
                Val::Str(r)
            }
            Translate => {
                let s = self.eval_string(&args[0], cx)?;
                let f = self.eval_string(&args[1], cx)?;
                let t = self.eval_string(&args[2], cx)?;
                Val::Str(Str::Doc(Cow::Owned(functions::translate(s.as_str(), f.as_str(), t.as_str()))))
            }
        })
    }
}

/// A substring `r` of `whole` (the string of `src`), keeping `src`'s borrow
/// when it has one.
fn sub_str<'a, 'd>(whole: &str, r: &str, src: &Str<'a, 'd>) -> Str<'a, 'd> {
    if r.is_empty() {
        return Str::Lit("");
    }
    let off = r.as_ptr() as usize - whole.as_ptr() as usize;
    let range = off..off + r.len();
    match src {
        Str::Lit(l) => Str::Lit(&l[range]),
        Str::Doc(Cow::Borrowed(b)) => Str::Doc(Cow::Borrowed(&b[range])),
        Str::Doc(Cow::Owned(o)) => Str::Doc(Cow::Owned(o[range].to_string())),
    }
}

#[cold]
fn unreachable_nodes() -> Result<bool> {
    Ok(false)
}

#[inline]
fn eq_op(op: CmpOp, equal: bool) -> bool {
    if op == CmpOp::Eq {
        equal
    } else {
        !equal
    }
}

/// `lang(s)` (§4.3): the `xml:lang` of the context node or its nearest
/// ancestor equals `s` or starts with `s` followed by `-`, ignoring case.
fn lang_matches(x: XNode<'_>, want: &str) -> bool {
    let mut cur = if x.ns != 0 || x.node.is_element() { Some(x.node) } else { x.node.parent() };
    while let Some(e) = cur {
        if e.is_element() {
            for a in e.attributes() {
                if a.local_name() == "lang" && a.namespace_uri() == Some(vtdx_core::XML_NAMESPACE) {
                    let v = a.value();
                    let v = v.to_lowercase();
                    let w = want.to_lowercase();
                    return v == w || (v.len() > w.len() && v.starts_with(&w) && v.as_bytes()[w.len()] == b'-');
                }
            }
        }
        cur = e.parent();
    }
    false
}

/// Compares two scalar values (§3.4, neither a node-set).
fn compare_scalars(op: CmpOp, a: &Val<'_, '_>, b: &Val<'_, '_>) -> bool {
    match op {
        CmpOp::Eq | CmpOp::Ne => {
            let eq = if matches!(a, Val::Bool(_)) || matches!(b, Val::Bool(_)) {
                a.boolean() == b.boolean()
            } else if matches!(a, Val::Num(_)) || matches!(b, Val::Num(_)) {
                a.number() == b.number()
            } else {
                str_of(a) == str_of(b)
            };
            eq_op(op, eq)
        }
        _ => op.numbers(a.number(), b.number()),
    }
}

fn str_of<'x>(v: &'x Val<'_, '_>) -> &'x str {
    match v {
        Val::Str(s) => s.as_str(),
        _ => "",
    }
}

/// Compares two values of any types (§3.4).
fn compare_values(op: CmpOp, a: Val<'_, '_>, b: Val<'_, '_>) -> bool {
    match (a, b) {
        (Val::Nodes(x), Val::Nodes(y)) => {
            if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                let ys: Vec<Cow<'_, str>> = y.iter().map(|n| n.string_value()).collect();
                if op == CmpOp::Eq {
                    let set: std::collections::HashSet<&str> = ys.iter().map(|s| &**s).collect();
                    x.iter().any(|n| set.contains(&*n.string_value()))
                } else {
                    x.iter().any(|n| {
                        let s = n.string_value();
                        ys.iter().any(|t| *t != s)
                    })
                }
            } else {
                let xs: Vec<f64> = x.iter().map(|n| n.number_value()).collect();
                let ys: Vec<f64> = y.iter().map(|n| n.number_value()).collect();
                xs.iter().any(|a| ys.iter().any(|b| op.numbers(*a, *b)))
            }
        }
        (Val::Nodes(x), s) => nodes_vs_scalar(op, &x, &s),
        (s, Val::Nodes(y)) => nodes_vs_scalar(op.swap(), &y, &s),
        (a, b) => compare_scalars(op, &a, &b),
    }
}

fn nodes_vs_scalar(op: CmpOp, x: &[XNode<'_>], s: &Val<'_, '_>) -> bool {
    match s {
        Val::Bool(b) => compare_scalars(op, &Val::Bool(!x.is_empty()), &Val::Bool(*b)),
        Val::Num(n) => x.iter().any(|v| op.numbers(v.number_value(), *n)),
        Val::Str(st) => {
            if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                x.iter().any(|v| v.string_value_is(st.as_str()) == (op == CmpOp::Eq))
            } else {
                let n = number::parse(st.as_str());
                x.iter().any(|v| op.numbers(v.number_value(), n))
            }
        }
        Val::Nodes(_) => false,
    }
}
