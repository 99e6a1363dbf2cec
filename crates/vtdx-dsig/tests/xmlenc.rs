//! XML Encryption round trips, context, WS-Security, sign/encrypt
//! combinations, limits and attacks (every cryptographic failure must be the
//! one uniform `decryption failed`).
//!
//! Round trips are checked against the input itself: encryption takes the
//! element's own bytes and decryption puts them back where they were, so
//! `decrypt(encrypt(x))` must be `x`, byte for byte.

use std::time::{Duration, Instant};

use base64::Engine;
use vtdx_core::{Document, Node};
use vtdx_dsig::crypto::{AwsLcProvider, CipherProvider, OaepDigest, RsaPadding};
use vtdx_dsig::enc::{
    BlockAlgorithm, DecryptConfig, DecryptionKey, Decryptor, EncErrorKind, EncryptConfig, EncryptionKey, Encryptor, RsaTransport,
    WssEncryptOptions,
};
use vtdx_dsig::{select_elements, Certificate, SignConfig, Signer, SigningKey, Verifier, VerifyConfig, VerifyingKey, WssOptions};

use crate::sign::keys_dir;

pub(crate) fn read(rel: &str) -> Vec<u8> {
    std::fs::read(keys_dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub(crate) fn rsa_pair(bits: u32) -> (EncryptionKey, DecryptionKey) {
    let cert = Certificate::from_pem_or_der(&read(&format!("rsa/rsa-{bits}-cert.pem"))).unwrap();
    (EncryptionKey::from_certificate(cert).unwrap(), DecryptionKey::rsa_from_pem_or_der(&read(&format!("rsa/rsa-{bits}-key.pem"))).unwrap())
}

const KEK: [u8; 32] = [0x42; 32];

fn enc(key: EncryptionKey) -> Encryptor {
    Encryptor::new(key, EncryptConfig::default())
}

fn dec(keys: Vec<DecryptionKey>) -> Decryptor {
    Decryptor::new(keys, DecryptConfig::default())
}

fn pick<'d>(doc: &'d Document<'d>, xpath: &str) -> Vec<Node<'d>> {
    select_elements(doc, xpath).unwrap()
}

const DOC: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE order [<!ENTITY co \"ACME &amp; Co\">]>\n<order xmlns=\"urn:order\" xmlns:p=\"urn:p\" xml:lang=\"fr\">\n  <p:card p:type='visa'>4111 &co; caf\u{e9}<!-- c --><?pi x?></p:card>\n  <item n=\"1\">a</item>\n  <item n=\"2\"><![CDATA[<b>]]></item>\n</order>\n";

#[test]
fn element_and_content_round_trip_byte_for_byte() {
    let (rsa_e, rsa_d) = rsa_pair(2048);
    let cases: Vec<(&str, Encryptor, Decryptor)> = vec![
        ("rsa-oaep-mgf1p", enc(rsa_e.clone()), dec(vec![rsa_d])),
        (
            "rsa-oaep-sha256",
            Encryptor::new(rsa_e, EncryptConfig::default().rsa_transport(RsaTransport::OaepSha256).algorithm(BlockAlgorithm::AES128_GCM)),
            dec(vec![rsa_pair(2048).1]),
        ),
        ("kw-aes256", enc(EncryptionKey::aes_key_wrap(&KEK).unwrap()), dec(vec![DecryptionKey::aes(&KEK).unwrap()])),
        ("kw-aes192", enc(EncryptionKey::aes_key_wrap(&KEK[..24]).unwrap()), dec(vec![DecryptionKey::aes(&KEK[..24]).unwrap()])),
        (
            "direct",
            enc(EncryptionKey::aes_direct(&KEK).unwrap().with_name("k1")),
            dec(vec![DecryptionKey::aes(&[1; 32]).unwrap().with_name("other"), DecryptionKey::aes(&KEK).unwrap().with_name("k1")]),
        ),
    ];
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    for (name, e, d) in &cases {
        for (xpath, content) in [("//p:card", false), ("//p:card", true), ("/*", false), ("/*", true), ("//*[local-name()='item']", false)]
        {
            let targets = pick(&doc, xpath);
            let out = e.encrypt(&doc, &targets, content).unwrap();
            let s = String::from_utf8(out.clone()).unwrap();
            assert!(xpath.contains("item") || !s.contains("4111"), "{name} {xpath}: the plaintext is still there");
            assert!(s.contains("EncryptedData"), "{name}");
            let back = d.decrypt_bytes(&out).unwrap_or_else(|e| panic!("{name} {xpath} {content}: {e}"));
            assert_eq!(String::from_utf8(back).unwrap(), DOC, "{name} {xpath} content={content}");
        }
    }
}

#[test]
fn bytes_outside_the_encrypted_part_are_unchanged() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let out = enc(EncryptionKey::aes_key_wrap(&KEK).unwrap()).encrypt(&doc, &pick(&doc, "//p:card"), false).unwrap();
    let s = String::from_utf8(out).unwrap();
    let start = DOC.find("<p:card").unwrap();
    let end = DOC.find("</p:card>").unwrap() + "</p:card>".len();
    assert!(s.starts_with(&DOC[..start]) && s.ends_with(&DOC[end..]), "{s}");
}

#[test]
fn plaintext_is_parsed_in_context() {
    // the plaintext uses the prefix `p` and the entity `co` of its context: fine in place...
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let e = enc(EncryptionKey::aes_direct(&KEK).unwrap());
    let out = e.encrypt(&doc, &pick(&doc, "//p:card"), false).unwrap();
    let d = dec(vec![DecryptionKey::aes(&KEK).unwrap()]);
    assert!(d.decrypt_bytes(&out).is_ok());
    // ...but moved where neither is declared it is not well-formed, and that is the uniform error
    let s = String::from_utf8(out).unwrap();
    let a = s.find("<xenc:EncryptedData").unwrap();
    let b = s.find("</xenc:EncryptedData>").unwrap() + "</xenc:EncryptedData>".len();
    let moved = format!("<other>{}</other>", &s[a..b]);
    let err = d.decrypt_bytes(moved.as_bytes()).unwrap_err();
    assert_eq!(err.kind(), &EncErrorKind::DecryptionFailed);
    assert_eq!(err.to_string(), "decryption failed");
}

#[test]
fn several_parts_and_nested_encryption() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let e = enc(EncryptionKey::aes_key_wrap(&KEK).unwrap());
    let d = dec(vec![DecryptionKey::aes(&KEK).unwrap()]);
    let once = e.encrypt(&doc, &pick(&doc, "//p:card | //*[local-name()='item']"), false).unwrap();
    assert_eq!(String::from_utf8_lossy(&once).matches("<xenc:EncryptedData").count(), 3);
    // super-encryption: the document element's content, which holds three EncryptedData, again
    let d1 = Document::parse(&once).unwrap();
    let twice = e.encrypt(&d1, &[d1.root_element()], true).unwrap();
    assert_eq!(String::from_utf8_lossy(&twice).matches("<xenc:EncryptedData").count(), 1);
    assert_eq!(d.decrypt_bytes(&twice).unwrap(), DOC.as_bytes());
    // a depth limit of one pass stops after the outer layer
    let shallow = Decryptor::new(vec![DecryptionKey::aes(&KEK).unwrap()], DecryptConfig::default().max_depth(1));
    assert!(matches!(shallow.decrypt_bytes(&twice).unwrap_err().kind(), EncErrorKind::Limit { .. }));
    // and a limit on the number of parts
    let few = Decryptor::new(vec![DecryptionKey::aes(&KEK).unwrap()], DecryptConfig::default().max_parts(2));
    assert!(matches!(few.decrypt_bytes(&once).unwrap_err().kind(), EncErrorKind::Limit { what: "xenc:EncryptedData elements", .. }));
    let small = Decryptor::new(vec![DecryptionKey::aes(&KEK).unwrap()], DecryptConfig::default().max_cipher_bytes(64));
    assert!(matches!(small.decrypt_bytes(&once).unwrap_err().kind(), EncErrorKind::Limit { .. }));
}

#[test]
fn non_xml_data_at_the_root_and_nothing_encrypted() {
    let d = dec(vec![DecryptionKey::aes(&KEK).unwrap()]);
    assert_eq!(d.decrypt_bytes(b"<a><b/></a>").unwrap_err().kind(), &EncErrorKind::NothingEncrypted);
    // a root EncryptedData without Type: the plaintext itself (as the NIST vectors of the corpus)
    let mut body = b"raw \x00\x01 bytes".to_vec();
    let iv = [9u8; 12];
    AwsLcProvider.aes_gcm_seal(&KEK, &iv, &mut body).unwrap();
    let cv = base64::engine::general_purpose::STANDARD.encode([&iv[..], &body].concat());
    let x = format!(
        r#"<EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#"><EncryptionMethod Algorithm="http://www.w3.org/2009/xmlenc11#aes256-gcm"/><CipherData><CipherValue>{cv}</CipherValue></CipherData></EncryptedData>"#
    );
    assert_eq!(d.decrypt_bytes(x.as_bytes()).unwrap(), b"raw \x00\x01 bytes");
    // below the document element there is nothing to put in its place: a typed error
    let inner = format!("<doc>{x}</doc>");
    assert!(matches!(d.decrypt_bytes(inner.as_bytes()).unwrap_err().kind(), EncErrorKind::NotXml(_)));
}

// ---- attacks: one uniform error ------------------------------------------------

fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// An EncryptedData (Type Element) under `method` with the cipher octets `cv` and `key_info`.
fn encrypted_data(method: &str, key_info: &str, cv: &[u8]) -> String {
    format!(
        r#"<doc><EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#Element"><EncryptionMethod Algorithm="{method}"/>{key_info}<CipherData><CipherValue>{}</CipherValue></CipherData></EncryptedData></doc>"#,
        b64(cv)
    )
}

const CBC128: &str = "http://www.w3.org/2001/04/xmlenc#aes128-cbc";
const GCM128: &str = "http://www.w3.org/2009/xmlenc11#aes128-gcm";

/// AES-128-CBC of `plain` padded to whole blocks with zeros and `last` as the final byte
/// (ISO 10126: `last` is the padding length when it is right).
fn cbc(key: &[u8], plain: &[u8], last: u8) -> Vec<u8> {
    let n = 16 - plain.len() % 16;
    let mut data = plain.to_vec();
    data.extend(std::iter::repeat_n(0u8, n - 1));
    data.push(last);
    let iv = [3u8; 16];
    AwsLcProvider.aes_cbc_encrypt(key, &iv, &mut data).unwrap();
    [&iv[..], &data].concat()
}

fn gcm(key: &[u8], plain: &[u8]) -> Vec<u8> {
    let iv = [5u8; 12];
    let mut body = plain.to_vec();
    AwsLcProvider.aes_gcm_seal(key, &iv, &mut body).unwrap();
    [&iv[..], &body].concat()
}

fn rsa_ek(padding: &RsaPadding, method: &str, session: &[u8]) -> String {
    let cert = Certificate::from_pem_or_der(&read("rsa/rsa-2048-cert.pem")).unwrap();
    let c = AwsLcProvider.rsa_encrypt(cert.key(), padding, session).unwrap();
    format!(
        r#"<KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><EncryptedKey xmlns="http://www.w3.org/2001/04/xmlenc#"><EncryptionMethod Algorithm="{method}"/><CipherData><CipherValue>{}</CipherValue></CipherData></EncryptedKey></KeyInfo>"#,
        b64(&c)
    )
}

fn failure(d: &Decryptor, msg: &str) -> String {
    let e = d.decrypt_bytes(msg.as_bytes()).expect_err("must fail");
    assert_eq!(e.kind(), &EncErrorKind::DecryptionFailed, "{e}");
    assert_eq!(e.offset(), None);
    e.to_string()
}

#[test]
fn every_cryptographic_failure_is_one_uniform_error() {
    let k = [0x11u8; 16];
    let plain = b"<v>secret value</v>";
    let legacy = Decryptor::new(vec![DecryptionKey::aes(&k).unwrap()], DecryptConfig::default().allow_legacy(true));
    let strict = dec(vec![DecryptionKey::aes(&k).unwrap()]);
    let good_gcm = gcm(&k, plain);
    // controls: these decrypt
    assert_eq!(strict.decrypt_bytes(encrypted_data(GCM128, "", &good_gcm).as_bytes()).unwrap(), b"<doc><v>secret value</v></doc>");
    let good_cbc = cbc(&k, plain, (16 - plain.len() % 16) as u8);
    assert_eq!(legacy.decrypt_bytes(encrypted_data(CBC128, "", &good_cbc).as_bytes()).unwrap(), b"<doc><v>secret value</v></doc>");

    let mut messages = Vec::new();
    let tampered = |i: usize| {
        let mut c = good_gcm.clone();
        c[i] ^= 1;
        encrypted_data(GCM128, "", &c)
    };
    messages.push(("tampered IV", tampered(0)));
    messages.push(("tampered ciphertext", tampered(14)));
    messages.push(("tampered tag", tampered(good_gcm.len() - 1)));
    messages.push(("truncated", encrypted_data(GCM128, "", &good_gcm[..20])));
    messages.push(("wrong key", encrypted_data(GCM128, "", &gcm(&[0x22; 16], plain))));
    messages.push(("unknown algorithm", encrypted_data("urn:x-unknown", "", &good_gcm)));
    messages.push(("cbc refused by default", encrypted_data(CBC128, "", &good_cbc)));
    messages.push((
        "cipher reference",
        r##"<doc><EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#Element"><EncryptionMethod Algorithm="http://www.w3.org/2009/xmlenc11#aes128-gcm"/><CipherData><CipherReference URI="file:///etc/passwd"/></CipherData></EncryptedData></doc>"##.to_string(),
    ));
    let not_wf = gcm(&k, b"<v>unclosed");
    messages.push(("plaintext not well-formed", encrypted_data(GCM128, "", &not_wf)));
    let undeclared = gcm(&k, b"<q:v/>");
    messages.push(("undeclared prefix in context", encrypted_data(GCM128, "", &undeclared)));
    let msgs: Vec<String> = messages
        .iter()
        .map(|(n, m)| {
            let s = failure(&strict, m);
            assert_eq!(s, "decryption failed", "{n}");
            s
        })
        .collect();
    assert!(msgs.iter().all(|m| m == &msgs[0]));

    // CBC padding-oracle shapes (legacy on): bad padding byte 0, 17, 255; good padding but
    // not XML; good padding, wrong key. All the same.
    for (n, pad) in [("pad 0", 0u8), ("pad 17", 17), ("pad 255", 255)] {
        let c = cbc(&k, plain, pad);
        assert_eq!(failure(&legacy, &encrypted_data(CBC128, "", &c)), "decryption failed", "{n}");
    }
    let junk = b"\x00\x01 not xml \xff\xfe\x02\x03";
    let c = cbc(&k, junk, (16 - junk.len() % 16) as u8);
    assert_eq!(failure(&legacy, &encrypted_data(CBC128, "", &c)), "decryption failed");
    assert_eq!(failure(&legacy, &encrypted_data(CBC128, "", &cbc(&[0x33; 16], plain, (16 - plain.len() % 16) as u8))), "decryption failed");
}

#[test]
fn rsa_transport_failures_are_uniform_and_legacy_is_opt_in() {
    let (_, d) = rsa_pair(2048);
    let session = [0x5au8; 16];
    let data = gcm(&session, b"<v>x</v>");
    let oaep = RsaPadding::Oaep { digest: OaepDigest::Sha1, mgf: OaepDigest::Sha1, label: vec![] };
    let mgf1p = "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p";
    let ok = encrypted_data(GCM128, &rsa_ek(&oaep, mgf1p, &session), &data);
    let strict = dec(vec![d]);
    assert_eq!(strict.decrypt_bytes(ok.as_bytes()).unwrap(), b"<doc><v>x</v></doc>");
    // rsa-1_5 refused by default, accepted with allow_legacy
    let p15 = encrypted_data(GCM128, &rsa_ek(&RsaPadding::Pkcs1, "http://www.w3.org/2001/04/xmlenc#rsa-1_5", &session), &data);
    assert_eq!(failure(&strict, &p15), "decryption failed");
    let legacy = Decryptor::new(vec![rsa_pair(2048).1], DecryptConfig::default().allow_legacy(true));
    assert_eq!(legacy.decrypt_bytes(p15.as_bytes()).unwrap(), b"<doc><v>x</v></doc>");
    // OAEP ciphertext read as another digest; a tampered RSA ciphertext; the wrong private key
    let wrong_digest = ok.replace(
        r#"rsa-oaep-mgf1p"/>"#,
        r#"rsa-oaep-mgf1p"><DigestMethod xmlns="http://www.w3.org/2000/09/xmldsig#" Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/></EncryptionMethod>"#,
    ).replacen("</EncryptionMethod></EncryptionMethod>", "</EncryptionMethod>", 1);
    assert_eq!(failure(&strict, &wrong_digest), "decryption failed");
    let other = dec(vec![DecryptionKey::rsa_from_pem_or_der(&read("rsa/rsa-expired-key.pem")).unwrap()]);
    assert_eq!(failure(&other, &ok), "decryption failed");
    let ek_cv = ok.split("<CipherValue>").nth(1).unwrap().split('<').next().unwrap();
    let mut raw = base64::engine::general_purpose::STANDARD.decode(ek_cv).unwrap();
    raw[100] ^= 0x40;
    let tampered = ok.replacen(ek_cv, &b64(&raw), 1);
    assert_eq!(failure(&strict, &tampered), "decryption failed");
    // PKCS#1 v1.5 with a bad block under allow_legacy: still the same error (no Bleichenbacher oracle)
    let p15_cv = p15.split("<CipherValue>").nth(1).unwrap().split('<').next().unwrap();
    let mut raw = base64::engine::general_purpose::STANDARD.decode(p15_cv).unwrap();
    raw[7] ^= 0x01;
    assert_eq!(failure(&legacy, &p15.replacen(p15_cv, &b64(&raw), 1)), "decryption failed");

    // timing, roughly: a failed RSA unwrap goes on with a random key and fails at the tag,
    // like a bad tag with the right key. Medians of interleaved runs within a factor of 3.
    let mut bad_tag = data.clone();
    let n = bad_tag.len();
    bad_tag[n - 1] ^= 1;
    let bad_tag_msg = encrypted_data(GCM128, &rsa_ek(&oaep, mgf1p, &session), &bad_tag);
    let cases = [tampered.as_str(), bad_tag_msg.as_str(), wrong_digest.as_str()];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for _ in 0..25 {
        for (i, m) in cases.iter().enumerate() {
            let t = Instant::now();
            let _ = strict.decrypt_bytes(m.as_bytes());
            times[i].push(t.elapsed());
        }
    }
    let med: Vec<Duration> = times
        .iter_mut()
        .map(|v| {
            v.sort();
            v[v.len() / 2]
        })
        .collect();
    let (lo, hi) = (med.iter().min().unwrap(), med.iter().max().unwrap());
    assert!(hi.as_secs_f64() < 3.0 * lo.as_secs_f64(), "failure timings differ too much: {med:?}");
}

// ---- WS-Security ------------------------------------------------------------------

const SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12: &str = "http://www.w3.org/2003/05/soap-envelope";

pub(crate) fn soap(ns: &str, header: bool) -> String {
    let h = if header { r#"<soap:Header><t:Trace xmlns:t="urn:t">abc</t:Trace></soap:Header>"# } else { "" };
    format!(
        "<soap:Envelope xmlns:soap=\"{ns}\" xmlns:m=\"urn:m\">{h}<soap:Body>\n  <m:Pay xml:lang=\"en\"><m:amount>10</m:amount><m:card>4111</m:card></m:Pay>\n</soap:Body></soap:Envelope>"
    )
}

fn body_bytes(xml: &[u8]) -> Vec<u8> {
    let d = Document::parse(xml).unwrap();
    let b = d.root_element().element_children().find(|c| c.local_name() == "Body").unwrap();
    d.text()[b.range()].to_vec()
}

fn body_content(xml: &[u8]) -> Vec<u8> {
    let d = Document::parse(xml).unwrap();
    let b = d.root_element().element_children().find(|c| c.local_name() == "Body").unwrap();
    d.text()[b.content_range().unwrap()].to_vec()
}

#[test]
fn wss_body_and_header_blocks_soap11_and_soap12() {
    for ns in [SOAP11, SOAP12] {
        for header in [false, true] {
            let input = soap(ns, header);
            let doc = Document::parse(input.as_bytes()).unwrap();
            let (e, d) = rsa_pair(2048);
            let extra = if header { pick(&doc, "//*[local-name()='Trace']") } else { vec![] };
            let out = enc(e).encrypt_wss(&doc, &WssEncryptOptions::default(), &extra).unwrap();
            let s = String::from_utf8(out.clone()).unwrap();
            assert!(!s.contains("4111") && (!header || !s.contains(">abc<")), "{s}");
            assert!(s.contains("<wsse:Security") && s.contains("<xenc:ReferenceList>"), "{s}");
            let back = dec(vec![d]).decrypt_bytes(&out).unwrap();
            assert_eq!(body_bytes(&back), body_bytes(input.as_bytes()), "{ns}");
            let back = String::from_utf8(back).unwrap();
            assert!(!header || back.contains(r#"<t:Trace xmlns:t="urn:t">abc</t:Trace>"#));
            // decrypted = the input plus the Security header (which keeps the EncryptedKey)
            let sec_start = back.find("<wsse:Security").unwrap();
            let sec_end = back.find("</wsse:Security>").unwrap() + "</wsse:Security>".len();
            let without = format!("{}{}", &back[..sec_start], &back[sec_end..]);
            let without = without.replace("<soap:Header></soap:Header>", "");
            let want = if header { input.clone() } else { input.replace("<soap:Header></soap:Header>", "") };
            assert_eq!(without, want);
        }
    }
}

#[test]
fn wss_with_a_direct_key_uses_a_reference_list() {
    let input = soap(SOAP11, true);
    let doc = Document::parse(input.as_bytes()).unwrap();
    let out =
        enc(EncryptionKey::aes_direct(&KEK).unwrap().with_name("shared")).encrypt_wss(&doc, &WssEncryptOptions::default(), &[]).unwrap();
    let s = String::from_utf8(out.clone()).unwrap();
    assert!(s.contains("<xenc:ReferenceList") && !s.contains("EncryptedKey") && s.contains("<ds:KeyName>shared</ds:KeyName>"));
    let back = dec(vec![DecryptionKey::aes(&KEK).unwrap().with_name("shared")]).decrypt_bytes(&out).unwrap();
    assert_eq!(body_bytes(&back), body_bytes(input.as_bytes()));
    assert!(matches!(
        enc(EncryptionKey::aes_direct(&KEK).unwrap())
            .encrypt_wss(&Document::parse(b"<a/>").unwrap(), &WssEncryptOptions::default(), &[])
            .unwrap_err()
            .kind(),
        EncErrorKind::NotSoap
    ));
}

/// `n` rows of text and markup (a non-ASCII character, a reference, a comment), 40-odd bytes each.
fn rows(n: usize) -> String {
    (0..n).map(|i| format!("<m:row n=\"{i}\">caf\u{e9} &amp; {i}<!-- r --></m:row>\n")).collect()
}

/// The bytes of the first element named `local`.
fn element_bytes(xml: &[u8], local: &str) -> Vec<u8> {
    let d = Document::parse(xml).unwrap();
    let e = d.root().descendant_elements().find(|e| e.local_name() == local).unwrap();
    d.text()[e.range()].to_vec()
}

/// Parts of 64 KiB and more have their CipherValues written straight into the
/// output (docs/xmlenc.md, "Where the time goes"): WS-Security messages (SOAP 1.1
/// and 1.2; the Security header there as an empty tag, made in an empty Header,
/// made with the Header; the Body alone or with a large header block) decrypt
/// to their Body and header block byte for byte, and so do documents of several
/// large parts, element and content, to RSA and to a direct key; in UTF-8, and
/// in ISO-8859-1 and UTF-16, which take the Editor's way; and one Encryptor
/// from several threads at once.
#[test]
fn large_parts_round_trip_byte_for_byte() {
    let big = rows(3000);
    let wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
    let headers = [
        (String::new(), false),
        ("<soap:Header/>".to_string(), false),
        (format!("<soap:Header><wsse:Security xmlns:wsse=\"{wsse}\"/><t:Trace xmlns:t=\"urn:t\">{big}</t:Trace></soap:Header>"), true),
    ];
    for ns in [SOAP11, SOAP12] {
        for (header, trace) in &headers {
            let input = format!("<soap:Envelope xmlns:soap=\"{ns}\" xmlns:m=\"urn:m\">{header}<soap:Body><m:Pay>{big}</m:Pay></soap:Body></soap:Envelope>\n");
            let doc = Document::parse(input.as_bytes()).unwrap();
            let extra = if *trace { pick(&doc, "//*[local-name()='Trace']") } else { vec![] };
            let (e, d) = rsa_pair(2048);
            let out = enc(e).encrypt_wss(&doc, &WssEncryptOptions::default(), &extra).unwrap();
            let s = String::from_utf8(out.clone()).unwrap();
            assert!(!s.contains("caf\u{e9}") && s.matches("<xenc:EncryptedData").count() == 1 + extra.len(), "{ns} {header}");
            let back = dec(vec![d]).decrypt_bytes(&out).unwrap_or_else(|e| panic!("{ns} {header}: {e}"));
            assert_eq!(body_bytes(&back), body_bytes(input.as_bytes()), "{ns} {header}");
            if *trace {
                assert_eq!(element_bytes(&back, "Trace"), element_bytes(input.as_bytes(), "Trace"));
            }
        }
    }
    let keys = || {
        let (e, d) = rsa_pair(2048);
        [
            (enc(e), dec(vec![d])),
            (enc(EncryptionKey::aes_direct(&KEK).unwrap().with_name("k")), dec(vec![DecryptionKey::aes(&KEK).unwrap().with_name("k")])),
        ]
    };
    for encoding in ["UTF-8", "ISO-8859-1", "UTF-16"] {
        let text = format!(
            "<?xml version=\"1.0\" encoding=\"{encoding}\"?>\n<doc xmlns:m=\"urn:m\"><a>{big}</a><b n=\"1\">{big}</b><c>x</c></doc>\n"
        );
        let input: Vec<u8> = match encoding {
            "UTF-8" => text.into_bytes(),
            "ISO-8859-1" => text.chars().map(|c| c as u32 as u8).collect(),
            _ => [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(|u| u.to_le_bytes())).collect(),
        };
        let doc = Document::parse(&input).unwrap();
        for (e, d) in keys() {
            for (xpath, content) in [("/doc/a | /doc/b", false), ("/doc/a | /doc/b | /doc/c", true), ("/*", true)] {
                let out = e.encrypt(&doc, &pick(&doc, xpath), content).unwrap();
                assert_eq!(
                    Document::parse(&out).unwrap().root().descendant_elements().filter(|e| e.local_name() == "EncryptedData").count(),
                    pick(&doc, xpath).len()
                );
                let back = d.decrypt_bytes(&out).unwrap_or_else(|e| panic!("{encoding} {xpath}: {e}"));
                assert!(back == input, "{encoding} {xpath} content={content}");
            }
        }
    }
    // one Encryptor (which keeps a sealing buffer between messages) used by four
    // threads at once, on messages large and small
    let [(e, d), _] = keys();
    let small = soap(SOAP11, true);
    let inputs = [format!("<soap:Envelope xmlns:soap=\"{SOAP11}\" xmlns:m=\"urn:m\"><soap:Body>{big}</soap:Body></soap:Envelope>"), small];
    std::thread::scope(|s| {
        for t in 0..4 {
            let (e, d, inputs) = (&e, &d, &inputs);
            s.spawn(move || {
                for i in 0..6 {
                    let input = &inputs[(t + i) % 2];
                    let out = e.encrypt_wss(&Document::parse(input.as_bytes()).unwrap(), &WssEncryptOptions::default(), &[]).unwrap();
                    assert_eq!(body_bytes(&d.decrypt_bytes(&out).unwrap()), body_bytes(input.as_bytes()), "thread {t}, message {i}");
                }
            });
        }
    });
}

fn signer() -> (Signer, Verifier) {
    let cert = Certificate::from_pem_or_der(&read("rsa/rsa-2048-cert.pem")).unwrap();
    let sk = SigningKey::from_pem_or_der(&read("rsa/rsa-2048-key.pem")).unwrap().with_certificate(cert.clone()).unwrap();
    (Signer::new(sk, SignConfig::default()), Verifier::new(VerifyConfig::default(), vec![VerifyingKey::from_certificate(cert)]))
}

#[test]
fn sign_then_encrypt_decrypts_then_verifies() {
    for ns in [SOAP11, SOAP12] {
        let (signer, verifier) = signer();
        let input = soap(ns, false);
        let doc = Document::parse(input.as_bytes()).unwrap();
        let signed = signer.sign_wss(&doc, &WssOptions::default(), &[]).unwrap();
        let sdoc = Document::parse(&signed).unwrap();
        assert!(verifier.verify(&sdoc).is_ok());
        // encrypt the Body's content and the Signature itself (an encrypted signature)
        let (e, d) = rsa_pair(4096);
        let sig = pick(&sdoc, "//ds:Signature");
        let encrypted = enc(e).encrypt_wss(&sdoc, &WssEncryptOptions::default(), &sig).unwrap();
        let edoc = Document::parse(&encrypted).unwrap();
        assert!(verifier.verify(&edoc).is_err(), "nothing to verify before decryption");
        // the EncryptedKey comes first in the header: decrypt first, then verify
        let s = String::from_utf8_lossy(&encrypted);
        assert!(s.find("<xenc:EncryptedKey").unwrap() < s.find("<wsu:Timestamp").unwrap());
        // decrypted with the header's key entries removed: the message as it was signed
        let plain = Decryptor::new(vec![d], DecryptConfig::default().remove_key_entries(true)).decrypt_bytes(&encrypted).unwrap();
        assert_eq!(plain, signed);
        let pdoc = Document::parse(&plain).unwrap();
        let verified = verifier.verify(&pdoc).unwrap_or_else(|e| panic!("{ns}: {e}"));
        let body = pdoc.root_element().element_children().find(|c| c.local_name() == "Body").unwrap();
        assert!(verified.covers(body));
    }
}

#[test]
fn encrypt_then_sign_verifies_before_decryption() {
    for ns in [SOAP11, SOAP12] {
        let (signer, verifier) = signer();
        let input = soap(ns, false);
        let doc = Document::parse(input.as_bytes()).unwrap();
        let (e, d) = rsa_pair(2048);
        // the Security header is mustUnderstand and holds an EncryptedKey and a
        // ReferenceList: processed only by a verifier told that the application
        // decrypts afterwards
        let encrypted = enc(e).encrypt_wss(&doc, &WssEncryptOptions::default(), &[]).unwrap();
        let edoc = Document::parse(&encrypted).unwrap();
        let signed = signer.sign_wss(&edoc, &WssOptions::default(), &[]).unwrap();
        let sdoc = Document::parse(&signed).unwrap();
        let refused = verifier.verify(&sdoc).expect_err("a mustUnderstand header with an EncryptedKey nothing processes");
        assert!(matches!(refused.kind(), vtdx_dsig::ErrorKind::MustUnderstand(_)), "{ns}: {refused}");
        let cert = Certificate::from_pem_or_der(&read("rsa/rsa-2048-cert.pem")).unwrap();
        let decrypting = Verifier::new(VerifyConfig::builder().decrypts_after(true).build(), vec![VerifyingKey::from_certificate(cert)]);
        let verified = decrypting.verify(&sdoc).unwrap_or_else(|e| panic!("{ns}: {e}"));
        let body = sdoc.root_element().element_children().find(|c| c.local_name() == "Body").unwrap();
        assert!(verified.covers(body) && String::from_utf8_lossy(&sdoc.text()[body.range()]).contains("EncryptedData"));
        let plain = dec(vec![d]).decrypt_bytes(&signed).unwrap();
        assert_eq!(body_content(&plain), body_content(input.as_bytes()));
    }
}

/// An `EncryptedKey` (RSA-OAEP, SHA-1) of `session` to the certificate `cert`
/// (under the keys directory), or of arbitrary bytes when `forged`.
fn ek_to(cert: &str, session: &[u8], forged: bool) -> String {
    let padding = RsaPadding::Oaep { digest: OaepDigest::Sha1, mgf: OaepDigest::Sha1, label: Vec::new() };
    let c = if forged {
        vec![0x5a; 256]
    } else {
        let cert = Certificate::from_pem_or_der(&read(cert)).unwrap();
        AwsLcProvider.rsa_encrypt(cert.key(), &padding, session).unwrap()
    };
    format!(
        r#"<EncryptedKey xmlns="http://www.w3.org/2001/04/xmlenc#"><EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"/><CipherData><CipherValue>{}</CipherValue></CipherData></EncryptedKey>"#,
        b64(&c)
    )
}

/// A message to several recipients (XML Encryption 1.1 §3.5.1: one
/// `EncryptedKey` per recipient in the data's `KeyInfo`) decrypts for each of
/// them, whatever the order; a forged entry before the right one does not make
/// it fail (so a key whose padding happens to pass is no oracle); a key of no
/// recipient's is the uniform error; more entries than the limit are refused.
#[test]
fn a_message_to_several_recipients_decrypts_for_each() {
    let session = [0x37u8; 16];
    let plain = b"<v>for two</v>";
    let cv = gcm(&session, plain);
    let msg = |eks: &[String]| {
        encrypted_data(GCM128, &format!(r#"<KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#">{}</KeyInfo>"#, eks.concat()), &cv)
    };
    let a = || ek_to("rsa/rsa-2048-cert.pem", &session, false);
    let b = || ek_to("rsa/rsa-expired-cert.pem", &session, false);
    let key_a = || DecryptionKey::rsa_from_pem_or_der(&read("rsa/rsa-2048-key.pem")).unwrap();
    let key_b = || DecryptionKey::rsa_from_pem_or_der(&read("rsa/rsa-expired-key.pem")).unwrap();
    let want = b"<doc><v>for two</v></doc>";
    for eks in [[a(), b()], [b(), a()]] {
        assert_eq!(dec(vec![key_a()]).decrypt_bytes(msg(&eks).as_bytes()).unwrap(), want);
        assert_eq!(dec(vec![key_b()]).decrypt_bytes(msg(&eks).as_bytes()).unwrap(), want);
    }
    // a forged entry first, then the caller's
    let forged = ek_to("", &session, true);
    assert_eq!(dec(vec![key_b()]).decrypt_bytes(msg(&[forged.clone(), b()]).as_bytes()).unwrap(), want);
    // a key of neither recipient (a 4096-bit one, and an AES key)
    let other = DecryptionKey::rsa_from_pem_or_der(&read("rsa/rsa-4096-key.pem")).unwrap();
    assert_eq!(failure(&dec(vec![other]), &msg(&[a(), b()])), "decryption failed");
    assert_eq!(failure(&dec(vec![DecryptionKey::aes(&[1; 16]).unwrap()]), &msg(&[a(), b()])), "decryption failed");
    // the limit: 16 entries are tried, 17 refused with a position
    let mut many = vec![forged.clone(); 15];
    many.push(b());
    assert_eq!(dec(vec![key_b()]).decrypt_bytes(msg(&many).as_bytes()).unwrap(), want);
    many.insert(0, forged);
    let e = dec(vec![key_b()]).decrypt_bytes(msg(&many).as_bytes()).unwrap_err();
    assert!(matches!(e.kind(), EncErrorKind::Limit { limit: 16, found: 17, .. }), "{e}");
    assert!(e.offset().is_some());
    assert_eq!(
        Decryptor::new(vec![key_b()], DecryptConfig::default().max_recipients(17)).decrypt_bytes(msg(&many).as_bytes()).unwrap(),
        want
    );
}

/// The PBKDF2 iterations of all the derivations in one message are bounded, not
/// only each derivation's: three parts of 1,000 iterations each need a budget of
/// 3,000 (each part's key derived here with the provider's PBKDF2, the expected
/// plaintexts the ones encrypted).
#[test]
fn pbkdf2_iterations_are_bounded_per_message() {
    let secret = b"a master secret of the caller's";
    let part = |i: u8| {
        let salt = [i; 8];
        let key = AwsLcProvider.pbkdf2(vtdx_dsig::DigestAlgorithm::Sha256, secret, &salt, 1000, 32).unwrap();
        let cv = gcm(&key, format!("<p n=\"{i}\"/>").as_bytes());
        format!(
            r#"<EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#Element"><EncryptionMethod Algorithm="http://www.w3.org/2009/xmlenc11#aes256-gcm"/><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><DerivedKey xmlns="http://www.w3.org/2009/xmlenc11#"><KeyDerivationMethod Algorithm="http://www.w3.org/2009/xmlenc11#pbkdf2"><PBKDF2-params><Salt><Specified>{}</Specified></Salt><IterationCount>1000</IterationCount><KeyLength>32</KeyLength><PRF Algorithm="http://www.w3.org/2001/04/xmldsig-more#hmac-sha256"/></PBKDF2-params></KeyDerivationMethod></DerivedKey></KeyInfo><CipherData><CipherValue>{}</CipherValue></CipherData></EncryptedData>"#,
            b64(&salt),
            b64(&cv)
        )
    };
    let msg = format!("<doc>{}{}{}</doc>", part(0), part(1), part(2));
    let master = || DecryptionKey::master_secret(secret).unwrap();
    let with = |total: u64| Decryptor::new(vec![master()], DecryptConfig::default().max_kdf_iterations_total(total));
    let want = br#"<doc><p n="0"/><p n="1"/><p n="2"/></doc>"#;
    assert_eq!(dec(vec![master()]).decrypt_bytes(msg.as_bytes()).unwrap(), want);
    assert_eq!(with(3000).decrypt_bytes(msg.as_bytes()).unwrap(), want);
    assert_eq!(failure(&with(2999), &msg), "decryption failed");
    // the budget is the message's: a Decryptor used again starts afresh
    let d = with(3000);
    for _ in 0..2 {
        assert_eq!(d.decrypt_bytes(msg.as_bytes()).unwrap(), want);
    }
}
