//! XML Signature for Python (`vtdx.dsig`): [`Verifier`], [`Signer`] and the verified
//! view ([`VerifyResult`], [`VerifiedReference`]) over `vtdx::dsig`.
//!
//! The signxml-shaped API (`XMLVerifier`, `XMLSigner`, algorithm names, key
//! objects) and the zeep plugin are Python, in `python/vtdx/dsig/`; this module is
//! the engine they call. Keys arrive as bytes (PEM or DER) and are read here.
//!
//! ```text
//! VtdxError(Exception)
//! └── InvalidInput(VtdxError, ValueError)     vtdx.dsig: a key, an algorithm or a document that cannot be used
//!     └── InvalidSignature(InvalidInput)      vtdx.dsig: the message's signatures were refused
//! ```
//!
//! Both carry `kind` (a stable identifier such as `'digest_mismatch'`), `msg`,
//! `byte_offset` and `position` (line, column) where the error is about an
//! element of the message.
//!
//! A verification or a signature is one or more public-key operations on top of
//! the XML work, so both always run detached from the interpreter.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyList, PyString, PyType};
use vtdx::dsig::{self as ds, ErrorKind as K};
use vtdx::{Node, NodeId, NodeKind};

use crate::document::{DocRef, Document};
use crate::element::{wrap_node, Element};

// ---- exceptions -------------------------------------------------------------------

struct DsigExceptions {
    invalid_input: Py<PyType>,
    invalid_signature: Py<PyType>,
}

static EXCEPTIONS: PyOnceLock<DsigExceptions> = PyOnceLock::new();

fn make_type(py: Python<'_>, name: &str, bases: Vec<Bound<'_, PyAny>>, doc: &str) -> PyResult<Py<PyType>> {
    crate::errors::exception_type(py, "vtdx.dsig", name, bases, doc)
}

