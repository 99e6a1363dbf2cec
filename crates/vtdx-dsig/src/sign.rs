//! Signing: [`SigningKey`] (the caller's private key or HMAC secret) and
//! [`Signer`], which inserts a `ds:Signature` (or a whole WS-Security header)
//! with the core's [`Editor`], so every byte outside the inserted markup stays
//! as it was.
//!
//! How a signature is made, so that what is signed is exactly what the
//! verifier will see:
//!
//! 1. The markup is inserted with the Editor — the Signature with
//!    placeholder `DigestValue`s and `SignatureValue` (random base64 tokens),
//!    the `wsu:Id`/`Id` attributes the References need, the Security header —
//!    and the result is parsed again. (When a `wsu:Id` must go on an element
//!    where no prefix is bound to the `wsu` namespace, the declaration is added
//!    to it in the same pass.)
//! 2. Each Reference of the new Signature is dereferenced in that document
//!    and run through the verifier's own transform code, the canonical bytes
//!    streamed into the digest.
//! 3. The `SignedInfo` is canonicalized *where it stands* in that document
//!    (its in-scope namespaces count for inclusive C14N), the placeholders
//!    replaced by the digests in the canonical bytes (base64 needs no escaping
//!    in canonical XML), and signed.
//! 4. A last Editor pass writes the digests and the signature value over the
//!    placeholders.
//!
//! The usual WS-Security header (Body and a new Timestamp, Exclusive C14N) is
//! made without steps 1 to 4: every digest is computed before anything is
//! inserted, and one Editor pass writes the finished markup
//! (`Signer::wss_fast`, which says why the bytes are the same).

use std::time::{Duration, SystemTime};

use aws_lc_rs::{hmac, rand, signature as sig};
use base64::Engine;
use std::io::Write;

use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::{escape_attr, escape_text, Document, Editor, Node};

use crate::alg::{DigestAlgorithm, SignatureAlgorithm, DSIG_NS, ENVELOPED, WSU_NS};
use crate::config::VerifyConfig;
use crate::crypto::{AwsLcProvider, CryptoProvider};
use crate::error::{Error, ErrorKind};
use crate::key::{Certificate, Curve, KeyMaterial, VerifyingKey};
use crate::reference::{self, is_id_like, IdIndex};
use crate::signature::{self as model, is_ds};
use crate::time::format_rfc3339;
use crate::wss::{BASE64_BINARY, WSSE_NS, X509V3};

enum Inner {
    Rsa(sig::RsaKeyPair),
    Ec { curve: Curve, der: Vec<u8>, pair: sig::EcdsaKeyPair },
    Ed25519(sig::Ed25519KeyPair),
    Hmac(Vec<u8>),
}

/// The caller's signing key: an RSA, EC (P-256, P-384, P-521) or Ed25519
/// private key, or an HMAC secret; optionally with the certificate of its
/// public key (sent as `X509Data` or a WS-Security BinarySecurityToken) and a
/// name (sent as `KeyName`).
pub struct SigningKey {
    inner: Inner,
    public: KeyMaterial,
    cert: Option<Certificate>,
    name: Option<String>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // never print key material
        f.debug_struct("SigningKey").field("key", &self.public.describe()).field("cert", &self.cert.is_some()).finish()
    }
}

fn key_err(m: impl Into<String>) -> Error {
    ErrorKind::Key(m.into()).into()
}

const CURVES: [(Curve, &sig::EcdsaSigningAlgorithm); 3] = [
    (Curve::P256, &sig::ECDSA_P256_SHA256_FIXED_SIGNING),
    (Curve::P384, &sig::ECDSA_P384_SHA384_FIXED_SIGNING),
    (Curve::P521, &sig::ECDSA_P521_SHA512_FIXED_SIGNING),
];

fn ec_pair(alg: &'static sig::EcdsaSigningAlgorithm, der: &[u8]) -> Option<sig::EcdsaKeyPair> {
    sig::EcdsaKeyPair::from_pkcs8(alg, der).or_else(|_| sig::EcdsaKeyPair::from_private_key_der(alg, der)).ok()
}

impl SigningKey {
    /// Reads an unencrypted private key from PEM or DER: PKCS#8 (`PRIVATE
    /// KEY`: RSA, EC, Ed25519), PKCS#1 (`RSA PRIVATE KEY`) or SEC 1 (`EC
    /// PRIVATE KEY`). A `CERTIFICATE` block in the same PEM file is attached
    /// as the key's certificate (it must hold the key's public half).
    pub fn from_pem_or_der(data: &[u8]) -> Result<SigningKey, Error> {
        let blocks = pem::parse_many(data).unwrap_or_default();
        if blocks.is_empty() {
            return SigningKey::from_der(data);
        }
        let mut key = None;
        let mut cert = None;
        for b in &blocks {
            match b.tag() {
                "PRIVATE KEY" | "RSA PRIVATE KEY" | "EC PRIVATE KEY" if key.is_none() => key = Some(SigningKey::from_der(b.contents())?),
                "ENCRYPTED PRIVATE KEY" => return Err(key_err("encrypted private keys are not read")),
                "CERTIFICATE" if cert.is_none() => cert = Some(Certificate::from_der(b.contents())?),
                _ => {}
            }
        }
        let key = key.ok_or_else(|| key_err("no PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block"))?;
        match cert {
            Some(c) => key.with_certificate(c),
            None => Ok(key),
        }
    }

