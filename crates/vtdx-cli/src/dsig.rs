//! `vtdx verify` and `vtdx sign`: XML Signature and the WS-Security header.
//!
//! `vtdx verify (--cert CERT.pem | --hmac-key KEYFILE) [--json] [--allow-sha1]
//! [--max-clock-skew SECONDS] [--at TIME] [--require-timestamp] FILE...`
//! verifies every `ds:Signature` of each FILE with the caller's key (never a
//! key from the message) and requires the verified References to cover the
//! SOAP Body (a SOAP message) or the document element (anything else).
//! Exit 0 when every FILE passes, 1 when one is rejected (`FILE: message`),
//! 2 on a usage or I/O problem. `--json` prints, per FILE, the verified view:
//! `[{"reference": URI, "node": XPath, "digest": URI, "transforms": [URI...],
//! "timestamp_signed": bool}]`.
//!
//! `vtdx sign --key KEY.pem [--cert CERT.pem] [--alg ALG] [--hmac-key KEYFILE]
//! [--wss] [--sign XPATH]... [--ttl SECONDS] [-o OUT] FILE` signs FILE: an
//! enveloped signature of the whole document by default, detached References
//! to the `--sign` elements, or with `--wss` the WS-Security header (Timestamp,
//! BinarySecurityToken, Signature over Body, Timestamp and the `--sign`
//! elements). Every byte outside the inserted markup stays as it was.
//! Exit 0 on success, 1 when the document is not well-formed or cannot be
//! signed (`--wss` on a document that is not SOAP), 2 on a usage or I/O
//! problem (a key that cannot be read, a bad XPath).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use vtdx::{Node, NodeKind};
use vtdx_dsig::{
    select_elements, time::parse_rfc3339, Certificate, Crl, DigestAlgorithm, ErrorKind, SignConfig, SignatureAlgorithm, Signer, SigningKey,
    TrustStore, Verified, Verifier, VerifyConfig, VerifyingKey, WssOptions,
};

/// Arguments of `vtdx verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// The signer's certificate or public key (PEM or DER); repeat for several.
    #[arg(long, value_name = "CERT.pem", required_unless_present_any = ["hmac_key", "trusted"])]
    cert: Vec<PathBuf>,
    /// A CA certificate to trust (PEM or DER); repeat for several. A
    /// certificate in the message is then accepted once its chain to one of
    /// them validates (validity at --at or now, CA constraints, key usage, --crl).
    #[arg(long, value_name = "CA.pem", conflicts_with = "hmac_key")]
    trusted: Vec<PathBuf>,
    /// A CRL (PEM or DER) of a CA in the chain; repeat for several. Needs --trusted.
    #[arg(long, value_name = "CRL.pem", requires = "trusted")]
    crl: Vec<PathBuf>,
    /// A file holding the HMAC secret (its bytes as they are).
    #[arg(long, value_name = "KEYFILE", conflicts_with = "cert")]
    hmac_key: Option<PathBuf>,
    /// Print the verified view as JSON, one array per file.
    #[arg(long)]
    json: bool,
    /// Accept SHA-1 digests and signature methods (old messages only).
    #[arg(long)]
    allow_sha1: bool,
    /// The clock skew allowed when judging a Timestamp.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    max_clock_skew: u64,
    /// Judge Timestamp freshness as of this RFC 3339 instant (archived messages).
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    /// The Security header must carry a Timestamp that a verified Reference covers.
    #[arg(long)]
    require_timestamp: bool,
    /// The signed documents; `-` reads standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    opts: crate::ParseFlags,
}

/// The signature algorithms of `--alg`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Alg {
    RsaSha256,
    RsaSha384,
    RsaSha512,
    RsaPssSha256,
    RsaPssSha384,
    RsaPssSha512,
    EcdsaSha256,
    EcdsaSha384,
    EcdsaSha512,
    Ed25519,
    HmacSha256,
    HmacSha384,
    HmacSha512,
}

impl Alg {
    fn algorithm(self) -> SignatureAlgorithm {
        use DigestAlgorithm::*;
        use SignatureAlgorithm::*;
        match self {
            Alg::RsaSha256 => RsaPkcs1(Sha256),
            Alg::RsaSha384 => RsaPkcs1(Sha384),
            Alg::RsaSha512 => RsaPkcs1(Sha512),
            Alg::RsaPssSha256 => RsaPss(Sha256),
            Alg::RsaPssSha384 => RsaPss(Sha384),
            Alg::RsaPssSha512 => RsaPss(Sha512),
            Alg::EcdsaSha256 => Ecdsa(Sha256),
            Alg::EcdsaSha384 => Ecdsa(Sha384),
            Alg::EcdsaSha512 => Ecdsa(Sha512),
            Alg::Ed25519 => Ed25519,
            Alg::HmacSha256 => Hmac(Sha256),
            Alg::HmacSha384 => Hmac(Sha384),
            Alg::HmacSha512 => Hmac(Sha512),
        }
    }
}

