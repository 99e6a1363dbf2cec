//! Interop with xmlsec1 (Debian's package, installed by `scripts/test.sh`),
//! both ways, for every algorithm both offer: vtdx signs and `xmlsec1
//! --verify` accepts; `xmlsec1 --sign` fills a template and vtdx verifies.
//! Enveloped signatures of a whole document, and the WS-Security header of
//! SOAP 1.1 and 1.2 messages (Body and Timestamp by `wsu:Id`).
//!
//! xmlsec1 1.2 (OpenSSL) offers neither RSA-PSS nor Ed25519 (`xmlsec1
//! --list-transforms`): those are checked only against vtdx's own verifier
//! (tests/sign.rs). When xmlsec1 is missing, the tests print why and pass,
//! unless `VTDX_REQUIRE_XMLSEC1=1` (set by scripts/test.sh): then they fail.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, SystemTime};

use vtdx_core::Document;
use vtdx_dsig::time::format_rfc3339;
use vtdx_dsig::{DigestAlgorithm, SignConfig, SignatureAlgorithm, Signer, Verifier, VerifyConfig, WssOptions};

use crate::sign::{key_pair, keys_dir, HMAC_SECRET};

const SOAP11_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12_NS: &str = "http://www.w3.org/2003/05/soap-envelope";
const WSU: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
const WSSE: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";