    /// Reads an unencrypted DER private key (PKCS#8, PKCS#1 or SEC 1).
    pub fn from_der(der: &[u8]) -> Result<SigningKey, Error> {
        let public = || -> Result<KeyMaterial, Error> { Ok(VerifyingKey::from_der(der)?.material().clone()) };
        if let Ok(k) = sig::RsaKeyPair::from_pkcs8(der).or_else(|_| sig::RsaKeyPair::from_der(der)) {
            return Ok(SigningKey { inner: Inner::Rsa(k), public: public()?, cert: None, name: None });
        }
        if let Ok(k) = sig::Ed25519KeyPair::from_pkcs8_maybe_unchecked(der) {
            let public = KeyMaterial::ed25519(sig::KeyPair::public_key(&k).as_ref())?;
            return Ok(SigningKey { inner: Inner::Ed25519(k), public, cert: None, name: None });
        }
        for (curve, alg) in CURVES {
            if let Some(pair) = ec_pair(alg, der) {
                let public = KeyMaterial::ec(curve, sig::KeyPair::public_key(&pair).as_ref())?;
                return Ok(SigningKey { inner: Inner::Ec { curve, der: der.to_vec(), pair }, public, cert: None, name: None });
            }
        }
        // aws-lc reads no RSA private key below 2048 bits: say so rather than "not a key"
        if let Some(bits) = crate::key::rsa_private_bits(der).filter(|&b| b < 2048) {
            return Err(ErrorKind::WeakKey { bits, min: 2048 }.into());
        }
        Err(key_err("not an unencrypted RSA, EC (P-256, P-384, P-521) or Ed25519 private key"))
    }

    /// An HMAC secret. An empty one is refused (`Key`): anybody can compute an
    /// HMAC with the empty key.
    pub fn hmac(secret: &[u8]) -> Result<SigningKey, Error> {
        crate::key::check_hmac_secret(secret)?;
        Ok(SigningKey { inner: Inner::Hmac(secret.to_vec()), public: KeyMaterial::Hmac(secret.to_vec()), cert: None, name: None })
    }

    /// Attaches the certificate of the key's public half (`KeyMismatch`-like
    /// `Key` error when it holds another key).
    pub fn with_certificate(mut self, cert: Certificate) -> Result<SigningKey, Error> {
        if cert.key() != &self.public {
            return Err(key_err(format!(
                "the certificate holds another key ({}) than the private key ({})",
                cert.key().describe(),
                self.public.describe()
            )));
        }
        self.cert = Some(cert);
        Ok(self)
    }

    /// Names the key (written as `KeyName` when there is no certificate).
    pub fn with_name(mut self, name: impl Into<String>) -> SigningKey {
        self.name = Some(name.into());
        self
    }

    /// The certificate, if one was attached.
    pub fn certificate(&self) -> Option<&Certificate> {
        self.cert.as_ref()
    }

    /// The key's public half (the secret itself for HMAC), as a verifier takes it.
    pub fn verifying_key(&self) -> VerifyingKey {
        let k = match &self.cert {
            Some(c) => VerifyingKey::from_certificate(c.clone()),
            None => VerifyingKey::new(self.public.clone()),
        };
        match &self.name {
            Some(n) => k.with_name(n.clone()),
            None => k,
        }
    }

    /// The algorithm a key of this type signs with by default: `rsa-sha256`,
    /// `ecdsa-sha256/384/512` by curve, `eddsa-ed25519`, `hmac-sha256`.
    pub fn default_algorithm(&self) -> SignatureAlgorithm {
        match &self.inner {
            Inner::Rsa(_) => SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha256),
            Inner::Ec { curve: Curve::P256, .. } => SignatureAlgorithm::Ecdsa(DigestAlgorithm::Sha256),
            Inner::Ec { curve: Curve::P384, .. } => SignatureAlgorithm::Ecdsa(DigestAlgorithm::Sha384),
            Inner::Ec { .. } => SignatureAlgorithm::Ecdsa(DigestAlgorithm::Sha512),
            Inner::Ed25519(_) => SignatureAlgorithm::Ed25519,
            Inner::Hmac(_) => SignatureAlgorithm::Hmac(DigestAlgorithm::Sha256),
        }
    }

    /// Signs `message` (the canonical SignedInfo) with `alg`. SHA-1 methods are
    /// refused, as are RSA keys below 2048 bits and algorithms the key's type
    /// cannot make.
    pub fn sign(&self, alg: SignatureAlgorithm, message: &[u8]) -> Result<Vec<u8>, Error> {
        use DigestAlgorithm as D;
        use SignatureAlgorithm as S;
        if alg.digest().is_some_and(|d| d.is_sha1()) {
            return Err(ErrorKind::DisallowedAlgorithm { uri: alg.uri().into(), reason: "SHA-1 is not used to sign" }.into());
        }
        let mismatch = || Error::from(ErrorKind::SigningKeyMismatch { method: alg.uri().into(), key: self.public.describe() });
        let failed = |_| Error::from(ErrorKind::SigningFailed);
        let rng = rand::SystemRandom::new();
        match (&self.inner, alg) {
            (Inner::Rsa(k), S::RsaPkcs1(_) | S::RsaPss(_)) => {
                let bits = k.public_modulus_len() * 8;
                if bits < 2048 {
                    return Err(ErrorKind::WeakKey { bits, min: 2048 }.into());
                }
                let enc: &'static dyn sig::RsaEncoding = match alg {
                    S::RsaPkcs1(D::Sha256) => &sig::RSA_PKCS1_SHA256,
                    S::RsaPkcs1(D::Sha384) => &sig::RSA_PKCS1_SHA384,
                    S::RsaPkcs1(D::Sha512) => &sig::RSA_PKCS1_SHA512,
                    S::RsaPss(D::Sha256) => &sig::RSA_PSS_SHA256,
                    S::RsaPss(D::Sha384) => &sig::RSA_PSS_SHA384,
                    S::RsaPss(D::Sha512) => &sig::RSA_PSS_SHA512,
                    _ => return Err(mismatch()),
                };
                let mut out = vec![0u8; k.public_modulus_len()];
                k.sign(enc, &rng, message, &mut out).map_err(failed)?;
                Ok(out)
            }
            (Inner::Ec { curve, der, pair }, S::Ecdsa(d)) => {
                let want: &'static sig::EcdsaSigningAlgorithm = match (curve, d) {
                    (Curve::P256, D::Sha256) => &sig::ECDSA_P256_SHA256_FIXED_SIGNING,
                    (Curve::P384, D::Sha384) => &sig::ECDSA_P384_SHA384_FIXED_SIGNING,
                    (Curve::P521, D::Sha256) => &sig::ECDSA_P521_SHA256_FIXED_SIGNING,
                    (Curve::P521, D::Sha384) => &sig::ECDSA_P521_SHA384_FIXED_SIGNING,
                    (Curve::P521, D::Sha512) => &sig::ECDSA_P521_SHA512_FIXED_SIGNING,
                    _ => return Err(mismatch()),
                };
                // the XML value is r || s (XML Signature 1.1 §6.4.3): the FIXED format
                let s = if std::ptr::eq(pair.algorithm(), want) {
                    pair.sign(&rng, message)
                } else {
                    ec_pair(want, der).ok_or_else(mismatch)?.sign(&rng, message)
                };
                Ok(s.map_err(failed)?.as_ref().to_vec())
            }
            (Inner::Ed25519(k), S::Ed25519) => Ok(k.sign(message).as_ref().to_vec()),
            (Inner::Hmac(secret), S::Hmac(d)) => {
                let a = match d {
                    D::Sha224 => hmac::HMAC_SHA224,
                    D::Sha256 => hmac::HMAC_SHA256,
                    D::Sha384 => hmac::HMAC_SHA384,
                    D::Sha512 => hmac::HMAC_SHA512,
                    _ => return Err(mismatch()),
                };
                Ok(hmac::sign(&hmac::Key::new(a, secret), message).as_ref().to_vec())
            }
            _ => Err(mismatch()),
        }
    }
}

