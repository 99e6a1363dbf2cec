//! XML Encryption 1.1 and WS-Security encryption, without a DOM.
//!
//! * **Decryption** ([`Decryptor`]) replaces each `xenc:EncryptedData` by its
//!   plaintext with the core's `Editor`: the plaintext is parsed where it
//!   lands (in-scope namespaces, `xml:*` attributes, the internal subset's
//!   entities) and must be well-formed there; every byte outside the
//!   decrypted parts is unchanged. `EncryptedKey`s come from the
//!   `EncryptedData`'s `KeyInfo` (inline, `RetrievalMethod` or a WS-Security
//!   `SecurityTokenReference`, same document only) or from a WS-Security
//!   header's `EncryptedKey` + `ReferenceList`, processed in header order.
//!   A key-encryption key (or the data key) may also be agreed on
//!   (`AgreementMethod`: ECDH-ES on P-256/384/521, X25519) or derived
//!   (`xenc11:DerivedKey`), with ConcatKDF, PBKDF2 or HKDF.
//! * **Keys come from the caller** ([`DecryptionKey`], [`EncryptionKey`]): a
//!   `KeyName` in the message selects one of them, the size of the key it
//!   needs selects otherwise; the message never supplies one.
//! * **One uniform error** ([`EncErrorKind::DecryptionFailed`], message
//!   `decryption failed`) for every cryptographic failure — wrong key, bad
//!   tag, bad padding, an RSA failure, an algorithm refused or not offered, a
//!   `CipherReference` (never fetched), a plaintext not well-formed in place.
//!   A failed key transport goes on with a random key, so the failure shows
//!   in the same place and about the same time.
//! * **Legacy algorithms** (AES-CBC, RSA PKCS#1 v1.5) only with
//!   [`DecryptConfig::allow_legacy`].
//! * **Encryption** ([`Encryptor`]) replaces chosen elements, or their
//!   content, by `EncryptedData` (AES-GCM; the session key sent with RSA-OAEP
//!   or AES-KW, or a direct key), and for SOAP the Body's content and chosen
//!   header blocks with an `EncryptedKey` in the `wsse:Security` header
//!   ([`Encryptor::encrypt_wss`]).
//!
//! What is offered and what deviates from the specifications is written down
//! in `docs/xmlenc.md`.

mod agree;
pub mod alg;
mod decrypt;
mod encrypt;
mod error;
mod key;
mod model;
mod wss;

pub use alg::{BlockAlgorithm, KeyAlgorithm, RsaTransport};
pub use decrypt::{DecryptConfig, Decryptor};
pub use encrypt::{EncryptConfig, Encryptor};
pub use error::{EncError, EncErrorKind};
pub use key::{read_aes_key_file, DecryptionKey, EncryptionKey};
pub use wss::WssEncryptOptions;
