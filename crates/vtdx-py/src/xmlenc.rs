//! XML Encryption for Python (`vtdx.xmlenc`): [`Encryptor`] and [`Decryptor`] over
//! `vtdx::dsig::enc`.
//!
//! The functions `encrypt` / `decrypt`, the algorithm enums and the key handling
//! (PEM / DER / `cryptography` objects) are Python, in `python/vtdx/xmlenc.py`; this
//! module is the engine they call. Keys arrive as bytes and are read here.
//!
//! ```text
//! VtdxError(Exception)
//! └── XMLEncryptionError(VtdxError, ValueError)  a message that is not XML Encryption as it should be, a limit
//!     ├── DecryptionError                        every cryptographic failure: one message, no position
//!     └── InvalidInput                           the caller's key, algorithm, XPath or target cannot be used
//! ```
//!
//! All carry `kind` (a stable identifier such as `'malformed'`), `msg`,
//! `byte_offset` and `position` (line, column) where the error is about a place in
//! the document; [`DecryptionError`] never has a position and its message is
//! always `decryption failed`, whatever went wrong (wrong key, bad tag, bad
//! padding, an algorithm refused, a `CipherReference`...), so that it is no oracle.
//!
//! Encryption and decryption run detached from the interpreter.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyString, PyType};
use vtdx::dsig::enc::{self, EncError, EncErrorKind as K};
use vtdx::NodeId;

use crate::document::{DocRef, Document};
use crate::dsig::raise;
use crate::element::Element;

// ---- exceptions -------------------------------------------------------------------

struct EncExceptions {
    base: Py<PyType>,
    decryption: Py<PyType>,
    invalid_input: Py<PyType>,
}

static EXCEPTIONS: PyOnceLock<EncExceptions> = PyOnceLock::new();

fn make_type(py: Python<'_>, name: &str, bases: Vec<Bound<'_, PyAny>>, doc: &str) -> PyResult<Py<PyType>> {
    crate::errors::exception_type(py, "vtdx.xmlenc", name, bases, doc)
}

