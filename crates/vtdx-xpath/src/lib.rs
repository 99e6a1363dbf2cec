//! # vtdx-xpath
//!
//! XPath 1.0 (the whole W3C Recommendation) evaluated directly on the vtdx
//! token index: no DOM is built. Compile an expression once, evaluate it on
//! any number of documents, from any number of threads.
//!
//! ```
//! use vtdx_core::Document;
//! use vtdx_xpath::{Namespaces, Value, XPath};
//!
//! let doc = Document::parse(br#"<po><item n="1"><price>12.5</price></item><item n="2"><price>150</price></item></po>"#)?;
//! let cheap = XPath::compile("/po/item[price < 100]/@n", &Namespaces::new())?;
//! let nodes = cheap.select(doc.root())?;
//! assert_eq!(nodes.len(), 1);
//! assert_eq!(nodes.first().unwrap().string_value(), "1");
//!
//! let total = XPath::compile("sum(//price)", &Namespaces::new())?;
//! assert_eq!(total.evaluate(doc.root())?, Value::Number(162.5));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Data model
//!
//! The node model is XPath's (§5), computed from the index on the fly: the
//! root node is distinct from the document element; adjacent text and CDATA
//! sections form one text node ([`XNode`]); entity references are expanded and
//! attribute values normalized by the core parser; namespace declarations are
//! not attributes, and every element has a namespace node for each in-scope
//! namespace (the `xml` namespace included).
//!
//! ## Names, variables, functions
//!
//! Prefixes in name tests, variable and function names are bound by the
//! caller at compile time ([`Namespaces`]); unprefixed names in name tests
//! are in no namespace (§2.3). Variables are bound per document in a
//! [`Context`]. Extension functions are registered in [`Functions`] and
//! resolved at compile time, like the 27 core functions.
//!
//! ## Speed
//!
//! Name tests compare interned symbols. Child steps with name tests walk the
//! element records of the tape and never decode text. `//name` scans the tape
//! (or, when a [`Context`] is reused, a per-name element list it builds on
//! the second request). Paths whose steps keep document order are evaluated as
//! nested loops and stop early where the expression allows: `(//item)[1]`,
//! `boolean(//a)`, `count(/a/b)`, `//x[1]`, and comparisons such as
//! `item[price < 100]`, which parse numbers from borrowed string values.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod ast;
mod error;
mod eval;
mod functions;
mod lexer;
pub mod number;
mod optimize;
mod parser;
mod tape;
mod value;

use std::ops::ControlFlow;

use vtdx_core::Node;

pub use error::{ErrorKind, XPathError};
pub use eval::Context;
pub use functions::{CallContext, Function, Functions};
pub use value::{NodeSet, Value, XNode, XNodeKind};

use ast::{Expr, NodeTest};
use eval::{Cx, Eval};

/// Namespace prefixes for compiling expressions: what `p` means in `p:item`,
/// `p:*`, `$p:v` and `p:f()`. The `xml` prefix is always bound.
///
/// ```
/// use vtdx_xpath::Namespaces;
/// let ns = Namespaces::new().with("soap", "http://schemas.xmlsoap.org/soap/envelope/");
/// assert_eq!(ns.get("soap"), Some("http://schemas.xmlsoap.org/soap/envelope/"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Namespaces {
    map: Vec<(String, String)>,
}

impl Namespaces {
    /// No prefixes bound (except `xml`).
    pub fn new() -> Namespaces {
        Namespaces::default()
    }

    /// Binds `prefix` to `uri` (a later binding of the same prefix wins).
    pub fn insert(&mut self, prefix: &str, uri: &str) -> &mut Namespaces {
        self.map.retain(|(p, _)| p != prefix);
        self.map.push((prefix.to_string(), uri.to_string()));
        self
    }

    /// [`Namespaces::insert`], by value.
    pub fn with(mut self, prefix: &str, uri: &str) -> Namespaces {
        self.insert(prefix, uri);
        self
    }

    /// The prefixes declared anywhere in `doc` (`xmlns:p="..."`, defaulted
    /// declarations included), each bound to the URI of its first declaration in
    /// document order: what a command-line tool offers for expressions over one
    /// document. The default namespace (`xmlns="..."`) binds no prefix.
    pub fn declared_in(doc: &vtdx_core::Document<'_>) -> Namespaces {
        let mut ns = Namespaces::new();
        for e in doc.root().descendant_elements() {
            for d in e.namespace_declarations() {
                let p = d.local_name();
                if d.name() != "xmlns" && ns.map.iter().all(|(q, _)| q != p) {
                    ns.map.push((p.to_string(), d.value().into_owned()));
                }
            }
        }
        ns
    }

    /// The URI bound to `prefix`.
    pub fn get(&self, prefix: &str) -> Option<&str> {
        match self.map.iter().find(|(p, _)| p == prefix) {
            Some((_, u)) => Some(u),
            None if prefix == "xml" => Some(vtdx_core::XML_NAMESPACE),
            None => None,
        }
    }
}

impl<P: AsRef<str>, U: AsRef<str>> FromIterator<(P, U)> for Namespaces {
    fn from_iter<I: IntoIterator<Item = (P, U)>>(iter: I) -> Namespaces {
        let mut ns = Namespaces::new();
        for (p, u) in iter {
            ns.insert(p.as_ref(), u.as_ref());
        }
        ns
    }
}

