//! The Rust program of the side-by-side harness's `xmlenc` workload (`bench/run --only
//! xmlenc`): vtdx encrypting and decrypting the SOAP Body in process (`vtdx-dsig`'s
//! `enc` module), and the crypto floor with the same library (`aws-lc`: aws-lc-rs, which
//! vtdx-dsig encrypts with).
//!
//! `xmlenc_peers xmlenc [--peers vtdx,aws-lc] [policy options] FILE...` measures; each FILE
//! is a corpus document (a SOAP 1.1 message). The driver has prepared, in
//! `$VTDX_BENCH_XMLENC_DIR`, `key.pem` / `cert.pem` (RSA-2048, made for this run) and for a
//! FILE with stem `S`: `S.wss.xml` (the Body's content encrypted once by `vtdx encrypt --wss`:
//! AES-256-GCM, the session key in an `xenc:EncryptedKey` (RSA-OAEP, `rsa-oaep-mgf1p`) at the
//! top of the `wsse:Security` header with a `ReferenceList`) and `S.inline.xml` (the same
//! job by `vtdx encrypt --body --content`: the `EncryptedKey` inside the `EncryptedData`'s
//! `KeyInfo`, the form `xmlsec1` reads and writes). Every output is written once, outside
//! the timed loop, to `out/PEER/S.CASE-FORM.xml` there for the driver's cross-check. One
//! JSON line per (peer, document, case, form):
//!
//! - `vtdx`: `encrypt` (bytes in → `Document::parse` → `Encryptor::encrypt_wss`, form `wss`,
//!   or `Encryptor::encrypt` of the Body's content, form `inline` → bytes out) and `decrypt`
//!   (bytes in → `Decryptor::decrypt_bytes` with the caller's private key → bytes out) of
//!   `S.wss.xml` (form `wss`) and `S.inline.xml` (form `inline`).
//! - `aws-lc`: `rsa-oaep-wrap` and `rsa-oaep-unwrap` (RSA-2048 OAEP, SHA-1 and MGF1-SHA-1,
//!   of a 32-byte session key, the key parsed once), `aes-gcm-seal` and `aes-gcm-open`
//!   (AES-256-GCM of the Body's content bytes, 96-bit IV, the key set up once). The report
//!   adds them up into the floor an encryptor or decryptor cannot go below.
//!
//! `xmlenc_peers xmlenc-cross FILE...` decrypts each FILE (another peer's encrypted output)
//! once with vtdx and writes the result to `cross/vtdx/PRODUCER.NAME` in the directory
//! (PRODUCER: the name of the FILE's directory, the peer that made it), one JSON
//! line per file (`status` ok or error).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};
use aws_lc_rs::rsa::{OaepPrivateDecryptingKey, OaepPublicEncryptingKey, PrivateDecryptingKey, OAEP_SHA1_MGF1SHA1};
use vtdx::Document;
use vtdx_bench::harness::{measure, Args, Line};
use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor, EncryptConfig, EncryptionKey, Encryptor, WssEncryptOptions};

const PEERS: &[&str] = &["vtdx", "aws-lc"];
const SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12: &str = "http://www.w3.org/2003/05/soap-envelope";

fn fail(m: impl std::fmt::Display) -> ! {
    eprintln!("xmlenc_peers: {m}");
    std::process::exit(2);
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", p.display())))
}

fn write(p: &Path, b: &[u8]) {
    if let Err(e) = p.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|_| std::fs::write(p, b)) {
        fail(format!("cannot write {}: {e}", p.display()));
    }
}

struct Vtdx {
    enc: Encryptor,
    dec: Decryptor,
}