fn exceptions(py: Python<'_>) -> PyResult<&DsigExceptions> {
    EXCEPTIONS.get_or_try_init(py, || {
        let base = crate::errors::exceptions(py)?.base.bind(py).clone().into_any();
        let val = py.get_type::<PyValueError>().into_any();
        let invalid_input = make_type(
            py,
            "InvalidInput",
            vec![base, val],
            "A key, certificate, algorithm or document that XML Signature cannot use (signxml's\n\
             ``InvalidInput``): an unreadable or encrypted key, a signing key that cannot make the\n\
             requested algorithm, an XPath selecting nothing to sign. A ``ValueError``.\n\n\
             ``kind`` is a stable identifier (``'key'``, ``'signing_key_mismatch'``, ``'sign'``...),\n\
             ``msg`` the message; ``byte_offset`` and ``position`` (line, column) say where in the\n\
             document, when the error is about one of its elements (else ``None``).",
        )?;
        let invalid_signature = make_type(
            py,
            "InvalidSignature",
            vec![invalid_input.bind(py).clone().into_any()],
            "The message's signatures were refused (signxml's ``InvalidSignature``): a digest or\n\
             signature value that does not verify, a key the caller did not supply, an algorithm or\n\
             construct refused by policy, a SOAP message that breaks the WS-Security rules.\n\n\
             ``kind`` is a stable identifier of why (``'digest_mismatch'``, ``'invalid_signature'``,\n\
             ``'untrusted_key'``, ``'duplicate_id'``, ``'timestamp_expired'``...: the\n\
             ``vtdx_dsig::ErrorKind`` variant in snake case), ``byte_offset`` and ``position``\n\
             (line, column) the element at fault where there is one.",
        )?;
        Ok(DsigExceptions { invalid_input, invalid_signature })
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let e = exceptions(py)?;
    m.add("InvalidInput", e.invalid_input.bind(py))?;
    m.add("InvalidSignature", e.invalid_signature.bind(py))?;
    m.add_class::<Verifier>()?;
    m.add_class::<Signer>()?;
    m.add_class::<VerifyResult>()?;
    m.add_class::<VerifiedReference>()?;
    Ok(())
}

/// The stable identifier of an error kind (the exception's `kind`).
fn kind_id(k: &K) -> &'static str {
    match k {
        K::NoSignature => "no_signature",
        K::TooManySignatures { .. } => "too_many_signatures",
        K::NotASignature => "not_a_signature",
        K::Malformed(_) => "malformed",
        K::UnsupportedAlgorithm(_) => "unsupported_algorithm",
        K::DisallowedAlgorithm { .. } => "disallowed_algorithm",
        K::ExternalReference(_) => "external_reference",
        K::UnsupportedReference(_) => "unsupported_reference",
        K::IdNotFound(_) => "id_not_found",
        K::DuplicateId(_) => "duplicate_id",
        K::TooManyTransforms { .. } => "too_many_transforms",
        K::TooManyReferences { .. } => "too_many_references",
        K::Transform { .. } => "transform",
        K::XPath(_) => "xpath",
        K::C14n(_) => "c14n",
        K::RetrievalMethod => "retrieval_method",
        K::TruncatedHmac { .. } => "truncated_hmac",
        K::NoKey => "no_key",
        K::UntrustedKey(_) => "untrusted_key",
        K::KeyMismatch { .. } => "key_mismatch",
        K::WeakKey { .. } => "weak_key",
        K::Key(_) => "key",
        K::Base64(_) => "base64",
        K::DigestMismatch { .. } => "digest_mismatch",
        K::InvalidSignature => "invalid_signature",
        K::CommentInSignedText => "comment_in_signed_text",
        K::SigningKeyMismatch { .. } => "signing_key_mismatch",
        K::SigningFailed => "signing_failed",
        K::Sign(_) => "sign",
        K::SoapDoctype => "soap_doctype",
        K::SoapEnvelopeCount(_) => "soap_envelope_count",
        K::SoapBodyCount(_) => "soap_body_count",
        K::DuplicateSecurityHeader => "duplicate_security_header",
        K::MustUnderstand(_) => "must_understand",
        K::TimestampMalformed(_) => "timestamp_malformed",
        K::TimestampExpired { .. } => "timestamp_expired",
        K::TimestampInFuture { .. } => "timestamp_in_future",
        K::TimestampMisplaced => "timestamp_misplaced",
        K::TimestampRequired(_) => "timestamp_required",
        K::SecurityTokenReference(_) => "security_token_reference",
        K::UsernameToken(_) => "username_token",
        K::WrongUsername => "wrong_username",
        K::WrongPassword => "wrong_password",
        K::ReplayedNonce => "replayed_nonce",
        K::UsernameTokenStale { .. } => "username_token_stale",
        K::UntrustedCertificate(_) => "untrusted_certificate",
        K::CertificateExpired { .. } => "certificate_expired",
        K::CertificateNotYetValid { .. } => "certificate_not_yet_valid",
        K::CertificateRevoked { .. } => "certificate_revoked",
        K::CertificateSignature(_) => "certificate_signature",
        K::NotACertificateAuthority(_) => "not_a_certificate_authority",
        K::CertificatePathLen { .. } => "certificate_path_len",
        K::CertificateKeyUsage { .. } => "certificate_key_usage",
        K::UnhandledCriticalExtension { .. } => "unhandled_critical_extension",
        K::CrlExpired { .. } => "crl_expired",
        K::CertificateChainTooLong(_) => "certificate_chain_too_long",
        _ => "other",
    }
}

/// Makes an exception of `t` with `kind`, `msg`, `byte_offset`, `position` and `lineno`
/// (also `vtdx.xmlenc`'s).
pub(crate) fn raise(py: Python<'_>, t: &Py<PyType>, kind: &str, msg: String, offset: Option<usize>, text: Option<&[u8]>) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let pos = match (offset, text) {
            (Some(o), Some(t)) => Some(vtdx::line_column(t, o)),
            _ => None,
        };
        let full = match pos {
            Some((l, c)) => format!("{msg} (line {l}, column {c})"),
            None => msg.clone(),
        };
        let e = t.bind(py).call1((full,))?;
        e.setattr("kind", kind)?;
        e.setattr("msg", msg)?;
        e.setattr("byte_offset", offset)?;
        e.setattr("position", pos)?;
        e.setattr("lineno", pos.map(|p| p.0))?;
        Ok(PyErr::from_value(e))
    })();
    match made {
        Ok(e) | Err(e) => e,
    }
}

/// A dsig error about a message (`InvalidSignature`), or about the caller's
/// input (`InvalidInput`: key, signing and algorithm errors).
fn dsig_error(py: Python<'_>, e: &ds::Error, text: Option<&[u8]>) -> PyErr {
    let ex = match exceptions(py) {
        Ok(x) => x,
        Err(err) => return err,
    };
    let caller = matches!(e.kind(), K::Key(_) | K::NoKey | K::SigningKeyMismatch { .. } | K::SigningFailed | K::Sign(_));
    let t = if caller { &ex.invalid_input } else { &ex.invalid_signature };
    raise(py, t, kind_id(e.kind()), e.kind().to_string(), e.offset(), text)
}

