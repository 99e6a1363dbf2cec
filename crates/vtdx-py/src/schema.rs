//! `vtdx.XMLSchema`: XML Schema 1.0 validation shaped like lxml's `etree.XMLSchema`
//! (`validate(doc) -> bool`, `assertValid`, `error_log`) with an `iter_errors(doc)`
//! as Python `xmlschema` users know it.

use std::sync::{Arc, Mutex};

use pyo3::create_exception;
use pyo3::prelude::*;

use crate::document::Document;
use crate::element::Element;

create_exception!(_vtdx, XMLSchemaParseError, pyo3::exceptions::PyValueError, "A schema that cannot be loaded or is invalid.");
create_exception!(_vtdx, DocumentInvalid, pyo3::exceptions::PyValueError, "Raised by `XMLSchema.assertValid` when a document is invalid.");

/// One validation error: `line`, `column`, `offset`, `path`, `message`, `filename`, and
/// lxml's `level_name` (always `"ERROR"`).
#[pyclass(module = "vtdx._vtdx", frozen, name = "SchemaError")]
pub struct SchemaValidationError {
    /// 1-based line.
    #[pyo3(get)]
    line: u32,
    /// 1-based column.
    #[pyo3(get)]
    column: u32,
    /// Byte offset.
    #[pyo3(get)]
    offset: u64,
    /// Element path, e.g. `/po:purchaseOrder/items/item[3]/quantity`.
    #[pyo3(get)]
    path: String,
    /// What was expected and what was found.
    #[pyo3(get)]
    message: String,
    /// The document's file name, when it was parsed from a file.
    #[pyo3(get)]
    filename: Option<String>,
}

#[pymethods]
impl SchemaValidationError {
    /// lxml's severity name: every validation error is an `"ERROR"`.
    #[getter]
    fn level_name(&self) -> &'static str {
        "ERROR"
    }
    fn __str__(&self) -> String {
        format!("{}:{}:{}: {}", self.filename.as_deref().unwrap_or("<string>"), self.line, self.column, self.message)
    }
    fn __repr__(&self) -> String {
        format!("<SchemaError {}:{} {:?}>", self.line, self.column, self.message)
    }
}

/// An XML Schema 1.0 schema: `XMLSchema(file="po.xsd")` or `XMLSchema(file=["a.xsd", "b.xsd"])`,
/// `XMLSchema(source=b"<xs:schema .../>")`, or (like lxml) `XMLSchema(vtdx.parse("po.xsd"))`.
/// Compiled once; reusable on any thread.
#[pyclass(module = "vtdx._vtdx", frozen)]
pub struct XMLSchema {
    schema: Arc<vtdx_schema::Schema>,
    log: Mutex<Vec<Py<SchemaValidationError>>>,
}

/// The document behind a `vtdx.Document` or its root `vtdx.Element`. Validation covers a
/// whole document, so an element other than the root is refused rather than silently
/// validating the document around it.
fn doc_of(obj: &Bound<'_, PyAny>) -> PyResult<crate::document::DocRef> {
    if let Ok(d) = obj.cast::<Document>() {
        return Ok(d.get().inner.clone());
    }
    if let Ok(e) = obj.cast::<Element>() {
        let e = e.get();
        if e.id != e.doc.doc.root_element().id() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "expected a document or its root element, found the non-root element <{}> (validating a subtree is not supported)",
                e.node().name()
            )));
        }
        return Ok(e.doc.clone());
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "expected a vtdx.Document or its root vtdx.Element, found {}",
        obj.get_type().name()?
    )))
}

