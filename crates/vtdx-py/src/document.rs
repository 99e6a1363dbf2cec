//! `Document`: a parsed document (lxml's `_ElementTree`), owning its bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use vtdx::{Node, NodeId};

use crate::element::{self, wrap_node};
use crate::elementpath;

/// A parsed document and what the bindings compute about it lazily.
pub(crate) struct DocInner {
    pub doc: vtdx::Document<'static>,
    /// Byte offsets (in `doc.text()`) where lines 2, 3, ... start; built on the
    /// first `sourceline` request.
    lines: OnceLock<Vec<u32>>,
    /// The file it was read from, for error messages and `docinfo.URL`.
    pub filename: Option<String>,
    /// `el.tag` strings by symbol, made on first use (a tag is asked for again and
    /// again in loops over elements).
    tags: Mutex<HashMap<vtdx::core::Sym, Py<PyString>>>,
}

/// The shared handle every `Document`, `Element` and result holds.
pub(crate) type DocRef = Arc<DocInner>;

impl DocInner {
    pub(crate) fn new(doc: vtdx::Document<'static>, filename: Option<String>) -> DocRef {
        Arc::new(DocInner { doc, lines: OnceLock::new(), filename, tags: Mutex::new(HashMap::new()) })
    }

    /// Resolves a node id of this document.
    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> Node<'_> {
        // Ids only ever come from this document's own nodes.
        self.doc.node(id).unwrap_or_else(|| self.doc.root())
    }

    /// 1-based line of a byte offset in the text: a CR, an LF or a CR LF pair ends
    /// a line (as `vtdx::line_column` counts).
    pub(crate) fn line_of(&self, offset: usize) -> u32 {
        let lines = self.lines.get_or_init(|| {
            let t = self.doc.text();
            let mut v = Vec::new();
            let mut i = 0;
            while let Some(p) = memchr2(b'\n', b'\r', &t[i..]) {
                let p = i + p;
                if t[p] == b'\r' && t.get(p + 1) == Some(&b'\n') {
                    v.push((p + 2) as u32);
                    i = p + 2;
                } else {
                    v.push((p + 1) as u32);
                    i = p + 1;
                }
            }
            v
        });
        lines.partition_point(|&s| s as usize <= offset) as u32 + 1
    }

    /// The Clark-notation tag of an element, shared between calls.
    pub(crate) fn tag<'py>(&self, py: Python<'py>, n: &Node<'_>) -> Bound<'py, PyString> {
        let Some(sym) = n.sym() else { return PyString::new(py, &crate::names::clark(n)) };
        let mut tags = self.tags.lock().unwrap_or_else(|e| e.into_inner());
        tags.entry(sym).or_insert_with(|| PyString::new(py, &crate::names::clark(n)).unbind()).bind(py).clone()
    }

    /// Is the document big enough to release the interpreter while working on it?
    #[inline]
    pub(crate) fn is_big(&self) -> bool {
        self.doc.text().len() >= crate::DETACH_BYTES
    }
}

fn memchr2(a: u8, b: u8, h: &[u8]) -> Option<usize> {
    h.iter().position(|&c| c == a || c == b)
}

/// A parsed XML document, like lxml's ``ElementTree``: returned by
/// :func:`vtdx.parse`, reached from any element by ``getroottree()``.
///
/// The document keeps its input bytes and a compact index over them; elements are
/// small handles into it. ``tostring()`` gives the input back byte for byte.
#[pyclass(frozen, module = "vtdx", name = "Document")]
pub struct Document {
    pub(crate) inner: DocRef,
}

impl Document {
    pub(crate) fn root_node(&self) -> Node<'_> {
        self.inner.doc.root_element()
    }
}

