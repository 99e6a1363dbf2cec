//! XPath 1.0 from Python: `Element.xpath`, `Document.xpath` and the compiled
//! `XPath` class, with results typed as lxml types them.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use vtdx::xpath::{Context, Namespaces, NodeSet, Value, XNode, XNodeKind};
use vtdx::{Node, NodeId, NodeKind};

use crate::compile_cache::CompileCache;
use crate::document::{DocRef, Document};
use crate::element::{wrap_node, Element};
use crate::errors::xpath_error;
use crate::names::clark;

const SMART_STRING_SRC: &std::ffi::CStr = cr#"
class SmartString(str):
    """A string from an XPath result that remembers where it came from, like
    lxml's "smart strings": ``getparent()`` gives the element an attribute value
    or text belongs to (for a tail, the node it follows); ``attrname`` is the
    attribute's Clark name; ``is_attribute``, ``is_text`` and ``is_tail`` say which
    it is. Strings computed by an expression (``string(...)``) have no parent."""

    # the origins table of the result it came from (None for a computed string)
    # and its entry there; slots, not a per-string dict: a result makes thousands
    __slots__ = ("_o", "_i")

    def getparent(self):
        """The element this string belongs to, or None."""
        o = self._o
        return None if o is None else o.parent(self._i)

    @property
    def attrname(self):
        """The attribute's name in Clark notation for an attribute value, else None."""
        o = self._o
        return None if o is None else o.attrname(self._i)

    @property
    def is_attribute(self):
        """True for an attribute value."""
        o = self._o
        return o is not None and o.kind(self._i) == 2

    @property
    def is_text(self):
        """True for the text of an element (before its first child)."""
        o = self._o
        return o is not None and o.kind(self._i) == 0

    @property
    def is_tail(self):
        """True for the text after a node (its tail)."""
        o = self._o
        return o is not None and o.kind(self._i) == 1
"#;

static SMART_STRING: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn smart_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    SMART_STRING
        .get_or_try_init(py, || {
            let m = PyModule::from_code(py, SMART_STRING_SRC, c"vtdx/_smart.py", c"vtdx._smart")?;
            let t = m.getattr("SmartString")?;
            t.setattr("__module__", "vtdx")?;
            Ok::<_, PyErr>(t.cast_into::<PyType>()?.unbind())
        })
        .map(|t| t.bind(py))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SmartString", smart_type(m.py())?)
}

const KIND_TEXT: u8 = 0;
const KIND_TAIL: u8 = 1;
const KIND_ATTRIBUTE: u8 = 2;

/// Where the strings of one XPath result came from, one entry per string: the
/// node its `getparent()` returns, what it is (text, tail, attribute value)
/// and, for an attribute value, the attribute (for `attrname`). Python objects
/// are made only when asked for; one table per result, shared by its strings,
/// so a string costs two slots.
#[pyclass(frozen, module = "vtdx", name = "_Origins")]
pub struct Origins {
    doc: DocRef,
    entries: Vec<Origin>,
}

struct Origin {
    parent: Option<NodeId>,
    kind: u8,
    attribute: Option<NodeId>,
}

#[pymethods]
impl Origins {
    /// The node entry `i` belongs to.
    fn parent<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.entries.get(i).and_then(|o| o.parent) {
            Some(id) => Ok(Some(wrap_node(py, &self.doc, self.doc.node(id))?)),
            None => Ok(None),
        }
    }

    /// What entry `i` is: 0 text, 1 tail, 2 attribute value.
    fn kind(&self, i: usize) -> u8 {
        self.entries.get(i).map_or(KIND_TEXT, |o| o.kind)
    }

    /// The Clark name of entry `i`'s attribute, or None.
    fn attrname(&self, i: usize) -> Option<String> {
        let id = self.entries.get(i)?.attribute?;
        Some(clark(&self.doc.node(id)).into_owned())
    }
}

