//! Rewrites of the compiled tree. Each rewrite states the condition that
//! makes it correct.

use crate::ast::*;
use crate::functions::CoreFn;

/// Optimizes an expression in place (children first).
pub(crate) fn optimize(e: &mut Expr) {
    match e {
        Expr::Or(a, b) | Expr::And(a, b) | Expr::Cmp(_, a, b) | Expr::Arith(_, a, b) => {
            optimize(a);
            optimize(b);
        }
        Expr::Neg(a) => optimize(a),
        Expr::Union(v, _) | Expr::Call(_, v, _) => v.iter_mut().for_each(optimize),
        Expr::Filter(a, preds, _) => {
            optimize(a);
            preds.iter_mut().for_each(predicate);
        }
        Expr::Path(p) => path(p),
        Expr::Literal(_) | Expr::Number(_) | Expr::Var(..) | Expr::PositionCmp(..) | Expr::PositionMod(..) | Expr::ChildNumCmp(..) => {}
    }
    fold(e);
}

fn is_call(e: &Expr, f: CoreFn) -> bool {
    matches!(e, Expr::Call(Func::Core(c), args, _) if *c == f && args.is_empty())
}

/// Local rewrites of one node whose children are already optimized.
fn fold(e: &mut Expr) {
    let new = match e {
        // Constant arithmetic: IEEE results are the same at compile time.
        Expr::Neg(a) => match **a {
            Expr::Number(n) => Some(Expr::Number(-n)),
            _ => None,
        },
        Expr::Arith(op, a, b) => match (&**a, &**b) {
            (Expr::Number(x), Expr::Number(y)) => Some(Expr::Number(op.apply(*x, *y))),
            _ => None,
        },
        // `position() op n` (either order): a compare of the context position.
        Expr::Cmp(op, a, b) => match (&**a, &**b) {
            (x, Expr::Number(n)) if is_call(x, CoreFn::Position) => Some(Expr::PositionCmp(*op, *n)),
            (Expr::Number(n), x) if is_call(x, CoreFn::Position) => Some(Expr::PositionCmp(op.swap(), *n)),
            // `position() mod m = r`
            (Expr::Arith(ArithOp::Mod, p, m), Expr::Number(r)) if *op == CmpOp::Eq && is_call(p, CoreFn::Position) => match **m {
                Expr::Number(m) => Some(Expr::PositionMod(m, *r)),
                _ => None,
            },
            // `name op n`: a node-set compared with a number is a compare of each
            // node's number value (§3.4), the same for every operator
            (x, Expr::Number(n)) => child_element_test(x).map(|t| Expr::ChildNumCmp(t, *op, *n)),
            (Expr::Number(n), x) => child_element_test(x).map(|t| Expr::ChildNumCmp(t, op.swap(), *n)),
            _ => None,
        },
        _ => None,
    };
    if let Some(n) = new {
        *e = n;
    }
}

/// The element test of a relative path that is one child step with an
/// element test and no predicates (`price`, `*`, `p:*`).
fn child_element_test(e: &Expr) -> Option<NodeTest> {
    let Expr::Path(p) = e else { return None };
    match (&p.start, &p.steps[..]) {
        (Start::Context, [s]) if s.axis == Axis::Child && s.preds.is_empty() => {
            matches!(s.test, NodeTest::Any | NodeTest::Name { .. } | NodeTest::AnyInNs { .. }).then(|| s.test.clone())
        }
        _ => None,
    }
}

/// Classifies a predicate (see [`PredKind`]).
fn predicate(p: &mut Predicate) {
    optimize(&mut p.expr);
    let (pos, last) = p.expr.uses_position_or_last();
    p.uses_last = last;
    let index = |n: f64| {
        if n >= 1.0 && n.fract() == 0.0 && n < 1e15 {
            PredKind::Index(n as usize)
        } else {
            PredKind::Never
        }
    };
    p.kind = match &p.expr {
        // `[n]` is `[position() = n]` (§2.4).
        Expr::Number(n) => index(*n),
        Expr::PositionCmp(CmpOp::Eq, n) => index(*n),
        e if is_call(e, CoreFn::Last) => PredKind::Last,
        Expr::Cmp(CmpOp::Eq, a, b)
            if (is_call(a, CoreFn::Position) && is_call(b, CoreFn::Last)) || (is_call(a, CoreFn::Last) && is_call(b, CoreFn::Position)) =>
        {
            PredKind::Last
        }
        e if is_call(e, CoreFn::False) => PredKind::Never,
        e => match e.ty() {
            Type::Number => PredKind::Positional,
            Type::Unknown => PredKind::Dynamic,
            _ if pos || last => PredKind::PositionalBool,
            _ => PredKind::Filter,
        },
    };
    if matches!(p.kind, PredKind::Index(_) | PredKind::Never) {
        p.uses_last = false;
    }
}

