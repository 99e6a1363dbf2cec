//! ElementPath (`find`, `findall`, `iterfind`, `findtext`), the XPath subset of
//! ElementTree and lxml, evaluated on the core navigation API with lxml's
//! semantics: steps are applied one after another to every result of the
//! previous step (so `.//a//b` may give an element twice, as in lxml), positional
//! predicates count siblings with the same tag, and errors are `SyntaxError`s.
//!
//! Supported: `tag`, `{uri}tag`, `{*}tag`, `{uri}*`, `{}tag`, `prefix:tag` (with
//! `namespaces`, where the key `''` or `None` gives a default namespace), `*`, `.`,
//! `..`, `//`, and the predicates `[@attr]`, `[@attr='v']`, `[@attr!='v']`, `[tag]`,
//! `[tag='text']`, `[tag!='text']`, `[.='text']`, `[.!='text']`, `[n]`, `[last()]`,
//! `[last()-n]`.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use vtdx::{Node, NodeId};

use crate::compile_cache::CompileCache;
use crate::document::DocRef;
use crate::element::{wrap_list, wrap_node, NodeIterator};
use crate::errors::path_error;
use crate::names::{find_attribute, NameTest};

/// One stage of a compiled path.
#[derive(Debug, Clone)]
enum Stage {
    Child(NameTest),
    Descendant(NameTest),
    SelfNode,
    Parent,
    HasAttr(String),
    AttrEq {
        key: String,
        value: String,
        negated: bool,
    },
    HasChild(NameTest),
    ChildText {
        tag: NameTest,
        value: String,
        negated: bool,
    },
    SelfText {
        value: String,
        negated: bool,
    },
    /// 0-based from the start, or negative from the end (`last()` is -1).
    Index(i64),
}

/// Prefix bindings from the `namespaces` argument.
#[derive(Debug, Default, Clone)]
struct NsMap {
    default: Option<String>,
    map: Vec<(String, String)>,
}

impl NsMap {
    fn from_py(namespaces: Option<&Bound<'_, PyAny>>) -> PyResult<NsMap> {
        let mut ns = NsMap::default();
        let Some(obj) = namespaces else { return Ok(ns) };
        if obj.is_none() {
            return Ok(ns);
        }
        let d = obj.cast::<PyDict>().map_err(|_| PyTypeError::new_err("namespaces must be a dict"))?;
        let mut none_default: Option<String> = None;
        let mut empty_default: Option<String> = None;
        for (k, v) in d.iter() {
            let uri: String = v.extract()?;
            if k.is_none() {
                none_default = Some(uri);
                continue;
            }
            let p: String = k.extract()?;
            if p.is_empty() {
                empty_default = Some(uri);
            } else {
                ns.map.push((p, uri));
            }
        }
        if let (Some(a), Some(b)) = (&none_default, &empty_default) {
            if a != b {
                return Err(PyValueError::new_err(format!("Ambiguous default namespace provided: {a:?} versus {b:?}")));
            }
        }
        ns.default = empty_default.or(none_default).filter(|u| !u.is_empty());
        ns.map.sort();
        Ok(ns)
    }

    fn key(&self) -> String {
        let mut k = String::new();
        if let Some(d) = &self.default {
            k.push_str(d);
        }
        for (p, u) in &self.map {
            k.push('\u{0}');
            k.push_str(p);
            k.push('\u{1}');
            k.push_str(u);
        }
        k
    }

