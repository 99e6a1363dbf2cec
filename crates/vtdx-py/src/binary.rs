//! `vtdx.pack` and `vtdx.unpack`: the compact binary form of `vtdx-binary`
//! (`docs/binary-format.md`), also what pickling a `Document` uses.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::document::{DocInner, Document};

/// The packed bytes of a document: its input recorded exactly (unpacking gives back
/// `doc.tostring()` byte for byte), names and repeated values sent once.
#[pyfunction]
pub(crate) fn pack<'py>(py: Python<'py>, doc: &Bound<'py, Document>) -> PyResult<Bound<'py, PyBytes>> {
    let inner = &doc.get().inner;
    let big = inner.doc.source().len() >= crate::DETACH_BYTES;
    let r = crate::maybe_detach(py, big, || vtdx_binary::pack(&inner.doc));
    r.map(|b| PyBytes::new(py, &b)).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A document from packed bytes, checked as a parse would check it: a damaged
/// or hostile input raises `ValueError` (`XMLSyntaxError` when the packed
/// document itself is not well-formed).
#[pyfunction]
pub(crate) fn unpack(py: Python<'_>, data: &[u8]) -> PyResult<Document> {
    let big = data.len() >= crate::DETACH_BYTES / 2;
    match crate::maybe_detach(py, big, || vtdx_binary::unpack(data)) {
        Ok(doc) => Ok(Document { inner: DocInner::new(doc, None) }),
        Err(e) => Err(match e.kind() {
            vtdx_binary::ErrorKind::Document(d) => crate::errors::syntax_error(py, d, None),
            _ => PyValueError::new_err(e.to_string()),
        }),
    }
}