fn exceptions(py: Python<'_>) -> PyResult<&EncExceptions> {
    EXCEPTIONS.get_or_try_init(py, || {
        let vtdx_base = crate::errors::exceptions(py)?.base.bind(py).clone().into_any();
        let val = py.get_type::<PyValueError>().into_any();
        let base = make_type(
            py,
            "XMLEncryptionError",
            vec![vtdx_base, val],
            "Base class of the XML Encryption errors, and the error of a message whose\n\
             encryption structures are not as XML Encryption writes them (a missing\n\
             ``CipherData``, a ``DataReference`` to nothing, bad base64: ``kind``\n\
             ``'malformed'``), that holds nothing encrypted (``'nothing_encrypted'``), refers\n\
             outside the document (``'external_reference'``), encrypts non-XML data below the\n\
             document element (``'not_xml'``) or exceeds a limit (``'limit'``). A ``ValueError``.\n\n\
             ``kind`` is a stable identifier, ``msg`` the message; ``byte_offset`` and\n\
             ``position`` (line, column) say where in the document, when there is a place.",
        )?;
        let b = base.bind(py).clone().into_any();
        let decryption = make_type(
            py,
            "DecryptionError",
            vec![b.clone()],
            "Decryption failed: the one error of every cryptographic failure (a wrong key, no\n\
             key of the caller that fits, a bad GCM tag, bad CBC padding, a failed RSA\n\
             decryption, an algorithm refused (legacy) or not offered, a ``CipherReference``,\n\
             a plaintext that is not well-formed where it lands). The message is always\n\
             ``decryption failed``, ``kind`` is ``'decryption_failed'`` and there is no\n\
             position, so that the error tells an attacker nothing.",
        )?;
        let invalid_input = make_type(
            py,
            "InvalidInput",
            vec![b],
            "The caller's input cannot be used: a key that cannot be read or does not fit\n\
             (``kind`` ``'key'``), an unknown or refused algorithm (``'algorithm'``), an XPath that\n\
             does not compile or selects nothing (``'xpath'``), targets that cannot be encrypted\n\
             as asked (``'encrypt'``), a document that is not SOAP for WS-Security encryption\n\
             (``'not_soap'``).",
        )?;
        Ok(EncExceptions { base, decryption, invalid_input })
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let e = exceptions(py)?;
    m.add("XMLEncryptionError", e.base.bind(py))?;
    m.add("DecryptionError", e.decryption.bind(py))?;
    m.add("InvalidEncryptionInput", e.invalid_input.bind(py))?;
    m.add_class::<Encryptor>()?;
    m.add_class::<Decryptor>()?;
    Ok(())
}

/// The stable identifier of an error kind and whether it is the caller's fault.
fn kind_id(k: &K) -> (&'static str, bool) {
    match k {
        K::DecryptionFailed => ("decryption_failed", false),
        K::NothingEncrypted => ("nothing_encrypted", false),
        K::Malformed(_) => ("malformed", false),
        K::Limit { .. } => ("limit", false),
        K::ExternalReference(_) => ("external_reference", false),
        K::NotXml(_) => ("not_xml", false),
        K::Xml(_) => ("xml", false),
        K::Edit(_) => ("edit", false),
        K::Key(_) => ("key", true),
        K::NotSoap => ("not_soap", true),
        K::XPath(_) => ("xpath", true),
        K::Encrypt(_) => ("encrypt", true),
        _ => ("other", false),
    }
}

/// The Python exception of an encryption error; `text` locates its offset.
fn enc_error(py: Python<'_>, e: &EncError, text: Option<&[u8]>) -> PyErr {
    let ex = match exceptions(py) {
        Ok(x) => x,
        Err(err) => return err,
    };
    if e.is_decryption_failure() {
        // the uniform failure: one message, no position, whatever happened
        return raise(py, &ex.decryption, "decryption_failed", "decryption failed".into(), None, None);
    }
    let (kind, caller) = kind_id(e.kind());
    let t = if caller { &ex.invalid_input } else { &ex.base };
    raise(py, t, kind, e.kind().to_string(), e.offset(), text)
}

/// `InvalidInput` of `kind` with no position.
fn invalid_input(py: Python<'_>, kind: &str, msg: impl Into<String>) -> PyErr {
    match exceptions(py) {
        Ok(ex) => raise(py, &ex.invalid_input, kind, msg.into(), None, None),
        Err(err) => err,
    }
}

// ---- inputs -------------------------------------------------------------------------

/// The document of a source: a `Document` or an `Element` (its whole document), else
/// XML as `bytes`/`str`/buffer, parsed with the default (safe) options.
fn document_of(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<DocRef> {
    if let Ok(d) = data.cast::<Document>() {
        return Ok(d.get().inner.clone());
    }
    if let Ok(e) = data.cast::<Element>() {
        return Ok(e.get().doc.clone());
    }
    let known = data.is_instance_of::<PyBytes>() || data.is_instance_of::<PyString>() || data.is_instance_of::<PyByteArray>();
    match crate::parse::read_source(py, data, false) {
        Ok((v, _)) => crate::parse::parse_vec(py, v, &crate::parse::default_options(), None),
        Err(e) if known => Err(e),
        Err(_) => Err(PyTypeError::new_err(format!(
            "expected XML as bytes or str, a vtdx.Document or a vtdx.Element, not {}",
            data.get_type().name()?
        ))),
    }
}

/// What to encrypt: an element of the document, or the elements an XPath selects.
enum Target {
    Node(NodeId),
    XPath(String),
}

fn targets_of(py: Python<'_>, doc: &DocRef, targets: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Target>>> {
    let Some(t) = targets else { return Ok(None) };
    let one = |item: &Bound<'_, PyAny>| -> PyResult<Target> {
        if let Ok(s) = item.cast::<PyString>() {
            return Ok(Target::XPath(s.to_cow()?.into_owned()));
        }
        if let Ok(e) = item.cast::<Element>() {
            let e = e.get();
            if !Arc::ptr_eq(&e.doc, doc) {
                return Err(invalid_input(py, "encrypt", "a target element belongs to another document than the one encrypted"));
            }
            if !e.node().is_element() {
                return Err(invalid_input(py, "encrypt", "a target is not an element (a comment or processing instruction)"));
            }
            return Ok(Target::Node(e.id));
        }
        Err(PyTypeError::new_err(format!("a target is an XPath expression (str) or a vtdx.Element, not {}", item.get_type().name()?)))
    };
    if t.is_instance_of::<PyString>() || t.is_instance_of::<Element>() {
        return Ok(Some(vec![one(t)?]));
    }
    let mut out = Vec::new();
    for item in t.try_iter()? {
        out.push(one(&item?)?);
    }
    Ok(Some(out))
}

/// A failure while encrypting: of the engine, or of an XPath selecting targets.
enum Failure {
    Enc(EncError),
    Select(String),
}

fn resolve<'d>(doc: &'d vtdx::Document<'static>, targets: &[Target]) -> Result<Vec<vtdx::Node<'d>>, Failure> {
    let mut out = Vec::new();
    for t in targets {
        match t {
            Target::Node(id) => out.push(doc.node(*id).ok_or_else(|| Failure::Select("a target element is not in the document".into()))?),
            Target::XPath(x) => {
                out.extend(vtdx::dsig::select_elements(doc, x).map_err(|e| Failure::Select(format!("`{x}`: {}", e.kind())))?)
            }
        }
    }
    Ok(out)
}

fn finish<'py>(py: Python<'py>, doc: &DocRef, r: Result<Vec<u8>, Failure>) -> PyResult<Bound<'py, PyBytes>> {
    match r {
        Ok(v) => Ok(PyBytes::new(py, &v)),
        Err(Failure::Enc(e)) => Err(enc_error(py, &e, Some(doc.doc.text()))),
        Err(Failure::Select(m)) => Err(invalid_input(py, "xpath", m)),
    }
}

