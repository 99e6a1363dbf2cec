//! Location paths (§2): steps with their predicates, evaluated as nested loops
//! over the axes where the path is streamable, else step by step into sorted
//! vectors.

use crate::ast::{Axis, Expr, Path, PredKind, Predicate, Start, Step};
use crate::error::ErrorKind;
use crate::value::XNode;

use super::model::sort_dedup;
use super::{scan_answer, Answer, Cx, Eval, Flow, Result, Val, BREAK, CONTINUE};

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

impl<'a, 'd> Eval<'a, 'd> {
    /// Is predicate `p` true at context `cx`?
    #[inline]
    pub(super) fn pred_true(&self, p: &Predicate, cx: &Cx<'d>) -> Result<bool> {
        match p.kind {
            PredKind::Index(k) => Ok(cx.pos == k),
            PredKind::Last => Ok(cx.pos == cx.size),
            PredKind::Never => Ok(false),
            PredKind::Filter | PredKind::PositionalBool => self.eval_bool(&p.expr, cx),
            PredKind::Positional | PredKind::Dynamic => match self.eval(&p.expr, cx)? {
                Val::Num(n) => Ok(n == cx.pos as f64),
                v => Ok(v.boolean()),
            },
        }
    }

    /// Filters `v` (in axis order) by each predicate in turn.
    pub(super) fn filter_all(&self, mut v: Vec<XNode<'d>>, preds: &[Predicate]) -> Result<Vec<XNode<'d>>> {
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
            let _ = self.axis_each(step.axis, &step.test, x, &mut |n| {
                v.push(n);
                Ok(CONTINUE)
            })?;
            for n in v.into_iter().rev() {
                if g(n)?.is_break() {
                    return Ok(BREAK);
                }
            }
            return Ok(CONTINUE);
        }
        let first = &step.preds[0];
        if step.preds.len() == 1 {
            match first.kind {
                PredKind::Never => return Ok(CONTINUE),
                PredKind::Index(k) => {
                    // Stop at the k-th node of the axis.
                    let mut i = 0;
                    let mut found = None;
                    let _ = self.axis_each(step.axis, &step.test, x, &mut |n| {
                        i += 1;
                        if i == k {
                            found = Some(n);
                            return Ok(BREAK);
                        }
                        Ok(CONTINUE)
                    })?;
                    return match found {
                        Some(n) => g(n),
                        None => Ok(CONTINUE),
                    };
                }
                PredKind::Last => {
                    let mut last = None;
                    let _ = self.axis_each(step.axis, &step.test, x, &mut |n| {
                        last = Some(n);
                        Ok(CONTINUE)
                    })?;
                    return match last {
                        Some(n) => g(n),
                        None => Ok(CONTINUE),
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
                        Ok(CONTINUE)
                    });
                }
                _ => {}
            }
        }
        let mut v = Vec::new();
        let _ = self.axis_each(step.axis, &step.test, x, &mut |n| {
            v.push(n);
            Ok(CONTINUE)
        })?;
        let v = self.filter_all(v, &step.preds)?;
        if rev {
            for n in v.into_iter().rev() {
                if g(n)?.is_break() {
                    return Ok(BREAK);
                }
            }
        } else {
            for n in v {
                if g(n)?.is_break() {
                    return Ok(BREAK);
                }
            }
        }
        Ok(CONTINUE)
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
                    let Some(range) = tape.child_range(&cx.node.node) else { return Ok(CONTINUE) };
                    return tape.child_elements(range, |s| m.sym(s), |j| scan_answer(g, XNode::plain(tape.node(j)))).map(Answer::flow);
                }
            }
        }
        let start = self.path_start(path, cx)?;
        if path.streamable == path.steps.len() {
            for &s in start.as_slice() {
                if self.steps_each(&path.steps, s, g)?.is_break() {
                    return Ok(BREAK);
                }
            }
            return Ok(CONTINUE);
        }
        for n in self.path_rest(path, start.as_slice())? {
            if g(n)?.is_break() {
                return Ok(BREAK);
            }
        }
        Ok(CONTINUE)
    }

    /// A path evaluated into a vector: the streamable prefix as nested loops,
    /// then one step at a time with sorting where needed.
    fn path_rest(&self, path: &'a Path, start: &[XNode<'d>]) -> Result<Vec<XNode<'d>>> {
        let k = path.streamable;
        let mut cur: Vec<XNode<'d>> = Vec::new();
        for &s in start {
            let _ = self.steps_each(&path.steps[..k], s, &mut |n| {
                cur.push(n);
                Ok(CONTINUE)
            })?;
        }
        self.steps_rest(&path.steps[k..], cur, false)
    }

    /// `steps` from the nodes `cur` (sorted, distinct), one step at a time.
    /// `antichain`: no node of `cur` is an ancestor of another, so a child,
    /// attribute or namespace step gives sorted, distinct nodes that are
    /// again unrelated, with no need to check.
    pub(super) fn steps_rest(&self, steps: &'a [Step], mut cur: Vec<XNode<'d>>, mut antichain: bool) -> Result<Vec<XNode<'d>>> {
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
                    let _ = self.step_each(step, *x, &mut |n| {
                        out.push(n);
                        Ok(CONTINUE)
                    })?;
                }
                sort_dedup(&mut out);
            } else {
                // Filters commute with the union over context nodes: select,
                // deduplicate, then filter each node once.
                for x in &cur {
                    let _ = self.axis_each(step.axis, &step.test, *x, &mut |n| {
                        out.push(n);
                        Ok(CONTINUE)
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
    pub(super) fn path_nodes(&self, path: &'a Path, cx: &Cx<'d>) -> Result<Vec<XNode<'d>>> {
        let start = self.path_start(path, cx)?;
        if path.frontier > 0 {
            if let Some(v) = self.path_frontier(path, start.as_slice())? {
                return Ok(v);
            }
        }
        if path.streamable == path.steps.len() {
            let mut v = Vec::new();
            for &s in start.as_slice() {
                let _ = self.steps_each(&path.steps, s, &mut |n| {
                    v.push(n);
                    Ok(CONTINUE)
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

    /// Calls `g` for each node of the node-set `e` in document order. Answers
    /// whether `g` let the traversal run to the end, in `g`'s kind of answer.
    pub(crate) fn nodes_each<A: Answer>(&self, e: &Expr, cx: &Cx<'d>, pos: usize, g: &mut dyn FnMut(XNode<'d>) -> Result<A>) -> Result<A> {
        let flow = match e {
            Expr::Path(p) => A::as_flow(g, |g| self.path_each(p, cx, g))?,
            Expr::Filter(inner, preds, fpos) if preds.len() == 1 && matches!(preds[0].kind, PredKind::Index(_) | PredKind::Filter) => {
                // `(expr)[k]` stops at the k-th node; `(expr)[test]` filters in order.
                let p = &preds[0];
                let mut i = 0;
                // After the k-th node the filter is done: the caller's answer
                // (continue or stop) is what `g` said about that node.
                let mut at_k: Option<Flow> = None;
                let flow: Flow = self.nodes_each(inner, cx, *fpos, &mut |n| {
                    i += 1;
                    match p.kind {
                        PredKind::Index(k) => {
                            if i == k {
                                at_k = Some(g(n)?.flow());
                                return Ok(BREAK);
                            }
                            Ok(CONTINUE)
                        }
                        _ => {
                            if self.eval_bool(&p.expr, &Cx { node: n, pos: i, size: 0 })? {
                                return Ok(g(n)?.flow());
                            }
                            Ok(CONTINUE)
                        }
                    }
                })?;
                at_k.unwrap_or(flow)
            }
            _ => {
                let mut flow = CONTINUE;
                for n in self.nodes_of(e, cx, pos)? {
                    flow = g(n)?.flow();
                    if flow.is_break() {
                        break;
                    }
                }
                flow
            }
        };
        Ok(A::from_flow(flow))
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
        let _ = self.nodes_each(e, cx, pos, &mut |n| {
            found = Some(n);
            Ok(BREAK)
        })?;
        Ok(found)
    }
}
