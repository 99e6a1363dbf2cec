//! The crypto behind verification, as a small trait ([`CryptoProvider`]) with
//! one implementation on `aws-lc-rs` ([`AwsLcProvider`]).
//!
//! Digests are incremental contexts that implement [`std::io::Write`], so the
//! canonicalizer streams the canonical bytes of a Reference straight into the
//! hash; they are never collected.

use std::io::{self, Write};

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::{digest, hmac, signature};

use crate::alg::{DigestAlgorithm, SignatureAlgorithm};
use crate::error::ErrorKind;
use crate::key::{Curve, KeyMaterial};

/// An incremental digest. Write the data, then [`DigestContext::finish`]. `Send`:
/// a large Reference may be hashed on a helper thread
/// ([`crate::VerifyConfigBuilder::parallel`]).
pub trait DigestContext: Write + Send {
    /// The digest of everything written.
    fn finish(self: Box<Self>) -> Vec<u8>;

    /// A copy of the context as it stands, when the provider can make one
    /// (default `None`). A large Reference is hashed on a helper thread only with
    /// a context that can be copied: the copy after each piece is what the
    /// calling thread carries on from when it takes the rest of the hash back.
    fn try_clone(&self) -> Option<Box<dyn DigestContext>> {
        None
    }
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
    fn try_clone(&self) -> Option<Box<dyn DigestContext>> {
        Some(Box::new(AwsDigest(self.0.clone())))
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
                let params = match (d, legacy) {
                    (D::Sha1, false) => RsaParams::Pkcs1Sha1,
                    (D::Sha256, false) => RsaParams::Pkcs1Sha256,
                    (D::Sha384, false) => RsaParams::Pkcs1Sha384,
                    (D::Sha512, false) => RsaParams::Pkcs1Sha512,
                    (D::Sha1, true) => RsaParams::Pkcs1Sha1Legacy,
                    (D::Sha256, true) => RsaParams::Pkcs1Sha256Legacy,
                    (D::Sha512, true) => RsaParams::Pkcs1Sha512Legacy,
                    _ => return Err(unsupported()),
                };
                verify_rsa(params, pkcs1, message, sig)
            }
            (S::RsaPss(d), KeyMaterial::Rsa { pkcs1, bits }) => {
                if *bits < 2048 {
                    return Err(unsupported());
                }
                let params = match d {
                    D::Sha256 => RsaParams::PssSha256,
                    D::Sha384 => RsaParams::PssSha384,
                    D::Sha512 => RsaParams::PssSha512,
                    _ => return Err(unsupported()),
                };
                verify_rsa(params, pkcs1, message, sig)
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

/// The RSA signature schemes [`AwsLcProvider`] verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RsaParams {
    Pkcs1Sha1,
    Pkcs1Sha256,
    Pkcs1Sha384,
    Pkcs1Sha512,
    Pkcs1Sha1Legacy,
    Pkcs1Sha256Legacy,
    Pkcs1Sha512Legacy,
    PssSha256,
    PssSha384,
    PssSha512,
}

impl RsaParams {
    fn get(self) -> &'static signature::RsaParameters {
        match self {
            RsaParams::Pkcs1Sha1 => &signature::RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY,
            RsaParams::Pkcs1Sha256 => &signature::RSA_PKCS1_2048_8192_SHA256,
            RsaParams::Pkcs1Sha384 => &signature::RSA_PKCS1_2048_8192_SHA384,
            RsaParams::Pkcs1Sha512 => &signature::RSA_PKCS1_2048_8192_SHA512,
            RsaParams::Pkcs1Sha1Legacy => &signature::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
            RsaParams::Pkcs1Sha256Legacy => &signature::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY,
            RsaParams::Pkcs1Sha512Legacy => &signature::RSA_PKCS1_1024_8192_SHA512_FOR_LEGACY_USE_ONLY,
            RsaParams::PssSha256 => &signature::RSA_PSS_2048_8192_SHA256,
            RsaParams::PssSha384 => &signature::RSA_PSS_2048_8192_SHA384,
            RsaParams::PssSha512 => &signature::RSA_PSS_2048_8192_SHA512,
        }
    }
}

/// The most parsed RSA public keys a thread keeps ([`verify_rsa`]).
const RSA_KEYS_MAX: usize = 8;

