//! Errors: an [`ErrorKind`] and, where one applies, the byte offset in
//! [`vtdx_core::Document::text`] of the element or attribute at fault.

use std::fmt;

/// Verification (or key loading) failed.
///
/// `offset` is the byte offset, in the document's text, of the element the
/// error is about (the `Reference`, `Transform`, `SignatureMethod`...), when
/// there is one. Line and column are computed only when displayed through
/// [`Error::display_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: Option<usize>,
}

impl Error {
    /// An error of `kind` with no position.
    pub fn new(kind: ErrorKind) -> Error {
        Error { kind, offset: None }
    }

    /// An error of `kind` at byte `offset`.
    pub fn at(kind: ErrorKind, offset: usize) -> Error {
        Error { kind, offset: Some(offset) }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Byte offset in the document's text, where one applies.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// The message with line and column computed from the document's text.
    pub fn display_with(&self, text: &[u8]) -> String {
        match self.offset {
            Some(o) => {
                let (l, c) = vtdx_core::line_column(text, o);
                format!("{} (line {l}, column {c})", self.kind)
            }
            None => self.kind.to_string(),
        }
    }

    pub(crate) fn or_at(mut self, offset: usize) -> Error {
        self.offset.get_or_insert(offset);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "{} at byte {o}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for Error {}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error::new(kind)
    }
}

/// The kinds of failure. Each secure default has its own kind, so an
/// application (and the attack tests) can tell *why* a message was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The document has no `ds:Signature` element.
    #[error("no ds:Signature element in the document")]
    NoSignature,
    /// More `ds:Signature` elements than [`crate::VerifyConfig::max_signatures`].
    #[error("too many signatures: {count}, at most {max} allowed")]
    TooManySignatures {
        /// Signatures found.
        count: usize,
        /// The configured limit.
        max: usize,
    },
    /// The node given as a signature is not a `ds:Signature` element of the document.
    #[error("not a ds:Signature element")]
    NotASignature,
    /// The Signature does not have the structure XML Signature §4 requires
    /// (e.g. `SignedInfo` missing or out of order, two `DigestValue`s).
    #[error("malformed signature: {0}")]
    Malformed(String),
    /// An algorithm URI this implementation does not know or offer.
    #[error("unsupported algorithm `{0}`")]
    UnsupportedAlgorithm(String),
    /// An algorithm refused by policy: MD5 always; SHA-1 unless
    /// [`crate::VerifyConfigBuilder::allow_sha1`]; XSLT always; the XPath 1.0
    /// transform and XPath Filter 2.0 unless allowed.
    #[error("algorithm `{uri}` refused: {reason}")]
    DisallowedAlgorithm {
        /// The algorithm URI.
        uri: String,
        /// Why (`"MD5 is broken"`, `"SHA-1 not allowed"`...).
        reason: &'static str,
    },
    /// A Reference outside the document (`http:`, `file:`, a relative URI, no
    /// URI at all): never dereferenced (XML Signature §4.4.3.1 leaves
    /// dereferencing to the application; this implementation only offers
    /// same-document references).
    #[error("reference to `{0}` refused: only same-document references are dereferenced")]
    ExternalReference(String),
    /// A same-document reference form other than `""`, `#id`,
    /// `#xpointer(/)` and `#xpointer(id('id'))`.
    #[error("unsupported same-document reference `{0}`")]
    UnsupportedReference(String),
    /// No element has the ID a reference names.
    #[error("no element with ID `{0}`")]
    IdNotFound(String),
    /// The ID a reference names is carried by more than one ID-like attribute
    /// (`Id`, `ID`, `id`, `wsu:Id`, `xml:id`, DTD-declared IDs): the classic
    /// signature-wrapping set-up.
    #[error("ID `{0}` is not unique in the document")]
    DuplicateId(String),
    /// More transforms in one Reference than [`crate::VerifyConfig::max_transforms`].
    #[error("too many transforms in a reference: {count}, at most {max} allowed")]
    TooManyTransforms {
        /// Transforms found.
        count: usize,
        /// The configured limit.
        max: usize,
    },
    /// More References in one SignedInfo than [`crate::VerifyConfig::max_references`].
    #[error("too many references: {count}, at most {max} allowed")]
    TooManyReferences {
        /// References found.
        count: usize,
        /// The configured limit.
        max: usize,
    },
    /// A transform sequence this implementation cannot apply (e.g. a node-set
    /// transform after `base64`, which would need the octets parsed as XML).
    #[error("transform `{uri}` cannot be applied: {reason}")]
    Transform {
        /// The transform's algorithm URI.
        uri: String,
        /// Why.
        reason: String,
    },
    /// An XPath expression of a transform failed to compile or evaluate.
    #[error("XPath error: {0}")]
    XPath(String),
    /// Canonicalization failed (e.g. a relative namespace URI).
    #[error("canonicalization failed: {0}")]
    C14n(String),
    /// `KeyInfo` holds a `RetrievalMethod`: refused, never followed.
    #[error("ds:RetrievalMethod is refused: keys are never retrieved")]
    RetrievalMethod,
    /// `HMACOutputLength` asks for a truncated HMAC (CVE-2009-0217), or for more
    /// bits than the HMAC has: only the full output is accepted.
    #[error("{}", hmac_length_message(*bits, *full))]
    TruncatedHmac {
        /// The requested length in bits.
        bits: u64,
        /// The full output length in bits.
        full: u64,
    },
    /// The caller supplied no key at all.
    #[error("no verification key was supplied")]
    NoKey,
    /// `KeyInfo` names a key (by value, certificate, name, issuer/serial, SKI,
    /// digest) that is none of the caller's keys. The key a message carries is
    /// never used.
    #[error("KeyInfo names a key the caller did not supply ({0})")]
    UntrustedKey(String),
    /// None of the caller's (selected) keys fits the SignatureMethod: e.g. an
    /// HMAC method with an RSA public key (algorithm confusion).
    #[error("no key of the right type for `{method}`: the selected keys are {keys}")]
    KeyMismatch {
        /// The SignatureMethod URI.
        method: String,
        /// The selected keys' types.
        keys: String,
    },
    /// An RSA key below [`crate::VerifyConfig::min_rsa_bits`] (or above what the provider accepts).
    #[error("RSA key of {bits} bits refused: at least {min} required")]
    WeakKey {
        /// The key's modulus length.
        bits: usize,
        /// The configured minimum.
        min: usize,
    },
    /// A key or certificate could not be read.
    #[error("cannot read key: {0}")]
    Key(String),
    /// `DigestValue` or `SignatureValue` is not valid base64 (or has the wrong length).
    #[error("invalid base64 in {0}")]
    Base64(&'static str),
    /// A Reference's digest does not match its data.
    #[error("digest mismatch for reference {index} (URI `{uri}`)")]
    DigestMismatch {
        /// 0-based position of the Reference in SignedInfo.
        index: usize,
        /// Its URI.
        uri: String,
    },
    /// The SignatureValue does not verify over the canonical SignedInfo with
    /// any of the selected keys.
    #[error("the signature value does not verify")]
    InvalidSignature,
    /// Signed content (a reference that leaves comments out) holds a comment
    /// between two pieces of text: what the digest saw as one string the
    /// application may read as two (the comment-injection attack on SAML).
    #[error("a comment splits signed text: the signed value and the text an application reads may differ")]
    CommentInSignedText,

    // ---- certificate path validation (RFC 5280 §6) --------------------------------
    /// No chain from the certificate to one of the caller's trust anchors
    /// (no issuer among the anchors and intermediates).
    #[error("certificate `{0}` does not chain to a trust anchor")]
    UntrustedCertificate(String),
    /// A certificate of the chain is past its `notAfter` at the validation time (RFC 5280 §4.1.2.5).
    #[error("certificate `{subject}` expired at {not_after}")]
    CertificateExpired {
        /// The certificate's subject.
        subject: String,
        /// Its notAfter.
        not_after: String,
    },
    /// A certificate of the chain is before its `notBefore` at the validation time (RFC 5280 §4.1.2.5).
    #[error("certificate `{subject}` is not valid before {not_before}")]
    CertificateNotYetValid {
        /// The certificate's subject.
        subject: String,
        /// Its notBefore.
        not_before: String,
    },
    /// A caller-supplied CRL of its issuer lists the certificate (RFC 5280 §5.3).
    #[error("certificate `{subject}` (serial {serial}) is revoked")]
    CertificateRevoked {
        /// The certificate's subject.
        subject: String,
        /// Its serial number, decimal.
        serial: String,
    },
    /// The certificate's signature does not verify under the public key of an
    /// issuer of the right name.
    #[error("the signature of certificate `{0}` does not verify under its issuer's key")]
    CertificateSignature(String),
    /// An issuing certificate is not a CA (`basicConstraints` `cA` missing or FALSE, RFC 5280 §4.2.1.9).
    #[error("certificate `{0}` issues certificates but is not a CA")]
    NotACertificateAuthority(String),
    /// A CA's `pathLenConstraint` is exceeded (RFC 5280 §4.2.1.9).
    #[error("the path length constraint of `{subject}` is exceeded")]
    CertificatePathLen {
        /// The CA's subject.
        subject: String,
    },
    /// `keyUsage` does not allow the use (RFC 5280 §4.2.1.3).
    #[error("the key usage of certificate `{subject}` does not allow {needed}")]
    CertificateKeyUsage {
        /// The certificate's subject.
        subject: String,
        /// The usage needed (`keyCertSign`, `digitalSignature`).
        needed: &'static str,
    },
    /// A critical extension path validation does not process (RFC 5280 §4.2).
    #[error("certificate `{subject}` has a critical extension {oid} that is not processed")]
    UnhandledCriticalExtension {
        /// The certificate's subject.
        subject: String,
        /// The extension's OID.
        oid: String,
    },
    /// A caller-supplied CRL of an issuer in the chain is past its `nextUpdate` (stale revocation data).
    #[error("the CRL of `{issuer}` is out of date (next update {next_update})")]
    CrlExpired {
        /// The CRL issuer.
        issuer: String,
        /// Its nextUpdate.
        next_update: String,
    },
    /// The chain would be longer than [`crate::TrustStore::max_chain_len`].
    #[error("certificate chain longer than {0}")]
    CertificateChainTooLong(usize),

    // ---- signing ----------------------------------------------------------------
    /// The signing key cannot make signatures of this algorithm (an RSA key
    /// for ECDSA, ECDSA-SHA-384 with a P-256 key...).
    #[error("the signing key ({key}) cannot sign with `{method}`")]
    SigningKeyMismatch {
        /// The SignatureMethod URI.
        method: String,
        /// The key's type.
        key: String,
    },
    /// The crypto provider failed to sign.
    #[error("signing failed")]
    SigningFailed,
    /// The document cannot take the signature where it must go (an XPath
    /// selecting no element, a SOAP message without a Body, an edit the
    /// Editor refused).
    #[error("cannot sign: {0}")]
    Sign(String),

    // ---- SOAP and WS-Security (verification) -----------------------------------
    /// A SOAP message with a document type declaration (SOAP 1.1 §3, SOAP 1.2
    /// part 1 §5: a SOAP message must not contain one).
    #[error("a SOAP message must not have a document type declaration")]
    SoapDoctype,
    /// Not exactly one SOAP `Envelope` element (a second one, nested, is a wrapping set-up).
    #[error("a SOAP message must have exactly one Envelope element, this one has {0}")]
    SoapEnvelopeCount(usize),
    /// Not exactly one SOAP `Body` element, child of the Envelope.
    #[error("a SOAP message must have exactly one Body element, the Envelope's child; this one has {0}")]
    SoapBodyCount(usize),
    /// Two `wsse:Security` headers for the same actor/role (WS-Security 1.1 §6.1).
    #[error("more than one wsse:Security header for the same actor or role")]
    DuplicateSecurityHeader,
    /// A `mustUnderstand` Security header holds an element this implementation does
    /// not process (e.g. `xenc:EncryptedKey`), or `mustUnderstand` has an invalid value.
    #[error("the wsse:Security header must be understood, but {0}")]
    MustUnderstand(String),
    /// A `wsu:Timestamp` that is not well-formed (WS-Security 1.1 §10): Created
    /// missing or twice, a value that is not an instant with a time zone, Expires before Created.
    #[error("malformed wsu:Timestamp: {0}")]
    TimestampMalformed(String),
    /// The Timestamp's `Expires` is past (allowing the clock skew).
    #[error("the message expired at {expires} (now {now}, clock skew allowed {skew} s)")]
    TimestampExpired {
        /// The Expires value.
        expires: String,
        /// The instant judged.
        now: String,
        /// Allowed skew, seconds.
        skew: u64,
    },
    /// The Timestamp's `Created` is in the future (beyond the clock skew).
    #[error("the message was created in the future, at {created} (now {now}, clock skew allowed {skew} s)")]
    TimestampInFuture {
        /// The Created value.
        created: String,
        /// The instant judged.
        now: String,
        /// Allowed skew, seconds.
        skew: u64,
    },
    /// A verified Reference covers a `wsu:Timestamp` that is not the child of the
    /// Security header addressed to this receiver (WS-Security 1.1 §10: the
    /// Timestamp is a child of the Security header): a signed Timestamp moved out
    /// of the header, or in a header for another actor/role, would go unchecked.
    #[error("a signed wsu:Timestamp must be a child of the wsse:Security header addressed to this receiver")]
    TimestampMisplaced,
    /// A Timestamp is required ([`crate::VerifyConfigBuilder::require_timestamp`])
    /// but there is none, or no verified Reference covers it.
    #[error("{0}")]
    TimestampRequired(&'static str),
    /// A `wsse:SecurityTokenReference` names a token that is not in the message
    /// or is not an X.509 BinarySecurityToken.
    #[error("SecurityTokenReference: {0}")]
    SecurityTokenReference(String),

    // ---- UsernameToken ----------------------------------------------------------
    /// No `wsse:UsernameToken` in the Security header (or more than one).
    #[error("UsernameToken: {0}")]
    UsernameToken(String),
    /// The token's Username is not the expected one.
    #[error("UsernameToken: unexpected user name")]
    WrongUsername,
    /// The password (text or digest) does not match.
    #[error("UsernameToken: the password does not match")]
    WrongPassword,
    /// The Nonce was seen before, within its lifetime (a replayed message).
    #[error("UsernameToken: the nonce was already used (replay)")]
    ReplayedNonce,
    /// The token's `Created` is too old or in the future.
    #[error("UsernameToken: Created {created} is outside the accepted window (now {now})")]
    UsernameTokenStale {
        /// The Created value.
        created: String,
        /// The instant judged.
        now: String,
    },
}

/// The message of [`ErrorKind::TruncatedHmac`]: truncated, or longer than the output.
fn hmac_length_message(bits: u64, full: u64) -> String {
    if bits > full {
        format!("HMACOutputLength {bits} bits refused: longer than the HMAC's {full}-bit output")
    } else {
        format!("truncated HMAC refused: HMACOutputLength {bits} bits, the full output is {full}")
    }
}
