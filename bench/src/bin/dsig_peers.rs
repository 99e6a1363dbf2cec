//! The Rust program of the side-by-side harness's `dsig` workload (`bench/run --only dsig`):
//! vtdx signing and verifying SOAP messages with the WS-Security header in process
//! (`vtdx-dsig`), and the crypto floor with the same library (`aws-lc`: aws-lc-rs,
//! which vtdx-dsig signs and verifies with).
//!
//! `dsig_peers dsig [--peers vtdx,aws-lc] [policy options] FILE...`: each FILE is a
//! corpus document; the driver has prepared, in `$VTDX_BENCH_DSIG_DIR`, for a FILE with
//! stem `S`: `S.unsigned.xml` (the message to sign: no Timestamp, no Signature),
//! `S.signed.xml` (the same signed once by `vtdx sign --wss`, what every verifier
//! verifies), and `key.pem` / `cert.pem` (RSA-2048, PKCS#8 and X.509). Timestamps are
//! judged as of `$VTDX_BENCH_DSIG_AT` (RFC 3339: when `S.signed.xml` was made). Each
//! signer writes one output, made outside the timed loop, to `out/PEER/S.xml` there,
//! for the driver's cross-check. One JSON line per (peer, document, case):
//!
//! - `vtdx`: `sign` (bytes in → `Document::parse` → `Signer::sign_wss`: Timestamp,
//!   BinarySecurityToken, Signature over Body and Timestamp, RSA-SHA256, Exclusive C14N,
//!   SHA-256 → bytes out) and `verify` (bytes in → `Document::parse` →
//!   `Verifier::verify` with the caller's certificate, then `covers_payload` and
//!   `timestamp_signed` must hold).
//! - `aws-lc`: `rsa-sign` and `rsa-verify` (RSA-2048 PKCS#1 v1.5 SHA-256 of the signed
//!   message's `SignedInfo` bytes) and `sha256` (of the bytes the two References cover:
//!   the Body and Timestamp elements of the signed message). The report adds them up
//!   into the floor a signer or verifier cannot go below.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use aws_lc_rs::signature::KeyPair as _;
use aws_lc_rs::{digest, rand, signature as sig};
use vtdx::Document;
use vtdx_bench::harness::{emit_blank, measure, Args, Line};
use vtdx_dsig::{Certificate, SignConfig, Signer, SigningKey, Verifier, VerifyConfig, VerifyingKey, WssOptions};

const PEERS: &[&str] = &["vtdx", "aws-lc"];
const DSIG_NS: &str = "http://www.w3.org/2000/09/xmldsig#";

fn fail(m: impl std::fmt::Display) -> ! {
    eprintln!("dsig_peers: {m}");
    std::process::exit(2);
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", p.display())))
}

fn main() {
    let args = Args::parse(std::env::args().skip(1)).unwrap_or_else(|e| fail(e));
    if std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_none() || std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        fail("MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ must be set (bench/run sets them)");
    }
    if args.workload != "dsig" {
        fail(format!("unknown workload {} (this program runs dsig only)", args.workload));
    }
    let dir = PathBuf::from(std::env::var("VTDX_BENCH_DSIG_DIR").unwrap_or_else(|_| fail("VTDX_BENCH_DSIG_DIR is not set")));
    let at = std::env::var("VTDX_BENCH_DSIG_AT").unwrap_or_else(|_| fail("VTDX_BENCH_DSIG_AT is not set"));
    let at: SystemTime = vtdx_dsig::time::parse_rfc3339(&at).unwrap_or_else(|| fail(format!("VTDX_BENCH_DSIG_AT `{at}` is not RFC 3339")));
    let key_pem = read(&dir.join("key.pem"));
    let cert_pem = read(&dir.join("cert.pem"));
    let cert = Certificate::from_pem_or_der(&cert_pem).unwrap_or_else(|e| fail(format!("cert.pem: {e}")));
    let key = SigningKey::from_pem_or_der(&key_pem)
        .and_then(|k| k.with_certificate(cert.clone()))
        .unwrap_or_else(|e| fail(format!("key.pem: {e}")));
    let signer = Signer::new(key, SignConfig::default());
    // the caller's certificate; Timestamps judged as of when the verified messages were made
    let verifier = Verifier::new(VerifyConfig::builder().now(at).build(), vec![VerifyingKey::from_certificate(cert)]);
    // the floor's key: the same PKCS#8 key, straight into aws-lc-rs
    let der = pem::parse(&key_pem).unwrap_or_else(|e| fail(format!("key.pem: {e}")));
    let pair = sig::RsaKeyPair::from_pkcs8(der.contents()).unwrap_or_else(|e| fail(format!("key.pem is not a PKCS#8 RSA key: {e}")));

    for f in &args.files {
        let stem = Path::new(f).file_stem().and_then(|s| s.to_str()).unwrap_or_else(|| fail(format!("bad file name {f}")));
        let unsigned = read(&dir.join(format!("{stem}.unsigned.xml")));
        let signed = read(&dir.join(format!("{stem}.signed.xml")));
        for &peer in PEERS.iter().filter(|p| args.wants(p)) {
            match peer {
                "vtdx" => {
                    vtdx_sign(&args, f, &dir, stem, &signer, &unsigned);
                    vtdx_verify(&args, f, &verifier, &signed);
                }
                _ => floor(&args, f, &pair, &signed),
            }
        }
    }
}

