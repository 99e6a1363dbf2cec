//! The crypto behind verification, as a small trait ([`CryptoProvider`]) with
//! one implementation on `aws-lc-rs` ([`AwsLcProvider`]).
//!
//! Digests are incremental contexts that implement [`std::io::Write`], so the
//! canonicalizer streams the canonical bytes of a Reference straight into the
//! hash; they are never collected.

use std::io::{self, Write};

use aws_lc_rs::{digest, hmac, signature};

use crate::alg::{DigestAlgorithm, SignatureAlgorithm};
use crate::error::ErrorKind;
use crate::key::{Curve, KeyMaterial};

/// An incremental digest. Write the data, then [`DigestContext::finish`].
pub trait DigestContext: Write {
    /// The digest of everything written.
    fn finish(self: Box<Self>) -> Vec<u8>;
}

/// The cryptographic operations verification needs. Implement it to put
/// another library under `vtdx-dsig`; [`AwsLcProvider`] is the default.
pub trait CryptoProvider: Send + Sync + std::fmt::Debug {
    /// A new digest context for `alg`, or `UnsupportedAlgorithm`.
    fn digest(&self, alg: DigestAlgorithm) -> Result<Box<dyn DigestContext>, ErrorKind>;

    /// Checks `sig` over `message` with `key` for `alg`. The caller has already
    /// checked that the key's type fits the algorithm and its size the policy.
    /// `Err(InvalidSignature)` when it does not verify; `UnsupportedAlgorithm`
    /// for a combination the provider lacks.
    fn verify(&self, alg: SignatureAlgorithm, key: &KeyMaterial, message: &[u8], sig: &[u8]) -> Result<(), ErrorKind>;
}

/// [`CryptoProvider`] on aws-lc-rs (constant-time, maintained, FIPS-capable).
#[derive(Debug, Clone, Copy, Default)]
pub struct AwsLcProvider;

struct AwsDigest(digest::Context);

impl Write for AwsDigest {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.update(buf);
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl DigestContext for AwsDigest {
    fn finish(self: Box<Self>) -> Vec<u8> {
        self.0.finish().as_ref().to_vec()
    }
}

fn aws_digest(alg: DigestAlgorithm) -> &'static digest::Algorithm {
    match alg {
        DigestAlgorithm::Sha1 => &digest::SHA1_FOR_LEGACY_USE_ONLY,
        DigestAlgorithm::Sha224 => &digest::SHA224,
        DigestAlgorithm::Sha256 => &digest::SHA256,
        DigestAlgorithm::Sha384 => &digest::SHA384,
        DigestAlgorithm::Sha512 => &digest::SHA512,
        DigestAlgorithm::Sha3_256 => &digest::SHA3_256,
        DigestAlgorithm::Sha3_384 => &digest::SHA3_384,
        DigestAlgorithm::Sha3_512 => &digest::SHA3_512,
    }
}

impl CryptoProvider for AwsLcProvider {
    fn digest(&self, alg: DigestAlgorithm) -> Result<Box<dyn DigestContext>, ErrorKind> {
        Ok(Box::new(AwsDigest(digest::Context::new(aws_digest(alg)))))
    }

