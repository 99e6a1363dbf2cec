//! The exception hierarchy and the conversions from the Rust error types.
//!
//! ```text
//! VtdxError(Exception)
//! ├── XMLSyntaxError(VtdxError, SyntaxError, ValueError)   parse errors (lxml, ElementTree)
//! │   └── ResourceLimitError                              a configured limit was exceeded
//! ├── XPathError(VtdxError, ValueError)
//! │   ├── XPathSyntaxError(XPathError, SyntaxError)      the expression does not compile
//! │   └── XPathEvalError(XPathError)                     evaluation failed
//! ├── EditError(VtdxError, ValueError)                    an edit cannot be made or written
//! └── C14NError(VtdxError, ValueError)                    canonicalization failed
//! ```
//!
//! ElementPath errors (`find`, `findall`) are plain `SyntaxError`s, as in ElementTree and lxml.
//!
//! The classes are made with `type()` when the module is initialized, so that
//! they can inherit from several built-in exceptions (which `create_exception!`
//! cannot do).

use pyo3::exceptions::{PyException, PySyntaxError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

pub(crate) struct Exceptions {
    pub base: Py<PyType>,
    pub syntax: Py<PyType>,
    pub limit: Py<PyType>,
    pub xpath: Py<PyType>,
    pub xpath_syntax: Py<PyType>,
    pub xpath_eval: Py<PyType>,
    pub edit: Py<PyType>,
    pub c14n: Py<PyType>,
}

static EXCEPTIONS: PyOnceLock<Exceptions> = PyOnceLock::new();

/// A new exception class `module.name` with these bases and docstring (what a
/// `class` statement in `module` would make); `vtdx.dsig` and `vtdx.xmlenc` make
/// theirs with it too.
pub(crate) fn exception_type(py: Python<'_>, module: &str, name: &str, bases: Vec<Bound<'_, PyAny>>, doc: &str) -> PyResult<Py<PyType>> {
    let ns = PyDict::new(py);
    ns.set_item("__module__", module)?;
    ns.set_item("__doc__", doc)?;
    let bases = PyTuple::new(py, bases)?;
    let t = py.get_type::<PyType>().call1((name, bases, ns))?;
    Ok(t.cast_into::<PyType>()?.unbind())
}

fn make_type(py: Python<'_>, name: &str, bases: Vec<Bound<'_, PyAny>>, doc: &str) -> PyResult<Py<PyType>> {
    exception_type(py, "vtdx", name, bases, doc)
}

fn create(py: Python<'_>) -> PyResult<Exceptions> {
    let exc = py.get_type::<PyException>().into_any();
    let syn = py.get_type::<PySyntaxError>().into_any();
    let val = py.get_type::<PyValueError>().into_any();
    let base = make_type(py, "VtdxError", vec![exc], "Base class of every exception vtdx raises.")?;
    let b = base.bind(py).clone().into_any();
    let syntax = make_type(
        py,
        "XMLSyntaxError",
        vec![b.clone(), syn.clone(), val.clone()],
        "The input is not well-formed XML (or breaks a namespace rule).\n\n\
         Like lxml's: ``lineno`` and ``position`` (line, column; 1-based) say where, ``offset`` is\n\
         the column minus one, ``msg`` is the message. vtdx adds ``kind`` (a stable identifier such as\n\
         ``'mismatched_end_tag'``) and ``byte_offset``. A ``SyntaxError`` (as ElementTree's\n\
         ``ParseError``) and a ``ValueError``.",
    )?;
    let limit = make_type(
        py,
        "ResourceLimitError",
        vec![syntax.bind(py).clone().into_any()],
        "A configured parser limit (depth, attributes, name length, document size, entity\n\
         expansion) was exceeded; raise it with the parse options (``max_depth=...``, ``huge_tree=True``).",
    )?;
    let xpath = make_type(py, "XPathError", vec![b.clone(), val.clone()], "Base class of XPath errors.")?;
    let xpath_syntax = make_type(
        py,
        "XPathSyntaxError",
        vec![xpath.bind(py).clone().into_any(), syn.clone()],
        "The XPath expression does not compile: ``offset`` is the 0-based position of the fault in\n\
         the expression; the message shows it with a caret.",
    )?;
    let xpath_eval = make_type(
        py,
        "XPathEvalError",
        vec![xpath.bind(py).clone().into_any()],
        "The XPath expression failed while being evaluated (an unbound variable, a function given the wrong type).",
    )?;
    let edit = make_type(
        py,
        "EditError",
        vec![b.clone(), val.clone()],
        "An edit cannot be made (wrong kind of node, a fragment that is not well-formed where it\n\
         lands, an invalid name) or the edits cannot be written together (overlapping ranges).",
    )?;
    let c14n = make_type(
        py,
        "C14NError",
        vec![b, val],
        "Canonicalization failed (for example a relative namespace URI, which Canonical XML forbids).",
    )?;
    Ok(Exceptions { base, syntax, limit, xpath, xpath_syntax, xpath_eval, edit, c14n })
}

pub(crate) fn exceptions(py: Python<'_>) -> PyResult<&Exceptions> {
    EXCEPTIONS.get_or_try_init(py, || create(py))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let e = exceptions(py)?;
    for (name, t) in [
        ("VtdxError", &e.base),
        ("XMLSyntaxError", &e.syntax),
        ("ResourceLimitError", &e.limit),
        ("XPathError", &e.xpath),
        ("XPathSyntaxError", &e.xpath_syntax),
        ("XPathEvalError", &e.xpath_eval),
        ("EditError", &e.edit),
        ("C14NError", &e.c14n),
    ] {
        m.add(name, t.bind(py))?;
    }
    Ok(())
}

fn raise(py: Python<'_>, t: &Py<PyType>, msg: String, attrs: &[(&str, Bound<'_, PyAny>)]) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let e = t.bind(py).call1((msg,))?;
        for (k, v) in attrs {
            e.setattr(*k, v)?;
        }
        Ok(PyErr::from_value(e))
    })();
    match made {
        Ok(e) | Err(e) => e,
    }
}

