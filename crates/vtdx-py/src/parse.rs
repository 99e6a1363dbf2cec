//! `parse`, `fromstring`, `XML` and `XMLParser`: inputs, options and limits.
//!
//! A file given by name is memory-mapped when it is a regular file of
//! [`MMAP_MIN_BYTES`] or more, and parsed where it lies; smaller files, other
//! files and file objects are read into one buffer the document owns.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};
use vtdx::{ExternalPolicy, ParseOptions, Parser};

use crate::document::{DocInner, DocRef, Document};
use crate::element::wrap_node;
use crate::errors;

/// The options of a parse given no keywords: the core's defaults, except that
/// attributes defaulted by the internal subset stay off the attribute axis, as
/// lxml's ``XMLParser(attribute_defaults=False)`` leaves them (defaulted namespace
/// declarations still bind; canonicalization still outputs the defaults).
pub(crate) fn default_options() -> ParseOptions {
    ParseOptions::default().attribute_defaults(false)
}

thread_local! {
    /// The parser for [`default_options`] on this thread: it keeps its name tables
    /// and scratch state between documents, as the core's per-thread parser does
    /// for the core's defaults (which differ from Python's in `attribute_defaults`).
    static THREAD_PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's parser for [`default_options`], taken out of its
/// slot for the call (a parse inside a parse on the same thread finds the slot
/// empty and uses a new parser).
fn with_thread_parser<T>(f: impl FnOnce(&mut Parser) -> T) -> T {
    let mut parser =
        THREAD_PARSER.try_with(|c| c.borrow_mut().take()).ok().flatten().unwrap_or_else(|| Parser::with_options(default_options()));
    let r = f(&mut parser);
    let _ = THREAD_PARSER.try_with(|c| *c.borrow_mut() = Some(parser));
    r
}

/// Builds parse options from keyword arguments (all optional, safe defaults:
/// [`default_options`]).
pub(crate) fn options_from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<ParseOptions> {
    let mut o = default_options();
    let Some(kw) = kwargs else { return Ok(o) };
    // huge_tree first, so explicit limits given with it win
    if let Some(v) = kw.get_item("huge_tree")? {
        if v.is_truthy()? {
            o.limits.max_depth = u32::MAX;
            o.limits.max_name_len = u32::MAX;
            o.limits.max_attributes = u32::MAX;
            o.limits.max_entity_expansion_bytes = u32::MAX as u64;
        }
    }
    // `forbid_external` and `external_entities` are read together, after the loop
    let mut forbid_external: Option<bool> = None;
    let mut refs_error: Option<bool> = None;
    for (k, v) in kw.iter() {
        let key: String = k.extract()?;
        if v.is_none() {
            continue;
        }
        match key.as_str() {
            "huge_tree" => {}
            "max_depth" => o.limits.max_depth = v.extract()?,
            "max_attributes" => o.limits.max_attributes = v.extract()?,
            "max_name_len" => o.limits.max_name_len = v.extract()?,
            "max_document_size" => o.limits.max_document_size = v.extract()?,
            "max_entity_expansion_bytes" => o.limits.max_entity_expansion_bytes = v.extract()?,
            "max_entity_amplification" => o.limits.max_entity_amplification = v.extract()?,
            "max_entity_depth" => o.limits.max_entity_depth = v.extract()?,
            "namespaces" => o.namespaces = v.is_truthy()?,
            "attribute_defaults" => o.attribute_defaults = v.is_truthy()?,
            "forbid_external" => forbid_external = Some(v.is_truthy()?),
            "external_entities" => {
                let s: String = v.extract()?;
                refs_error = Some(match s.as_str() {
                    "skip" => false,
                    "error" => true,
                    _ => return Err(PyValueError::new_err("external_entities must be 'skip' or 'error'")),
                });
            }
            // lxml options whose only value vtdx supports is the one it always has
            "resolve_entities" | "no_network" => {
                if !v.is_truthy()? {
                    return Err(PyValueError::new_err(format!(
                        "{key}=False is not supported: vtdx always expands internal entities and never fetches anything"
                    )));
                }
            }
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected parse option {key:?} (supported: huge_tree, namespaces, attribute_defaults, \
                     forbid_external, external_entities, max_depth, max_attributes, max_name_len, max_document_size, \
                     max_entity_expansion_bytes, max_entity_amplification, max_entity_depth)"
                )))
            }
        }
    }
    o.external = external_policy(forbid_external, refs_error)?;
    Ok(o)
}