// ---- Encryptor ----------------------------------------------------------------------

/// The engine of :func:`vtdx.xmlenc.encrypt`: the recipient's key and how to encrypt,
/// read once, then any number of documents encrypted (safe to share between threads).
///
/// ``key`` is read according to ``kind``: ``'rsa'`` a certificate or RSA public key
/// as PEM or DER (a certificate, ``PUBLIC KEY``, ``RSA PUBLIC KEY`` or the public half
/// of a private key): each session key is transported with RSA-OAEP; ``'key_wrap'`` an
/// AES key-encryption key of 16, 24 or 32 bytes: each session key is wrapped with
/// AES-KW; ``'direct'`` an AES key used as the data key itself (no ``EncryptedKey``).
/// ``key_name`` is written as ``ds:KeyName``. ``algorithm`` is the block algorithm
/// (a URI or ``'aes128-gcm'``, ``'aes192-gcm'``, ``'aes256-gcm'``; default
/// AES-256-GCM), ``key_transport`` the RSA transport (``'rsa-oaep-mgf1p'``, SHA-1, the
/// default, or ``'rsa-oaep'``, XML Encryption 1.1's with SHA-256 and MGF1-SHA-256; or
/// their URIs). ``recipient_info`` writes the certificate or key name that identifies
/// the recipient's key.
#[pyclass(frozen, module = "vtdx.xmlenc", name = "Encryptor")]
pub struct Encryptor {
    inner: Arc<enc::Encryptor>,
    algorithm: &'static str,
}

fn block_algorithm(py: Python<'_>, a: &str) -> PyResult<enc::BlockAlgorithm> {
    let alg = enc::BlockAlgorithm::from_uri(a).or_else(|| enc::BlockAlgorithm::from_name(a.trim())).ok_or_else(|| {
        invalid_input(
            py,
            "algorithm",
            format!("unknown block encryption algorithm `{a}`: expected aes128-gcm, aes192-gcm or aes256-gcm (or its URI)"),
        )
    })?;
    if alg.is_legacy() {
        return Err(invalid_input(
            py,
            "algorithm",
            format!("{} is offered for decryption of legacy messages only; encrypt with AES-GCM", alg.name()),
        ));
    }
    Ok(alg)
}

fn key_transport(py: Python<'_>, t: &str) -> PyResult<enc::RsaTransport> {
    match t.trim() {
        "rsa-oaep-mgf1p" | enc::alg::RSA_OAEP_MGF1P => Ok(enc::RsaTransport::OaepMgf1pSha1),
        "rsa-oaep" | enc::alg::RSA_OAEP => Ok(enc::RsaTransport::OaepSha256),
        enc::alg::RSA_1_5 | "rsa-1_5" => {
            Err(invalid_input(py, "algorithm", "rsa-1_5 is offered for decryption of legacy messages only; encrypt with RSA-OAEP"))
        }
        other => Err(invalid_input(
            py,
            "algorithm",
            format!("unknown key transport `{other}`: expected rsa-oaep-mgf1p or rsa-oaep (or its URI)"),
        )),
    }
}

