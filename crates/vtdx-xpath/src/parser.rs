//! Recursive-descent parser for the XPath 1.0 grammar (§2, §3), resolving
//! names as it goes: namespace prefixes through the caller's bindings,
//! function names to core or extension functions (arity checked).

use crate::ast::*;
use crate::error::{ErrorKind, XPathError};
use crate::functions::{CoreFn, Functions};
use crate::lexer::{tokenize, NodeType, Tok, Token};
use crate::Namespaces;

/// Deepest nesting of parentheses, predicates, arguments and unary minus.
const MAX_NESTING: usize = 200;
/// Deepest expression tree (long operator chains build deep trees).
const MAX_TREE_DEPTH: usize = 500;

pub(crate) struct Parsed {
    pub expr: Expr,
    /// The name tests, by slot.
    pub tests: Vec<NodeTest>,
}

struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    i: usize,
    ns: &'s Namespaces,
    funcs: Option<&'s Functions>,
    tests: Vec<NodeTest>,
    nesting: usize,
}

pub(crate) fn parse(src: &str, ns: &Namespaces, funcs: Option<&Functions>) -> Result<Parsed, XPathError> {
    let toks = tokenize(src)?;
    let mut p = Parser { src, toks, i: 0, ns, funcs, tests: Vec::new(), nesting: 0 };
    let expr = p.expr()?;
    if p.peek() != &Tok::Eof {
        return Err(p.unexpected("an operator or the end of the expression"));
    }
    if tree_depth(&expr) > MAX_TREE_DEPTH {
        return Err(XPathError::new(ErrorKind::TooDeep, 0, src));
    }
    Ok(Parsed { expr, tests: p.tests })
}

/// Depth of an expression tree, computed without recursion.
fn tree_depth(e: &Expr) -> usize {
    let mut max = 0;
    let mut stack: Vec<(&Expr, usize)> = vec![(e, 1)];
    while let Some((e, d)) = stack.pop() {
        max = max.max(d);
        let mut children: Vec<&Expr> = Vec::new();
        match e {
            Expr::Or(a, b) | Expr::And(a, b) | Expr::Cmp(_, a, b) | Expr::Arith(_, a, b) => {
                children.push(a);
                children.push(b);
            }
            Expr::Neg(a) => children.push(a),
            Expr::Union(v, _) | Expr::Call(_, v, _) => children.extend(v.iter()),
            Expr::Filter(a, preds, _) => {
                children.push(a);
                children.extend(preds.iter().map(|p| &p.expr));
            }
            Expr::Path(p) => {
                if let Start::Expr(a) = &p.start {
                    children.push(a);
                }
                for s in &p.steps {
                    children.extend(s.preds.iter().map(|p| &p.expr));
                }
            }
            _ => {}
        }
        stack.extend(children.into_iter().map(|c| (c, d + 1)));
    }
    max
}

fn step_starts(t: &Tok) -> bool {
    matches!(t, Tok::Dot | Tok::DotDot | Tok::At | Tok::Axis(_) | Tok::Star | Tok::NsStar(_) | Tok::Name(..) | Tok::NodeType(_))
}

