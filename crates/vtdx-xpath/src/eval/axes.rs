//! Node tests and axes (§2.2, §2.3): which nodes an axis visits from a
//! context node, in axis order, and which of them pass a node test. Element-only
//! tests scan the tape's element records and compare interned symbols.

use vtdx_core::{Node, NodeKind, Sym};

use crate::ast::{Axis, NodeTest};
use crate::value::{is_textish, ordered_namespaces, text_member_is_empty, XNode, XNodeKind};

use super::model::{following_siblings, text_may_be_empty, xpath_children};
use super::{scan_answer, Answer, Eval, Flow, Result, BREAK, CONTINUE};

/// Symbols matching a name test in the current document.
pub(super) enum SymSet {
    Empty,
    One(Sym),
    Many(Vec<bool>),
}

impl SymSet {
    #[inline]
    pub(super) fn contains(&self, s: Sym) -> bool {
        match self {
            SymSet::Empty => false,
            SymSet::One(x) => *x == s,
            SymSet::Many(v) => v.get(s.index()).copied().unwrap_or(false),
        }
    }
}

/// Element-only matching for element-principal name tests.
#[derive(Clone, Copy)]
pub(super) enum ElemMatch<'s> {
    Any,
    Set(&'s SymSet),
}

impl ElemMatch<'_> {
    #[inline]
    pub(super) fn test(&self, e: &Node<'_>) -> bool {
        match self {
            ElemMatch::Any => true,
            ElemMatch::Set(s) => e.sym().is_some_and(|x| s.contains(x)),
        }
    }
    #[inline(always)]
    pub(super) fn sym(&self, s: Sym) -> bool {
        match self {
            ElemMatch::Any => true,
            ElemMatch::Set(set) => set.contains(s),
        }
    }
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
    /// The symbols of this document that pass the name test in `slot`,
    /// found on first use.
    pub(super) fn sym_set(&self, slot: usize) -> &SymSet {
        self.sets[slot].get_or_init(|| {
            let names = self.doc.names();
            let syms: Vec<Sym> = match &self.tests[slot] {
                NodeTest::Name { uri, local, .. } => match uri.as_deref().unwrap_or("") {
                    // no namespace: the one symbol of the unprefixed name
                    "" if self.doc.options().namespaces => {
                        names.find_ns("").and_then(|none| names.sym_of(local, none)).into_iter().collect()
                    }
                    // any prefix may stand for the namespace: compare namespace ids, then local names
                    want => match names.find_ns(want) {
                        None => Vec::new(),
                        Some(id) => names.syms().filter(|&s| names.ns_id(s) == id && names.local(s) == &**local).collect(),
                    },
                },
                NodeTest::AnyInNs { uri, .. } => match names.find_ns(uri) {
                    None => Vec::new(),
                    Some(id) => names.syms().filter(|&s| names.ns_id(s) == id).collect(),
                },
                _ => Vec::new(),
            };
            match syms.len() {
                0 => SymSet::Empty,
                1 => SymSet::One(syms[0]),
                _ => {
                    let mut bits = vec![false; names.sym_count()];
                    for s in syms {
                        bits[s.index()] = true;
                    }
                    SymSet::Many(bits)
                }
            }
        })
    }

    /// For a test on an element-principal axis that only elements can pass:
    /// how to match elements.
    pub(super) fn elem_match(&self, test: &NodeTest) -> Option<ElemMatch<'_>> {
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
                Ok(CONTINUE)
            }
            Axis::Child => {
                if !is_tree {
                    return Ok(CONTINUE);
                }
                if let Some(m) = self.elem_match(test) {
                    let tape = self.tape;
                    let Some(range) = tape.child_range(&x.node) else { return Ok(CONTINUE) };
                    return tape.child_elements(range, |s| m.sym(s), |j| scan_answer(g, XNode::plain(tape.node(j)))).map(Answer::flow);
                }
                if let (NodeTest::Text, Some(e)) = (test, x.node.record()) {
                    // A leaf element (no child records) has at most one text child.
                    if !self.tape.has_child_records(e) {
                        return match x.node.first_child() {
                            Some(c) if !text_may_be_empty(self.doc) || !text_member_is_empty(&c) => g(XNode::plain(c)),
                            _ => Ok(CONTINUE),
                        };
                    }
                }
                for c in xpath_children(x.node) {
                    if self.test(test, &c, p) && g(c)?.is_break() {
                        return Ok(BREAK);
                    }
                }
                Ok(CONTINUE)
            }
            Axis::Descendant | Axis::DescendantOrSelf => {
                if axis == Axis::DescendantOrSelf && self.test(test, &x, p) && g(x)?.is_break() {
                    return Ok(BREAK);
                }
                if !is_tree {
                    return Ok(CONTINUE);
                }
                self.descendants(test, x.node, g)
            }
            Axis::Parent => match x.parent() {
                Some(par) if self.test(test, &par, p) => g(par),
                _ => Ok(CONTINUE),
            },
            Axis::Ancestor | Axis::AncestorOrSelf => {
                if axis == Axis::AncestorOrSelf && self.test(test, &x, p) && g(x)?.is_break() {
                    return Ok(BREAK);
                }
                let mut cur = x.parent();
                while let Some(a) = cur {
                    if self.test(test, &a, p) && g(a)?.is_break() {
                        return Ok(BREAK);
                    }
                    cur = a.parent();
                }
                Ok(CONTINUE)
            }
            Axis::FollowingSibling => {
                if let (Some(m), true) = (self.elem_match(test), x.ns == 0 && !x.node.is_attribute()) {
                    let tape = self.tape;
                    if let Some(range) = tape.following_sibling_range(&x.node) {
                        return tape.child_elements(range, |s| m.sym(s), |j| scan_answer(g, XNode::plain(tape.node(j)))).map(Answer::flow);
                    }
                    let mut c = x.node.next_element_sibling();
                    while let Some(e) = c {
                        if m.test(&e) && g(XNode::plain(e))?.is_break() {
                            return Ok(BREAK);
                        }
                        c = e.next_element_sibling();
                    }
                    return Ok(CONTINUE);
                }
                for s in following_siblings(x) {
                    if self.test(test, &s, p) && g(s)?.is_break() {
                        return Ok(BREAK);
                    }
                }
                Ok(CONTINUE)
            }
            Axis::PrecedingSibling => {
                if x.ns != 0 || matches!(x.node.kind(), NodeKind::Root | NodeKind::Attribute) {
                    return Ok(CONTINUE);
                }
                let Some(par) = x.node.parent() else { return Ok(CONTINUE) };
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
                    if g(n)?.is_break() {
                        return Ok(BREAK);
                    }
                }
                Ok(CONTINUE)
            }
            Axis::Following => self.following(test, x, g),
            Axis::Preceding => {
                let mut v = Vec::new();
                self.preceding_in_order(test, x, &mut v)?;
                for n in v.into_iter().rev() {
                    if g(n)?.is_break() {
                        return Ok(BREAK);
                    }
                }
                Ok(CONTINUE)
            }
            Axis::Attribute => {
                if x.ns != 0 || !x.node.is_element() {
                    return Ok(CONTINUE);
                }
                for a in x.node.attributes() {
                    let a = XNode::plain(a);
                    if self.test(test, &a, p) && g(a)?.is_break() {
                        return Ok(BREAK);
                    }
                }
                Ok(CONTINUE)
            }
            Axis::Namespace => {
                if x.ns != 0 || !x.node.is_element() {
                    return Ok(CONTINUE);
                }
                let n = ordered_namespaces(&x.node).len();
                for i in 0..n {
                    let nsn = XNode { node: x.node, ns: i as u32 + 1 };
                    if self.test(test, &nsn, p) && g(nsn)?.is_break() {
                        return Ok(BREAK);
                    }
                }
                Ok(CONTINUE)
            }
        }
    }

    /// Calls `g` for the descendants of a root or element node (not itself)
    /// that pass `test`, in document order. Answers whether `g` let the
    /// traversal run to the end, in `g`'s kind of answer.
    #[inline]
    pub(super) fn descendants<A: Answer>(&self, test: &NodeTest, n: Node<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<A>) -> Result<A> {
        self.each_descendant(test, n, g).map(A::from_flow)
    }

    /// [`Eval::descendants`], answering a [`Flow`].
    fn each_descendant<A: Answer>(&self, test: &NodeTest, n: Node<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<A>) -> Result<Flow> {
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
                        if g(XNode::plain(*e))?.flow().is_break() {
                            return Ok(BREAK);
                        }
                    }
                    return Ok(CONTINUE);
                }
            }
            if let ElemMatch::Set(SymSet::Empty) = m {
                return Ok(CONTINUE);
            }
            let tape = self.tape;
            let Some(range) = tape.subtree_range(&n) else { return Ok(CONTINUE) };
            if let ElemMatch::Set(SymSet::One(sym)) = m {
                let sym = *sym;
                return tape.descendant_elements(range, |s| s == sym, |j| scan_answer(g, XNode::plain(tape.node(j)))).map(Answer::flow);
            }
            return tape.descendant_elements(range, |s| m.sym(s), |j| scan_answer(g, XNode::plain(tape.node(j)))).map(Answer::flow);
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
                    if nonempty && g(x)?.flow().is_break() {
                        return Ok(BREAK);
                    }
                }
                continue;
            }
            prev_text = None;
            let x = XNode::plain(d);
            if self.test(test, &x, p) && g(x)?.flow().is_break() {
                return Ok(BREAK);
            }
        }
        Ok(CONTINUE)
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
        if self.test(test, &x, XNodeKind::Element) && g(x)?.is_break() {
            return Ok(BREAK);
        }
        if x.ns == 0 && x.node.is_element() {
            return self.descendants(test, x.node, g);
        }
        Ok(CONTINUE)
    }

    fn following(&self, test: &NodeTest, x: XNode<'d>, g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> Result<Flow> {
        if let Some(m) = self.elem_match(test) {
            // Elements after the context node's subtree (for an attribute or
            // namespace node: after its element's start) are a tape suffix.
            let tape = self.tape;
            let from = match x.kind() {
                XNodeKind::Root => return Ok(CONTINUE),
                XNodeKind::Namespace => tape.subtree_range(&x.node).map(|r| r.0),
                XNodeKind::Attribute => x.node.parent().and_then(|e| tape.subtree_range(&e)).map(|r| r.0),
                _ => tape.following_sibling_range(&x.node).map(|r| r.0),
            };
            if let Some(from) = from {
                // to the end of the tape: the end of the root's records
                let end = tape.child_range(&self.doc.root()).map_or(from, |r| r.1);
                return tape
                    .descendant_elements((from, end), |s| m.sym(s), |j| scan_answer(g, XNode::plain(tape.node(j))))
                    .map(Answer::flow);
            }
        }
        let mut cur = match x.kind() {
            XNodeKind::Root => return Ok(CONTINUE),
            XNodeKind::Attribute | XNodeKind::Namespace => {
                // After an attribute or namespace node come its element's
                // children (they are not its descendants).
                let e = x.node.parent().filter(|_| x.ns == 0).unwrap_or(x.node);
                if self.descendants(test, e, g)?.is_break() {
                    return Ok(BREAK);
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
                    if m.test(&e) && g(XNode::plain(e))?.is_break() {
                        return Ok(BREAK);
                    }
                    if self.descendants(test, e, g)?.is_break() {
                        return Ok(BREAK);
                    }
                    c = e.next_element_sibling();
                }
            } else {
                for s in following_siblings(cur) {
                    if self.subtree(test, s, g)?.is_break() {
                        return Ok(BREAK);
                    }
                }
            }
            match cur.parent() {
                Some(par) if par.kind() != XNodeKind::Root => cur = par,
                _ => return Ok(CONTINUE),
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
            Ok(CONTINUE)
        };
        for w in chain.windows(2) {
            let (par, stop) = (w[0], w[1]);
            for c in xpath_children(par.node) {
                if c == stop {
                    break;
                }
                let _ = self.subtree(test, c, &mut push)?;
            }
        }
        Ok(())
    }
}