#[pymethods]
impl Document {
    /// The root element (lxml: ``getroot()``).
    #[getter]
    fn root<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrap_node(py, &self.inner, self.root_node())
    }

    /// The root element.
    fn getroot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.root(py)
    }

    /// Information from the XML declaration and DOCTYPE, like lxml's ``docinfo``.
    #[getter]
    fn docinfo<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let doc = &self.inner.doc;
        let decl = doc.xml_declaration();
        d.set_item("xml_version", decl.map(|x| x.version.as_str()).unwrap_or("1.0"))?;
        let enc = match doc.encoding() {
            vtdx::SourceEncoding::Utf8 { .. } => "UTF-8".to_string(),
            vtdx::SourceEncoding::Utf16Le { .. } | vtdx::SourceEncoding::Utf16Be { .. } => "UTF-16".to_string(),
            vtdx::SourceEncoding::Other { label } => label.clone(),
            #[allow(unreachable_patterns)]
            _ => "UTF-8".to_string(),
        };
        d.set_item("encoding", decl.and_then(|x| x.encoding.clone()).unwrap_or(enc))?;
        d.set_item("standalone", decl.and_then(|x| x.standalone))?;
        d.set_item("root_name", self.root_node().name())?;
        let dtd = doc.dtd();
        d.set_item("doctype_name", dtd.map(|t| t.name.as_str()))?;
        d.set_item("URL", self.inner.filename.as_deref())?;
        Ok(d)
    }

    /// Evaluates an XPath 1.0 expression with the root element as the context node
    /// (as lxml's ``ElementTree.xpath``). Keyword arguments bind ``$variables``.
    #[pyo3(signature = (_path, namespaces=None, smart_strings=true, **variables))]
    fn xpath<'py>(
        &self,
        py: Python<'py>,
        _path: &str,
        namespaces: Option<&Bound<'py, PyAny>>,
        smart_strings: bool,
        variables: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::xpath::eval_str(py, &self.inner, self.root_node(), _path, namespaces, smart_strings, variables)
    }

    /// The first element matching an ElementPath expression from the root element.
    /// A path starting with ``/`` is taken relative to the root element, as lxml does.
    #[pyo3(signature = (path, namespaces=None))]
    fn find<'py>(&self, py: Python<'py>, path: &str, namespaces: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let p = tree_path(path);
        elementpath::find(py, &self.inner, self.root_node(), &p, namespaces)
    }

    /// Every element matching an ElementPath expression, as a list.
    #[pyo3(signature = (path, namespaces=None))]
    fn findall<'py>(&self, py: Python<'py>, path: &str, namespaces: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let p = tree_path(path);
        elementpath::findall(py, &self.inner, self.root_node(), &p, namespaces)
    }

    /// An iterator over the elements matching an ElementPath expression.
    #[pyo3(signature = (path, namespaces=None))]
    fn iterfind<'py>(&self, py: Python<'py>, path: &str, namespaces: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let p = tree_path(path);
        elementpath::iterfind(py, &self.inner, self.root_node(), &p, namespaces)
    }

    /// The text of the first match (``''`` when it has none), or ``default``.
    #[pyo3(signature = (path, default=None, namespaces=None))]
    fn findtext<'py>(
        &self,
        py: Python<'py>,
        path: &str,
        default: Option<Bound<'py, PyAny>>,
        namespaces: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let p = tree_path(path);
        elementpath::findtext(py, &self.inner, self.root_node(), &p, default, namespaces)
    }

    /// Iterates over the root element and its descendants (elements, comments,
    /// processing instructions) in document order, optionally only those matching
    /// ``tag`` (see :meth:`Element.iter`).
    #[pyo3(signature = (tag=None, *tags))]
    fn iter<'py>(&self, py: Python<'py>, tag: Option<&Bound<'py, PyAny>>, tags: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        let filter = element::tag_filter(py, tag, tags)?;
        element::iter_nodes(py, &self.inner, self.root_node(), &filter, true)
    }

    /// The document's bytes exactly as they were parsed (any encoding, BOM included);
    /// with ``encoding='unicode'``, the text as ``str``.
    #[pyo3(signature = (*, encoding=None))]
    fn tostring<'py>(&self, py: Python<'py>, encoding: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        match encoding {
            None => Ok(PyBytes::new(py, self.inner.doc.source()).into_any()),
            Some(e) if e.eq_ignore_ascii_case("unicode") => {
                let t = std::str::from_utf8(self.inner.doc.text()).map_err(|e| PyValueError::new_err(e.to_string()))?;
                Ok(PyString::new(py, t).into_any())
            }
            Some(e) => Err(PyValueError::new_err(format!(
                "Document.tostring() returns the bytes as parsed; encoding={e:?} is not supported (use None or 'unicode')"
            ))),
        }
    }

    /// Canonical XML of the whole document (see :func:`vtdx.canonicalize`).
    #[pyo3(signature = (*, exclusive=false, with_comments=false, inclusive_ns_prefixes=None, version="1.0"))]
    fn canonicalize<'py>(
        &self,
        py: Python<'py>,
        exclusive: bool,
        with_comments: bool,
        inclusive_ns_prefixes: Option<Vec<String>>,
        version: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        crate::c14n::canonicalize_node(
            py,
            &self.inner,
            self.inner.doc.root(),
            exclusive,
            with_comments,
            inclusive_ns_prefixes.as_deref(),
            version,
        )
    }

    /// Writes the document's bytes (exactly as parsed) to a file name, path or
    /// binary file object.
    fn write(&self, py: Python<'_>, file: &Bound<'_, PyAny>) -> PyResult<()> {
        let bytes = PyBytes::new(py, self.inner.doc.source());
        if file.hasattr("write")? {
            file.call_method1("write", (bytes,))?;
            return Ok(());
        }
        let os = py.import("os")?;
        let path = os.call_method1("fspath", (file,))?;
        let path: std::path::PathBuf = path.extract()?;
        // from the copy: when the document was mapped from this very file, opening it
        // for writing truncates the pages the source lies in
        let data = bytes.as_bytes();
        py.detach(|| std::fs::write(&path, data)).map_err(PyErr::from)
    }

    /// Size of the input in bytes, and of the index the document keeps beside it.
    #[getter]
    fn nbytes(&self) -> (usize, usize) {
        (self.inner.doc.source().len(), self.inner.doc.index_bytes())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        let me = slf.get();
        format!("<vtdx.Document root={} bytes={} at {:#x}>", me.root_node().name(), me.inner.doc.source().len(), slf.as_ptr() as usize)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Document>() {
            Ok(o) => Arc::ptr_eq(&self.inner, &o.get().inner),
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> isize {
        (Arc::as_ptr(&self.inner) as usize >> 4) as isize
    }

    fn __copy__(slf: &Bound<'_, Self>) -> Py<Self> {
        slf.clone().unbind()
    }

    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf.clone().unbind()
    }

    /// Pickling: the packed form (`vtdx.pack`), unpacked by `vtdx.unpack`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, pyo3::types::PyBytes>,))> {
        let packed = vtdx_binary::pack(&self.inner.doc).map_err(|e| PyTypeError::new_err(format!("cannot pickle: {e}")))?;
        let unpack = py.import("vtdx._vtdx")?.getattr("unpack")?;
        Ok((unpack, (pyo3::types::PyBytes::new(py, &packed),)))
    }
}

/// lxml's `ElementTree.find*` with an absolute path: taken relative to the root element.
fn tree_path(path: &str) -> std::borrow::Cow<'_, str> {
    if path.starts_with('/') {
        std::borrow::Cow::Owned(format!(".{path}"))
    } else {
        std::borrow::Cow::Borrowed(path)
    }
}
