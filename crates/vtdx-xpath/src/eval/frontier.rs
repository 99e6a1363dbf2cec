//! Level-at-a-time evaluation of the element steps at the head of a path.
//!
//! `/a/b/c[pred]`, `//item/comment/..`: while a path's steps select only
//! elements (or the root), the nodes reached so far are kept as a vector of
//! element record indices (the *frontier*) and each step maps the whole vector
//! to the next one with a direct loop over the tape, instead of calling a
//! closure per node through nested axis iterators. Record indices are in
//! document order ([`vtdx_core::tape::RecordId`]), so sorting a frontier is
//! sorting integers.
//!
//! Which steps qualify is decided at compile time (`optimize::frontier_step`);
//! the steps after them continue from the frontier with the general
//! step-by-step evaluation (`Eval::steps_rest`).

use std::ops::Range;

use super::*;

/// How many elements ahead a walk over many elements asks for the bytes it will
/// read (`Eval::text_children`, `Eval::retain_prefetching`); their records are asked
/// for twice as far ahead. From 8 to 32 gave the same times on po_16mb.
pub(super) const PREFETCH_AHEAD: usize = 16;

/// Tape words asked for ahead of an element whose children a walk reads: its
/// record and those that follow (its attributes and first children), four cache lines.
pub(super) const PREFETCH_RECORD_WORDS: usize = 64;

/// Predicates over fewer nodes than this are evaluated in one thread even when
/// the context allows a second ([`Context::set_parallel`]): below it, starting
/// the thread costs about as much as it saves.
const PARALLEL_MIN_NODES: usize = 8192;

/// A scan of the descendants of the root is cut in two (with a second thread
/// allowed) from this many tape words on (a document of about a megabyte).
const PARALLEL_MIN_WORDS: u32 = 1 << 18;

/// The frontier's stand-in for the root node (no record has this index; sorted
/// first by [`sort_records`], as the root precedes every element).
const ROOT: u32 = u32::MAX;

/// What is known about a frontier's shape, which decides whether a step's
/// output needs sorting.
#[derive(Clone, Copy)]
struct Shape {
    /// No node is an ancestor of another (so children come out in order).
    antichain: bool,
    /// Every node has the same depth (so parents come out in order).
    level: bool,
}

