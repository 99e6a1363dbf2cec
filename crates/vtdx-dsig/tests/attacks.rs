//! Hostile messages: each must be refused with its own error kind (or, for
//! wrapping that keeps the signature valid, be shown as not covering what
//! the application reads).
//!
//! The messages are signed here: digests over the canonical form
//! (`vtdx-c14n`, conformance-tested on its own) and HMAC / RSA from aws-lc-rs,
//! then tampered with as the attack needs.

use aws_lc_rs::{digest, hmac, rand, signature};
use base64::Engine;
use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::Document;
use vtdx_dsig::{ErrorKind, Verifier, VerifyConfig, VerifyingKey};

const KEY: &[u8] = b"attack-test-hmac-key-32-bytes-long!";
const DS: &str = "http://www.w3.org/2000/09/xmldsig#";
const WSU: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";

fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn exc() -> Canonicalizer {
    Canonicalizer::new(Algorithm::ExcC14n10)
}

/// Fills `DIGEST` (the Exclusive C14N SHA-256 of the element with `wsu:Id`/`Id`
/// = `target`, or of the document minus the Signature for `""`) and then
/// `SIGVALUE` (by `sign` over the canonical SignedInfo).
fn sign(template: &str, target: &str, sign: impl Fn(&[u8]) -> Vec<u8>) -> String {
    let doc = Document::parse(template.as_bytes()).unwrap();
    let sig = doc.root().descendant_elements().find(|e| e.local_name() == "Signature").unwrap();
    let mut bytes = Vec::new();
    if target.is_empty() {
        exc().canonicalize_subtree_excluding(doc.root(), &[sig], &mut bytes).unwrap();
    } else {
        let el = doc.root().descendant_elements().find(|e| e.attributes().any(|a| a.local_name() == "Id" && a.value() == target)).unwrap();
        exc().canonicalize_subtree(el, &mut bytes).unwrap();
    }
    let d = b64(digest::digest(&digest::SHA256, &bytes).as_ref());
    let with_digest = template.replacen("DIGEST", &d, 1);
    let doc = Document::parse(with_digest.as_bytes()).unwrap();
    let si = doc.root().descendant_elements().find(|e| e.local_name() == "SignedInfo").unwrap();
    let c = exc().subtree_to_vec(si).unwrap();
    with_digest.replacen("SIGVALUE", &b64(&sign(&c)), 1)
}

fn hmac_sha256(data: &[u8]) -> Vec<u8> {
    hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, KEY), data).as_ref().to_vec()
}

fn signed_info(uri: &str, method: &str, extra_transforms: &str) -> String {
    format!(
        r#"<ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="{method}"/><ds:Reference URI="{uri}"><ds:Transforms>{extra_transforms}<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>DIGEST</ds:DigestValue></ds:Reference></ds:SignedInfo>"#
    )
}

const HMAC256: &str = "http://www.w3.org/2001/04/xmldsig-more#hmac-sha256";

/// A SOAP message whose header Signature covers the Body by `wsu:Id`.
fn soap(method: &str, key_info: &str, body: &str) -> String {
    format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsu="{WSU}"><soap:Header><ds:Signature xmlns:ds="{DS}">{}<ds:SignatureValue>SIGVALUE</ds:SignatureValue>{key_info}</ds:Signature></soap:Header><soap:Body wsu:Id="body">{body}</soap:Body></soap:Envelope>"#,
        signed_info("#body", method, "")
    )
}

fn hmac_verifier() -> Verifier {
    Verifier::new(VerifyConfig::default(), vec![VerifyingKey::hmac(KEY).unwrap()])
}

fn kind_of(v: &Verifier, msg: &str) -> ErrorKind {
    let doc = Document::parse(msg.as_bytes()).unwrap();
    v.verify(&doc).map(|_| ()).unwrap_err().kind().clone()
}

fn body_by_position<'d>(doc: &'d Document<'d>) -> vtdx_core::Node<'d> {
    doc.root_element().element_children().find(|e| e.local_name() == "Body").unwrap()
}