#[pymethods]
impl Encryptor {
    #[new]
    #[pyo3(signature = (key, *, kind="rsa", key_name=None, algorithm=None, key_transport=None, recipient_info=true))]
    fn new(
        py: Python<'_>,
        key: Vec<u8>,
        kind: &str,
        key_name: Option<String>,
        algorithm: Option<&str>,
        key_transport: Option<&str>,
        recipient_info: bool,
    ) -> PyResult<Self> {
        let err = |e: EncError| enc_error(py, &e, None);
        let mut k = match kind {
            "rsa" => enc::EncryptionKey::rsa_from_pem_or_der(&key).map_err(err)?,
            "key_wrap" => enc::EncryptionKey::aes_key_wrap(&key).map_err(err)?,
            "direct" => enc::EncryptionKey::aes_direct(&key).map_err(err)?,
            other => return Err(PyValueError::new_err(format!("kind must be 'rsa', 'key_wrap' or 'direct', not {other:?}"))),
        };
        if let Some(n) = key_name {
            k = k.with_name(n);
        }
        let mut cfg = enc::EncryptConfig::default().recipient_info(recipient_info);
        let mut uri = enc::BlockAlgorithm::AES256_GCM.uri();
        if let Some(a) = algorithm {
            let alg = block_algorithm(py, a)?;
            if kind == "direct" && alg.key_len() != key.len() {
                return Err(invalid_input(
                    py,
                    "key",
                    format!("{} needs a key of {} bytes, the direct key has {}", alg.name(), alg.key_len(), key.len()),
                ));
            }
            cfg = cfg.algorithm(alg);
            uri = alg.uri();
        } else if kind == "direct" {
            // a direct key decides the algorithm's key size: AES-GCM of its length
            let alg = enc::BlockAlgorithm::AesGcm(key.len());
            cfg = cfg.algorithm(alg);
            uri = alg.uri();
        }
        if let Some(t) = key_transport {
            cfg = cfg.rsa_transport(self::key_transport(py, t)?);
        }
        Ok(Encryptor { inner: Arc::new(enc::Encryptor::new(k, cfg)), algorithm: uri })
    }

    /// The block algorithm URI this encryptor writes.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.algorithm
    }

    /// Replaces each target (an XPath 1.0 expression, or a :class:`vtdx.Element` of
    /// ``data``; a list of them; ``None``: the document element) by an
    /// ``xenc:EncryptedData`` of ``Type`` Element, or its content with ``content=True``
    /// (``Type`` Content), each with its own session key. Prefixes in expressions: the
    /// document's own, and ``soap``, ``soap12``, ``wsse``, ``wsu``, ``ds`` where it does
    /// not bind them. Returns the encrypted document's bytes; every byte outside the
    /// encrypted parts is unchanged.
    #[pyo3(signature = (data, targets=None, *, content=false))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        targets: Option<&Bound<'py, PyAny>>,
        content: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let doc = document_of(py, data)?;
        let targets = targets_of(py, &doc, targets)?;
        let d: &DocRef = &doc;
        let e = &self.inner;
        let r = py.detach(|| {
            let nodes = match &targets {
                None => vec![d.doc.root_element()],
                Some(t) => resolve(&d.doc, t)?,
            };
            e.encrypt(&d.doc, &nodes, content).map_err(Failure::Enc)
        });
        finish(py, &doc, r)
    }

    /// WS-Security encryption of a SOAP 1.1 or 1.2 message: the Body's content
    /// (unless ``body=False``) as ``Type`` Content and each of ``targets`` (header
    /// blocks, a ``ds:Signature``...: XPath expressions or elements) as ``Type``
    /// Element, under one session key sent in an ``xenc:EncryptedKey`` with the
    /// ``ReferenceList``, prepended to the ``wsse:Security`` header (made, with
    /// ``mustUnderstand`` unless ``must_understand=False``, when missing).
    #[pyo3(signature = (data, targets=None, *, body=true, must_understand=true))]
    fn encrypt_wss<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        targets: Option<&Bound<'py, PyAny>>,
        body: bool,
        must_understand: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let doc = document_of(py, data)?;
        let targets = targets_of(py, &doc, targets)?;
        let d: &DocRef = &doc;
        let e = &self.inner;
        let opts = enc::WssEncryptOptions { body, must_understand };
        let r = py.detach(|| {
            let extra = resolve(&d.doc, targets.as_deref().unwrap_or_default())?;
            e.encrypt_wss(&d.doc, &opts, &extra).map_err(Failure::Enc)
        });
        finish(py, &doc, r)
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.xmlenc.Encryptor {:?}>", self.inner)
    }
}