thread_local! {
    /// The RSA public keys this thread verified with lately, parsed, each with the
    /// scheme it was parsed for: a caller verifies message after message with the same
    /// few keys, and a parsed key keeps what aws-lc computes from the modulus on its
    /// first use (the Montgomery context: a division of 2048-bit numbers, about a tenth
    /// of a verification), which a key parsed anew per message recomputes every time.
    static RSA_KEYS: std::cell::RefCell<Vec<(RsaParams, signature::ParsedPublicKey)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// RSA verification of `sig` over `message` with the PKCS#1 `RSAPublicKey` DER `pkcs1`:
/// the same parse and checks (size range, padding, digest) as
/// `UnparsedPublicKey::verify`, the parsed key found again by its exact bytes.
fn verify_rsa(params: RsaParams, pkcs1: &[u8], message: &[u8], sig: &[u8]) -> Result<(), ErrorKind> {
    let cached = RSA_KEYS.try_with(|keys| {
        let mut keys = keys.try_borrow_mut().ok()?;
        let i = match keys.iter().position(|(p, k)| *p == params && k.as_ref() == pkcs1) {
            Some(i) => i,
            None => {
                let Ok(k) = signature::ParsedPublicKey::new(params.get(), pkcs1) else {
                    return Some(Err(ErrorKind::InvalidSignature));
                };
                if keys.len() == RSA_KEYS_MAX {
                    keys.remove(0);
                }
                keys.push((params, k));
                keys.len() - 1
            }
        };
        Some(keys[i].1.verify_sig(message, sig).map_err(|_| ErrorKind::InvalidSignature))
    });
    match cached {
        Ok(Some(r)) => r,
        // the thread's cache is gone (thread exit) or in use: parse for this one call
        _ => signature::UnparsedPublicKey::new(params.get(), pkcs1).verify(message, sig).map_err(|_| ErrorKind::InvalidSignature),
    }
}

// ---- encryption primitives (XML Encryption 1.1) ------------------------------

/// The digest of RSA-OAEP and its MGF1, as XML Encryption names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OaepDigest {
    /// SHA-1 (the default of both `rsa-oaep-mgf1p` and `rsa-oaep`).
    Sha1,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

/// The RSA key transport schemes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RsaPadding {
    /// RSAES-OAEP with a digest, an MGF1 digest and a label (`OAEPparams`).
    Oaep {
        /// The digest of the label.
        digest: OaepDigest,
        /// The digest of MGF1.
        mgf: OaepDigest,
        /// The label (`xenc:OAEPparams`); empty when absent.
        label: Vec<u8>,
    },
    /// RSAES-PKCS1-v1_5 (legacy: a Bleichenbacher oracle unless every failure is hidden).
    Pkcs1,
}

/// An RSA private key for key transport, parsed once (the parse costs more
/// than one decryption).
pub struct RsaDecryptingKey {
    key: aws_lc_rs::rsa::PrivateDecryptingKey,
    public: KeyMaterial,
}

impl std::fmt::Debug for RsaDecryptingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // never print key material
        write!(f, "RsaDecryptingKey({})", self.public.describe())
    }
}

impl RsaDecryptingKey {
    /// Reads an unencrypted RSA private key: PKCS#8 `PrivateKeyInfo` or PKCS#1 `RSAPrivateKey` DER.
    pub fn from_der(der: &[u8]) -> Result<RsaDecryptingKey, ErrorKind> {
        use aws_lc_rs::rsa::PrivateDecryptingKey;
        let key = PrivateDecryptingKey::from_pkcs8(der)
            .or_else(|_| PrivateDecryptingKey::from_pkcs8(&pkcs1_to_pkcs8(der)))
            .map_err(|e| ErrorKind::Key(format!("not an unencrypted RSA private key (PKCS#8 or PKCS#1): {e}")))?;
        let public = crate::key::VerifyingKey::from_der(der)
            .or_else(|_| crate::key::VerifyingKey::from_der(&pkcs1_to_pkcs8(der)))
            .map_err(|e| ErrorKind::Key(e.to_string()))?
            .material()
            .clone();
        Ok(RsaDecryptingKey { key, public })
    }

    /// The modulus length in bytes (the length of every ciphertext).
    pub fn modulus_len(&self) -> usize {
        self.key.key_size_bytes()
    }

    /// The public half.
    pub fn public_key(&self) -> &KeyMaterial {
        &self.public
    }
}

/// Wraps a PKCS#1 `RSAPrivateKey` into a PKCS#8 `PrivateKeyInfo` (rsaEncryption, NULL parameters).
fn pkcs1_to_pkcs8(pkcs1: &[u8]) -> Vec<u8> {
    const ALG: &[u8] = &[0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
    let mut body = vec![0x02, 0x01, 0x00];
    body.extend_from_slice(ALG);
    body.push(0x04);
    push_len(&mut body, pkcs1.len());
    body.extend_from_slice(pkcs1);
    let mut out = vec![0x30];
    push_len(&mut out, body.len());
    out.extend_from_slice(&body);
    out
}

/// An RSA `SubjectPublicKeyInfo` DER from the PKCS#1 `RSAPublicKey` DER.
fn rsa_spki(pkcs1: &[u8]) -> Vec<u8> {
    const ALG: &[u8] = &[0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
    let mut bits = vec![0x03];
    push_len(&mut bits, pkcs1.len() + 1);
    bits.push(0);
    bits.extend_from_slice(pkcs1);
    let mut body = ALG.to_vec();
    body.extend_from_slice(&bits);
    let mut out = vec![0x30];
    push_len(&mut out, body.len());
    out.extend_from_slice(&body);
    out
}

/// Why an encryption primitive failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CipherError {
    /// Decryption failed: a wrong key, a bad tag, bad padding, a bad length.
    /// Deliberately without detail.
    DecryptionFailed,
    /// The provider lacks this combination of parameters.
    Unsupported(String),
    /// Another failure (of encryption, or of the random generator).
    Other(String),
}

impl std::fmt::Display for CipherError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CipherError::DecryptionFailed => write!(f, "decryption failed"),
            CipherError::Unsupported(s) | CipherError::Other(s) => write!(f, "{s}"),
        }
    }
}

