//! The compiled form of an expression: a tree the evaluator walks directly.
//!
//! The parser builds it with every name resolved (namespace prefixes to URIs,
//! function names to core functions or registered extension functions); the
//! optimizer then rewrites it in place (see `optimize.rs`).

use std::fmt;
use std::sync::Arc;

use crate::functions::{CoreFn, Function};

/// The 13 axes (§2.2).
#[allow(clippy::enum_variant_names)] // `SelfAxis`: `Self` is a keyword
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Axis {
    Ancestor,
    AncestorOrSelf,
    Attribute,
    Child,
    Descendant,
    DescendantOrSelf,
    Following,
    FollowingSibling,
    Namespace,
    Parent,
    Preceding,
    PrecedingSibling,
    SelfAxis,
}

impl Axis {
    pub(crate) fn from_name(s: &str) -> Option<Axis> {
        Some(match s {
            "ancestor" => Axis::Ancestor,
            "ancestor-or-self" => Axis::AncestorOrSelf,
            "attribute" => Axis::Attribute,
            "child" => Axis::Child,
            "descendant" => Axis::Descendant,
            "descendant-or-self" => Axis::DescendantOrSelf,
            "following" => Axis::Following,
            "following-sibling" => Axis::FollowingSibling,
            "namespace" => Axis::Namespace,
            "parent" => Axis::Parent,
            "preceding" => Axis::Preceding,
            "preceding-sibling" => Axis::PrecedingSibling,
            "self" => Axis::SelfAxis,
            _ => return None,
        })
    }

    /// Reverse axes number proximity positions backwards in document order (§2.4).
    pub(crate) fn is_reverse(self) -> bool {
        matches!(self, Axis::Ancestor | Axis::AncestorOrSelf | Axis::Preceding | Axis::PrecedingSibling)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Axis::Ancestor => "ancestor",
            Axis::AncestorOrSelf => "ancestor-or-self",
            Axis::Attribute => "attribute",
            Axis::Child => "child",
            Axis::Descendant => "descendant",
            Axis::DescendantOrSelf => "descendant-or-self",
            Axis::Following => "following",
            Axis::FollowingSibling => "following-sibling",
            Axis::Namespace => "namespace",
            Axis::Parent => "parent",
            Axis::Preceding => "preceding",
            Axis::PrecedingSibling => "preceding-sibling",
            Axis::SelfAxis => "self",
        }
    }
}

/// A node test (§2.3). Name tests match the axis's principal node type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeTest {
    /// `node()`
    Node,
    /// `text()`
    Text,
    /// `comment()`
    Comment,
    /// `processing-instruction()` or `processing-instruction('target')`
    Pi(Option<Box<str>>),
    /// `*`
    Any,
    /// `prefix:*`, with the prefix's URI; `slot` indexes the per-evaluation symbol sets.
    AnyInNs { uri: Box<str>, slot: usize },
    /// A QName: namespace URI (`None` for no namespace: unprefixed names never
    /// take a default namespace, §2.3) and local name.
    Name { uri: Option<Box<str>>, local: Box<str>, slot: usize },
    /// Internal (made by the optimizer, not expressible in XPath): the root
    /// node or an element, the nodes that can have children or attributes.
    ElementOrRoot,
}

/// Comparison operators (§3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub(crate) fn swap(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            o => o,
        }
    }
    #[inline]
    pub(crate) fn numbers(self, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// Arithmetic operators (§3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl ArithOp {
    #[inline]
    pub(crate) fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            ArithOp::Add => a + b,
            ArithOp::Sub => a - b,
            ArithOp::Mul => a * b,
            ArithOp::Div => a / b,
            // IEEE remainder with truncating division: the sign of the dividend,
            // like Java's `%` (§3.5).
            ArithOp::Mod => remainder(a, b),
        }
    }
}

