//! The XPath data model over core nodes (text and CDATA runs merged, empty
//! runs dropped) and document order of node lists: sorting, deduplicating,
//! merging.

use vtdx_core::{Document, Node, NodeKind};

use crate::value::{is_textish, text_member_is_empty, XNode};

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
pub(super) fn text_may_be_empty(doc: &Document<'_>) -> bool {
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
pub(super) fn following_siblings(x: XNode<'_>) -> XChildren<'_> {
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
pub(super) fn merge<'d>(a: Vec<XNode<'d>>, b: Vec<XNode<'d>>) -> Vec<XNode<'d>> {
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
