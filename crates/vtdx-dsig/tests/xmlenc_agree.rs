//! Key agreement (ECDH-ES, X25519) and key derivation (ConcatKDF, PBKDF2,
//! HKDF): the vectors of xmlsec's and the W3C's interop sets decrypt with the
//! right keys (the manifest test checks the plaintexts); here, every wrong
//! key, tampered public key and over-limit derivation is the one uniform
//! `decryption failed`, and the iteration limit bites.

use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor};

use crate::xmlenc_conformance::corpus;

fn xmlsec(rel: &str) -> Vec<u8> {
    let p = corpus().join("xmlsec").join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn private(rel: &str) -> DecryptionKey {
    DecryptionKey::private_from_pem_or_der(&xmlsec(rel)).unwrap()
}

const EC_P256: &str = "xmlenc11-interop-2012/cipherText__EC-P256__aes128-gcm__kw-aes128__ECDH-ES__ConcatKDF.xml";
const PBKDF2: &str = "aleksey-xmlenc-01/enc_pbkdf2_hmac_sha256_aes256gcm.xml";

fn decrypt(keys: Vec<DecryptionKey>, config: DecryptConfig, xml: &[u8]) -> Result<Vec<u8>, String> {
    Decryptor::new(keys, config).decrypt_bytes(xml).map_err(|e| e.to_string())
}

#[test]
fn ecdh_es_with_the_recipients_key_and_nothing_else() {
    let xml = xmlsec(EC_P256);
    let right = || private("xmlenc11-interop-2012/EC-P256_SHA256WithECDSA.der").with_name("EC-P256");
    let plain = decrypt(vec![right()], DecryptConfig::default(), &xml).unwrap();
    assert!(plain.starts_with(b"<PurchaseOrder"), "{}", String::from_utf8_lossy(&plain[..40]));
    // another P-256 key, named as the message asks, or on another curve: the uniform error
    let other = private("keys/ec/ec-prime256v1-key.pem").with_name("EC-P256");
    assert_eq!(decrypt(vec![other], DecryptConfig::default(), &xml).unwrap_err(), "decryption failed");
    let p384 = private("xmlenc11-interop-2012/EC-P384_SHA256WithECDSA.der").with_name("EC-P256");
    assert_eq!(decrypt(vec![p384], DecryptConfig::default(), &xml).unwrap_err(), "decryption failed");
    // no key at all, and an RSA key
    assert_eq!(decrypt(vec![], DecryptConfig::default(), &xml).unwrap_err(), "decryption failed");
    let rsa = private("xmlenc11-interop-2012/RSA-2048_SHA256WithRSA.der");
    assert_eq!(decrypt(vec![rsa], DecryptConfig::default(), &xml).unwrap_err(), "decryption failed");
}

#[test]
fn a_tampered_originator_key_is_the_uniform_error() {
    let xml = String::from_utf8(xmlsec(EC_P256)).unwrap();
    let start = xml.find("<dsig11:PublicKey>").unwrap() + "<dsig11:PublicKey>".len();
    let end = start + xml[start..].find('<').unwrap();
    let key = &xml[start..end];
    // a point off the curve (one character of x changed), a truncated point, and one that is not base64
    let flipped = format!("{}{}{}", &key[..10], if &key[10..11] == "A" { "B" } else { "A" }, &key[11..]);
    for bad in [flipped.as_str(), &key[..key.len() - 8], "not base64!"] {
        let msg = format!("{}{bad}{}", &xml[..start], &xml[end..]);
        let k = private("xmlenc11-interop-2012/EC-P256_SHA256WithECDSA.der");
        assert_eq!(decrypt(vec![k], DecryptConfig::default(), msg.as_bytes()).unwrap_err(), "decryption failed", "{bad}");
    }
    // an unknown curve
    let msg = xml.replace("urn:oid:1.2.840.10045.3.1.7", "urn:oid:1.2.3.4");
    let k = private("xmlenc11-interop-2012/EC-P256_SHA256WithECDSA.der");
    assert_eq!(decrypt(vec![k], DecryptConfig::default(), msg.as_bytes()).unwrap_err(), "decryption failed");
}

#[test]
fn x25519_needs_the_named_originator_key() {
    let xml = xmlsec("aleksey-xmlenc-01/enc_xdh_x25519_hkdf_sha256_kw_aes256_aes128gcm.xml");
    let recipient = || private("keys/xdh/xdh-x25519-second-key.pem").with_name("recipient-key-name");
    let originator = |f: &str| DecryptionKey::originator_public_from_pem_or_der(&xmlsec(f)).unwrap().with_name("originator-key-name");
    let want = xmlsec("aleksey-xmlenc-01/enc_xdh_x25519_hkdf_sha256_kw_aes256_aes128gcm.data");
    let ok = decrypt(vec![recipient(), originator("keys/xdh/xdh-x25519-first-pubkey.pem")], DecryptConfig::default(), &xml).unwrap();
    crate::xmlenc_conformance::same_plaintext(&ok, &want).unwrap();
    // the recipient's own public key in the originator's place, or none: the uniform error
    let wrong = decrypt(vec![recipient(), originator("keys/xdh/xdh-x25519-second-pubkey.pem")], DecryptConfig::default(), &xml);
    assert_eq!(wrong.unwrap_err(), "decryption failed");
    assert_eq!(decrypt(vec![recipient()], DecryptConfig::default(), &xml).unwrap_err(), "decryption failed");
}

#[test]
fn pbkdf2_iterations_are_bounded() {
    let xml = xmlsec(PBKDF2);
    let ikm = || DecryptionKey::master_secret(&xmlsec("aleksey-xmlenc-01/pbkdf2-ikm.bin")).unwrap().with_name("pbkdf2-ikm");
    // the vector asks for 1000 iterations
    assert!(String::from_utf8_lossy(&xml).contains("<xenc11:IterationCount>1000<"));
    assert!(decrypt(vec![ikm()], DecryptConfig::default(), &xml).is_ok());
    assert!(decrypt(vec![ikm()], DecryptConfig::default().max_kdf_iterations(1000), &xml).is_ok());
    let capped = decrypt(vec![ikm()], DecryptConfig::default().max_kdf_iterations(999), &xml);
    assert_eq!(capped.unwrap_err(), "decryption failed");
    // a hostile count is refused at once, not computed
    let hostile = String::from_utf8_lossy(&xml).replace("<xenc11:IterationCount>1000<", "<xenc11:IterationCount>2000000000<");
    let t = std::time::Instant::now();
    assert_eq!(decrypt(vec![ikm()], DecryptConfig::default(), hostile.as_bytes()).unwrap_err(), "decryption failed");
    assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
    // a wrong master secret, and a KeyLength that does not fit the algorithm
    let wrong = DecryptionKey::master_secret(b"not the secret").unwrap().with_name("pbkdf2-ikm");
    assert_eq!(decrypt(vec![wrong], DecryptConfig::default(), &xml).unwrap_err(), "decryption failed");
    let short = String::from_utf8_lossy(&xml).replace("<xenc11:KeyLength>32<", "<xenc11:KeyLength>16<");
    assert_eq!(decrypt(vec![ikm()], DecryptConfig::default(), short.as_bytes()).unwrap_err(), "decryption failed");
}
