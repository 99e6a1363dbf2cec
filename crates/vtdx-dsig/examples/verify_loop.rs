//! Parses and verifies one signed message N times (for `valgrind --tool=callgrind`
//! and `perf`): `verify_loop SIGNED.xml CERT.pem AT N [par]`, AT the RFC 3339 instant
//! the message's Timestamp is judged at; `par`: with `VerifyConfigBuilder::parallel`
//! on (large References hashed by a helper thread).

use vtdx_core::Document;
use vtdx_dsig::{Certificate, Verifier, VerifyConfig, VerifyingKey};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (msg, cert, at, n, parallel) = match &a[..] {
        [msg, cert, at, n] => (msg, cert, at, n, false),
        [msg, cert, at, n, par] if par == "par" => (msg, cert, at, n, true),
        _ => {
            eprintln!("usage: verify_loop SIGNED.xml CERT.pem AT N [par]");
            std::process::exit(2);
        }
    };
    let bytes = std::fs::read(msg).expect("cannot read the message");
    let cert = Certificate::from_pem_or_der(&std::fs::read(cert).expect("cannot read the certificate")).expect("not a certificate");
    let at = vtdx_dsig::time::parse_rfc3339(at).expect("AT is not RFC 3339");
    let verifier = Verifier::new(VerifyConfig::builder().now(at).parallel(parallel).build(), vec![VerifyingKey::from_certificate(cert)]);
    let n: usize = n.parse().expect("N is a count");
    let cpu0 = thread_cpu_ns();
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
    let cpu = match (cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => format!(", this thread on a CPU {:.1} us", (b - a) as f64 / n as f64 / 1e3),
        _ => String::new(),
    };
    println!("{msg}: {:.1} us per parse + verify ({:.0}/s){cpu}", per * 1e6, 1.0 / per);
}

/// Nanoseconds this thread has spent on a CPU (Linux: the first field of
/// `/proc/thread-self/schedstat`): with the hashing helper on, the time of this
/// thread alone, which is what a verification takes when the helper has a core of
/// its own, whatever else the machine runs.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}
