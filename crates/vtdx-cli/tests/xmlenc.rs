//! `vtdx encrypt` and `vtdx decrypt`: the built binary in a temporary
//! directory. Keys are xmlsec's test keys (`$VTDX_CORPUS/dsig/xmlsec/keys`).
//! Exit statuses: encrypt 0, 1 when the document cannot be encrypted as asked,
//! 2 on usage or I/O errors; decrypt 0, 1 with the one uniform message for any
//! cryptographic failure (or the reason for a structural one), 2 on usage or
//! I/O errors. Round trips must give the input back byte for byte.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

use common::{code, run_vtdx, stderr, stdout, TempDir};

fn key(rel: &str) -> String {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let k = p.join("dsig/xmlsec/keys");
    assert!(k.is_dir(), "the DSig test keys are missing at {} (set VTDX_CORPUS)", k.display());
    k.join(rel).to_string_lossy().into_owned()
}

fn vtdx(dir: &Path, args: &[&str]) -> Output {
    run_vtdx(dir, args, None)
}

const DOC: &[u8] =
    b"<?xml version=\"1.0\"?>\n<order xmlns=\"urn:o\" xmlns:p=\"urn:p\">\n  <p:card>4111</p:card>\n  <item>a &amp; b</item>\n</order>\n";
const SOAP11: &[u8] = b"<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">\n <soapenv:Header><t:T xmlns:t=\"urn:t\">trace</t:T></soapenv:Header>\n <soapenv:Body><m:Pay xmlns:m=\"urn:m\">4111</m:Pay></soapenv:Body>\n</soapenv:Envelope>\n";
const SOAP12: &[u8] = b"<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body><m:Pay xmlns:m=\"urn:m\">4111</m:Pay></env:Body></env:Envelope>";

fn setup(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    t.file("doc.xml", DOC).file("soap11.xml", SOAP11).file("soap12.xml", SOAP12);
    t.file("aes256.key", &[7u8; 32]).file("aes128.hex", b"000102030405060708090a0b0c0d0e0f\n").file("other.key", &[8u8; 32]);
    t
}

#[test]
fn round_trips_give_the_input_back() {
    let t = setup("enc-rt");
    let cert = key("rsa/rsa-2048-cert.pem");
    let priv_key = key("rsa/rsa-2048-key.pem");
    let rsa = (vec!["--cert", cert.as_str()], vec!["--key", priv_key.as_str()]);
    let kw = (vec!["--key-file", "aes256.key"], vec!["--key-file", "aes256.key"]);
    let hex = (vec!["--key-file", "aes128.hex"], vec!["--key-file", "aes128.hex"]);
    for (enc_key, dec_key) in [rsa, kw, hex] {
        for (file, extra) in [
            ("doc.xml", vec![]),
            ("doc.xml", vec!["--content"]),
            ("doc.xml", vec!["--xpath", "//p:card"]),
            ("doc.xml", vec!["--xpath", "//p:card | //o:item", "--alg", "aes128-gcm"]),
            ("soap11.xml", vec!["--body"]),
            ("soap12.xml", vec!["--body", "--alg", "aes256-gcm"]),
        ] {
            let extra: Vec<&str> =
                extra.into_iter().map(|s| if s == "//p:card | //o:item" { "//p:card | //*[local-name()='item']" } else { s }).collect();
            let args: Vec<&str> =
                ["encrypt"].into_iter().chain(enc_key.iter().copied()).chain(extra.iter().copied()).chain([file]).collect();
            let o = vtdx(t.path(), &args);
            assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
            let enc = stdout(&o);
            assert!(enc.contains("xenc:EncryptedData") && !enc.contains("4111"), "{args:?}: {enc}");
            t.file("enc.xml", enc.as_bytes());
            let args: Vec<&str> = ["decrypt"].into_iter().chain(dec_key.iter().copied()).chain(["enc.xml"]).collect();
            let o = vtdx(t.path(), &args);
            assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
            assert_eq!(o.stdout, t.read(file), "{args:?} {extra:?}");
        }
    }
}

