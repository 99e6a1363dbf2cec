//! Path validation with the xmlsec corpus certificates: root `cacert`,
//! intermediate `ca2cert`, leaves `rsa-4096-cert`, `rsa-2048-cert` (revoked
//! by `rsa-2048-cert-revoked-crl`) and `rsa-expired-cert`, all valid from
//! 2026-03-08.

use std::path::PathBuf;
use std::time::SystemTime;

use super::*;
use crate::time::parse_rfc3339;

fn keys_dir() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    p.join("dsig/xmlsec/keys")
}

fn cert(name: &str) -> Certificate {
    Certificate::from_pem_or_der(&std::fs::read(keys_dir().join(name)).unwrap()).unwrap()
}

fn at(s: &str) -> SystemTime {
    parse_rfc3339(s).unwrap()
}

fn store() -> TrustStore {
    TrustStore::new(vec![cert("cacert.pem")]).intermediates([cert("ca2cert.pem")])
}

#[test]
fn valid_chain() {
    let leaf = cert("rsa/rsa-4096-cert.pem");
    let chain = store().validate(&leaf, &[], at("2026-04-01T00:00:00Z"), 2048).unwrap();
    assert_eq!(chain.len(), 3);
    assert_eq!(chain[2].der(), cert("cacert.pem").der());
    // the intermediate may come from the message instead
    let s = TrustStore::new(vec![cert("cacert.pem")]);
    assert_eq!(s.validate(&leaf, &[cert("ca2cert.pem")], at("2026-04-01T00:00:00Z"), 2048).unwrap().len(), 3);
}

#[test]
fn expired_leaf_and_not_yet_valid() {
    let e = store().validate(&cert("rsa/rsa-expired-cert.pem"), &[], at("2026-06-01T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CertificateExpired { .. }), "{e}");
    let e = store().validate(&cert("rsa/rsa-4096-cert.pem"), &[], at("2020-01-01T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CertificateNotYetValid { .. }), "{e}");
}

#[test]
fn expired_intermediate() {
    // in 2200 the leaf, the intermediate and the root have all expired: the leaf is reported first
    let e = store().validate(&cert("rsa/rsa-4096-cert.pem"), &[], at("2200-01-01T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CertificateExpired { .. }), "{e}");
}

#[test]
fn missing_anchor_or_intermediate() {
    let leaf = cert("rsa/rsa-4096-cert.pem");
    let e = TrustStore::new(vec![cert("cacert.pem")]).validate(&leaf, &[], at("2026-04-01T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UntrustedCertificate(_)), "{e}");
    let e = TrustStore::new(Vec::new())
        .intermediates([cert("ca2cert.pem")])
        .validate(&leaf, &[], at("2026-04-01T00:00:00Z"), 2048)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UntrustedCertificate(_)), "{e}");
}

#[test]
fn wrong_issuer_signature() {
    // same names, another key: a self-made "root" whose subject is the real root's
    let mut der = cert("rsa/rsa-4096-cert.pem").der().to_vec();
    let n = der.len();
    der[n - 5] ^= 0x01; // a bit of the signature
    let forged = Certificate::from_der(&der).unwrap();
    let e = store().validate(&forged, &[], at("2026-04-01T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CertificateSignature(_)), "{e}");
}

#[test]
fn revoked_leaf_and_stale_crl() {
    let crl = Crl::from_pem_or_der(&std::fs::read(keys_dir().join("rsa/rsa-2048-cert-revoked-crl.pem")).unwrap()).unwrap();
    let s = store().crls([crl]);
    let leaf = cert("rsa/rsa-2048-cert.pem");
    let e = s.validate(&leaf, &[], at("2026-03-20T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CertificateRevoked { .. }), "{e}");
    // before the CRL was issued it says nothing; after its nextUpdate it is stale
    assert!(s.validate(&leaf, &[], at("2026-03-10T00:00:00Z"), 2048).is_ok());
    let e = s.validate(&leaf, &[], at("2026-05-01T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CrlExpired { .. }), "{e}");
    // another leaf of the same CA is not revoked
    assert!(s.validate(&cert("rsa/rsa-4096-cert.pem"), &[], at("2026-03-20T00:00:00Z"), 2048).is_ok());
}

#[test]
fn chain_length_bound() {
    let e = store().max_chain_len(2).validate(&cert("rsa/rsa-4096-cert.pem"), &[], at("2026-04-01T00:00:00Z"), 2048).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CertificateChainTooLong(2)), "{e}");
}