/// xmlsec1, or `None` (after saying why) when it is missing and not required.
fn xmlsec1() -> Option<&'static str> {
    let found = Command::new("xmlsec1").arg("--version").output().is_ok_and(|o| o.status.success());
    if found {
        return Some("xmlsec1");
    }
    if std::env::var_os("VTDX_REQUIRE_XMLSEC1").is_some_and(|v| v == "1") {
        panic!("xmlsec1 is required (VTDX_REQUIRE_XMLSEC1=1) but is not installed: scripts/test.sh installs Debian's package `xmlsec1`");
    }
    eprintln!("SKIPPED: xmlsec1 is not installed (apt-get install xmlsec1; scripts/test.sh does it)");
    None
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("vtdx-dsig-interop-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, data).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// (name, key, certificate, method) for the algorithms xmlsec1 1.2 and vtdx both offer.
fn common_algorithms() -> Vec<(&'static str, &'static str, &'static str, SignatureAlgorithm)> {
    use DigestAlgorithm::*;
    use SignatureAlgorithm::*;
    vec![
        ("rsa-sha256", "rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", RsaPkcs1(Sha256)),
        ("rsa-sha384", "rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", RsaPkcs1(Sha384)),
        ("rsa-sha512", "rsa/rsa-4096-key.pem", "rsa/rsa-4096-cert.pem", RsaPkcs1(Sha512)),
        ("ecdsa-sha256", "ec/ec-prime256v1-key.pem", "ec/ec-prime256v1-cert.pem", Ecdsa(Sha256)),
        ("ecdsa-sha384", "ec/ec-prime384v1-key.pem", "ec/ec-prime384v1-cert.pem", Ecdsa(Sha384)),
        ("ecdsa-sha512", "ec/ec-prime521v1-key.pem", "ec/ec-prime521v1-cert.pem", Ecdsa(Sha512)),
        ("hmac-sha256", "", "", Hmac(Sha256)),
        ("hmac-sha384", "", "", Hmac(Sha384)),
        ("hmac-sha512", "", "", Hmac(Sha512)),
    ]
}

fn key_args(s: &Scratch, key: &str, cert: &str, private: bool) -> Vec<String> {
    if key.is_empty() {
        return vec!["--hmackey".into(), s.write("hmac.bin", HMAC_SECRET).to_string_lossy().into_owned()];
    }
    let k = keys_dir().join(key).to_string_lossy().into_owned();
    let c = keys_dir().join(cert).to_string_lossy().into_owned();
    if private {
        vec!["--privkey-pem".into(), format!("{k},{c}")]
    } else {
        vec!["--pubkey-cert-pem".into(), c]
    }
}

/// `--id-attr` for the WS-Security parts (xmlsec1 registers IDs only where told).
fn wss_id_args(soap_ns: &str) -> Vec<String> {
    vec!["--id-attr:Id".into(), format!("{soap_ns}:Body"), "--id-attr:Id".into(), format!("{WSU}:Timestamp")]
}

fn run(xmlsec: &str, args: &[String]) -> (bool, String) {
    let o = Command::new(xmlsec).args(args).output().expect("run xmlsec1");
    (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

const PLAIN: &str =
    "<?xml version=\"1.0\"?>\n<order xmlns=\"urn:order\" xmlns:p=\"urn:p\"><item p:sku=\"a&amp;b\">caf\u{e9}</item><!-- c --></order>\n";

fn soap(ns: &str) -> String {
    format!(
        r#"<soap:Envelope xmlns:soap="{ns}"><soap:Header/><soap:Body><m:Pay xmlns:m="urn:m"><m:amount>10</m:amount></m:Pay></soap:Body></soap:Envelope>"#
    )
}

fn soap_variant(ns: &str, k: usize) -> String {
    let pay = r#"<m:Pay xmlns:m="urn:m"><m:amount>10</m:amount><n:note xmlns:n="urn:n" n:v="a&amp;b">x</n:note></m:Pay>"#;
    match k {
        0 => format!(
            r#"<soap:Envelope xmlns:soap="{ns}" xmlns:wsu="{WSU}">
 <soap:Body>{pay}</soap:Body>
</soap:Envelope>"#
        ),
        1 => format!(
            r#"<Envelope xmlns="{ns}"><Header><wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"/></Header><Body Id="body-1">{pay}</Body></Envelope>"#
        ),
        _ => format!(
            r#"<soap:Envelope xmlns:soap="{ns}"><soap:Body xmlns:a="urn:a" a:v="1>2" xml:lang="en">{pay}</soap:Body></soap:Envelope>"#
        ),
    }
}

#[test]
fn vtdx_signs_xmlsec1_verifies() {
    let Some(xmlsec) = xmlsec1() else { return };
    let s = Scratch::new("v2x");
    let mut failures = Vec::new();
    for (name, key, cert, alg) in common_algorithms() {
        let cases: Vec<(&str, String, Vec<String>)> = vec![
            ("enveloped", PLAIN.to_string(), vec![]),
            ("wss-soap11", soap(SOAP11_NS), wss_id_args(SOAP11_NS)),
            ("wss-soap12", soap(SOAP12_NS), wss_id_args(SOAP12_NS)),
            // shapes of the one-pass way (docs/dsig.md): wsu declared on the Envelope
            // and no Header; a default-namespace Envelope whose Body has its own ID
            // and a Security header; a Body whose start tag has a `>` in a value
            ("wss-wsu-on-envelope", soap_variant(SOAP11_NS, 0), wss_id_args(SOAP11_NS)),
            ("wss-body-id-security", soap_variant(SOAP12_NS, 1), wss_id_args(SOAP12_NS)),
            ("wss-body-attrs", soap_variant(SOAP11_NS, 2), wss_id_args(SOAP11_NS)),
        ];
        for (shape, input, ids) in cases {
            let (sk, _) = key_pair(key, cert);
            let doc = Document::parse(input.as_bytes()).unwrap();
            let signer = Signer::new(sk, SignConfig::default().method(alg));
            let out = if shape == "enveloped" { signer.sign_enveloped(&doc) } else { signer.sign_wss(&doc, &WssOptions::default(), &[]) }
                .unwrap();
            let f = s.write(&format!("{name}-{shape}.xml"), &out);
            let mut args = vec!["--verify".to_string(), "--enabled-reference-uris".into(), "empty,same-doc".into()];
            args.extend(key_args(&s, key, cert, false));
            args.extend(ids);
            args.push(f.to_string_lossy().into_owned());
            let (ok, log) = run(xmlsec, &args);
            if !ok || !log.contains("OK") {
                failures.push(format!("{name} {shape}: xmlsec1 refused:\n{log}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An enveloped-signature template for xmlsec1 (empty values; X509Data for a certificate).
fn enveloped_template(alg: SignatureAlgorithm, cert: bool) -> String {
    let ki = if cert { "<ds:KeyInfo><ds:X509Data/></ds:KeyInfo>" } else { "" };
    let digest = match alg.digest() {
        Some(d) => d.uri(),
        None => DigestAlgorithm::Sha256.uri(),
    };
    let sig = format!(
        r#"<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="{}"/><ds:Reference URI=""><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms><ds:DigestMethod Algorithm="{digest}"/><ds:DigestValue/></ds:Reference></ds:SignedInfo><ds:SignatureValue/>{ki}</ds:Signature>"#,
        alg.uri()
    );
    PLAIN.replacen("</order>", &format!("{sig}</order>"), 1)
}

/// A WS-Security template: Timestamp (fresh) and Body by `wsu:Id`, the Signature in the Security header.
fn wss_template(ns: &str, alg: SignatureAlgorithm, cert: bool) -> String {
    let now = SystemTime::now();
    let ki = if cert { "<ds:KeyInfo><ds:X509Data/></ds:KeyInfo>" } else { "" };
    let reference = |id: &str| {
        format!(
            r##"<ds:Reference URI="#{id}"><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference>"##
        )
    };
    format!(
        r#"<soap:Envelope xmlns:soap="{ns}" xmlns:wsu="{WSU}"><soap:Header><wsse:Security xmlns:wsse="{WSSE}" soap:mustUnderstand="1"><wsu:Timestamp wsu:Id="TS-1"><wsu:Created>{}</wsu:Created><wsu:Expires>{}</wsu:Expires></wsu:Timestamp><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="{}"/>{}{}</ds:SignedInfo><ds:SignatureValue/>{ki}</ds:Signature></wsse:Security></soap:Header><soap:Body wsu:Id="body-1"><m:Pay xmlns:m="urn:m">10</m:Pay></soap:Body></soap:Envelope>"#,
        format_rfc3339(now),
        format_rfc3339(now + Duration::from_secs(300)),
        alg.uri(),
        reference("body-1"),
        reference("TS-1")
    )
}

#[test]
fn xmlsec1_signs_vtdx_verifies() {
    let Some(xmlsec) = xmlsec1() else { return };
    let s = Scratch::new("x2v");
    let mut failures = Vec::new();
    for (name, key, cert, alg) in common_algorithms() {
        let has_cert = !key.is_empty();
        let cases: Vec<(&str, String, Vec<String>)> = vec![
            ("enveloped", enveloped_template(alg, has_cert), vec![]),
            ("wss-soap11", wss_template(SOAP11_NS, alg, has_cert), wss_id_args(SOAP11_NS)),
            ("wss-soap12", wss_template(SOAP12_NS, alg, has_cert), wss_id_args(SOAP12_NS)),
        ];
        for (shape, template, ids) in cases {
            let t = s.write(&format!("{name}-{shape}.tmpl"), template.as_bytes());
            let out = s.0.join(format!("{name}-{shape}.xml"));
            let mut args = vec!["--sign".to_string(), "--output".into(), out.to_string_lossy().into_owned()];
            args.extend(key_args(&s, key, cert, true));
            args.extend(ids);
            args.push(t.to_string_lossy().into_owned());
            let (ok, log) = run(xmlsec, &args);
            if !ok {
                failures.push(format!("{name} {shape}: xmlsec1 --sign failed:\n{log}"));
                continue;
            }
            let signed = std::fs::read(&out).unwrap();
            let doc = Document::parse(&signed).unwrap();
            let (_, vk) = key_pair(key, cert);
            let cfg = VerifyConfig::builder().require_timestamp(shape != "enveloped").build();
            match Verifier::new(cfg, vec![vk]).verify(&doc) {
                Ok(v) if v.covers_payload() => {
                    if shape != "enveloped" && !v.timestamp_signed() {
                        failures.push(format!("{name} {shape}: Timestamp not covered"));
                    }
                }
                Ok(_) => failures.push(format!("{name} {shape}: payload not covered")),
                Err(e) => failures.push(format!(
                    "{name} {shape}: vtdx refused: {}\n{}",
                    e.display_with(doc.text()),
                    String::from_utf8_lossy(&signed)
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A Body of about 150 KB that canonicalization changes throughout (attributes
/// to reorder, empty-element tags, references, CDATA sections, comments, a
/// namespace declared on each block), so its canonical bytes are handed to the
/// hashing helper in many chunks (`VerifyConfigBuilder::parallel`).
fn big_body() -> String {
    let mut s = String::from(r#"<m:Batch xmlns:m="urn:m">"#);
    for i in 0..1500 {
        s.push_str(&format!(
            "\n  <m:item xmlns:x=\"urn:x{}\" z=\"{i}\" a='1&amp;2' x:b=\"q\"><m:e  b=\"2\" a=\"1\"/>tick{i} &lt; &#233;<![CDATA[ a<b ]]><!-- c --></m:item >",
            i % 7
        ));
    }
    s.push_str("\n</m:Batch>");
    s
}

/// xmlsec1 signs a WS-Security message with a large Body; vtdx verifies it with
/// the hashing helper and without, and refuses it in both ways once a byte of
/// the Body, early, in the middle or late, has changed.
#[test]
fn large_body_xmlsec1_signs_vtdx_verifies() {
    let Some(xmlsec) = xmlsec1() else { return };
    let s = Scratch::new("large");
    let (_, vk) = key_pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
    let template = wss_template(SOAP11_NS, SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha256), true).replacen(
        r#"<m:Pay xmlns:m="urn:m">10</m:Pay>"#,
        &big_body(),
        1,
    );
    let t = s.write("large.tmpl", template.as_bytes());
    let out = s.0.join("large.xml");
    let mut args = vec!["--sign".to_string(), "--output".into(), out.to_string_lossy().into_owned()];
    args.extend(key_args(&s, "rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", true));
    args.extend(wss_id_args(SOAP11_NS));
    args.push(t.to_string_lossy().into_owned());
    let (ok, log) = run(xmlsec, &args);
    assert!(ok, "xmlsec1 --sign failed:\n{log}");
    let signed = String::from_utf8(std::fs::read(&out).unwrap()).unwrap();
    assert!(signed.len() > 150_000, "{}", signed.len());
    for parallel in [true, false] {
        let verifier = Verifier::new(VerifyConfig::builder().require_timestamp(true).parallel(parallel).build(), vec![vk.clone()]);
        let doc = Document::parse(signed.as_bytes()).unwrap();
        match verifier.verify(&doc) {
            Ok(v) => assert!(v.covers_payload() && v.timestamp_signed(), "parallel {parallel}: not covered"),
            Err(e) => panic!("parallel {parallel}: vtdx refused: {}", e.display_with(doc.text())),
        }
        for i in [3, 750, 1497] {
            let tampered = signed.replacen(&format!(">tick{i} "), &format!(">tock{i} "), 1);
            assert_ne!(tampered, signed);
            let doc = Document::parse(tampered.as_bytes()).unwrap();
            let e = verifier.verify(&doc).expect_err("a changed Body verified");
            assert!(
                matches!(e.kind(), vtdx_dsig::ErrorKind::DigestMismatch { index: 0, .. }),
                "parallel {parallel}, tick{i}: {}",
                e.display_with(doc.text())
            );
        }
    }
}
