//! Algorithm identifiers: the URIs of XML Signature 1.1 and RFC 9231, and
//! which of them are offered, refused by policy or unknown.

use crate::error::ErrorKind;

/// XML Signature namespace.
pub const DSIG_NS: &str = "http://www.w3.org/2000/09/xmldsig#";
/// XML Signature 1.1 namespace (`DEREncodedKeyValue`, `ECKeyValue`, `X509Digest`, `KeyInfoReference`).
pub const DSIG11_NS: &str = "http://www.w3.org/2009/xmldsig11#";
/// Exclusive C14N namespace (`InclusiveNamespaces`).
pub const EXC_C14N_NS: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";
/// XPath Filter 2.0 namespace and transform URI.
pub const XPATH_FILTER2: &str = "http://www.w3.org/2002/06/xmldsig-filter2";
/// The WS-Security utility namespace (`wsu:Id`).
pub const WSU_NS: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";

/// The enveloped-signature transform.
pub const ENVELOPED: &str = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
/// The base64 decoding transform.
pub const BASE64: &str = "http://www.w3.org/2000/09/xmldsig#base64";
/// The XPath 1.0 filtering transform.
pub const XPATH: &str = "http://www.w3.org/TR/1999/REC-xpath-19991116";
/// XSLT (always refused).
pub const XSLT: &str = "http://www.w3.org/TR/1999/REC-xslt-19991116";

/// A digest algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DigestAlgorithm {
    /// SHA-1 (only with [`crate::VerifyConfigBuilder::allow_sha1`]).
    Sha1,
    /// SHA-224.
    Sha224,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
    /// SHA3-256.
    Sha3_256,
    /// SHA3-384.
    Sha3_384,
    /// SHA3-512.
    Sha3_512,
}

const DIGESTS: &[(&str, DigestAlgorithm)] = &[
    ("http://www.w3.org/2000/09/xmldsig#sha1", DigestAlgorithm::Sha1),
    ("http://www.w3.org/2001/04/xmldsig-more#sha224", DigestAlgorithm::Sha224),
    ("http://www.w3.org/2001/04/xmlenc#sha256", DigestAlgorithm::Sha256),
    ("http://www.w3.org/2001/04/xmldsig-more#sha384", DigestAlgorithm::Sha384),
    ("http://www.w3.org/2001/04/xmlenc#sha512", DigestAlgorithm::Sha512),
    ("http://www.w3.org/2007/05/xmldsig-more#sha3-256", DigestAlgorithm::Sha3_256),
    ("http://www.w3.org/2007/05/xmldsig-more#sha3-384", DigestAlgorithm::Sha3_384),
    ("http://www.w3.org/2007/05/xmldsig-more#sha3-512", DigestAlgorithm::Sha3_512),
];

const MD5_URIS: &[&str] = &[
    "http://www.w3.org/2001/04/xmldsig-more#md5",
    "http://www.w3.org/2001/04/xmldsig-more#rsa-md5",
    "http://www.w3.org/2001/04/xmldsig-more#hmac-md5",
];

impl DigestAlgorithm {
    /// The algorithm for a `DigestMethod` URI: `Err` for MD5 (refused) and unknown URIs.
    pub fn from_uri(uri: &str) -> Result<DigestAlgorithm, ErrorKind> {
        if MD5_URIS.contains(&uri) {
            return Err(ErrorKind::DisallowedAlgorithm { uri: uri.into(), reason: "MD5 is broken" });
        }
        DIGESTS.iter().find(|(u, _)| *u == uri).map(|(_, a)| *a).ok_or_else(|| ErrorKind::UnsupportedAlgorithm(uri.into()))
    }

    /// The URI.
    pub fn uri(self) -> &'static str {
        DIGESTS.iter().find(|(_, a)| *a == self).map(|(u, _)| *u).unwrap_or("")
    }

    /// Output length in bytes.
    pub fn output_len(self) -> usize {
        match self {
            DigestAlgorithm::Sha1 => 20,
            DigestAlgorithm::Sha224 => 28,
            DigestAlgorithm::Sha256 | DigestAlgorithm::Sha3_256 => 32,
            DigestAlgorithm::Sha384 | DigestAlgorithm::Sha3_384 => 48,
            DigestAlgorithm::Sha512 | DigestAlgorithm::Sha3_512 => 64,
        }
    }

    /// SHA-1 (refused unless allowed).
    pub fn is_sha1(self) -> bool {
        self == DigestAlgorithm::Sha1
    }
}