// ---- Decryptor ----------------------------------------------------------------------

/// The engine of :func:`vtdx.xmlenc.decrypt`: the caller's keys and the decryption
/// policy, read once, then any number of documents decrypted (safe to share between
/// threads).
///
/// ``keys`` is a list of ``(kind, data, name)``: ``kind`` ``'rsa'`` for an unencrypted
/// RSA private key as PEM or DER (PKCS#8 or PKCS#1), ``'aes'`` for a secret AES key of
/// 16, 24 or 32 bytes (a key-encryption key for AES-KW, or the data key); ``name`` (or
/// ``None``) is matched by a ``ds:KeyName``. ``allow_legacy`` accepts AES-CBC and RSA
/// PKCS#1 v1.5 (off: they fail with :class:`DecryptionError`); ``max_parts``
/// (``EncryptedData`` per pass), ``max_cipher_bytes`` (characters of ``CipherValue``)
/// and ``max_depth`` (passes of nested encryption) are the limits;
/// ``remove_key_entries`` also removes the WS-Security header's ``EncryptedKey`` and
/// ``ReferenceList`` entries once their parts are decrypted.
#[pyclass(frozen, module = "vtdx.xmlenc", name = "Decryptor")]
pub struct Decryptor {
    inner: Arc<enc::Decryptor>,
}

#[pymethods]
impl Decryptor {
    #[new]
    #[pyo3(signature = (keys, *, allow_legacy=false, max_parts=256, max_cipher_bytes=268435456, max_depth=4, remove_key_entries=false))]
    fn new(
        py: Python<'_>,
        keys: Vec<(String, Vec<u8>, Option<String>)>,
        allow_legacy: bool,
        max_parts: usize,
        max_cipher_bytes: usize,
        max_depth: usize,
        remove_key_entries: bool,
    ) -> PyResult<Self> {
        if keys.is_empty() {
            return Err(invalid_input(py, "key", "no decryption key was supplied (key= or aes_key=)"));
        }
        let mut dk = Vec::with_capacity(keys.len());
        for (kind, data, name) in keys {
            let k = match kind.as_str() {
                "rsa" => enc::DecryptionKey::rsa_from_pem_or_der(&data),
                "aes" => enc::DecryptionKey::aes(&data),
                other => return Err(PyValueError::new_err(format!("key kind must be 'rsa' or 'aes', not {other:?}"))),
            }
            .map_err(|e| enc_error(py, &e, None))?;
            dk.push(match name {
                Some(n) => k.with_name(n),
                None => k,
            });
        }
        let cfg = enc::DecryptConfig::default()
            .allow_legacy(allow_legacy)
            .max_parts(max_parts)
            .max_cipher_bytes(max_cipher_bytes)
            .max_depth(max_depth)
            .remove_key_entries(remove_key_entries);
        Ok(Decryptor { inner: Arc::new(enc::Decryptor::new(dk, cfg)) })
    }

    /// Whether the legacy algorithms (AES-CBC, RSA PKCS#1 v1.5) are accepted.
    #[getter]
    fn allow_legacy(&self) -> bool {
        self.inner.config().legacy_allowed()
    }

    /// Decrypts every ``xenc:EncryptedData`` of ``data`` (XML bytes or str, a
    /// :class:`vtdx.Document`, or an :class:`vtdx.Element` standing for its document)
    /// and returns the decrypted document's bytes (for a document element that
    /// encrypts data other than XML, the plaintext itself). Every byte outside the
    /// decrypted parts is unchanged. Raises :class:`DecryptionError` for every
    /// cryptographic failure.
    fn decrypt<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        let doc = document_of(py, data)?;
        let d: &DocRef = &doc;
        let dec = &self.inner;
        let r = py.detach(|| dec.decrypt(&d.doc).map_err(Failure::Enc));
        finish(py, &doc, r)
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.xmlenc.Decryptor {:?}>", self.inner.config())
    }
}
