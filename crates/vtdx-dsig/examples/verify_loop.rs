//! Parses and verifies one signed message N times (for `valgrind --tool=callgrind`
//! and `perf`): `verify_loop SIGNED.xml CERT.pem AT N`, AT the RFC 3339 instant the
//! message's Timestamp is judged at.

use vtdx_core::Document;
use vtdx_dsig::{Certificate, Verifier, VerifyConfig, VerifyingKey};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [msg, cert, at, n] = &a[..] else {
        eprintln!("usage: verify_loop SIGNED.xml CERT.pem AT N");
        std::process::exit(2);
    };
    let bytes = std::fs::read(msg).expect("cannot read the message");
    let cert = Certificate::from_pem_or_der(&std::fs::read(cert).expect("cannot read the certificate")).expect("not a certificate");
    let at = vtdx_dsig::time::parse_rfc3339(at).expect("AT is not RFC 3339");
    let verifier = Verifier::new(VerifyConfig::builder().now(at).build(), vec![VerifyingKey::from_certificate(cert)]);
    let n: usize = n.parse().expect("N is a count");
    let t = std::time::Instant::now();
    let mut refs = 0;
    for _ in 0..n {
        let doc = Document::parse(&bytes).expect("not well-formed");
        // exactly what bench/src/bin/dsig_peers.rs times
        let v = verifier.verify(&doc).expect("does not verify");
        assert!(v.covers_payload() && v.timestamp_signed(), "verified, but the Body or the Timestamp is not covered");
        refs += v.references().count();
    }
    std::hint::black_box(refs);
    let per = t.elapsed().as_secs_f64() / n as f64;
    println!("{msg}: {:.1} us per parse + verify ({:.0}/s)", per * 1e6, 1.0 / per);
}
