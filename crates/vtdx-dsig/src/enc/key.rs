//! The caller's keys for decryption ([`DecryptionKey`]) and encryption
//! ([`EncryptionKey`]). A message never supplies a key: its `KeyInfo` may
//! only select one of the caller's (by `KeyName`, or by the size of the key
//! it needs).

use std::fmt;

use super::error::{EncError, EncErrorKind};
use crate::crypto::RsaDecryptingKey;
use crate::key::{Certificate, KeyMaterial, VerifyingKey};

fn key_err(m: impl Into<String>) -> EncError {
    EncError::new(EncErrorKind::Key(m.into()))
}

pub(crate) enum DecKind {
    Rsa(RsaDecryptingKey),
    Secret(Vec<u8>),
}

/// A key the caller decrypts with: an RSA private key (for `EncryptedKey`s
/// transported with RSA) or a secret AES key (a key-encryption key for AES-KW,
/// or the data key itself), optionally named (a `ds:KeyName` in the message
/// selects it).
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
        };
        f.debug_struct("DecryptionKey").field("key", &what).field("name", &self.name).finish()
    }
}

impl DecryptionKey {
    /// Reads an unencrypted RSA private key from PEM (`PRIVATE KEY`, `RSA
    /// PRIVATE KEY`; other blocks such as a `CERTIFICATE` are skipped) or DER
    /// (PKCS#8 or PKCS#1). Encrypted keys are refused.
    pub fn rsa_from_pem_or_der(data: &[u8]) -> Result<DecryptionKey, EncError> {
        let der = match pem::parse_many(data) {
            Ok(blocks) if !blocks.is_empty() => {
                if blocks.iter().any(|b| b.tag() == "ENCRYPTED PRIVATE KEY") {
                    return Err(key_err("encrypted private keys are not read"));
                }
                let b = blocks
                    .iter()
                    .find(|b| b.tag() == "PRIVATE KEY" || b.tag() == "RSA PRIVATE KEY")
                    .ok_or_else(|| key_err("no PRIVATE KEY or RSA PRIVATE KEY block"))?;
                b.contents().to_vec()
            }
            _ => data.to_vec(),
        };
        let k = RsaDecryptingKey::from_der(&der).map_err(|e| key_err(e.to_string()))?;
        Ok(DecryptionKey { kind: DecKind::Rsa(k), name: None })
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
            DecKind::Rsa(_) => None,
        }
    }

    /// The RSA modulus length in bytes, `None` for a secret key.
    pub fn rsa_modulus_len(&self) -> Option<usize> {
        match &self.kind {
            DecKind::Rsa(k) => Some(k.modulus_len()),
            DecKind::Secret(_) => None,
        }
    }
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