/// A smart string: `value`, entry `index` of `origins` (or computed: no origins).
fn smart<'py>(py: Python<'py>, value: &str, origins: Option<(&Bound<'py, Origins>, usize)>) -> PyResult<Bound<'py, PyAny>> {
    let s = smart_type(py)?.call1((PyString::new(py, value),))?;
    match origins {
        Some((o, i)) => {
            s.setattr(pyo3::intern!(py, "_o"), o)?;
            s.setattr(pyo3::intern!(py, "_i"), i)?;
        }
        None => s.setattr(pyo3::intern!(py, "_o"), py.None())?,
    }
    // a result makes thousands: out of the cycle collector's sight (see `untrack`)
    crate::untrack(&s);
    Ok(s)
}

// ---- compiling ------------------------------------------------------------------

fn namespaces_from_py(namespaces: Option<&Bound<'_, PyAny>>) -> PyResult<(Namespaces, String)> {
    let mut ns = Namespaces::new();
    let mut key = String::new();
    let Some(obj) = namespaces else { return Ok((ns, key)) };
    if obj.is_none() {
        return Ok((ns, key));
    }
    let d = obj.cast::<PyDict>().map_err(|_| PyTypeError::new_err("namespaces must be a dict"))?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, v) in d.iter() {
        if k.is_none() {
            return Err(PyTypeError::new_err("empty namespace prefix is not supported in XPath"));
        }
        let p: String = k.extract()?;
        if p.is_empty() {
            return Err(PyTypeError::new_err("empty namespace prefix is not supported in XPath"));
        }
        let u: String = v.extract()?;
        pairs.push((p, u));
    }
    pairs.sort();
    for (p, u) in &pairs {
        ns.insert(p, u);
        key.push('\u{0}');
        key.push_str(p);
        key.push('\u{1}');
        key.push_str(u);
    }
    Ok((ns, key))
}

/// Recently compiled expressions.
static CACHE: CompileCache<vtdx::XPath> = CompileCache::new(512);

/// Compiles `expr`, reusing a recent compilation of the same expression.
fn compile_cached(py: Python<'_>, expr: &str, namespaces: Option<&Bound<'_, PyAny>>) -> PyResult<Arc<vtdx::XPath>> {
    let (ns, nskey) = namespaces_from_py(namespaces)?;
    CACHE.get_or_compile(expr, &nskey, || vtdx::XPath::compile(expr, &ns).map_err(|e| xpath_error(py, &e)))
}

// ---- variables ------------------------------------------------------------------

enum Var {
    Str(String),
    Num(f64),
    Bool(bool),
    Nodes(Vec<NodeId>),
}

fn var_from_py(doc: &DocRef, name: &str, v: &Bound<'_, PyAny>) -> PyResult<Var> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Var::Bool(b.is_true()));
    }
    if v.cast::<PyInt>().is_ok() || v.cast::<PyFloat>().is_ok() {
        return Ok(Var::Num(v.extract::<f64>()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Var::Str(s.to_cow()?.into_owned()));
    }
    let node_of = |x: &Bound<'_, PyAny>| -> PyResult<NodeId> {
        if let Ok(e) = x.cast::<Element>() {
            let e = e.get();
            if !Arc::ptr_eq(&e.doc, doc) {
                return Err(PyValueError::new_err(format!("${name}: the element belongs to another document")));
            }
            return Ok(e.id);
        }
        if let Ok(d) = x.cast::<Document>() {
            let d = d.get();
            if !Arc::ptr_eq(&d.inner, doc) {
                return Err(PyValueError::new_err(format!("${name}: another document")));
            }
            return Ok(d.inner.doc.root().id());
        }
        Err(PyTypeError::new_err(format!(
            "${name}: unsupported variable type {} (use str, int, float, bool, an element or a list of elements)",
            x.get_type().name()?
        )))
    };
    if v.cast::<PyList>().is_ok() || v.cast::<PyTuple>().is_ok() {
        let mut ids = Vec::new();
        for x in v.try_iter()? {
            ids.push(node_of(&x?)?);
        }
        return Ok(Var::Nodes(ids));
    }
    Ok(Var::Nodes(vec![node_of(v)?]))
}