/// `InvalidInput` of `kind` with no position.
pub(crate) fn invalid_input(py: Python<'_>, kind: &str, msg: impl Into<String>) -> PyErr {
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
    if data.is_instance_of::<PyBytes>() || data.is_instance_of::<PyString>() || data.is_instance_of::<pyo3::types::PyByteArray>() {
        let (v, _) = crate::parse::read_source(py, data, false)?;
        return crate::parse::parse_vec(py, v, &crate::parse::default_options(), None);
    }
    if let Ok((v, _)) = crate::parse::read_source(py, data, false) {
        return crate::parse::parse_vec(py, v, &crate::parse::default_options(), None);
    }
    Err(PyTypeError::new_err(format!("expected XML as bytes or str, a vtdx.Document or a vtdx.Element, not {}", data.get_type().name()?)))
}

fn instant(secs: f64) -> PyResult<SystemTime> {
    if !secs.is_finite() {
        return Err(PyValueError::new_err("a time must be a finite number of seconds since the epoch"));
    }
    let d = Duration::from_secs_f64(secs.abs());
    Ok(if secs >= 0.0 { SystemTime::UNIX_EPOCH + d } else { SystemTime::UNIX_EPOCH - d })
}

fn seconds(s: f64, what: &str) -> PyResult<Duration> {
    if !s.is_finite() || s < 0.0 {
        return Err(PyValueError::new_err(format!("{what} must be a non-negative number of seconds")));
    }
    Ok(Duration::from_secs_f64(s))
}

// ---- Verifier -----------------------------------------------------------------------

/// The engine of :func:`vtdx.dsig.verify`: a policy and the caller's keys, read
/// once, then any number of documents verified (safe to share between threads).
///
/// ``keys`` is a list of ``(kind, data, name)``: ``kind`` ``'key'`` for a public key
/// or certificate as PEM or DER (an X.509 certificate, ``PUBLIC KEY``, ``RSA PUBLIC
/// KEY``, or the public half of an unencrypted private key), ``'hmac'`` for an HMAC
/// secret; ``name`` (or ``None``) is matched by a ``KeyName``. The policy keywords
/// are those of ``vtdx_dsig::VerifyConfig``, secure by default; ``max_clock_skew``
/// is in seconds, ``now`` (seconds since the epoch) judges Timestamps (and
/// certificate validity) at another instant than the system clock.
///
/// Trust anchors (``vtdx_dsig::TrustStore``): ``ca_certs`` are CA certificates
/// (PEM or DER, one each) the caller trusts; with any, a certificate carried in
/// the message may verify a signature once a chain from it to an anchor
/// validates (validity periods, CA constraints, key usage, signatures), with
/// ``intermediates`` (untrusted, only to build chains) and ``crls`` (PEM or DER,
/// checked against their issuer's key) for revocation; ``max_chain_len`` bounds
/// the chain; ``validate_caller_keys`` also requires the caller's own
/// certificates to chain (xmlsec1's ``--verify-keys``). ``keys`` may then be empty.
#[pyclass(frozen, module = "vtdx.dsig", name = "Verifier")]
pub struct Verifier {
    inner: Arc<ds::Verifier>,
}

