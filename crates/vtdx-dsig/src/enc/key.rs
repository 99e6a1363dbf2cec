//! The caller's keys for decryption ([`DecryptionKey`]) and encryption
//! ([`EncryptionKey`]). A message never supplies a key: its `KeyInfo` may
//! only select one of the caller's (by `KeyName`, or by the size of the key
//! it needs).

use std::fmt;

use super::error::{EncError, EncErrorKind};
use crate::crypto::{AgreementCurve, AgreementKey, RsaDecryptingKey};
use crate::key::{Certificate, KeyMaterial, VerifyingKey};

fn key_err(m: impl Into<String>) -> EncError {
    EncError::new(EncErrorKind::Key(m.into()))
}

pub(crate) enum DecKind {
    Rsa(RsaDecryptingKey),
    Secret(Vec<u8>),
    /// The recipient's private key of a key agreement.
    Agreement(AgreementKey),
    /// A public key the caller knows (an originator's static key named by `KeyName`).
    Public {
        curve: AgreementCurve,
        point: Vec<u8>,
    },
    /// The master secret of a key derivation (`xenc11:DerivedKey`).
    Master(Vec<u8>),
}

/// A key the caller decrypts with: an RSA private key (for `EncryptedKey`s
/// transported with RSA), a secret AES key (a key-encryption key for AES-KW,
/// or the data key itself), an EC or X25519 private key (the recipient's key of
/// an ECDH-ES `AgreementMethod`), an originator's public key (named, for an
/// `AgreementMethod` whose `OriginatorKeyInfo` only names its key), or the
/// master secret of an `xenc11:DerivedKey`; optionally named (a `ds:KeyName`,
/// `RecipientKeyInfo`/`OriginatorKeyInfo` `KeyName` or `MasterKeyName` in the
/// message selects it).
pub struct DecryptionKey {
    pub(crate) kind: DecKind,
    pub(crate) name: Option<String>,
}

impl fmt::Debug for DecryptionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // never print key material
        let what = match &self.kind {
            DecKind::Rsa(k) => k.public_key().describe(),
            DecKind::Secret(s) => format!("AES-{}", s.len() * 8),
            DecKind::Agreement(k) => format!("{:?} private key", k.curve()),
            DecKind::Public { curve, .. } => format!("{curve:?} public key"),
            DecKind::Master(s) => format!("master secret of {} bytes", s.len()),
        };
        f.debug_struct("DecryptionKey").field("key", &what).field("name", &self.name).finish()
    }
}

impl DecryptionKey {
    /// Reads an unencrypted RSA private key from PEM (`PRIVATE KEY`, `RSA
    /// PRIVATE KEY`; other blocks such as a `CERTIFICATE` are skipped) or DER
    /// (PKCS#8 or PKCS#1). Encrypted keys are refused.
    pub fn rsa_from_pem_or_der(data: &[u8]) -> Result<DecryptionKey, EncError> {
        let der = private_der(data)?;
        let k = RsaDecryptingKey::from_der(&der).map_err(|e| key_err(e.to_string()))?;
        Ok(DecryptionKey { kind: DecKind::Rsa(k), name: None })
    }

    /// Reads an unencrypted private key for key agreement from PEM (`PRIVATE
    /// KEY`, `EC PRIVATE KEY`) or DER: an EC key on P-256, P-384 or P-521
    /// (PKCS#8 or SEC 1), or an X25519 key (PKCS#8). It decrypts the
    /// `EncryptedKey`s (and `EncryptedData`) whose key an ECDH-ES or X25519
    /// `AgreementMethod` agrees on.
    pub fn agreement_from_pem_or_der(data: &[u8]) -> Result<DecryptionKey, EncError> {
        let der = private_der(data)?;
        let k = AgreementKey::from_der(&der).map_err(|e| key_err(e.to_string()))?;
        Ok(DecryptionKey { kind: DecKind::Agreement(k), name: None })
    }

    /// Reads a private key from PEM or DER: RSA (key transport) or EC / X25519 (key agreement).
    pub fn private_from_pem_or_der(data: &[u8]) -> Result<DecryptionKey, EncError> {
        DecryptionKey::rsa_from_pem_or_der(data).or_else(|rsa| DecryptionKey::agreement_from_pem_or_der(data).map_err(|_| rsa))
    }