/// The policy for `forbid_external` and `external_entities` (`Some(true)`: `'error'`).
///
/// `forbid_external` (default True) refuses every external identifier. With
/// `forbid_external=False`, `external_entities` says what a reference to an external
/// entity in content does: `'skip'` (the default; it reads as nothing) or `'error'`.
/// Given without `forbid_external`, `external_entities='skip'` implies
/// `forbid_external=False` (it asks for external entities to be read as nothing),
/// while `'error'` leaves it True, which already refuses every external entity: a
/// stricter setting never accepts more than the default. `forbid_external=True`
/// with `external_entities='skip'` contradicts itself and is refused.
fn external_policy(forbid_external: Option<bool>, refs_error: Option<bool>) -> PyResult<ExternalPolicy> {
    Ok(match (forbid_external, refs_error) {
        (Some(true), Some(false)) => {
            return Err(PyValueError::new_err(
                "forbid_external=True refuses external entities, external_entities='skip' reads them as \
                 nothing: pass forbid_external=False to skip them",
            ))
        }
        (Some(true) | None, None | Some(true)) => ExternalPolicy::Forbid,
        (Some(false) | None, Some(false)) | (Some(false), None) => ExternalPolicy::Ignore,
        (Some(false), Some(true)) => ExternalPolicy::RejectReferences,
    })
}

/// A reusable parser with fixed options, like lxml's ``XMLParser``: pass it as
/// ``parser=`` to :func:`parse` or :func:`fromstring`. Reusing one parser keeps its
/// allocations and name tables between documents, which speeds up many small
/// documents. Safe to share between threads (parses through one parser take turns).
#[pyclass(frozen, module = "vtdx", name = "XMLParser")]
pub struct XMLParser {
    opts: ParseOptions,
    parser: Mutex<Parser>,
    /// With ``template_cache=True``: the templates of earlier messages.
    cache: Option<std::sync::Arc<vtdx::core::TemplateCache>>,
}

#[pymethods]
impl XMLParser {
    /// Keyword-only options, all with safe defaults:
    ///
    /// * ``huge_tree`` (False): lift the depth, name-length, attribute-count and
    ///   entity-expansion limits (the amplification limit stays);
    /// * ``max_depth`` (1024), ``max_attributes`` (10000), ``max_name_len`` (50000),
    ///   ``max_document_size`` (4 GiB - 1), ``max_entity_expansion_bytes`` (10 MiB),
    ///   ``max_entity_amplification`` (20), ``max_entity_depth`` (32);
    /// * ``namespaces`` (True): apply Namespaces in XML;
    /// * ``attribute_defaults`` (False, as lxml's): with True, the attributes that
    ///   ``<!ATTLIST>`` declarations of the internal subset default (``CDATA "v"``,
    ///   ``#FIXED "v"``) are attributes of the elements that do not specify them:
    ///   ``attrib``, ``get()``, ``keys()``, ``items()`` and XPath (``@x``, ``@*``)
    ///   see them. Either way, defaulted namespace declarations (``xmlns``,
    ///   ``xmlns:p``) bind, and canonicalization outputs the defaults (the C14N
    ///   specs require it);
    /// * ``forbid_external`` (True, as defusedxml's): refuse a document whose DOCTYPE
    ///   names anything external (an external DTD subset, an external entity, an
    ///   unparsed entity) with :class:`XMLSyntaxError` of ``kind``
    ///   ``'external_reference'``. With False the document is read without it;
    /// * ``external_entities`` (``'skip'``), with ``forbid_external=False``: what a
    ///   reference to an external entity in content does: read as nothing, or
    ///   ``'error'``. ``'skip'`` alone implies ``forbid_external=False``; ``'error'``
    ///   alone leaves ``forbid_external`` True;
    /// * ``template_cache`` (False): match each message against the templates of
    ///   earlier messages with the same structure before parsing it
    ///   (``docs/template-cache.md``): the same trees and errors, faster on
    ///   streams of similar messages; :meth:`template_stats` gives the counters.
    ///
    /// Nothing external is ever fetched or opened, whatever the options.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut cache = None;
        if let Some(kw) = options {
            if let Some(v) = kw.get_item("template_cache")? {
                if v.is_truthy()? {
                    cache = Some(std::sync::Arc::new(vtdx::core::TemplateCache::new()));
                }
                kw.del_item("template_cache")?;
            }
        }
        let opts = options_from_kwargs(options)?;
        let mut parser = Parser::with_options(opts.clone());
        parser.set_template_cache(cache.clone());
        Ok(XMLParser { parser: Mutex::new(parser), opts, cache })
    }

    /// The template cache's counters (``hits``, ``misses``, ``bytes_matched``,
    /// ``learned``, ``evicted``, ``templates``, ``bytes``, ``max_bytes``), or None
    /// without ``template_cache=True``.
    fn template_stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(c) = &self.cache else { return Ok(None) };
        let s = c.stats();
        let d = PyDict::new(py);
        d.set_item("hits", s.hits)?;
        d.set_item("misses", s.misses)?;
        d.set_item("bytes_matched", s.bytes_matched)?;
        d.set_item("learned", s.learned)?;
        d.set_item("evicted", s.evicted)?;
        d.set_item("templates", s.templates)?;
        d.set_item("bytes", s.bytes)?;
        d.set_item("max_bytes", s.max_bytes)?;
        Ok(Some(d))
    }

    /// Parses a source (see :func:`vtdx.parse`) into a :class:`Document`.
    fn parse(&self, py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Document> {
        let (src, filename) = source_of(py, source, true)?;
        Ok(Document { inner: self.parse_source(py, src, filename)? })
    }

    /// Parses XML text and returns the root element.
    fn fromstring<'py>(&self, py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let (data, _) = read_source(py, text, false)?;
        let doc = self.parse_vec(py, data, None)?;
        wrap_node(py, &doc, doc.doc.root_element())
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.XMLParser {:?} template_cache={}>", self.opts, self.cache.is_some())
    }
}

