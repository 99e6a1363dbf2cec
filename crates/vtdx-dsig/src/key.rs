//! The caller's keys: public keys, certificates and HMAC secrets, read from
//! PEM, DER, PKCS#1, PKCS#8, SubjectPublicKeyInfo and X.509 certificates.
//!
//! A [`VerifyingKey`] is always something the *caller* supplies. A message's
//! `KeyInfo` may pick one of them (by certificate, issuer and serial, subject
//! key identifier, subject name, certificate digest, key name or key value)
//! but never adds one.

use std::fmt;

use base64::Engine;
use x509_cert::der::{Decode, Encode};

use crate::error::{Error, ErrorKind};

const OID_RSA: &str = "1.2.840.113549.1.1.1";
const OID_RSA_PSS: &str = "1.2.840.113549.1.1.10";
const OID_EC: &str = "1.2.840.10045.2.1";
const OID_ED25519: &str = "1.3.101.112";
const OID_P256: &str = "1.2.840.10045.3.1.7";
const OID_P384: &str = "1.3.132.0.34";
const OID_P521: &str = "1.3.132.0.35";
const OID_SKI: &str = "2.5.29.14";
const OID_AKI: &str = "2.5.29.35";

/// An elliptic curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Curve {
    /// NIST P-256 (secp256r1).
    P256,
    /// NIST P-384 (secp384r1).
    P384,
    /// NIST P-521 (secp521r1).
    P521,
}

impl Curve {
    /// Length in bytes of a scalar (and of each of `r` and `s` in an XML ECDSA value).
    pub fn scalar_len(self) -> usize {
        match self {
            Curve::P256 => 32,
            Curve::P384 => 48,
            Curve::P521 => 66,
        }
    }

    /// The curve for an OID in dotted form (`1.2.840.10045.3.1.7`), or for `urn:oid:` + it.
    pub fn from_oid(oid: &str) -> Option<Curve> {
        match oid.strip_prefix("urn:oid:").unwrap_or(oid) {
            OID_P256 => Some(Curve::P256),
            OID_P384 => Some(Curve::P384),
            OID_P521 => Some(Curve::P521),
            _ => None,
        }
    }
}

/// The key itself, by type.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyMaterial {
    /// An RSA public key.
    Rsa {
        /// The PKCS#1 `RSAPublicKey` DER, re-encoded minimally.
        pkcs1: Vec<u8>,
        /// Modulus length in bits.
        bits: usize,
    },
    /// An EC public key: the uncompressed point (`04 || x || y`).
    Ec {
        /// The curve.
        curve: Curve,
        /// The point as SEC 1 encodes it.
        point: Vec<u8>,
    },
    /// An Ed25519 public key.
    Ed25519(Vec<u8>),
    /// An HMAC secret.
    Hmac(Vec<u8>),
}

impl fmt::Debug for KeyMaterial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // never print an HMAC secret
        write!(f, "{}", self.describe())
    }
}

impl KeyMaterial {
    /// A short description: `RSA-2048`, `EC P-256`, `Ed25519`, `HMAC secret`.
    pub fn describe(&self) -> String {
        match self {
            KeyMaterial::Rsa { bits, .. } => format!("RSA-{bits}"),
            KeyMaterial::Ec { curve, .. } => format!("EC {curve:?}"),
            KeyMaterial::Ed25519(_) => "Ed25519".into(),
            KeyMaterial::Hmac(_) => "HMAC secret".into(),
        }
    }

    /// An RSA key from its modulus and exponent (big-endian, leading zeros allowed).
    pub fn rsa(modulus: &[u8], exponent: &[u8]) -> Result<KeyMaterial, Error> {
        let n = strip_zeros(modulus);
        let e = strip_zeros(exponent);
        if n.is_empty() || e.is_empty() {
            return Err(ErrorKind::Key("RSA modulus or exponent is zero".into()).into());
        }
        let bits = n.len() * 8 - n[0].leading_zeros() as usize;
        let mut body = Vec::with_capacity(n.len() + e.len() + 16);
        der_integer(&mut body, n);
        der_integer(&mut body, e);
        let mut pkcs1 = Vec::with_capacity(body.len() + 4);
        pkcs1.push(0x30);
        der_len(&mut pkcs1, body.len());
        pkcs1.extend_from_slice(&body);
        Ok(KeyMaterial::Rsa { pkcs1, bits })
    }

