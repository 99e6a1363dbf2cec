//! [`Verifier`] and the verified view it returns.

use std::ops::Range;

use vtdx_c14n::xpath::XPathNodeSet;
use vtdx_core::{Document, Node, NodeKind};

use crate::alg::{DigestAlgorithm, SignatureAlgorithm, DSIG_NS, WSU_NS};
use crate::config::VerifyConfig;
use crate::error::{Error, ErrorKind};
use crate::key::{Certificate, KeyMaterial, VerifyingKey};
use crate::keyinfo;
use crate::reference::{self, Coverage, IdIndex};
use crate::signature;
use crate::trust::TrustStore;
use crate::wss::{SoapMessage, SOAP_ELEMENTS};

/// Where the verifying keys come from: always the caller. A `KeyInfo` in the
/// message may pick among these keys, never add one.
pub trait KeyProvider: Send + Sync {
    /// The keys (public keys, certificates, HMAC secrets) the caller trusts.
    fn keys(&self) -> &[VerifyingKey];
}

impl KeyProvider for Vec<VerifyingKey> {
    fn keys(&self) -> &[VerifyingKey] {
        self
    }
}

impl KeyProvider for [VerifyingKey] {
    fn keys(&self) -> &[VerifyingKey] {
        self
    }
}

/// Verifies XML Signatures under a [`VerifyConfig`] with the caller's keys.
/// Build once, verify many documents; `&self` only, so one value serves many threads.
///
/// ```
/// use vtdx_dsig::{Verifier, VerifyConfig, VerifyingKey, ErrorKind};
///
/// let doc = vtdx_core::Document::parse(b"<a/>")?;
/// let v = Verifier::new(VerifyConfig::default(), vec![VerifyingKey::hmac(b"secret")?]);
/// assert_eq!(v.verify(&doc).unwrap_err().kind(), &ErrorKind::NoSignature);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Verifier {
    config: VerifyConfig,
    keys: Box<dyn KeyProvider>,
    trust: Option<TrustStore>,
}

/// The most certificates of one `KeyInfo` considered for path validation.
const MAX_MESSAGE_CERTIFICATES: usize = 16;

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier").field("config", &self.config).field("keys", &self.keys.keys()).field("trust", &self.trust).finish()
    }
}

/// A verified Reference: what it named and exactly what its digest covered.
#[derive(Debug, Clone)]
pub struct VerifiedReference<'d> {
    uri: Option<String>,
    node: Node<'d>,
    digest: DigestAlgorithm,
    transforms: Vec<String>,
    coverage: Coverage<'d>,
}

impl<'d> VerifiedReference<'d> {
    /// The `URI` attribute as written (`None` when absent).
    pub fn uri(&self) -> Option<&str> {
        self.uri.as_deref()
    }
    /// The node the URI selected: the root for `""` and `#xpointer(/)`, else the element with that ID.
    pub fn node(&self) -> Node<'d> {
        self.node
    }
    /// Byte range of [`VerifiedReference::node`] in the document's text.
    pub fn range(&self) -> Range<usize> {
        self.node.range()
    }
    /// The digest algorithm.
    pub fn digest(&self) -> DigestAlgorithm {
        self.digest
    }
    /// The transform algorithm URIs, in order.
    pub fn transforms(&self) -> &[String] {
        &self.transforms
    }
    /// The subtrees the transforms removed (the enveloped-signature transform's Signature).
    pub fn excluded(&self) -> &[Node<'d>] {
        match &self.coverage {
            Coverage::Tree { excluded, .. } => excluded,
            _ => &[],
        }
    }
    /// True when an XPath or XPath Filter 2.0 transform narrowed the node-set
    /// (then [`VerifiedReference::covers`] checks node by node), or a base64
    /// transform replaced it by decoded text (then it covers no node).
    pub fn is_filtered(&self) -> bool {
        !matches!(self.coverage, Coverage::Tree { .. })
    }

    /// Is `node` (an element, attribute, text...), with everything below it,
    /// part of what this Reference's digest covered? The subtrees the
    /// enveloped-signature transform removed are not required; comments,
    /// which a reference without comments leaves out, are not either.
    pub fn covers(&self, node: Node<'d>) -> bool {
        if !std::ptr::eq(node.document(), self.node.document()) {
            return false;
        }
        match &self.coverage {
            Coverage::Text { .. } => false,
            Coverage::Tree { apex, excluded, .. } => node.is_within(*apex) && !excluded.iter().any(|x| node.is_within(*x)),
            Coverage::Set { apex, set } => node.is_within(*apex) && subtree_in_set(node, set),
        }
    }
}