fn sign_once(signer: &Signer, x: &[u8]) -> Result<Vec<u8>, String> {
    let doc = Document::parse(x).map_err(|e| e.to_string())?;
    signer.sign_wss(&doc, &WssOptions::default(), &[]).map_err(|e| e.to_string())
}

fn vtdx_sign(args: &Args, f: &str, dir: &Path, stem: &str, signer: &Signer, x: &[u8]) {
    let out = match sign_once(signer, x) {
        Ok(o) => o,
        Err(e) => return Line::new("vtdx", "dsig", f).str("case", "sign").str("status", "error").str("reason", &e).emit(),
    };
    let odir = dir.join("out").join("vtdx");
    let path = odir.join(format!("{stem}.xml"));
    if let Err(e) = std::fs::create_dir_all(&odir).and_then(|_| std::fs::write(&path, &out)) {
        fail(format!("cannot write {}: {e}", path.display()));
    }
    let s = measure(&args.policy, || {
        black_box(sign_once(signer, black_box(x)).unwrap().len());
    });
    Line::new("vtdx", "dsig", f)
        .str("case", "sign")
        .stats(&s, x.len() as u64)
        .num("msgs_per_s", 1e9 / s.median_ns)
        .int("out_bytes", out.len() as u64)
        .str("out_file", &path.to_string_lossy())
        .emit();
}

/// Verifies once: the number of verified References, or why not.
fn verify_once(verifier: &Verifier, x: &[u8]) -> Result<usize, String> {
    let doc = Document::parse(x).map_err(|e| e.to_string())?;
    let v = verifier.verify(&doc).map_err(|e| e.to_string())?;
    if !v.covers_payload() || !v.timestamp_signed() {
        return Err("verified, but the Body or the Timestamp is not covered".into());
    }
    Ok(v.references().count())
}

fn vtdx_verify(args: &Args, f: &str, verifier: &Verifier, x: &[u8]) {
    let refs = match verify_once(verifier, x) {
        Ok(n) => n,
        Err(e) => return emit_case_blank("vtdx", f, "verify", "rejected", &e),
    };
    let s = measure(&args.policy, || {
        black_box(verify_once(verifier, black_box(x)).unwrap());
    });
    Line::new("vtdx", "dsig", f)
        .str("case", "verify")
        .stats(&s, x.len() as u64)
        .num("msgs_per_s", 1e9 / s.median_ns)
        .int("references", refs as u64)
        .bool("verified", true)
        .emit();
}

fn emit_case_blank(peer: &str, f: &str, case: &str, status: &str, reason: &str) {
    Line::new(peer, "dsig", f).str("case", case).str("status", status).str("reason", reason).emit();
}

/// The signed message's `ds:SignedInfo` element, as bytes, and the bytes its References cover
/// (the elements their `#id` URIs name, start tag to end tag, one after the other).
fn parts(x: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let doc = Document::parse(x).map_err(|e| e.to_string())?;
    let els: Vec<_> = doc.root().descendant_elements().collect();
    let si = els
        .iter()
        .find(|e| e.local_name() == "SignedInfo" && e.namespace_uri() == Some(DSIG_NS))
        .ok_or("no ds:SignedInfo in the signed message")?;
    let mut covered = Vec::new();
    for r in si.element_children().filter(|e| e.local_name() == "Reference") {
        let uri = r.attribute("URI").ok_or("a Reference without URI")?;
        let id = uri.as_ref().strip_prefix('#').ok_or("a Reference that is not #id")?;
        let target = els
            .iter()
            .find(|e| e.attributes().any(|a| a.local_name() == "Id" && a.value() == id))
            .ok_or_else(|| format!("no element with Id {id}"))?;
        covered.extend_from_slice(target.raw());
    }
    Ok((si.raw().to_vec(), covered))
}

fn floor(args: &Args, f: &str, pair: &sig::RsaKeyPair, signed: &[u8]) {
    let (si, covered) = match parts(signed) {
        Ok(p) => p,
        Err(e) => return emit_blank("aws-lc", "dsig", f, "error", &e),
    };
    let rng = rand::SystemRandom::new();
    let mut value = vec![0u8; pair.public_modulus_len()];
    pair.sign(&sig::RSA_PKCS1_SHA256, &rng, &si, &mut value).unwrap_or_else(|e| fail(format!("RSA sign: {e}")));
    let public = sig::UnparsedPublicKey::new(&sig::RSA_PKCS1_2048_8192_SHA256, pair.public_key().as_ref().to_vec());
    public.verify(&si, &value).unwrap_or_else(|e| fail(format!("RSA verify of its own signature: {e}")));

    let s = measure(&args.policy, || {
        pair.sign(&sig::RSA_PKCS1_SHA256, &rng, black_box(&si), &mut value).unwrap();
        black_box(&value);
    });
    Line::new("aws-lc", "dsig", f)
        .str("case", "rsa-sign")
        .stats(&s, si.len() as u64)
        .int("bits", pair.public_modulus_len() as u64 * 8)
        .emit();
    let s = measure(&args.policy, || {
        black_box(public.verify(black_box(&si), &value).is_ok());
    });
    Line::new("aws-lc", "dsig", f)
        .str("case", "rsa-verify")
        .stats(&s, si.len() as u64)
        .int("bits", pair.public_modulus_len() as u64 * 8)
        .emit();
    let s = measure(&args.policy, || {
        black_box(digest::digest(&digest::SHA256, black_box(&covered)));
    });
    Line::new("aws-lc", "dsig", f).str("case", "sha256").stats(&s, covered.len() as u64).emit();
}