#[pymethods]
impl Verifier {
    #[new]
    #[pyo3(signature = (keys, *, allow_sha1=false, min_rsa_bits=2048, max_transforms=5, max_references=30, max_signatures=10,
        allow_xpath_transform=false, allow_xpath_filter2=false, reject_comment_split_text=true, soap_checks=true,
        max_clock_skew=300.0, now=None, require_timestamp=false, decrypts_after=false, ca_certs=Vec::new(),
        intermediates=Vec::new(), crls=Vec::new(), max_chain_len=8, validate_caller_keys=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        keys: Vec<(String, Vec<u8>, Option<String>)>,
        allow_sha1: bool,
        min_rsa_bits: usize,
        max_transforms: usize,
        max_references: usize,
        max_signatures: usize,
        allow_xpath_transform: bool,
        allow_xpath_filter2: bool,
        reject_comment_split_text: bool,
        soap_checks: bool,
        max_clock_skew: f64,
        now: Option<f64>,
        require_timestamp: bool,
        decrypts_after: bool,
        ca_certs: Vec<Vec<u8>>,
        intermediates: Vec<Vec<u8>>,
        crls: Vec<Vec<u8>>,
        max_chain_len: usize,
        validate_caller_keys: bool,
    ) -> PyResult<Self> {
        if keys.is_empty() && ca_certs.is_empty() {
            return Err(invalid_input(
                py,
                "no_key",
                "no verification key was supplied (x509_cert=, key=, hmac_key=, or trust anchors with ca_pem_file= or ca_certs=)",
            ));
        }
        if ca_certs.is_empty() && (!intermediates.is_empty() || !crls.is_empty() || validate_caller_keys) {
            return Err(PyValueError::new_err(
                "intermediates=, crls= and validate_caller_keys= need trust anchors (ca_pem_file= or ca_certs=)",
            ));
        }
        let certs = |v: Vec<Vec<u8>>| -> PyResult<Vec<ds::Certificate>> {
            v.iter().map(|c| ds::Certificate::from_pem_or_der(c).map_err(|e| dsig_error(py, &e, None))).collect()
        };
        let trust = if ca_certs.is_empty() {
            None
        } else {
            let crls =
                crls.iter().map(|c| ds::Crl::from_pem_or_der(c).map_err(|e| dsig_error(py, &e, None))).collect::<PyResult<Vec<_>>>()?;
            Some(
                ds::TrustStore::new(certs(ca_certs)?)
                    .intermediates(certs(intermediates)?)
                    .crls(crls)
                    .max_chain_len(max_chain_len)
                    .validate_caller_keys(validate_caller_keys),
            )
        };
        let mut vk = Vec::with_capacity(keys.len());
        for (kind, data, name) in keys {
            let k = match kind.as_str() {
                "hmac" => ds::VerifyingKey::hmac(&data).map_err(|e| dsig_error(py, &e, None))?,
                "key" => ds::VerifyingKey::from_pem_or_der(&data).map_err(|e| dsig_error(py, &e, None))?,
                other => return Err(PyValueError::new_err(format!("key kind must be 'key' or 'hmac', not {other:?}"))),
            };
            vk.push(match name {
                Some(n) => k.with_name(n),
                None => k,
            });
        }
        let mut b = ds::VerifyConfig::builder()
            .allow_sha1(allow_sha1)
            .min_rsa_bits(min_rsa_bits)
            .max_transforms(max_transforms)
            .max_references(max_references)
            .max_signatures(max_signatures)
            .allow_xpath_transform(allow_xpath_transform)
            .allow_xpath_filter2(allow_xpath_filter2)
            .reject_comment_split_text(reject_comment_split_text)
            .soap_checks(soap_checks)
            .max_clock_skew(seconds(max_clock_skew, "max_clock_skew")?)
            .require_timestamp(require_timestamp)
            .decrypts_after(decrypts_after);
        if let Some(t) = now {
            b = b.now(instant(t)?);
        }
        let mut v = ds::Verifier::new(b.build(), vk);
        if let Some(t) = trust {
            v = v.with_trust_store(t);
        }
        Ok(Verifier { inner: Arc::new(v) })
    }

    /// Verifies every ``ds:Signature`` of ``data`` (XML bytes or str, a
    /// :class:`vtdx.Document`, or an :class:`vtdx.Element` standing for its
    /// document) and returns the verified view; raises :class:`InvalidSignature`.
    fn verify(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<VerifyResult> {
        let doc = document_of(py, data)?;
        let d: &DocRef = &doc;
        let v = &self.inner;
        let res = py.detach(|| v.verify(&d.doc).map(|r| Collected::of(&r)));
        match res {
            Ok(c) => Ok(VerifyResult::new(doc.clone(), c)),
            Err(e) => Err(dsig_error(py, &e, Some(doc.doc.text()))),
        }
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.dsig.Verifier {:?}>", self.inner.config())
    }
}

// ---- the verified view ----------------------------------------------------------------

/// What a Reference's digest covered, in node ids of the document.
enum Cover {
    /// A subtree (or the whole document when the apex is the root), minus excluded subtrees.
    Tree { apex: NodeId, excluded: Vec<NodeId> },
    /// A node-set narrowed by an XPath transform: the member nodes (elements,
    /// comments, PIs) it covers with everything below them.
    Set(HashSet<NodeId>),
    /// Octets (a base64 transform): no node.
    Nothing,
}

struct RefData {
    uri: Option<String>,
    node: NodeId,
    digest: &'static str,
    transforms: Vec<String>,
    excluded: Vec<NodeId>,
    filtered: bool,
    cover: Cover,
    signature: NodeId,
    method: &'static str,
    key_index: usize,
}

/// The parts of a SOAP message, located by position.
#[derive(Clone, Copy)]
struct SoapIds {
    body: NodeId,
    header: Option<NodeId>,
    security: Option<NodeId>,
    timestamp: Option<NodeId>,
}

/// A verification result, owned (the core's `Verified` borrows the document).
struct Collected {
    signatures: Vec<NodeId>,
    refs: Vec<Arc<RefData>>,
    soap: Option<SoapIds>,
    payload: Option<NodeId>,
    covers_payload: bool,
    timestamp_signed: bool,
}

