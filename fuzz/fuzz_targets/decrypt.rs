//! Arbitrary bytes, parsed, then decrypted with AES keys of every size (named
//! and unnamed, as key-encryption keys and data keys) and an RSA private key
//! of the corpus, with the legacy algorithms off and on. Decryption must
//! return `Ok` or `Err`, never panic or hang, and open no file (a
//! `CipherReference` is never followed); every cryptographic failure must be
//! the one uniform `decryption failed`, without a position.
//!
//! Seeds: the encrypted vectors of `../shared/corpus/dsig/xmlsec`
//! (`aleksey-xmlenc-01`, `nist-aesgcm`, `xmlenc11-interop-2012`); the keys
//! here fit none of them, so the fuzzer mostly drives structure and the
//! failure paths, which is what hostile input hits.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor, EncErrorKind};

fn decryptors() -> &'static [Decryptor; 2] {
    static D: OnceLock<[Decryptor; 2]> = OnceLock::new();
    D.get_or_init(|| {
        let keys = || {
            let mut k = vec![
                DecryptionKey::aes(&[1u8; 16]).unwrap(),
                DecryptionKey::aes(&[2u8; 24]).unwrap().with_name("k192"),
                DecryptionKey::aes(&[3u8; 32]).unwrap(),
            ];
            let rsa = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/dsig/xmlsec/keys/rsa/rsa-2048-key.pem");
            if let Some(r) = std::fs::read(rsa).ok().and_then(|b| DecryptionKey::rsa_from_pem_or_der(&b).ok()) {
                k.push(r);
            }
            k
        };
        let cfg = DecryptConfig::default().max_parts(64).max_cipher_bytes(1 << 20);
        [Decryptor::new(keys(), cfg.clone()), Decryptor::new(keys(), cfg.allow_legacy(true))]
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::parse(data) else { return };
    for d in decryptors() {
        if let Err(e) = d.decrypt(&doc) {
            if e.kind() == &EncErrorKind::DecryptionFailed {
                assert_eq!(e.offset(), None);
                assert_eq!(e.to_string(), "decryption failed");
            }
        }
    }
});
