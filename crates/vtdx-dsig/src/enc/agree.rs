//! Key agreement and key derivation (XML Encryption 1.1 §5.6 and §5.4):
//! the key an `xenc:AgreementMethod` agrees on, or an `xenc11:DerivedKey`
//! derives, for the `EncryptedKey` (a key-encryption key for AES-KW) or the
//! `EncryptedData` (the data key) whose `KeyInfo` holds it.
//!
//! * Agreement: ECDH-ES on P-256, P-384 or P-521 (`xenc11#ECDH-ES`) and X25519
//!   (`xmldsig-more#x25519`, RFC 9231). The recipient's private key is the
//!   caller's (named by the `RecipientKeyInfo`'s `KeyName`, else the caller's
//!   key on the originator's curve). The originator's public key is the one
//!   the `OriginatorKeyInfo` carries inline (`dsig11:ECKeyValue` with a named
//!   curve: the ephemeral key ECDH-ES sends, which authenticates nobody), or
//!   a public key of the caller's that its `KeyName` names.
//! * Derivation: ConcatKDF (NIST SP 800-56A, with `DigestMethod` SHA-1, SHA-224,
//!   SHA-256, SHA-384, SHA-512 or SHA3-256/384/512), PBKDF2 (HMAC-SHA-1/256/384/512,
//!   a specified salt, at most [`DecryptConfig::max_kdf_iterations`] iterations)
//!   and HKDF (RFC 9231 `xmldsig-more#hkdf`, HMAC-SHA-1/256/384/512), from the
//!   shared secret of an agreement or from a master secret of the caller's
//!   (`xenc11:MasterKeyName`).
//!
//! Any failure — an algorithm not offered, a parameter out of range, a
//! point not on the curve, no key of the caller's that fits — is `None`,
//! which decryption turns into the one uniform error.
//!
//! [`DecryptConfig::max_kdf_iterations`]: super::DecryptConfig::max_kdf_iterations

use vtdx_core::Node;

use super::alg::{XENC11_NS, XENC_NS};
use super::decrypt::decode_b64;
use super::key::{DecKind, DecryptionKey};
use super::model::{is, is_xenc, key_names};
use crate::alg::DigestAlgorithm;
use crate::alg::DSIG_NS;
use crate::crypto::{AgreementCurve, CipherProvider};

/// ECDH-ES key agreement (XML Encryption 1.1).
pub const ECDH_ES: &str = "http://www.w3.org/2009/xmlenc11#ECDH-ES";
/// X25519 key agreement (RFC 9231).
pub const X25519: &str = "http://www.w3.org/2021/04/xmldsig-more#x25519";
/// ConcatKDF (XML Encryption 1.1).
pub const CONCAT_KDF: &str = "http://www.w3.org/2009/xmlenc11#ConcatKDF";
/// PBKDF2 (XML Encryption 1.1).
pub const PBKDF2: &str = "http://www.w3.org/2009/xmlenc11#pbkdf2";
/// HKDF (RFC 9231).
pub const HKDF: &str = "http://www.w3.org/2021/04/xmldsig-more#hkdf";

const DSIG11_NS: &str = "http://www.w3.org/2009/xmldsig11#";
const DSIG_MORE_2021: &str = "http://www.w3.org/2021/04/xmldsig-more#";

/// Longest key derivation output (bytes): more than any AES key.
const MAX_KEY_LEN: usize = 64;

const PRFS: &[(&str, DigestAlgorithm)] = &[
    ("http://www.w3.org/2000/09/xmldsig#hmac-sha1", DigestAlgorithm::Sha1),
    ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha224", DigestAlgorithm::Sha224),
    ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha256", DigestAlgorithm::Sha256),
    ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha384", DigestAlgorithm::Sha384),
    ("http://www.w3.org/2001/04/xmldsig-more#hmac-sha512", DigestAlgorithm::Sha512),
];

/// The PRF (an HMAC) of a `PRF` URI.
fn prf(uri: &str) -> Option<DigestAlgorithm> {
    PRFS.iter().find(|(u, _)| *u == uri.trim()).map(|(_, h)| *h)
}

fn attr(n: Node<'_>, name: &str) -> Option<String> {
    n.attributes().find(|a| a.namespace_uri().is_none() && a.local_name() == name).map(|a| a.value().trim().to_string())
}

fn child<'d>(n: Node<'d>, ns: &str, local: &str) -> Option<Node<'d>> {
    n.element_children().find(|c| is(c, ns, local))
}

fn text(n: Node<'_>) -> String {
    n.value().trim().to_string()
}

/// What derivation may cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits<'c> {
    /// PBKDF2 iterations in one derivation.
    pub(crate) max_iterations: u32,
    /// PBKDF2 iterations left for the message; each derivation takes its count.
    pub(crate) left: &'c std::cell::Cell<u64>,
}