fn is_member(n: &Node<'_>) -> bool {
    matches!(n.kind(), NodeKind::Element | NodeKind::Comment | NodeKind::ProcessingInstruction)
}

impl Collected {
    fn of(v: &ds::Verified<'_>) -> Collected {
        let mut refs = Vec::new();
        for s in v.signatures() {
            for r in s.references() {
                let apex = r.node();
                let cover = if !r.is_filtered() {
                    Cover::Tree { apex: apex.id(), excluded: r.excluded().iter().map(|n| n.id()).collect() }
                } else {
                    let set: HashSet<NodeId> = std::iter::once(apex)
                        .chain(apex.descendants())
                        .filter(is_member)
                        .filter(|n| r.covers(*n))
                        .map(|n| n.id())
                        .collect();
                    if set.is_empty() {
                        Cover::Nothing
                    } else {
                        Cover::Set(set)
                    }
                };
                refs.push(Arc::new(RefData {
                    uri: r.uri().map(str::to_string),
                    node: apex.id(),
                    digest: r.digest().uri(),
                    transforms: r.transforms().to_vec(),
                    excluded: r.excluded().iter().map(|n| n.id()).collect(),
                    filtered: r.is_filtered(),
                    cover,
                    signature: s.signature().id(),
                    method: s.method().uri(),
                    key_index: s.key_index(),
                }));
            }
        }
        Collected {
            signatures: v.signatures().iter().map(|s| s.signature().id()).collect(),
            refs,
            soap: v.soap().map(|m| SoapIds {
                body: m.body.id(),
                header: m.header.map(|h| h.id()),
                security: m.security.map(|h| h.id()),
                timestamp: m.timestamp.map(|h| h.id()),
            }),
            payload: v.payload().map(|p| p.id()),
            covers_payload: v.covers_payload(),
            timestamp_signed: v.timestamp_signed(),
        }
    }
}

impl RefData {
    fn covers(&self, doc: &DocRef, n: Node<'_>) -> bool {
        match &self.cover {
            Cover::Nothing => false,
            Cover::Tree { apex, excluded } => n.is_within(doc.node(*apex)) && !excluded.iter().any(|x| n.is_within(doc.node(*x))),
            Cover::Set(set) => set.contains(&n.id()),
        }
    }
}

/// The element a result shows for a node: the root element for the document root.
fn shown<'py>(py: Python<'py>, doc: &DocRef, id: NodeId) -> PyResult<Bound<'py, PyAny>> {
    let n = doc.node(id);
    let n = if n.kind() == NodeKind::Root { doc.doc.root_element() } else { n };
    wrap_node(py, doc, n)
}

/// The node of `element` in `doc`, or `None` when it belongs to another document.
fn node_in<'a>(doc: &'a DocRef, element: &Bound<'_, PyAny>) -> PyResult<Option<Node<'a>>> {
    let e = crate::element::as_element(element)?;
    if !Arc::ptr_eq(&e.doc, doc) {
        return Ok(None);
    }
    Ok(Some(doc.node(e.id)))
}

fn signed_bytes<'py>(py: Python<'py>, doc: &DocRef, id: NodeId) -> Bound<'py, PyBytes> {
    let n = doc.node(id);
    let r = if n.kind() == NodeKind::Root { 0..doc.doc.text().len() } else { n.range() };
    PyBytes::new(py, &doc.doc.text()[r])
}

/// One verified ``ds:Reference``: what it named and exactly what its digest covered.
#[pyclass(frozen, module = "vtdx.dsig", name = "VerifiedReference")]
pub struct VerifiedReference {
    doc: DocRef,
    data: Arc<RefData>,
}

#[pymethods]
impl VerifiedReference {
    /// The ``URI`` attribute as written (``''`` for the whole document; ``None`` when absent).
    #[getter]
    fn uri(&self) -> Option<&str> {
        self.data.uri.as_deref()
    }