impl<'a, 'd> Eval<'a, 'd> {
    /// The nodes of `path` from `start` when its first `path.frontier` steps can
    /// run over element records, with the rest of its steps evaluated from
    /// there; `None` when a start node is not the root or an element.
    pub(super) fn path_frontier(&self, path: &'a Path, start: &[XNode<'d>]) -> Result<Option<Vec<XNode<'d>>>> {
        let mut cur: Vec<u32> = Vec::with_capacity(start.len());
        for x in start {
            if x.ns != 0 {
                return Ok(None);
            }
            match x.node.kind() {
                NodeKind::Root => cur.push(ROOT),
                NodeKind::Element => match x.node.record() {
                    Some(r) => cur.push(r),
                    None => return Ok(None),
                },
                _ => return Ok(None),
            }
        }
        let mut shape = Shape { antichain: cur.len() <= 1, level: cur.len() <= 1 };
        let k = path.frontier;
        let mut next = Vec::new();
        for step in &path.steps[..k] {
            next.clear();
            shape = self.frontier_step(step, &cur, shape, &mut next)?;
            std::mem::swap(&mut cur, &mut next);
            if cur.is_empty() {
                return Ok(Some(Vec::new()));
            }
        }
        if let [step] = &path.steps[k..] {
            if step.axis == Axis::Child && matches!(step.test, NodeTest::Text) && step.preds.is_empty() {
                return Ok(Some(self.frontier_text(step, &cur, shape)?));
            }
        }
        let nodes: Vec<XNode<'d>> = cur.iter().map(|&r| self.record_node(r)).collect();
        Ok(Some(self.steps_rest(&path.steps[k..], nodes, shape.antichain)?))
    }

    /// The text children of the frontier `cur` (a path ending in `/text()`), in
    /// document order: a leaf element (no child records) has one text child when
    /// its content is not empty, found without going through the general child axis.
    fn frontier_text(&self, step: &'a Step, cur: &[u32], shape: Shape) -> Result<Vec<XNode<'d>>> {
        let (mut out, second) =
            self.halves(cur.len(), PARALLEL_MIN_NODES, |ev: &Eval<'_, 'd>, range: Range<usize>| ev.text_children(step, &cur[range]))?;
        out.extend(second.into_iter().flatten());
        // text children of unrelated elements come out in document order
        if !shape.antichain {
            sort_dedup(&mut out);
        }
        Ok(out)
    }

    /// The text children of the elements `cur`, element by element.
    fn text_children(&self, step: &Step, cur: &[u32]) -> Result<Vec<XNode<'d>>> {
        let tape = self.tape;
        let maybe_empty = super::model::text_may_be_empty(self.doc);
        let mut out = Vec::with_capacity(cur.len());
        for (k, &r) in cur.iter().enumerate() {
            // PERF: the record of the element `2 * PREFETCH_AHEAD` places on, and
            // the bytes of the one `PREFETCH_AHEAD` on, are asked for now, so that
            // their cache misses (the text is read for the first time since the
            // parse) overlap with the work on this one. `/*/*/*/quantity/text()` on
            // po_16mb, warm loop (`examples/seed_timing`): 3.9-4.3 ms per evaluation
            // reading a block of 8 start tags ahead (the way before), 2.1-2.5 ms with
            // the prefetches (docs/xpath.md).
            if let Some(&r2) = cur.get(k + 2 * PREFETCH_AHEAD) {
                if r2 != ROOT {
                    tape.prefetch_record(r2, 1);
                }
            }
            if let Some(&r1) = cur.get(k + PREFETCH_AHEAD) {
                if r1 != ROOT {
                    tape.prefetch_element_bytes(r1);
                }
            }
            if r == ROOT {
                continue;
            }
            let node = tape.node(r);
            if !tape.has_child_records(r) {
                if let Some(c) = node.first_child() {
                    if !maybe_empty || !crate::value::text_member_is_empty(&c) {
                        out.push(XNode::plain(c));
                    }
                }
                continue;
            }
            let _ = self.axis_each(Axis::Child, &step.test, XNode::plain(node), &mut |n| {
                out.push(n);
                Ok(CONTINUE)
            })?;
        }
        Ok(out)
    }

    /// Does the record `r` (or the root) pass `test` on an element-principal axis?
    #[inline]
    fn record_passes(&self, test: &NodeTest, r: u32) -> bool {
        if r == ROOT {
            return matches!(test, NodeTest::Node | NodeTest::ElementOrRoot);
        }
        match test {
            NodeTest::Node | NodeTest::ElementOrRoot | NodeTest::Any => true,
            NodeTest::Name { slot, .. } | NodeTest::AnyInNs { slot, .. } => self.sym_set(*slot).contains(self.tape.symbol(r)),
            _ => false,
        }
    }

    #[inline]
    fn record_node(&self, r: u32) -> XNode<'d> {
        XNode::plain(if r == ROOT { self.doc.root() } else { self.tape.node(r) })
    }

    /// Keeps the records of `v` (one context node's nodes on an axis, in axis
    /// order) that pass each predicate in turn (`filter_all` over records).
    fn filter_records(&self, v: &mut Vec<u32>, preds: &'a [Predicate]) -> Result<()> {
        for p in preds {
            if v.is_empty() {
                break;
            }
            let size = v.len();
            let two_threads = self.ctx.parallel && size >= PARALLEL_MIN_NODES;
            if let (PredKind::Filter, Expr::ChildNumCmp(test, op, n), false) = (&p.kind, &p.expr, two_threads) {
                self.retain_child_num_cmp(v, test, *op, *n);
                continue;
            }
            match p.kind {
                PredKind::Index(k) => {
                    let keep = v.get(k.wrapping_sub(1)).copied();
                    v.clear();
                    v.extend(keep);
                }
                PredKind::Last => {
                    let keep = v[size - 1];
                    v.clear();
                    v.push(keep);
                }
                PredKind::Never => v.clear(),
                _ if two_threads => {
                    let all: &[u32] = v;
                    let (a, b) = self.halves(size, PARALLEL_MIN_NODES, |ev: &Eval<'_, 'd>, range: Range<usize>| {
                        if let (PredKind::Filter, Expr::ChildNumCmp(test, op, n)) = (&p.kind, &p.expr) {
                            let mut keep = all[range].to_vec();
                            ev.retain_child_num_cmp(&mut keep, test, *op, *n);
                            return Ok(keep);
                        }
                        let mut keep = Vec::new();
                        for i in range {
                            let r = all[i];
                            if ev.pred_true(p, &Cx { node: ev.record_node(r), pos: i + 1, size })? {
                                keep.push(r);
                            }
                        }
                        Ok(keep)
                    })?;
                    *v = a;
                    v.extend(b.into_iter().flatten());
                }
                _ => {
                    let mut w = 0;
                    for i in 0..size {
                        let r = v[i];
                        if self.pred_true(p, &Cx { node: self.record_node(r), pos: i + 1, size })? {
                            v[w] = r;
                            w += 1;
                        }
                    }
                    v.truncate(w);
                }
            }
        }
        Ok(())
    }

    /// Maps the frontier `cur` (sorted, distinct) through `step` into `out`
    /// (sorted, distinct); returns the shape of `out`.
    fn frontier_step(&self, step: &'a Step, cur: &[u32], shape: Shape, out: &mut Vec<u32>) -> Result<Shape> {
        let tape = self.tape;
        match step.axis {
            Axis::Child if step.preds.is_empty() => {
                if self.ctx.parallel && cur.len() >= PARALLEL_MIN_NODES {
                    // the child elements of the first half of the frontier here, of
                    // the second half on another thread, joined in order
                    let (a, b) = self.halves(cur.len(), PARALLEL_MIN_NODES, |ev: &Eval<'_, 'd>, range: Range<usize>| {
                        let mut v = Vec::new();
                        ev.frontier_children(step, &cur[range], &mut v);
                        Ok(v)
                    })?;
                    out.extend_from_slice(&a);
                    out.extend(b.into_iter().flatten());
                } else {
                    self.frontier_children(step, cur, out);
                }
                // children of unrelated nodes come out in document order; under
                // an ancestor they may come before its descendants' children
                if !shape.antichain {
                    out.sort_unstable();
                }
                Ok(shape)
            }
            Axis::Child => {
                if self.elem_match(&step.test).is_none() {
                    return Ok(shape);
                }
                let mut group = Vec::new();
                for f in cur {
                    // one context's children, for the positions of the predicates
                    group.clear();
                    self.frontier_children(step, std::slice::from_ref(f), &mut group);
                    self.filter_records(&mut group, &step.preds)?;
                    out.extend_from_slice(&group);
                }
                // children of unrelated nodes come out in document order; under
                // an ancestor they may come before its descendants' children
                if !shape.antichain {
                    out.sort_unstable();
                }
                Ok(shape)
            }
            Axis::Descendant | Axis::DescendantOrSelf => {
                let with_self = step.axis == Axis::DescendantOrSelf;
                // a node inside the subtree of an earlier one adds nothing new
                let mut covered_to = 0u32;
                for &f in cur {
                    if f == ROOT {
                        if with_self && self.record_passes(&step.test, ROOT) {
                            out.push(ROOT);
                        }
                        self.root_descendants(step, out)?;
                        break;
                    }
                    if f < covered_to {
                        continue;
                    }
                    covered_to = tape.next(f);
                    if with_self && self.record_passes(&step.test, f) && self.frontier_filter(step, f)? {
                        out.push(f);
                    }
                    self.frontier_descendants(step, tape.node(f), out)?;
                }
                Ok(Shape { antichain: false, level: false })
            }
            Axis::Parent => {
                for &f in cur {
                    if f == ROOT {
                        continue;
                    }
                    let p = tape.parent(f).unwrap_or(ROOT);
                    if self.record_passes(&step.test, p) {
                        out.push(p);
                    }
                }
                // parents of same-depth nodes in order are in order, repeated
                // side by side; otherwise sort
                if !shape.level {
                    sort_records(out);
                }
                out.dedup();
                self.frontier_keep(step, out)?;
                Ok(Shape { antichain: shape.level, level: shape.level })
            }
            Axis::SelfAxis => {
                for &f in cur {
                    if self.record_passes(&step.test, f) {
                        out.push(f);
                    }
                }
                self.frontier_keep(step, out)?;
                Ok(shape)
            }
            _ => Ok(shape),
        }
    }

    /// The child elements of the nodes of `cur` that pass the step's test, in
    /// the frontier's order (a child step without predicates).
    fn frontier_children(&self, step: &Step, cur: &[u32], out: &mut Vec<u32>) {
        let tape = self.tape;
        let Some(m) = self.elem_match(&step.test) else { return };
        for &f in cur {
            let range = if f == ROOT { tape.root_range() } else { tape.element_child_range(f) };
            let _ = tape.child_elements(
                range,
                |s| m.sym(s),
                |j| {
                    out.push(j);
                    Ok::<bool, ()>(true)
                },
            );
        }
    }

    /// [`Eval::frontier_descendants`] of the root: on a large document whose
    /// context allows a second thread, the records of the document cut in two
    /// at a record near the middle, each half scanned on its own thread.
    fn root_descendants(&self, step: &'a Step, out: &mut Vec<u32>) -> Result<()> {
        let range = self.tape.root_range();
        let cut = match self.elem_match(&step.test) {
            Some(_) if self.ctx.parallel && range.1 - range.0 >= PARALLEL_MIN_WORDS => self.tape.record_near_middle(range),
            _ => None,
        };
        let Some(cut) = cut else { return self.frontier_descendants(step, self.doc.root(), out) };
        let parts = [(range.0, cut), (cut, range.1)];
        let (a, b) = self.halves(2, 2, |ev: &Eval<'_, 'd>, r: Range<usize>| {
            let mut v = Vec::new();
            let Some(m) = ev.elem_match(&step.test) else { return Ok(v) };
            for k in r {
                ev.tape.descendant_elements(
                    parts[k],
                    |s| m.sym(s),
                    |j| {
                        if ev.frontier_filter(step, j)? {
                            v.push(j);
                        }
                        Ok::<bool, XPathError>(true)
                    },
                )?;
            }
            Ok(v)
        })?;
        out.extend_from_slice(&a);
        out.extend(b.into_iter().flatten());
        Ok(())
    }

    /// The descendants of `n` that pass the step's test and (position-free)
    /// predicates, appended in document order.
    fn frontier_descendants(&self, step: &'a Step, n: Node<'d>, out: &mut Vec<u32>) -> Result<()> {
        self.descendants(&step.test, n, &mut |x| {
            if let Some(r) = x.node.record() {
                if self.frontier_filter(step, r)? {
                    out.push(r);
                }
            }
            Ok(true)
        })?;
        Ok(())
    }

    /// Does `r` pass the step's predicates as the only node of its context
    /// (parent and self axes) or with a position-free predicate?
    fn frontier_filter(&self, step: &'a Step, r: u32) -> Result<bool> {
        for p in &step.preds {
            if !self.pred_true(p, &Cx { node: self.record_node(r), pos: 1, size: 1 })? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Keeps the records of `v` that pass the step's predicates, each as the
    /// only node of its context.
    fn frontier_keep(&self, step: &'a Step, v: &mut Vec<u32>) -> Result<()> {
        if step.preds.is_empty() {
            return Ok(());
        }
        let mut w = 0;
        for i in 0..v.len() {
            let r = v[i];
            if self.frontier_filter(step, r)? {
                v[w] = r;
                w += 1;
            }
        }
        v.truncate(w);
        Ok(())
    }
}

/// Sorts records into document order (the root first).
fn sort_records(v: &mut [u32]) {
    v.sort_unstable_by_key(|&r| r.wrapping_add(1));
}
