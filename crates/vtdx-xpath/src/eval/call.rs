//! Function calls (§4): the core function library dispatched by result type
//! (boolean, number, any), and extension functions.

use std::borrow::Cow;

use crate::ast::{Expr, Func, Type};
use crate::error::ErrorKind;
use crate::functions::{self, CallContext, CoreFn};
use crate::number;
use crate::value::XNode;

use super::model::sort_dedup;
use super::{Cx, Eval, Result, Str, Val, CONTINUE};

impl<'a, 'd> Eval<'a, 'd> {
    /// Calls a core or extension function.
    pub(super) fn call(&self, f: &'a Func, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<Val<'a, 'd>> {
        match f {
            Func::Core(c) => self.call_core(*c, args, cx, pos),
            Func::Ext { name, f } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, cx)?.into_value());
                }
                let call_cx =
                    CallContext { node: cx.node, position: cx.pos, size: cx.size, doc: self.doc, _marker: std::marker::PhantomData };
                match f.call(&call_cx, vals) {
                    Ok(v) => Ok(Val::from_value(&v)),
                    Err(message) => Err(self.err(ErrorKind::Function { function: name.to_string(), message }, pos)),
                }
            }
        }
    }

    fn arg_nodes(&self, c: CoreFn, a: &'a Expr, cx: &Cx<'d>, pos: usize) -> Result<Vec<XNode<'d>>> {
        self.nodes_of(a, cx, pos).map_err(|e| match e.kind() {
            ErrorKind::NotANodeSet(_) => self.err(ErrorKind::NotANodeSet(format!("the argument of {}()", c.name())), pos),
            _ => e,
        })
    }

    /// The node an optional node-set argument names: its first node, or the context node.
    fn arg_first_node(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<Option<XNode<'d>>> {
        match args.first() {
            None => Ok(Some(cx.node)),
            Some(a) => {
                if a.ty() != Type::NodeSet && a.ty() != Type::Unknown {
                    return Err(self.err(ErrorKind::NotANodeSet(format!("the argument of {}()", c.name())), pos));
                }
                if a.ty() == Type::NodeSet {
                    return self.first_node(a, cx, pos);
                }
                Ok(self.arg_nodes(c, a, cx, pos)?.first().copied())
            }
        }
    }

    fn string_arg(&self, args: &'a [Expr], i: usize, cx: &Cx<'d>) -> Result<Str<'a, 'd>> {
        match args.get(i) {
            Some(a) => self.eval_string(a, cx),
            None => Ok(Str::Doc(cx.node.string_value())),
        }
    }

    pub(super) fn call_bool(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<bool> {
        Ok(match c {
            CoreFn::True => true,
            CoreFn::False => false,
            CoreFn::Not => !self.eval_bool(&args[0], cx)?,
            CoreFn::Boolean => self.eval_bool(&args[0], cx)?,
            CoreFn::StartsWith => {
                let (s, t) = (self.eval_string(&args[0], cx)?, self.eval_string(&args[1], cx)?);
                s.as_str().starts_with(t.as_str())
            }
            CoreFn::Contains => {
                let (s, t) = (self.eval_string(&args[0], cx)?, self.eval_string(&args[1], cx)?);
                s.as_str().contains(t.as_str())
            }
            CoreFn::Lang => {
                let want = self.eval_string(&args[0], cx)?;
                lang_matches(cx.node, want.as_str())
            }
            _ => self.call_core(c, args, cx, pos)?.boolean(),
        })
    }

    pub(super) fn call_number(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<f64> {
        Ok(match c {
            CoreFn::Last => cx.size as f64,
            CoreFn::Position => cx.pos as f64,
            CoreFn::Count => {
                let a = &args[0];
                if let Expr::Path(p) = a {
                    if p.streamable == p.steps.len() {
                        let mut n = 0usize;
                        let _ = self.path_each(p, cx, &mut |_| {
                            n += 1;
                            Ok(CONTINUE)
                        })?;
                        return Ok(n as f64);
                    }
                }
                self.arg_nodes(c, a, cx, pos)?.len() as f64
            }
            CoreFn::Sum => {
                let mut total = 0.0;
                let a = &args[0];
                if a.ty() != Type::NodeSet && a.ty() != Type::Unknown {
                    return Err(self.err(ErrorKind::NotANodeSet("the argument of sum()".into()), pos));
                }
                for n in self.arg_nodes(c, a, cx, pos)? {
                    total += n.number_value();
                }
                total
            }
            CoreFn::StringLength => self.string_arg(args, 0, cx)?.as_str().chars().count() as f64,
            CoreFn::Number => match args.first() {
                None => cx.node.number_value(),
                Some(a) => self.eval_number(a, cx)?,
            },
            CoreFn::Floor => self.eval_number(&args[0], cx)?.floor(),
            CoreFn::Ceiling => self.eval_number(&args[0], cx)?.ceil(),
            CoreFn::Round => number::round(self.eval_number(&args[0], cx)?),
            _ => self.call_core(c, args, cx, pos)?.number(),
        })
    }

    fn call_core(&self, c: CoreFn, args: &'a [Expr], cx: &Cx<'d>, pos: usize) -> Result<Val<'a, 'd>> {
        use CoreFn::*;
        Ok(match c {
            Last | Position | Count | Sum | StringLength | Number | Floor | Ceiling | Round => {
                Val::Num(self.call_number(c, args, cx, pos)?)
            }
            True | False | Not | Boolean | StartsWith | Contains | Lang => Val::Bool(self.call_bool(c, args, cx, pos)?),
            Id => {
                let ids = self.ctx.ids();
                let mut out: Vec<XNode<'d>> = Vec::new();
                let mut add = |s: &str| {
                    for tok in s.split([' ', '\t', '\r', '\n']).filter(|t| !t.is_empty()) {
                        if let Some(e) = ids.get(tok) {
                            out.push(XNode::plain(*e));
                        }
                    }
                };
                let a = &args[0];
                match self.eval(a, cx)? {
                    Val::Nodes(v) => {
                        for n in v {
                            add(&n.string_value());
                        }
                    }
                    other => add(other.string().as_str()),
                }
                sort_dedup(&mut out);
                Val::Nodes(out)
            }
            LocalName | NamespaceUri | Name => {
                let n = self.arg_first_node(c, args, cx, pos)?;
                Val::Str(Str::Doc(Cow::Borrowed(match n {
                    None => "",
                    Some(n) => match c {
                        LocalName => n.local_name(),
                        NamespaceUri => n.namespace_uri().unwrap_or(""),
                        _ => n.name(),
                    },
                })))
            }
            String => Val::Str(self.string_arg(args, 0, cx)?),
            Concat => {
                let mut s = std::string::String::new();
                for a in args {
                    s.push_str(self.eval_string(a, cx)?.as_str());
                }
                Val::Str(Str::Doc(Cow::Owned(s)))
            }
            SubstringBefore | SubstringAfter => {
                let s = self.eval_string(&args[0], cx)?;
                let t = self.eval_string(&args[1], cx)?;
                let r = match s.as_str().find(t.as_str()) {
                    None => "",
                    Some(i) if c == SubstringBefore => &s.as_str()[..i],
                    Some(i) => &s.as_str()[i + t.as_str().len()..],
                };
                Val::Str(sub_str(s.as_str(), r, &s))
            }
            Substring => {
                let s = self.eval_string(&args[0], cx)?;
                let start = self.eval_number(&args[1], cx)?;
                let len = match args.get(2) {
                    Some(a) => Some(self.eval_number(a, cx)?),
                    None => None,
                };
                let r = functions::substring(s.as_str(), start, len);
                Val::Str(sub_str(s.as_str(), r, &s))
            }
            NormalizeSpace => {
                let s = self.string_arg(args, 0, cx)?;
                let r = match functions::normalize_space(s.as_str()) {
                    Cow::Borrowed(b) => sub_str(s.as_str(), b, &s),
                    Cow::Owned(o) => Str::Doc(Cow::Owned(o)),
                };
                Val::Str(r)
            }
            Translate => {
                let s = self.eval_string(&args[0], cx)?;
                let f = self.eval_string(&args[1], cx)?;
                let t = self.eval_string(&args[2], cx)?;
                Val::Str(Str::Doc(Cow::Owned(functions::translate(s.as_str(), f.as_str(), t.as_str()))))
            }
        })
    }
}

/// A substring `r` of `whole` (the string of `src`), keeping `src`'s borrow
/// when it has one.
fn sub_str<'a, 'd>(whole: &str, r: &str, src: &Str<'a, 'd>) -> Str<'a, 'd> {
    if r.is_empty() {
        return Str::Lit("");
    }
    let off = r.as_ptr() as usize - whole.as_ptr() as usize;
    let range = off..off + r.len();
    match src {
        Str::Lit(l) => Str::Lit(&l[range]),
        Str::Doc(Cow::Borrowed(b)) => Str::Doc(Cow::Borrowed(&b[range])),
        Str::Doc(Cow::Owned(o)) => Str::Doc(Cow::Owned(o[range].to_string())),
    }
}

/// `lang(s)` (§4.3): the `xml:lang` of the context node or its nearest
/// ancestor equals `s` or starts with `s` followed by `-`, ignoring case.
fn lang_matches(x: XNode<'_>, want: &str) -> bool {
    let mut cur = if x.ns != 0 || x.node.is_element() { Some(x.node) } else { x.node.parent() };
    while let Some(e) = cur {
        if e.is_element() {
            for a in e.attributes() {
                if a.local_name() == "lang" && a.namespace_uri() == Some(vtdx_core::XML_NAMESPACE) {
                    let v = a.value();
                    let v = v.to_lowercase();
                    let w = want.to_lowercase();
                    return v == w || (v.len() > w.len() && v.starts_with(&w) && v.as_bytes()[w.len()] == b'-');
                }
            }
        }
        cur = e.parent();
    }
    false
}