/// The encryption primitives XML Encryption needs. Every failure that
/// depends on a secret (a wrong key, a bad tag, bad padding) is the one
/// [`CipherError::DecryptionFailed`]; callers must not tell them apart.
pub trait CipherProvider: Send + Sync + std::fmt::Debug {
    /// Fills `buf` with random bytes.
    fn random(&self, buf: &mut [u8]) -> Result<(), CipherError>;

    /// AES-GCM (128-bit tag, no additional data): decrypts `ciphertext || tag` in
    /// place under `key` (16, 24 or 32 bytes) and the 12-byte `iv`; the plaintext length.
    fn aes_gcm_open(&self, key: &[u8], iv: &[u8], in_out: &mut [u8]) -> Result<usize, CipherError>;

    /// AES-GCM: encrypts `in_out` in place and appends the 16-byte tag.
    fn aes_gcm_seal(&self, key: &[u8], iv: &[u8], in_out: &mut Vec<u8>) -> Result<(), CipherError>;

    /// AES-GCM: encrypts `plaintext` into `out`, which is `plaintext.len() + 16`
    /// bytes long (the ciphertext, then the tag), and leaves `plaintext` as it is.
    /// The default copies the plaintext and calls [`CipherProvider::aes_gcm_seal`].
    fn aes_gcm_seal_to(&self, key: &[u8], iv: &[u8], plaintext: &[u8], out: &mut [u8]) -> Result<(), CipherError> {
        if out.len() != plaintext.len() + 16 {
            return Err(CipherError::Other("AES-GCM output of the wrong length".into()));
        }
        let mut v = Vec::with_capacity(out.len());
        v.extend_from_slice(plaintext);
        self.aes_gcm_seal(key, iv, &mut v)?;
        out.copy_from_slice(&v);
        Ok(())
    }

    /// AES-CBC without padding removal: decrypts whole blocks in place.
    fn aes_cbc_decrypt(&self, key: &[u8], iv: &[u8; 16], in_out: &mut [u8]) -> Result<(), CipherError>;

    /// AES-CBC without padding: encrypts whole blocks in place.
    fn aes_cbc_encrypt(&self, key: &[u8], iv: &[u8; 16], in_out: &mut [u8]) -> Result<(), CipherError>;

    /// AES key wrap (RFC 3394) of `key` (a multiple of 8 bytes, at least 16) under `kek`.
    fn aes_key_wrap(&self, kek: &[u8], key: &[u8]) -> Result<Vec<u8>, CipherError>;

    /// AES key unwrap (RFC 3394), the integrity check compared in constant time.
    fn aes_key_unwrap(&self, kek: &[u8], wrapped: &[u8]) -> Result<Vec<u8>, CipherError>;

    /// RSA key transport: decrypts `ciphertext` with the private key.
    fn rsa_decrypt(&self, key: &RsaDecryptingKey, padding: &RsaPadding, ciphertext: &[u8]) -> Result<Vec<u8>, CipherError>;

    /// RSA key transport: encrypts `plaintext` to the public key (`KeyMaterial::Rsa`).
    fn rsa_encrypt(&self, key: &KeyMaterial, padding: &RsaPadding, plaintext: &[u8]) -> Result<Vec<u8>, CipherError>;

    /// Key agreement (ECDH on the key's curve, or X25519): the shared secret Z of the
    /// caller's private key and the peer's public key (an uncompressed SEC1 point, or
    /// the 32 bytes of an X25519 key). A bad peer key is `DecryptionFailed`.
    fn agree(&self, key: &AgreementKey, peer_public: &[u8]) -> Result<Vec<u8>, CipherError> {
        let _ = (key, peer_public);
        Err(CipherError::Unsupported("key agreement".into()))
    }

    /// The digest of the concatenation of `parts` (ConcatKDF's hash).
    fn hash(&self, alg: DigestAlgorithm, parts: &[&[u8]]) -> Result<Vec<u8>, CipherError> {
        let _ = (alg, parts);
        Err(CipherError::Unsupported("digests for key derivation".into()))
    }

    /// HKDF (RFC 5869) with HMAC of `alg`: `len` bytes from `ikm`, `salt` and `info`.
    fn hkdf(&self, alg: DigestAlgorithm, ikm: &[u8], salt: &[u8], info: &[u8], len: usize) -> Result<Vec<u8>, CipherError> {
        let _ = (alg, ikm, salt, info, len);
        Err(CipherError::Unsupported("HKDF".into()))
    }

    /// PBKDF2 (RFC 8018) with HMAC of `alg`: `len` bytes from `secret` and `salt`.
    fn pbkdf2(&self, alg: DigestAlgorithm, secret: &[u8], salt: &[u8], iterations: u32, len: usize) -> Result<Vec<u8>, CipherError> {
        let _ = (alg, secret, salt, iterations, len);
        Err(CipherError::Unsupported("PBKDF2".into()))
    }
}

/// The curve of a key-agreement key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AgreementCurve {
    /// NIST P-256 (`urn:oid:1.2.840.10045.3.1.7`).
    P256,
    /// NIST P-384 (`urn:oid:1.3.132.0.34`).
    P384,
    /// NIST P-521 (`urn:oid:1.3.132.0.35`).
    P521,
    /// X25519 (RFC 7748).
    X25519,
}