fn subtree_in_set<'d>(n: Node<'d>, set: &XPathNodeSet<'d>) -> bool {
    use vtdx_c14n::SetNode;
    if !set.contains(SetNode::Node(n)) {
        return false;
    }
    for d in n.descendants() {
        if d.kind() == NodeKind::Comment {
            continue;
        }
        if !set.contains(SetNode::Node(d)) {
            return false;
        }
        if d.is_element() && d.attributes().any(|a| !set.contains(SetNode::Node(a))) {
            return false;
        }
    }
    true
}

/// A verified Signature.
#[derive(Debug, Clone)]
pub struct VerifiedSignature<'d> {
    signature: Node<'d>,
    method: SignatureAlgorithm,
    key: usize,
    chain: Option<Vec<Certificate>>,
    references: Vec<VerifiedReference<'d>>,
}

impl<'d> VerifiedSignature<'d> {
    /// The `ds:Signature` element.
    pub fn signature(&self) -> Node<'d> {
        self.signature
    }
    /// The SignatureMethod.
    pub fn method(&self) -> SignatureAlgorithm {
        self.method
    }
    /// Index, among the caller's keys, of the key that verified it; the
    /// number of the caller's keys (one past the last) when it was a
    /// certificate validated through the [`TrustStore`] (see
    /// [`VerifiedSignature::certificate_chain`]).
    pub fn key_index(&self) -> usize {
        self.key
    }
    /// The validated chain (leaf first, anchor last) when the key was a
    /// certificate validated through the [`TrustStore`].
    pub fn certificate_chain(&self) -> Option<&[Certificate]> {
        self.chain.as_deref()
    }
    /// The References, in SignedInfo order.
    pub fn references(&self) -> &[VerifiedReference<'d>] {
        &self.references
    }
    /// Does one of its References cover `node` (see [`VerifiedReference::covers`])?
    pub fn covers(&self, node: Node<'d>) -> bool {
        self.references.iter().any(|r| r.covers(node))
    }
}

/// The result of verifying a document: every Signature, and exactly what
/// each Reference covered. Check that what the application will read is
/// covered with [`Verified::covers`], locating it by position
/// (`/soap:Envelope/soap:Body`), never by the ID a Reference names.
#[derive(Debug, Clone)]
pub struct Verified<'d> {
    signatures: Vec<VerifiedSignature<'d>>,
    soap: Option<SoapMessage<'d>>,
}

impl<'d> Verified<'d> {
    /// The verified Signatures, in document order, except those in a Security
    /// header for another actor/role (verified too, but they cover nothing).
    pub fn signatures(&self) -> &[VerifiedSignature<'d>] {
        &self.signatures
    }
    /// Every verified Reference.
    pub fn references(&self) -> impl Iterator<Item = &VerifiedReference<'d>> {
        self.signatures.iter().flat_map(|s| s.references.iter())
    }
    /// Is `node`, with everything below it, covered by a verified Reference?
    pub fn covers(&self, node: Node<'d>) -> bool {
        self.signatures.iter().any(|s| s.covers(node))
    }
    /// Are all of `nodes` covered?
    pub fn covers_all(&self, nodes: impl IntoIterator<Item = Node<'d>>) -> bool {
        nodes.into_iter().all(|n| self.covers(n))
    }
    /// For a SOAP message, its parts located by position (the Body, the
    /// Security header, its Timestamp); `None` for other documents or when
    /// [`crate::VerifyConfigBuilder::soap_checks`] is off.
    pub fn soap(&self) -> Option<&SoapMessage<'d>> {
        self.soap.as_ref()
    }
    /// The node an application reads: the SOAP Body of a SOAP message, else the document element.
    pub fn payload(&self) -> Option<Node<'d>> {
        match &self.soap {
            Some(s) => Some(s.body),
            None => self.signatures.first().map(|s| s.signature.document().root_element()),
        }
    }
    /// Is the payload ([`Verified::payload`]) covered by a verified Reference?
    pub fn covers_payload(&self) -> bool {
        self.payload().is_some_and(|p| self.covers(p))
    }
    /// Does a verified Reference cover the Security header's Timestamp?
    /// `false` when there is none.
    pub fn timestamp_signed(&self) -> bool {
        self.soap.and_then(|s| s.timestamp).is_some_and(|t| self.covers(t))
    }
}

