//! Algorithm identifiers of XML Encryption 1.0 and 1.1, and which of them
//! are offered.
//!
//! Offered: block encryption AES-128/192/256-GCM (and AES-128/192/256-CBC with
//! ISO 10126 padding for decryption of legacy messages, by opt-in); key
//! transport RSA-OAEP (`rsa-oaep-mgf1p`, and `rsa-oaep` of XML Encryption 1.1
//! with its `DigestMethod` and `MGF`; the provider offers the pairs whose label
//! digest and MGF1 digest are equal) and RSA PKCS#1 v1.5 (by opt-in); key wrap
//! AES-KW 128/192/256.

use crate::crypto::{OaepDigest, RsaPadding};

/// The XML Encryption namespace.
pub const XENC_NS: &str = "http://www.w3.org/2001/04/xmlenc#";
/// The XML Encryption 1.1 namespace.
pub const XENC11_NS: &str = "http://www.w3.org/2009/xmlenc11#";
/// `Type` of an encrypted element.
pub const TYPE_ELEMENT: &str = "http://www.w3.org/2001/04/xmlenc#Element";
/// `Type` of encrypted element content.
pub const TYPE_CONTENT: &str = "http://www.w3.org/2001/04/xmlenc#Content";
/// `Type` of a `ds:RetrievalMethod` that points at an `EncryptedKey`.
pub const TYPE_ENCRYPTED_KEY: &str = "http://www.w3.org/2001/04/xmlenc#EncryptedKey";
/// `ValueType` of a WS-Security reference to an `EncryptedKey` token.
pub const WSS_ENCRYPTED_KEY: &str = "http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#EncryptedKey";

/// The `rsa-1_5` key transport URI.
pub const RSA_1_5: &str = "http://www.w3.org/2001/04/xmlenc#rsa-1_5";
/// The `rsa-oaep-mgf1p` key transport URI (MGF1 with SHA-1).
pub const RSA_OAEP_MGF1P: &str = "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p";
/// The XML Encryption 1.1 `rsa-oaep` key transport URI.
pub const RSA_OAEP: &str = "http://www.w3.org/2009/xmlenc11#rsa-oaep";

/// A block encryption algorithm (the `EncryptionMethod` of `EncryptedData`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockAlgorithm {
    /// AES-GCM with a 96-bit IV and a 128-bit tag; the key length in bytes (16, 24, 32).
    AesGcm(usize),
    /// AES-CBC with ISO 10126 padding (legacy, decryption only by opt-in); the key length in bytes.
    AesCbc(usize),
}

const BLOCK: &[(&str, BlockAlgorithm)] = &[
    ("http://www.w3.org/2009/xmlenc11#aes128-gcm", BlockAlgorithm::AesGcm(16)),
    ("http://www.w3.org/2009/xmlenc11#aes192-gcm", BlockAlgorithm::AesGcm(24)),
    ("http://www.w3.org/2009/xmlenc11#aes256-gcm", BlockAlgorithm::AesGcm(32)),
    ("http://www.w3.org/2001/04/xmlenc#aes128-cbc", BlockAlgorithm::AesCbc(16)),
    ("http://www.w3.org/2001/04/xmlenc#aes192-cbc", BlockAlgorithm::AesCbc(24)),
    ("http://www.w3.org/2001/04/xmlenc#aes256-cbc", BlockAlgorithm::AesCbc(32)),
];

impl BlockAlgorithm {
    /// AES-128-GCM.
    pub const AES128_GCM: BlockAlgorithm = BlockAlgorithm::AesGcm(16);
    /// AES-256-GCM (the default).
    pub const AES256_GCM: BlockAlgorithm = BlockAlgorithm::AesGcm(32);

    /// The algorithm of a URI, if offered.
    pub fn from_uri(uri: &str) -> Option<BlockAlgorithm> {
        BLOCK.iter().find(|(u, _)| *u == uri.trim()).map(|(_, a)| *a)
    }

    /// The URI.
    pub fn uri(self) -> &'static str {
        BLOCK.iter().find(|(_, a)| *a == self).map_or("", |(u, _)| u)
    }

    /// The key length in bytes.
    pub fn key_len(self) -> usize {
        match self {
            BlockAlgorithm::AesGcm(n) | BlockAlgorithm::AesCbc(n) => n,
        }
    }

    /// True for the unauthenticated CBC modes (decryption only, by opt-in).
    pub fn is_legacy(self) -> bool {
        matches!(self, BlockAlgorithm::AesCbc(_))
    }

    /// The short name: `aes128-gcm`, `aes256-cbc`...
    pub fn name(self) -> &'static str {
        let u = self.uri();
        u.rsplit_once('#').map_or(u, |(_, n)| n)
    }

    /// The algorithm of a short name (`aes128-gcm`, `aes192-gcm`, `aes256-gcm`).
    pub fn from_name(name: &str) -> Option<BlockAlgorithm> {
        BLOCK.iter().map(|(_, a)| *a).find(|a| a.name() == name)
    }
}