/// Arguments of `vtdx sign`.
#[derive(Args)]
pub struct SignArgs {
    /// The private key: PEM or DER, PKCS#8, PKCS#1 or SEC 1, unencrypted.
    #[arg(long, value_name = "KEY.pem", required_unless_present = "hmac_key")]
    key: Option<PathBuf>,
    /// The key's certificate (sent as X509Data, or as the BinarySecurityToken with --wss).
    #[arg(long, value_name = "CERT.pem")]
    cert: Option<PathBuf>,
    /// The signature algorithm [default: rsa-sha256, ecdsa-sha256/384/512 by curve, ed25519, hmac-sha256].
    #[arg(long, value_enum, value_name = "ALG")]
    alg: Option<Alg>,
    /// A file holding an HMAC secret to sign with instead of --key.
    #[arg(long, value_name = "KEYFILE", conflicts_with_all = ["key", "cert"])]
    hmac_key: Option<PathBuf>,
    /// Add the WS-Security 1.1 header to a SOAP 1.1 or 1.2 message.
    #[arg(long)]
    wss: bool,
    /// Sign the elements this XPath selects (repeatable): detached References, or extra parts with --wss.
    #[arg(long = "sign", value_name = "XPATH")]
    sign: Vec<String>,
    /// With --wss: the Timestamp's time to live.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, requires = "wss")]
    ttl: u64,
    /// Write the signed document to OUT instead of standard output.
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
    /// The document; `-` reads standard input.
    file: PathBuf,
    #[command(flatten)]
    opts: crate::ParseFlags,
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {what} {}: {e}", path.display()))
}

fn usage(cmd: &str, msg: &str) -> io::Result<ExitCode> {
    eprintln!("vtdx {cmd}: {msg}");
    Ok(ExitCode::from(2))
}

/// The caller's keys for `verify`.
fn verifying_keys(a: &VerifyArgs) -> Result<Vec<VerifyingKey>, String> {
    if let Some(k) = &a.hmac_key {
        return Ok(vec![VerifyingKey::hmac(&read(k, "HMAC key")?).map_err(|e| format!("{}: {e}", k.display()))?]);
    }
    a.cert.iter().map(|c| VerifyingKey::from_pem_or_der(&read(c, "certificate")?).map_err(|e| format!("{}: {e}", c.display()))).collect()
}

/// The trust store of `--trusted` and `--crl` (validation time: `--at`, else now).
fn trust_store(a: &VerifyArgs) -> Result<TrustStore, String> {
    let anchors = a
        .trusted
        .iter()
        .map(|c| Certificate::from_pem_or_der(&read(c, "certificate")?).map_err(|e| format!("{}: {e}", c.display())))
        .collect::<Result<Vec<_>, String>>()?;
    let crls = a
        .crl
        .iter()
        .map(|c| Crl::from_pem_or_der(&read(c, "CRL")?).map_err(|e| format!("{}: {e}", c.display())))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(TrustStore::new(anchors).crls(crls))
}

/// A location path for `n`: qualified names as written, with a position when
/// siblings share the name; `/` for the root.
fn xpath_of(n: Node<'_>) -> String {
    if n.kind() == NodeKind::Root {
        return "/".into();
    }
    let mut steps = Vec::new();
    let mut cur = Some(n);
    while let Some(e) = cur.filter(|e| e.is_element()) {
        let name = e.name();
        let same = |s: &Node<'_>| s.is_element() && s.name() == name;
        let parent = e.parent();
        let siblings: Vec<Node<'_>> = parent.map(|p| p.children().filter(same).collect()).unwrap_or_default();
        if siblings.len() > 1 {
            let pos = siblings.iter().position(|s| *s == e).unwrap_or(0) + 1;
            steps.push(format!("{name}[{pos}]"));
        } else {
            steps.push(name.to_string());
        }
        cur = parent;
    }
    steps.reverse();
    format!("/{}", steps.join("/"))
}

fn json_view(v: &Verified<'_>) -> String {
    let mut s = String::from("[");
    let ts = v.timestamp_signed();
    for (i, r) in v.references().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str("{\"reference\": ");
        crate::query::json_string(&mut s, r.uri().unwrap_or(""));
        s.push_str(", \"node\": ");
        crate::query::json_string(&mut s, &xpath_of(r.node()));
        s.push_str(", \"digest\": ");
        crate::query::json_string(&mut s, r.digest().uri());
        s.push_str(", \"transforms\": [");
        for (j, t) in r.transforms().iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            crate::query::json_string(&mut s, t);
        }
        s.push_str(&format!("], \"timestamp_signed\": {ts}}}"));
    }
    s.push(']');
    s
}

