//! Arbitrary bytes, parsed, then verified: with the default (strict) policy
//! and with everything the policy can relax turned on (SHA-1, 1024-bit RSA,
//! XPath and XPath Filter 2.0 transforms), against an HMAC key, an RSA
//! public key and an EC public key. Verification must return `Ok` or `Err`,
//! never panic; an `Ok` must only cover nodes of the document, and every
//! verified reference must name a node its `covers` accepts unless a
//! transform narrowed it.
//!
//! A fuzzer cannot forge a signature, so with real crypto almost every input
//! stops at the `SignatureValue` check, before any Reference is dereferenced
//! or transformed. Both policies therefore run a second time on a
//! [`CryptoProvider`] standing in for a forger: every signature value
//! verifies, and every digest, after the canonical bytes have been streamed
//! into it (all of the reference and transform code runs), comes out empty,
//! so a Reference with an empty `DigestValue` matches and the next one is
//! reached. The coverage assertions then judge the `Verified` of any
//! structure the fuzzer builds.
//!
//! Seeds: the signed vectors of `../shared/corpus/dsig/xmlsec`, as they are
//! and with their `DigestValue`s emptied (the seed command in `HACKING.md`).
#![no_main]

use std::io::{self, Write};
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_dsig::{
    CryptoProvider, DigestAlgorithm, DigestContext, ErrorKind, KeyMaterial, SignatureAlgorithm, Verifier, VerifyConfig, VerifyingKey,
};

/// Accepts every signature; every digest is empty (see the module docs).
#[derive(Debug)]
struct Forger;

/// Swallows the canonical bytes (touching each, so nothing is optimized out).
struct Sink(u8);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 = buf.iter().fold(self.0, |a, &b| a ^ b);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl DigestContext for Sink {
    fn finish(self: Box<Self>) -> Vec<u8> {
        std::hint::black_box(self.0);
        Vec::new()
    }
}

impl CryptoProvider for Forger {
    fn digest(&self, _: DigestAlgorithm) -> Result<Box<dyn DigestContext>, ErrorKind> {
        Ok(Box::new(Sink(0)))
    }
    fn verify(&self, _: SignatureAlgorithm, _: &KeyMaterial, _: &[u8], _: &[u8]) -> Result<(), ErrorKind> {
        Ok(())
    }
}

fn verifiers() -> &'static [Verifier; 4] {
    static V: OnceLock<[Verifier; 4]> = OnceLock::new();
    V.get_or_init(|| {
        let keys = || {
            let mut point = vec![4u8];
            point.extend_from_slice(&[1u8; 64]);
            vec![
                VerifyingKey::hmac(b"secret").unwrap().with_name("hmac"),
                // a 2048-bit RSA public key (any modulus: signatures simply fail)
                VerifyingKey::new(KeyMaterial::rsa(&[0xc5; 256], &[1, 0, 1]).unwrap()),
                VerifyingKey::new(KeyMaterial::ec(vtdx_dsig::Curve::P256, &point).unwrap()),
            ]
        };
        let relaxed = || VerifyConfig::builder().allow_sha1(true).min_rsa_bits(1024).allow_xpath_transform(true).allow_xpath_filter2(true);
        let forger: Arc<dyn CryptoProvider> = Arc::new(Forger);
        [
            Verifier::new(VerifyConfig::default(), keys()),
            Verifier::new(relaxed().build(), keys()),
            Verifier::new(VerifyConfig::builder().provider(forger.clone()).build(), keys()),
            Verifier::new(relaxed().soap_checks(false).provider(forger).build(), keys()),
        ]
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