impl AgreementCurve {
    fn aws(self) -> &'static aws_lc_rs::agreement::Algorithm {
        use aws_lc_rs::agreement::{ECDH_P256, ECDH_P384, ECDH_P521, X25519};
        match self {
            AgreementCurve::P256 => &ECDH_P256,
            AgreementCurve::P384 => &ECDH_P384,
            AgreementCurve::P521 => &ECDH_P521,
            AgreementCurve::X25519 => &X25519,
        }
    }

    /// The curve of a `dsig11:NamedCurve` URI (`urn:oid:...`).
    pub fn from_uri(uri: &str) -> Option<AgreementCurve> {
        match uri.trim() {
            "urn:oid:1.2.840.10045.3.1.7" => Some(AgreementCurve::P256),
            "urn:oid:1.3.132.0.34" => Some(AgreementCurve::P384),
            "urn:oid:1.3.132.0.35" => Some(AgreementCurve::P521),
            _ => None,
        }
    }
}

/// A private key for key agreement (ECDH-ES on P-256/384/521, or X25519), parsed once.
pub struct AgreementKey {
    key: aws_lc_rs::agreement::PrivateKey,
    curve: AgreementCurve,
}

impl std::fmt::Debug for AgreementKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // never print key material
        write!(f, "AgreementKey({:?})", self.curve)
    }
}

/// The OID of X25519 (1.3.101.110) as it stands in a PKCS#8 `AlgorithmIdentifier`.
const X25519_OID: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x6e];

impl AgreementKey {
    /// Reads an unencrypted private key from DER: an EC key (PKCS#8 or SEC1
    /// `ECPrivateKey`) on P-256, P-384 or P-521, or an X25519 key (PKCS#8).
    pub fn from_der(der: &[u8]) -> Result<AgreementKey, ErrorKind> {
        use aws_lc_rs::agreement::PrivateKey;
        if let Some(raw) = x25519_pkcs8_private(der) {
            let key = PrivateKey::from_private_key(AgreementCurve::X25519.aws(), raw)
                .map_err(|e| ErrorKind::Key(format!("not an X25519 private key: {e}")))?;
            return Ok(AgreementKey { key, curve: AgreementCurve::X25519 });
        }
        for curve in [AgreementCurve::P256, AgreementCurve::P384, AgreementCurve::P521] {
            if let Ok(key) = PrivateKey::from_private_key_der(curve.aws(), der) {
                return Ok(AgreementKey { key, curve });
            }
        }
        Err(ErrorKind::Key("not an unencrypted EC (P-256, P-384, P-521) or X25519 private key".into()))
    }

    /// The curve.
    pub fn curve(&self) -> AgreementCurve {
        self.curve
    }
}

/// The 32 private bytes of an X25519 PKCS#8 `PrivateKeyInfo` (RFC 8410):
/// SEQUENCE { INTEGER 0|1, SEQUENCE { OID 1.3.101.110 }, OCTET STRING { OCTET STRING (32) } ... }.
fn x25519_pkcs8_private(der: &[u8]) -> Option<&[u8]> {
    fn tlv(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let (&tag, rest) = b.split_first()?;
        let (&l0, rest) = rest.split_first()?;
        let (len, rest) = match l0 {
            0..=0x7f => (l0 as usize, rest),
            0x81 => (*rest.first()? as usize, &rest[1..]),
            0x82 => (u16::from_be_bytes([*rest.first()?, *rest.get(1)?]) as usize, rest.get(2..)?),
            _ => return None,
        };
        (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
    }
    let (0x30, body, _) = tlv(der)? else { return None };
    let (0x02, _version, rest) = tlv(body)? else { return None };
    let (0x30, alg, rest) = tlv(rest)? else { return None };
    if alg != X25519_OID {
        return None;
    }
    let (0x04, inner, _) = tlv(rest)? else { return None };
    let (0x04, raw, _) = tlv(inner)? else { return None };
    (raw.len() == 32).then_some(raw)
}

fn aes_alg(key: &[u8]) -> Result<&'static aws_lc_rs::cipher::Algorithm, CipherError> {
    use aws_lc_rs::cipher;
    match key.len() {
        16 => Ok(&cipher::AES_128),
        24 => Ok(&cipher::AES_192),
        32 => Ok(&cipher::AES_256),
        _ => Err(CipherError::DecryptionFailed),
    }
}

fn gcm_alg(key: &[u8]) -> Result<&'static aws_lc_rs::aead::Algorithm, CipherError> {
    use aws_lc_rs::aead;
    match key.len() {
        16 => Ok(&aead::AES_128_GCM),
        24 => Ok(&aead::AES_192_GCM),
        32 => Ok(&aead::AES_256_GCM),
        _ => Err(CipherError::DecryptionFailed),
    }
}

/// aws-lc's AES-GCM key for `key` (16, 24 or 32 bytes) and the nonce `iv`;
/// `err` when either is refused.
fn gcm_key(key: &[u8], iv: &[u8], err: fn() -> CipherError) -> Result<(LessSafeKey, Nonce), CipherError> {
    let alg = gcm_alg(key)?;
    match (UnboundKey::new(alg, key), Nonce::try_assume_unique_for_key(iv)) {
        (Ok(k), Ok(n)) => Ok((LessSafeKey::new(k), n)),
        _ => Err(err()),
    }
}

fn seal_failed() -> CipherError {
    CipherError::Other("AES-GCM encryption failed".into())
}

