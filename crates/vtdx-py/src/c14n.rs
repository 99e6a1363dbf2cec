//! `tostring` and `canonicalize`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use vtdx::c14n::{Algorithm, Canonicalizer};
use vtdx::core::xml::is_textish;
use vtdx::{Node, NodeKind};

use crate::document::{DocRef, Document};
use crate::element::Element;
use crate::errors::c14n_error;

/// The document and node a `Document`/`Element` argument stands for (a document
/// stands for its root node).
fn target(obj: &Bound<'_, PyAny>) -> PyResult<(DocRef, Option<vtdx::NodeId>)> {
    if let Ok(d) = obj.cast::<Document>() {
        return Ok((d.get().inner.clone(), None));
    }
    if let Ok(e) = obj.cast::<Element>() {
        let e = e.get();
        return Ok((e.doc.clone(), Some(e.id)));
    }
    Err(PyTypeError::new_err(format!("expected a vtdx.Document or vtdx.Element, not {}", obj.get_type().name()?)))
}

pub(crate) fn canonicalize_node<'py>(
    py: Python<'py>,
    doc: &DocRef,
    node: Node<'_>,
    exclusive: bool,
    with_comments: bool,
    inclusive_ns_prefixes: Option<&[String]>,
    version: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let alg = match (version, exclusive) {
        ("1.0", false) => Algorithm::C14n10,
        ("1.0", true) => Algorithm::ExcC14n10,
        ("1.1", false) => Algorithm::C14n11,
        ("1.1", true) => return Err(PyValueError::new_err("exclusive canonicalization has no version 1.1")),
        (v, _) => return Err(PyValueError::new_err(format!("unsupported canonicalization version {v:?} (use '1.0' or '1.1')"))),
    };
    let mut c = Canonicalizer::new(alg).with_comments(with_comments);
    if let Some(p) = inclusive_ns_prefixes {
        if !exclusive && !p.is_empty() {
            return Err(PyValueError::new_err("inclusive_ns_prefixes only applies to exclusive canonicalization"));
        }
        c = c.inclusive_prefixes(p);
    }
    let out = crate::maybe_detach(py, doc.is_big(), || if node.is_root() { c.document_to_vec(&doc.doc) } else { c.subtree_to_vec(node) });
    match out {
        Ok(v) => Ok(PyBytes::new(py, &v)),
        Err(e) => Err(c14n_error(py, &e)),
    }
}

/// Canonical XML of a document or of the subtree at an element, as bytes.
///
/// Canonical XML 1.0 by default; ``exclusive=True`` for Exclusive XML
/// Canonicalization 1.0 (with ``inclusive_ns_prefixes``, the InclusiveNamespaces
/// PrefixList); ``version='1.1'`` for Canonical XML 1.1. Comments are left out
/// unless ``with_comments=True``. The result equals lxml's
/// ``etree.tostring(x, method='c14n', ...)``. XML text (``bytes``/``str``) is parsed first.
///
/// Attributes that the internal subset defaults are always output (the C14N specs
/// take them as part of the input), whether or not the document was parsed with
/// ``attribute_defaults=True``; lxml outputs them only when it was.
#[pyfunction]
#[pyo3(signature = (doc_or_node, exclusive=false, with_comments=false, inclusive_ns_prefixes=None, *, version="1.0"))]
pub(crate) fn canonicalize<'py>(
    py: Python<'py>,
    doc_or_node: &Bound<'py, PyAny>,
    exclusive: bool,
    with_comments: bool,
    inclusive_ns_prefixes: Option<Vec<String>>,
    version: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let (doc, id) = if doc_or_node.cast::<PyBytes>().is_ok() || doc_or_node.cast::<PyString>().is_ok() {
        let (data, _) = crate::parse::read_source(py, doc_or_node, false)?;
        (crate::parse::parse_vec(py, data, &crate::parse::default_options(), None)?, None)
    } else {
        target(doc_or_node)?
    };
    let node = match id {
        Some(id) => doc.node(id),
        None => doc.doc.root(),
    };
    canonicalize_node(py, &doc, node, exclusive, with_comments, inclusive_ns_prefixes.as_deref(), version)
}

