//! `Editor`: byte-range edits recorded against a document, written in one pass.
//!
//! The core `vtdx::Editor` borrows its document, which a Python object cannot
//! hold; so the Python `Editor` records operations (checking each at once on a
//! scratch core editor, so errors point at the call that caused them) and
//! replays them on a fresh core editor when the output is asked for.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use vtdx::{EditError, Node, NodeId};

use crate::document::{DocRef, Document};
use crate::element::as_element;
use crate::errors::edit_error;
use crate::names::{find_attribute, parse_clark};

#[derive(Debug, Clone)]
enum Op {
    Remove(NodeId),
    RemoveAttribute(NodeId, String),
    InsertBefore(NodeId, String),
    InsertAfter(NodeId, String),
    Append(NodeId, String),
    Prepend(NodeId, String),
    SetText(NodeId, String),
    Set(NodeId, String, String),
    Rename(NodeId, String),
    Replace(NodeId, String),
}

/// A qualified name for a Clark name (`{uri}local`) in the scope of `el`: the
/// prefix bound to the URI there (the default namespace only for elements).
fn qname_for(el: &Node<'_>, name: &str, attribute: bool) -> Result<String, EditError> {
    if !name.starts_with('{') {
        return Ok(name.to_string());
    }
    let (ns, local) = parse_clark(name);
    let Some(uri) = ns else { return Ok(local.to_string()) };
    let scope = if el.is_element() { *el } else { el.parent().unwrap_or(*el) };
    for (p, u) in scope.namespaces() {
        if u == uri && !(attribute && p.is_empty()) {
            return Ok(if p.is_empty() { local.to_string() } else { format!("{p}:{local}") });
        }
    }
    Err(EditError::UndeclaredPrefix(format!("(none bound to {uri} here)")))
}

fn apply<'d>(ed: &mut vtdx::Editor<'d>, doc: &'d vtdx::Document<'d>, op: &Op) -> Result<(), EditError> {
    let node = |id: &NodeId| doc.node(*id).unwrap_or_else(|| doc.root());
    match op {
        Op::Remove(id) => ed.remove(node(id)),
        Op::RemoveAttribute(id, name) => {
            let el = node(id);
            let attr = if name.starts_with('{') { find_attribute(&el, name) } else { el.attribute_node(name) };
            match attr {
                Some(a) => ed.remove(a),
                None => Ok(()),
            }
        }
        Op::InsertBefore(id, f) => ed.insert_before(node(id), f),
        Op::InsertAfter(id, f) => ed.insert_after(node(id), f),
        Op::Append(id, f) => ed.append_child(node(id), f),
        Op::Prepend(id, f) => ed.prepend_child(node(id), f),
        Op::SetText(id, t) => ed.set_text(node(id), t),
        Op::Set(id, name, value) => {
            let el = node(id);
            let q = match find_attribute(&el, name) {
                Some(a) if name.starts_with('{') => a.name().to_string(),
                _ => qname_for(&el, name, true)?,
            };
            ed.set_attribute(el, &q, value)
        }
        Op::Rename(id, name) => {
            let el = node(id);
            let q = qname_for(&el, name, false)?;
            ed.rename(el, &q)
        }
        Op::Replace(id, f) => ed.replace(node(id), f),
    }
}

/// Records edits to a document and writes the edited bytes, like a patch: bytes
/// outside the edited ranges are copied unchanged (nothing is reserialized).
///
/// Every method takes nodes of the document the editor was made for. Edits never
/// change the ``Document`` itself; :meth:`output` gives the new bytes and
/// :meth:`to_document` parses them. Fragments are checked for well-formedness (in
/// the namespace context where they land) unless ``check=False``.
///
/// >>> ed = vtdx.Editor(doc)
/// >>> ed.remove(doc.find('item'))
/// >>> ed.set(doc.root, 'count', '1')
/// >>> new_bytes = ed.output()
#[pyclass(frozen, module = "vtdx", name = "Editor")]
pub struct Editor {
    doc: DocRef,
    check: bool,
    strip_indent: bool,
    ops: Mutex<Vec<Op>>,
}

impl Editor {
    fn id_of(&self, node: &Bound<'_, PyAny>) -> PyResult<NodeId> {
        let e = as_element(node)?;
        if !Arc::ptr_eq(&e.doc, &self.doc) {
            return Err(PyValueError::new_err("the node belongs to another document than the editor's"));
        }
        Ok(e.id)
    }

    fn record(&self, py: Python<'_>, op: Op) -> PyResult<()> {
        let d = &self.doc.doc;
        let mut scratch = vtdx::Editor::new(d).check_fragments(self.check);
        apply(&mut scratch, d, &op).map_err(|e| edit_error(py, &e))?;
        self.ops.lock().unwrap_or_else(|e| e.into_inner()).push(op);
        Ok(())
    }

    fn write(&self, py: Python<'_>) -> PyResult<Vec<u8>> {
        let ops = self.ops.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let d = &self.doc.doc;
        let strip = self.strip_indent;
        let res = crate::maybe_detach(py, self.doc.is_big(), || {
            // each fragment was checked (or not, with check=False) when its operation
            // was recorded, on the scratch editor; writing does not check again
            let mut ed = vtdx::Editor::new(d).check_fragments(false).remove_indentation(strip);
            for op in &ops {
                apply(&mut ed, d, op)?;
            }
            ed.to_vec()
        });
        res.map_err(|e| edit_error(py, &e))
    }
}