fn oaep_alg(d: OaepDigest, m: OaepDigest) -> Result<&'static aws_lc_rs::rsa::OaepAlgorithm, CipherError> {
    use aws_lc_rs::rsa;
    // aws-lc-rs offers OAEP with one digest for both the label hash and MGF1
    match (d, m) {
        (OaepDigest::Sha1, OaepDigest::Sha1) => Ok(&rsa::OAEP_SHA1_MGF1SHA1),
        (OaepDigest::Sha256, OaepDigest::Sha256) => Ok(&rsa::OAEP_SHA256_MGF1SHA256),
        (OaepDigest::Sha384, OaepDigest::Sha384) => Ok(&rsa::OAEP_SHA384_MGF1SHA384),
        (OaepDigest::Sha512, OaepDigest::Sha512) => Ok(&rsa::OAEP_SHA512_MGF1SHA512),
        _ => Err(CipherError::DecryptionFailed),
    }
}

/// One AES block operation in ECB mode (the building block of RFC 3394).
fn ecb(key: &[u8], block: &mut [u8], encrypt: bool) -> Result<(), CipherError> {
    use aws_lc_rs::cipher::{DecryptingKey, DecryptionContext, EncryptingKey, UnboundCipherKey};
    let alg = aes_alg(key)?;
    let k = UnboundCipherKey::new(alg, key).map_err(|_| CipherError::DecryptionFailed)?;
    if encrypt {
        EncryptingKey::ecb(k).and_then(|k| k.encrypt(block)).map(|_| ()).map_err(|_| CipherError::DecryptionFailed)
    } else {
        DecryptingKey::ecb(k).and_then(|k| k.decrypt(block, DecryptionContext::None)).map(|_| ()).map_err(|_| CipherError::DecryptionFailed)
    }
}

const KW_IV: [u8; 8] = [0xA6; 8];

impl CipherProvider for AwsLcProvider {
    fn random(&self, buf: &mut [u8]) -> Result<(), CipherError> {
        aws_lc_rs::rand::fill(buf).map_err(|_| CipherError::Other("the system random generator failed".into()))
    }

    fn aes_gcm_open(&self, key: &[u8], iv: &[u8], in_out: &mut [u8]) -> Result<usize, CipherError> {
        let (k, nonce) = gcm_key(key, iv, || CipherError::DecryptionFailed)?;
        k.open_in_place(nonce, Aad::empty(), in_out).map(|p| p.len()).map_err(|_| CipherError::DecryptionFailed)
    }

    fn aes_gcm_seal(&self, key: &[u8], iv: &[u8], in_out: &mut Vec<u8>) -> Result<(), CipherError> {
        let (k, nonce) = gcm_key(key, iv, seal_failed)?;
        k.seal_in_place_append_tag(nonce, Aad::empty(), in_out).map_err(|_| seal_failed())
    }

    fn aes_gcm_seal_to(&self, key: &[u8], iv: &[u8], plaintext: &[u8], out: &mut [u8]) -> Result<(), CipherError> {
        if out.len() != plaintext.len() + 16 {
            return Err(CipherError::Other("AES-GCM output of the wrong length".into()));
        }
        let (k, nonce) = gcm_key(key, iv, seal_failed)?;
        let (ciphertext, tag) = out.split_at_mut(plaintext.len());
        k.seal_out_of_place_scatter(nonce, Aad::empty(), plaintext, ciphertext, &[], tag).map_err(|_| seal_failed())
    }

    fn aes_cbc_decrypt(&self, key: &[u8], iv: &[u8; 16], in_out: &mut [u8]) -> Result<(), CipherError> {
        use aws_lc_rs::cipher::{DecryptingKey, DecryptionContext, UnboundCipherKey};
        use aws_lc_rs::iv::FixedLength;
        if in_out.len() % 16 != 0 {
            return Err(CipherError::DecryptionFailed);
        }
        let k = UnboundCipherKey::new(aes_alg(key)?, key).map_err(|_| CipherError::DecryptionFailed)?;
        let k = DecryptingKey::cbc(k).map_err(|_| CipherError::DecryptionFailed)?;
        k.decrypt(in_out, DecryptionContext::Iv128(FixedLength::from(iv))).map(|_| ()).map_err(|_| CipherError::DecryptionFailed)
    }

    fn aes_cbc_encrypt(&self, key: &[u8], iv: &[u8; 16], in_out: &mut [u8]) -> Result<(), CipherError> {
        use aws_lc_rs::cipher::{EncryptingKey, EncryptionContext, UnboundCipherKey};
        use aws_lc_rs::iv::FixedLength;
        let fail = |_| CipherError::Other("AES-CBC encryption failed".into());
        let k = UnboundCipherKey::new(aes_alg(key)?, key).map_err(fail)?;
        let k = EncryptingKey::cbc(k).map_err(fail)?;
        k.less_safe_encrypt(in_out, EncryptionContext::Iv128(FixedLength::from(iv))).map(|_| ()).map_err(fail)
    }