impl XMLSchema {
    fn run(&self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Vec<Py<SchemaValidationError>>> {
        let d = doc_of(obj)?;
        let schema = self.schema.clone();
        let errs = py.detach(|| {
            let v = schema.validate_with(&d.doc, &vtdx_schema::ValidateOptions { typed_values: false, ..Default::default() });
            v.into_errors()
        });
        errs.into_iter()
            .map(|e| {
                Py::new(
                    py,
                    SchemaValidationError {
                        line: e.location.line,
                        column: e.location.column,
                        offset: e.location.offset,
                        path: e.path,
                        message: e.message,
                        filename: d.filename.clone(),
                    },
                )
            })
            .collect()
    }
}

#[pymethods]
impl XMLSchema {
    #[new]
    #[pyo3(signature = (etree = None, file = None, *, source = None))]
    fn new(
        py: Python<'_>,
        etree: Option<&Bound<'_, PyAny>>,
        file: Option<&Bound<'_, PyAny>>,
        source: Option<Vec<u8>>,
    ) -> PyResult<XMLSchema> {
        let mut b = vtdx_schema::SchemaBuilder::new();
        match (etree, file, source) {
            (Some(t), None, None) => {
                let d = doc_of(t).map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(format!(
                        "etree: expected a parsed schema document (vtdx.Document), found {} (give a path as file=)",
                        t.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                    ))
                })?;
                // includes and imports resolve beside the file the schema was parsed from
                let bytes = d.doc.source().to_vec();
                match d.filename.as_deref() {
                    Some(f) => {
                        let dir = std::path::Path::new(f).parent().map(|p| p.to_path_buf()).unwrap_or_default();
                        b = b.source_in(f, bytes, dir);
                    }
                    None => b = b.source("<document>", bytes),
                }
            }
            (None, Some(f), None) => {
                if let Ok(s) = f.extract::<std::path::PathBuf>() {
                    b = b.file(s);
                } else {
                    for p in f.try_iter()? {
                        b = b.file(p?.extract::<std::path::PathBuf>()?);
                    }
                }
            }
            (None, None, Some(bytes)) => b = b.source("<string>", bytes),
            _ => return Err(pyo3::exceptions::PyTypeError::new_err("give exactly one of etree, file= or source=")),
        }
        let schema = py.detach(|| b.build()).map_err(|e| XMLSchemaParseError::new_err(e.to_string()))?;
        Ok(XMLSchema { schema: Arc::new(schema), log: Mutex::new(Vec::new()) })
    }

    /// Opt-in to schema location hints: the schema that `doc`'s `xsi:schemaLocation` /
    /// `xsi:noNamespaceSchemaLocation` name (on its document element; on every element with
    /// `all_elements=True`), resolved only as local paths relative to `base` (default: the
    /// directory of the file `doc` was parsed from); a URL (`http:`, ...) raises
    /// `XMLSchemaParseError`: nothing is fetched. Schemas given as `file=` take precedence
    /// for the namespaces they cover.
    #[classmethod]
    #[pyo3(signature = (doc, *, base = None, file = None, all_elements = false))]
    fn from_schema_location(
        _cls: &Bound<'_, pyo3::types::PyType>,
        py: Python<'_>,
        doc: &Bound<'_, PyAny>,
        base: Option<std::path::PathBuf>,
        file: Option<&Bound<'_, PyAny>>,
        all_elements: bool,
    ) -> PyResult<XMLSchema> {
        let d = doc_of(doc)?;
        let base = match (base, d.filename.as_deref()) {
            (Some(b), _) => b,
            (None, Some(f)) => std::path::Path::new(f).parent().map(|p| p.to_path_buf()).unwrap_or_default(),
            (None, None) => {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "base: the document was not parsed from a file; give the directory its schema locations are relative to",
                ))
            }
        };
        let mut b = vtdx_schema::SchemaBuilder::new();
        if let Some(f) = file {
            if let Ok(s) = f.extract::<std::path::PathBuf>() {
                b = b.file(s);
            } else {
                for p in f.try_iter()? {
                    b = b.file(p?.extract::<std::path::PathBuf>()?);
                }
            }
        }
        let scope = if all_elements { vtdx_schema::HintScope::AllElements } else { vtdx_schema::HintScope::DocumentElement };
        let name = d.filename.clone().unwrap_or_else(|| "<document>".into());
        let schema = py
            .detach(|| b.schema_location_hints(&d.doc, &name, base, scope).and_then(vtdx_schema::SchemaBuilder::build))
            .map_err(|e| XMLSchemaParseError::new_err(e.to_string()))?;
        Ok(XMLSchema { schema: Arc::new(schema), log: Mutex::new(Vec::new()) })
    }

    /// Validates `doc` (a document or element); `True` if valid. Errors go to `error_log`.
    fn validate(&self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<bool> {
        let errs = self.run(py, doc)?;
        let ok = errs.is_empty();
        *self.log.lock().map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("poisoned"))? = errs;
        Ok(ok)
    }

    /// Same as `validate`.
    fn __call__(&self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.validate(py, doc)
    }

    /// Raises `DocumentInvalid` (with the first error's message) when `doc` is invalid.
    #[pyo3(name = "assertValid")]
    fn assert_valid(&self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<()> {
        if self.validate(py, doc)? {
            return Ok(());
        }
        let log = self.log.lock().map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("poisoned"))?;
        let first = log.first().map(|e| e.get().__str__()).unwrap_or_default();
        Err(DocumentInvalid::new_err(first))
    }

    /// lxml's `assert_`: raises `AssertionError` (with the first error) when `doc` is invalid.
    fn assert_(&self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<()> {
        let errs = self.run(py, doc)?;
        match errs.first() {
            None => Ok(()),
            Some(e) => Err(pyo3::exceptions::PyAssertionError::new_err(e.get().__str__())),
        }
    }

    /// `True` if `doc` is valid (does not touch `error_log`).
    fn is_valid(&self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.run(py, doc)?.is_empty())
    }

    /// Every error of `doc`, as a list (xmlschema's `iter_errors`).
    fn iter_errors(&self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Vec<Py<SchemaValidationError>>> {
        self.run(py, doc)
    }

    /// The errors of the last `validate` / `assertValid` call.
    #[getter]
    fn error_log(&self, py: Python<'_>) -> PyResult<Vec<Py<SchemaValidationError>>> {
        let log = self.log.lock().map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("poisoned"))?;
        Ok(log.iter().map(|e| e.clone_ref(py)).collect())
    }
}

/// Adds the classes and exceptions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<XMLSchema>()?;
    m.add_class::<SchemaValidationError>()?;
    m.add("XMLSchemaParseError", m.py().get_type::<XMLSchemaParseError>())?;
    m.add("DocumentInvalid", m.py().get_type::<DocumentInvalid>())?;
    Ok(())
}
