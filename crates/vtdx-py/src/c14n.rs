//! `tostring` and `canonicalize`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use vtdx::c14n::{Algorithm, Canonicalizer};
use vtdx::{Node, NodeKind};

use crate::document::{DocRef, Document};
use crate::element::{is_textish, Element};
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
    let out = crate::maybe_detach(py, doc.is_big(), || {
        if node.is_root() {
            c.document_to_vec(&doc.doc)
        } else {
            c.subtree_to_vec(node)
        }
    });
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
        (crate::parse::parse_vec(py, data, &vtdx::ParseOptions::default(), None)?, None)
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
/// from its ancestors added to its start tag (so it stands alone, as lxml does).
fn element_bytes(n: &Node<'_>) -> Vec<u8> {
    let raw = n.raw();
    if !n.is_element() {
        return raw.to_vec();
    }
    let own: Vec<&str> =
        n.namespace_declarations().map(|d| if d.name() == "xmlns" { "" } else { d.local_name() }).collect();
    let mut extra = Vec::new();
    for (p, u) in n.namespaces() {
        if p == "xml" || own.contains(&p) {
            continue;
        }
        if p.is_empty() {
            extra.extend_from_slice(b" xmlns=\"");
        } else {
            extra.extend_from_slice(b" xmlns:");
            extra.extend_from_slice(p.as_bytes());
            extra.extend_from_slice(b"=\"");
        }
        extra.extend_from_slice(vtdx::escape_attr(u, b'"').as_bytes());
        extra.push(b'"');
    }
    if extra.is_empty() {
        return raw.to_vec();
    }
    let at = 1 + n.name().len();
    let mut out = Vec::with_capacity(raw.len() + extra.len());
    out.extend_from_slice(&raw[..at]);
    out.extend_from_slice(&extra);
    out.extend_from_slice(&raw[at..]);
    out
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
///   tail text unless ``with_tail=False``.
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