    /// The element the URI selected (the root element for ``URI=""`` and ``#xpointer(/)``).
    #[getter]
    fn element<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shown(py, &self.doc, self.data.node)
    }

    /// True when the URI selected the whole document (``""``, ``#xpointer(/)``).
    #[getter]
    fn is_document(&self) -> bool {
        self.doc.node(self.data.node).kind() == NodeKind::Root
    }

    /// The selected element's bytes as they stand in the message (for the whole
    /// document: all of it). Not canonicalized, and an enveloped Signature is still
    /// in them: :attr:`excluded` lists what the transforms removed.
    #[getter]
    fn signed_data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        signed_bytes(py, &self.doc, self.data.node)
    }

    /// The DigestMethod URI.
    #[getter]
    fn digest_algorithm(&self) -> &'static str {
        self.data.digest
    }

    /// The transform URIs, in order.
    #[getter]
    fn transforms(&self) -> Vec<String> {
        self.data.transforms.clone()
    }

    /// The elements the transforms removed (the enveloped-signature transform's Signature).
    #[getter]
    fn excluded<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        crate::element::wrap_list(py, &self.doc, self.data.excluded.iter().copied())
    }

    /// True when an XPath transform narrowed the node-set (coverage is then node by
    /// node) or a base64 transform replaced it by octets (then it covers no element).
    #[getter]
    fn is_filtered(&self) -> bool {
        self.data.filtered
    }

    /// The ``ds:Signature`` element the reference belongs to.
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrap_node(py, &self.doc, self.doc.node(self.data.signature))
    }

    /// The SignatureMethod URI of that signature.
    #[getter]
    fn signature_method(&self) -> &'static str {
        self.data.method
    }

    /// Index, among the verifier's keys, of the key that verified that signature.
    #[getter]
    fn key_index(&self) -> usize {
        self.data.key_index
    }

    /// Is ``element`` (a :class:`vtdx.Element` of the verified document), with
    /// everything below it, part of what this reference's digest covered?
    fn covers(&self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(node_in(&self.doc, element)?.is_some_and(|n| self.data.covers(&self.doc, n)))
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.dsig.VerifiedReference uri={:?} digest={}>", self.data.uri.as_deref().unwrap_or(""), self.data.digest)
    }
}

/// The result of a verification: every verified Signature and Reference, and what
/// they covered, as elements of the verified :class:`vtdx.Document`.
///
/// signxml's accessors are here (``signed_xml``, ``signed_data``,
/// ``signature_xml``), but the point is :meth:`covers`: locate what the
/// application will act on **by position** (``/soap:Envelope/soap:Body``, the
/// element at the path you read) and require ``result.covers(element)``; never
/// trust an element because a Reference named its ID.
#[pyclass(frozen, module = "vtdx.dsig", name = "VerifyResult")]
pub struct VerifyResult {
    doc: DocRef,
    data: Collected,
    refs: OnceLock<Vec<Py<VerifiedReference>>>,
}

impl VerifyResult {
    fn new(doc: DocRef, data: Collected) -> VerifyResult {
        VerifyResult { doc, data, refs: OnceLock::new() }
    }

    fn covers_node(&self, n: Node<'_>) -> bool {
        self.data.refs.iter().any(|r| r.covers(&self.doc, n))
    }

    fn opt<'py>(&self, py: Python<'py>, id: Option<NodeId>) -> PyResult<Option<Bound<'py, PyAny>>> {
        id.map(|i| wrap_node(py, &self.doc, self.doc.node(i))).transpose()
    }
}

#[pymethods]
impl VerifyResult {
    /// The verified document.
    #[getter]
    fn document(&self) -> Document {
        Document { inner: self.doc.clone() }
    }