    /// A tag or attribute name as written in the path, in Clark notation.
    fn resolve(&self, name: &str, attribute: bool) -> Result<String, String> {
        if name.starts_with('{') {
            return Ok(name.to_string());
        }
        if let Some((prefix, local)) = name.split_once(':') {
            return match self.map.iter().find(|(p, _)| p == prefix) {
                Some((_, uri)) => Ok(format!("{{{uri}}}{local}")),
                None => Err(format!("prefix {prefix:?} not found in prefix map")),
            };
        }
        match &self.default {
            Some(d) if !attribute => Ok(format!("{{{d}}}{name}")),
            _ => Ok(name.to_string()),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Op(String),
    Tag(String),
}

fn is_tag_char(c: char) -> bool {
    !matches!(c, '/' | '[' | ']' | '(' | ')' | '@' | '!' | '=') && !c.is_whitespace()
}

/// Splits a path into tokens as ElementTree's tokenizer does: operators
/// (`/ // . .. * : [ ] ( ) () @ = != ::` and quoted literals) and names.
fn tokenize(path: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let s = path;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if c == '\'' || c == '"' {
            match rest[1..].find(c) {
                Some(end) => {
                    out.push(Tok::Op(rest[..end + 2].to_string()));
                    i += end + 2;
                    continue;
                }
                None => return Err("unterminated string literal in path".into()),
            }
        }
        let two = rest.get(..2).unwrap_or("");
        if matches!(two, "::" | "//" | ".." | "()" | "!=") {
            out.push(Tok::Op(two.to_string()));
            i += 2;
            continue;
        }
        if matches!(c, '/' | '.' | '*' | ':' | '[' | ']' | '(' | ')' | '@' | '=') {
            out.push(Tok::Op(c.to_string()));
            i += 1;
            continue;
        }
        // a name, optionally with a `{uri}` in front
        let mut j = 0;
        if c == '{' {
            if let Some(close) = rest.find('}') {
                if close > 1 {
                    j = close + 1;
                }
            }
        }
        let start_name = j;
        for ch in rest[j..].chars() {
            if !is_tag_char(ch) {
                break;
            }
            j += ch.len_utf8();
        }
        if j == start_name {
            return Err(format!("invalid path: unexpected {c:?}"));
        }
        out.push(Tok::Tag(rest[..j].to_string()));
        i += j;
    }
    Ok(out)
}

fn is_int(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

fn predicate(toks: &mut impl Iterator<Item = Tok>, ns: &NsMap) -> Result<Stage, String> {
    let mut sig = String::new();
    let mut pred: Vec<String> = Vec::new();
    loop {
        match toks.next() {
            None => return Err("invalid path".into()),
            Some(Tok::Op(o)) if o == "]" => break,
            Some(Tok::Op(o)) if o.starts_with('\'') || o.starts_with('"') => {
                sig.push('\'');
                pred.push(o[1..o.len() - 1].to_string());
            }
            Some(Tok::Op(o)) => {
                sig.push_str(&o);
                pred.push(String::new());
            }
            Some(Tok::Tag(t)) => {
                sig.push('-');
                pred.push(t);
            }
        }
    }
    let last = pred.last().cloned().unwrap_or_default();
    match sig.as_str() {
        "@-" => return Ok(Stage::HasAttr(ns.resolve(&pred[1], true)?)),
        "@-='" | "@-!='" => return Ok(Stage::AttrEq { key: ns.resolve(&pred[1], true)?, value: last, negated: sig == "@-!='" }),
        "-" if !is_int(&pred[0]) => return Ok(Stage::HasChild(NameTest::parse(&ns.resolve(&pred[0], false)?))),
        ".='" | ".!='" => return Ok(Stage::SelfText { value: last, negated: sig == ".!='" }),
        "-='" | "-!='" if !is_int(&pred[0]) => {
            return Ok(Stage::ChildText { tag: NameTest::parse(&ns.resolve(&pred[0], false)?), value: last, negated: sig == "-!='" })
        }
        "-" => {
            let index: i64 = pred[0].parse::<i64>().map_err(|_| "invalid predicate".to_string())? - 1;
            if index < 0 {
                return Err(if index == -1 {
                    "indices in path predicates are 1-based, not 0-based".into()
                } else {
                    "path index >= 1 expected".into()
                });
            }
            return Ok(Stage::Index(index));
        }
        "-()" | "-()-" => {
            if pred[0] != "last" {
                return Err("unsupported function".into());
            }
            let index = if sig == "-()-" { pred[2].parse::<i64>().map_err(|_| "unsupported expression".to_string())? - 1 } else { -1 };
            return Ok(Stage::Index(index));
        }
        _ => {}
    }
    Err("invalid predicate".into())
}

fn compile(path: &str, ns: &NsMap) -> Result<Vec<Stage>, String> {
    let mut p = path.to_string();
    if p.ends_with('/') {
        p.push('*');
    }
    if p.starts_with('/') {
        return Err("cannot use absolute path on element".into());
    }
    let mut toks = tokenize(&p)?.into_iter();
    let mut token = match toks.next() {
        Some(t) => t,
        None => return Err("empty path expression".into()),
    };
    let mut stages = Vec::new();
    loop {
        let stage = match &token {
            Tok::Tag(t) => Stage::Child(NameTest::parse(&ns.resolve(t, false)?)),
            Tok::Op(o) => match o.as_str() {
                "*" => Stage::Child(NameTest::any()),
                "." => Stage::SelfNode,
                ".." => Stage::Parent,
                "//" => match toks.next() {
                    Some(Tok::Op(o)) if o == "*" => Stage::Descendant(NameTest::any()),
                    Some(Tok::Tag(t)) => Stage::Descendant(NameTest::parse(&ns.resolve(&t, false)?)),
                    Some(_) => return Err("invalid descendant".into()),
                    None => return Err("invalid path".into()),
                },
                "[" => predicate(&mut toks, ns)?,
                _ => return Err("invalid path".into()),
            },
        };
        stages.push(stage);
        token = match toks.next() {
            None => break,
            Some(Tok::Op(o)) if o == "/" => match toks.next() {
                None => break,
                Some(t) => t,
            },
            Some(t) => t,
        };
    }
    Ok(stages)
}

/// Recently compiled paths.
static CACHE: CompileCache<Vec<Stage>> = CompileCache::new(256);

/// Compiles `path`, reusing a recent compilation of the same path.
fn compiled(path: &str, namespaces: Option<&Bound<'_, PyAny>>) -> PyResult<Arc<Vec<Stage>>> {
    let ns = NsMap::from_py(namespaces)?;
    CACHE.get_or_compile(path, &ns.key(), || compile(path, &ns).map_err(path_error))
}

fn passes(stage: &Stage, n: &Node<'_>) -> bool {
    match stage {
        Stage::HasAttr(k) => find_attribute(n, k).is_some(),
        Stage::AttrEq { key, value, negated } => {
            // `!=` needs the attribute to be there (ElementTree)
            match find_attribute(n, key).map(|a| a.value()) {
                Some(v) => (v == value.as_str()) != *negated,
                None => false,
            }
        }
        Stage::HasChild(t) => n.element_children().any(|c| t.matches(&c)),
        Stage::ChildText { tag, value, negated } => {
            n.element_children().filter(|c| tag.matches(c)).any(|c| (c.value() == value.as_str()) != *negated)
        }
        Stage::SelfText { value, negated } => (n.value() == value.as_str()) != *negated,
        Stage::Index(i) => {
            let Some(parent) = n.parent_element() else { return false };
            let same = NameTest::of(n);
            if *i >= 0 {
                parent.element_children().filter(|c| same.matches(c)).nth(*i as usize) == Some(*n)
            } else {
                let v: Vec<Node<'_>> = parent.element_children().filter(|c| same.matches(c)).collect();
                let j = v.len() as i64 + i;
                j >= 0 && v[j as usize] == *n
            }
        }
        _ => true,
    }
}

/// Feeds every result of `stages` applied to `node` to `f`, in lxml's order,
/// until `f` returns false. Returns false when stopped.
fn run<'d>(stages: &[Stage], node: Node<'d>, f: &mut dyn FnMut(Node<'d>) -> bool) -> bool {
    let Some((first, rest)) = stages.split_first() else {
        return f(node);
    };
    match first {
        Stage::Child(t) => {
            for c in node.element_children() {
                if t.matches(&c) && !run(rest, c, f) {
                    return false;
                }
            }
            true
        }
        Stage::Descendant(t) => {
            for c in node.descendant_elements() {
                if t.matches(&c) && !run(rest, c, f) {
                    return false;
                }
            }
            true
        }
        Stage::SelfNode => run(rest, node, f),
        Stage::Parent => match node.parent_element() {
            Some(p) => run(rest, p, f),
            None => true,
        },
        filter => {
            if passes(filter, &node) {
                run(rest, node, f)
            } else {
                true
            }
        }
    }
}

fn all_ids(stages: &[Stage], node: Node<'_>) -> Vec<NodeId> {
    let mut v = Vec::new();
    run(stages, node, &mut |n| {
        v.push(n.id());
        true
    });
    v
}

fn first_id(stages: &[Stage], node: Node<'_>) -> Option<NodeId> {
    let mut out = None;
    run(stages, node, &mut |n| {
        out = Some(n.id());
        false
    });
    out
}

pub(crate) fn find<'py>(
    py: Python<'py>,
    doc: &DocRef,
    node: Node<'_>,
    path: &str,
    namespaces: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let stages = compiled(path, namespaces)?;
    match first_id(&stages, node) {
        Some(id) => wrap_node(py, doc, doc.node(id)),
        None => Ok(py.None().into_bound(py)),
    }
}

pub(crate) fn findall<'py>(
    py: Python<'py>,
    doc: &DocRef,
    node: Node<'_>,
    path: &str,
    namespaces: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let stages = compiled(path, namespaces)?;
    Ok(wrap_list(py, doc, all_ids(&stages, node))?.into_any())
}