impl Verifier {
    /// A verifier with `config` and the caller's keys.
    pub fn new(config: VerifyConfig, keys: impl KeyProvider + 'static) -> Verifier {
        Verifier { config, keys: Box::new(keys), trust: None }
    }

    /// Adds trust anchors: a certificate carried in a message's `KeyInfo` may
    /// then verify a signature, once a chain from it to an anchor validates
    /// (see [`TrustStore`]); the caller's own keys are used as before.
    /// `keys` may be empty.
    pub fn with_trust_store(mut self, store: TrustStore) -> Verifier {
        self.trust = Some(store);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &VerifyConfig {
        &self.config
    }

    /// The `ds:Signature` elements of `doc`, in document order.
    pub fn signatures<'d>(doc: &'d Document<'d>) -> Vec<Node<'d>> {
        reference::elements_named(doc, &[(DSIG_NS, "Signature")]).into_iter().map(|(_, e)| e).collect()
    }

    /// Verifies **every** `ds:Signature` of `doc`; the first failure is the error.
    /// `NoSignature` when there is none.
    ///
    /// For a SOAP message (and unless [`crate::VerifyConfigBuilder::soap_checks`]
    /// is off), first the SOAP rules: no DOCTYPE, one Envelope, one Body, one
    /// Security header per role, `mustUnderstand`, and the Timestamp's
    /// freshness; after the signatures, the Timestamp's coverage when
    /// [`crate::VerifyConfigBuilder::require_timestamp`] is on. The signatures
    /// in a Security header for another actor/role are verified but cover
    /// nothing. A signed `wsu:Timestamp` other than the Security header's is
    /// refused (`TimestampMisplaced`) in a SOAP message, and checked for
    /// freshness in any other document (both only with the SOAP checks on).
    pub fn verify<'d>(&self, doc: &'d Document<'d>) -> Result<Verified<'d>, Error> {
        let cfg = &self.config;
        // one pass over the tape: the IDs, the comments, the SOAP Envelopes and Bodies
        // (indexes 0..4), the Signatures (index 4) and the wsu:Timestamps (index 5)
        let wanted =
            [SOAP_ELEMENTS[0], SOAP_ELEMENTS[1], SOAP_ELEMENTS[2], SOAP_ELEMENTS[3], (DSIG_NS, "Signature"), (WSU_NS, "Timestamp")];
        let (ids, found) = IdIndex::scan(doc, &wanted);
        let soap = if cfg.soap_checks { SoapMessage::parse_from(doc, Some(&found))? } else { None };
        if let Some(m) = &soap {
            m.check_must_understand(self.config.decrypts_after)?;
            m.check_timestamp(cfg.now(), cfg.max_clock_skew)?;
            if cfg.require_timestamp && m.timestamp.is_none() {
                let at = m.security.or(m.header).unwrap_or(m.envelope).range().start;
                return Err(Error::at(ErrorKind::TimestampRequired("a wsu:Timestamp is required in the wsse:Security header"), at));
            }
        }
        let of = |k: usize| found.iter().filter(move |(i, _)| *i == k).map(|&(_, e)| e);
        let sigs: Vec<Node<'d>> = of(SOAP_ELEMENTS.len()).collect();
        if sigs.is_empty() {
            return Err(ErrorKind::NoSignature.into());
        }
        if sigs.len() > self.config.max_signatures {
            return Err(Error::at(
                ErrorKind::TooManySignatures { count: sigs.len(), max: self.config.max_signatures },
                sigs[self.config.max_signatures].range().start,
            ));
        }
        let mut out = Vec::with_capacity(sigs.len());
        for s in sigs {
            let v = self.verify_one(doc, s, &ids)?;
            // verified like every other, but a Security header for another actor/role is not processed
            if !soap.is_some_and(|m| m.for_other_role(s)) {
                out.push(v);
            }
        }
        let verified = Verified { signatures: out, soap };
        // every signed Timestamp is checked: the Security header's was above; another,
        // in a SOAP message, is out of its place (WS-Security 1.1 §10), and outside SOAP
        // it is checked here (with the SOAP checks off, no Timestamp is)
        for ts in of(SOAP_ELEMENTS.len() + 1).filter(|_| cfg.soap_checks) {
            if soap.is_some_and(|m| m.timestamp == Some(ts)) || !verified.covers(ts) {
                continue;
            }
            match soap {
                Some(_) => return Err(Error::at(ErrorKind::TimestampMisplaced, ts.range().start)),
                None => crate::wss::check_timestamp(ts, cfg.now(), cfg.max_clock_skew)?,
            }
        }
        if cfg.require_timestamp {
            if let Some(ts) = soap.and_then(|m| m.timestamp) {
                if !verified.covers(ts) {
                    return Err(Error::at(
                        ErrorKind::TimestampRequired("no verified Reference covers the wsu:Timestamp"),
                        ts.range().start,
                    ));
                }
            }
        }
        Ok(verified)
    }

    /// Verifies the one Signature `signature` (the caller picked it), ignoring any other.
    pub fn verify_signature<'d>(&self, signature: Node<'d>) -> Result<Verified<'d>, Error> {
        let doc = signature.document();
        let ids = IdIndex::new(doc);
        Ok(Verified { signatures: vec![self.verify_one(doc, signature, &ids)?], soap: None })
    }

    fn verify_one<'d>(&self, doc: &'d Document<'d>, node: Node<'d>, ids: &IdIndex<'d>) -> Result<VerifiedSignature<'d>, Error> {
        let cfg = &self.config;
        let provider = &*cfg.provider;
        let sig = signature::parse(node, cfg)?;
        let caller = self.keys.keys();
        let method_at = sig.method_node.range().start;
        // with a trust store: the message's certificates (and the caller's
        // intermediates) become candidates, usable only once their chain validates
        let mut with_certs: Vec<VerifyingKey> = Vec::new();
        let mut message_certs: Vec<Certificate> = Vec::new();
        if let Some(t) = &self.trust {
            message_certs = keyinfo::message_certificates(sig.key_info, ids, MAX_MESSAGE_CERTIFICATES)?;
            with_certs = caller.to_vec();
            for c in message_certs.iter().chain(t.intermediate_certs()) {
                if !with_certs.iter().any(|k| k.certificate().is_some_and(|x| x.der() == c.der())) {
                    with_certs.push(VerifyingKey::from_certificate(c.clone()));
                }
            }
        }
        let keys: &[VerifyingKey] = if self.trust.is_some() { &with_certs } else { caller };

        // 1. the caller's keys KeyInfo selects, of the type the method needs, strong enough
        let selected = keyinfo::select(sig.key_info, keys, provider, ids)?;
        let fitting: Vec<usize> = selected.iter().copied().filter(|&i| fits(sig.method, keys[i].material())).collect();
        if fitting.is_empty() {
            let kinds = selected.iter().map(|&i| keys[i].material().describe()).collect::<Vec<_>>().join(", ");
            return Err(Error::at(ErrorKind::KeyMismatch { method: sig.method.uri().into(), keys: kinds }, method_at));
        }
        let strong: Vec<usize> =
            fitting.iter().copied().filter(|&i| rsa_bits(keys[i].material()).is_none_or(|b| b >= cfg.min_rsa_bits)).collect();
        if strong.is_empty() {
            let bits = fitting.iter().filter_map(|&i| rsa_bits(keys[i].material())).max().unwrap_or(0);
            return Err(Error::at(ErrorKind::WeakKey { bits, min: cfg.min_rsa_bits }, method_at));
        }

        // 2. SignedInfo canonicalized, the signature checked (before any reference work)
        let (key, chain) = self.check_signed_info(&sig, keys, &strong, &message_certs)?;
        // 3. each Reference: dereference, transform, stream into the digest, compare
        let refs = self.digest_references(doc, &sig, ids)?;
        Ok(VerifiedSignature { signature: sig.node, method: sig.method, key: key.min(caller.len()), chain, references: refs })
    }

    /// Step 2 of [`Verifier::verify_one`]: the canonical `SignedInfo` checked with
    /// the `strong` candidates among `keys`; the index of the key that verified it
    /// and, with a trust store, the validated chain.
    fn check_signed_info(
        &self,
        sig: &signature::Signature<'_>,
        keys: &[VerifyingKey],
        strong: &[usize],
        message_certs: &[Certificate],
    ) -> Result<(usize, Option<Vec<Certificate>>), Error> {
        let cfg = &self.config;
        let provider = &*cfg.provider;
        let caller = self.keys.keys();
        let mut si = Vec::with_capacity(sig.signed_info.range().len() + 256);
        sig.c14n
            .canonicalize_subtree(sig.signed_info, &mut si)
            .map_err(|e| Error::at(ErrorKind::C14n(e.to_string()), sig.signed_info.range().start))?;
        let mut used = None;
        let mut last_err = ErrorKind::InvalidSignature;
        for &i in strong {
            match provider.verify(sig.method, keys[i].material(), &si, &sig.value) {
                Ok(()) => {
                    used = Some(i);
                    break;
                }
                Err(e @ ErrorKind::UnsupportedAlgorithm(_)) => last_err = e,
                Err(_) => {}
            }
        }
        let Some(key) = used else {
            return Err(Error::at(last_err, sig.node.range().start));
        };
        let mut chain = None;
        if let Some(t) = &self.trust {
            let from_store = key >= caller.len();
            if let Some(cert) = keys[key].certificate().filter(|_| from_store || t.validates_caller_keys()) {
                let now = t.time().unwrap_or_else(|| cfg.now());
                let at = sig.key_info.map_or(sig.node.range().start, |k| k.range().start);
                chain = Some(t.validate(cert, message_certs, now, cfg.min_rsa_bits).map_err(|e| e.or_at(at))?);
            }
        }
        Ok((key, chain))
    }

    /// Step 3 of [`Verifier::verify_one`]: each Reference dereferenced,
    /// transformed, streamed into its digest (hashed by this thread's helper
    /// when [`crate::VerifyConfigBuilder::parallel`] is on and the Reference is
    /// large) and compared.
    fn digest_references<'d>(
        &self,
        doc: &'d Document<'d>,
        sig: &signature::Signature<'d>,
        ids: &IdIndex<'d>,
    ) -> Result<Vec<VerifiedReference<'d>>, Error> {
        let cfg = &self.config;
        let provider = &*cfg.provider;
        let mut refs = Vec::with_capacity(sig.references.len());
        for (index, r) in sig.references.iter().enumerate() {
            let at = r.node.range().start;
            let ctx = provider.digest(r.digest).map_err(|k| Error::at(k, at))?;
            let (coverage, digest) = reference::digest_streamed(doc, r, sig.node, ids, ctx, cfg.parallel)?;
            if digest != r.digest_value {
                return Err(Error::at(ErrorKind::DigestMismatch { index, uri: r.uri.clone().unwrap_or_default() }, at));
            }
            if cfg.reject_split_text {
                if let Coverage::Tree { apex, comments: false, excluded } = &coverage {
                    check_split_text(*apex, excluded, ids).map_err(|e| e.or_at(at))?;
                }
            }
            refs.push(VerifiedReference {
                uri: r.uri.clone(),
                node: coverage.apex(),
                digest: r.digest,
                transforms: r.transforms.iter().map(|t| t.uri.clone()).collect(),
                coverage,
            });
        }
        Ok(refs)
    }
}