/// The key of `len` bytes that an `AgreementMethod` or `DerivedKey` among the
/// children of `key_info` yields: `None` when there is neither, `Some(None)`
/// when there is one and it yields no key.
pub(crate) fn key_from(
    provider: &dyn CipherProvider,
    keys: &[DecryptionKey],
    key_info: Option<Node<'_>>,
    len: usize,
    limits: Limits<'_>,
) -> Option<Option<Vec<u8>>> {
    let ki = key_info?;
    for c in ki.element_children() {
        if is_xenc(&c, "AgreementMethod") {
            return Some(agreed(provider, keys, c, len, limits));
        }
        if is(&c, XENC11_NS, "DerivedKey") {
            return Some(derived(provider, keys, c, len, limits));
        }
    }
    None
}

/// Is there an `AgreementMethod` or `DerivedKey` among the children of `key_info`?
pub(crate) fn has_derivation(key_info: Option<Node<'_>>) -> bool {
    key_info.is_some_and(|ki| ki.element_children().any(|c| is_xenc(&c, "AgreementMethod") || is(&c, XENC11_NS, "DerivedKey")))
}

fn agreed(provider: &dyn CipherProvider, keys: &[DecryptionKey], am: Node<'_>, len: usize, limits: Limits<'_>) -> Option<Vec<u8>> {
    let alg = attr(am, "Algorithm")?;
    let x25519 = match alg.as_str() {
        ECDH_ES => false,
        X25519 => true,
        _ => return None,
    };
    let kdm = child(am, XENC11_NS, "KeyDerivationMethod")?;
    let (curve, point) = originator_key(keys, child(am, XENC_NS, "OriginatorKeyInfo")?)?;
    if (curve == AgreementCurve::X25519) != x25519 {
        return None;
    }
    let names = key_names(child(am, XENC_NS, "RecipientKeyInfo"));
    let on_curve = |k: &&DecryptionKey| matches!(&k.kind, DecKind::Agreement(a) if a.curve() == curve);
    let recipient =
        keys.iter().filter(on_curve).find(|k| k.name.as_ref().is_some_and(|n| names.contains(n))).or_else(|| keys.iter().find(on_curve))?;
    let DecKind::Agreement(private) = &recipient.kind else { return None };
    let z = provider.agree(private, &point).ok()?;
    derive(provider, kdm, &z, len, limits)
}

/// The originator's public key: inline (`ds:KeyValue/dsig11:ECKeyValue` with a
/// `NamedCurve`), else a public key of the caller's that a `KeyName` names.
fn originator_key(keys: &[DecryptionKey], oki: Node<'_>) -> Option<(AgreementCurve, Vec<u8>)> {
    if let Some(ec) = child(oki, DSIG_NS, "KeyValue").and_then(|kv| child(kv, DSIG11_NS, "ECKeyValue")) {
        let curve = AgreementCurve::from_uri(&attr(child(ec, DSIG11_NS, "NamedCurve")?, "URI")?)?;
        let point = decode_b64(&text(child(ec, DSIG11_NS, "PublicKey")?))?;
        return Some((curve, point));
    }
    let names = key_names(Some(oki));
    keys.iter().find_map(|k| match &k.kind {
        DecKind::Public { curve, point } if k.name.as_ref().is_some_and(|n| names.contains(n)) => Some((*curve, point.clone())),
        _ => None,
    })
}

fn derived(provider: &dyn CipherProvider, keys: &[DecryptionKey], dk: Node<'_>, len: usize, limits: Limits<'_>) -> Option<Vec<u8>> {
    let kdm = child(dk, XENC11_NS, "KeyDerivationMethod")?;
    let name = child(dk, XENC11_NS, "MasterKeyName").map(text);
    let master = |named: bool| {
        keys.iter().find_map(|k| match &k.kind {
            DecKind::Master(s) if !named || (name.is_some() && k.name == name) => Some(s),
            _ => None,
        })
    };
    let secret = master(true).or_else(|| master(false))?;
    derive(provider, kdm, secret, len, limits)
}