fn vars_from_py(doc: &DocRef, variables: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, Var)>> {
    let mut out = Vec::new();
    if let Some(d) = variables {
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let var = var_from_py(doc, &name, &v)?;
            out.push((name, var));
        }
    }
    Ok(out)
}

// ---- evaluating -----------------------------------------------------------------

/// Evaluates `xp` at `node` (detached for big documents) and converts the result.
fn evaluate<'py>(
    py: Python<'py>,
    doc: &DocRef,
    node: Node<'_>,
    xp: &vtdx::XPath,
    vars: Vec<(String, Var)>,
    smart_strings: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let d = &doc.doc;
    let run = || {
        let mut ctx = Context::new(d);
        for (name, v) in vars {
            let value: Value<'_> = match v {
                Var::Str(s) => Value::from(s),
                Var::Num(n) => Value::Number(n),
                Var::Bool(b) => Value::Boolean(b),
                Var::Nodes(ids) => {
                    Value::NodeSet(NodeSet::from_nodes(ids.into_iter().filter_map(|id| d.node(id)).map(XNode::from_node).collect()))
                }
            };
            ctx.set_variable(&name, value);
        }
        xp.evaluate_in(&ctx, XNode::from_node(node))
    };
    let value = crate::maybe_detach(py, doc.is_big(), run).map_err(|e| xpath_error(py, &e))?;
    convert_value(py, doc, value, smart_strings)
}

pub(crate) fn eval_str<'py>(
    py: Python<'py>,
    doc: &DocRef,
    node: Node<'_>,
    expr: &str,
    namespaces: Option<&Bound<'py, PyAny>>,
    smart_strings: bool,
    variables: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let xp = compile_cached(py, expr, namespaces)?;
    let vars = vars_from_py(doc, variables)?;
    evaluate(py, doc, node, &xp, vars, smart_strings)
}

fn convert_value<'py>(py: Python<'py>, doc: &DocRef, v: Value<'_>, smart_strings: bool) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::NodeSet(ns) => convert_nodes(py, doc, ns.as_slice(), smart_strings)?.into_any(),
        Value::Number(n) => PyFloat::new(py, n).into_any(),
        Value::Boolean(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::String(s) => {
            if smart_strings {
                smart(py, &s, None)?
            } else {
                PyString::new(py, &s).into_any()
            }
        }
    })
}

/// Where a text or attribute result comes from, as lxml sees it: an
/// attribute's element; for text, the node it follows (a tail) or else its
/// parent (a text).
fn origin_of(x: &XNode<'_>) -> Origin {
    let n = x.node();
    match x.kind() {
        XNodeKind::Attribute => Origin { parent: n.parent().map(|p| p.id()), kind: KIND_ATTRIBUTE, attribute: Some(n.id()) },
        _ => match n.prev_sibling() {
            Some(p) if matches!(p.kind(), NodeKind::Element | NodeKind::Comment | NodeKind::ProcessingInstruction) => {
                Origin { parent: Some(p.id()), kind: KIND_TAIL, attribute: None }
            }
            _ => Origin { parent: n.parent().filter(|p| p.is_element()).map(|p| p.id()), kind: KIND_TEXT, attribute: None },
        },
    }
}