    /// An EC key from its curve and SEC 1 point (uncompressed).
    pub fn ec(curve: Curve, point: &[u8]) -> Result<KeyMaterial, Error> {
        if point.len() != 1 + 2 * curve.scalar_len() || point[0] != 4 {
            return Err(ErrorKind::Key(format!("EC {curve:?} public key is not an uncompressed point")).into());
        }
        Ok(KeyMaterial::Ec { curve, point: point.to_vec() })
    }

    /// An Ed25519 key from its 32 bytes.
    pub fn ed25519(key: &[u8]) -> Result<KeyMaterial, Error> {
        if key.len() != 32 {
            return Err(ErrorKind::Key("Ed25519 public key is not 32 bytes".into()).into());
        }
        Ok(KeyMaterial::Ed25519(key.to_vec()))
    }

    /// A key from a DER `SubjectPublicKeyInfo`.
    pub fn from_spki_der(der: &[u8]) -> Result<KeyMaterial, Error> {
        material_of_spki(der)
    }
}

impl KeyMaterial {
    fn from_spki_parts(alg_oid: &str, params: Option<&[u8]>, key: &[u8]) -> Result<KeyMaterial, Error> {
        match alg_oid {
            OID_RSA | OID_RSA_PSS => {
                let (n, e) = parse_rsa_public(key).ok_or_else(|| key_err("malformed RSAPublicKey".into()))?;
                KeyMaterial::rsa(n, e)
            }
            OID_EC => {
                let p = params.ok_or_else(|| key_err("EC key without curve parameters".into()))?;
                let oid = x509_cert::der::asn1::ObjectIdentifier::from_der(p)
                    .map_err(|_| key_err("EC key with explicit curve parameters".into()))?;
                let curve = Curve::from_oid(&oid.to_string()).ok_or_else(|| key_err(format!("EC curve {oid} is not offered")))?;
                KeyMaterial::ec(curve, key)
            }
            OID_ED25519 => KeyMaterial::ed25519(key),
            other => Err(key_err(format!("public key algorithm {other} is not offered"))),
        }
    }
}

fn material_of_spki(der: &[u8]) -> Result<KeyMaterial, Error> {
    let spki = x509_cert::spki::SubjectPublicKeyInfoRef::from_der(der).map_err(|e| key_err(format!("SubjectPublicKeyInfo: {e}")))?;
    let params = match &spki.algorithm.parameters {
        Some(p) => Some(p.to_der().map_err(|e| key_err(e.to_string()))?),
        None => None,
    };
    let key = spki.subject_public_key.as_bytes().ok_or_else(|| key_err("public key bit string has unused bits".into()))?;
    KeyMaterial::from_spki_parts(&spki.algorithm.oid.to_string(), params.as_deref(), key)
}

fn key_err(s: String) -> Error {
    ErrorKind::Key(s).into()
}

/// A certificate the caller trusts (or that carries the caller's key): the
/// fields `KeyInfo` can select it by.
#[derive(Clone)]
pub struct Certificate {
    der: Vec<u8>,
    material: KeyMaterial,
    subject: Vec<u8>,
    issuer: Vec<u8>,
    subject_rdns: Vec<(String, String)>,
    issuer_rdns: Vec<(String, String)>,
    serial: Vec<u8>,
    ski: Option<Vec<u8>>,
    aki: Option<Vec<u8>>,
}

impl fmt::Debug for Certificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Certificate").field("subject", &self.subject_rdns).field("key", &self.material).finish()
    }
}

impl Certificate {
    /// Reads a DER certificate.
    pub fn from_der(der: &[u8]) -> Result<Certificate, Error> {
        let cert = x509_cert::Certificate::from_der(der).map_err(|e| key_err(format!("certificate: {e}")))?;
        let tbs = &cert.tbs_certificate;
        let spki = tbs.subject_public_key_info.to_der().map_err(|e| key_err(e.to_string()))?;
        let material = material_of_spki(&spki)?;
        let mut ski = None;
        let mut aki = None;
        for ext in tbs.extensions.iter().flatten() {
            let oid = ext.extn_id.to_string();
            if oid == OID_SKI {
                ski = x509_cert::der::asn1::OctetString::from_der(ext.extn_value.as_bytes()).ok().map(|o| o.as_bytes().to_vec());
            } else if oid == OID_AKI {
                aki = x509_cert::ext::pkix::AuthorityKeyIdentifier::from_der(ext.extn_value.as_bytes())
                    .ok()
                    .and_then(|a| a.key_identifier)
                    .map(|o| o.as_bytes().to_vec());
            }
        }
        Ok(Certificate {
            der: der.to_vec(),
            material,
            subject: tbs.subject.to_der().map_err(|e| key_err(e.to_string()))?,
            issuer: tbs.issuer.to_der().map_err(|e| key_err(e.to_string()))?,
            subject_rdns: rdns(&tbs.subject),
            issuer_rdns: rdns(&tbs.issuer),
            serial: strip_zeros(tbs.serial_number.as_bytes()).to_vec(),
            ski,
            aki,
        })
    }