    fn aes_key_wrap(&self, kek: &[u8], key: &[u8]) -> Result<Vec<u8>, CipherError> {
        if key.len() < 16 || key.len() % 8 != 0 {
            return Err(CipherError::Other(format!("a key to wrap must be a multiple of 8 bytes and at least 16, not {}", key.len())));
        }
        let n = key.len() / 8;
        let mut a = KW_IV;
        let mut r: Vec<[u8; 8]> = key.chunks(8).map(|c| c.try_into().unwrap_or([0; 8])).collect();
        let mut b = [0u8; 16];
        for j in 0..6u64 {
            for (i, ri) in r.iter_mut().enumerate() {
                b[..8].copy_from_slice(&a);
                b[8..].copy_from_slice(ri);
                ecb(kek, &mut b, true).map_err(|_| CipherError::Other("AES key wrap failed".into()))?;
                let t = (n as u64) * j + i as u64 + 1;
                a.copy_from_slice(&b[..8]);
                for (x, y) in a.iter_mut().zip(t.to_be_bytes()) {
                    *x ^= y;
                }
                ri.copy_from_slice(&b[8..]);
            }
        }
        let mut out = a.to_vec();
        for ri in r {
            out.extend_from_slice(&ri);
        }
        Ok(out)
    }

    fn aes_key_unwrap(&self, kek: &[u8], wrapped: &[u8]) -> Result<Vec<u8>, CipherError> {
        if wrapped.len() < 24 || wrapped.len() % 8 != 0 {
            return Err(CipherError::DecryptionFailed);
        }
        let n = wrapped.len() / 8 - 1;
        let mut a: [u8; 8] = wrapped[..8].try_into().map_err(|_| CipherError::DecryptionFailed)?;
        let mut r: Vec<[u8; 8]> = wrapped[8..].chunks(8).map(|c| c.try_into().unwrap_or([0; 8])).collect();
        let mut b = [0u8; 16];
        for j in (0..6u64).rev() {
            for i in (0..n).rev() {
                let t = (n as u64) * j + i as u64 + 1;
                for (x, y) in a.iter_mut().zip(t.to_be_bytes()) {
                    *x ^= y;
                }
                b[..8].copy_from_slice(&a);
                b[8..].copy_from_slice(&r[i]);
                ecb(kek, &mut b, false)?;
                a.copy_from_slice(&b[..8]);
                r[i].copy_from_slice(&b[8..]);
            }
        }
        // the integrity check, in constant time
        if aws_lc_rs::constant_time::verify_slices_are_equal(&a, &KW_IV).is_err() {
            return Err(CipherError::DecryptionFailed);
        }
        Ok(r.concat())
    }

    fn rsa_decrypt(&self, key: &RsaDecryptingKey, padding: &RsaPadding, ciphertext: &[u8]) -> Result<Vec<u8>, CipherError> {
        use aws_lc_rs::rsa::{OaepPrivateDecryptingKey, Pkcs1PrivateDecryptingKey};
        if ciphertext.len() != key.modulus_len() {
            return Err(CipherError::DecryptionFailed);
        }
        let mut out = vec![0u8; key.modulus_len()];
        let n = match padding {
            RsaPadding::Oaep { digest, mgf, label } => {
                let k = OaepPrivateDecryptingKey::new(key.key.clone()).map_err(|_| CipherError::DecryptionFailed)?;
                let Ok(alg) = oaep_alg(*digest, *mgf) else {
                    // a pair the provider lacks: fail after the time of a decryption all the same
                    let _ = k.decrypt(&aws_lc_rs::rsa::OAEP_SHA1_MGF1SHA1, ciphertext, &mut out, None);
                    return Err(CipherError::DecryptionFailed);
                };
                let label = (!label.is_empty()).then_some(label.as_slice());
                k.decrypt(alg, ciphertext, &mut out, label).map_err(|_| CipherError::DecryptionFailed)?.len()
            }
            RsaPadding::Pkcs1 => {
                let k = Pkcs1PrivateDecryptingKey::new(key.key.clone()).map_err(|_| CipherError::DecryptionFailed)?;
                k.decrypt(ciphertext, &mut out).map_err(|_| CipherError::DecryptionFailed)?.len()
            }
        };
        out.truncate(n);
        Ok(out)
    }

    fn rsa_encrypt(&self, key: &KeyMaterial, padding: &RsaPadding, plaintext: &[u8]) -> Result<Vec<u8>, CipherError> {
        use aws_lc_rs::rsa::{OaepPublicEncryptingKey, Pkcs1PublicEncryptingKey, PublicEncryptingKey};
        let KeyMaterial::Rsa { pkcs1, .. } = key else {
            return Err(CipherError::Other(format!("RSA key transport needs an RSA public key, not {}", key.describe())));
        };
        let fail = |_| CipherError::Other("RSA encryption failed".into());
        let public = PublicEncryptingKey::from_der(&rsa_spki(pkcs1)).map_err(|e| CipherError::Other(format!("RSA public key: {e}")))?;
        let mut out = vec![0u8; public.key_size_bytes()];
        let n = match padding {
            RsaPadding::Oaep { digest, mgf, label } => {
                let alg = oaep_alg(*digest, *mgf)
                    .map_err(|_| CipherError::Unsupported("RSA-OAEP with different digests for the label and MGF1".into()))?;
                let k = OaepPublicEncryptingKey::new(public).map_err(fail)?;
                let label = (!label.is_empty()).then_some(label.as_slice());
                k.encrypt(alg, plaintext, &mut out, label).map_err(fail)?.len()
            }
            RsaPadding::Pkcs1 => Pkcs1PublicEncryptingKey::new(public).map_err(fail)?.encrypt(plaintext, &mut out).map_err(fail)?.len(),
        };
        out.truncate(n);
        Ok(out)
    }

