//! Planning the output: which recorded edits take effect and in what order,
//! following the rules of the module documentation.

use crate::document::Node;

use super::write::Ctx;
use super::{EditError, Editor};

/// What an edit does to its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Op {
    /// New bytes at a point (`start == end`).
    Insert,
    /// A node, a node's value or name: removed or replaced.
    Replace,
    /// An element's whole content ([`Editor::set_text`]).
    Content,
}

/// Where an edit goes among the edits at one byte position: the variants are
/// in output order (see the module rules), and edits at one position are
/// written by slot, then in call order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Slot {
    /// Content prepended to an empty-element tag (`<a/>` becomes `<a>…</a>`).
    OpenFirst,
    /// Text set as the content of an empty-element tag.
    OpenText,
    /// Content appended to an empty-element tag.
    OpenLast,
    /// The end tag made for an empty-element tag that receives content.
    EndTag,
    /// A fragment inserted after the node that ends here.
    After,
    /// Content prepended to the element whose content starts here.
    First,
    /// A zero-width replacement: new bytes where the range is empty (the
    /// content of `<a></a>`, an empty comment).
    Text,
    /// Content appended to the element whose content ends here.
    Last,
    /// A fragment inserted before the node that starts here.
    Before,
    /// An attribute added at the end of a start tag.
    Attr,
    /// A replacement or removal of a non-empty range.
    Replace,
}

/// One recorded edit: a byte range of the text and the new bytes for it.
#[derive(Debug, Clone)]
pub(super) struct Edit<'d> {
    /// The byte range of the text the edit replaces (`start == end` for an insert).
    pub(super) start: usize,
    pub(super) end: usize,
    /// Offset and length of the new bytes in the editor's data (or, for edits made
    /// at output time, in the planner's own buffer).
    pub(super) data: (usize, usize),
    /// The new bytes are in the planner's buffer, not the editor's.
    pub(super) extra: bool,
    /// What the edit does to its range.
    pub(super) op: Op,
    /// Its place among the edits at its start.
    pub(super) slot: Slot,
    /// How deep in the tree the edit lies: 4 per element depth; +0 a node within
    /// its parent's content, +1 inside a node's own markup, +2 inside an
    /// attribute, +4 the element's content (= its children's +0). Computed from
    /// `lv` when the output is planned (the common in-order case never needs it).
    pub(super) level: u32,
    /// What `level` is computed from.
    pub(super) lv: Lv<'d>,
    /// How the new bytes are written where the encoding lacks a character.
    pub(super) ctx: Ctx,
    /// Call order (`u32::MAX` for edits made when the output is planned).
    pub(super) seq: u32,
    /// Overridden by a later call (a new attribute set again).
    pub(super) dead: bool,
}

impl Edit<'_> {
    fn is_removal(&self) -> bool {
        self.op == Op::Replace && self.data.1 == 0
    }

    /// Does `self` (an accepted replacement whose range contains `o`'s) absorb `o`?
    fn absorbs(&self, o: &Edit) -> bool {
        // A point at the start of a range is outside it: what lies deeper there
        // belongs to the node before (content given to an empty-element tag).
        if o.start == o.end && self.start < self.end && o.start == self.start {
            return false;
        }
        if o.level > self.level {
            return true;
        }
        let strict = self.start < o.start && o.end < self.end;
        o.level == self.level && ((self.op == Op::Content && (o.op != Op::Insert || strict)) || (self.is_removal() && o.is_removal()))
    }
}

fn depth(n: Node<'_>) -> u32 {
    n.depth() as u32
}

