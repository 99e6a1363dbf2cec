//! Python bindings for vtdx: the private extension module `vtdx._vtdx`.
//!
//! The public package is `python/vtdx` (re-exports with `__all__`, type stubs in
//! `_vtdx.pyi`). The API follows lxml and ElementTree where the concept is the same:
//! `parse`, `fromstring`, `Element.tag/attrib/text/tail/find/xpath`, `XPath`,
//! `tostring`, `XMLSyntaxError`.
//!
//! ## Ownership and threads
//!
//! A pyclass cannot borrow, so a parsed document owns its bytes
//! (`vtdx::Document<'static>`) and lives in an `Arc` ([`document::DocInner`]);
//! every `Element` is that `Arc` plus a `NodeId`, resolved on each call. All
//! classes are `frozen` and `Send + Sync`, so the module declares free-threading
//! support. Parsing, XPath evaluation, editing output and canonicalization of
//! documents of [`DETACH_BYTES`] or more run detached from the interpreter.

#![deny(unsafe_code)]

mod binary;
mod c14n;
mod compile_cache;
mod document;
mod dsig;
mod editor;
mod element;
mod elementpath;
mod errors;
mod names;
mod parse;
mod schema;
mod xmlenc;
mod xpath;

use pyo3::prelude::*;

/// Documents at least this large are parsed, queried and written with the
/// interpreter released (smaller ones finish before a thread switch would pay off).
pub(crate) const DETACH_BYTES: usize = 32 * 1024;

/// Runs `f` detached from the interpreter when `big`, attached otherwise.
#[inline]
pub(crate) fn maybe_detach<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, big: bool, f: F) -> T {
    if big {
        py.detach(f)
    } else {
        f()
    }
}

/// Takes a new object of one of this module's classes out of the cycle collector's
/// sight. PyO3 makes every class a GC type, but ours hold no Python references
/// (only `Arc<DocInner>`, node ids and strings), so they can never be part of a
/// reference cycle; untracked, the collector does not walk the thousands of
/// elements an XPath result makes (a third of the time of `//item` otherwise).
/// Also used for new smart strings (`xpath::smart`), whose two slots hold an
/// `_Origins` table and an int: nothing that can lead back to them.
/// PERF: `bench/python/bench_py.py` (xpath on po_big).
#[allow(unsafe_code)]
#[inline]
pub(crate) fn untrack<T>(obj: &Bound<'_, T>) {
    // SAFETY: `obj` is alive (we hold a reference) and its type is a GC type, for
    // which `PyObject_GC_UnTrack` is always allowed; it is also allowed on an
    // object that is already untracked (PyO3's `tp_dealloc` untracks again). Objects
    // of our classes reference no Python objects, and smart strings only such an
    // object and an int, so no cycle can go through them.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) }
}

#[pymodule(gil_used = false)]
fn _vtdx(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<document::Document>()?;
    m.add_class::<element::Element>()?;
    m.add_class::<element::Comment>()?;
    m.add_class::<element::ProcessingInstruction>()?;
    m.add_class::<element::Attrib>()?;
    m.add_class::<element::NodeIterator>()?;
    m.add_class::<parse::XMLParser>()?;
    m.add_class::<xpath::XPath>()?;
    m.add_class::<editor::Editor>()?;
    xpath::register(m)?;
    dsig::register(m)?;
    xmlenc::register(m)?;
    schema::register(m)?;
    m.add_function(wrap_pyfunction!(parse::parse, m)?)?;
    m.add_function(wrap_pyfunction!(parse::fromstring, m)?)?;
    m.add_function(wrap_pyfunction!(parse::xml_, m)?)?;
    m.add_function(wrap_pyfunction!(c14n::tostring, m)?)?;
    m.add_function(wrap_pyfunction!(c14n::canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(element::iselement, m)?)?;
    m.add_function(wrap_pyfunction!(binary::pack, m)?)?;
    m.add_function(wrap_pyfunction!(binary::unpack, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