/// A stable identifier for a parse error kind (the `kind` attribute).
fn kind_id(k: &vtdx::ErrorKind) -> &'static str {
    use vtdx::ErrorKind as K;
    match k {
        K::UnexpectedEof { .. } => "unexpected_eof",
        K::Unexpected { .. } => "unexpected",
        K::InvalidChar { .. } => "invalid_char",
        K::InvalidUtf8 => "invalid_utf8",
        K::InvalidName { .. } => "invalid_name",
        K::MismatchedEndTag { .. } => "mismatched_end_tag",
        K::UnclosedElement { .. } => "unclosed_element",
        K::UnexpectedEndTag { .. } => "unexpected_end_tag",
        K::DuplicateAttribute { .. } => "duplicate_attribute",
        K::UndeclaredPrefix { .. } => "undeclared_prefix",
        K::ReservedNamespace { .. } => "reserved_namespace",
        K::UndeclaredEntity { .. } => "undeclared_entity",
        K::RecursiveEntity { .. } => "recursive_entity",
        K::ForbiddenEntityReference { .. } => "forbidden_entity_reference",
        K::MalformedEntity { .. } => "malformed_entity",
        K::ExternalEntity { .. } => "external_entity",
        K::ExternalReference { .. } => "external_reference",
        K::InvalidCharRef { .. } => "invalid_char_ref",
        K::XmlDeclaration { .. } => "xml_declaration",
        K::Dtd { .. } => "dtd",
        K::Encoding { .. } => "encoding",
        K::Syntax { .. } => "syntax",
        K::LimitExceeded { .. } => "limit_exceeded",
        _ => "other",
    }
}

/// A parse error as `XMLSyntaxError` (or `ResourceLimitError`), with lxml's attributes.
pub(crate) fn syntax_error(py: Python<'_>, e: &vtdx::Error, filename: Option<&str>) -> PyErr {
    let ex = match exceptions(py) {
        Ok(x) => x,
        Err(err) => return err,
    };
    let t = if matches!(e.kind(), vtdx::ErrorKind::LimitExceeded { .. }) { &ex.limit } else { &ex.syntax };
    let (line, col) = (e.line(), e.column());
    let msg = format!("{}, line {line}, column {col}", e.kind());
    let attrs = [
        ("msg", msg.clone().into_pyobject(py).map(|o| o.into_any()).unwrap_or_else(|_| py.None().into_bound(py))),
        ("lineno", line.into_pyobject(py).unwrap().into_any()),
        ("offset", (col.saturating_sub(1)).into_pyobject(py).unwrap().into_any()),
        ("position", PyTuple::new(py, [line, col]).map(|t| t.into_any()).unwrap_or_else(|_| py.None().into_bound(py))),
        ("filename", filename.into_pyobject(py).map(|o| o.into_any()).unwrap_or_else(|_| py.None().into_bound(py))),
        ("kind", kind_id(e.kind()).into_pyobject(py).unwrap().into_any()),
        ("byte_offset", e.offset().into_pyobject(py).unwrap().into_any()),
    ];
    raise(py, t, msg, &attrs)
}

/// An XPath error: `XPathSyntaxError` when compiling failed, else `XPathEvalError`.
pub(crate) fn xpath_error(py: Python<'_>, e: &vtdx::XPathError) -> PyErr {
    let ex = match exceptions(py) {
        Ok(x) => x,
        Err(err) => return err,
    };
    let msg = e.to_string();
    if e.is_syntax_error() {
        let attrs = [
            ("msg", msg.clone().into_pyobject(py).unwrap().into_any()),
            ("offset", e.offset().into_pyobject(py).unwrap().into_any()),
            ("expression", e.expression().into_pyobject(py).unwrap().into_any()),
        ];
        raise(py, &ex.xpath_syntax, msg, &attrs)
    } else {
        let attrs = [("expression", e.expression().into_pyobject(py).unwrap().into_any())];
        raise(py, &ex.xpath_eval, msg, &attrs)
    }
}

pub(crate) fn edit_error(py: Python<'_>, e: &vtdx::EditError) -> PyErr {
    match exceptions(py) {
        Ok(ex) => raise(py, &ex.edit, e.to_string(), &[]),
        Err(err) => err,
    }
}

pub(crate) fn c14n_error(py: Python<'_>, e: &vtdx::c14n::C14nError) -> PyErr {
    match exceptions(py) {
        Ok(ex) => raise(py, &ex.c14n, e.to_string(), &[]),
        Err(err) => err,
    }
}

/// An ElementPath syntax error: a plain `SyntaxError`, as ElementTree and lxml raise.
pub(crate) fn path_error(msg: impl Into<String>) -> PyErr {
    PySyntaxError::new_err(msg.into())
}
