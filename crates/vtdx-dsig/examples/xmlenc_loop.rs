//! Encrypts or decrypts one SOAP message N times (for `valgrind --tool=callgrind`
//! and `perf`): `xmlenc_loop encrypt MSG.xml CERT.pem N` (the Body's content, the
//! WS-Security form) or `xmlenc_loop decrypt ENCRYPTED.xml KEY.pem N`.

use vtdx_core::Document;
use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor, EncryptConfig, EncryptionKey, Encryptor, WssEncryptOptions};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [what, msg, key, n] = &a[..] else {
        eprintln!("usage: xmlenc_loop encrypt|decrypt MSG.xml CERT.pem|KEY.pem N");
        std::process::exit(2);
    };
    let bytes = std::fs::read(msg).expect("cannot read the message");
    let key = std::fs::read(key).expect("cannot read the key");
    let n: usize = n.parse().expect("N is a count");
    let t = std::time::Instant::now();
    let mut out = 0;
    match what.as_str() {
        "encrypt" => {
            let enc = Encryptor::new(EncryptionKey::rsa_from_pem_or_der(&key).expect("not a certificate"), EncryptConfig::default());
            for _ in 0..n {
                let doc = Document::parse(&bytes).expect("not well-formed");
                out += enc.encrypt_wss(&doc, &WssEncryptOptions::default(), &[]).expect("cannot encrypt").len();
            }
        }
        "decrypt" => {
            let dec = Decryptor::new(vec![DecryptionKey::rsa_from_pem_or_der(&key).expect("not a private key")], DecryptConfig::default());
            for _ in 0..n {
                out += dec.decrypt_bytes(&bytes).expect("cannot decrypt").len();
            }
        }
        _ => {
            eprintln!("the first argument is encrypt or decrypt");
            std::process::exit(2);
        }
    }
    let per = t.elapsed().as_secs_f64() / n as f64;
    println!("{msg}: {:.1} us per {what} ({:.0}/s, {} bytes out)", per * 1e6, 1.0 / per, out / n.max(1));
}