    fn verify(&self, alg: SignatureAlgorithm, key: &KeyMaterial, message: &[u8], sig: &[u8]) -> Result<(), ErrorKind> {
        use DigestAlgorithm as D;
        use SignatureAlgorithm as S;
        let unsupported = || ErrorKind::UnsupportedAlgorithm(format!("{} with this key", alg.uri()));
        let check = |params: &'static dyn signature::VerificationAlgorithm, key: &[u8], sig: &[u8]| {
            signature::UnparsedPublicKey::new(params, key).verify(message, sig).map_err(|_| ErrorKind::InvalidSignature)
        };
        match (alg, key) {
            (S::RsaPkcs1(d), KeyMaterial::Rsa { pkcs1, bits }) => {
                let legacy = *bits < 2048;
                let params: &'static signature::RsaParameters = match (d, legacy) {
                    (D::Sha1, false) => &signature::RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY,
                    (D::Sha256, false) => &signature::RSA_PKCS1_2048_8192_SHA256,
                    (D::Sha384, false) => &signature::RSA_PKCS1_2048_8192_SHA384,
                    (D::Sha512, false) => &signature::RSA_PKCS1_2048_8192_SHA512,
                    (D::Sha1, true) => &signature::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
                    (D::Sha256, true) => &signature::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY,
                    (D::Sha512, true) => &signature::RSA_PKCS1_1024_8192_SHA512_FOR_LEGACY_USE_ONLY,
                    _ => return Err(unsupported()),
                };
                check(params, pkcs1, sig)
            }
            (S::RsaPss(d), KeyMaterial::Rsa { pkcs1, bits }) => {
                if *bits < 2048 {
                    return Err(unsupported());
                }
                let params: &'static signature::RsaParameters = match d {
                    D::Sha256 => &signature::RSA_PSS_2048_8192_SHA256,
                    D::Sha384 => &signature::RSA_PSS_2048_8192_SHA384,
                    D::Sha512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return Err(unsupported()),
                };
                check(params, pkcs1, sig)
            }
            (S::Ecdsa(d), KeyMaterial::Ec { curve, point }) => {
                let params: &'static signature::EcdsaVerificationAlgorithm = match (curve, d) {
                    (Curve::P256, D::Sha1) => &signature::ECDSA_P256_SHA1_ASN1,
                    (Curve::P256, D::Sha256) => &signature::ECDSA_P256_SHA256_ASN1,
                    (Curve::P256, D::Sha384) => &signature::ECDSA_P256_SHA384_ASN1,
                    (Curve::P256, D::Sha512) => &signature::ECDSA_P256_SHA512_ASN1,
                    (Curve::P384, D::Sha256) => &signature::ECDSA_P384_SHA256_ASN1,
                    (Curve::P384, D::Sha384) => &signature::ECDSA_P384_SHA384_ASN1,
                    (Curve::P384, D::Sha512) => &signature::ECDSA_P384_SHA512_ASN1,
                    (Curve::P384, D::Sha3_384) => &signature::ECDSA_P384_SHA3_384_ASN1,
                    (Curve::P521, D::Sha1) => &signature::ECDSA_P521_SHA1_ASN1,
                    (Curve::P521, D::Sha224) => &signature::ECDSA_P521_SHA224_ASN1,
                    (Curve::P521, D::Sha256) => &signature::ECDSA_P521_SHA256_ASN1,
                    (Curve::P521, D::Sha384) => &signature::ECDSA_P521_SHA384_ASN1,
                    (Curve::P521, D::Sha512) => &signature::ECDSA_P521_SHA512_ASN1,
                    (Curve::P521, D::Sha3_512) => &signature::ECDSA_P521_SHA3_512_ASN1,
                    _ => return Err(unsupported()),
                };
                // XML Signature 1.1 §6.4.3: the value is r || s, each as long as the group order
                let der = rs_to_der(sig, curve.scalar_len()).ok_or(ErrorKind::InvalidSignature)?;
                check(params, point, &der)
            }
            (S::Ed25519, KeyMaterial::Ed25519(k)) => check(&signature::ED25519, k, sig),
            (S::Hmac(d), KeyMaterial::Hmac(secret)) => {
                let a = match d {
                    D::Sha1 => hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY,
                    D::Sha224 => hmac::HMAC_SHA224,
                    D::Sha256 => hmac::HMAC_SHA256,
                    D::Sha384 => hmac::HMAC_SHA384,
                    D::Sha512 => hmac::HMAC_SHA512,
                    _ => return Err(unsupported()),
                };
                // constant-time comparison of the full-length tag
                hmac::verify(&hmac::Key::new(a, secret), message, sig).map_err(|_| ErrorKind::InvalidSignature)
            }
            _ => Err(unsupported()),
        }
    }
}

/// `r || s` (each `n` bytes, big-endian) as the DER `SEQUENCE { INTEGER r, INTEGER s }`
/// of RFC 3279; `None` when the length is not `2n`.
pub(crate) fn rs_to_der(sig: &[u8], n: usize) -> Option<Vec<u8>> {
    if sig.len() != 2 * n {
        return None;
    }
    fn integer(out: &mut Vec<u8>, v: &[u8]) {
        let start = v.iter().position(|&b| b != 0).unwrap_or(v.len());
        let v = &v[start..];
        let pad = v.is_empty() || v[0] & 0x80 != 0;
        out.push(0x02);
        push_len(out, v.len() + pad as usize);
        if pad {
            out.push(0);
        }
        out.extend_from_slice(v);
    }
    let mut body = Vec::with_capacity(2 * n + 8);
    integer(&mut body, &sig[..n]);
    integer(&mut body, &sig[n..]);
    let mut out = Vec::with_capacity(body.len() + 4);
    out.push(0x30);
    push_len(&mut out, body.len());
    out.extend_from_slice(&body);
    Some(out)
}

fn push_len(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
    } else if len < 0x100 {
        out.extend_from_slice(&[0x81, len as u8]);
    } else {
        out.extend_from_slice(&[0x82, (len >> 8) as u8, len as u8]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rs_to_der_strips_and_pads() {
        // r = 0x00..01, s = 0x80..00 (needs a leading zero)
        let mut sig = vec![0u8; 64];
        sig[31] = 1;
        sig[32] = 0x80;
        let der = rs_to_der(&sig, 32).unwrap();
        assert_eq!(&der[..5], &[0x30, 3 + 35, 0x02, 1, 1]);
        assert_eq!(&der[5..8], &[0x02, 33, 0]);
        assert_eq!(der.len(), 2 + 3 + 2 + 33);
        assert!(rs_to_der(&sig, 48).is_none());
    }

    #[test]
    fn digest_streams() {
        let mut d = AwsLcProvider.digest(DigestAlgorithm::Sha256).unwrap();
        d.write_all(b"a").unwrap();
        d.write_all(b"bc").unwrap();
        let out = d.finish();
        // SHA-256("abc"), FIPS 180-2 appendix B.1
        assert_eq!(out[..4], [0xba, 0x78, 0x16, 0xbf]);
    }
}