/// How signatures are made. Defaults: the key's default method
/// ([`SigningKey::default_algorithm`]), SHA-256 digests, Exclusive C14N 1.0
/// for the SignedInfo and for every Reference, and a `KeyInfo` (the
/// certificate, else the key's name).
#[derive(Debug, Clone)]
pub struct SignConfig {
    method: Option<SignatureAlgorithm>,
    digest: DigestAlgorithm,
    signed_info_c14n: Algorithm,
    reference_c14n: Algorithm,
    key_info: bool,
}

impl Default for SignConfig {
    fn default() -> Self {
        SignConfig {
            method: None,
            digest: DigestAlgorithm::Sha256,
            signed_info_c14n: Algorithm::ExcC14n10,
            reference_c14n: Algorithm::ExcC14n10,
            key_info: true,
        }
    }
}

impl SignConfig {
    /// The SignatureMethod (default: the key's).
    pub fn method(mut self, m: SignatureAlgorithm) -> Self {
        self.method = Some(m);
        self
    }
    /// The DigestMethod of every Reference (default SHA-256).
    pub fn digest(mut self, d: DigestAlgorithm) -> Self {
        self.digest = d;
        self
    }
    /// The CanonicalizationMethod of the SignedInfo (default Exclusive C14N
    /// 1.0; an inclusive one makes the signature depend on the namespaces in
    /// scope where it is inserted, which is handled, but breaks when the
    /// message is moved into another envelope).
    pub fn signed_info_c14n(mut self, a: Algorithm) -> Self {
        self.signed_info_c14n = a;
        self
    }
    /// The canonicalization transform of every Reference (default Exclusive C14N 1.0).
    pub fn reference_c14n(mut self, a: Algorithm) -> Self {
        self.reference_c14n = a;
        self
    }
    /// Write a `KeyInfo` (default on).
    pub fn key_info(mut self, on: bool) -> Self {
        self.key_info = on;
        self
    }
}

/// Options of the WS-Security header ([`Signer::sign_wss`]).
#[derive(Debug, Clone)]
pub struct WssOptions {
    /// Time to live: `Expires` = `Created` + this (default 300 s). `None`: no `Expires`.
    pub ttl: Option<Duration>,
    /// The `Created` instant (default: the system clock).
    pub now: Option<SystemTime>,
    /// Put `mustUnderstand` on the Security header (default true).
    pub must_understand: bool,
}

impl Default for WssOptions {
    fn default() -> Self {
        WssOptions { ttl: Some(Duration::from_secs(300)), now: None, must_understand: true }
    }
}

/// Makes XML Signatures with the caller's key, inserting them with the
/// [`Editor`]: the output is the input with the new markup spliced in, every
/// other byte unchanged.
///
/// ```
/// use vtdx_dsig::{Signer, SigningKey, SignConfig, Verifier, VerifyConfig};
///
/// let key = SigningKey::hmac(b"a secret of at least 32 bytes...")?;
/// let doc = vtdx_core::Document::parse(b"<order><qty>3</qty></order>")?;
/// let signed = Signer::new(key, SignConfig::default()).sign_enveloped(&doc)?;
/// assert!(signed.starts_with(b"<order><qty>3</qty><ds:Signature"));
///
/// let doc = vtdx_core::Document::parse(&signed)?;
/// let v = Verifier::new(VerifyConfig::default(), vec![vtdx_dsig::VerifyingKey::hmac(b"a secret of at least 32 bytes...")?]);
/// assert!(v.verify(&doc)?.covers(doc.root_element()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Signer {
    key: SigningKey,
    config: SignConfig,
    method: SignatureAlgorithm,
}