fn fits(method: SignatureAlgorithm, key: &KeyMaterial) -> bool {
    match (method, key) {
        // an empty secret (made with `VerifyingKey::new`) authenticates nothing
        (SignatureAlgorithm::Hmac(_), KeyMaterial::Hmac(k)) => !k.is_empty(),
        _ => matches!(
            (method, key),
            (SignatureAlgorithm::RsaPkcs1(_) | SignatureAlgorithm::RsaPss(_), KeyMaterial::Rsa { .. })
                | (SignatureAlgorithm::Ecdsa(_), KeyMaterial::Ec { .. })
                | (SignatureAlgorithm::Ed25519, KeyMaterial::Ed25519(_))
        ),
    }
}

fn rsa_bits(k: &KeyMaterial) -> Option<usize> {
    match k {
        KeyMaterial::Rsa { bits, .. } => Some(*bits),
        _ => None,
    }
}

/// A comment with text on both sides, in content whose digest left comments out.
fn check_split_text(apex: Node<'_>, excluded: &[Node<'_>], ids: &IdIndex<'_>) -> Result<(), Error> {
    if !ids.has_comment(apex) {
        return Ok(());
    }
    let textual = |n: Option<Node<'_>>| n.is_some_and(|n| matches!(n.kind(), NodeKind::Text | NodeKind::CData));
    for n in apex.descendants() {
        if n.kind() == NodeKind::Comment
            && textual(n.prev_sibling())
            && textual(n.next_sibling())
            && n.parent().is_some_and(|p| p.kind() == NodeKind::Element)
            && !excluded.iter().any(|x| n.is_within(*x))
        {
            let blank = |s: Option<Node<'_>>| s.is_some_and(|s| s.value().trim().is_empty());
            if blank(n.prev_sibling()) || blank(n.next_sibling()) {
                continue; // layout around a comment, not a value split in two
            }
            return Err(Error::at(ErrorKind::CommentInSignedText, n.range().start));
        }
    }
    Ok(())
}