/// A signature algorithm: the family and its digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SignatureAlgorithm {
    /// RSASSA-PKCS1-v1_5 (`rsa-sha256`...).
    RsaPkcs1(DigestAlgorithm),
    /// RSASSA-PSS with MGF1 of the same digest and a salt as long as the digest (RFC 9231 §2.3.10).
    RsaPss(DigestAlgorithm),
    /// ECDSA; the XML signature value is `r || s` (XML Signature 1.1 §6.4.3).
    Ecdsa(DigestAlgorithm),
    /// Ed25519 (RFC 9231 §2.3.13, pure EdDSA over the canonical SignedInfo).
    Ed25519,
    /// HMAC, full length only.
    Hmac(DigestAlgorithm),
}

const SIGNATURES: &[(&str, SignatureAlgorithm)] = {
    use DigestAlgorithm::*;
    use SignatureAlgorithm::*;
    &[
        ("http://www.w3.org/2000/09/xmldsig#rsa-sha1", RsaPkcs1(Sha1)),
        ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha224", RsaPkcs1(Sha224)),
        ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", RsaPkcs1(Sha256)),
        ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha384", RsaPkcs1(Sha384)),
        ("http://www.w3.org/2001/04/xmldsig-more#rsa-sha512", RsaPkcs1(Sha512)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha1-rsa-MGF1", RsaPss(Sha1)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha224-rsa-MGF1", RsaPss(Sha224)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1", RsaPss(Sha256)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha384-rsa-MGF1", RsaPss(Sha384)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha512-rsa-MGF1", RsaPss(Sha512)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha3-256-rsa-MGF1", RsaPss(Sha3_256)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha3-384-rsa-MGF1", RsaPss(Sha3_384)),
        ("http://www.w3.org/2007/05/xmldsig-more#sha3-512-rsa-MGF1", RsaPss(Sha3_512)),
        ("http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha1", Ecdsa(Sha1)),
        ("http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha224", Ecdsa(Sha224)),
        ("http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256", Ecdsa(Sha256)),
        ("http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384", Ecdsa(Sha384)),
        ("http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512", Ecdsa(Sha512)),
        ("http://www.w3.org/2021/04/xmldsig-more#ecdsa-sha3-256", Ecdsa(Sha3_256)),
        ("http://www.w3.org/2021/04/xmldsig-more#ecdsa-sha3-384", Ecdsa(Sha3_384)),
        ("http://www.w3.org/2021/04/xmldsig-more#ecdsa-sha3-512", Ecdsa(Sha3_512)),
        ("http://www.w3.org/2021/04/xmldsig-more#eddsa-ed25519", Ed25519),
        ("http://www.w3.org/2000/09/xmldsig#hmac-sha1", Hmac(Sha1)),
        ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha224", Hmac(Sha224)),
        ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha256", Hmac(Sha256)),
        ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha384", Hmac(Sha384)),
        ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha512", Hmac(Sha512)),
    ]
};

impl SignatureAlgorithm {
    /// The algorithm for a `SignatureMethod` URI: `Err` for MD5 (refused) and unknown URIs.
    pub fn from_uri(uri: &str) -> Result<SignatureAlgorithm, ErrorKind> {
        if MD5_URIS.contains(&uri) {
            return Err(ErrorKind::DisallowedAlgorithm { uri: uri.into(), reason: "MD5 is broken" });
        }
        SIGNATURES.iter().find(|(u, _)| *u == uri).map(|(_, a)| *a).ok_or_else(|| ErrorKind::UnsupportedAlgorithm(uri.into()))
    }

    /// The URI.
    pub fn uri(self) -> &'static str {
        SIGNATURES.iter().find(|(_, a)| *a == self).map(|(u, _)| *u).unwrap_or("")
    }

    /// The digest the algorithm hashes with (`None` for Ed25519, which hashes internally).
    pub fn digest(self) -> Option<DigestAlgorithm> {
        match self {
            SignatureAlgorithm::RsaPkcs1(d)
            | SignatureAlgorithm::RsaPss(d)
            | SignatureAlgorithm::Ecdsa(d)
            | SignatureAlgorithm::Hmac(d) => Some(d),
            SignatureAlgorithm::Ed25519 => None,
        }
    }
}