pub(crate) fn iterfind<'py>(
    py: Python<'py>,
    doc: &DocRef,
    node: Node<'_>,
    path: &str,
    namespaces: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let stages = compiled(path, namespaces)?;
    NodeIterator::create(py, doc, all_ids(&stages, node))
}

pub(crate) fn findtext<'py>(
    py: Python<'py>,
    doc: &DocRef,
    node: Node<'_>,
    path: &str,
    default: Option<Bound<'py, PyAny>>,
    namespaces: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let stages = compiled(path, namespaces)?;
    match first_id(&stages, node) {
        Some(id) => {
            let n = doc.node(id);
            let t = crate::element::node_text(&n);
            Ok(PyString::new(py, t.as_deref().unwrap_or("")).into_any())
        }
        None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_elementtree() {
        let t = tokenize(".//{urn:x/y}a[@b='1']/c[last()-1]").unwrap();
        let s: Vec<String> = t
            .iter()
            .map(|t| match t {
                Tok::Op(o) => format!("op:{o}"),
                Tok::Tag(t) => format!("tag:{t}"),
            })
            .collect();
        assert_eq!(
            s,
            [
                "op:.",
                "op://",
                "tag:{urn:x/y}a",
                "op:[",
                "op:@",
                "tag:b",
                "op:=",
                "op:'1'",
                "op:]",
                "op:/",
                "tag:c",
                "op:[",
                "tag:last",
                "op:()",
                "tag:-1",
                "op:]"
            ]
        );
    }
}