impl XMLParser {
    fn parse_vec(&self, py: Python<'_>, data: Vec<u8>, filename: Option<String>) -> PyResult<DocRef> {
        self.parse_source(py, Source::Bytes(data), filename)
    }

    fn parse_source(&self, py: Python<'_>, src: Source, filename: Option<String>) -> PyResult<DocRef> {
        let (load, size) = load(py, src)?;
        let res = crate::maybe_detach(py, size >= crate::DETACH_BYTES as u64, || {
            let mut p = self.parser.lock().unwrap_or_else(|e| e.into_inner());
            load.parse_with(&mut p)
        });
        finish(py, res, filename)
    }
}

/// Files given by name at least this large are memory-mapped; smaller ones are
/// read, which costs less than setting up and tearing down a map.
pub(crate) const MMAP_MIN_BYTES: u64 = 64 * 1024;

/// What to parse: bytes, or a file given by name.
pub(crate) enum Source {
    Bytes(Vec<u8>),
    Path(String),
}

/// What a parser gets: bytes it will own, or a regular file to map.
enum Load {
    Read(Vec<u8>),
    Map(PathBuf),
}

impl Load {
    /// Parses with `p`; a file that cannot be mapped is read instead.
    fn parse_with(self, p: &mut Parser) -> std::io::Result<Result<vtdx::Document<'static>, vtdx::Error>> {
        match self {
            Load::Read(v) => Ok(p.parse_owned(v)),
            // SAFETY: `parse_file_mmap` needs the file unchanged while the document lives.
            // `vtdx.parse`'s docstring and `docs/security.md` state this for Python callers,
            // who pass bytes or an open file object for files other programs may be writing.
            #[allow(unsafe_code)]
            Load::Map(path) => match unsafe { p.parse_file_mmap(&path) } {
                Ok(r) => Ok(r),
                Err(_) => Ok(p.parse_owned(std::fs::read(&path)?)),
            },
        }
    }
}

/// Decides how `src` reaches the parser, reading small and irregular files (with
/// the interpreter released). Returns the size in bytes too.
fn load(py: Python<'_>, src: Source) -> PyResult<(Load, u64)> {
    match src {
        Source::Bytes(v) => {
            let n = v.len() as u64;
            Ok((Load::Read(v), n))
        }
        Source::Path(path) => {
            let r = py.detach(|| -> std::io::Result<(Load, u64)> {
                let meta = std::fs::metadata(&path)?;
                if meta.is_file() && meta.len() >= MMAP_MIN_BYTES {
                    return Ok((Load::Map(PathBuf::from(&path)), meta.len()));
                }
                let v = std::fs::read(&path)?;
                let n = v.len() as u64;
                Ok((Load::Read(v), n))
            });
            r.map_err(|e| io_error(e, path))
        }
    }
}