#[test]
fn wss_encrypts_body_and_header_blocks() {
    let t = setup("enc-wss");
    let cert = key("rsa/rsa-2048-cert.pem");
    let o = vtdx(t.path(), &["encrypt", "--cert", &cert, "--wss", "--xpath", "//*[local-name()='T']", "soap11.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let enc = stdout(&o);
    assert!(
        enc.contains("<wsse:Security") && enc.contains("<xenc:ReferenceList>") && !enc.contains("4111") && !enc.contains(">trace<"),
        "{enc}"
    );
    t.file("enc.xml", enc.as_bytes());
    let o = vtdx(t.path(), &["decrypt", "--key", &key("rsa/rsa-2048-key.pem"), "enc.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let dec = stdout(&o);
    assert!(dec.contains("<m:Pay xmlns:m=\"urn:m\">4111</m:Pay>") && dec.contains("<t:T xmlns:t=\"urn:t\">trace</t:T>"), "{dec}");
    // SOAP 1.2 without a Header: one is made
    let o = vtdx(t.path(), &["encrypt", "--key-file", "aes256.key", "--wss", "soap12.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("<env:Header><wsse:Security"));
}

#[test]
fn every_cryptographic_failure_is_exit_1_with_one_message() {
    let t = setup("enc-fail");
    let o = vtdx(t.path(), &["encrypt", "--key-file", "aes256.key", "doc.xml"]);
    let enc = stdout(&o);
    t.file("enc.xml", enc.as_bytes());
    // wrong key
    let o = vtdx(t.path(), &["decrypt", "--key-file", "other.key", "enc.xml"]);
    assert_eq!((code(&o), stderr(&o).trim()), (1, "enc.xml: decryption failed"));
    // a key of another length: no key fits
    let o = vtdx(t.path(), &["decrypt", "--key-file", "aes128.hex", "enc.xml"]);
    assert_eq!((code(&o), stderr(&o).trim()), (1, "enc.xml: decryption failed"));
    // tampered ciphertext (the last CipherValue: the data)
    let at = enc.rfind("<xenc:CipherValue>").unwrap() + "<xenc:CipherValue>".len() + 20;
    let mut bad = enc.clone().into_bytes();
    bad[at] = if bad[at] == b'A' { b'B' } else { b'A' };
    t.file("bad.xml", &bad);
    let o = vtdx(t.path(), &["decrypt", "--key-file", "aes256.key", "bad.xml"]);
    assert_eq!((code(&o), stderr(&o).trim()), (1, "bad.xml: decryption failed"));
    // the wrong RSA key for an RSA-OAEP transported key
    let o = vtdx(t.path(), &["encrypt", "--cert", &key("rsa/rsa-2048-cert.pem"), "doc.xml"]);
    t.file("rsa.xml", &o.stdout);
    let o = vtdx(t.path(), &["decrypt", "--key", &key("rsa/rsa-4096-key.pem"), "rsa.xml"]);
    assert_eq!((code(&o), stderr(&o).trim()), (1, "rsa.xml: decryption failed"));
    // CBC refused without --allow-legacy, with the same message
    let cbc = enc.replace("http://www.w3.org/2009/xmlenc11#aes256-gcm", "http://www.w3.org/2001/04/xmlenc#aes256-cbc");
    t.file("cbc.xml", cbc.as_bytes());
    let o = vtdx(t.path(), &["decrypt", "--key-file", "aes256.key", "cbc.xml"]);
    assert_eq!((code(&o), stderr(&o).trim()), (1, "cbc.xml: decryption failed"));
    let o = vtdx(t.path(), &["decrypt", "--key-file", "aes256.key", "--allow-legacy", "cbc.xml"]);
    assert_eq!((code(&o), stderr(&o).trim()), (1, "cbc.xml: decryption failed"), "GCM bytes read as CBC");
    // nothing encrypted, not well-formed: exit 1 with the reason
    let o = vtdx(t.path(), &["decrypt", "--key-file", "aes256.key", "doc.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("no xenc:EncryptedData"), "{}", stderr(&o));
    t.file("broken.xml", b"<a><b></a>");
    assert_eq!(code(&vtdx(t.path(), &["decrypt", "--key-file", "aes256.key", "broken.xml"])), 1);
    assert_eq!(code(&vtdx(t.path(), &["encrypt", "--key-file", "aes256.key", "broken.xml"])), 1);
    // --wss and --body on a document that is not SOAP
    assert_eq!(code(&vtdx(t.path(), &["encrypt", "--key-file", "aes256.key", "--wss", "doc.xml"])), 1);
    assert_eq!(code(&vtdx(t.path(), &["encrypt", "--key-file", "aes256.key", "--body", "doc.xml"])), 1);
}

#[test]
fn usage_and_io_errors_are_exit_2() {
    let t = setup("enc-usage");
    for args in [
        vec!["encrypt", "doc.xml"],
        vec!["encrypt", "--key-file", "missing.key", "doc.xml"],
        vec!["encrypt", "--key-file", "doc.xml", "doc.xml"],
        vec!["encrypt", "--key-file", "aes256.key", "--xpath", "//[", "doc.xml"],
        vec!["encrypt", "--key-file", "aes256.key", "--xpath", "//x", "--body", "doc.xml"],
        vec!["encrypt", "--key-file", "aes256.key", "--alg", "aes256-cbc", "doc.xml"],
        vec!["encrypt", "--key-file", "aes256.key", "missing.xml"],
        vec!["decrypt", "doc.xml"],
        vec!["decrypt", "--key", "missing.pem", "doc.xml"],
        vec!["decrypt", "--key", "doc.xml", "doc.xml"],
        vec!["decrypt", "--key-file", "aes256.key", "missing.xml"],
    ] {
        let o = vtdx(t.path(), &args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
    }
    // an --xpath that selects nothing, or no element: the message is about encrypting
    for x in ["//nothing", "/", "//@*"] {
        let o = vtdx(t.path(), &["encrypt", "--key-file", "aes256.key", "--xpath", x, "doc.xml"]);
        assert_eq!(code(&o), 2, "{x}");
        assert!(stderr(&o).contains("cannot encrypt") && !stderr(&o).contains("sign"), "{x}: {}", stderr(&o));
    }
}

/// An EC private key decrypts what ECDH-ES agreed on (the W3C XML Encryption
/// 1.1 interop vector, its expected plaintext beside it); another EC key gives
/// the uniform error and exit 1.
#[test]
fn decrypt_with_an_ec_key_agreement() {
    let t = setup("enc-ecdh");
    let interop = PathBuf::from(key("")).join("../xmlenc11-interop-2012");
    let vector = interop.join("cipherText__EC-P256__aes128-gcm__kw-aes128__ECDH-ES__ConcatKDF.xml");
    let right = interop.join("EC-P256_SHA256WithECDSA.der");
    let out = vtdx(t.path(), &["decrypt", "--key", right.to_str().unwrap(), vector.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // xmlsec1 wrote the expected plaintext through libxml2's serializer: compare canonical forms
    t.file("got.xml", stdout(&out).as_bytes());
    let want = interop.join("cipherText__EC-P256__aes128-gcm__kw-aes128__ECDH-ES__ConcatKDF.data");
    let (a, b) = (vtdx(t.path(), &["c14n", "got.xml"]), vtdx(t.path(), &["c14n", want.to_str().unwrap()]));
    assert_eq!((code(&a), code(&b)), (0, 0));
    assert!(stdout(&a).contains("<CreditCard Type=\"Amex\">"), "{}", stdout(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let wrong = key("ec/ec-prime256v1-key.pem");
    let out = vtdx(t.path(), &["decrypt", "--key", wrong.as_str(), vector.to_str().unwrap()]);
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out).trim(), format!("{}: decryption failed", vector.display()));
}
