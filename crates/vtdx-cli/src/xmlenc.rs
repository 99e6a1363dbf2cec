//! `vtdx encrypt` and `vtdx decrypt`: XML Encryption 1.1 and WS-Security encryption.
//!
//! `vtdx encrypt (--cert CERT.pem | --key-file AESKEY) [--alg aes128-gcm|aes256-gcm]
//! [--xpath EXPR | --body] [--content] [--wss] FILE` replaces the chosen
//! elements (the document element by default; `--xpath`: every element the
//! expression selects; `--body`: the SOAP Body's content), or with
//! `--content` their content, by `xenc:EncryptedData` (AES-GCM, AES-256 by
//! default) and writes the document to standard output. The session key goes
//! to the certificate's RSA key with RSA-OAEP (`--cert`), or is wrapped with
//! AES-KW under the key of `--key-file` (16, 24 or 32 bytes, raw or in hex).
//! `--wss` encrypts a SOAP 1.1 or 1.2 message for WS-Security: the Body's
//! content and the `--xpath` elements (header blocks) under one session key,
//! with the `xenc:EncryptedKey` and its `ReferenceList` in the `wsse:Security`
//! header. Every byte outside the encrypted parts stays as it was. Exit 0 on
//! success, 1 when the document is not well-formed or cannot be encrypted as
//! asked (`--wss` or `--body` on a document that is not SOAP), 2 on a usage or
//! I/O problem (a key that cannot be read, a bad XPath).
//!
//! `vtdx decrypt (--key KEY.pem | --key-file AESKEY) [--allow-legacy] FILE`
//! decrypts every `xenc:EncryptedData` with the caller's key (an RSA private
//! key for transported session keys, an AES key for wrapped or direct ones)
//! and writes the document to standard output, every byte outside the
//! decrypted parts as it was. Exit 0 on success; 1 with `FILE: decryption
//! failed` for every cryptographic failure (wrong key, bad tag or padding, an
//! algorithm refused or not offered), or with the reason when the document
//! is not well-formed, holds nothing encrypted or has a malformed structure;
//! 2 on a usage or I/O problem. AES-CBC and `rsa-1_5` are refused (with the
//! same uniform message) unless `--allow-legacy`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use vtdx_dsig::enc::{
    read_aes_key_file, BlockAlgorithm, DecryptConfig, DecryptionKey, Decryptor, EncErrorKind, EncryptConfig, EncryptionKey, Encryptor,
    WssEncryptOptions,
};
use vtdx_dsig::{select_elements, SoapMessage};

/// The block algorithms of `--alg`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Alg {
    Aes128Gcm,
    Aes256Gcm,
}

/// Arguments of `vtdx encrypt`.
#[derive(Args)]
pub struct EncryptArgs {
    /// The recipient's certificate or RSA public key (PEM or DER): the session key goes with RSA-OAEP.
    #[arg(long, value_name = "CERT.pem", required_unless_present = "key_file", conflicts_with = "key_file")]
    cert: Option<PathBuf>,
    /// An AES key (16, 24 or 32 bytes, raw or hex): the session key is wrapped with AES-KW.
    #[arg(long, value_name = "AESKEY")]
    key_file: Option<PathBuf>,
    /// The data encryption algorithm [default: aes256-gcm].
    #[arg(long, value_enum, value_name = "ALG")]
    alg: Option<Alg>,
    /// Encrypt the elements this XPath 1.0 expression selects (with --wss: header blocks, besides the Body).
    #[arg(long, value_name = "EXPR", conflicts_with = "body")]
    xpath: Option<String>,
    /// Encrypt the content of the SOAP Body.
    #[arg(long)]
    body: bool,
    /// Encrypt the content of the chosen elements rather than the elements.
    #[arg(long)]
    content: bool,
    /// WS-Security: the Body's content (and --xpath header blocks) with an EncryptedKey in the Security header.
    #[arg(long)]
    wss: bool,
    /// The document; `-` reads standard input.
    file: PathBuf,
    #[command(flatten)]
    opts: crate::ParseFlags,
}