impl<'s> Parser<'s> {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].tok
    }
    fn pos(&self) -> usize {
        self.toks[self.i].pos
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn err(&self, kind: ErrorKind, pos: usize) -> XPathError {
        XPathError::new(kind, pos, self.src)
    }
    fn unexpected(&self, expected: &str) -> XPathError {
        self.err(ErrorKind::Unexpected { expected: expected.to_string(), found: self.peek().describe() }, self.pos())
    }
    fn expect(&mut self, t: Tok, what: &str) -> Result<(), XPathError> {
        if *self.peek() == t {
            self.bump();
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }
    fn enter(&mut self) -> Result<(), XPathError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(self.err(ErrorKind::TooDeep, self.pos()));
        }
        Ok(())
    }

    fn resolve_prefix(&self, prefix: &str, pos: usize) -> Result<Box<str>, XPathError> {
        match self.ns.get(prefix) {
            Some(u) => Ok(u.into()),
            None => Err(self.err(ErrorKind::UnboundPrefix(prefix.to_string()), pos)),
        }
    }

    // ---- expressions (§3) ---------------------------------------------------------

    fn expr(&mut self) -> Result<Expr, XPathError> {
        self.or_expr()
    }

    fn or_expr(&mut self) -> Result<Expr, XPathError> {
        let mut l = self.and_expr()?;
        while self.peek() == &Tok::Or {
            self.bump();
            let r = self.and_expr()?;
            l = Expr::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and_expr(&mut self) -> Result<Expr, XPathError> {
        let mut l = self.equality_expr()?;
        while self.peek() == &Tok::And {
            self.bump();
            let r = self.equality_expr()?;
            l = Expr::And(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn equality_expr(&mut self) -> Result<Expr, XPathError> {
        let mut l = self.relational_expr()?;
        loop {
            let op = match self.peek() {
                Tok::Eq => CmpOp::Eq,
                Tok::Ne => CmpOp::Ne,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.relational_expr()?;
            l = Expr::Cmp(op, Box::new(l), Box::new(r));
        }
    }

    fn relational_expr(&mut self) -> Result<Expr, XPathError> {
        let mut l = self.additive_expr()?;
        loop {
            let op = match self.peek() {
                Tok::Lt => CmpOp::Lt,
                Tok::Le => CmpOp::Le,
                Tok::Gt => CmpOp::Gt,
                Tok::Ge => CmpOp::Ge,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.additive_expr()?;
            l = Expr::Cmp(op, Box::new(l), Box::new(r));
        }
    }

    fn additive_expr(&mut self) -> Result<Expr, XPathError> {
        let mut l = self.multiplicative_expr()?;
        loop {
            let op = match self.peek() {
                Tok::Plus => ArithOp::Add,
                Tok::Minus => ArithOp::Sub,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.multiplicative_expr()?;
            l = Expr::Arith(op, Box::new(l), Box::new(r));
        }
    }

    fn multiplicative_expr(&mut self) -> Result<Expr, XPathError> {
        let mut l = self.unary_expr()?;
        loop {
            let op = match self.peek() {
                Tok::Mul => ArithOp::Mul,
                Tok::Div => ArithOp::Div,
                Tok::Mod => ArithOp::Mod,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.unary_expr()?;
            l = Expr::Arith(op, Box::new(l), Box::new(r));
        }
    }

    fn unary_expr(&mut self) -> Result<Expr, XPathError> {
        self.enter()?;
        let r = if self.peek() == &Tok::Minus {
            self.bump();
            self.unary_expr().map(|e| Expr::Neg(Box::new(e)))
        } else {
            self.union_expr()
        };
        self.nesting -= 1;
        r
    }

    fn union_expr(&mut self) -> Result<Expr, XPathError> {
        let first = self.path_expr()?;
        if self.peek() != &Tok::Pipe {
            return Ok(first);
        }
        let pos = self.pos();
        let mut parts = vec![first];
        while self.peek() == &Tok::Pipe {
            self.bump();
            parts.push(self.path_expr()?);
        }
        Ok(Expr::Union(parts, pos))
    }

    fn path_expr(&mut self) -> Result<Expr, XPathError> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Var(..) | Tok::LParen | Tok::Literal(_) | Tok::Number(_) | Tok::Function(..) => {
                let filter = self.filter_expr()?;
                if matches!(self.peek(), Tok::Slash | Tok::SlashSlash) {
                    let mut steps = Vec::new();
                    self.more_steps(&mut steps)?;
                    return Ok(Expr::Path(Box::new(Path { start: Start::Expr(Box::new(filter)), steps, streamable: 0, frontier: 0, pos })));
                }
                Ok(filter)
            }
            Tok::Slash => {
                self.bump();
                let mut steps = Vec::new();
                if step_starts(self.peek()) {
                    self.relative_path(&mut steps)?;
                }
                Ok(Expr::Path(Box::new(Path { start: Start::Root, steps, streamable: 0, frontier: 0, pos })))
            }
            Tok::SlashSlash => {
                self.bump();
                let mut steps = vec![descendant_or_self()];
                self.relative_path(&mut steps)?;
                Ok(Expr::Path(Box::new(Path { start: Start::Root, steps, streamable: 0, frontier: 0, pos })))
            }
            t if step_starts(&t) => {
                let mut steps = Vec::new();
                self.relative_path(&mut steps)?;
                Ok(Expr::Path(Box::new(Path { start: Start::Context, steps, streamable: 0, frontier: 0, pos })))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// `RelativeLocationPath`: a step, then more steps after `/` or `//`.
    fn relative_path(&mut self, steps: &mut Vec<Step>) -> Result<(), XPathError> {
        if !step_starts(self.peek()) {
            return Err(self.unexpected("a location step"));
        }
        steps.push(self.step()?);
        self.more_steps(steps)
    }

    fn more_steps(&mut self, steps: &mut Vec<Step>) -> Result<(), XPathError> {
        loop {
            match self.peek() {
                Tok::Slash => {
                    self.bump();
                }
                Tok::SlashSlash => {
                    self.bump();
                    steps.push(descendant_or_self());
                }
                _ => return Ok(()),
            }
            if !step_starts(self.peek()) {
                return Err(self.unexpected("a location step"));
            }
            steps.push(self.step()?);
        }
    }

    fn step(&mut self) -> Result<Step, XPathError> {
        let (axis, test) = match self.peek().clone() {
            Tok::Dot => {
                self.bump();
                return Ok(Step { axis: Axis::SelfAxis, test: NodeTest::Node, preds: Vec::new() });
            }
            Tok::DotDot => {
                self.bump();
                return Ok(Step { axis: Axis::Parent, test: NodeTest::Node, preds: Vec::new() });
            }
            Tok::At => {
                self.bump();
                (Axis::Attribute, self.node_test("a node test after `@`")?)
            }
            Tok::Axis(name) => {
                let pos = self.pos();
                let axis = Axis::from_name(&name).ok_or_else(|| self.err(ErrorKind::UnknownAxis(name.clone()), pos))?;
                self.bump();
                self.expect(Tok::ColonColon, "`::`")?;
                let what = format!("a node test after `{}::`", axis.name());
                (axis, self.node_test(&what)?)
            }
            _ => (Axis::Child, self.node_test("a node test")?),
        };
        let mut preds = Vec::new();
        while self.peek() == &Tok::LBracket {
            preds.push(self.predicate()?);
        }
        Ok(Step { axis, test, preds })
    }

    fn node_test(&mut self, what: &str) -> Result<NodeTest, XPathError> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Star => {
                self.bump();
                Ok(NodeTest::Any)
            }
            Tok::NsStar(p) => {
                let uri = self.resolve_prefix(&p, pos)?;
                self.bump();
                let slot = self.tests.len();
                let t = NodeTest::AnyInNs { uri, slot };
                self.tests.push(t.clone());
                Ok(t)
            }
            Tok::Name(p, local) => {
                let uri = match p {
                    Some(p) => Some(self.resolve_prefix(&p, pos)?),
                    None => None,
                };
                self.bump();
                let slot = self.tests.len();
                let t = NodeTest::Name { uri, local: local.into(), slot };
                self.tests.push(t.clone());
                Ok(t)
            }
            Tok::NodeType(nt) => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let t = match nt {
                    NodeType::Comment => NodeTest::Comment,
                    NodeType::Text => NodeTest::Text,
                    NodeType::Node => NodeTest::Node,
                    NodeType::ProcessingInstruction => {
                        if let Tok::Literal(s) = self.peek().clone() {
                            self.bump();
                            NodeTest::Pi(Some(s.into()))
                        } else {
                            NodeTest::Pi(None)
                        }
                    }
                };
                let close = if nt == NodeType::ProcessingInstruction { "a string literal or `)`" } else { "`)`" };
                self.expect(Tok::RParen, close)?;
                Ok(t)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn predicate(&mut self) -> Result<Predicate, XPathError> {
        self.enter()?;
        self.bump(); // `[`
        if self.peek() == &Tok::RBracket {
            return Err(self.unexpected("an expression"));
        }
        let e = self.expr()?;
        self.expect(Tok::RBracket, "`]`")?;
        self.nesting -= 1;
        Ok(Predicate::new(e))
    }

    fn filter_expr(&mut self) -> Result<Expr, XPathError> {
        let e = self.primary_expr()?;
        if self.peek() != &Tok::LBracket {
            return Ok(e);
        }
        let pos = self.pos();
        let mut preds = Vec::new();
        while self.peek() == &Tok::LBracket {
            preds.push(self.predicate()?);
        }
        Ok(Expr::Filter(Box::new(e), preds, pos))
    }

    fn primary_expr(&mut self) -> Result<Expr, XPathError> {
        let pos = self.pos();
        match self.bump().tok {
            Tok::Var(prefix, local) => {
                let uri = match prefix {
                    Some(p) => self.resolve_prefix(&p, pos)?,
                    None => "".into(),
                };
                Ok(Expr::Var(VarName { uri, local: local.into() }, pos))
            }
            Tok::LParen => {
                self.enter()?;
                if self.peek() == &Tok::RParen {
                    return Err(self.unexpected("an expression"));
                }
                let e = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                self.nesting -= 1;
                Ok(e)
            }
            Tok::Literal(s) => Ok(Expr::Literal(s.into())),
            Tok::Number(n) => Ok(Expr::Number(n)),
            Tok::Function(prefix, local) => self.call(prefix, local, pos),
            _ => {
                Err(self.err(ErrorKind::Unexpected { expected: "an expression".into(), found: self.toks[self.i - 1].tok.describe() }, pos))
            }
        }
    }

    fn call(&mut self, prefix: Option<String>, local: String, pos: usize) -> Result<Expr, XPathError> {
        self.enter()?;
        self.expect(Tok::LParen, "`(`")?;
        let mut args = Vec::new();
        if self.peek() != &Tok::RParen {
            loop {
                args.push(self.expr()?);
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::RParen => break,
                    _ => return Err(self.unexpected("`,` or `)`")),
                }
            }
        }
        self.expect(Tok::RParen, "`)`")?;
        self.nesting -= 1;
        let qname = match &prefix {
            Some(p) => format!("{p}:{local}"),
            None => local.clone(),
        };
        let core = if prefix.is_none() { CoreFn::from_name(&local) } else { None };
        let func = match core {
            Some(c) => {
                let (min, max) = c.arity();
                if args.len() < min || args.len() > max {
                    return Err(self.err(ErrorKind::Arity { function: qname, expected: c.arity_text(), found: args.len() }, pos));
                }
                Func::Core(c)
            }
            None => {
                let uri = match &prefix {
                    Some(p) => self.resolve_prefix(p, pos)?,
                    None => "".into(),
                };
                match self.funcs.and_then(|f| f.get(&uri, &local)) {
                    Some(f) => Func::Ext { name: qname.into(), f },
                    None => return Err(self.err(ErrorKind::UnknownFunction(qname), pos)),
                }
            }
        };
        Ok(Expr::Call(func, args, pos))
    }
}

/// `descendant-or-self::node()`, what `//` abbreviates (§2.5).
fn descendant_or_self() -> Step {
    Step { axis: Axis::DescendantOrSelf, test: NodeTest::Node, preds: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Expr {
        parse(s, &Namespaces::new().with("p", "urn:p"), None).unwrap_or_else(|e| panic!("{s}: {e}")).expr
    }
    fn err(s: &str) -> XPathError {
        match parse(s, &Namespaces::new(), None) {
            Ok(e) => panic!("{s} parsed: {:?}", e.expr),
            Err(e) => e,
        }
    }

    #[test]
    fn grammar() {
        for s in [
            "/",
            "//a",
            "a/b//c",
            "..",
            ".",
            "@*",
            "child::p:*",
            "p:a/@p:b",
            "processing-instruction('x')",
            "text()",
            "node()",
            "comment()",
            "ancestor-or-self::node()[1]",
            "a[1][position() < last()]",
            "(a | b)[2]/c",
            "$x/a",
            "id('x')//b",
            "-1 - -2",
            "1 = 2 = 3",
            "a | b | c",
            "f = 'x'",
            "concat('a', \"b\", 'c')",
            "/ | a",
            "*[*]",
            "div div div",
            "preceding-sibling :: * [ 1 ]",
            "//@*",
            "substring('x', 1, 2)",
            "string(/)",
            "count(//a) + sum(//b) * 2 div 3 mod 4",
        ] {
            ok(s);
        }
    }

    #[test]
    fn errors_name_position_and_expectation() {
        let e = err("/a/b[c > d]efg");
        assert_eq!(e.offset(), 11);
        let e = err("/inv/child::");
        assert!(e.to_string().contains("expected a node test after `child::`, found end of expression"), "{e}");
        let e = err("/invoice/@test[abcd");
        assert!(e.to_string().contains("expected `]`"), "{e}");
        assert_eq!(err("/descendant::()").offset(), 13);
        assert!(err("(1 + 1").to_string().contains("expected `)`"));
        assert_eq!(err("foo(1)").kind(), &ErrorKind::UnknownFunction("foo".into()));
        assert!(matches!(err("count()").kind(), ErrorKind::Arity { .. }));
        assert!(matches!(err("concat('a')").kind(), ErrorKind::Arity { .. }));
        assert_eq!(err("q:a").kind(), &ErrorKind::UnboundPrefix("q".into()));
        assert_eq!(err("foo::a").kind(), &ErrorKind::UnknownAxis("foo".into()));
        assert!(matches!(err("").kind(), ErrorKind::Unexpected { .. }));
        assert!(matches!(err("a/").kind(), ErrorKind::Unexpected { .. }));
        assert!(matches!(err("//").kind(), ErrorKind::Unexpected { .. }));
        assert!(matches!(err("a[]").kind(), ErrorKind::Unexpected { .. }));
        assert!(matches!(err("./[1]").kind(), ErrorKind::Unexpected { .. }));
        assert!(matches!(err(".[1]").kind(), ErrorKind::Unexpected { .. }));
        assert!(matches!(err("1 +").kind(), ErrorKind::Unexpected { .. }));
        assert_eq!(err(&"(".repeat(300)).kind(), &ErrorKind::TooDeep);
        assert_eq!(err(&vec!["1"; 2000].join("+")).kind(), &ErrorKind::TooDeep);
    }
}
