//! Encryption of large parts (64 KiB and more, where a UTF-8 document's
//! CipherValues are written straight into the output instead of through the
//! Editor: `enc/encrypt.rs`, `STRAIGHT_MIN`) around arbitrary markup.
//!
//! Arbitrary bytes are parsed; a document that parses gets a 64 KiB element
//! appended to its document element (so the document element's content, and
//! that element, are large parts, next to whatever the input put before and
//! around them), and is
//!
//! - encrypted with a fixed AES key (used directly, and as a key-encryption key):
//!   the document element's content, and its element children (at most four,
//!   the large one among them); decryption must give back exactly the bytes the
//!   editor writes for the unchanged, padded document;
//! - wrapped as the content of a SOAP 1.1 Body and encrypted the WS-Security way
//!   (`encrypt_wss`) to the corpus's RSA certificate (UTF-8, whatever the input's
//!   encoding); decryption with its key must
//!   give back a Body whose content is byte for byte the one encrypted.
//!
//! Encryption and decryption must return `Ok` or `Err`, never panic; what vtdx
//! encrypts it must decrypt. Seeds: plain XML documents (`HACKING.md`).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vtdx_core::{Document, Editor, Node};
use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor, EncryptConfig, EncryptionKey, Encryptor, WssEncryptOptions};

/// Larger than the straight path's threshold (64 KiB).
const PAD: usize = 66 << 10;

fn keys_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/dsig/xmlsec/keys/rsa")
}

struct Pair {
    enc: Encryptor,
    dec: Decryptor,
}

fn aes_pairs() -> &'static [Pair; 2] {
    static P: OnceLock<[Pair; 2]> = OnceLock::new();
    P.get_or_init(|| {
        let dec = || {
            let keys = vec![
                DecryptionKey::aes(&[3u8; 32]).expect("an AES-256 key"),
                DecryptionKey::aes(&[2u8; 24]).expect("an AES-192 key").with_name("k192"),
            ];
            Decryptor::new(keys, DecryptConfig::default().max_parts(64).max_cipher_bytes(4 << 20))
        };
        [
            Pair { enc: Encryptor::new(EncryptionKey::aes_direct(&[3u8; 32]).expect("a key"), EncryptConfig::default()), dec: dec() },
            Pair {
                enc: Encryptor::new(EncryptionKey::aes_key_wrap(&[2u8; 24]).expect("a key").with_name("k192"), EncryptConfig::default()),
                dec: dec(),
            },
        ]
    })
}

fn rsa_pair() -> Option<&'static Pair> {
    static P: OnceLock<Option<Pair>> = OnceLock::new();
    P.get_or_init(|| {
        let cert = std::fs::read(keys_dir().join("rsa-2048-cert.pem")).ok()?;
        let key = std::fs::read(keys_dir().join("rsa-2048-key.pem")).ok()?;
        Some(Pair {
            enc: Encryptor::new(EncryptionKey::rsa_from_pem_or_der(&cert).ok()?, EncryptConfig::default()),
            dec: Decryptor::new(vec![DecryptionKey::rsa_from_pem_or_der(&key).ok()?], DecryptConfig::default().max_cipher_bytes(4 << 20)),
        })
    })
    .as_ref()
}

fn pad_element() -> &'static str {
    static S: OnceLock<String> = OnceLock::new();
    S.get_or_init(|| {
        let mut s = String::with_capacity(PAD + 32);
        s.push_str("<pad n=\"1\">");
        while s.len() < PAD {
            s.push_str("0123456789 abcdefghij &amp; <b>klmnop</b>\n");
        }
        s.push_str("</pad>");
        s
    })
}

/// The content of the SOAP Body of `bytes` as written (between its tags).
fn body_content(bytes: &[u8]) -> Option<Vec<u8>> {
    let doc = Document::parse(bytes).ok()?;
    let env = doc.root_element();
    let body = env.element_children().find(|e| e.local_name() == "Body")?;
    Some(content_of(&doc, body).to_vec())
}

fn content_of<'d>(doc: &'d Document<'d>, e: Node<'d>) -> &'d [u8] {
    let raw = &doc.text()[e.range()];
    let open = raw.iter().position(|&c| c == b'>').map_or(raw.len(), |p| p + 1);
    let close = raw.iter().rposition(|&c| c == b'<').unwrap_or(raw.len()).max(open);
    &raw[open..close]
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::parse(data) else { return };
    let root = doc.root_element();
    // the input, with the large element appended to its document element
    let mut ed = Editor::new(&doc);
    if ed.append_child(root, pad_element()).is_err() {
        return;
    }
    let Ok(padded) = ed.to_vec() else { return };
    let doc = Document::parse_with(&padded, doc.options()).expect("the padded document must parse");
    let Ok(unchanged) = Editor::new(&doc).to_vec() else { return };
    let root = doc.root_element();
    let children: Vec<_> = root.element_children().collect();
    let children: Vec<_> = children.iter().rev().take(4).copied().collect();
    for p in aes_pairs() {
        for (targets, content) in [(&children[..], false), (&[root][..], true)] {
            let Ok(sealed) = p.enc.encrypt(&doc, targets, content) else { continue };
            let sealed_doc = Document::parse_with(&sealed, doc.options()).expect("encrypted output must parse");
            match p.dec.decrypt(&sealed_doc) {
                Ok(plain) => assert!(plain == unchanged, "decryption must give back the original bytes"),
                Err(err) => panic!("vtdx cannot decrypt what it encrypted: {err}"),
            }
        }
    }
    // the WS-Security form: the document element as a Body's content (`text()`
    // is UTF-8 whatever the input's encoding, so the message is UTF-8)
    let Some(rsa) = rsa_pair() else { return };
    let mut msg = Vec::with_capacity(padded.len() + 200);
    msg.extend_from_slice(b"<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>");
    msg.extend_from_slice(&doc.text()[root.range()]);
    msg.extend_from_slice(b"</soap:Body></soap:Envelope>");
    let Ok(soap) = Document::parse(&msg) else { return };
    let Some(before) = body_content(&msg) else { return };
    let Ok(sealed) = rsa.enc.encrypt_wss(&soap, &WssEncryptOptions::default(), &[]) else { return };
    let sealed_doc = Document::parse(&sealed).expect("encrypted output must parse");
    match rsa.dec.decrypt(&sealed_doc) {
        Ok(plain) => assert!(body_content(&plain).as_deref() == Some(&before[..]), "decryption must give back the Body's content"),
        Err(err) => panic!("vtdx cannot decrypt what it encrypted (WS-Security): {err}"),
    }
});