/// Arguments of `vtdx decrypt`.
#[derive(Args)]
pub struct DecryptArgs {
    /// The private key (PEM or DER, unencrypted): RSA (PKCS#8 or PKCS#1) for key transport, or EC
    /// (P-256/384/521; PKCS#8 or SEC 1) or X25519 (PKCS#8) for ECDH-ES key agreement.
    #[arg(long, value_name = "KEY.pem", required_unless_present = "key_file", conflicts_with = "key_file")]
    key: Option<PathBuf>,
    /// An AES key (16, 24 or 32 bytes, raw or hex): a key-encryption key or the data key.
    #[arg(long, value_name = "AESKEY")]
    key_file: Option<PathBuf>,
    /// Accept AES-CBC and RSA PKCS#1 v1.5 key transport (legacy messages; padding oracles). Without it a message using them fails with the uniform message, as one using an algorithm never offered (Triple DES) always does.
    #[arg(long)]
    allow_legacy: bool,
    /// The encrypted document; `-` reads standard input.
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

fn encryption_key(a: &EncryptArgs) -> Result<EncryptionKey, String> {
    if let Some(k) = &a.key_file {
        let raw = read_aes_key_file(&read(k, "AES key")?).map_err(|e| format!("{}: {e}", k.display()))?;
        return EncryptionKey::aes_key_wrap(&raw).map_err(|e| format!("{}: {e}", k.display()));
    }
    let c = a.cert.as_ref().ok_or("--cert or --key-file is required")?;
    EncryptionKey::rsa_from_pem_or_der(&read(c, "certificate")?).map_err(|e| format!("{}: {e}", c.display()))
}

fn decryption_key(a: &DecryptArgs) -> Result<DecryptionKey, String> {
    if let Some(k) = &a.key_file {
        let raw = read_aes_key_file(&read(k, "AES key")?).map_err(|e| format!("{}: {e}", k.display()))?;
        return DecryptionKey::aes(&raw).map_err(|e| format!("{}: {e}", k.display()));
    }
    let k = a.key.as_ref().ok_or("--key or --key-file is required")?;
    DecryptionKey::private_from_pem_or_der(&read(k, "private key")?).map_err(|e| format!("{}: {e}", k.display()))
}

/// Writes the result to standard output.
fn emit(out: &mut dyn Write, bytes: &[u8]) -> io::Result<ExitCode> {
    out.write_all(bytes)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `vtdx encrypt`.
pub fn run_encrypt(a: EncryptArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let key = match encryption_key(&a) {
        Ok(k) => k,
        Err(m) => return usage("encrypt", &m),
    };
    let alg = match a.alg {
        Some(Alg::Aes128Gcm) => BlockAlgorithm::AES128_GCM,
        _ => BlockAlgorithm::AES256_GCM,
    };
    let name = crate::display(&a.file);
    let doc = match crate::load_one(&mut a.opts.parser(), &a.file) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    let mut targets = Vec::new();
    if let Some(x) = &a.xpath {
        match select_elements(&doc, x) {
            Ok(t) => targets = t,
            // the selector is the signing one's: its "cannot sign" prefix does not apply here
            Err(e) => match e.kind() {
                vtdx_dsig::ErrorKind::Sign(m) => return usage("encrypt", &format!("--xpath: cannot encrypt: {m}")),
                _ => return usage("encrypt", &format!("--xpath: {e}")),
            },
        }
    }
    let enc = Encryptor::new(key, EncryptConfig::default().algorithm(alg));
    let r = if a.wss {
        enc.encrypt_wss(&doc, &WssEncryptOptions::default(), &targets)
    } else if a.body {
        match SoapMessage::parse(&doc) {
            Ok(Some(m)) => enc.encrypt(&doc, &[m.body], true),
            Ok(None) => Err(EncErrorKind::NotSoap.into()),
            Err(e) => Err(EncErrorKind::Malformed(format!("SOAP message: {e}")).into()),
        }
    } else if a.xpath.is_some() {
        enc.encrypt(&doc, &targets, a.content)
    } else {
        enc.encrypt(&doc, &[doc.root_element()], a.content)
    };
    match r {
        Ok(bytes) => emit(out, &bytes),
        Err(e) => {
            eprintln!("{name}: {}", e.display_with(doc.text()));
            Ok(ExitCode::from(1))
        }
    }
}

/// `vtdx decrypt`.
pub fn run_decrypt(a: DecryptArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let key = match decryption_key(&a) {
        Ok(k) => k,
        Err(m) => return usage("decrypt", &m),
    };
    let name = crate::display(&a.file);
    let doc = match crate::load_one(&mut a.opts.parser(), &a.file) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    let dec = Decryptor::new(vec![key], DecryptConfig::default().allow_legacy(a.allow_legacy));
    match dec.decrypt(&doc) {
        Ok(bytes) => emit(out, &bytes),
        Err(e) => {
            eprintln!("{name}: {}", e.display_with(doc.text()));
            Ok(ExitCode::from(1))
        }
    }
}