    /// Every verified Reference, signature by signature, in SignedInfo order.
    #[getter]
    fn references<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if self.refs.get().is_none() {
            let mut v = Vec::with_capacity(self.data.refs.len());
            for r in &self.data.refs {
                v.push(Py::new(py, VerifiedReference { doc: self.doc.clone(), data: r.clone() })?);
            }
            let _ = self.refs.set(v);
        }
        let refs = self.refs.get().map(|v| v.iter().map(|r| r.clone_ref(py)).collect::<Vec<_>>()).unwrap_or_default();
        PyList::new(py, refs)
    }

    /// The verified ``ds:Signature`` elements, in document order.
    #[getter]
    fn signatures<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        crate::element::wrap_list(py, &self.doc, self.data.signatures.iter().copied())
    }

    /// The element the first Reference selected (the root element for ``URI=""``),
    /// as signxml's ``signed_xml``; a vtdx :class:`vtdx.Element` of the verified document.
    #[getter]
    fn signed_xml<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.data.refs.first().map(|r| shown(py, &self.doc, r.node)).transpose()
    }

    /// The bytes of :attr:`signed_xml` as they stand in the message (see
    /// :attr:`VerifiedReference.signed_data`).
    #[getter]
    fn signed_data<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.data.refs.first().map(|r| signed_bytes(py, &self.doc, r.node))
    }

    /// The first verified ``ds:Signature`` element (signxml's ``signature_xml``).
    #[getter]
    fn signature_xml<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.opt(py, self.data.signatures.first().copied())
    }

    /// The elements each Reference selected, in order (the root element for the whole document).
    #[getter]
    fn signed_elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for r in &self.data.refs {
            list.append(shown(py, &self.doc, r.node)?)?;
        }
        Ok(list)
    }

    /// Is ``element`` (a :class:`vtdx.Element` of the verified document), with
    /// everything below it, covered by a verified Reference? An element of another
    /// document is not.
    fn covers(&self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(node_in(&self.doc, element)?.is_some_and(|n| self.covers_node(n)))
    }

    /// Are all of ``elements`` covered?
    fn covers_all(&self, elements: &Bound<'_, PyAny>) -> PyResult<bool> {
        for e in elements.try_iter()? {
            if !self.covers(&e?)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// What the application reads: the SOAP Body of a SOAP message (located by
    /// position), else the document element.
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.opt(py, self.data.payload)
    }

    /// Is :attr:`payload` covered by a verified Reference?
    #[getter]
    fn covers_payload(&self) -> bool {
        self.data.covers_payload
    }

    /// True for a SOAP 1.1 or 1.2 message (then :attr:`soap_body` is set).
    #[getter]
    fn is_soap(&self) -> bool {
        self.data.soap.is_some()
    }

    /// The SOAP Body, located by position (``None`` outside SOAP).
    #[getter]
    fn soap_body<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.opt(py, self.data.soap.map(|s| s.body))
    }

    /// The SOAP Header, if any.
    #[getter]
    fn soap_header<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.opt(py, self.data.soap.and_then(|s| s.header))
    }

    /// The ``wsse:Security`` header for the ultimate receiver, if any.
    #[getter]
    fn security_header<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.opt(py, self.data.soap.and_then(|s| s.security))
    }

    /// That header's ``wsu:Timestamp``, if any (its freshness was checked).
    #[getter]
    fn timestamp<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.opt(py, self.data.soap.and_then(|s| s.timestamp))
    }

    /// Does a verified Reference cover the Security header's Timestamp? (``False`` when there is none.)
    #[getter]
    fn timestamp_signed(&self) -> bool {
        self.data.timestamp_signed
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.dsig.VerifyResult signatures={} references={}>", self.data.signatures.len(), self.data.refs.len())
    }
}

// ---- Signer -------------------------------------------------------------------------

/// The engine of :func:`vtdx.dsig.sign`: the caller's private key (or HMAC secret)
/// and how to sign, read once; the signature is inserted with the Editor, so every
/// byte of the input outside the new markup stays as it was.
///
/// ``key`` is an unencrypted private key as PEM or DER (PKCS#8, PKCS#1, SEC 1; a
/// ``CERTIFICATE`` block in the same PEM is taken as its certificate), or with
/// ``hmac=True`` the HMAC secret. ``cert`` (PEM or DER) is the certificate of the
/// key, sent in ``KeyInfo`` (or as the WS-Security BinarySecurityToken);
/// ``key_name`` is sent as ``KeyName`` when there is no certificate. The algorithms
/// are URIs: ``signature_algorithm`` (default: the key's, e.g. ``rsa-sha256``),
/// ``digest_algorithm`` (SHA-256), ``c14n_algorithm`` (of the SignedInfo) and
/// ``reference_c14n`` (the References' transform), both Exclusive C14N 1.0 by default.
#[pyclass(frozen, module = "vtdx.dsig", name = "Signer")]
pub struct Signer {
    inner: Arc<ds::Signer>,
}

fn c14n_of(py: Python<'_>, uri: &str) -> PyResult<vtdx::c14n::Algorithm> {
    match vtdx::c14n::Algorithm::from_uri(uri) {
        Some((a, false)) => Ok(a),
        Some((_, true)) => Err(invalid_input(py, "unsupported_algorithm", format!("signing with comments (`{uri}`) is not offered"))),
        None => Err(invalid_input(py, "unsupported_algorithm", format!("unknown canonicalization `{uri}`"))),
    }
}