fn main() {
    let args = Args::parse(std::env::args().skip(1)).unwrap_or_else(|e| fail(e));
    if std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_none() || std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        fail("MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ must be set (bench/run sets them)");
    }
    let dir = PathBuf::from(std::env::var("VTDX_BENCH_XMLENC_DIR").unwrap_or_else(|_| fail("VTDX_BENCH_XMLENC_DIR is not set")));
    let key_pem = read(&dir.join("key.pem"));
    let cert_pem = read(&dir.join("cert.pem"));
    let v = Vtdx {
        enc: Encryptor::new(
            EncryptionKey::rsa_from_pem_or_der(&cert_pem).unwrap_or_else(|e| fail(format!("cert.pem: {e}"))),
            EncryptConfig::default(),
        ),
        dec: Decryptor::new(
            vec![DecryptionKey::rsa_from_pem_or_der(&key_pem).unwrap_or_else(|e| fail(format!("key.pem: {e}")))],
            DecryptConfig::default(),
        ),
    };
    match args.workload.as_str() {
        "xmlenc" => {}
        "xmlenc-cross" => return cross(&args, &dir, &v),
        w => fail(format!("unknown workload {w} (this program runs xmlenc and xmlenc-cross)")),
    }
    for f in &args.files {
        let stem = Path::new(f).file_stem().and_then(|s| s.to_str()).unwrap_or_else(|| fail(format!("bad file name {f}")));
        let plain = read(Path::new(f));
        for &peer in PEERS.iter().filter(|p| args.wants(p)) {
            match peer {
                "vtdx" => {
                    for form in ["wss", "inline"] {
                        vtdx_encrypt(&args, f, &dir, stem, &v, &plain, form);
                    }
                    for form in ["wss", "inline"] {
                        let input = read(&dir.join(format!("{stem}.{form}.xml")));
                        vtdx_decrypt(&args, f, &dir, stem, &v, &input, form);
                    }
                }
                _ => floor(&args, f, &key_pem, &plain),
            }
        }
    }
}

fn encrypt_once(v: &Vtdx, x: &[u8], form: &str) -> Result<Vec<u8>, String> {
    let doc = Document::parse(x).map_err(|e| e.to_string())?;
    if form == "wss" {
        return v.enc.encrypt_wss(&doc, &WssEncryptOptions::default(), &[]).map_err(|e| e.to_string());
    }
    let body = soap_body(&doc).ok_or("not a SOAP Envelope with a Body")?;
    v.enc.encrypt(&doc, &[body], true).map_err(|e| e.to_string())
}

fn soap_body<'d>(doc: &'d Document<'d>) -> Option<vtdx::Node<'d>> {
    let env = doc.root_element();
    let ns = env.namespace_uri().filter(|n| *n == SOAP11 || *n == SOAP12)?;
    env.element_children().find(|c| c.local_name() == "Body" && c.namespace_uri() == Some(ns))
}

fn vtdx_encrypt(args: &Args, f: &str, dir: &Path, stem: &str, v: &Vtdx, x: &[u8], form: &str) {
    let out = match encrypt_once(v, x, form) {
        Ok(o) => o,
        Err(e) => return blank("vtdx", f, "encrypt", form, "error", &e),
    };
    let path = dir.join("out").join("vtdx").join(format!("{stem}.encrypt-{form}.xml"));
    write(&path, &out);
    let s = measure(&args.policy, || {
        black_box(encrypt_once(v, black_box(x), form).unwrap().len());
    });
    Line::new("vtdx", "xmlenc", f)
        .str("case", "encrypt")
        .str("form", form)
        .stats(&s, x.len() as u64)
        .num("msgs_per_s", 1e9 / s.median_ns)
        .int("out_bytes", out.len() as u64)
        .str("out_file", &path.to_string_lossy())
        .emit();
}

fn vtdx_decrypt(args: &Args, f: &str, dir: &Path, stem: &str, v: &Vtdx, x: &[u8], form: &str) {
    let out = match v.dec.decrypt_bytes(x) {
        Ok(o) => o,
        Err(e) => return blank("vtdx", f, "decrypt", form, "rejected", &e.to_string()),
    };
    let path = dir.join("out").join("vtdx").join(format!("{stem}.decrypt-{form}.xml"));
    write(&path, &out);
    let s = measure(&args.policy, || {
        black_box(v.dec.decrypt_bytes(black_box(x)).unwrap().len());
    });
    Line::new("vtdx", "xmlenc", f)
        .str("case", "decrypt")
        .str("form", form)
        .stats(&s, x.len() as u64)
        .num("msgs_per_s", 1e9 / s.median_ns)
        .int("out_bytes", out.len() as u64)
        .str("out_file", &path.to_string_lossy())
        .emit();
}

fn blank(peer: &str, f: &str, case: &str, form: &str, status: &str, reason: &str) {
    Line::new(peer, "xmlenc", f).str("case", case).str("form", form).str("status", status).str("reason", reason).emit();
}