    /// Reads a PEM (`CERTIFICATE`) or DER certificate.
    pub fn from_pem_or_der(data: &[u8]) -> Result<Certificate, Error> {
        match pem::parse(data) {
            Ok(p) if p.tag() == "CERTIFICATE" || p.tag() == "X509 CERTIFICATE" => Certificate::from_der(p.contents()),
            Ok(p) => Err(key_err(format!("PEM block `{}` is not a certificate", p.tag()))),
            Err(_) => Certificate::from_der(data),
        }
    }

    /// The certificate's DER bytes.
    pub fn der(&self) -> &[u8] {
        &self.der
    }
    /// Its public key.
    pub fn key(&self) -> &KeyMaterial {
        &self.material
    }
    /// The DER of its subject Name.
    pub fn subject_der(&self) -> &[u8] {
        &self.subject
    }
    /// The DER of its issuer Name.
    pub fn issuer_der(&self) -> &[u8] {
        &self.issuer
    }
    /// The serial number, big-endian without leading zeros.
    pub fn serial(&self) -> &[u8] {
        &self.serial
    }
    /// The subject key identifier extension, if any.
    pub fn subject_key_id(&self) -> Option<&[u8]> {
        self.ski.as_deref()
    }
    /// The key identifier of the authority key identifier extension, if any.
    pub fn authority_key_id(&self) -> Option<&[u8]> {
        self.aki.as_deref()
    }

    /// The subject Name for messages: `CN=..., O=...` (RFC 4514 order: least significant first).
    pub fn subject_display(&self) -> String {
        self.subject_rdns.iter().rev().map(|(t, v)| format!("{t}={v}")).collect::<Vec<_>>().join(", ")
    }

    pub(crate) fn subject_matches(&self, dn: &str) -> bool {
        dn_matches(&self.subject_rdns, dn)
    }
    pub(crate) fn issuer_matches(&self, dn: &str) -> bool {
        dn_matches(&self.issuer_rdns, dn)
    }
    pub(crate) fn serial_matches(&self, decimal: &str) -> bool {
        let d = decimal.trim();
        !d.is_empty()
            && d.bytes().all(|b| b.is_ascii_digit())
            && d.trim_start_matches('0') == to_decimal(&self.serial).trim_start_matches('0')
    }
}

/// A key the caller trusts for verification, with an optional name
/// (matched against `KeyName`) and certificate (matched against `X509Data`).
#[derive(Clone, Debug)]
pub struct VerifyingKey {
    material: KeyMaterial,
    name: Option<String>,
    cert: Option<Certificate>,
}

impl VerifyingKey {
    /// A key from its material.
    pub fn new(material: KeyMaterial) -> VerifyingKey {
        VerifyingKey { material, name: None, cert: None }
    }

    /// An HMAC secret. An empty one is refused (`Key`): anybody can compute an
    /// HMAC with the empty key, so it would authenticate nothing.
    pub fn hmac(secret: &[u8]) -> Result<VerifyingKey, Error> {
        check_hmac_secret(secret)?;
        Ok(VerifyingKey::new(KeyMaterial::Hmac(secret.to_vec())))
    }

    /// The public key of a certificate, selectable by the certificate's fields.
    pub fn from_certificate(cert: Certificate) -> VerifyingKey {
        VerifyingKey { material: cert.material.clone(), name: None, cert: Some(cert) }
    }

