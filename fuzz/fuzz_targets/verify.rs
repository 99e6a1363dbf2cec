//! Arbitrary bytes, parsed, then verified: with the default (strict) policy
//! and with everything the policy can relax turned on (SHA-1, 1024-bit RSA,
//! XPath and XPath Filter 2.0 transforms), against an HMAC key, an RSA
//! public key and an EC public key. Verification must return `Ok` or `Err`,
//! never panic; an `Ok` must only cover nodes of the document, and every
//! verified reference must name a node its `covers` accepts unless a
//! transform narrowed it.
//!
//! Seeds: the signed vectors of `../shared/corpus/dsig/xmlsec` (a signature
//! over HMAC key `secret` reaches digest and reference code; others stop at
//! the key or the signature check, which is what hostile input mostly hits).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_dsig::{KeyMaterial, Verifier, VerifyConfig, VerifyingKey};

fn verifiers() -> &'static [Verifier; 2] {
    static V: OnceLock<[Verifier; 2]> = OnceLock::new();
    V.get_or_init(|| {
        let keys = || {
            let mut point = vec![4u8];
            point.extend_from_slice(&[1u8; 64]);
            vec![
                VerifyingKey::hmac(b"secret").with_name("hmac"),
                // a 2048-bit RSA public key (any modulus: signatures simply fail)
                VerifyingKey::new(KeyMaterial::rsa(&[0xc5; 256], &[1, 0, 1]).unwrap()),
                VerifyingKey::new(KeyMaterial::ec(vtdx_dsig::Curve::P256, &point).unwrap()),
            ]
        };
        let relaxed =
            VerifyConfig::builder().allow_sha1(true).min_rsa_bits(1024).allow_xpath_transform(true).allow_xpath_filter2(true).build();
        [Verifier::new(VerifyConfig::default(), keys()), Verifier::new(relaxed, keys())]
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::parse(data) else { return };
    for v in verifiers() {
        let Ok(verified) = v.verify(&doc) else { continue };
        for r in verified.references() {
            assert!(r.range().end <= doc.text().len());
            if !r.is_filtered() && r.excluded().is_empty() {
                assert!(r.covers(r.node()), "a reference must cover the node it names");
            }
        }
    }
});