/// How deep an edit lies, computed on demand (see [`Edit::level`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum Lv<'d> {
    /// A node as a whole, within its parent's content.
    Node(Node<'d>),
    /// The inside of a node's own markup (tags, attribute list, comment text).
    Markup(Node<'d>),
    /// The inside of an attribute of this element (its name and value).
    Attr(Node<'d>),
    /// An element's content.
    Content(Node<'d>),
}

impl Lv<'_> {
    fn get(self) -> u32 {
        match self {
            Lv::Node(n) => 4 * depth(n),
            Lv::Markup(n) => 4 * depth(n) + 1,
            Lv::Attr(e) => 4 * depth(e) + 2,
            Lv::Content(e) => 4 * depth(e) + 4,
        }
    }
}

impl<'d> Editor<'d> {
    /// Decides which edits take effect and in what order (the module rules).
    /// Returns the edits to write, in output order, and the bytes of edits made here.
    pub(super) fn plan(&self) -> Result<(Vec<Edit<'d>>, Vec<u8>), EditError> {
        let mut all: Vec<Edit<'d>> = self.edits.iter().filter(|e| !e.dead).cloned().collect();
        let mut extra: Vec<u8> = Vec::new();
        // empty-element tags that receive content: drop the `/`, make the end tag
        for el in &self.opened {
            let end = el.range().end;
            let name = self.renamed.get(&el.range().start).map_or(el.name(), |n| n.as_str());
            let seq = u32::MAX;
            all.push(Edit {
                start: end - 2,
                end: end - 1,
                data: (0, 0),
                extra: true,
                op: Op::Replace,
                slot: Slot::Replace,
                level: 0,
                lv: Lv::Markup(*el),
                ctx: Ctx::Markup,
                seq,
                dead: false,
            });
            let off = extra.len();
            extra.extend_from_slice(b"</");
            extra.extend_from_slice(name.as_bytes());
            extra.push(b'>');
            all.push(Edit {
                start: end,
                end,
                data: (off, name.len() + 3),
                extra: true,
                op: Op::Insert,
                slot: Slot::EndTag,
                level: 0,
                lv: Lv::Markup(*el),
                ctx: Ctx::Markup,
                seq,
                dead: false,
            });
        }
        for e in all.iter_mut() {
            e.level = e.lv.get();
        }
        let conflict = |a: &Edit, b: &Edit| EditError::Conflict { a: a.start..a.end, b: b.start..b.end };

        // 1. replacements: outer first; accepted ones do not overlap (zero-width ones
        //    may sit at the ends of others)
        let mut reps: Vec<usize> = (0..all.len()).filter(|&i| all[i].op != Op::Insert).collect();
        reps.sort_unstable_by_key(|&i| {
            let e = &all[i];
            (e.start, std::cmp::Reverse(e.end), e.level, e.op != Op::Content, e.seq)
        });
        let mut wide: Vec<usize> = Vec::new(); // accepted, non-empty ranges, by start
        let mut narrow: Vec<usize> = Vec::new(); // accepted, empty ranges, by start
        let same = |a: &Edit, b: &Edit| a.start == b.start && a.end == b.end && a.level == b.level && a.op == b.op;
        for (k, &i) in reps.iter().enumerate() {
            let r = &all[i];
            if reps.get(k + 1).is_some_and(|&j| same(r, &all[j])) {
                continue; // the same edit made again later: the last call wins
            }
            if let Some(&c) = wide.last() {
                let s = &all[c];
                if r.start < s.end || (r.start == s.end && r.start == r.end) {
                    if r.end > s.end {
                        return Err(conflict(s, r));
                    }
                    if s.absorbs(r) {
                        continue;
                    }
                    if r.start == r.end && (r.start == s.start || r.start == s.end) {
                        narrow.push(i);
                        continue;
                    }
                    return Err(conflict(s, r));
                }
            }
            if r.start == r.end {
                narrow.push(i);
            } else {
                wide.push(i);
            }
        }
        // zero-width replacements absorb inserts at their point too
        narrow.sort_unstable_by_key(|&i| all[i].start);

        // 2. inserts: absorbed by an accepted replacement they lie in
        let mut keep: Vec<usize> = Vec::with_capacity(all.len());
        'ins: for i in 0..all.len() {
            let e = &all[i];
            if e.op != Op::Insert {
                continue;
            }
            let p = e.start;
            let k = wide.partition_point(|&j| all[j].start <= p);
            for &j in wide[k.saturating_sub(2)..k].iter() {
                let s = &all[j];
                if s.start <= p && p <= s.end {
                    if s.absorbs(e) {
                        continue 'ins;
                    }
                    if s.start < p && p < s.end {
                        return Err(conflict(s, e));
                    }
                }
            }
            let k = narrow.partition_point(|&j| all[j].start < p);
            for &j in narrow[k..].iter().take_while(|&&j| all[j].start == p) {
                if all[j].absorbs(e) {
                    continue 'ins;
                }
            }
            keep.push(i);
        }

        // 3. everything that takes effect, in output order
        keep.extend_from_slice(&wide);
        keep.extend_from_slice(&narrow);
        keep.sort_unstable_by_key(|&i| {
            let e = &all[i];
            (e.start, e.slot, e.seq)
        });
        let out = keep.into_iter().map(|i| all[i].clone()).collect();
        Ok((out, extra))
    }

    /// True when the edits were made in document order, do not touch one another
    /// and no empty-element tag receives content: then no rule applies and the
    /// edits are written as they are (the common case of removing what an XPath
    /// expression selected, in document order).
    pub(super) fn in_order(&self) -> bool {
        if !self.opened.is_empty() {
            return false;
        }
        let mut prev: Option<&Edit<'d>> = None;
        for e in &self.edits {
            if e.dead {
                return false;
            }
            if let Some(p) = prev {
                if p.start >= e.start || p.end > e.start {
                    return false;
                }
            }
            prev = Some(e);
        }
        true
    }
}
