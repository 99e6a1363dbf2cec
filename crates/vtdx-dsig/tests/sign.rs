//! Signing round trips: every algorithm, enveloped, detached (XPath) and the
//! WS-Security header for SOAP 1.1 and 1.2, each verified by the crate's
//! `Verifier`; and the output with the inserted markup cut out is the input,
//! byte for byte.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use vtdx_c14n::Algorithm;
use vtdx_core::Document;
use vtdx_dsig::{
    select_elements, Certificate, DigestAlgorithm, ErrorKind, SignConfig, SignatureAlgorithm, Signer, SigningKey, Verifier, VerifyConfig,
    VerifyingKey, WssOptions,
};

pub fn keys_dir() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let k = p.join("dsig/xmlsec/keys");
    assert!(k.is_dir(), "the DSig test keys are missing at {} (set VTDX_CORPUS)", k.display());
    k
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(keys_dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub const HMAC_SECRET: &[u8] = b"round-trip-hmac-secret-of-32-bytes!!";

/// (name, key file, certificate file, method) for every algorithm signing offers.
pub fn algorithms() -> Vec<(&'static str, &'static str, &'static str, SignatureAlgorithm)> {
    use DigestAlgorithm::*;
    use SignatureAlgorithm::*;
    vec![
        ("rsa-sha256", "rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", RsaPkcs1(Sha256)),
        ("rsa-sha384", "rsa/rsa-2048-key.der", "rsa/rsa-2048-cert.pem", RsaPkcs1(Sha384)),
        ("rsa-sha512", "rsa/rsa-4096-key.pem", "rsa/rsa-4096-cert.pem", RsaPkcs1(Sha512)),
        ("rsa-pss-sha256", "rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", RsaPss(Sha256)),
        ("rsa-pss-sha384", "rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", RsaPss(Sha384)),
        ("rsa-pss-sha512", "rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", RsaPss(Sha512)),
        ("ecdsa-sha256", "ec/ec-prime256v1-key.pem", "ec/ec-prime256v1-cert.pem", Ecdsa(Sha256)),
        ("ecdsa-sha384", "ec/ec-prime384v1-key.der", "ec/ec-prime384v1-cert.pem", Ecdsa(Sha384)),
        ("ecdsa-sha512", "ec/ec-prime521v1-key.pem", "ec/ec-prime521v1-cert.pem", Ecdsa(Sha512)),
        ("ed25519", "eddsa/eddsa-ed25519-key.pem", "eddsa/eddsa-ed25519-cert.pem", Ed25519),
        ("hmac-sha256", "", "", Hmac(Sha256)),
        ("hmac-sha384", "", "", Hmac(Sha384)),
        ("hmac-sha512", "", "", Hmac(Sha512)),
    ]
}

/// The signing key (with its certificate) and the verifier's key.
pub fn key_pair(key: &str, cert: &str) -> (SigningKey, VerifyingKey) {
    if key.is_empty() {
        return (SigningKey::hmac(HMAC_SECRET).unwrap(), VerifyingKey::hmac(HMAC_SECRET).unwrap());
    }
    let c = Certificate::from_pem_or_der(&read(cert)).unwrap();
    let sk = SigningKey::from_pem_or_der(&read(key)).unwrap().with_certificate(c.clone()).unwrap();
    (sk, VerifyingKey::from_certificate(c))
}

fn verifier(k: VerifyingKey) -> Verifier {
    Verifier::new(VerifyConfig::default(), vec![k])
}

/// Cuts every occurrence of the `[open, close]` spans and of the `attrs` from `out`.
fn cut(out: &str, spans: &[(&str, &str)], attrs: &[&str]) -> String {
    let mut s = out.to_string();
    for (open, close) in spans {
        while let Some(i) = s.find(open) {
            let j = s[i..].find(close).unwrap_or_else(|| panic!("{close} after {open}")) + i + close.len();
            s.replace_range(i..j, "");
        }
    }
    for a in attrs {
        // ` name="value"`
        while let Some(i) = s.find(&format!(" {a}=\"")) {
            let v = i + a.len() + 3;
            let j = s[v..].find('"').unwrap() + v + 1;
            s.replace_range(i..j, "");
        }
    }
    s
}

const DOC: &str = "<?xml version=\"1.0\"?>\n<!-- kept -->\n<order xmlns=\"urn:order\" xmlns:p='urn:p'>\n  <item p:sku=\"a&amp;b\">caf\u{e9} &#233;</item>\n  <note><![CDATA[<raw>]]></note>\r\n  <empty/>\n</order>\n";

#[test]
fn enveloped_every_algorithm_round_trips_byte_exact() {
    for (name, key, cert, alg) in algorithms() {
        let (sk, vk) = key_pair(key, cert);
        let doc = Document::parse(DOC.as_bytes()).unwrap();
        let out = Signer::new(sk, SignConfig::default().method(alg)).sign_enveloped(&doc).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(cut(&text, &[("<ds:Signature", "</ds:Signature>")], &[]), DOC, "{name}: bytes outside the Signature changed");
        let signed = Document::parse(&out).unwrap();
        let v = verifier(vk).verify(&signed).unwrap_or_else(|e| panic!("{name}: {}", e.display_with(signed.text())));
        assert!(v.covers(signed.root_element()), "{name}");
        assert_eq!(v.signatures()[0].method(), alg, "{name}");
        let r = v.references().next().unwrap();
        assert_eq!(r.uri(), Some(""));
        assert_eq!(r.transforms(), ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"]);
    }
}

const SOAP11: &str = r#"<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">
  <soapenv:Body>
    <m:Pay xmlns:m="urn:m"><m:amount>10</m:amount></m:Pay>
  </soapenv:Body>
</soapenv:Envelope>"#;

const SOAP12_WITH_HEADER: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Header><a:To xmlns:a="http://www.w3.org/2005/08/addressing">urn:x</a:To></env:Header><env:Body><m:Pay xmlns:m="urn:m">10</m:Pay></env:Body></env:Envelope>"#;

fn wss_round_trip(name: &str, input: &str, sk: SigningKey, vk: VerifyingKey, alg: SignatureAlgorithm) -> String {
    let doc = Document::parse(input.as_bytes()).unwrap();
    let out = Signer::new(sk, SignConfig::default().method(alg))
        .sign_wss(&doc, &WssOptions::default(), &[])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = String::from_utf8(out.clone()).unwrap();
    let signed = Document::parse(&out).unwrap();
    let cfg = VerifyConfig::builder().require_timestamp(true).build();
    let v = Verifier::new(cfg, vec![vk]).verify(&signed).unwrap_or_else(|e| panic!("{name}: {}\n{text}", e.display_with(signed.text())));
    let soap = v.soap().expect("a SOAP message");
    assert!(v.covers(soap.body) && v.covers_payload(), "{name}: Body not covered");
    assert!(v.timestamp_signed(), "{name}: Timestamp not covered");
    assert_eq!(v.references().count(), 2);
    text
}

#[test]
fn wss_soap11_every_algorithm_creates_header_and_round_trips() {
    for (name, key, cert, alg) in algorithms() {
        let (sk, vk) = key_pair(key, cert);
        let text = wss_round_trip(name, SOAP11, sk, vk, alg);
        assert!(text.contains(r#"soapenv:mustUnderstand="1""#), "{name}");
        assert_eq!(text.contains("wsse:BinarySecurityToken"), !key.is_empty(), "{name}");
        assert_eq!(text.contains("wsse:SecurityTokenReference"), !key.is_empty(), "{name}");
        let rest = cut(&text, &[("<soapenv:Header>", "</soapenv:Header>")], &["xmlns:wsu", "wsu:Id"]);
        assert_eq!(rest, SOAP11, "{name}: bytes outside the inserted markup changed");
    }
}

#[test]
fn wss_soap12_every_algorithm_uses_the_existing_header_and_round_trips() {
    for (name, key, cert, alg) in algorithms() {
        let (sk, vk) = key_pair(key, cert);
        let text = wss_round_trip(name, SOAP12_WITH_HEADER, sk, vk, alg);
        assert!(text.contains(r#"env:mustUnderstand="true""#), "{name}");
        assert!(text.contains("<env:Header><wsse:Security"), "{name}: Security goes first in the Header");
        let rest = cut(&text, &[("<wsse:Security", "</wsse:Security>")], &["xmlns:wsu", "wsu:Id"]);
        assert_eq!(rest, SOAP12_WITH_HEADER, "{name}");
    }
}

#[test]
fn wss_default_namespace_envelope_and_declared_wsu() {
    let (sk, vk) = key_pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
    // the envelope in the default namespace: the Header is unprefixed, mustUnderstand needs a prefix of its own
    let input = r#"<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><x xmlns="urn:x"/></Body></Envelope>"#;
    let text = wss_round_trip("default ns", input, sk, vk.clone(), SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha256));
    assert!(text.contains("<Header><wsse:Security"), "{text}");
    assert!(text.contains(r#"soapenv:mustUnderstand="1""#));
    // wsu already bound on the Envelope (another prefix): the Body's new ID uses it, no new declaration
    let input = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:u="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"><s:Header/><s:Body>x</s:Body></s:Envelope>"#;
    let (sk, _) = key_pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
    let text = wss_round_trip("u prefix", input, sk, vk.clone(), SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha256));
    assert!(text.contains("<s:Body u:Id=\"id-"), "{text}");
    assert!(text.starts_with("<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:u="), "{text}");
    // a Body that already has an ID keeps it
    let input = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body Id="b1">x</s:Body></s:Envelope>"#;
    let (sk, _) = key_pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
    let text = wss_round_trip("own id", input, sk, vk, SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha256));
    assert!(text.contains(r##"URI="#b1""##) && text.contains("<s:Body Id=\"b1\">x</s:Body>"), "{text}");
}

#[test]
fn wss_timestamp_has_created_and_expires_with_ttl() {
    let (sk, vk) = key_pair("", "");
    let doc = Document::parse(SOAP11.as_bytes()).unwrap();
    let t0 = vtdx_dsig::time::parse_rfc3339("2030-01-02T03:04:05Z").unwrap();
    let opts = WssOptions { ttl: Some(Duration::from_secs(60)), now: Some(t0), must_understand: true };
    let out = String::from_utf8(Signer::new(sk, SignConfig::default()).sign_wss(&doc, &opts, &[]).unwrap()).unwrap();
    assert!(
        out.contains("<wsu:Created>2030-01-02T03:04:05.000Z</wsu:Created><wsu:Expires>2030-01-02T03:05:05.000Z</wsu:Expires>"),
        "{out}"
    );
    let signed = Document::parse(out.as_bytes()).unwrap();
    // judged at its creation: fresh; two minutes later: expired (beyond its 60 s and a 30 s skew)
    let at = |t: SystemTime, skew: u64| VerifyConfig::builder().now(t).max_clock_skew(Duration::from_secs(skew)).build();
    assert!(Verifier::new(at(t0, 30), vec![vk.clone()]).verify(&signed).is_ok());
    let late = Verifier::new(at(t0 + Duration::from_secs(120), 30), vec![vk.clone()]).verify(&signed).unwrap_err();
    assert!(matches!(late.kind(), ErrorKind::TimestampExpired { .. }), "{late}");
    // the default clock (now) is years before Created: in the future
    let early = Verifier::new(VerifyConfig::default(), vec![vk]).verify(&signed).unwrap_err();
    assert!(matches!(early.kind(), ErrorKind::TimestampInFuture { .. }), "{early}");
}

#[test]
fn detached_references_by_xpath_add_ids() {
    let (sk, vk) = key_pair("ec/ec-prime256v1-key.pem", "ec/ec-prime256v1-cert.pem");
    let input = r#"<doc><a>1</a><b id="keep">2</b><c><d>3</d></c></doc>"#;
    let doc = Document::parse(input.as_bytes()).unwrap();
    let mut targets = select_elements(&doc, "/doc/a | //b").unwrap();
    targets.extend(select_elements(&doc, "//d").unwrap());
    let out = Signer::new(sk, SignConfig::default()).sign_detached(&doc, &targets).unwrap();
    let text = String::from_utf8(out.clone()).unwrap();
    assert_eq!(cut(&text, &[("<ds:Signature", "</ds:Signature>")], &["Id"]), input);
    assert!(text.contains(r##"URI="#keep""##), "the existing id is used: {text}");
    let signed = Document::parse(&out).unwrap();
    let v = verifier(vk).verify(&signed).unwrap();
    let el = |n: &str| signed.root().descendant_elements().find(|e| e.local_name() == n).unwrap();
    assert!(v.covers(el("a")) && v.covers(el("b")) && v.covers(el("d")));
    assert!(!v.covers(el("c")) && !v.covers(signed.root_element()));
    // the document element itself: it contains the Signature, so the enveloped transform
    let doc = Document::parse(input.as_bytes()).unwrap();
    let (sk, vk) = key_pair("", "");
    let out = Signer::new(sk, SignConfig::default()).sign_detached(&doc, &select_elements(&doc, "/*").unwrap()).unwrap();
    let signed = Document::parse(&out).unwrap();
    let v = verifier(vk).verify(&signed).unwrap();
    assert!(v.covers(signed.root_element()));
    assert_eq!(v.references().next().unwrap().transforms()[0], "http://www.w3.org/2000/09/xmldsig#enveloped-signature");
    // an XPath selecting nothing, or not an element
    assert!(matches!(select_elements(&doc, "//nothing").unwrap_err().kind(), ErrorKind::Sign(_)));
    assert!(matches!(select_elements(&doc, "//@id").unwrap_err().kind(), ErrorKind::Sign(_)));
}

#[test]
fn wss_with_extra_signed_parts() {
    let (sk, vk) = key_pair("eddsa/eddsa-ed25519-key.pem", "eddsa/eddsa-ed25519-cert.pem");
    let doc = Document::parse(SOAP12_WITH_HEADER.as_bytes()).unwrap();
    let to = select_elements(&doc, "//*[local-name()='To']").unwrap();
    let out = Signer::new(sk, SignConfig::default()).sign_wss(&doc, &WssOptions::default(), &to).unwrap();
    let signed = Document::parse(&out).unwrap();
    let v = verifier(vk).verify(&signed).unwrap();
    assert_eq!(v.references().count(), 3);
    let to = signed.root().descendant_elements().find(|e| e.local_name() == "To").unwrap();
    assert!(v.covers(to));
}

#[test]
fn inclusive_signed_info_is_canonicalized_in_place() {
    // inclusive C14N of the SignedInfo picks up the namespaces in scope where it is inserted
    let input = r#"<r xmlns="urn:default" xmlns:a="urn:a" xml:lang="fr"><a:x>1</a:x></r>"#;
    for (alg, name) in [(Algorithm::C14n10, "c14n"), (Algorithm::C14n11, "c14n11"), (Algorithm::ExcC14n10, "exc")] {
        let (sk, vk) = key_pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
        let doc = Document::parse(input.as_bytes()).unwrap();
        let cfg = SignConfig::default().signed_info_c14n(alg).reference_c14n(alg);
        let out = Signer::new(sk, cfg).sign_enveloped(&doc).unwrap();
        let signed = Document::parse(&out).unwrap();
        verifier(vk).verify(&signed).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn utf16_documents_are_signed_in_their_encoding() {
    let input: Vec<u8> = "\u{feff}<a><b>\u{e9}</b></a>".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let doc = Document::parse(&input).unwrap();
    let (sk, vk) = key_pair("", "");
    let out = Signer::new(sk, SignConfig::default()).sign_enveloped(&doc).unwrap();
    assert_eq!(&out[..2], &[0xFF, 0xFE]);
    let signed = Document::parse(&out).unwrap();
    assert!(verifier(vk).verify(&signed).unwrap().covers(signed.root_element()));
}

#[test]
fn key_loading_and_mismatches() {
    // PKCS#1 (rsa .der), SEC 1 (ec .der), PKCS#8 (every .pem)
    for f in [
        "rsa/rsa-2048-key.der",
        "ec/ec-prime256v1-key.der",
        "ec/ec-prime521v1-key.der",
        "eddsa/eddsa-ed25519-key.der",
        "rsa/rsa-4096-key.pem",
    ] {
        SigningKey::from_pem_or_der(&read(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    // encrypted keys are refused
    let e = SigningKey::from_pem_or_der(&read("rsa/rsa-2048-key.p8-pem")).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Key(_)));
    // a certificate of another key
    let other = Certificate::from_pem_or_der(&read("ec/ec-prime256v1-cert.pem")).unwrap();
    assert!(SigningKey::from_pem_or_der(&read("rsa/rsa-2048-key.pem")).unwrap().with_certificate(other).is_err());
    // a method the key cannot make
    let doc = Document::parse(b"<a/>").unwrap();
    let rsa = SigningKey::from_pem_or_der(&read("rsa/rsa-2048-key.pem")).unwrap();
    let e = Signer::new(rsa, SignConfig::default().method(SignatureAlgorithm::Ecdsa(DigestAlgorithm::Sha256)))
        .sign_enveloped(&doc)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::SigningKeyMismatch { .. }), "{e}");
    let p256 = SigningKey::from_pem_or_der(&read("ec/ec-prime256v1-key.pem")).unwrap();
    let e = Signer::new(p256, SignConfig::default().method(SignatureAlgorithm::Ecdsa(DigestAlgorithm::Sha512)))
        .sign_enveloped(&doc)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::SigningKeyMismatch { .. }), "{e}");
    // SHA-1 is not used to sign
    let e = Signer::new(SigningKey::hmac(b"k").unwrap(), SignConfig::default().method(SignatureAlgorithm::Hmac(DigestAlgorithm::Sha1)))
        .sign_enveloped(&doc)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DisallowedAlgorithm { .. }), "{e}");
    // WS-Security needs a SOAP message
    let e = Signer::new(SigningKey::hmac(b"k").unwrap(), SignConfig::default()).sign_wss(&doc, &WssOptions::default(), &[]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Sign(_)), "{e}");
}

fn corpus_root() -> PathBuf {
    keys_dir().join("../../..")
}

fn files_under(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "xml") {
            out.push(p);
        }
    }
}

/// The invariant of `fuzz/fuzz_targets/sign.rs` on real documents: what vtdx
/// signs, vtdx verifies (XML conformance documents, enveloped; the SOAP
/// messages of the bench corpus, WS-Security).
#[test]
fn whatever_vtdx_signs_it_verifies() {
    let mut files = Vec::new();
    files_under(&corpus_root().join("xmlconf"), &mut files);
    let mut xmlconf: Vec<PathBuf> = files.into_iter().filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 20_000)).collect();
    xmlconf.truncate(600);
    let mut soap = Vec::new();
    files_under(&corpus_root().join("bench/soap"), &mut soap);
    soap.push(corpus_root().join("bench/generated/soap_wss_2k.xml"));
    soap.push(corpus_root().join("bench/generated/soap_big.xml"));
    let signer = Signer::new(SigningKey::hmac(HMAC_SECRET).unwrap(), SignConfig::default());
    let relaxed = Verifier::new(VerifyConfig::builder().soap_checks(false).build(), vec![VerifyingKey::hmac(HMAC_SECRET).unwrap()]);
    let (mut signed_count, mut wss_count) = (0, 0);
    for f in xmlconf.iter().chain(&soap) {
        let data = std::fs::read(f).unwrap();
        let Ok(doc) = Document::parse(&data) else { continue };
        if !Verifier::signatures(&doc).is_empty() {
            continue;
        }
        if let Ok(out) = signer.sign_enveloped(&doc) {
            signed_count += 1;
            let signed = Document::parse(&out).unwrap_or_else(|e| panic!("{}: output does not parse: {e}", f.display()));
            match relaxed.verify(&signed) {
                Ok(v) => assert!(v.covers(signed.root_element()), "{}", f.display()),
                Err(e) => assert!(matches!(e.kind(), ErrorKind::CommentInSignedText), "{}: {e}", f.display()),
            }
        }
        let now = vtdx_dsig::time::parse_rfc3339("2030-01-01T00:00:00Z").unwrap();
        match signer.sign_wss(&doc, &WssOptions { now: Some(now), ..WssOptions::default() }, &[]) {
            Ok(out) => {
                wss_count += 1;
                let signed = Document::parse(&out).unwrap();
                // an existing Timestamp (signed as it is) is judged at its own time
                let ts = vtdx_dsig::SoapMessage::parse(&signed).unwrap().and_then(|m| m.timestamp).unwrap();
                let created = ts.element_children().find(|c| c.local_name() == "Created").unwrap();
                let at = vtdx_dsig::time::parse_rfc3339(&created.value()).unwrap();
                let v = Verifier::new(VerifyConfig::builder().now(at).build(), vec![VerifyingKey::hmac(HMAC_SECRET).unwrap()]);
                let v = v.verify(&signed).unwrap_or_else(|e| panic!("{}: {}", f.display(), e.display_with(signed.text())));
                assert!(v.covers_payload() && v.timestamp_signed(), "{}", f.display());
            }
            Err(e) => assert!(
                matches!(e.kind(), ErrorKind::Sign(_) | ErrorKind::SoapBodyCount(_) | ErrorKind::SoapDoctype),
                "{}: {e}",
                f.display()
            ),
        }
    }
    assert!(signed_count > 300, "only {signed_count} documents signed");
    assert!(wss_count >= 5, "only {wss_count} SOAP messages signed");
}

#[test]
fn wss_into_an_existing_security_header() {
    let (sk, vk) = key_pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
    let input = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" s:mustUnderstand="1"><wsse:UsernameToken><wsse:Username>u</wsse:Username><wsse:Password>p</wsse:Password></wsse:UsernameToken></wsse:Security></s:Header><s:Body>x</s:Body></s:Envelope>"#;
    let text = wss_round_trip("existing", input, sk, vk, SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha256));
    assert_eq!(text.matches("<wsse:Security ").count(), 1, "{text}");
    assert!(text.contains("</wsse:UsernameToken><wsu:Timestamp"), "appended after what the header held: {text}");
    // a header that already has a Timestamp (the bench's WSS4J message): that one is signed, no second one made
    let with_ts = std::fs::read(corpus_root().join("bench/generated/soap_wss_2k.xml")).unwrap();
    let doc = Document::parse(&with_ts).unwrap();
    let out =
        Signer::new(SigningKey::hmac(HMAC_SECRET).unwrap(), SignConfig::default()).sign_wss(&doc, &WssOptions::default(), &[]).unwrap();
    let text = String::from_utf8(out.clone()).unwrap();
    assert_eq!(text.matches("<wsu:Timestamp").count(), 1);
    assert!(text.contains(r##"<ds:Reference URI="#TS-1">"##), "the existing wsu:Id is used");
    let signed = Document::parse(&out).unwrap();
    // the message already holds an rsa-sha1 signature (which the strict policy refuses): check the new one alone
    let ours = *Verifier::signatures(&signed).last().unwrap();
    let v = Verifier::new(VerifyConfig::default(), vec![VerifyingKey::hmac(HMAC_SECRET).unwrap()]).verify_signature(ours).unwrap();
    let soap = vtdx_dsig::SoapMessage::parse(&signed).unwrap().unwrap();
    assert!(v.covers(soap.body) && v.covers(soap.timestamp.unwrap()));
}