#[test]
fn control_signed_soap_body_verifies_and_is_covered() {
    let msg = sign(&soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>"), "body", hmac_sha256);
    let doc = Document::parse(msg.as_bytes()).unwrap();
    let verified = hmac_verifier().verify(&doc).unwrap();
    let body = body_by_position(&doc);
    assert!(verified.covers(body));
    let r = &verified.references().next().unwrap();
    assert_eq!(r.uri(), Some("#body"));
    assert_eq!(r.node(), body);
    assert_eq!(r.range(), body.range());
    assert_eq!(r.transforms(), ["http://www.w3.org/2001/10/xml-exc-c14n#"]);
    assert!(!verified.covers(doc.root_element()), "the Envelope itself is not signed");
}

#[test]
fn wrapping_moved_body_is_not_covered() {
    // XSW: the signed Body moves into a header wrapper, a forged Body takes its place
    let msg = sign(&soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>"), "body", hmac_sha256);
    let (head, rest) = msg.split_once("<soap:Body").unwrap();
    let signed_body = format!("<soap:Body{}", rest.strip_suffix("</soap:Envelope>").unwrap());
    let attack = format!(
        "{}<w:Wrapper xmlns:w='urn:w'>{signed_body}</w:Wrapper></soap:Header><soap:Body><m:Pay xmlns:m='urn:m'>10000</m:Pay></soap:Body></soap:Envelope>",
        head.strip_suffix("</soap:Header>").unwrap()
    );
    // the SOAP rules refuse it outright: two soap:Body elements
    assert_eq!(kind_of(&hmac_verifier(), &attack), ErrorKind::SoapBodyCount(2));
    // without them, the signature itself is still valid, but the verified view shows the Body is not covered
    let doc = Document::parse(attack.as_bytes()).unwrap();
    let relaxed = Verifier::new(VerifyConfig::builder().soap_checks(false).build(), vec![VerifyingKey::hmac(KEY).unwrap()]);
    let verified = relaxed.verify(&doc).expect("the signature itself is still valid");
    assert!(!verified.covers(body_by_position(&doc)), "the Body the application reads is not what was signed");
    // the same with the moved Body renamed, so that only one soap:Body remains: coverage is what catches it
    let renamed = attack.replacen("<w:Wrapper xmlns:w='urn:w'><soap:Body", "<w:Wrapper xmlns:w='urn:w'><w:Body", 1).replacen(
        "</soap:Body></w:Wrapper>",
        "</w:Body></w:Wrapper>",
        1,
    );
    let doc = Document::parse(renamed.as_bytes()).unwrap();
    if let Ok(v) = hmac_verifier().verify(&doc) {
        assert!(!v.covers(body_by_position(&doc)) && !v.covers_payload());
    }
}

#[test]
fn wrapping_duplicated_id_is_refused() {
    let msg = sign(&soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>"), "body", hmac_sha256);
    // a second element with the same ID, before the signed one
    let attack = msg.replace("<soap:Header>", "<soap:Header><x wsu:Id=\"body\"><m:Pay xmlns:m='urn:m'>10000</m:Pay></x>");
    assert_eq!(kind_of(&hmac_verifier(), &attack), ErrorKind::DuplicateId("body".into()));
    // the same across ID-like attribute names
    let attack = msg.replace("<soap:Header>", "<soap:Header><x Id=\"body\"/>");
    assert_eq!(kind_of(&hmac_verifier(), &attack), ErrorKind::DuplicateId("body".into()));
}

#[test]
fn comment_injection_in_signed_value_is_refused() {
    let msg = sign(&soap(HMAC256, "", "<NameID>admin@example.com.evil.test</NameID>"), "body", hmac_sha256);
    // the digest leaves comments out, so it still matches; a reader of the first text node sees admin@example.com
    let attack = msg.replace("admin@example.com.evil.test", "admin@example.com<!---->.evil.test");
    assert_eq!(kind_of(&hmac_verifier(), &attack), ErrorKind::CommentInSignedText);
    // comments between elements are layout, not an injection
    let benign = msg.replace("<NameID>", "<!-- note --><NameID>");
    let doc = Document::parse(benign.as_bytes()).unwrap();
    assert!(hmac_verifier().verify(&doc).is_ok());
}

fn rsa_keypair() -> signature::RsaKeyPair {
    signature::RsaKeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).unwrap()
}

fn rsa_public(kp: &signature::RsaKeyPair) -> VerifyingKey {
    use aws_lc_rs::signature::KeyPair;
    VerifyingKey::from_der(kp.public_key().as_ref()).unwrap()
}

fn rsa_sign(kp: &signature::RsaKeyPair) -> impl Fn(&[u8]) -> Vec<u8> + '_ {
    move |data| {
        let mut sig = vec![0; kp.public_modulus_len()];
        kp.sign(&signature::RSA_PKCS1_SHA256, &rand::SystemRandom::new(), data, &mut sig).unwrap();
        sig
    }
}

const RSA256: &str = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";

#[test]
fn key_value_substitution_is_refused() {
    let (caller, attacker) = (rsa_keypair(), rsa_keypair());
    // control: signed by the caller's key, verifies
    let msg = sign(&soap(RSA256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>"), "body", rsa_sign(&caller));
    let v = Verifier::new(VerifyConfig::default(), vec![rsa_public(&caller)]);
    assert!(v.verify(&Document::parse(msg.as_bytes()).unwrap()).is_ok());
    // the attacker signs with its own key and ships its KeyValue
    use aws_lc_rs::signature::KeyPair;
    let pk = attacker.public_key();
    let (n, e) = (pk.modulus().big_endian_without_leading_zero(), pk.exponent().big_endian_without_leading_zero());
    let key_info = format!(
        "<ds:KeyInfo><ds:KeyValue><ds:RSAKeyValue><ds:Modulus>{}</ds:Modulus><ds:Exponent>{}</ds:Exponent></ds:RSAKeyValue></ds:KeyValue></ds:KeyInfo>",
        b64(n),
        b64(e)
    );
    let attack = sign(&soap(RSA256, &key_info, "<m:Pay xmlns:m='urn:m'>10000</m:Pay>"), "body", rsa_sign(&attacker));
    assert!(matches!(kind_of(&v, &attack), ErrorKind::UntrustedKey(_)));
    // without the KeyValue, the caller's key simply does not verify it
    let attack = sign(&soap(RSA256, "", "<m:Pay xmlns:m='urn:m'>10000</m:Pay>"), "body", rsa_sign(&attacker));
    assert_eq!(kind_of(&v, &attack), ErrorKind::InvalidSignature);
}

#[test]
fn algorithm_confusion_hmac_with_rsa_public_key_is_refused() {
    let caller = rsa_keypair();
    use aws_lc_rs::signature::KeyPair;
    let public_bytes = caller.public_key().as_ref().to_vec();
    // HMAC keyed with the (public) RSA key bytes
    let attack = sign(&soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10000</m:Pay>"), "body", |d| {
        hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, &public_bytes), d).as_ref().to_vec()
    });
    let v = Verifier::new(VerifyConfig::default(), vec![rsa_public(&caller)]);
    assert!(matches!(kind_of(&v, &attack), ErrorKind::KeyMismatch { .. }));
}