/// What to sign, the targets given as ordinals among the document's elements
/// (so that they survive a re-parse).
enum Mode {
    Enveloped,
    Detached(Vec<usize>),
    Wss(WssOptions, Vec<usize>),
}

fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    // SystemRandom does not fail on the platforms aws-lc supports; a failure leaves zeros,
    // and a duplicate ID is then caught by the uniqueness check before signing
    let _ = rand::fill(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn random_b64(n: usize) -> String {
    let mut b = vec![0u8; n];
    let _ = rand::fill(&mut b);
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn edit_err(e: vtdx_core::EditError) -> Error {
    ErrorKind::Sign(e.to_string()).into()
}

fn elements<'d>(doc: &'d Document<'d>) -> Vec<Node<'d>> {
    doc.root().descendant_elements().collect()
}

fn ordinals<'d>(doc: &'d Document<'d>, targets: &[Node<'d>]) -> Result<Vec<usize>, Error> {
    let all = elements(doc);
    let mut out = Vec::with_capacity(targets.len());
    for t in targets {
        if !t.is_element() || !std::ptr::eq(t.document(), doc) {
            return Err(ErrorKind::Sign("a target is not an element of the document".into()).into());
        }
        let o = all.binary_search_by_key(&t.range().start, |e| e.range().start).map_err(|_| ErrorKind::Sign("target not found".into()))?;
        if !out.contains(&o) {
            out.push(o);
        }
    }
    Ok(out)
}

/// The ID an element already carries (any ID-like attribute), if any.
fn existing_id(e: Node<'_>) -> Option<String> {
    e.attributes().find(is_id_like).map(|a| a.value().trim().to_string())
}

/// The prefix bound to the wsu namespace at `e`, if any.
fn wsu_prefix(e: Node<'_>) -> Option<String> {
    e.namespaces().into_iter().find(|(p, u)| *u == WSU_NS && !p.is_empty()).map(|(p, _)| p.to_string())
}

/// Selects the elements an XPath 1.0 expression names in `doc`. Prefixes:
/// those declared in the document (the first declaration of each wins), and
/// `soap` (1.1), `soap12`, `wsse`, `wsu`, `ds` where the document does not
/// bind them.
pub fn select_elements<'d>(doc: &'d Document<'d>, xpath: &str) -> Result<Vec<Node<'d>>, Error> {
    use vtdx_xpath::{Namespaces, XNodeKind, XPath};
    let mut ns = Namespaces::declared_in(doc);
    for (p, u) in [("soap", crate::wss::SOAP11_NS), ("soap12", crate::wss::SOAP12_NS), ("wsse", WSSE_NS), ("wsu", WSU_NS), ("ds", DSIG_NS)]
    {
        if ns.get(p).is_none() {
            ns.insert(p, u);
        }
    }
    let x = XPath::compile(xpath, &ns).map_err(|e| Error::new(ErrorKind::XPath(e.to_string())))?;
    let set = x.select(doc.root()).map_err(|e| Error::new(ErrorKind::XPath(e.to_string())))?;
    let mut out = Vec::new();
    for n in set.iter() {
        if n.kind() != XNodeKind::Element {
            return Err(ErrorKind::Sign(format!("`{xpath}` selects a node that is not an element")).into());
        }
        out.push(n.node());
    }
    if out.is_empty() {
        return Err(ErrorKind::Sign(format!("`{xpath}` selects no element")).into());
    }
    Ok(out)
}

/// A Reference to write: its URI and whether it needs the enveloped-signature transform.
struct RefSpec {
    uri: String,
    enveloped: bool,
    placeholder: String,
}

impl RefSpec {
    fn new(uri: String, enveloped: bool) -> RefSpec {
        RefSpec { uri, enveloped, placeholder: random_b64(33) }
    }
}

impl Signer {
    /// A signer with the caller's key. The method must suit the key
    /// (checked when signing).
    pub fn new(key: SigningKey, config: SignConfig) -> Signer {
        let method = config.method.unwrap_or_else(|| key.default_algorithm());
        Signer { key, config, method }
    }

    /// The key.
    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    /// The SignatureMethod used.
    pub fn method(&self) -> SignatureAlgorithm {
        self.method
    }

    /// An enveloped signature of the whole document: `URI=""`, the
    /// enveloped-signature transform and the configured canonicalization;
    /// the `ds:Signature` becomes the document element's last child.
    pub fn sign_enveloped(&self, doc: &Document<'_>) -> Result<Vec<u8>, Error> {
        self.run(doc, Mode::Enveloped)
    }