/// Runs `vtdx verify`.
pub fn run_verify(a: VerifyArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let keys = match verifying_keys(&a) {
        Ok(k) => k,
        Err(m) => return usage("verify", &m),
    };
    let mut cfg = VerifyConfig::builder()
        .allow_sha1(a.allow_sha1)
        .max_clock_skew(Duration::from_secs(a.max_clock_skew))
        .require_timestamp(a.require_timestamp);
    if let Some(at) = &a.at {
        match parse_rfc3339(at) {
            Some(t) => cfg = cfg.now(t),
            None => return usage("verify", &format!("--at `{at}` is not an RFC 3339 date-time with a time zone")),
        }
    }
    let mut verifier = Verifier::new(cfg.build(), keys);
    if !a.trusted.is_empty() {
        match trust_store(&a) {
            Ok(t) => verifier = verifier.with_trust_store(t),
            Err(m) => return usage("verify", &m),
        }
    }
    let mut parser = a.opts.parser();
    let (mut rejected, mut io_failed) = (false, false);
    for f in &a.files {
        let name = crate::display(f);
        let doc = match crate::parse_input(&mut parser, f) {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => {
                crate::report(&name, "", &e);
                rejected = true;
                continue;
            }
            Err(e) => {
                eprintln!("{name}: cannot read: {e}");
                io_failed = true;
                continue;
            }
        };
        match verifier.verify(&doc) {
            Ok(v) if !v.covers_payload() => {
                let what = if v.soap().is_some() { "the SOAP Body" } else { "the document element" };
                eprintln!("{name}: the signatures verify, but no verified reference covers {what}");
                rejected = true;
            }
            Ok(v) => {
                if a.json {
                    writeln!(out, "{}", json_view(&v))?;
                }
            }
            Err(e) => {
                eprintln!("{name}: {}", e.display_with(doc.text()));
                rejected = true;
            }
        }
    }
    out.flush()?;
    Ok(if io_failed {
        ExitCode::from(2)
    } else if rejected {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn signing_key(a: &SignArgs) -> Result<SigningKey, String> {
    if let Some(k) = &a.hmac_key {
        return SigningKey::hmac(&read(k, "HMAC key")?).map_err(|e| format!("{}: {e}", k.display()));
    }
    let path = a.key.as_ref().ok_or("--key or --hmac-key is required")?;
    let key = SigningKey::from_pem_or_der(&read(path, "key")?).map_err(|e| format!("{}: {e}", path.display()))?;
    match &a.cert {
        Some(c) => {
            let cert = Certificate::from_pem_or_der(&read(c, "certificate")?).map_err(|e| format!("{}: {e}", c.display()))?;
            key.with_certificate(cert).map_err(|e| format!("{}: {e}", c.display()))
        }
        None => Ok(key),
    }
}

/// Runs `vtdx sign`.
pub fn run_sign(a: SignArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let key = match signing_key(&a) {
        Ok(k) => k,
        Err(m) => return usage("sign", &m),
    };
    let mut cfg = SignConfig::default();
    if let Some(alg) = a.alg {
        cfg = cfg.method(alg.algorithm());
    }
    let name = crate::display(&a.file);
    let doc = match crate::load_one(&mut a.opts.parser(), &a.file) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    let mut targets = Vec::new();
    for x in &a.sign {
        match select_elements(&doc, x) {
            Ok(t) => targets.extend(t),
            Err(e) => return usage("sign", &format!("--sign: {e}")),
        }
    }
    let signer = Signer::new(key, cfg);
    let r = if a.wss {
        let opts = WssOptions { ttl: Some(Duration::from_secs(a.ttl)), ..WssOptions::default() };
        signer.sign_wss(&doc, &opts, &targets)
    } else if targets.is_empty() {
        signer.sign_enveloped(&doc)
    } else {
        signer.sign_detached(&doc, &targets)
    };
    let signed = match r {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{name}: {}", e.display_with(doc.text()));
            let usage_error = matches!(
                e.kind(),
                ErrorKind::SigningKeyMismatch { .. } | ErrorKind::WeakKey { .. } | ErrorKind::DisallowedAlgorithm { .. }
            );
            return Ok(ExitCode::from(if usage_error { 2 } else { 1 }));
        }
    };
    match &a.output {
        Some(p) => {
            // a new file renamed over the old one: an input mapped in memory is never rewritten in place
            let tmp = p.with_file_name(format!(".{}.vtdx-sign.tmp", p.file_name().and_then(|n| n.to_str()).unwrap_or("out")));
            if let Err(e) = std::fs::write(&tmp, &signed).and_then(|_| std::fs::rename(&tmp, p)) {
                let _ = std::fs::remove_file(&tmp);
                eprintln!("vtdx sign: cannot write {}: {e}", p.display());
                return Ok(ExitCode::from(2));
            }
        }
        None => {
            out.write_all(&signed)?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