    fn agree(&self, key: &AgreementKey, peer_public: &[u8]) -> Result<Vec<u8>, CipherError> {
        use aws_lc_rs::agreement::{agree, UnparsedPublicKey};
        let peer = UnparsedPublicKey::new(key.curve.aws(), peer_public);
        agree(&key.key, peer, CipherError::DecryptionFailed, |z| Ok(z.to_vec()))
    }

    fn hash(&self, alg: DigestAlgorithm, parts: &[&[u8]]) -> Result<Vec<u8>, CipherError> {
        let mut c = aws_lc_rs::digest::Context::new(aws_digest(alg));
        for p in parts {
            c.update(p);
        }
        Ok(c.finish().as_ref().to_vec())
    }

    fn hkdf(&self, alg: DigestAlgorithm, ikm: &[u8], salt: &[u8], info: &[u8], len: usize) -> Result<Vec<u8>, CipherError> {
        use aws_lc_rs::hkdf;
        let a = match alg {
            DigestAlgorithm::Sha1 => hkdf::HKDF_SHA1_FOR_LEGACY_USE_ONLY,
            DigestAlgorithm::Sha256 => hkdf::HKDF_SHA256,
            DigestAlgorithm::Sha384 => hkdf::HKDF_SHA384,
            DigestAlgorithm::Sha512 => hkdf::HKDF_SHA512,
            other => return Err(CipherError::Unsupported(format!("HKDF with {other:?}"))),
        };
        struct Len(usize);
        impl hkdf::KeyType for Len {
            fn len(&self) -> usize {
                self.0
            }
        }
        let info = [info];
        let prk = hkdf::Salt::new(a, salt).extract(ikm);
        let okm = prk.expand(&info, Len(len)).map_err(|_| CipherError::DecryptionFailed)?;
        let mut out = vec![0u8; len];
        okm.fill(&mut out).map_err(|_| CipherError::DecryptionFailed)?;
        Ok(out)
    }