#[pymethods]
impl Signer {
    #[new]
    #[pyo3(signature = (key, *, hmac=false, cert=None, key_name=None, signature_algorithm=None, digest_algorithm=None,
        c14n_algorithm=None, reference_c14n=None, key_info=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        key: Vec<u8>,
        hmac: bool,
        cert: Option<Vec<u8>>,
        key_name: Option<String>,
        signature_algorithm: Option<&str>,
        digest_algorithm: Option<&str>,
        c14n_algorithm: Option<&str>,
        reference_c14n: Option<&str>,
        key_info: bool,
    ) -> PyResult<Self> {
        let err = |e: ds::Error| dsig_error(py, &e, None);
        let alg_err = |k: K| dsig_error(py, &ds::Error::new(k), None);
        let mut k = if hmac { ds::SigningKey::hmac(&key).map_err(err)? } else { ds::SigningKey::from_pem_or_der(&key).map_err(err)? };
        if let Some(c) = cert {
            k = k.with_certificate(ds::Certificate::from_pem_or_der(&c).map_err(err)?).map_err(err)?;
        }
        if let Some(n) = key_name {
            k = k.with_name(n);
        }
        let mut cfg = ds::SignConfig::default().key_info(key_info);
        if let Some(u) = signature_algorithm {
            cfg = cfg.method(ds::SignatureAlgorithm::from_uri(u).map_err(alg_err)?);
        }
        if let Some(u) = digest_algorithm {
            cfg = cfg.digest(ds::DigestAlgorithm::from_uri(u).map_err(alg_err)?);
        }
        if let Some(u) = c14n_algorithm {
            cfg = cfg.signed_info_c14n(c14n_of(py, u)?);
        }
        if let Some(u) = reference_c14n {
            cfg = cfg.reference_c14n(c14n_of(py, u)?);
        }
        Ok(Signer { inner: Arc::new(ds::Signer::new(k, cfg)) })
    }

    /// The SignatureMethod URI this signer writes.
    #[getter]
    fn signature_algorithm(&self) -> &'static str {
        self.inner.method().uri()
    }

    /// An enveloped signature of the whole document (``URI=""``), inserted as the
    /// document element's last child. Returns the signed document's bytes.
    fn sign_enveloped<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        let doc = document_of(py, data)?;
        let d: &DocRef = &doc;
        let s = &self.inner;
        let r = py.detach(|| s.sign_enveloped(&d.doc));
        self.out(py, &doc, r)
    }

    /// Same-document References to the elements the XPath 1.0 expressions select
    /// (each by its existing ID, else a new ``Id`` attribute), in one Signature
    /// inserted as the document element's last child. Prefixes: the document's own,
    /// and ``soap``, ``soap12``, ``wsse``, ``wsu``, ``ds`` where it does not bind them.
    fn sign_detached<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>, xpaths: Vec<String>) -> PyResult<Bound<'py, PyBytes>> {
        let doc = document_of(py, data)?;
        let d: &DocRef = &doc;
        let s = &self.inner;
        let r = py.detach(|| {
            let mut targets = Vec::new();
            for x in &xpaths {
                targets.extend(ds::select_elements(&d.doc, x)?);
            }
            s.sign_detached(&d.doc, &targets)
        });
        self.out(py, &doc, r)
    }

    /// The WS-Security 1.1 header of a SOAP 1.1 or 1.2 message: ``wsse:Security``
    /// with a ``wsu:Timestamp`` (``Expires`` = ``Created`` + ``ttl`` seconds; no
    /// Expires with ``ttl=None``; ``now`` in seconds since the epoch, default the
    /// clock), the certificate as a BinarySecurityToken, and a Signature over the
    /// Body, the Timestamp and the elements ``xpaths`` select, whose KeyInfo is a
    /// SecurityTokenReference to the token.
    #[pyo3(signature = (data, xpaths=Vec::new(), *, ttl=Some(300.0), now=None, must_understand=true))]
    fn sign_wss<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        xpaths: Vec<String>,
        ttl: Option<f64>,
        now: Option<f64>,
        must_understand: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let opts = ds::WssOptions { ttl: ttl.map(|t| seconds(t, "ttl")).transpose()?, now: now.map(instant).transpose()?, must_understand };
        let doc = document_of(py, data)?;
        let d: &DocRef = &doc;
        let s = &self.inner;
        let r = py.detach(|| {
            let mut extra = Vec::new();
            for x in &xpaths {
                extra.extend(ds::select_elements(&d.doc, x)?);
            }
            s.sign_wss(&d.doc, &opts, &extra)
        });
        self.out(py, &doc, r)
    }

    fn __repr__(&self) -> String {
        format!("<vtdx.dsig.Signer {} key={:?}>", self.inner.method().uri(), self.inner.key())
    }
}

impl Signer {
    fn out<'py>(&self, py: Python<'py>, doc: &DocRef, r: Result<Vec<u8>, ds::Error>) -> PyResult<Bound<'py, PyBytes>> {
        match r {
            Ok(v) => Ok(PyBytes::new(py, &v)),
            Err(e) => {
                let ex = exceptions(py)?;
                // while signing, every error is about the caller's input
                Err(raise(py, &ex.invalid_input, kind_id(e.kind()), e.kind().to_string(), e.offset(), Some(doc.doc.text())))
            }
        }
    }
}
