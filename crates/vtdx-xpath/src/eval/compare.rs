//! Comparisons (§3.4): `=`, `!=`, `<`, `<=`, `>`, `>=` between node-sets and
//! scalars, without materializing a node-set where one side is a scalar.

use std::borrow::Cow;

use crate::ast::{CmpOp, Expr, NodeTest, Type};
use crate::number;
use crate::value::XNode;

use vtdx_core::Sym;

use super::axes::{ElemMatch, SymSet};
use super::{Cx, Eval, Result, Val, BREAK, CONTINUE};

impl<'a, 'd> Eval<'a, 'd> {
    pub(super) fn compare(&self, op: CmpOp, a: &'a Expr, b: &'a Expr, cx: &Cx<'d>) -> Result<bool> {
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
    pub(super) fn child_num_cmp(&self, test: &NodeTest, op: CmpOp, n: f64, cx: &Cx<'d>) -> bool {
        let (Some(m), 0) = (self.elem_match(test), cx.node.ns) else { return false };
        let Some(range) = self.tape.child_range(&cx.node.node) else { return false };
        self.child_num_cmp_in(|s| m.sym(s), range, op, n)
    }

    /// Keeps the element records of `v` for which [`Eval::child_num_cmp`] is true:
    /// a predicate `[name op n]` over many elements (`item[USPrice<100]`), read
    /// from the records without a context node for each.
    pub(super) fn retain_child_num_cmp(&self, v: &mut Vec<u32>, test: &NodeTest, op: CmpOp, n: f64) {
        // PERF: the name test decided once, not for each child (a third of the
        // instructions of `item[USPrice<100]` on po_big went to it)
        match self.elem_match(test) {
            None | Some(ElemMatch::Set(SymSet::Empty)) => v.clear(),
            Some(ElemMatch::Set(&SymSet::One(x))) => self.retain_prefetching(v, |s| s == x, op, n),
            Some(m) => self.retain_prefetching(v, |s| m.sym(s), op, n),
        }
    }

    /// [`Eval::retain_child_num_cmp`] with the name test `test`, with the memory
    /// each record needs asked for ahead.
    // PERF: on a large document the value of each child is a cache miss (the
    // text is read for the first time since the parse), and so are the records.
    // The records `2 * PREFETCH_AHEAD` elements on are asked for, then the bytes of
    // the first matching child `PREFETCH_AHEAD` on (its record is in the cache by
    // then), so that the misses overlap with the work. `item[USPrice<100]` on
    // po_16mb, warm loop (`examples/seed_timing`): 4.9-6.7 ms per evaluation
    // one miss after the other; 3.1-3.4 ms reading the start tags of a block of 8
    // first, in a loop of their own (blocks of 16: 3.6-4.4, 32: 4.8, 64: 5.1-5.3);
    // with prefetches: see docs/xpath.md.
    fn retain_prefetching(&self, v: &mut Vec<u32>, test: impl Fn(Sym) -> bool + Copy, op: CmpOp, n: f64) {
        use super::frontier::{PREFETCH_AHEAD, PREFETCH_RECORD_WORDS};
        let tape = self.tape;
        let mut kept = 0;
        for i in 0..v.len() {
            if let Some(&r2) = v.get(i + 2 * PREFETCH_AHEAD) {
                tape.prefetch_record(r2, PREFETCH_RECORD_WORDS);
            }
            if let Some(&r1) = v.get(i + PREFETCH_AHEAD) {
                let _ = tape.child_elements(tape.element_child_range(r1), test, |j| {
                    tape.prefetch_element_bytes(j);
                    Ok::<bool, ()>(false)
                });
            }
            let r = v[i];
            if self.child_num_cmp_in(test, tape.element_child_range(r), op, n) {
                v[kept] = r;
                kept += 1;
            }
        }
        v.truncate(kept);
    }

    /// [`Eval::child_num_cmp`] over the child records `range`, with the name test `test`.
    #[inline]
    fn child_num_cmp_in(&self, test: impl Fn(Sym) -> bool, range: (u32, u32), op: CmpOp, n: f64) -> bool {
        let tape = self.tape;
        let mut found = false;
        let _ = tape.child_elements(range, test, |j| {
            // `<q>digits</q>`, the usual case, read from the record alone
            let v = match tape.bare_leaf(j).and_then(number::parse_bare) {
                Some(v) => v,
                None => XNode::plain(tape.node(j)).number_value(),
            };
            found = op.numbers(v, n);
            Ok::<bool, ()>(!found)
        });
        found
    }

    /// Does some node of the node-set `nodes` pass `test`? Stops at the first that does.
    #[inline]
    fn any_node(&self, nodes: &'a Expr, cx: &Cx<'d>, test: impl Fn(&XNode<'d>) -> bool) -> Result<bool> {
        let mut found = false;
        let _ = self.nodes_each(nodes, cx, 0, &mut |x| {
            if test(&x) {
                found = true;
                return Ok(BREAK);
            }
            Ok(CONTINUE)
        })?;
        Ok(found)
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
                self.any_node(nodes, cx, |x| op.numbers(x.number_value(), n))
            }
            Val::Str(st) => {
                let st = st.as_str();
                if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    self.any_node(nodes, cx, |x| x.string_value_is(st) == (op == CmpOp::Eq))
                } else {
                    let n = number::parse(st);
                    self.any_node(nodes, cx, |x| op.numbers(x.number_value(), n))
                }
            }
            Val::Nodes(_) => unreachable_nodes(),
        }
    }
}

/// `compare` passes only scalars to `compare_nodes_scalar`.
#[cold]
fn unreachable_nodes() -> Result<bool> {
    debug_assert!(false, "compare_nodes_scalar called with a node-set");
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