    fn pbkdf2(&self, alg: DigestAlgorithm, secret: &[u8], salt: &[u8], iterations: u32, len: usize) -> Result<Vec<u8>, CipherError> {
        use aws_lc_rs::pbkdf2;
        let a = match alg {
            DigestAlgorithm::Sha1 => pbkdf2::PBKDF2_HMAC_SHA1,
            DigestAlgorithm::Sha256 => pbkdf2::PBKDF2_HMAC_SHA256,
            DigestAlgorithm::Sha384 => pbkdf2::PBKDF2_HMAC_SHA384,
            DigestAlgorithm::Sha512 => pbkdf2::PBKDF2_HMAC_SHA512,
            other => return Err(CipherError::Unsupported(format!("PBKDF2 with {other:?}"))),
        };
        let n = std::num::NonZeroU32::new(iterations).ok_or(CipherError::DecryptionFailed)?;
        let mut out = vec![0u8; len];
        pbkdf2::derive(a, n, salt, secret, &mut out);
        Ok(out)
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

    /// A provider with every method but `aes_gcm_seal_to` aws-lc's: that one is the
    /// trait's default (copy, then seal in place).
    #[derive(Debug)]
    struct DefaultSealTo;

    impl CipherProvider for DefaultSealTo {
        fn random(&self, buf: &mut [u8]) -> Result<(), CipherError> {
            AwsLcProvider.random(buf)
        }
        fn aes_gcm_open(&self, key: &[u8], iv: &[u8], in_out: &mut [u8]) -> Result<usize, CipherError> {
            AwsLcProvider.aes_gcm_open(key, iv, in_out)
        }
        fn aes_gcm_seal(&self, key: &[u8], iv: &[u8], in_out: &mut Vec<u8>) -> Result<(), CipherError> {
            AwsLcProvider.aes_gcm_seal(key, iv, in_out)
        }
        fn aes_cbc_decrypt(&self, key: &[u8], iv: &[u8; 16], in_out: &mut [u8]) -> Result<(), CipherError> {
            AwsLcProvider.aes_cbc_decrypt(key, iv, in_out)
        }
        fn aes_cbc_encrypt(&self, key: &[u8], iv: &[u8; 16], in_out: &mut [u8]) -> Result<(), CipherError> {
            AwsLcProvider.aes_cbc_encrypt(key, iv, in_out)
        }
        fn aes_key_wrap(&self, kek: &[u8], key: &[u8]) -> Result<Vec<u8>, CipherError> {
            AwsLcProvider.aes_key_wrap(kek, key)
        }
        fn aes_key_unwrap(&self, kek: &[u8], wrapped: &[u8]) -> Result<Vec<u8>, CipherError> {
            AwsLcProvider.aes_key_unwrap(kek, wrapped)
        }
        fn rsa_decrypt(&self, key: &RsaDecryptingKey, padding: &RsaPadding, ciphertext: &[u8]) -> Result<Vec<u8>, CipherError> {
            AwsLcProvider.rsa_decrypt(key, padding, ciphertext)
        }
        fn rsa_encrypt(&self, key: &KeyMaterial, padding: &RsaPadding, plaintext: &[u8]) -> Result<Vec<u8>, CipherError> {
            AwsLcProvider.rsa_encrypt(key, padding, plaintext)
        }
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// `aes_gcm_seal_to`, aws-lc's (out of place) and the trait's default, on the
    /// AES-256 test cases 13 and 14 of McGrew and Viega's GCM specification
    /// (zero key and IV; no plaintext, one zero block), and on 100 KB: the same
    /// bytes, which open back to the plaintext; an output of the wrong length is
    /// refused.
    #[test]
    fn aes_gcm_seal_to_out_of_place_and_default() {
        let providers: [&dyn CipherProvider; 2] = [&AwsLcProvider, &DefaultSealTo];
        let (key, iv) = ([0u8; 32], [0u8; 12]);
        for p in providers {
            let mut out = [0u8; 16];
            p.aes_gcm_seal_to(&key, &iv, &[], &mut out).unwrap();
            assert_eq!(out.to_vec(), hex("530f8afbc74536b9a963b4f1c4cb738b"));
            let mut out = [0u8; 32];
            p.aes_gcm_seal_to(&key, &iv, &[0; 16], &mut out).unwrap();
            assert_eq!(out.to_vec(), hex("cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"));
            assert!(p.aes_gcm_seal_to(&key, &iv, &[0; 16], &mut [0u8; 31]).is_err());
        }
        let plain: Vec<u8> = (0..100_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let key: Vec<u8> = (0..32).collect();
        let sealed: Vec<Vec<u8>> = providers
            .iter()
            .map(|p| {
                let mut out = vec![0u8; plain.len() + 16];
                p.aes_gcm_seal_to(&key, &iv, &plain, &mut out).unwrap();
                out
            })
            .collect();
        assert_eq!(sealed[0], sealed[1]);
        let mut back = sealed[0].clone();
        let n = AwsLcProvider.aes_gcm_open(&key, &iv, &mut back).unwrap();
        assert_eq!(&back[..n], &plain[..]);
    }

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

    /// The parsed-key cache of [`verify_rsa`] finds a key by its exact bytes: after a
    /// signature verified with key A, the same signature does not verify with key B, nor
    /// under another scheme with A, and A still verifies it (one thread, one cache).
    #[test]
    fn rsa_key_cache_is_by_key_and_scheme() {
        use aws_lc_rs::rsa::{KeyPair, KeySize};
        use aws_lc_rs::signature::KeyPair as _;
        let material = |k: &KeyPair| {
            let p = k.public_key();
            KeyMaterial::rsa(p.modulus().big_endian_without_leading_zero(), p.exponent().big_endian_without_leading_zero()).unwrap()
        };
        let (a, b) = (KeyPair::generate(KeySize::Rsa2048).unwrap(), KeyPair::generate(KeySize::Rsa2048).unwrap());
        let msg = b"<ds:SignedInfo/>";
        let mut sig = vec![0u8; a.public_modulus_len()];
        a.sign(&signature::RSA_PKCS1_SHA256, &aws_lc_rs::rand::SystemRandom::new(), msg, &mut sig).unwrap();
        let rsa256 = SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha256);
        let rsa512 = SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha512);
        let (ka, kb) = (material(&a), material(&b));
        assert_eq!(AwsLcProvider.verify(rsa256, &ka, msg, &sig), Ok(()));
        assert_eq!(AwsLcProvider.verify(rsa256, &kb, msg, &sig), Err(ErrorKind::InvalidSignature));
        assert_eq!(AwsLcProvider.verify(rsa512, &ka, msg, &sig), Err(ErrorKind::InvalidSignature));
        assert_eq!(AwsLcProvider.verify(rsa256, &ka, b"<ds:SignedInfo />", &sig), Err(ErrorKind::InvalidSignature));
        assert_eq!(AwsLcProvider.verify(rsa256, &ka, msg, &sig), Ok(()));
        // more keys than the cache holds: each still verifies only its own signatures
        for _ in 0..RSA_KEYS_MAX {
            let k = KeyPair::generate(KeySize::Rsa2048).unwrap();
            assert_eq!(AwsLcProvider.verify(rsa256, &material(&k), msg, &sig), Err(ErrorKind::InvalidSignature));
        }
        assert_eq!(AwsLcProvider.verify(rsa256, &ka, msg, &sig), Ok(()));
    }

    #[test]
    fn aes_key_wrap_rfc3394_vectors() {
        fn hex(s: &str) -> Vec<u8> {
            (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
        }
        let kek = hex("000102030405060708090A0B0C0D0E0F1011121314151617");
        let key = hex("00112233445566778899AABBCCDDEEFF");
        // RFC 3394 §4.2: 128 bits of key data with a 192-bit KEK
        let want = hex("96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D");
        assert_eq!(AwsLcProvider.aes_key_wrap(&kek, &key).unwrap(), want);
        assert_eq!(AwsLcProvider.aes_key_unwrap(&kek, &want).unwrap(), key);
        let mut bad = want.clone();
        bad[0] ^= 1;
        assert_eq!(AwsLcProvider.aes_key_unwrap(&kek, &bad), Err(CipherError::DecryptionFailed));
        // §4.6: 256 bits of key data with a 256-bit KEK
        let kek = hex("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F");
        let key = hex("00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F");
        let want = hex("28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21");
        assert_eq!(AwsLcProvider.aes_key_wrap(&kek, &key).unwrap(), want);
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