    /// Reads an originator's public key for key agreement from PEM or DER (a
    /// certificate or a `SubjectPublicKeyInfo`: EC on P-256/384/521, or X25519).
    /// An `AgreementMethod` whose `OriginatorKeyInfo` names it by `KeyName`
    /// uses it; one that carries the originator's (ephemeral) key inline uses
    /// that key, as ECDH-ES intends: it authenticates nobody, the recipient's
    /// private key is what only the caller holds.
    pub fn originator_public_from_pem_or_der(data: &[u8]) -> Result<DecryptionKey, EncError> {
        let der = match pem::parse(data) {
            Ok(p) if p.tag() == "CERTIFICATE" || p.tag() == "X509 CERTIFICATE" => {
                return originator_from_material(&VerifyingKey::from_pem_or_der(data).map_err(|e| key_err(e.to_string()))?);
            }
            Ok(p) => p.contents().to_vec(),
            Err(_) => data.to_vec(),
        };
        if let Some(point) = x25519_spki_public(&der) {
            return Ok(DecryptionKey { kind: DecKind::Public { curve: AgreementCurve::X25519, point }, name: None });
        }
        originator_from_material(&VerifyingKey::from_der(&der).map_err(|e| key_err(e.to_string()))?)
    }

    /// The master secret of a key derivation (any length from 1 to 1024 bytes):
    /// an `xenc11:DerivedKey` (ConcatKDF, PBKDF2 or HKDF) whose `MasterKeyName`
    /// names it, or that names none, derives its key from it.
    pub fn master_secret(secret: &[u8]) -> Result<DecryptionKey, EncError> {
        if secret.is_empty() || secret.len() > 1024 {
            return Err(key_err(format!("a master secret has 1 to 1024 bytes, this one has {}", secret.len())));
        }
        Ok(DecryptionKey { kind: DecKind::Master(secret.to_vec()), name: None })
    }

    /// A secret AES key of 16, 24 or 32 bytes.
    pub fn aes(key: &[u8]) -> Result<DecryptionKey, EncError> {
        check_aes_len(key)?;
        Ok(DecryptionKey { kind: DecKind::Secret(key.to_vec()), name: None })
    }

    /// Names the key: a `ds:KeyName` equal to `name` selects it.
    pub fn with_name(mut self, name: impl Into<String>) -> DecryptionKey {
        self.name = Some(name.into());
        self
    }

    /// The name, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The length of a secret key in bytes, `None` for an RSA key.
    pub fn secret_len(&self) -> Option<usize> {
        match &self.kind {
            DecKind::Secret(s) => Some(s.len()),
            _ => None,
        }
    }

    /// The RSA modulus length in bytes, `None` for a secret key.
    pub fn rsa_modulus_len(&self) -> Option<usize> {
        match &self.kind {
            DecKind::Rsa(k) => Some(k.modulus_len()),
            _ => None,
        }
    }
}

/// The DER of a private key given as PEM (the first `PRIVATE KEY`, `RSA PRIVATE
/// KEY` or `EC PRIVATE KEY` block; other blocks such as a `CERTIFICATE` are
/// skipped) or as DER. Encrypted keys are refused.
fn private_der(data: &[u8]) -> Result<Vec<u8>, EncError> {
    match pem::parse_many(data) {
        Ok(blocks) if !blocks.is_empty() => {
            if blocks.iter().any(|b| b.tag() == "ENCRYPTED PRIVATE KEY") {
                return Err(key_err("encrypted private keys are not read"));
            }
            let b = blocks
                .iter()
                .find(|b| matches!(b.tag(), "PRIVATE KEY" | "RSA PRIVATE KEY" | "EC PRIVATE KEY"))
                .ok_or_else(|| key_err("no PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block"))?;
            Ok(b.contents().to_vec())
        }
        _ => Ok(data.to_vec()),
    }
}

fn originator_from_material(k: &VerifyingKey) -> Result<DecryptionKey, EncError> {
    match k.material() {
        KeyMaterial::Ec { curve, point } => {
            let curve = match curve {
                crate::key::Curve::P256 => AgreementCurve::P256,
                crate::key::Curve::P384 => AgreementCurve::P384,
                crate::key::Curve::P521 => AgreementCurve::P521,
            };
            Ok(DecryptionKey { kind: DecKind::Public { curve, point: point.clone() }, name: None })
        }
        other => Err(key_err(format!("key agreement needs an EC or X25519 public key, not {}", other.describe()))),
    }
}

/// The 32 bytes of an X25519 `SubjectPublicKeyInfo` (RFC 8410): SEQUENCE {
/// SEQUENCE { OID 1.3.101.110 }, BIT STRING (0 unused bits, 32 bytes) }; its DER is
/// always these 12 bytes followed by the key.
fn x25519_spki_public(der: &[u8]) -> Option<Vec<u8>> {
    const PREFIX: &[u8] = &[0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00];
    (der.len() == 44 && der.starts_with(PREFIX)).then(|| der[12..].to_vec())
}