/// `a mod b`: IEEE remainder with truncating division, the sign of the dividend
/// (`fmod`). Integral operands below 2^53 take integer division, which gives the
/// same value (`fmod` is exact) at a fraction of the cost of the software `fmod`
/// (a quarter of the time of `/*/*/*[position() mod 2 = 0]` otherwise).
#[inline]
pub(crate) fn remainder(a: f64, b: f64) -> f64 {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if a.abs() < EXACT && b.abs() < EXACT && b != 0.0 && a.fract() == 0.0 && b.fract() == 0.0 {
        let r = ((a as i64) % (b as i64)) as f64;
        // a zero remainder keeps the dividend's sign: -4 mod 2 is -0
        if r == 0.0 {
            0.0f64.copysign(a)
        } else {
            r
        }
    } else {
        a % b
    }
}

/// An expanded variable name: (namespace URI or "", local name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct VarName {
    pub uri: Box<str>,
    pub local: Box<str>,
}

impl fmt::Display for VarName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.uri.is_empty() {
            write!(f, "{}", self.local)
        } else {
            write!(f, "{{{}}}{}", self.uri, self.local)
        }
    }
}

/// A function to call.
#[derive(Clone)]
pub(crate) enum Func {
    Core(CoreFn),
    Ext { name: Box<str>, f: Arc<dyn Function> },
}

impl fmt::Debug for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Func::Core(c) => write!(f, "{c:?}"),
            Func::Ext { name, .. } => write!(f, "ext:{name}"),
        }
    }
}

/// What the optimizer learned about a predicate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum PredKind {
    /// A constant number `[n]`: true only at proximity position `n` (1-based).
    Index(usize),
    /// `[last()]` or `[position() = last()]`.
    Last,
    /// A predicate that is never true (`[0]`, `[1.5]`, `[false()]`).
    Never,
    /// A number-valued predicate, or one of unknown type that reads `position()`
    /// or `last()`.
    Positional,
    /// A boolean, string or node-set predicate that reads `position()` or `last()`
    /// (`[position() mod 2 = 0]`): true when its boolean value is.
    PositionalBool,
    /// A boolean test that reads neither `position()` nor `last()`.
    Filter,
    /// Type unknown until evaluation (variables, extension functions).
    Dynamic,
}

/// A predicate `[expr]` (§2.4).
#[derive(Debug, Clone)]
pub(crate) struct Predicate {
    pub expr: Expr,
    pub kind: PredKind,
    /// Reads `last()` (so the context size must be known).
    pub uses_last: bool,
}

impl Predicate {
    pub(crate) fn new(expr: Expr) -> Predicate {
        Predicate { expr, kind: PredKind::Dynamic, uses_last: true }
    }
}

/// A location step (§2.1).
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub axis: Axis,
    pub test: NodeTest,
    pub preds: Vec<Predicate>,
}

/// Where a path starts.
#[derive(Debug, Clone)]
pub(crate) enum Start {
    /// `/...`: the root of the context node's document.
    Root,
    /// A relative location path.
    Context,
    /// A filter expression (`$v/a`, `(x|y)//z`, `id('a')/b`).
    Expr(Box<Expr>),
}

/// A path expression.
#[derive(Debug, Clone)]
pub(crate) struct Path {
    pub start: Start,
    pub steps: Vec<Step>,
    /// How many leading steps produce document order without sorting when
    /// evaluated as nested loops (set by the optimizer; 0 = none).
    pub streamable: usize,
    /// How many leading steps can be evaluated a whole level at a time over
    /// element records (`eval/frontier.rs`; set by the optimizer; 0 = none).
    pub frontier: usize,
    /// Byte offset in the expression, for errors.
    pub pos: usize,
}

/// An expression.
#[derive(Debug, Clone)]
pub(crate) enum Expr {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    /// `a | b | ...`, with the offset of the first `|`.
    Union(Vec<Expr>, usize),
    Literal(Box<str>),
    Number(f64),
    Var(VarName, usize),
    Call(Func, Vec<Expr>, usize),
    /// A primary expression with predicates, with the offset of the first `[`.
    Filter(Box<Expr>, Vec<Predicate>, usize),
    Path(Box<Path>),
    // ---- forms made by the optimizer ----
    /// `position()` compared with a constant: `position() op n`.
    PositionCmp(CmpOp, f64),
    /// `position() mod m = r` (the seed's `position() mod 2 = 0`).
    PositionMod(f64, f64),
    /// `name op n` (either order) with `name` a child element test and `n` a
    /// number: true if some child element passing the test has a number value
    /// that compares true (the node-set/number rule of §3.4), read straight
    /// from the tape (the seed's `item[USPrice<100]`).
    ChildNumCmp(NodeTest, CmpOp, f64),
}

