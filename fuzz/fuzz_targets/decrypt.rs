//! Arbitrary bytes, parsed, then decrypted with AES keys of every size (named
//! and unnamed, as key-encryption keys and data keys) and an RSA private key
//! of the corpus, with the legacy algorithms off and on. Decryption must
//! return `Ok` or `Err`, never panic or hang, and open no file (a
//! `CipherReference` is never followed); every cryptographic failure must be
//! the one uniform `decryption failed`, without a position.
//!
//! Keys that fit no vector only reach the structure and the failure paths, so
//! a document without encrypted parts also goes the other way: the element
//! children of its document element (at most four) are encrypted with a fixed
//! AES key (used directly, and as a key-encryption key), the content of the
//! document element too, and decryption must give back exactly the bytes the
//! editor writes for the unchanged document (its own encoding; `text()` is
//! UTF-8). That drives the success path: plaintext checked and parsed in its
//! context, spliced back, nested passes.
//!
//! Seeds: the encrypted vectors of `../shared/corpus/dsig/xmlsec`
//! (`aleksey-xmlenc-01`, `nist-aesgcm`, `xmlenc11-interop-2012`, ...) and
//! plain XML documents (the seed command in `HACKING.md`).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vtdx_core::{Document, Editor};
use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor, EncErrorKind, EncryptConfig, EncryptionKey, Encryptor};

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

fn encryptors() -> &'static [Encryptor; 2] {
    static E: OnceLock<[Encryptor; 2]> = OnceLock::new();
    E.get_or_init(|| {
        [
            Encryptor::new(EncryptionKey::aes_direct(&[3u8; 32]).unwrap(), EncryptConfig::default()),
            Encryptor::new(EncryptionKey::aes_key_wrap(&[2u8; 24]).unwrap().with_name("k192"), EncryptConfig::default()),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::parse(data) else { return };
    let mut nothing = true;
    for d in decryptors() {
        if let Err(e) = d.decrypt(&doc) {
            nothing &= e.kind() == &EncErrorKind::NothingEncrypted;
            if e.kind() == &EncErrorKind::DecryptionFailed {
                assert_eq!(e.offset(), None);
                assert_eq!(e.to_string(), "decryption failed");
            }
        } else {
            nothing = false;
        }
    }
    if !nothing {
        return;
    }
    // the round trip: what vtdx encrypts to a key it decrypts with that key, to the same bytes
    // the document as the editor writes it unchanged: in its own encoding, like
    // the encryptor's and the decryptor's outputs (`text()` is always UTF-8)
    let Ok(unchanged) = Editor::new(&doc).to_vec() else { return };
    let root = doc.root_element();
    let children: Vec<_> = root.element_children().take(4).collect();
    // an empty-element tag (`<r/>`) has no content to encrypt in place: the
    // EncryptedData goes between a start and an end tag, and `<r></r>` comes back
    let roots: &[_] = if !doc.text()[root.range()].ends_with(b"/>") { &[root] } else { &[] };
    for (e, d) in encryptors().iter().zip(decryptors().iter().cycle()) {
        for (targets, content) in [(&children[..], false), (roots, true)] {
            if targets.is_empty() {
                continue;
            }
            let Ok(sealed) = e.encrypt(&doc, targets, content) else { continue };
            let sealed_doc = Document::parse_with(&sealed, doc.options()).expect("encrypted output must parse");
            match d.decrypt(&sealed_doc) {
                Ok(plain) => assert!(plain == unchanged, "decryption must give back the original bytes"),
                Err(err) => panic!("vtdx cannot decrypt what it encrypted: {err}"),
            }
        }
    }
});