/// A compiled XPath 1.0 expression. `Send + Sync`: compile once, share it,
/// evaluate it on any document from any thread.
#[derive(Clone)]
pub struct XPath {
    src: String,
    expr: Expr,
    tests: Vec<NodeTest>,
}

impl std::fmt::Debug for XPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("XPath").field(&self.src).finish()
    }
}

impl XPath {
    /// Compiles `expr` with the namespace bindings `ns`.
    ///
    /// Errors name the position in the expression and what was expected:
    ///
    /// ```
    /// use vtdx_xpath::{Namespaces, XPath};
    /// let e = XPath::compile("/a/b[@c", &Namespaces::new()).unwrap_err();
    /// assert_eq!(e.column(), 8);
    /// assert_eq!(e.to_string(), "expected `]`, found end of expression at column 8\n  /a/b[@c\n         ^");
    /// ```
    pub fn compile(expr: &str, ns: &Namespaces) -> Result<XPath, XPathError> {
        Self::build(expr, ns, None)
    }

    /// Compiles `expr` with namespace bindings and extension functions.
    pub fn compile_with(expr: &str, ns: &Namespaces, functions: &Functions) -> Result<XPath, XPathError> {
        Self::build(expr, ns, Some(functions))
    }

    fn build(expr: &str, ns: &Namespaces, functions: Option<&Functions>) -> Result<XPath, XPathError> {
        let parsed = parser::parse(expr, ns, functions)?;
        let mut e = parsed.expr;
        optimize::optimize(&mut e);
        Ok(XPath { src: expr.to_string(), expr: e, tests: parsed.tests })
    }

    /// The expression's text.
    pub fn as_str(&self) -> &str {
        &self.src
    }

    /// Evaluates the expression with `node` as the context node (position 1,
    /// size 1) and no variables bound.
    pub fn evaluate<'d>(&self, node: Node<'d>) -> Result<Value<'d>, XPathError> {
        let ctx = Context::new(node.document());
        self.evaluate_in(&ctx, XNode::from_node(node))
    }

    /// Evaluates the expression in a [`Context`] (variables, cached indexes).
    pub fn evaluate_in<'d>(&self, ctx: &Context<'d>, node: XNode<'d>) -> Result<Value<'d>, XPathError> {
        let ev = Eval::new(ctx, &self.src, &self.tests);
        Ok(ev.eval(&self.expr, &Cx { node, pos: 1, size: 1 })?.into_value())
    }

    /// The nodes the expression selects from `node`, in document order. An
    /// error if the expression is not a node-set.
    pub fn select<'d>(&self, node: Node<'d>) -> Result<NodeSet<'d>, XPathError> {
        let ctx = Context::new(node.document());
        self.select_in(&ctx, XNode::from_node(node))
    }

    /// [`XPath::select`] in a [`Context`].
    pub fn select_in<'d>(&self, ctx: &Context<'d>, node: XNode<'d>) -> Result<NodeSet<'d>, XPathError> {
        let ev = Eval::new(ctx, &self.src, &self.tests);
        let cx = Cx { node, pos: 1, size: 1 };
        match &self.expr {
            Expr::Path(_) | Expr::Union(..) | Expr::Filter(..) | Expr::Var(..) | Expr::Call(..) => {
                Ok(NodeSet::from_sorted(ev.nodes_of(&self.expr, &cx, 0)?))
            }
            _ => Err(XPathError::new(ErrorKind::NotANodeSet("the expression".into()), 0, &self.src)),
        }
    }

    /// The first selected node in document order, found lazily: evaluation
    /// stops at the first match where the expression allows (`//item`,
    /// `/a/b[c > 1]`, `(//x)[1]`).
    pub fn first<'d>(&self, node: Node<'d>) -> Result<Option<XNode<'d>>, XPathError> {
        let ctx = Context::new(node.document());
        self.first_in(&ctx, XNode::from_node(node))
    }

    /// [`XPath::first`] in a [`Context`].
    pub fn first_in<'d>(&self, ctx: &Context<'d>, node: XNode<'d>) -> Result<Option<XNode<'d>>, XPathError> {
        let ev = Eval::new(ctx, &self.src, &self.tests);
        ev.first_node(&self.expr, &Cx { node, pos: 1, size: 1 }, 0)
    }

    /// Calls `f` for each selected node in document order until it returns
    /// `ControlFlow::Break`. Nodes are produced lazily where the expression
    /// allows, so breaking early saves the rest of the evaluation.
    pub fn for_each_in<'d>(
        &self,
        ctx: &Context<'d>,
        node: XNode<'d>,
        mut f: impl FnMut(XNode<'d>) -> ControlFlow<()>,
    ) -> Result<(), XPathError> {
        let ev = Eval::new(ctx, &self.src, &self.tests);
        ev.nodes_each(&self.expr, &Cx { node, pos: 1, size: 1 }, 0, &mut |n| Ok(f(n).is_continue())).map(|_| ())
    }
}

impl<'d> From<Node<'d>> for XNode<'d> {
    fn from(n: Node<'d>) -> XNode<'d> {
        XNode::from_node(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn compiled_expressions_are_send_and_sync() {
        assert_send_sync::<XPath>();
        fn assert_send<T: Send>() {}
        assert_send::<Context<'static>>();
    }
}
