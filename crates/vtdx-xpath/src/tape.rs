//! Direct scans of the token tape (`docs/index-format.md`) for element-only
//! steps: children and descendants are visited by stepping over records,
//! name tests compare the symbol bits of the record's first word, and a
//! [`Node`] is made only for the elements that match.

use std::borrow::Cow;

use vtdx_core::{Document, Node, Sym};

const KIND_SHIFT: u32 = 28;
const SYM_MASK: u32 = (1 << KIND_SHIFT) - 1;
const K_ELEM: u32 = 1;
const K_ATTR: u32 = 2;
const K_NSDECL: u32 = 3;
const K_COMMENT: u32 = 4;
const K_PI: u32 = 5;
const K_CDATA: u32 = 6;
const K_ATTR_DEFAULT: u32 = 7;
const K_NSDECL_DEFAULT: u32 = 8;
const ELEM_WORDS: u32 = 5;
const ATTR_WORDS: u32 = 2;
const LEAF_WORDS: u32 = 4;

/// The tape of one document.
#[derive(Clone, Copy)]
pub(crate) struct Tape<'d> {
    pub doc: &'d Document<'d>,
    pub t: &'d [u32],
}

impl<'d> Tape<'d> {
    #[inline]
    pub fn new(doc: &'d Document<'d>) -> Tape<'d> {
        Tape { doc, t: doc.tape() }
    }

    #[inline(always)]
    fn kind(&self, i: u32) -> u32 {
        self.t[i as usize] >> KIND_SHIFT
    }

    /// First word after an element's attribute and namespace-declaration records.
    #[inline]
    pub fn after_attrs(&self, e: u32) -> u32 {
        let end = self.t[e as usize + 2];
        let mut j = e + ELEM_WORDS;
        while j < end && matches!(self.kind(j), K_ATTR | K_NSDECL | K_ATTR_DEFAULT | K_NSDECL_DEFAULT) {
            j += ATTR_WORDS;
        }
        j
    }

    /// Does the element at `e` have child records (elements, comments, PIs, CDATA)?
    #[inline]
    pub fn has_child_records(&self, e: u32) -> bool {
        self.after_attrs(e) < self.t[e as usize + 2]
    }

    /// The word range holding the child records of a root or element node.
    #[inline]
    pub fn child_range(&self, n: &Node<'d>) -> Option<(u32, u32)> {
        if n.is_root() {
            return Some((0, self.t.len() as u32));
        }
        let e = n.record()?;
        if self.kind(e) != K_ELEM {
            return None;
        }
        Some(self.element_child_range(e))
    }

    /// [`Tape::child_range`] of the element record at `e`.
    #[inline]
    pub fn element_child_range(&self, e: u32) -> (u32, u32) {
        (self.after_attrs(e), self.t[e as usize + 2])
    }

    /// The word range holding the records of a root's or element's descendants.
    #[inline]
    pub fn subtree_range(&self, n: &Node<'d>) -> Option<(u32, u32)> {
        if n.is_root() {
            return Some((0, self.t.len() as u32));
        }
        let e = n.record()?;
        if self.kind(e) != K_ELEM {
            return None;
        }
        Some((e + ELEM_WORDS, self.t[e as usize + 2]))
    }

    #[inline]
    pub fn node(&self, i: u32) -> Node<'d> {
        match self.doc.node_at_record(i) {
            Some(n) => n,
            None => self.doc.root(),
        }
    }

    /// Calls `f` with the word index of each element record among the child
    /// records in `range` whose symbol passes `test`, in document order.
    #[inline]
    pub fn child_elements<E>(
        &self,
        (mut j, end): (u32, u32),
        test: impl Fn(Sym) -> bool,
        mut f: impl FnMut(u32) -> Result<bool, E>,
    ) -> Result<bool, E> {
        let t = self.t;
        while j < end {
            let w = t[j as usize];
            if w >> KIND_SHIFT == K_ELEM {
                if test(w & SYM_MASK) && !f(j)? {
                    return Ok(false);
                }
                j = t[j as usize + 2];
            } else {
                j += LEAF_WORDS;
            }
        }
        Ok(true)
    }

    /// Calls `f` with the word index of each element record in `range` (a
    /// subtree) whose symbol passes `test`, in document order.
    #[inline]
    pub fn descendant_elements<E>(
        &self,
        (mut j, end): (u32, u32),
        test: impl Fn(Sym) -> bool,
        mut f: impl FnMut(u32) -> Result<bool, E>,
    ) -> Result<bool, E> {
        let t = self.t;
        while j < end {
            let w = t[j as usize];
            match w >> KIND_SHIFT {
                K_ELEM => {
                    if test(w & SYM_MASK) && !f(j)? {
                        return Ok(false);
                    }
                    j += ELEM_WORDS;
                }
                K_COMMENT | K_PI | K_CDATA => j += LEAF_WORDS,
                // attributes and namespace declarations, specified or defaulted
                _ => j += ATTR_WORDS,
            }
        }
        Ok(true)
    }

    /// The word just past the record at `r` and its subtree, and the end of
    /// its parent's children: the range of the records after `r` at its level.
    #[inline]
    pub fn following_sibling_range(&self, n: &Node<'d>) -> Option<(u32, u32)> {
        let r = n.record()?;
        let k = self.kind(r);
        if matches!(k, K_ATTR | K_NSDECL | K_ATTR_DEFAULT | K_NSDECL_DEFAULT) {
            return None;
        }
        let next = if k == K_ELEM { self.t[r as usize + 2] } else { r + LEAF_WORDS };
        let parent = self.t[r as usize + 3];
        let end = if parent == u32::MAX { self.t.len() as u32 } else { self.t[parent as usize + 2] };
        Some((next, end))
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