/// The bytes of an element as written, with the namespace declarations it inherits
/// from its ancestors added to its start tag (so it stands alone, as lxml does),
/// and with what the internal subset defaults in it written out: its own and its
/// descendants' defaulted namespace declarations, and the defaulted attributes the
/// document has (those of `attribute_defaults=True`), each where it would stand.
fn element_bytes(n: &Node<'_>) -> Vec<u8> {
    let raw = n.raw();
    if !n.is_element() {
        return raw.to_vec();
    }
    // (offset in `raw`, bytes to insert there), in document order
    let mut inserts: Vec<(usize, Vec<u8>)> = Vec::new();
    // a defaulted declaration has no bytes in the start tag: written like an inherited one
    let own: Vec<&str> =
        n.namespace_declarations().filter(|d| d.is_specified()).map(|d| if d.name() == "xmlns" { "" } else { d.local_name() }).collect();
    let mut extra = Vec::new();
    for (p, u) in n.namespaces() {
        if p == "xml" || own.contains(&p) {
            continue;
        }
        vtdx::core::xml::write_xmlns(&mut extra, p, |b| b.extend_from_slice(vtdx::escape_attr(u, b'"').as_bytes()));
    }
    if !extra.is_empty() {
        inserts.push((1 + n.name().len(), extra));
    }
    if n.document().dtd().is_some_and(|d| !d.attributes.is_empty()) {
        let base = n.range().start;
        for e in std::iter::once(*n).chain(n.descendant_elements()) {
            for a in e.all_attributes().filter(|a| !a.is_specified()) {
                if e == *n && a.is_namespace_declaration() {
                    continue; // among the declarations in scope above
                }
                let mut v = Vec::new();
                push_attribute(&mut v, a.name(), &a.value());
                // a defaulted attribute's (empty) range is where it would be written
                inserts.push((a.range().start - base, v));
            }
        }
    }
    if inserts.is_empty() {
        return raw.to_vec();
    }
    inserts.sort_by_key(|(at, _)| *at);
    let mut out = Vec::with_capacity(raw.len() + inserts.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut from = 0;
    for (at, v) in &inserts {
        out.extend_from_slice(&raw[from..*at]);
        out.extend_from_slice(v);
        from = *at;
    }
    out.extend_from_slice(&raw[from..]);
    out
}

/// Appends ` name="value"` (the value escaped) to `out`.
fn push_attribute(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(b' ');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"=\"");
    out.extend_from_slice(vtdx::escape_attr(value, b'"').as_bytes());
    out.push(b'"');
}

/// The raw bytes of the text after a node (its tail), up to the next sibling node.
fn tail_bytes<'d>(n: &Node<'d>) -> &'d [u8] {
    if !n.parent().is_some_and(|p| p.is_element()) {
        return b"";
    }
    let start = n.range().end;
    let mut end = start;
    let mut cur = n.next_sibling();
    while let Some(c) = cur {
        if !is_textish(&c) {
            break;
        }
        end = c.range().end;
        cur = c.next_sibling();
    }
    &n.document().text()[start..end]
}

fn pretty(py: Python<'_>, bytes: Vec<u8>, opts: &vtdx::ParseOptions) -> PyResult<Vec<u8>> {
    let doc = crate::parse::parse_vec(py, bytes, opts, None)?;
    let mut out = Vec::new();
    vtdx::write_pretty(&doc.doc, &mut out, 2).map_err(PyErr::from)?;
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    Ok(out)
}