/// A parse result as a document or the Python error.
fn finish(
    py: Python<'_>,
    res: std::io::Result<Result<vtdx::Document<'static>, vtdx::Error>>,
    filename: Option<String>,
) -> PyResult<DocRef> {
    match res {
        Ok(Ok(doc)) => Ok(DocInner::new(doc, filename)),
        Ok(Err(e)) => Err(errors::syntax_error(py, &e, filename.as_deref().or(Some("<string>")))),
        Err(e) => Err(io_error(e, filename.unwrap_or_default())),
    }
}

/// Parses with `opts`: with [`default_options`] through this thread's parser for
/// them, else with a fresh parser.
pub(crate) fn parse_vec(py: Python<'_>, data: Vec<u8>, opts: &ParseOptions, filename: Option<String>) -> PyResult<DocRef> {
    parse_source(py, Source::Bytes(data), opts, filename)
}

/// Parses bytes or a file with `opts`: bytes with [`default_options`] through this
/// thread's parser for them; a mapped file, or other options, with a fresh parser.
fn parse_source(py: Python<'_>, src: Source, opts: &ParseOptions, filename: Option<String>) -> PyResult<DocRef> {
    let (load, size) = load(py, src)?;
    let default = *opts == default_options();
    let res = crate::maybe_detach(py, size >= crate::DETACH_BYTES as u64, || match load {
        Load::Read(v) if default => Ok(with_thread_parser(|p| p.parse_owned(v))),
        load => load.parse_with(&mut Parser::with_options(opts.clone())),
    });
    finish(py, res, filename)
}

/// True when `s` (after leading white space) starts like XML rather than a file name.
fn looks_like_xml(s: &str) -> bool {
    let t = s.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    t.starts_with('<')
}

/// XML text given as `str` is encoded as UTF-8, so a declaration naming another
/// encoding would be wrong: refuse it, as lxml does.
fn check_str_declaration(s: &str) -> PyResult<()> {
    let t = s.trim_start_matches('\u{feff}');
    if let Some(rest) = t.strip_prefix("<?xml") {
        let decl = &rest[..rest.find("?>").unwrap_or(rest.len())];
        if let Some(p) = decl.find("encoding") {
            let after = decl[p + 8..].trim_start().strip_prefix('=').unwrap_or("").trim_start();
            let q = after.chars().next().unwrap_or('"');
            let val = after.get(1..).and_then(|v| v.split(q).next()).unwrap_or("");
            let v = val.to_ascii_lowercase();
            if v != "utf-8" && v != "utf8" {
                return Err(PyValueError::new_err(format!(
                    "str input with an encoding declaration ({val:?}) is not supported: pass bytes, or XML text without the declaration"
                )));
            }
        }
    }
    Ok(())
}

/// The bytes of a source: `bytes`/`bytearray`/`memoryview` (XML), `str` (XML text if
/// it starts with `<`, else a file name, when `allow_path`), `os.PathLike`, or a file
/// object with `read()`. Returns the file name when one was read.
pub(crate) fn read_source(py: Python<'_>, source: &Bound<'_, PyAny>, allow_path: bool) -> PyResult<(Vec<u8>, Option<String>)> {
    match source_of(py, source, allow_path)? {
        (Source::Bytes(v), name) => Ok((v, name)),
        (Source::Path(p), _) => {
            let data = py.detach(|| std::fs::read(&p));
            match data {
                Ok(d) => Ok((d, Some(p))),
                Err(e) => Err(io_error(e, p)),
            }
        }
    }
}

