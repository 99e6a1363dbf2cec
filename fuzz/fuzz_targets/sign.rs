//! Arbitrary bytes, parsed, then signed (an enveloped HMAC signature of the
//! whole document; for a SOAP message also the WS-Security header) and the
//! output verified with the same key. Signing must return `Ok` or `Err`, never
//! panic; a signature it makes must verify and cover the document element
//! (or the Body and the Timestamp), so signer and verifier never disagree on
//! what the canonical form of any document is.
//!
//! Seeds: any XML documents (the SOAP messages of
//! `../shared/corpus/bench/generated` reach the WS-Security code).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_dsig::{ErrorKind, SignConfig, Signer, SigningKey, Verifier, VerifyConfig, VerifyingKey, WssOptions};

const SECRET: &[u8] = b"fuzz-sign-secret-of-32-bytes-long";

/// Refusals of the verifier that say something about the input, not about a
/// disagreement with the signer (content with a comment between text, more
/// signatures than allowed, SOAP rules the message breaks).
fn tolerated(k: &ErrorKind) -> bool {
    matches!(k, ErrorKind::CommentInSignedText | ErrorKind::TooManySignatures { .. } | ErrorKind::DuplicateId(_))
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::parse(data) else { return };
    // a document that already holds signatures would need them to verify too
    if !Verifier::signatures(&doc).is_empty() {
        return;
    }
    let signer = Signer::new(SigningKey::hmac(SECRET).unwrap(), SignConfig::default());
    let relaxed = Verifier::new(VerifyConfig::builder().soap_checks(false).build(), vec![VerifyingKey::hmac(SECRET).unwrap()]);
    if let Ok(out) = signer.sign_enveloped(&doc) {
        let signed = Document::parse(&out).expect("signed output must parse");
        match relaxed.verify(&signed) {
            Ok(v) => assert!(v.covers(signed.root_element()), "an enveloped signature covers the document element"),
            Err(e) => assert!(tolerated(e.kind()), "vtdx cannot verify its own signature: {e}"),
        }
    }
    let now = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_900_000_000);
    let opts = WssOptions { now: Some(now), ..WssOptions::default() };
    if let Ok(out) = signer.sign_wss(&doc, &opts, &[]) {
        let signed = Document::parse(&out).expect("signed output must parse");
        // a Timestamp the message already had is signed as it is: judge it at its own Created
        let at = vtdx_dsig::SoapMessage::parse(&signed)
            .ok()
            .flatten()
            .and_then(|m| m.timestamp)
            .and_then(|t| t.element_children().find(|c| c.local_name() == "Created"))
            .and_then(|c| vtdx_dsig::time::parse_rfc3339(&c.value()))
            .unwrap_or(now);
        let v = Verifier::new(VerifyConfig::builder().now(at).build(), vec![VerifyingKey::hmac(SECRET).unwrap()]);
        match v.verify(&signed) {
            Ok(v) => assert!(v.covers_payload() && v.timestamp_signed(), "the WS-Security signature covers Body and Timestamp"),
            Err(e) => assert!(
                tolerated(e.kind())
                    || matches!(
                        e.kind(),
                        ErrorKind::MustUnderstand(_) | ErrorKind::DuplicateSecurityHeader | ErrorKind::TimestampMalformed(_)
                    ),
                "vtdx cannot verify its own WS-Security header: {e}"
            ),
        }
    }
});