/// Serializes a document or element, like ``lxml.etree.tostring``.
///
/// * A :class:`Document` gives its bytes exactly as parsed.
/// * An element gives its bytes as written in the document (UTF-8), with the
///   namespace declarations it inherits added to its start tag, followed by its
///   tail text unless ``with_tail=False``. What the internal subset defaults in it
///   is written out where it would stand: namespace declarations, and attributes
///   when parsed with ``attribute_defaults=True`` (so the bytes stand alone).
/// * ``encoding='unicode'`` (or ``str``) returns ``str``; ``None``/``'utf-8'`` bytes.
/// * ``method='c14n'`` gives Canonical XML (``exclusive``, ``with_comments`` (default
///   True, as lxml), ``inclusive_ns_prefixes``); ``method='text'`` the text content.
/// * ``xml_declaration=True`` prepends an XML declaration; ``pretty_print=True``
///   re-indents (text content is never changed).
#[pyfunction]
#[pyo3(signature = (
    element_or_tree, *, encoding=None, method="xml", xml_declaration=None, pretty_print=false,
    with_tail=true, exclusive=false, with_comments=true, inclusive_ns_prefixes=None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn tostring<'py>(
    py: Python<'py>,
    element_or_tree: &Bound<'py, PyAny>,
    encoding: Option<&Bound<'py, PyAny>>,
    method: &str,
    xml_declaration: Option<bool>,
    pretty_print: bool,
    with_tail: bool,
    exclusive: bool,
    with_comments: bool,
    inclusive_ns_prefixes: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (doc, id) = target(element_or_tree)?;
    let unicode = match encoding {
        None => false,
        Some(e) if e.is(py.get_type::<PyString>()) => true,
        Some(e) => {
            let s: String = e.extract()?;
            match s.to_ascii_lowercase().as_str() {
                "unicode" => true,
                "utf-8" | "utf8" => false,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "encoding {s:?} is not supported: vtdx writes UTF-8 (encoding=None or 'utf-8') or str (encoding='unicode')"
                    )))
                }
            }
        }
    };
    let node = match id {
        Some(id) => doc.node(id),
        None => doc.doc.root(),
    };
    let mut out: Vec<u8> = match method {
        "c14n" | "c14n11" => {
            let v = if method == "c14n" { "1.0" } else { "1.1" };
            let b = canonicalize_node(py, &doc, node, exclusive, with_comments, inclusive_ns_prefixes.as_deref(), v)?;
            b.as_bytes().to_vec()
        }
        "text" => {
            let mut s = if node.is_root() { node.value().into_owned() } else { node_text_content(&node) };
            if with_tail && !node.is_root() {
                if let Some(t) = crate::element::node_tail(&node) {
                    s.push_str(&t);
                }
            }
            s.into_bytes()
        }
        "xml" => {
            if node.is_root() {
                if pretty_print {
                    let mut out = Vec::new();
                    vtdx::write_pretty(&doc.doc, &mut out, 2).map_err(PyErr::from)?;
                    out
                } else if unicode {
                    doc.doc.text().to_vec()
                } else {
                    doc.doc.source().to_vec()
                }
            } else {
                let mut b = element_bytes(&node);
                if pretty_print {
                    b = pretty(py, b, doc.doc.options())?;
                    // the tail follows the new line
                }
                if with_tail {
                    b.extend_from_slice(tail_bytes(&node));
                }
                b
            }
        }
        m => return Err(PyValueError::new_err(format!("unsupported method {m:?} (use 'xml', 'c14n', 'c14n11' or 'text')"))),
    };
    if xml_declaration == Some(true) && method == "xml" && !(node.is_root() && doc.doc.xml_declaration().is_some()) {
        if unicode {
            return Err(PyValueError::new_err("serialisation to unicode must not request an XML declaration"));
        }
        let mut v = b"<?xml version='1.0' encoding='UTF-8'?>\n".to_vec();
        v.extend_from_slice(&out);
        out = v;
    }
    if unicode {
        let s = String::from_utf8(out).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyString::new(py, &s).into_any())
    } else {
        Ok(PyBytes::new(py, &out).into_any())
    }
}

/// All text inside a node (lxml's `method='text'`): for an element the text of
/// its subtree, for a comment or PI nothing.
fn node_text_content(n: &Node<'_>) -> String {
    match n.kind() {
        NodeKind::Element => n.value().into_owned(),
        _ => String::new(),
    }
}
