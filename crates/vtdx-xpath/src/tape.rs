//! Direct scans of the token tape for element-only steps: children and
//! descendants are visited by stepping over records, name tests compare the
//! records' symbols, and a [`Node`] is made only for the elements that match.
//! The record layout is read through the core's reader, [`vtdx_core::tape`].

use std::borrow::Cow;

use vtdx_core::tape::{self, RecordId};
use vtdx_core::{Document, Node, Sym};

/// The tape of one document, with the document to make nodes from.
///
/// The evaluator holds records as `u32` word indices, as [`Node::record`] gives
/// them ([`RecordId::word`]; their order is document order); this type passes
/// them to the core's reader as [`RecordId`]s. A range is `(start, end)`: the
/// records from `start` up to (not including) `end`.
#[derive(Clone, Copy)]
pub(crate) struct Tape<'d> {
    pub doc: &'d Document<'d>,
    /// The core's typed reader of the records.
    pub t: tape::Tape<'d>,
}

impl<'d> Tape<'d> {
    #[inline]
    pub fn new(doc: &'d Document<'d>) -> Tape<'d> {
        Tape { doc, t: tape::Tape::of(doc) }
    }

    /// The name symbol of the element record `e`.
    #[inline(always)]
    pub fn symbol(&self, e: u32) -> Sym {
        self.t.symbol(RecordId::new(e))
    }

    /// The position just past the subtree of the element record `e`.
    #[inline(always)]
    pub fn next(&self, e: u32) -> u32 {
        self.t.next(RecordId::new(e)).word()
    }

    /// The parent element of the element record `e`, `None` at the top level.
    #[inline(always)]
    pub fn parent(&self, e: u32) -> Option<u32> {
        self.t.parent(RecordId::new(e)).map(RecordId::word)
    }

    /// Does the element record `e` have child records (elements, comments, PIs, CDATA)?
    #[inline]
    pub fn has_child_records(&self, e: u32) -> bool {
        self.t.has_child_records(RecordId::new(e))
    }

    /// The range of the document node's child records: the whole tape.
    #[inline(always)]
    pub fn root_range(&self) -> (u32, u32) {
        words(self.t.root_child_range())
    }

    /// The range of the child records of a root or element node.
    #[inline]
    pub fn child_range(&self, n: &Node<'d>) -> Option<(u32, u32)> {
        if n.is_root() {
            return Some(self.root_range());
        }
        let e = RecordId::of(n)?;
        if !self.t.is_element(e) {
            return None;
        }
        Some(words(self.t.child_range(e)))
    }

    /// [`Tape::child_range`] of the element record `e`.
    #[inline]
    pub fn element_child_range(&self, e: u32) -> (u32, u32) {
        words(self.t.child_range(RecordId::new(e)))
    }

    /// The range of the records of a root's or element's descendants (and of
    /// an element's attributes).
    #[inline]
    pub fn subtree_range(&self, n: &Node<'d>) -> Option<(u32, u32)> {
        if n.is_root() {
            return Some(self.root_range());
        }
        let e = RecordId::of(n)?;
        if !self.t.is_element(e) {
            return None;
        }
        Some(words((self.t.attributes_start(e), self.t.next(e))))
    }

    /// The node of an element, comment, PI or CDATA record.
    #[inline]
    pub fn node(&self, r: u32) -> Node<'d> {
        match self.doc.node_at_record(r) {
            Some(n) => n,
            None => self.doc.root(),
        }
    }

    /// Calls `f` with each element record among the child records in `range`
    /// whose symbol passes `test`, in document order.
    #[inline]
    pub fn child_elements<E>(
        &self,
        (j, end): (u32, u32),
        test: impl Fn(Sym) -> bool,
        mut f: impl FnMut(u32) -> Result<bool, E>,
    ) -> Result<bool, E> {
        // PERF: the words read straight (each child's kind and symbol from one
        // word, its next sibling from another): about a third fewer instructions
        // per child than the typed reader's checked accessors, on the child steps
        // and `name op n` predicates that walk every child of many elements.
        let w = self.doc.tape();
        let (mut j, end) = (j as usize, (end as usize).min(w.len()));
        while j < end {
            let w0 = w[j];
            if w0 >> tape::KIND_SHIFT == tape::RecordKind::Element as u32 {
                if test(Sym::new(w0 & tape::PAYLOAD_MASK)) && !f(j as u32)? {
                    return Ok(false);
                }
                j = w.get(j + tape::NEXT as usize).map_or(end, |&n| n as usize);
            } else {
                // comments, PIs and CDATA sections (no attribute records here)
                j += tape::LEAF_WORDS as usize;
            }
        }
        Ok(true)
    }

    /// [`Document::bare_leaf_bytes`] of the element record `e`.
    #[inline]
    pub fn bare_leaf(&self, e: u32) -> Option<&'d [u8]> {
        self.doc.bare_leaf_bytes(RecordId::new(e))
    }

    /// Asks for the cache lines of the element record `e` and of the words after
    /// it (its attribute and first child records), `words` of them, to be
    /// brought in ([`tape::prefetch`]): a hint, with no effect on results.
    #[inline(always)]
    pub fn prefetch_record(&self, e: u32, words: usize) {
        let t = self.doc.tape();
        let mut i = e as usize;
        let end = i + words;
        while i < end {
            tape::prefetch(t, i);
            i += 16;
        }
    }

    /// Asks for the cache lines of the element record `e`'s start tag (its first
    /// bytes) and of its last bytes to be brought in; reads the record, so its
    /// own line should be in the cache by then ([`Tape::prefetch_record`]).
    #[inline(always)]
    pub fn prefetch_element_bytes(&self, e: u32) {
        let t = self.doc.tape();
        let text = self.doc.text();
        if let (Some(&start), Some(&end)) = (t.get(e as usize + tape::START as usize), t.get(e as usize + tape::ELEM_END as usize)) {
            tape::prefetch(text, start as usize);
            tape::prefetch(text, (end as usize).saturating_sub(1));
        }
    }

    /// [`tape::Tape::record_near_middle`] of the records `lo..hi`.
    pub fn record_near_middle(&self, (lo, hi): (u32, u32)) -> Option<u32> {
        self.t.record_near_middle(RecordId::new(lo), RecordId::new(hi)).map(RecordId::word)
    }

    /// Calls `f` with each element record in `range` (a subtree) whose symbol
    /// passes `test`, in document order.
    #[inline]
    pub fn descendant_elements<E>(
        &self,
        (j, end): (u32, u32),
        test: impl Fn(Sym) -> bool,
        mut f: impl FnMut(u32) -> Result<bool, E>,
    ) -> Result<bool, E> {
        let t = self.t;
        let (mut j, end) = (RecordId::new(j), RecordId::new(end));
        while j < end {
            // into elements, over attribute records and leaves
            if t.is_element(j) {
                if test(t.symbol(j)) && !f(j.word())? {
                    return Ok(false);
                }
                j = t.attributes_start(j);
            } else {
                j = t.after_record(j);
            }
        }
        Ok(true)
    }

    /// The position just past the record of `n` and its subtree, and the end of
    /// its parent's children: the range of the records after `n` at its level.
    #[inline]
    pub fn following_sibling_range(&self, n: &Node<'d>) -> Option<(u32, u32)> {
        let r = RecordId::of(n)?;
        if self.t.is_attribute(r) {
            return None;
        }
        Some(words((self.t.subtree_end(r), self.t.siblings_end(r))))
    }

    /// An element's string-value, borrowed for a leaf element whose content
    /// needs no decoding.
    #[inline]
    pub fn element_value(&self, n: &Node<'d>) -> Cow<'d, str> {
        if let Some(Ok(s)) = n.plain_content().map(std::str::from_utf8) {
            return Cow::Borrowed(s);
        }
        n.value()
    }
}

#[inline(always)]
fn words((a, b): (RecordId, RecordId)) -> (u32, u32) {
    (a.word(), b.word())
}