/// An empty HMAC key authenticates nothing (anybody can compute the HMAC): refused
/// for signing and verifying, as xmlsec1 and signxml refuse it; a short one (the
/// W3C interop vectors use `secret`) is kept.
#[test]
fn empty_hmac_key_is_refused() {
    assert!(matches!(VerifyingKey::hmac(b"").unwrap_err().kind(), ErrorKind::Key(_)));
    assert!(matches!(vtdx_dsig::SigningKey::hmac(b"").unwrap_err().kind(), ErrorKind::Key(_)));
    assert!(VerifyingKey::hmac(b"k").is_ok() && vtdx_dsig::SigningKey::hmac(b"k").is_ok());
    // made from the material directly, it fits no HMAC method: a message MACed with the empty key is refused
    let empty = Verifier::new(VerifyConfig::default(), vec![VerifyingKey::new(vtdx_dsig::KeyMaterial::Hmac(Vec::new()))]);
    let mac = |d: &[u8]| hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, b""), d).as_ref().to_vec();
    let forged = sign(&soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>"), "body", mac);
    assert!(matches!(kind_of(&empty, &forged), ErrorKind::KeyMismatch { .. }));
}

/// A DigestValue's text longer than 1 KiB (a digest is at most 88 base64
/// characters) is refused before anything is decoded or canonicalized; the same
/// digest with less white space around it verifies.
#[test]
fn oversized_digest_value_is_refused_first() {
    let t = soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>");
    let padded = |n: usize| sign(&t.replace(">DIGEST<", &format!(">{}DIGEST<", "\n".repeat(n))), "body", hmac_sha256);
    let doc_ok = padded(900);
    assert!(hmac_verifier().verify(&Document::parse(doc_ok.as_bytes()).unwrap()).is_ok());
    assert_eq!(kind_of(&hmac_verifier(), &padded(1000)), ErrorKind::Base64("DigestValue"));
    // refused before the signature is checked
    let huge = t.replace(">DIGEST<", &format!(">{}<", "A".repeat(1 << 20))).replace("SIGVALUE", "AAAA");
    assert_eq!(kind_of(&hmac_verifier(), &huge), ErrorKind::Base64("DigestValue"));
}