    /// Reads a public key from PEM or DER: an X.509 certificate, a
    /// SubjectPublicKeyInfo (`PUBLIC KEY`), a PKCS#1 `RSA PUBLIC KEY`, or the
    /// public half of a private key (PKCS#8 `PRIVATE KEY`, PKCS#1
    /// `RSA PRIVATE KEY`, SEC 1 `EC PRIVATE KEY`). Encrypted keys are refused.
    pub fn from_pem_or_der(data: &[u8]) -> Result<VerifyingKey, Error> {
        match pem::parse(data) {
            Ok(p) => VerifyingKey::from_tagged_der(p.tag(), p.contents()),
            Err(_) if data.first() == Some(&0x30) => VerifyingKey::from_der(data),
            Err(e) => Err(key_err(format!("neither PEM nor DER: {e}"))),
        }
    }

    /// Reads a DER public key of any of the forms [`VerifyingKey::from_pem_or_der`] takes.
    pub fn from_der(der: &[u8]) -> Result<VerifyingKey, Error> {
        if let Ok(c) = Certificate::from_der(der) {
            return Ok(VerifyingKey::from_certificate(c));
        }
        if let Ok(m) = material_of_spki(der) {
            return Ok(VerifyingKey::new(m));
        }
        if let Some((n, e)) = parse_rsa_public(der) {
            return Ok(VerifyingKey::new(KeyMaterial::rsa(n, e)?));
        }
        if let Ok(k) = from_private_der(der) {
            return Ok(k);
        }
        Err(key_err("not a certificate, public key or unencrypted private key".into()))
    }

    fn from_tagged_der(tag: &str, der: &[u8]) -> Result<VerifyingKey, Error> {
        match tag {
            "CERTIFICATE" | "X509 CERTIFICATE" => Ok(VerifyingKey::from_certificate(Certificate::from_der(der)?)),
            "PUBLIC KEY" => Ok(VerifyingKey::new(material_of_spki(der)?)),
            "RSA PUBLIC KEY" => {
                let (n, e) = parse_rsa_public(der).ok_or_else(|| key_err("malformed RSAPublicKey".into()))?;
                Ok(VerifyingKey::new(KeyMaterial::rsa(n, e)?))
            }
            "PRIVATE KEY" | "RSA PRIVATE KEY" | "EC PRIVATE KEY" => from_private_der(der),
            "ENCRYPTED PRIVATE KEY" => Err(key_err("encrypted private keys are not read".into())),
            other => Err(key_err(format!("PEM block `{other}` is not a key or certificate"))),
        }
    }

    /// Names the key: a `KeyName` in the message equal to `name` selects it.
    pub fn with_name(mut self, name: impl Into<String>) -> VerifyingKey {
        self.name = Some(name.into());
        self
    }

    /// The key material.
    pub fn material(&self) -> &KeyMaterial {
        &self.material
    }
    /// The name, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    /// The certificate, if the key came from one.
    pub fn certificate(&self) -> Option<&Certificate> {
        self.cert.as_ref()
    }
}

/// The public half of an unencrypted private key: PKCS#8, PKCS#1 RSAPrivateKey or SEC 1 ECPrivateKey.
fn from_private_der(der: &[u8]) -> Result<VerifyingKey, Error> {
    use aws_lc_rs::signature::{self as sig, KeyPair};
    if let Ok(k) = sig::RsaKeyPair::from_pkcs8(der).or_else(|_| sig::RsaKeyPair::from_der(der)) {
        let (n, e) = parse_rsa_public(k.public_key().as_ref()).ok_or_else(|| key_err("malformed RSA public key".into()))?;
        return Ok(VerifyingKey::new(KeyMaterial::rsa(n, e)?));
    }
    if let Ok(k) = sig::Ed25519KeyPair::from_pkcs8_maybe_unchecked(der) {
        return Ok(VerifyingKey::new(KeyMaterial::ed25519(k.public_key().as_ref())?));
    }
    let curves: [(Curve, &'static sig::EcdsaSigningAlgorithm); 3] = [
        (Curve::P256, &sig::ECDSA_P256_SHA256_ASN1_SIGNING),
        (Curve::P384, &sig::ECDSA_P384_SHA384_ASN1_SIGNING),
        (Curve::P521, &sig::ECDSA_P521_SHA512_ASN1_SIGNING),
    ];
    for (curve, alg) in curves {
        if let Ok(k) = sig::EcdsaKeyPair::from_pkcs8(alg, der).or_else(|_| sig::EcdsaKeyPair::from_private_key_der(alg, der)) {
            return Ok(VerifyingKey::new(KeyMaterial::ec(curve, k.public_key().as_ref())?));
        }
    }
    Err(key_err("not an unencrypted RSA, EC or Ed25519 private key".into()))
}

/// The AttributeTypeAndValues of a Name, most significant RDN first, each
/// (short type name upper-cased, value).
fn rdns(name: &x509_cert::name::Name) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for rdn in name.0.iter() {
        for atv in rdn.0.iter() {
            // Display gives `TYPE=value` with RFC 4514 escaping
            let s = atv.to_string();
            if let Some((t, v)) = split_atv(&s) {
                out.push((t, v));
            }
        }
    }
    out
}