    /// Detached same-document References to `targets` (elements of `doc`,
    /// e.g. from [`select_elements`]), each by its existing ID or a new `Id`
    /// attribute; the `ds:Signature` becomes the document element's last
    /// child (a target that contains it gets the enveloped-signature transform).
    pub fn sign_detached<'d>(&self, doc: &'d Document<'d>, targets: &[Node<'d>]) -> Result<Vec<u8>, Error> {
        if targets.is_empty() {
            return Err(ErrorKind::Sign("nothing to sign".into()).into());
        }
        let o = ordinals(doc, targets)?;
        self.run(doc, Mode::Detached(o))
    }

    /// The WS-Security 1.1 header of a SOAP 1.1 or 1.2 message: a
    /// `wsse:Security` header (made in the `Header`, which is made if
    /// missing, or the existing one for the ultimate receiver) with a
    /// `wsu:Timestamp`, a `wsse:BinarySecurityToken` with the key's certificate
    /// (when it has one) and a `ds:Signature` over the Body, the Timestamp and
    /// `extra` elements, whose `KeyInfo` is a `wsse:SecurityTokenReference` to
    /// the token. Elements without an ID get a `wsu:Id`. A Security header that
    /// already holds a Timestamp keeps it, and that Timestamp is signed
    /// (WS-Security allows one per header; `ttl` and `now` then do not apply).
    pub fn sign_wss<'d>(&self, doc: &'d Document<'d>, options: &WssOptions, extra: &[Node<'d>]) -> Result<Vec<u8>, Error> {
        let o = ordinals(doc, extra)?;
        let ids = WssIds::random();
        if o.is_empty() {
            if let Some(out) = self.wss_fast(doc, options, &ids)? {
                return Ok(out);
            }
        }
        self.place(doc, &Mode::Wss(options.clone(), o), &ids)
    }

    fn run(&self, doc: &Document<'_>, mode: Mode) -> Result<Vec<u8>, Error> {
        self.place(doc, &mode, &WssIds::random())
    }

    /// Step 1: inserts the markup with placeholders, then finishes on the re-parsed document.
    fn place(&self, doc: &Document<'_>, mode: &Mode, ids: &WssIds) -> Result<Vec<u8>, Error> {
        // the elements by ordinal, for the modes that name targets (a WS-Security
        // signature of the Body and Timestamp alone needs none)
        let all = match mode {
            Mode::Detached(t) | Mode::Wss(_, t) if !t.is_empty() => elements(doc),
            _ => Vec::new(),
        };
        let root = doc.root_element();
        let marker = random_b64(24);
        let mut ed = Editor::new(doc);
        let mut refs = Vec::new();
        let ancestor_or_self = |a: Node<'_>, n: Node<'_>| {
            let mut c = Some(n);
            while let Some(x) = c {
                if x == a {
                    return true;
                }
                c = x.parent();
            }
            false
        };
        match mode {
            Mode::Enveloped => {
                refs.push(RefSpec::new(String::new(), true));
                let s = self.signature_markup(&refs, &marker, None);
                ed.append_child(root, &s).map_err(edit_err)?;
            }
            Mode::Detached(targets) => {
                for &i in targets {
                    let e = all[i];
                    let id = id_for(&mut ed, e, false)?;
                    refs.push(RefSpec::new(format!("#{id}"), ancestor_or_self(e, root)));
                }
                let s = self.signature_markup(&refs, &marker, None);
                ed.append_child(root, &s).map_err(edit_err)?;
            }
            Mode::Wss(opts, extra) => {
                let soap = wss_parts(doc)?;
                let body_id = wss_id_for(&mut ed, soap.body, &ids.body)?;
                // at most one Timestamp per header: one already there is signed as it is
                let ts_id = match soap.timestamp {
                    Some(ts) => id_for(&mut ed, ts, true)?,
                    None => ids.ts.clone(),
                };
                refs.push(RefSpec::new(format!("#{body_id}"), false));
                refs.push(RefSpec::new(format!("#{ts_id}"), false));
                // where the Signature will be: inside the Security header, inside the Header
                let sec_parent = soap.security.or(soap.header).unwrap_or(soap.envelope);
                for &i in extra {
                    let e = all[i];
                    if e == soap.body {
                        continue;
                    }
                    let id = wss_id_for(&mut ed, e, &format!("id-{}", random_hex(16)))?;
                    refs.push(RefSpec::new(format!("#{id}"), ancestor_or_self(e, sec_parent)));
                }
                let mut inner = String::new();
                if soap.timestamp.is_none() {
                    inner.push_str(&timestamp_markup(&ids.ts, opts));
                }
                let (bst, str_ki) = self.wss_token(&ids.bst);
                inner.push_str(&bst);
                inner.push_str(&self.signature_markup(&refs, &marker, str_ki));
                crate::wss::insert_security_header(&mut ed, &soap, opts.must_understand, &inner, false).map_err(edit_err)?;
            }
        }
        let doc2 = ed.into_document().map_err(edit_err)?;
        self.finish(&doc2, &marker, &refs)
    }

    /// The `BinarySecurityToken` with the key's certificate (empty without one,
    /// or without `KeyInfo`), and the `KeyInfo` that refers to it.
    fn wss_token(&self, bst_id: &str) -> (String, Option<String>) {
        let Some(c) = self.key.cert.as_ref().filter(|_| self.config.key_info) else {
            return (String::new(), None);
        };
        let bst = format!(
            r#"<wsse:BinarySecurityToken xmlns:wsse="{WSSE_NS}" xmlns:wsu="{WSU_NS}" EncodingType="{BASE64_BINARY}" ValueType="{X509V3}" wsu:Id="{bst_id}">{}</wsse:BinarySecurityToken>"#,
            b64(c.der())
        );
        let ki = format!(
            r##"<ds:KeyInfo><wsse:SecurityTokenReference xmlns:wsse="{WSSE_NS}"><wsse:Reference URI="#{bst_id}" ValueType="{X509V3}"/></wsse:SecurityTokenReference></ds:KeyInfo>"##
        );
        (bst, Some(ki))
    }

    /// The WS-Security header of the usual case in one Editor pass over `doc`,
    /// with no second parse of the message (docs/dsig.md, "Signing without a
    /// second parse"): `None` when the case is not the usual one, and the
    /// caller then takes the general way ([`Signer::place`]), which gives the
    /// same bytes.
    ///
    /// The usual case: Exclusive C14N 1.0 (no comments, no prefix list) for the
    /// References and the SignedInfo, no DTD, no Timestamp yet, no parts but
    /// the Body, a namespace-aware parse whose limits the output cannot reach. Then every canonical form the signature needs is known before
    /// the markup is inserted:
    /// - the Timestamp and the SignedInfo are this signer's markup; their only
    ///   visibly utilized prefixes (`wsu`, `ds`) are declared by themselves or by
    ///   the generated `ds:Signature`, Exclusive C14N takes no `xml:*` attribute
    ///   and nothing else from outside the subtree, and there is no prefix list:
    ///   their canonical form where they will stand is that of the markup
    ///   parsed on its own;
    /// - the Body: the header goes beside it or into a sibling, never on an
    ///   ancestor, so its canonical form changes only through what is added to
    ///   its own start tag. With an ID of its own (unique in the document, and a
    ///   plain name the Reference URI resolves as it stands) nothing is added.
    ///   Otherwise `p:Id` (and perhaps `xmlns:p`) is added, which changes the
    ///   apex start tag and could change how descendants that use prefix `p`
    ///   are rendered: when `p:` occurs nowhere in the Body's content, no
    ///   descendant uses `p`, and the canonical form is the new start tag (the
    ///   canonical form of the edited tag in a small document declaring the
    ///   namespaces in scope) followed by the original canonical form after its
    ///   own start tag, which is checked to be what that small document gives
    ///   for the unedited tag.
    fn wss_fast(&self, doc: &Document<'_>, opts: &WssOptions, ids: &WssIds) -> Result<Option<Vec<u8>>, Error> {
        let exc = Algorithm::ExcC14n10;
        if self.config.signed_info_c14n != exc || self.config.reference_c14n != exc || doc.dtd().is_some() {
            return Ok(None);
        }
        let soap = wss_parts(doc)?;
        if soap.timestamp.is_some() {
            return Ok(None);
        }
        let body = soap.body;
        // the general way parses the output with the message's options: a namespace-unaware
        // parse, or limits the inserted markup could reach, are left to it
        let o = doc.options();
        let lim = &o.limits;
        if !o.namespaces || lim.max_depth < 16 || lim.max_name_len < 64 || (lim.max_attributes as usize) < body.attributes().count() + 16 {
            return Ok(None);
        }
        let c14n = Canonicalizer::new(exc).with_comments(false).write_size(usize::MAX);
        let c14n_err = |e: vtdx_c14n::C14nError| Error::new(ErrorKind::C14n(e.to_string()));
        let provider = AwsLcProvider;
        let mut ctx = provider.digest(self.config.digest).map_err(Error::new)?;
        let (body_id, added) = match existing_id(body) {
            Some(id) => {
                // the general way resolves `#id` in the whole document: a plain name
                // that only the Body carries, else that way decides
                if id.is_empty() || !vtdx_core::is_name(id.as_bytes()) || id.contains(':') {
                    return Ok(None);
                }
                if !IdIndex::new(doc).get(&id).is_ok_and(|e| e == body) {
                    return Ok(None);
                }
                c14n.canonicalize_subtree_excluding(body, &[], &mut ctx).map_err(c14n_err)?;
                (id, Vec::new())
            }
            None => {
                let added = wsu_id_attributes(body, &ids.body);
                let prefix = added.last().and_then(|(q, _)| q.split_once(':')).map_or("", |(p, _)| p);
                let Some(content) = body.content_range().and_then(|r| doc.text().get(r)) else {
                    return Ok(None);
                };
                let mut needle = prefix.as_bytes().to_vec();
                needle.push(b':');
                if memchr::memmem::find(content, &needle).is_some() {
                    return Ok(None);
                }
                let extra: String = added.iter().map(|(q, v)| format!(r#" {q}="{}""#, escape_attr(v, b'"'))).collect();
                let (Some(old_tag), Some(new_tag)) = (canonical_start_tag(body, ""), canonical_start_tag(body, &extra)) else {
                    return Ok(None);
                };
                ctx.write_all(&new_tag).map_err(|e| Error::new(ErrorKind::C14n(e.to_string())))?;
                let mut w = ApexSwap { old: &old_tag, seen: 0, differs: false, out: &mut ctx };
                let done = c14n.canonicalize_subtree_excluding(body, &[], &mut w);
                if w.differs || w.seen != old_tag.len() {
                    return Ok(None);
                }
                done.map_err(c14n_err)?;
                (ids.body.clone(), added)
            }
        };
        let body_digest = b64(&ctx.finish());
        let ts = timestamp_markup(&ids.ts, opts);
        let ts_doc = Document::parse(ts.as_bytes()).map_err(|e| Error::new(ErrorKind::Sign(e.to_string())))?;
        let mut ctx = provider.digest(self.config.digest).map_err(Error::new)?;
        c14n.canonicalize_subtree_excluding(ts_doc.root_element(), &[], &mut ctx).map_err(c14n_err)?;
        let ts_digest = b64(&ctx.finish());
        let refs = [
            RefSpec { uri: format!("#{body_id}"), enveloped: false, placeholder: body_digest },
            RefSpec { uri: format!("#{}", ids.ts), enveloped: false, placeholder: ts_digest },
        ];
        let marker = random_b64(24);
        let (bst, str_ki) = self.wss_token(&ids.bst);
        let sig = self.signature_markup(&refs, &marker, str_ki);
        let sig_doc = Document::parse(sig.as_bytes()).map_err(|e| Error::new(ErrorKind::Sign(e.to_string())))?;
        let lenient = VerifyConfig::builder().allow_sha1(true).max_references(usize::MAX).max_transforms(usize::MAX).build();
        let parsed = model::parse(sig_doc.root_element(), &lenient)?;
        let mut si = Vec::with_capacity(parsed.signed_info.range().len() + 64);
        parsed.c14n.canonicalize_subtree(parsed.signed_info, &mut si).map_err(c14n_err)?;
        let value = self.key.sign(self.method, &si)?;
        let from = format!("<ds:SignatureValue>{marker}</ds:SignatureValue>");
        let sig = sig.replacen(&from, &format!("<ds:SignatureValue>{}</ds:SignatureValue>", b64(&value)), 1);
        let mut ed = Editor::new(doc);
        for (q, v) in &added {
            ed.set_attribute(body, q, v).map_err(edit_err)?;
        }
        let inner = format!("{ts}{bst}{sig}");
        crate::wss::insert_security_header(&mut ed, &soap, opts.must_understand, &inner, false).map_err(edit_err)?;
        let out = ed.to_vec().map_err(edit_err)?;
        Ok((out.len() as u64 <= lim.max_document_size).then_some(out))
    }

    fn signature_markup(&self, refs: &[RefSpec], marker: &str, key_info: Option<String>) -> String {
        let c = self.config.reference_c14n.uri(false);
        let mut s = format!(
            r#"<ds:Signature xmlns:ds="{DSIG_NS}"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="{}"/><ds:SignatureMethod Algorithm="{}"/>"#,
            self.config.signed_info_c14n.uri(false),
            self.method.uri()
        );
        for r in refs {
            s.push_str(&format!(r#"<ds:Reference URI="{}"><ds:Transforms>"#, escape_attr(&r.uri, b'"')));
            if r.enveloped {
                s.push_str(&format!(r#"<ds:Transform Algorithm="{ENVELOPED}"/>"#));
            }
            s.push_str(&format!(
                r#"<ds:Transform Algorithm="{c}"/></ds:Transforms><ds:DigestMethod Algorithm="{}"/><ds:DigestValue>{}</ds:DigestValue></ds:Reference>"#,
                self.config.digest.uri(),
                r.placeholder
            ));
        }
        s.push_str(&format!("</ds:SignedInfo><ds:SignatureValue>{marker}</ds:SignatureValue>"));
        match key_info {
            Some(k) => s.push_str(&k),
            None if self.config.key_info => {
                if let Some(c) = &self.key.cert {
                    s.push_str(&format!(
                        "<ds:KeyInfo><ds:X509Data><ds:X509Certificate>{}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>",
                        b64(c.der())
                    ));
                } else if let Some(n) = &self.key.name {
                    s.push_str(&format!("<ds:KeyInfo><ds:KeyName>{}</ds:KeyName></ds:KeyInfo>", escape_text(n)));
                }
            }
            None => {}
        }
        s.push_str("</ds:Signature>");
        s
    }

    /// Steps 2 to 4 on the document with the markup in place.
    fn finish(&self, doc: &Document<'_>, marker: &str, refs: &[RefSpec]) -> Result<Vec<u8>, Error> {
        let sig_node = reference::elements_named(doc, &[(DSIG_NS, "SignatureValue")])
            .into_iter()
            .map(|(_, e)| e)
            .find(|e| e.value() == marker && e.parent().is_some_and(|p| is_ds(&p, "Signature")))
            .and_then(|v| v.parent())
            .ok_or_else(|| Error::new(ErrorKind::Sign("the inserted Signature was not found again".into())))?;
        let lenient = VerifyConfig::builder().allow_sha1(true).max_references(usize::MAX).max_transforms(usize::MAX).build();
        let parsed = model::parse(sig_node, &lenient)?;
        let ids = IdIndex::new(doc);
        let provider = AwsLcProvider;
        let mut digests = Vec::with_capacity(parsed.references.len());
        for r in &parsed.references {
            let mut ctx = provider.digest(r.digest).map_err(Error::new)?;
            reference::digest_input(doc, r, sig_node, &ids, &mut ctx, usize::MAX)?;
            let dv = r
                .node
                .element_children()
                .find(|c| is_ds(c, "DigestValue"))
                .ok_or_else(|| Error::new(ErrorKind::Sign("no DigestValue".into())))?;
            digests.push((dv, b64(&ctx.finish())));
        }
        let mut si = Vec::with_capacity(parsed.signed_info.range().len() + 64);
        parsed.c14n.canonicalize_subtree(parsed.signed_info, &mut si).map_err(|e| Error::new(ErrorKind::C14n(e.to_string())))?;
        for ((_, d), spec) in digests.iter().zip(refs) {
            if !replace_once(&mut si, spec.placeholder.as_bytes(), d.as_bytes()) {
                return Err(ErrorKind::Sign("a DigestValue placeholder is not in the canonical SignedInfo".into()).into());
            }
        }
        let value = self.key.sign(self.method, &si)?;
        let mut ed = Editor::new(doc);
        for (dv, d) in &digests {
            ed.set_text(*dv, d).map_err(edit_err)?;
        }
        let sv = sig_node
            .element_children()
            .find(|c| is_ds(c, "SignatureValue"))
            .ok_or_else(|| Error::new(ErrorKind::Sign("no SignatureValue".into())))?;
        ed.set_text(sv, &b64(&value)).map_err(edit_err)?;
        ed.to_vec().map_err(edit_err)
    }
}

/// The ID of `e` for a Reference: its own, else a new `wsu:Id` (when `wsu`
/// and a prefix is bound to the wsu namespace at `e`) or `Id`.
fn id_for<'d>(ed: &mut Editor<'d>, e: Node<'d>, wsu: bool) -> Result<String, Error> {
    if let Some(id) = existing_id(e) {
        return Ok(id);
    }
    let id = format!("id-{}", random_hex(16));
    let qname = match (wsu, wsu_prefix(e)) {
        (true, Some(p)) => format!("{p}:Id"),
        _ => "Id".to_string(),
    };
    ed.set_attribute(e, &qname, &id).map_err(edit_err)?;
    Ok(id)
}

/// The ID of `e` for a WS-Security Reference: its own, else `new_id` as a
/// `wsu:Id` ([`wsu_id_attributes`]), added in the same Editor pass.
fn wss_id_for<'d>(ed: &mut Editor<'d>, e: Node<'d>, new_id: &str) -> Result<String, Error> {
    if let Some(id) = existing_id(e) {
        return Ok(id);
    }
    for (q, v) in wsu_id_attributes(e, new_id) {
        ed.set_attribute(e, &q, &v).map_err(edit_err)?;
    }
    Ok(new_id.to_string())
}

/// The attributes that give `e` the `wsu:Id` `id`, in the order they are set:
/// a declaration of the wsu namespace when no prefix is bound to it at `e`
/// (`wsu`, or `vtdxwsu` when `wsu` means something else), then `p:Id`.
fn wsu_id_attributes(e: Node<'_>, id: &str) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(2);
    let prefix = match wsu_prefix(e) {
        Some(p) => p,
        None => {
            let p = if e.lookup_namespace("wsu").is_none() { "wsu" } else { "vtdxwsu" };
            out.push((format!("xmlns:{p}"), WSU_NS.to_string()));
            p.to_string()
        }
    };
    out.push((format!("{prefix}:Id"), id.to_string()));
    out
}

/// The IDs a WS-Security signature makes (random; tests fix them to compare
/// the two ways of signing).
#[derive(Debug, Clone)]
pub(crate) struct WssIds {
    /// The Body's `wsu:Id` when it has no ID.
    pub(crate) body: String,
    /// The new Timestamp's.
    pub(crate) ts: String,
    /// The BinarySecurityToken's.
    pub(crate) bst: String,
}

impl WssIds {
    fn random() -> WssIds {
        WssIds { body: format!("id-{}", random_hex(16)), ts: format!("TS-{}", random_hex(16)), bst: format!("X509-{}", random_hex(16)) }
    }
}

/// A new `wsu:Timestamp` (Created: `opts.now` or the clock; Expires: + `ttl`).
fn timestamp_markup(id: &str, opts: &WssOptions) -> String {
    let now = opts.now.unwrap_or_else(SystemTime::now);
    let mut s = format!(r#"<wsu:Timestamp xmlns:wsu="{WSU_NS}" wsu:Id="{id}"><wsu:Created>{}</wsu:Created>"#, format_rfc3339(now));
    if let Some(ttl) = opts.ttl {
        s.push_str(&format!("<wsu:Expires>{}</wsu:Expires>", format_rfc3339(now + ttl)));
    }
    s.push_str("</wsu:Timestamp>");
    s
}

/// The canonical form (Exclusive C14N 1.0) of `e`'s start tag with the
/// attributes `extra` (` q="v"`...) added: the tag is parsed in a small
/// document whose outer element declares the namespaces in scope at `e`, and
/// the end tag cut off the canonical form. `None` when that document does not parse.
fn canonical_start_tag(e: Node<'_>, extra: &str) -> Option<Vec<u8>> {
    let tag = std::str::from_utf8(&e.document().text()[e.start_tag_range()?]).ok()?;
    let head = tag.strip_suffix("/>").or_else(|| tag.strip_suffix('>'))?;
    let mut m = String::with_capacity(tag.len() + extra.len() + 256);
    m.push_str("<w");
    for (p, u) in e.namespaces() {
        match p {
            "xml" => {}
            "" => m.push_str(&format!(r#" xmlns="{}""#, escape_attr(u, b'"'))),
            p => m.push_str(&format!(r#" xmlns:{p}="{}""#, escape_attr(u, b'"'))),
        }
    }
    let name = e.name();
    m.push_str(&format!(">{head}{extra}></{name}></w>"));
    let d = Document::parse(m.as_bytes()).ok()?;
    let inner = d.root_element().element_children().next()?;
    let v = Canonicalizer::new(Algorithm::ExcC14n10).with_comments(false).subtree_to_vec(inner).ok()?;
    v.strip_suffix(format!("</{name}>").as_bytes()).map(<[u8]>::to_vec)
}

/// A `Write` that checks the first bytes written are `old` (the canonical
/// start tag the edit replaces) and passes the rest to `out`.
struct ApexSwap<'a, W: Write + ?Sized> {
    old: &'a [u8],
    seen: usize,
    differs: bool,
    out: &'a mut W,
}

impl<W: Write + ?Sized> Write for ApexSwap<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut b = buf;
        if self.seen < self.old.len() {
            let n = b.len().min(self.old.len() - self.seen);
            if b[..n] != self.old[self.seen..self.seen + n] {
                self.differs = true;
                return Err(std::io::Error::other("the canonical start tag is not the expected one"));
            }
            self.seen += n;
            b = &b[n..];
        }
        if !b.is_empty() {
            self.out.write_all(b)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Replaces the first occurrence of `from` in `v` by `to`.
fn replace_once(v: &mut Vec<u8>, from: &[u8], to: &[u8]) -> bool {
    match v.windows(from.len()).position(|w| w == from) {
        Some(i) => {
            v.splice(i..i + from.len(), to.iter().copied());
            true
        }
        None => false,
    }
}

/// The SOAP parts signing needs; `Sign` errors when the document is not a SOAP message.
fn wss_parts<'d>(doc: &'d Document<'d>) -> Result<crate::wss::SoapMessage<'d>, Error> {
    crate::wss::SoapMessage::parse(doc)?
        .ok_or_else(|| Error::new(ErrorKind::Sign("not a SOAP message: the document element is not a SOAP 1.1 or 1.2 Envelope".into())))
}

#[cfg(test)]
#[path = "sign_tests.rs"]
mod tests;