#[pymethods]
impl Editor {
    /// An editor for ``doc`` (a :class:`Document`, or any element of one).
    /// ``check``: check inserted fragments for well-formedness (default True).
    /// ``remove_indentation``: when removing a node alone on its line, remove the
    /// line too, so indented documents stay tidy (default False).
    #[new]
    #[pyo3(signature = (doc, *, check=true, remove_indentation=false))]
    fn new(doc: &Bound<'_, PyAny>, check: bool, remove_indentation: bool) -> PyResult<Self> {
        let inner = if let Ok(d) = doc.cast::<Document>() { d.get().inner.clone() } else { as_element(doc)?.doc.clone() };
        Ok(Editor { doc: inner, check, strip_indent: remove_indentation, ops: Mutex::new(Vec::new()) })
    }

    /// Removes an element (with its subtree), a comment or a processing instruction.
    fn remove(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<()> {
        let op = Op::Remove(self.id_of(node)?);
        self.record(py, op)
    }

    /// Removes an attribute (by Clark or qualified name) if it is there. An
    /// attribute defaulted by the internal subset (seen with
    /// ``attribute_defaults=True``) is not written in the start tag, so it cannot be
    /// removed: :class:`EditError` (``set`` writes it with another value).
    fn remove_attribute(&self, py: Python<'_>, element: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
        let op = Op::RemoveAttribute(self.id_of(element)?, name.to_string());
        self.record(py, op)
    }

    /// Inserts an XML fragment (markup, as a string) just before a node.
    fn insert_before(&self, py: Python<'_>, node: &Bound<'_, PyAny>, fragment: &str) -> PyResult<()> {
        let op = Op::InsertBefore(self.id_of(node)?, fragment.to_string());
        self.record(py, op)
    }

    /// Inserts an XML fragment just after a node (before its tail text).
    fn insert_after(&self, py: Python<'_>, node: &Bound<'_, PyAny>, fragment: &str) -> PyResult<()> {
        let op = Op::InsertAfter(self.id_of(node)?, fragment.to_string());
        self.record(py, op)
    }

    /// Inserts an XML fragment as the last content of an element.
    fn append(&self, py: Python<'_>, element: &Bound<'_, PyAny>, fragment: &str) -> PyResult<()> {
        let op = Op::Append(self.id_of(element)?, fragment.to_string());
        self.record(py, op)
    }

    /// Inserts an XML fragment as the first content of an element.
    fn prepend(&self, py: Python<'_>, element: &Bound<'_, PyAny>, fragment: &str) -> PyResult<()> {
        let op = Op::Prepend(self.id_of(element)?, fragment.to_string());
        self.record(py, op)
    }

    /// Replaces all content of an element with text (escaped as needed); for a
    /// comment or processing instruction, replaces its content.
    fn set_text(&self, py: Python<'_>, element: &Bound<'_, PyAny>, text: &str) -> PyResult<()> {
        let op = Op::SetText(self.id_of(element)?, text.to_string());
        self.record(py, op)
    }

    /// Sets an attribute (replacing its value, or adding it). ``name`` is a
    /// qualified name (``'p:x'``) or a Clark name (``'{uri}x'``, which needs a
    /// prefix bound to ``uri`` where the element is).
    fn set(&self, py: Python<'_>, element: &Bound<'_, PyAny>, name: &str, value: &str) -> PyResult<()> {
        let op = Op::Set(self.id_of(element)?, name.to_string(), value.to_string());
        self.record(py, op)
    }

    /// Renames an element (start and end tag); ``name`` as for :meth:`set`.
    fn rename(&self, py: Python<'_>, element: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
        let op = Op::Rename(self.id_of(element)?, name.to_string());
        self.record(py, op)
    }

    /// Replaces a whole node (element with its subtree, comment, PI) with a fragment.
    fn replace(&self, py: Python<'_>, node: &Bound<'_, PyAny>, fragment: &str) -> PyResult<()> {
        let op = Op::Replace(self.id_of(node)?, fragment.to_string());
        self.record(py, op)
    }

    /// The edited document as bytes, in the document's own encoding. Raises
    /// :class:`EditError` when two edits overlap without one containing the other.
    fn output<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.write(py)?;
        Ok(PyBytes::new(py, &v))
    }

    /// The edited document, parsed again (with the original's options).
    fn to_document(&self, py: Python<'_>) -> PyResult<Document> {
        let v = self.write(py)?;
        let opts = self.doc.doc.options().clone();
        let inner = crate::parse::parse_vec(py, v, &opts, None)?;
        Ok(Document { inner })
    }

    /// Forgets every edit.
    fn clear(&self) {
        self.ops.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The document being edited.
    #[getter]
    fn document(&self) -> Document {
        Document { inner: self.doc.clone() }
    }

    /// Number of recorded edits.
    fn __len__(&self) -> usize {
        self.ops.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.Editor edits={}>", self.__len__())
    }
}