#[test]
fn hmac_truncation_is_refused() {
    let t = soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>").replace(
        &format!("<ds:SignatureMethod Algorithm=\"{HMAC256}\"/>"),
        &format!("<ds:SignatureMethod Algorithm=\"{HMAC256}\"><ds:HMACOutputLength>80</ds:HMACOutputLength></ds:SignatureMethod>"),
    );
    let attack = sign(&t, "body", |d| hmac_sha256(d)[..10].to_vec());
    assert_eq!(kind_of(&hmac_verifier(), &attack), ErrorKind::TruncatedHmac { bits: 80, full: 256 });
    // longer than the output: refused too, and said so
    let long = t.replace(">80<", ">512<");
    let attack = sign(&long, "body", hmac_sha256);
    let k = kind_of(&hmac_verifier(), &attack);
    assert_eq!(k, ErrorKind::TruncatedHmac { bits: 512, full: 256 });
    assert_eq!(k.to_string(), "HMACOutputLength 512 bits refused: longer than the HMAC's 256-bit output");
    // a short value without HMACOutputLength does not verify either
    let attack = sign(&soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>"), "body", |d| hmac_sha256(d)[..10].to_vec());
    assert_eq!(kind_of(&hmac_verifier(), &attack), ErrorKind::InvalidSignature);
}

#[test]
fn too_many_transforms_and_references_are_refused() {
    let six = "<ds:Transform Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"/>".repeat(5);
    let msg = format!(
        r#"<doc><ds:Signature xmlns:ds="{DS}">{}<ds:SignatureValue>AAAA</ds:SignatureValue></ds:Signature></doc>"#,
        signed_info("", HMAC256, &six)
    );
    assert_eq!(kind_of(&hmac_verifier(), &msg), ErrorKind::TooManyTransforms { count: 6, max: 5 });
    let one = r#"<ds:Reference URI=""><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>AAAA</ds:DigestValue></ds:Reference>"#;
    let msg = format!(
        r#"<doc><ds:Signature xmlns:ds="{DS}"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="{HMAC256}"/>{}</ds:SignedInfo><ds:SignatureValue>AAAA</ds:SignatureValue></ds:Signature></doc>"#,
        one.repeat(31)
    );
    assert_eq!(kind_of(&hmac_verifier(), &msg), ErrorKind::TooManyReferences { count: 31, max: 30 });
}

/// A valid HMAC signature whose only Reference has the URI `uri` (whatever it
/// points to, the signature over SignedInfo verifies first).
fn signed_reference_to(uri: &str, transforms: &str) -> String {
    let t = format!(
        r#"<doc Id="x"><ds:Signature xmlns:ds="{DS}">{}<ds:SignatureValue>SIGVALUE</ds:SignatureValue></ds:Signature></doc>"#,
        signed_info(uri, HMAC256, transforms).replace("&", "&amp;")
    );
    sign(&t, "x", hmac_sha256)
}

#[test]
fn external_references_are_refused_never_opened() {
    for uri in ["http://127.0.0.1:9/x.xml", "file:///etc/passwd", "../secret.xml", "doc.xml#x"] {
        let msg = signed_reference_to(uri, "");
        assert_eq!(kind_of(&hmac_verifier(), &msg), ErrorKind::ExternalReference(uri.into()), "{uri}");
    }
    // a Reference without URI names nothing in the document
    let msg = signed_reference_to("", "").replace("<ds:Reference URI=\"\">", "<ds:Reference>");
    assert!(matches!(kind_of(&hmac_verifier(), &msg), ErrorKind::ExternalReference(_) | ErrorKind::InvalidSignature));
}