/// Like [`read_source`], but a file name is left for the parser to map or read.
/// Returns the file name when there is one.
fn source_of(py: Python<'_>, source: &Bound<'_, PyAny>, allow_path: bool) -> PyResult<(Source, Option<String>)> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return Ok((Source::Bytes(b.as_bytes().to_vec()), None));
    }
    if let Ok(s) = source.cast::<PyString>() {
        let s = s.to_cow()?.into_owned();
        if !allow_path || looks_like_xml(&s) {
            check_str_declaration(&s)?;
            return Ok((Source::Bytes(s.into_bytes()), None));
        }
        return Ok((Source::Path(s.clone()), Some(s)));
    }
    if let Ok(b) = source.cast::<PyByteArray>() {
        return Ok((Source::Bytes(b.to_vec()), None));
    }
    if source.hasattr("read")? {
        let data = source.call_method0("read")?;
        let name = source.getattr("name").ok().and_then(|n| n.extract::<String>().ok());
        if let Ok(s) = data.cast::<PyString>() {
            let s = s.to_cow()?.into_owned();
            check_str_declaration(&s)?;
            return Ok((Source::Bytes(s.into_bytes()), name));
        }
        let (v, _) = read_source(py, &data, false)?;
        return Ok((Source::Bytes(v), name));
    }
    if allow_path && source.hasattr("__fspath__")? {
        let os = py.import("os")?;
        let p = os.call_method1("fspath", (source,))?;
        let p: String = match p.cast::<PyBytes>() {
            Ok(b) => String::from_utf8_lossy(b.as_bytes()).into_owned(),
            Err(_) => p.extract()?,
        };
        return Ok((Source::Path(p.clone()), Some(p)));
    }
    // memoryview and other objects with the buffer protocol
    if let Ok(mv) = py.get_type::<pyo3::types::PyMemoryView>().call1((source,)) {
        if let Ok(b) = py.get_type::<PyBytes>().call1((mv,)) {
            if let Ok(b) = b.cast::<PyBytes>() {
                return Ok((Source::Bytes(b.as_bytes().to_vec()), None));
            }
        }
    }
    Err(PyTypeError::new_err(format!("cannot parse from {}: expected bytes, str, os.PathLike or a file object", source.get_type().name()?)))
}

/// An I/O error on `path` as Python's `OSError` (`FileNotFoundError` when missing).
fn io_error(e: std::io::Error, path: String) -> PyErr {
    if e.kind() == std::io::ErrorKind::NotFound {
        return pyo3::exceptions::PyFileNotFoundError::new_err((2, "No such file or directory", path));
    }
    pyo3::exceptions::PyOSError::new_err((e.raw_os_error().unwrap_or(0), e.to_string(), path))
}

/// Parses what `source` gives with `parser`, or with the parse options given as
/// keywords (not both; the options are checked before `source` is called).
fn parse_given(
    py: Python<'_>,
    parser: Option<&Bound<'_, XMLParser>>,
    options: Option<&Bound<'_, PyDict>>,
    source: impl FnOnce() -> PyResult<(Source, Option<String>)>,
) -> PyResult<DocRef> {
    let opts = match (parser, options) {
        (Some(_), Some(o)) if !o.is_empty() => return Err(PyTypeError::new_err("pass either parser= or parse options, not both")),
        (Some(_), _) => None,
        (None, o) => Some(options_from_kwargs(o)?),
    };
    let (src, filename) = source()?;
    match (parser, opts) {
        (Some(p), _) => p.get().parse_source(py, src, filename),
        (None, Some(o)) => parse_source(py, src, &o, filename),
        (None, None) => unreachable!(),
    }
}

/// Parses a document, like ``lxml.etree.parse``.
///
/// ``source`` is XML as ``bytes``/``bytearray``/``memoryview``; a file name
/// (``str`` or ``os.PathLike``; a ``str`` that starts with ``<`` is taken as XML
/// text); or a file object opened in binary mode. Options are keyword-only (see
/// :class:`XMLParser`). Raises :class:`XMLSyntaxError` when the input is not
/// well-formed. The interpreter is released while large inputs are parsed.
///
/// A file name of a regular file of 64 KiB or more is memory-mapped, not read: the
/// document then refers to the file's pages, so the file must not be truncated or
/// rewritten in place while the document or any of its elements is alive (replace
/// it by renaming a new file over it, or parse a file object, which is read).
#[pyfunction]
#[pyo3(signature = (source, parser=None, **options))]
pub(crate) fn parse(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    parser: Option<&Bound<'_, XMLParser>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Document> {
    let inner = parse_given(py, parser, options, || source_of(py, source, true))?;
    Ok(Document { inner })
}

/// Parses XML text (``bytes`` or ``str``) and returns the root :class:`Element`,
/// like ``lxml.etree.fromstring``. ``element.getroottree()`` gives the document.
#[pyfunction]
#[pyo3(signature = (text, parser=None, **options))]
pub(crate) fn fromstring<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    parser: Option<&Bound<'py, XMLParser>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = parse_given(py, parser, options, || Ok((Source::Bytes(read_source(py, text, false)?.0), None)))?;
    wrap_node(py, &doc, doc.doc.root_element())
}

/// The same as :func:`fromstring` (lxml's ``XML()``).
#[pyfunction]
#[pyo3(name = "XML", signature = (text, parser=None, **options))]
pub(crate) fn xml_<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    parser: Option<&Bound<'py, XMLParser>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    fromstring(py, text, parser, options)
}
