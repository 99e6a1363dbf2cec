//! Errors of encryption and decryption.
//!
//! Every failure that could tell an attacker something about a secret — a
//! wrong key, a bad tag, bad padding, a failed RSA decryption, an algorithm
//! refused or not offered, a `CipherReference`, a plaintext that is not
//! well-formed where it lands — is the one [`EncErrorKind::DecryptionFailed`],
//! with one message and no position. The other kinds are about the structure
//! of the message or the caller's input, which an attacker knows already.

use std::fmt;

/// Encryption or decryption failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncError {
    kind: EncErrorKind,
    offset: Option<usize>,
}

impl EncError {
    /// An error of `kind` with no position.
    pub fn new(kind: EncErrorKind) -> EncError {
        EncError { kind, offset: None }
    }

    /// An error of `kind` at byte `offset` of the document's text.
    pub fn at(kind: EncErrorKind, offset: usize) -> EncError {
        EncError { kind, offset: Some(offset) }
    }

    /// The uniform decryption failure.
    pub fn decryption_failed() -> EncError {
        EncError::new(EncErrorKind::DecryptionFailed)
    }

    /// What went wrong.
    pub fn kind(&self) -> &EncErrorKind {
        &self.kind
    }

    /// Byte offset in the document's text, where one applies (never for
    /// [`EncErrorKind::DecryptionFailed`]).
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// True for the uniform cryptographic failure.
    pub fn is_decryption_failure(&self) -> bool {
        self.kind == EncErrorKind::DecryptionFailed
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
}

impl fmt::Display for EncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "{} at byte {o}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for EncError {}

impl From<EncErrorKind> for EncError {
    fn from(kind: EncErrorKind) -> EncError {
        EncError::new(kind)
    }
}

/// The kinds of failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncErrorKind {
    /// The one error of every cryptographic failure (see the module documentation).
    #[error("decryption failed")]
    DecryptionFailed,
    /// The document holds no `xenc:EncryptedData` element.
    #[error("no xenc:EncryptedData element in the document")]
    NothingEncrypted,
    /// An `EncryptedData` / `EncryptedKey` / `ReferenceList` that does not have
    /// the structure XML Encryption gives it.
    #[error("malformed {0}")]
    Malformed(String),
    /// A limit was reached.
    #[error("{what}: {found} is more than the limit of {limit}")]
    Limit {
        /// What was counted.
        what: &'static str,
        /// The configured limit.
        limit: usize,
        /// What was found (at least).
        found: usize,
    },
    /// A reference outside the document (never followed).
    #[error("reference `{0}` is outside the document; it is never dereferenced")]
    ExternalReference(String),
    /// An `EncryptedData` whose plaintext is not XML (no `Type` Element or
    /// Content) below the document element: there is nothing to put in its place.
    #[error("xenc:EncryptedData of Type `{0}` is not XML and is not the document element: it cannot be replaced by its plaintext")]
    NotXml(String),
    /// The caller's key could not be read, or does not fit the operation.
    #[error("key: {0}")]
    Key(String),
    /// The input is not well-formed XML.
    #[error("the document is not well-formed: {0}")]
    Xml(String),
    /// The document is not a SOAP 1.1 or 1.2 message (WS-Security encryption).
    #[error("not a SOAP message: the document element is not a SOAP 1.1 or 1.2 Envelope")]
    NotSoap,
    /// An XPath expression did not compile or select elements.
    #[error("{0}")]
    XPath(String),
    /// What was asked of encryption cannot be done (nested targets, an
    /// algorithm that does not fit the key, the root element as content...).
    #[error("cannot encrypt: {0}")]
    Encrypt(String),
    /// The encrypted markup could not be inserted.
    #[error("edit: {0}")]
    Edit(String),
}