/// `len` bytes from `secret` by the `KeyDerivationMethod` `kdm`.
fn derive(provider: &dyn CipherProvider, kdm: Node<'_>, secret: &[u8], len: usize, limits: Limits<'_>) -> Option<Vec<u8>> {
    if len == 0 || len > MAX_KEY_LEN {
        return None;
    }
    match attr(kdm, "Algorithm")?.as_str() {
        CONCAT_KDF => {
            let p = child(kdm, XENC11_NS, "ConcatKDFParams")?;
            let hash = DigestAlgorithm::from_uri(&attr(child(p, DSIG_NS, "DigestMethod")?, "Algorithm")?).ok()?;
            let mut other = Vec::new();
            for a in ["AlgorithmID", "PartyUInfo", "PartyVInfo", "SuppPubInfo", "SuppPrivInfo"] {
                if let Some(v) = attr(p, a) {
                    other.extend(bit_string(&v)?);
                }
            }
            concat_kdf(provider, hash, secret, &other, len)
        }
        PBKDF2 => {
            let p = child(kdm, XENC11_NS, "PBKDF2-params")?;
            // only a specified salt: `OtherSource` names an algorithm that would compute one
            let salt = decode_b64(&text(child(child(p, XENC11_NS, "Salt")?, XENC11_NS, "Specified")?))?;
            let iterations: u32 = text(child(p, XENC11_NS, "IterationCount")?).parse().ok()?;
            if iterations == 0 || iterations > limits.max_iterations || u64::from(iterations) > limits.left.get() {
                return None;
            }
            limits.left.set(limits.left.get() - u64::from(iterations));
            key_length(child(p, XENC11_NS, "KeyLength"), len)?;
            let prf = prf(&attr(child(p, XENC11_NS, "PRF")?, "Algorithm")?)?;
            provider.pbkdf2(prf, secret, &salt, iterations, len).ok()
        }
        HKDF => {
            let p = child(kdm, DSIG_MORE_2021, "HKDFParams")?;
            let prf = prf(&attr(child(p, DSIG_MORE_2021, "PRF")?, "Algorithm")?)?;
            let b64 = |local: &str| match child(p, DSIG_MORE_2021, local) {
                Some(n) => decode_b64(&text(n)),
                None => Some(Vec::new()),
            };
            let (salt, info) = (b64("Salt")?, b64("Info")?);
            key_length(child(p, DSIG_MORE_2021, "KeyLength"), len)?;
            provider.hkdf(prf, secret, &salt, &info, len).ok()
        }
        _ => None,
    }
}

/// A `KeyLength` (in bytes), if given, must be the length the key is for.
fn key_length(n: Option<Node<'_>>, len: usize) -> Option<()> {
    match n {
        None => Some(()),
        Some(n) => (text(n).parse::<usize>().ok()? == len).then_some(()),
    }
}

/// The bytes of one of ConcatKDF's `hexBinary` bit strings: the first octet
/// counts the padding bits of the last (XML Encryption 1.1 §5.4.1); only
/// whole octets (a first octet of 0) are offered. An empty attribute is empty.
fn bit_string(hex: &str) -> Option<Vec<u8>> {
    if hex.is_empty() {
        return Some(Vec::new());
    }
    if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0)).collect();
    match bytes.split_first() {
        Some((0, rest)) => Some(rest.to_vec()),
        _ => None,
    }
}

/// ConcatKDF: `Hash(counter || Z || OtherInfo)` for counter = 1, 2, ... (32-bit
/// big-endian), concatenated and cut to `len` bytes.
fn concat_kdf(provider: &dyn CipherProvider, hash: DigestAlgorithm, z: &[u8], other: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(len + 64);
    let mut counter: u32 = 1;
    while out.len() < len {
        out.extend(provider.hash(hash, &[&counter.to_be_bytes(), z, other]).ok()?);
        counter += 1;
    }
    out.truncate(len);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::AwsLcProvider;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn bit_strings_take_whole_octets_only() {
        assert_eq!(bit_string(""), Some(vec![]));
        assert_eq!(bit_string("00"), Some(vec![]));
        assert_eq!(bit_string("00414C494345"), Some(b"ALICE".to_vec()));
        assert_eq!(bit_string("0341"), None, "padding bits are not offered");
        assert_eq!(bit_string("004"), None);
        assert_eq!(bit_string("00zz"), None);
    }

    /// NIST's ConcatKDF (SP 800-56A §5.8.1) as RFC 7518 Appendix C uses it for
    /// ECDH-ES: Z from the appendix, OtherInfo = AlgorithmID "A128GCM" (32-bit
    /// length prefix) || PartyUInfo "Alice" || PartyVInfo "Bob" || SuppPubInfo
    /// 128; the derived key is the appendix's.
    #[test]
    fn concat_kdf_matches_rfc7518_appendix_c() {
        let z = [
            158, 86, 217, 29, 129, 113, 53, 211, 114, 131, 66, 131, 191, 132, 38, 156, 251, 49, 110, 163, 218, 128, 106, 72, 246, 218, 167,
            121, 140, 254, 144, 196,
        ];
        let other = hex("000000074131323847434d00000005416c69636500000003426f6200000080");
        let k = concat_kdf(&AwsLcProvider, DigestAlgorithm::Sha256, &z, &other, 16).unwrap();
        assert_eq!(k, [86, 170, 141, 234, 248, 35, 109, 32, 92, 34, 40, 205, 113, 167, 16, 26]);
    }
}