fn check_aes_len(key: &[u8]) -> Result<(), EncError> {
    match key.len() {
        16 | 24 | 32 => Ok(()),
        n => Err(key_err(format!("an AES key has 16, 24 or 32 bytes, this one has {n}"))),
    }
}

/// Reads a raw AES key file: exactly 16, 24 or 32 bytes (binary). A file of
/// 32, 48 or 64 hexadecimal digits (with an optional final newline) is read as hex.
pub fn read_aes_key_file(data: &[u8]) -> Result<Vec<u8>, EncError> {
    if matches!(data.len(), 16 | 24 | 32) {
        return Ok(data.to_vec());
    }
    let t = std::str::from_utf8(data).map(str::trim).unwrap_or("");
    if matches!(t.len(), 32 | 48 | 64) && t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok((0..t.len()).step_by(2).map(|i| u8::from_str_radix(&t[i..i + 2], 16).unwrap_or(0)).collect());
    }
    Err(key_err(format!("an AES key file holds 16, 24 or 32 bytes (or as many bytes in hexadecimal), this one has {} bytes", data.len())))
}

#[derive(Clone)]
pub(crate) enum EncKind {
    Rsa { public: KeyMaterial, cert: Option<Box<Certificate>> },
    Wrap(Vec<u8>),
    Direct(Vec<u8>),
}

/// A key the caller encrypts to: an RSA public key or certificate (the
/// session key is transported with RSA-OAEP), an AES key-encryption key (the
/// session key is wrapped with AES-KW), or an AES key used directly as the
/// data key (no `EncryptedKey`); optionally named (written as `ds:KeyName`).
#[derive(Clone)]
pub struct EncryptionKey {
    pub(crate) kind: EncKind,
    pub(crate) name: Option<String>,
}

impl fmt::Debug for EncryptionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.kind {
            EncKind::Rsa { public, .. } => public.describe(),
            EncKind::Wrap(k) => format!("AES-KW-{}", k.len() * 8),
            EncKind::Direct(k) => format!("AES-{}", k.len() * 8),
        };
        f.debug_struct("EncryptionKey").field("key", &what).field("name", &self.name).finish()
    }
}

impl EncryptionKey {
    /// The RSA key of a certificate (the certificate's SHA-1 thumbprint or
    /// subject key identifier identifies it in the message).
    pub fn from_certificate(cert: Certificate) -> Result<EncryptionKey, EncError> {
        let public = cert.key().clone();
        if !matches!(public, KeyMaterial::Rsa { .. }) {
            return Err(key_err(format!("key transport needs an RSA key, the certificate holds {}", public.describe())));
        }
        Ok(EncryptionKey { kind: EncKind::Rsa { public, cert: Some(Box::new(cert)) }, name: None })
    }

    /// Reads an RSA public key from PEM or DER: a certificate, a
    /// SubjectPublicKeyInfo, a PKCS#1 public key, or the public half of a private key.
    pub fn rsa_from_pem_or_der(data: &[u8]) -> Result<EncryptionKey, EncError> {
        let k = VerifyingKey::from_pem_or_der(data).map_err(|e| key_err(e.to_string()))?;
        match k.certificate() {
            Some(c) => EncryptionKey::from_certificate(c.clone()),
            None if matches!(k.material(), KeyMaterial::Rsa { .. }) => {
                Ok(EncryptionKey { kind: EncKind::Rsa { public: k.material().clone(), cert: None }, name: None })
            }
            None => Err(key_err(format!("key transport needs an RSA key, not {}", k.material().describe()))),
        }
    }

    /// An AES key-encryption key (16, 24 or 32 bytes): each session key is wrapped with AES-KW.
    pub fn aes_key_wrap(kek: &[u8]) -> Result<EncryptionKey, EncError> {
        check_aes_len(kek)?;
        Ok(EncryptionKey { kind: EncKind::Wrap(kek.to_vec()), name: None })
    }

    /// An AES key (16, 24 or 32 bytes) used directly as the data key; its
    /// length must fit the block algorithm.
    pub fn aes_direct(key: &[u8]) -> Result<EncryptionKey, EncError> {
        check_aes_len(key)?;
        Ok(EncryptionKey { kind: EncKind::Direct(key.to_vec()), name: None })
    }

    /// Names the key (written as `ds:KeyName`).
    pub fn with_name(mut self, name: impl Into<String>) -> EncryptionKey {
        self.name = Some(name.into());
        self
    }
}