/// The static type of an expression, when known at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    NodeSet,
    Number,
    String,
    Boolean,
    Unknown,
}

impl Expr {
    /// The type the expression evaluates to (§3: each operator and function has
    /// a fixed result type; variables and extension functions are `Unknown`).
    pub(crate) fn ty(&self) -> Type {
        match self {
            Expr::Or(..) | Expr::And(..) | Expr::Cmp(..) | Expr::PositionCmp(..) | Expr::PositionMod(..) | Expr::ChildNumCmp(..) => {
                Type::Boolean
            }
            Expr::Arith(..) | Expr::Neg(_) | Expr::Number(_) => Type::Number,
            Expr::Union(..) | Expr::Path(_) => Type::NodeSet,
            Expr::Literal(_) => Type::String,
            Expr::Var(..) => Type::Unknown,
            Expr::Call(Func::Core(c), _, _) => c.result_type(),
            Expr::Call(Func::Ext { .. }, _, _) => Type::Unknown,
            Expr::Filter(e, _, _) => match e.ty() {
                Type::Unknown => Type::Unknown,
                _ => Type::NodeSet,
            },
        }
    }

    /// Does the value depend on the context position or size? Nested predicates
    /// and path steps have their own context and are not looked into.
    pub(crate) fn uses_position_or_last(&self) -> (bool, bool) {
        let mut pos = false;
        let mut last = false;
        self.visit_context(&mut |e| match e {
            Expr::Call(Func::Core(CoreFn::Position), _, _) | Expr::PositionCmp(..) | Expr::PositionMod(..) => pos = true,
            Expr::Call(Func::Core(CoreFn::Last), _, _) => last = true,
            // An extension function may read the context position and size.
            Expr::Call(Func::Ext { .. }, _, _) => {
                pos = true;
                last = true;
            }
            _ => {}
        });
        (pos, last)
    }

    /// Calls `f` on this expression and every subexpression evaluated with the
    /// same context (not inside predicates or relative path steps).
    fn visit_context(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Or(a, b) | Expr::And(a, b) | Expr::Cmp(_, a, b) | Expr::Arith(_, a, b) => {
                a.visit_context(f);
                b.visit_context(f);
            }
            Expr::Neg(a) => a.visit_context(f),
            Expr::Union(v, _) => v.iter().for_each(|e| e.visit_context(f)),
            Expr::Call(_, args, _) => args.iter().for_each(|e| e.visit_context(f)),
            Expr::Filter(e, _, _) => e.visit_context(f),
            Expr::Path(p) => {
                if let Start::Expr(e) = &p.start {
                    e.visit_context(f);
                }
            }
            Expr::Literal(_) | Expr::Number(_) | Expr::Var(..) | Expr::PositionCmp(..) | Expr::PositionMod(..) | Expr::ChildNumCmp(..) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// Bit for bit what the platform's `fmod` (Rust's `%` on floats) gives.
    fn same(a: f64, b: f64) -> Result<(), TestCaseError> {
        let (got, want) = (super::remainder(a, b), a % b);
        prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{a} mod {b}: {got} (want {want})");
        Ok(())
    }

    proptest! {
        #[test]
        fn remainder_is_fmod_on_integers(a in -1_000_000i64..1_000_000, b in -1000i64..1000) {
            same(a as f64, b as f64)?;
        }

        #[test]
        fn remainder_is_fmod_on_any_double(a in any::<f64>(), b in any::<f64>()) {
            same(a, b)?;
        }
    }

    #[test]
    fn remainder_edge_cases() -> Result<(), TestCaseError> {
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.0,
            -2.0,
            0.5,
            -0.5,
            3.0,
            9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            -9_007_199_254_740_993.0,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        for a in edges {
            for b in edges {
                same(a, b)?;
            }
        }
        Ok(())
    }
}