#[test]
fn policy_refusals_have_their_own_kinds() {
    let xslt = "<ds:Transform Algorithm=\"http://www.w3.org/TR/1999/REC-xslt-19991116\"/>";
    assert!(matches!(kind_of(&hmac_verifier(), &signed_reference_to("#x", xslt)), ErrorKind::DisallowedAlgorithm { .. }));
    let xpath = "<ds:Transform Algorithm=\"http://www.w3.org/TR/1999/REC-xpath-19991116\"><ds:XPath>1</ds:XPath></ds:Transform>";
    assert!(matches!(kind_of(&hmac_verifier(), &signed_reference_to("#x", xpath)), ErrorKind::DisallowedAlgorithm { .. }));
    // MD5 and SHA-1 digests
    let md5 =
        signed_reference_to("#x", "").replace("http://www.w3.org/2001/04/xmlenc#sha256", "http://www.w3.org/2001/04/xmldsig-more#md5");
    assert!(matches!(kind_of(&hmac_verifier(), &md5), ErrorKind::DisallowedAlgorithm { reason: "MD5 is broken", .. }));
    let sha1 = signed_reference_to("#x", "").replace("http://www.w3.org/2001/04/xmlenc#sha256", "http://www.w3.org/2000/09/xmldsig#sha1");
    assert!(matches!(kind_of(&hmac_verifier(), &sha1), ErrorKind::DisallowedAlgorithm { .. }));
    // RetrievalMethod
    let rm = signed_reference_to("#x", "")
        .replace("</ds:Signature>", "<ds:KeyInfo><ds:RetrievalMethod URI=\"http://127.0.0.1:9/key\"/></ds:KeyInfo></ds:Signature>");
    assert_eq!(kind_of(&hmac_verifier(), &rm), ErrorKind::RetrievalMethod);
    // unknown IDs, and the shorthand forms that are not plain IDs
    let missing = signed_reference_to("#nothere", "");
    assert_eq!(kind_of(&hmac_verifier(), &missing), ErrorKind::IdNotFound("nothere".into()));
    let xp = signed_reference_to("#xpointer(//x)", "");
    assert!(matches!(kind_of(&hmac_verifier(), &xp), ErrorKind::UnsupportedReference(_)));
}

#[test]
fn rsa_key_below_the_minimum_is_refused() {
    let kp = signature::RsaKeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).unwrap();
    let msg = sign(&soap(RSA256, "", "<a/>"), "body", rsa_sign(&kp));
    let v = Verifier::new(VerifyConfig::builder().min_rsa_bits(3072).build(), vec![rsa_public(&kp)]);
    assert_eq!(kind_of(&v, &msg), ErrorKind::WeakKey { bits: 2048, min: 3072 });
}

#[test]
fn every_signature_must_verify() {
    let good = sign(&soap(HMAC256, "", "<a/>"), "body", hmac_sha256);
    // a second, broken signature in the header
    let bad = good.replace(
        "<soap:Header>",
        "<soap:Header><ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"><ds:SignedInfo/></ds:Signature>",
    );
    assert!(matches!(kind_of(&hmac_verifier(), &bad), ErrorKind::Malformed(_)));
    // the caller may pick one
    let doc = Document::parse(bad.as_bytes()).unwrap();
    let sigs = Verifier::signatures(&doc);
    assert_eq!(sigs.len(), 2);
    assert!(hmac_verifier().verify_signature(sigs[1]).is_ok());
    // no signature at all
    assert_eq!(kind_of(&hmac_verifier(), "<a/>"), ErrorKind::NoSignature);
}

#[test]
fn tampered_body_fails_its_digest() {
    let msg = sign(&soap(HMAC256, "", "<m:Pay xmlns:m='urn:m'>10</m:Pay>"), "body", hmac_sha256);
    let attack = msg.replace(">10<", ">10000<");
    assert_eq!(kind_of(&hmac_verifier(), &attack), ErrorKind::DigestMismatch { index: 0, uri: "#body".into() });
}

#[test]
fn enveloped_whole_document_covers_the_document_element() {
    let t = format!(
        r#"<doc><v>42</v><ds:Signature xmlns:ds="{DS}">{}<ds:SignatureValue>SIGVALUE</ds:SignatureValue></ds:Signature></doc>"#,
        signed_info("", HMAC256, "<ds:Transform Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"/>")
    );
    let msg = sign(&t, "", hmac_sha256);
    let doc = Document::parse(msg.as_bytes()).unwrap();
    let verified = hmac_verifier().verify(&doc).unwrap();
    assert!(verified.covers(doc.root_element()));
    let sig = Verifier::signatures(&doc)[0];
    assert!(!verified.covers(sig), "the Signature itself is removed by the enveloped transform");
    assert_eq!(verified.references().next().unwrap().excluded(), [sig]);
}