fn canonical_type(t: &str) -> String {
    let t = t.trim().to_ascii_uppercase();
    let t = t.strip_prefix("OID.").unwrap_or(&t).to_string();
    match t.as_str() {
        "E" | "EMAIL" | "EMAILADDRESS" | "1.2.840.113549.1.9.1" => "EMAILADDRESS".into(),
        "S" | "ST" | "2.5.4.8" => "ST".into(),
        "CN" | "2.5.4.3" => "CN".into(),
        "C" | "2.5.4.6" => "C".into(),
        "L" | "2.5.4.7" => "L".into(),
        "O" | "2.5.4.10" => "O".into(),
        "OU" | "2.5.4.11" => "OU".into(),
        "STREET" | "2.5.4.9" => "STREET".into(),
        "DC" | "0.9.2342.19200300.100.1.25" => "DC".into(),
        "UID" | "0.9.2342.19200300.100.1.1" => "UID".into(),
        "SERIALNUMBER" | "2.5.4.5" => "SERIALNUMBER".into(),
        _ => t,
    }
}

/// Splits `type=value` and unescapes the value (RFC 4514 §3: `\,` and `\XX`).
fn split_atv(s: &str) -> Option<(String, String)> {
    let (t, v) = s.split_once('=')?;
    let mut out = Vec::new();
    let b = v.trim().as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if i + 2 < b.len() {
                if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
            }
            out.push(b[i + 1]);
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let v = String::from_utf8_lossy(&out);
    let v = v.trim_matches(|c: char| c == '"').split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    Some((canonical_type(t), v))
}

