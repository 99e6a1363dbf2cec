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
//!
//! The evaluator is split by concern: [`Context`] (per-document state,
//! `context.rs`), the data model and document order (`model.rs`), node tests
//! and axes (`axes.rs`), location paths (`paths.rs`), comparisons
//! (`compare.rs`) and function calls (`call.rs`); this file holds the values
//! of evaluation and the dispatch over expressions.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::ops::{ControlFlow, Range};

use vtdx_core::{Document, Node, NodeKind};

use crate::ast::*;
use crate::error::{ErrorKind, XPathError};
use crate::number;
use crate::tape::Tape;
use crate::value::{NodeSet, Value, XNode};

mod axes;
mod call;
mod compare;
mod context;
mod frontier;
mod model;
mod paths;

use axes::SymSet;
use model::merge;

pub use context::Context;
pub(crate) use model::{sort_dedup, xpath_children};

type Result<T> = std::result::Result<T, XPathError>;

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

/// What a traversal's callback answers after each node: go on with the next
/// node (`Continue`) or stop (`Break`). Traversals pass the answer that ended
/// them back up, so a caller can tell whether its callback stopped them.
pub(crate) type Flow = ControlFlow<()>;

/// Go on with the next node.
pub(crate) const CONTINUE: Flow = ControlFlow::Continue(());
/// Stop the traversal.
pub(crate) const BREAK: Flow = ControlFlow::Break(());

/// What a traversal callback may answer: a [`Flow`], or a `bool` (`true` for
/// "go on") from the callers outside this module that still use that
/// convention (`XPath::for_each_in` in `lib.rs`, `frontier.rs`). The entry
/// points they call ([`Eval::nodes_each`], [`Eval::descendants`]) are generic
/// over it and answer in the same kind, at no cost per node for either.
pub(crate) trait Answer: Sized {
    /// The answer as a [`Flow`].
    fn flow(self) -> Flow;

    /// A [`Flow`] as this kind of answer.
    fn from_flow(f: Flow) -> Self;

    /// Runs `f` with `g` as a callback that answers [`Flow`]: `g` itself when it
    /// already does, else `g` behind a conversion.
    fn as_flow<'d, R>(g: &mut dyn FnMut(XNode<'d>) -> Result<Self>, f: impl FnOnce(&mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> R) -> R;
}

impl Answer for Flow {
    #[inline(always)]
    fn flow(self) -> Flow {
        self
    }

    #[inline(always)]
    fn from_flow(f: Flow) -> Flow {
        f
    }

    #[inline(always)]
    fn as_flow<'d, R>(g: &mut dyn FnMut(XNode<'d>) -> Result<Flow>, f: impl FnOnce(&mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> R) -> R {
        f(g)
    }
}

impl Answer for bool {
    #[inline(always)]
    fn flow(self) -> Flow {
        if self {
            CONTINUE
        } else {
            BREAK
        }
    }

    #[inline(always)]
    fn from_flow(f: Flow) -> bool {
        f.is_continue()
    }

    #[inline(always)]
    fn as_flow<'d, R>(g: &mut dyn FnMut(XNode<'d>) -> Result<bool>, f: impl FnOnce(&mut dyn FnMut(XNode<'d>) -> Result<Flow>) -> R) -> R {
        f(&mut |x| g(x).map(bool::flow))
    }
}

/// `g`'s answer for `x` in the form the tape's scans (`crate::tape`) take from
/// their callbacks: `true` to go on. (Their result is a `bool` [`Answer`].)
#[inline(always)]
fn scan_answer<'d, A: Answer>(g: &mut dyn FnMut(XNode<'d>) -> Result<A>, x: XNode<'d>) -> Result<bool> {
    Ok(g(x)?.flow().is_continue())
}

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

impl<'a, 'd> Eval<'a, 'd> {
    pub(crate) fn new(ctx: &'a Context<'d>, expr: &'a str, tests: &'a [NodeTest]) -> Eval<'a, 'd> {
        Eval { ctx, doc: ctx.doc, expr, sets: (0..tests.len()).map(|_| OnceCell::new()).collect(), tests, tape: Tape::new(ctx.doc) }
    }

    /// Runs `f` over the items `0..n`: in one call, or, when the context allows
    /// a second thread ([`Context::set_parallel`]) and `n` is at least `min`,
    /// over `0..n/2` here and `n/2..n` on a scoped thread with an evaluator of
    /// its own (the variables copied, the lazily built indexes its own). The
    /// halves' results in order; an error of the first half wins, as it would
    /// in one pass.
    fn halves<T: Send>(
        &self,
        n: usize,
        min: usize,
        f: impl for<'x> Fn(&Eval<'x, 'd>, Range<usize>) -> Result<T> + Sync,
    ) -> Result<(T, Option<T>)> {
        if !self.ctx.parallel || n < min.max(2) {
            return Ok((f(self, 0..n)?, None));
        }
        let mid = n / 2;
        let (doc, vars, expr, tests) = (self.doc, &self.ctx.vars, self.expr, self.tests);
        let f = &f;
        let (a, b) = std::thread::scope(|s| {
            let second = s.spawn(move || {
                let ctx = Context::with_vars(doc, vars.clone());
                f(&Eval::new(&ctx, expr, tests), mid..n)
            });
            let a = f(self, 0..mid);
            (a, second.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        });
        Ok((a?, Some(b?)))
    }

    fn err(&self, kind: ErrorKind, pos: usize) -> XPathError {
        XPathError::new(kind, pos, self.expr)
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
        let _ = self.nodes_each(inner, cx, pos, &mut |n| {
            i += 1;
            if i == k {
                found.push(n);
                return Ok(BREAK);
            }
            Ok(CONTINUE)
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
}