/// A key encryption algorithm (the `EncryptionMethod` of `EncryptedKey`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyAlgorithm {
    /// RSA key transport with its padding.
    Rsa(RsaPadding),
    /// AES key wrap (RFC 3394) with a key-encryption key of this many bytes.
    AesKw(usize),
}

const KW: &[(&str, usize)] = &[
    ("http://www.w3.org/2001/04/xmlenc#kw-aes128", 16),
    ("http://www.w3.org/2001/04/xmlenc#kw-aes192", 24),
    ("http://www.w3.org/2001/04/xmlenc#kw-aes256", 32),
];

/// The URI of AES key wrap with a key-encryption key of `len` bytes.
pub fn kw_uri(len: usize) -> Option<&'static str> {
    KW.iter().find(|(_, n)| *n == len).map(|(u, _)| *u)
}

/// The AES-KW key length of a URI.
pub fn kw_len(uri: &str) -> Option<usize> {
    KW.iter().find(|(u, _)| *u == uri.trim()).map(|(_, n)| *n)
}

const DIGESTS: &[(&str, OaepDigest)] = &[
    ("http://www.w3.org/2000/09/xmldsig#sha1", OaepDigest::Sha1),
    ("http://www.w3.org/2001/04/xmlenc#sha256", OaepDigest::Sha256),
    ("http://www.w3.org/2001/04/xmldsig-more#sha384", OaepDigest::Sha384),
    ("http://www.w3.org/2001/04/xmlenc#sha512", OaepDigest::Sha512),
];

const MGFS: &[(&str, OaepDigest)] = &[
    ("http://www.w3.org/2009/xmlenc11#mgf1sha1", OaepDigest::Sha1),
    ("http://www.w3.org/2009/xmlenc11#mgf1sha256", OaepDigest::Sha256),
    ("http://www.w3.org/2009/xmlenc11#mgf1sha384", OaepDigest::Sha384),
    ("http://www.w3.org/2009/xmlenc11#mgf1sha512", OaepDigest::Sha512),
];

/// The OAEP digest of a `DigestMethod` URI, if offered.
pub fn oaep_digest(uri: &str) -> Option<OaepDigest> {
    DIGESTS.iter().find(|(u, _)| *u == uri.trim()).map(|(_, d)| *d)
}

/// The `DigestMethod` URI of an OAEP digest.
pub fn oaep_digest_uri(d: OaepDigest) -> &'static str {
    DIGESTS.iter().find(|(_, x)| *x == d).map_or("", |(u, _)| u)
}

/// The OAEP MGF1 digest of an `xenc11:MGF` URI, if offered.
pub fn mgf(uri: &str) -> Option<OaepDigest> {
    MGFS.iter().find(|(u, _)| *u == uri.trim()).map(|(_, d)| *d)
}

/// The `xenc11:MGF` URI of an MGF1 digest.
pub fn mgf_uri(d: OaepDigest) -> &'static str {
    MGFS.iter().find(|(_, x)| *x == d).map_or("", |(u, _)| u)
}

/// How the session key travels to an RSA key: the transport written by encryption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RsaTransport {
    /// `rsa-oaep-mgf1p` with SHA-1 (the WS-Security Basic Security Profile's; the default).
    #[default]
    OaepMgf1pSha1,
    /// XML Encryption 1.1 `rsa-oaep` with SHA-256 and MGF1 with SHA-256.
    OaepSha256,
}

impl RsaTransport {
    /// The padding.
    pub fn padding(self) -> RsaPadding {
        let d = match self {
            RsaTransport::OaepMgf1pSha1 => OaepDigest::Sha1,
            RsaTransport::OaepSha256 => OaepDigest::Sha256,
        };
        RsaPadding::Oaep { digest: d, mgf: d, label: Vec::new() }
    }

    /// The `EncryptionMethod` markup (prefixes `xenc`, `xenc11`, `ds` declared on it as needed).
    pub(crate) fn method_markup(self) -> String {
        match self {
            RsaTransport::OaepMgf1pSha1 => format!(
                r#"<xenc:EncryptionMethod Algorithm="{RSA_OAEP_MGF1P}"><ds:DigestMethod xmlns:ds="{}" Algorithm="{}"/></xenc:EncryptionMethod>"#,
                crate::alg::DSIG_NS,
                oaep_digest_uri(OaepDigest::Sha1)
            ),
            RsaTransport::OaepSha256 => format!(
                r#"<xenc:EncryptionMethod Algorithm="{RSA_OAEP}"><ds:DigestMethod xmlns:ds="{}" Algorithm="{}"/><xenc11:MGF xmlns:xenc11="{XENC11_NS}" Algorithm="{}"/></xenc:EncryptionMethod>"#,
                crate::alg::DSIG_NS,
                oaep_digest_uri(OaepDigest::Sha256),
                mgf_uri(OaepDigest::Sha256)
            ),
        }
    }
}