/// Splits a DN string on unescaped `,`, `;` and `+`.
fn split_dn(dn: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut esc = false;
    let mut quoted = false;
    for c in dn.chars() {
        if esc {
            cur.push(c);
            esc = false;
            continue;
        }
        match c {
            '\\' => {
                cur.push(c);
                esc = true;
            }
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            ',' | ';' | '+' if !quoted => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        parts.push(cur);
    }
    parts
}

/// Does the DN string (RFC 4514 / RFC 2253, as `X509IssuerName` and
/// `X509SubjectName` hold it) name the Name `rdns`? Types are compared by
/// meaning (`E` = `emailAddress`, `S` = `ST`), values case-insensitively with
/// white space collapsed; the string may list the RDNs in either order.
fn dn_matches(rdns: &[(String, String)], dn: &str) -> bool {
    let parsed: Option<Vec<(String, String)>> = split_dn(dn).iter().map(|p| split_atv(p)).collect();
    let Some(mut parsed) = parsed else { return false };
    if parsed.len() != rdns.len() || parsed.is_empty() {
        return false;
    }
    let mut want = rdns.to_vec();
    want.sort();
    parsed.sort();
    want == parsed
}

pub(crate) fn strip_zeros(v: &[u8]) -> &[u8] {
    let i = v.iter().position(|&b| b != 0).unwrap_or(v.len());
    &v[i..]
}

pub(crate) fn to_decimal(be: &[u8]) -> String {
    let mut n: Vec<u32> = be.iter().map(|&b| b as u32).collect();
    let mut digits = Vec::new();
    while n.iter().any(|&d| d != 0) {
        let mut rem = 0u32;
        for d in n.iter_mut() {
            let cur = rem * 256 + *d;
            *d = cur / 10;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        return "0".into();
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// One DER TLV with a short- or long-form length: (tag, content, rest).
pub(crate) fn tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&l0, mut rest) = rest.split_first()?;
    let len = if l0 < 0x80 {
        l0 as usize
    } else {
        let n = (l0 & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let mut len = 0usize;
        for &b in &rest[..n] {
            len = (len << 8) | b as usize;
        }
        rest = &rest[n..];
        len
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

/// PKCS#1 `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`.
fn parse_rsa_public(der: &[u8]) -> Option<(&[u8], &[u8])> {
    let (t, body, rest) = tlv(der)?;
    if t != 0x30 || !rest.is_empty() {
        return None;
    }
    let (t1, n, body) = tlv(body)?;
    let (t2, e, body) = tlv(body)?;
    (t1 == 2 && t2 == 2 && body.is_empty()).then_some((n, e))
}

/// The modulus length in bits of an RSA private key (PKCS#1 `RSAPrivateKey`, or
/// PKCS#8 holding one) read from its DER alone, for keys aws-lc does not load
/// (below 2048 bits) so that their refusal can name their size.
pub(crate) fn rsa_private_bits(der: &[u8]) -> Option<usize> {
    const RSA_OID: [u8; 11] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    let (t, body, _) = tlv(der)?;
    let (tv, _, body) = tlv(body)?;
    let (tn, n, _) = tlv(body)?;
    if t != 0x30 || tv != 2 {
        return None;
    }
    let n = match tn {
        2 => n,
        0x30 if n.starts_with(&RSA_OID) => {
            let (_, _, after_alg) = tlv(body)?;
            let (to, inner, _) = tlv(after_alg)?;
            return if to == 4 { rsa_private_bits(inner) } else { None };
        }
        _ => return None,
    };
    let n = strip_zeros(n);
    Some(n.len() * 8 - n.first().map_or(0, |b| b.leading_zeros() as usize))
}

fn der_len(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len() - 1);
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
}

fn der_integer(out: &mut Vec<u8>, v: &[u8]) {
    let pad = v.first().is_none_or(|b| b & 0x80 != 0);
    out.push(2);
    der_len(out, v.len() + pad as usize);
    if pad {
        out.push(0);
    }
    out.extend_from_slice(v);
}

/// Decodes base64 as XML Signature writes it: white space anywhere is ignored.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let engine = &base64::engine::general_purpose::STANDARD;
    // White space is not base64: when the text decodes as it stands it has none (a
    // SignatureValue, a DigestValue, a token on one line); else the white space is
    // removed and the rest decoded, the result either way.
    if let Ok(v) = engine.decode(text) {
        return Some(v);
    }
    let clean: Vec<u8> = text.bytes().filter(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')).collect();
    engine.decode(clean).ok()
}

/// Refuses an empty HMAC secret (RFC 2104 §3 discourages keys shorter than the
/// hash output; an empty one authenticates nothing). Short ones are kept: the
/// W3C interop vectors use the key `secret`.
pub(crate) fn check_hmac_secret(secret: &[u8]) -> Result<(), Error> {
    if secret.is_empty() {
        return Err(key_err("an empty HMAC key is refused".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_serials() {
        assert_eq!(to_decimal(&[0x01, 0x00]), "256");
        assert_eq!(to_decimal(&[]), "0");
        assert_eq!(to_decimal(&[0xff, 0xff, 0xff, 0xff, 0xff]), "1099511627775");
    }

    #[test]
    fn dn_comparison_is_by_meaning() {
        let rdns = vec![("C".to_string(), "us".to_string()), ("CN".to_string(), "test key".to_string())];
        assert!(dn_matches(&rdns, "CN=Test  Key, C=US"));
        assert!(dn_matches(&rdns, "C=US,CN=Test Key"));
        assert!(!dn_matches(&rdns, "CN=Test Key"));
        assert!(!dn_matches(&rdns, "CN=Other, C=US"));
        let rdns = vec![("EMAILADDRESS".to_string(), "a@b.c".to_string())];
        assert!(dn_matches(&rdns, "E=a@b.c"));
        assert!(dn_matches(&rdns, "1.2.840.113549.1.9.1=A@B.C"));
    }

    #[test]
    fn rsa_components_round_trip() {
        let m = KeyMaterial::rsa(&[0, 0x80, 1], &[1, 0, 1]).unwrap();
        let KeyMaterial::Rsa { pkcs1, bits } = &m else { panic!() };
        assert_eq!(*bits, 16);
        assert_eq!(pkcs1, &[0x30, 10, 2, 3, 0, 0x80, 1, 2, 3, 1, 0, 1]);
        let (n, e) = parse_rsa_public(pkcs1).unwrap();
        assert_eq!((n, e), (&[0, 0x80, 1][..], &[1, 0, 1][..]));
    }
}