fn path(p: &mut Path) {
    if let Start::Expr(e) = &mut p.start {
        optimize(e);
    }
    for s in &mut p.steps {
        s.preds.iter_mut().for_each(predicate);
    }
    fuse(&mut p.steps);
    p.streamable = streamable(p);
    p.frontier = match p.start {
        Start::Root | Start::Context => p.steps.iter().take_while(|s| frontier_step(s)).count(),
        Start::Expr(_) => 0,
    };
}

/// Can `eval/frontier.rs` evaluate this step over element records? Element
/// tests on the child axis with any predicates (positions are counted per
/// context node there); on the descendant axes with position-free predicates
/// (a descendant's position depends on which context node reached it); the
/// parent and self axes (at most one node per context node, so position and
/// size are 1) with element tests or `node()`.
fn frontier_step(s: &Step) -> bool {
    let element_test = matches!(s.test, NodeTest::Any | NodeTest::Name { .. } | NodeTest::AnyInNs { .. } | NodeTest::ElementOrRoot);
    match s.axis {
        Axis::Child => element_test,
        Axis::Descendant | Axis::DescendantOrSelf => element_test && s.preds.iter().all(|p| p.kind == PredKind::Filter),
        Axis::Parent | Axis::SelfAxis => element_test || s.test == NodeTest::Node,
        _ => false,
    }
}

fn is_dos_node(s: &Step) -> bool {
    s.axis == Axis::DescendantOrSelf && s.test == NodeTest::Node && s.preds.is_empty()
}

/// `//` fusion. For a step `descendant-or-self::node()` followed by step S:
///
/// * S = `child::T[F]` with only position-free predicates F: the pair selects
///   the descendants of the context node that pass T and F, i.e.
///   `descendant::T[F]` (F does not see positions, so the grouping by parent
///   that the two-step form implies is unobservable).
/// * S = `descendant::T[F]` or `descendant-or-self::T[F]`: the descendants of
///   descendants-or-self are the descendants (resp. descendants-or-self).
/// * S = `self::T[F]`: `descendant-or-self::T[F]`.
/// * otherwise, when S is on the child, attribute or namespace axis, only
///   nodes that can have children, attributes or namespace nodes matter: the
///   first step becomes `descendant-or-self::(element or root)`, which skips
///   text, comments and PIs and lets the tape scan skip text entirely.
fn fuse(steps: &mut Vec<Step>) {
    let mut i = 0;
    while i + 1 < steps.len() {
        if is_dos_node(&steps[i]) {
            let next = &steps[i + 1];
            let position_free = next.preds.iter().all(|p| p.kind == PredKind::Filter);
            let fused = match next.axis {
                Axis::Child if position_free => Some(Axis::Descendant),
                Axis::Descendant if position_free => Some(Axis::Descendant),
                Axis::DescendantOrSelf | Axis::SelfAxis if position_free => Some(Axis::DescendantOrSelf),
                _ => None,
            };
            match fused {
                Some(axis) => {
                    steps[i + 1].axis = axis;
                    steps.remove(i);
                    continue;
                }
                None => {
                    if matches!(next.axis, Axis::Child | Axis::Attribute | Axis::Namespace) {
                        steps[i].test = NodeTest::ElementOrRoot;
                    }
                }
            }
        }
        i += 1;
    }
}

/// How many leading steps, evaluated as nested loops from the path's start,
/// produce nodes in document order without duplicates.
///
/// The nested loops visit, for each input node in document order, its axis
/// nodes in document order. That concatenation is sorted and duplicate-free
/// when the input is a single node (any axis; reverse axes are buffered per
/// context node), or when the inputs are sorted and pairwise unrelated by
/// ancestry (an "antichain") and the axis stays inside each input's subtree
/// (child, attribute, namespace, self, descendant, descendant-or-self), or
/// when the inputs are sorted and the axis is attribute, namespace or self
/// (an element's attributes and namespace nodes come right after it).
fn streamable(p: &Path) -> usize {
    let (mut single, mut antichain) = match p.start {
        Start::Root | Start::Context => (true, true),
        Start::Expr(_) => (false, false),
    };
    for (i, s) in p.steps.iter().enumerate() {
        use Axis::*;
        let ok = single
            || (antichain && matches!(s.axis, Child | Attribute | Namespace | SelfAxis | Descendant | DescendantOrSelf))
            || matches!(s.axis, Attribute | Namespace | SelfAxis);
        if !ok {
            return i;
        }
        let at_most_one = matches!(s.axis, Parent | SelfAxis)
            || s.preds.first().is_some_and(|p| matches!(p.kind, PredKind::Index(_) | PredKind::Last | PredKind::Never));
        let was_single = single;
        single = single && at_most_one;
        antichain = single
            || match s.axis {
                Attribute | Namespace => true,
                Child => antichain || was_single,
                SelfAxis => antichain,
                FollowingSibling | PrecedingSibling | Parent => was_single,
                _ => false,
            };
    }
    p.steps.len()
}