/// The crypto floor: OAEP wrap and unwrap of a 32-byte key, AES-256-GCM of the Body's content.
fn floor(args: &Args, f: &str, key_pem: &[u8], plain: &[u8]) {
    let body = match Document::parse(plain).ok().and_then(|d| soap_body(&d).and_then(|b| b.content_range())) {
        Some(r) => plain[r].to_vec(),
        None => return blank("aws-lc", f, "aes-gcm-seal", "", "error", "not a SOAP Envelope with a Body"),
    };
    let der = pem::parse(key_pem).unwrap_or_else(|e| fail(format!("key.pem: {e}")));
    let private = PrivateDecryptingKey::from_pkcs8(der.contents()).unwrap_or_else(|e| fail(format!("key.pem is not PKCS#8 RSA: {e}")));
    let public = OaepPublicEncryptingKey::new(private.public_key()).unwrap_or_else(|e| fail(format!("OAEP public key: {e}")));
    let private = OaepPrivateDecryptingKey::new(private).unwrap_or_else(|e| fail(format!("OAEP private key: {e}")));
    let mut session = [0u8; 32];
    aws_lc_rs::rand::fill(&mut session).unwrap_or_else(|e| fail(e));
    let mut wrapped = vec![0u8; public.ciphertext_size()];
    let n = public.encrypt(&OAEP_SHA1_MGF1SHA1, &session, &mut wrapped, None).unwrap_or_else(|e| fail(e)).len();
    wrapped.truncate(n);
    let mut unwrapped = vec![0u8; private.min_output_size()];
    let got = private.decrypt(&OAEP_SHA1_MGF1SHA1, &wrapped, &mut unwrapped, None).unwrap_or_else(|e| fail(e));
    assert_eq!(got, &session[..], "OAEP round trip");
    let bits = private.key_size_bits() as u64;

    let s = measure(&args.policy, || {
        black_box(public.encrypt(&OAEP_SHA1_MGF1SHA1, black_box(&session), &mut wrapped, None).unwrap().len());
    });
    Line::new("aws-lc", "xmlenc", f).str("case", "rsa-oaep-wrap").stats(&s, 32).int("bits", bits).emit();
    let mut out = vec![0u8; private.min_output_size()];
    let s = measure(&args.policy, || {
        black_box(private.decrypt(&OAEP_SHA1_MGF1SHA1, black_box(&wrapped[..n]), &mut out, None).unwrap().len());
    });
    Line::new("aws-lc", "xmlenc", f).str("case", "rsa-oaep-unwrap").stats(&s, 32).int("bits", bits).emit();

    let key = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &session).unwrap_or_else(|e| fail(e)));
    let iv = [7u8; 12];
    // seal: in place, again and again over the same buffer (the cost does not depend on the bytes)
    let mut buf = body.clone();
    let s = measure(&args.policy, || {
        let tag = key.seal_in_place_separate_tag(Nonce::assume_unique_for_key(iv), Aad::empty(), black_box(&mut buf)).unwrap();
        black_box(tag.as_ref()[0]);
    });
    Line::new("aws-lc", "xmlenc", f).str("case", "aes-gcm-seal").stats(&s, body.len() as u64).emit();
    // open: the ciphertext kept, the plaintext into a buffer of its own
    let mut ct = body.clone();
    let tag = key.seal_in_place_separate_tag(Nonce::assume_unique_for_key(iv), Aad::empty(), &mut ct).unwrap_or_else(|e| fail(e));
    let mut pt = vec![0u8; ct.len()];
    key.open_separate_gather(Nonce::assume_unique_for_key(iv), Aad::empty(), &ct, tag.as_ref(), &mut pt).unwrap_or_else(|e| fail(e));
    assert_eq!(pt, body, "AES-GCM round trip");
    let s = measure(&args.policy, || {
        key.open_separate_gather(Nonce::assume_unique_for_key(iv), Aad::empty(), black_box(&ct), tag.as_ref(), &mut pt).unwrap();
        black_box(&pt);
    });
    Line::new("aws-lc", "xmlenc", f).str("case", "aes-gcm-open").stats(&s, body.len() as u64).emit();
}

/// Decrypts other peers' outputs once (outside any timed loop), for the driver's cross-check.
fn cross(args: &Args, dir: &Path, v: &Vtdx) {
    for f in &args.files {
        let p = Path::new(f);
        let name = format!(
            "{}.{}",
            p.parent().and_then(|d| d.file_name()).and_then(|s| s.to_str()).unwrap_or("in"),
            p.file_name().and_then(|s| s.to_str()).unwrap_or("x.xml")
        );
        let mut l = Line::new("vtdx", "xmlenc-cross", f);
        match v.dec.decrypt_bytes(&read(Path::new(f))) {
            Ok(out) => {
                let p = dir.join("cross").join("vtdx").join(&name);
                write(&p, &out);
                l.str("status", "ok").str("out_file", &p.to_string_lossy());
            }
            Err(e) => {
                l.str("status", "error").str("reason", &e.to_string());
            }
        }
        l.emit();
    }
}