fn convert_nodes<'py>(py: Python<'py>, doc: &DocRef, nodes: &[XNode<'_>], smart_strings: bool) -> PyResult<Bound<'py, PyList>> {
    // the strings of one result share one origins table, an entry per string in
    // the order they come
    let origins = if smart_strings && nodes.iter().any(|x| matches!(x.kind(), XNodeKind::Attribute | XNodeKind::Text)) {
        let entries = nodes.iter().filter(|x| matches!(x.kind(), XNodeKind::Attribute | XNodeKind::Text)).map(origin_of).collect();
        let o = Bound::new(py, Origins { doc: doc.clone(), entries })?;
        crate::untrack(&o);
        Some(o)
    } else {
        None
    };
    let mut entry = 0usize;
    let mut out: Vec<Bound<'py, PyAny>> = Vec::with_capacity(nodes.len());
    for x in nodes {
        let n = x.node();
        let obj = match x.kind() {
            XNodeKind::Element | XNodeKind::Comment | XNodeKind::ProcessingInstruction => wrap_node(py, doc, n)?,
            k @ (XNodeKind::Attribute | XNodeKind::Text) => {
                let v = if k == XNodeKind::Text { x.string_value() } else { n.value() };
                match &origins {
                    None => PyString::new(py, &v).into_any(),
                    Some(o) => {
                        entry += 1;
                        smart(py, &v, Some((o, entry - 1)))?
                    }
                }
            }
            XNodeKind::Namespace => {
                let (p, u) = x.namespace().unwrap_or(("", ""));
                let prefix = if p.is_empty() { py.None().into_bound(py) } else { PyString::new(py, p).into_any() };
                PyTuple::new(py, [prefix, PyString::new(py, u).into_any()])?.into_any()
            }
            XNodeKind::Root => Bound::new(py, Document { inner: doc.clone() })?.into_any(),
        };
        out.push(obj);
    }
    PyList::new(py, out)
}

// ---- the XPath class ------------------------------------------------------------

/// A compiled XPath 1.0 expression, like ``lxml.etree.XPath``: compile once, call it
/// on any number of elements or documents, from any thread.
///
/// >>> find_items = vtdx.XPath("//item[@qty > $n]")
/// >>> find_items(doc, n=1)
#[pyclass(frozen, module = "vtdx", name = "XPath")]
pub struct XPath {
    xp: Arc<vtdx::XPath>,
    smart_strings: bool,
}

#[pymethods]
impl XPath {
    /// Compiles ``path``; ``namespaces`` maps the prefixes it uses to URIs.
    /// Raises :class:`XPathSyntaxError` when it does not compile.
    #[new]
    #[pyo3(signature = (path, namespaces=None, *, smart_strings=true))]
    fn new(py: Python<'_>, path: &str, namespaces: Option<&Bound<'_, PyAny>>, smart_strings: bool) -> PyResult<Self> {
        let (ns, _) = namespaces_from_py(namespaces)?;
        let xp = vtdx::XPath::compile(path, &ns).map_err(|e| xpath_error(py, &e))?;
        Ok(XPath { xp: Arc::new(xp), smart_strings })
    }

    /// Evaluates the expression with an element (or a document's root element) as
    /// the context node; keyword arguments bind ``$variables``.
    #[pyo3(signature = (_etree_or_element, **_variables))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        _etree_or_element: &Bound<'py, PyAny>,
        _variables: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (doc, id) = if let Ok(e) = _etree_or_element.cast::<Element>() {
            let e = e.get();
            (e.doc.clone(), e.id)
        } else if let Ok(d) = _etree_or_element.cast::<Document>() {
            let d = d.get();
            (d.inner.clone(), d.inner.doc.root_element().id())
        } else {
            return Err(PyTypeError::new_err(format!(
                "XPath needs an Element or a Document, not {}",
                _etree_or_element.get_type().name()?
            )));
        };
        let vars = vars_from_py(&doc, _variables)?;
        let node = doc.node(id);
        evaluate(py, &doc, node, &self.xp, vars, self.smart_strings)
    }

    /// The expression's text.
    #[getter]
    fn path(&self) -> &str {
        self.xp.as_str()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("XPath({})", PyString::new(py, self.xp.as_str()).repr()?))
    }
}
