//! Parses and signs one SOAP message N times with a WS-Security header (Timestamp,
//! BinarySecurityToken, Signature over Body and Timestamp; for `valgrind
//! --tool=callgrind` and `perf`): `sign_loop MESSAGE.xml KEY.pem CERT.pem N`.

use vtdx_core::Document;
use vtdx_dsig::{Certificate, SignConfig, Signer, SigningKey, WssOptions};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [msg, key, cert, n] = &a[..] else {
        eprintln!("usage: sign_loop MESSAGE.xml KEY.pem CERT.pem N");
        std::process::exit(2);
    };
    let bytes = std::fs::read(msg).expect("cannot read the message");
    let cert = Certificate::from_pem_or_der(&std::fs::read(cert).expect("cannot read the certificate")).expect("not a certificate");
    let key = SigningKey::from_pem_or_der(&std::fs::read(key).expect("cannot read the key"))
        .and_then(|k| k.with_certificate(cert))
        .expect("not a key for that certificate");
    let signer = Signer::new(key, SignConfig::default());
    let n: usize = n.parse().expect("N is a count");
    let t = std::time::Instant::now();
    let mut out = 0;
    for _ in 0..n {
        let doc = Document::parse(&bytes).expect("not well-formed");
        out += signer.sign_wss(&doc, &WssOptions::default(), &[]).expect("cannot sign").len();
    }
    let per = t.elapsed().as_secs_f64() / n as f64;
    println!("{msg}: {:.1} us per parse + sign ({:.0}/s, {} bytes out)", per * 1e6, 1.0 / per, out / n.max(1));
}
