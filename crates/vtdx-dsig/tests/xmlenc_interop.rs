//! XML Encryption interop with xmlsec1 (Debian's package, installed by
//! `scripts/test.sh`), both ways, for every algorithm both offer: vtdx
//! encrypts and `xmlsec1 --decrypt` gives the original back; `xmlsec1
//! --encrypt` fills a template and vtdx decrypts. Results are compared with
//! the original by canonical form (C14N 1.0 with comments): xmlsec1 writes
//! through libxml2's serializer, which writes character references its own way.
//!
//! Algorithms: AES-128/192/256-GCM data; RSA-OAEP (`rsa-oaep-mgf1p` with
//! SHA-1; xmlsec1 1.2 does not know XML Encryption 1.1's `rsa-oaep`, which
//! tests/xmlenc.rs checks against vtdx itself), AES-KW 128/192/256 and a
//! direct key by `KeyName`; and, xmlsec1 → vtdx only
//! (vtdx decrypts them only by opt-in and never makes them), AES-CBC and
//! `rsa-1_5`. When xmlsec1 is missing the tests print why and pass, unless
//! `VTDX_REQUIRE_XMLSEC1=1` (set by scripts/test.sh): then they fail.

use std::path::PathBuf;
use std::process::Command;

use vtdx_core::Document;
use vtdx_dsig::enc::{BlockAlgorithm, DecryptConfig, DecryptionKey, Decryptor, EncryptConfig, EncryptionKey, Encryptor, RsaTransport};
use vtdx_dsig::select_elements;

use crate::sign::keys_dir;
use crate::xmlenc::rsa_pair;

fn xmlsec1() -> Option<&'static str> {
    if Command::new("xmlsec1").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some("xmlsec1");
    }
    if std::env::var_os("VTDX_REQUIRE_XMLSEC1").is_some_and(|v| v == "1") {
        panic!("xmlsec1 is required (VTDX_REQUIRE_XMLSEC1=1) but is not installed: scripts/test.sh installs Debian's package `xmlsec1`");
    }
    eprintln!("SKIPPED: xmlsec1 is not installed (apt-get install xmlsec1; scripts/test.sh does it)");
    None
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("vtdx-xmlenc-interop-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn write(&self, name: &str, data: &[u8]) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, data).unwrap();
        p.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn c14n(b: &[u8]) -> Vec<u8> {
    let d = Document::parse(b).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(b)));
    vtdx_c14n::Canonicalizer::new(vtdx_c14n::Algorithm::C14n10).with_comments(true).document_to_vec(&d).unwrap()
}

const DOC: &str = "<?xml version=\"1.0\"?>\n<order xmlns=\"urn:order\" xmlns:p=\"urn:p\" xml:lang=\"fr\">\n  <p:card p:type=\"visa\">4111 caf\u{e9} &amp; co<!-- c --></p:card>\n  <item n=\"1\">a</item>\n</order>\n";
const KEK: [u8; 32] = [0x5c; 32];

/// The key options of a recipient: (vtdx encryption key, xmlsec1 decryption arguments, name).
fn recipients(s: &Scratch) -> Vec<(&'static str, EncryptionKey, RsaTransport, Vec<String>)> {
    let k = keys_dir();
    let rsa = vec!["--privkey-pem".to_string(), k.join("rsa/rsa-2048-key.pem").to_string_lossy().into_owned()];
    let mut out = vec![("rsa-oaep-mgf1p", rsa_pair(2048).0, RsaTransport::OaepMgf1pSha1, rsa)];
    for n in [16, 24, 32] {
        let f = s.write(&format!("kek{n}.bin"), &KEK[..n]);
        let name: &'static str = match n {
            16 => "kw-aes128",
            24 => "kw-aes192",
            _ => "kw-aes256",
        };
        out.push((name, EncryptionKey::aes_key_wrap(&KEK[..n]).unwrap(), RsaTransport::default(), vec!["--aeskey".into(), f]));
    }
    out
}

#[test]
fn vtdx_encrypts_xmlsec1_decrypts() {
    let Some(xmlsec) = xmlsec1() else { return };
    let s = Scratch::new("v2x");
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let want = c14n(DOC.as_bytes());
    let mut failures = Vec::new();
    let mut cases = 0;
    for alg in [BlockAlgorithm::AesGcm(16), BlockAlgorithm::AesGcm(24), BlockAlgorithm::AesGcm(32)] {
        let mut keys = recipients(&s);
        let direct = s.write(&format!("direct{}.bin", alg.key_len()), &KEK[..alg.key_len()]);
        keys.push((
            "direct-keyname",
            EncryptionKey::aes_direct(&KEK[..alg.key_len()]).unwrap().with_name("shared"),
            RsaTransport::default(),
            vec!["--aeskey:shared".into(), direct],
        ));
        for (kname, key, transport, args) in keys {
            for (xpath, content) in [("//p:card", false), ("//p:card", true), ("/*", true), ("/*", false)] {
                let e = Encryptor::new(key.clone(), EncryptConfig::default().algorithm(alg).rsa_transport(transport));
                let out = e.encrypt(&doc, &select_elements(&doc, xpath).unwrap(), content).unwrap();
                let f = s.write("enc.xml", &out);
                let o = Command::new(xmlsec).arg("--decrypt").args(&args).arg(&f).output().unwrap();
                cases += 1;
                let label = format!("{} {kname} {xpath} content={content}", alg.name());
                if !o.status.success() {
                    failures.push(format!("{label}: xmlsec1 refused: {}", String::from_utf8_lossy(&o.stderr)));
                } else if c14n(&o.stdout) != want {
                    failures.push(format!("{label}: xmlsec1 decrypted to {}", String::from_utf8_lossy(&o.stdout)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} failed:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(cases, 3 * 5 * 4);
}

/// Parts of 64 KiB and more, whose CipherValues vtdx writes straight into its
/// output: an element, its content, the document element's content, with more
/// data after the part and none, to RSA-OAEP and to a direct key; xmlsec1
/// decrypts each to the original. (`xmlsec1 --decrypt` decrypts one
/// `EncryptedData`: several parts in one document are tests/xmlenc.rs's.)
#[test]
fn vtdx_encrypts_large_parts_xmlsec1_decrypts() {
    let Some(xmlsec) = xmlsec1() else { return };
    let s = Scratch::new("v2x-large");
    let rows: String = (0..2500).map(|i| format!("<p:row n=\"{i}\">caf\u{e9} &amp; {i}<!-- r --></p:row>\n")).collect();
    let big = format!("<?xml version=\"1.0\"?>\n<order xmlns=\"urn:order\" xmlns:p=\"urn:p\"><p:card>{rows}</p:card><item>{rows}</item><note>x</note></order>\n");
    let doc = Document::parse(big.as_bytes()).unwrap();
    let want = c14n(big.as_bytes());
    let direct = s.write("direct.bin", &KEK);
    let keys = [
        (rsa_pair(2048).0, vec!["--privkey-pem".to_string(), keys_dir().join("rsa/rsa-2048-key.pem").to_string_lossy().into_owned()]),
        (EncryptionKey::aes_direct(&KEK).unwrap().with_name("shared"), vec!["--aeskey:shared".into(), direct]),
    ];
    let mut failures = Vec::new();
    for (key, args) in &keys {
        for (xpath, content) in [("//p:card", false), ("//p:card", true), ("//*[local-name()='item']", true), ("/*", true)] {
            let out = Encryptor::new(key.clone(), EncryptConfig::default())
                .encrypt(&doc, &select_elements(&doc, xpath).unwrap(), content)
                .unwrap();
            let f = s.write("enc.xml", &out);
            let o = Command::new(xmlsec).arg("--decrypt").args(args).arg(&f).output().unwrap();
            if !o.status.success() {
                failures.push(format!("{xpath} content={content}: xmlsec1 refused: {}", String::from_utf8_lossy(&o.stderr)));
            } else if c14n(&o.stdout) != want {
                failures.push(format!("{xpath} content={content}: xmlsec1 decrypted to another document"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn template(data_uri: &str, ty: &str, key_info: &str) -> String {
    format!(
        r#"<EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#{ty}"><EncryptionMethod Algorithm="{data_uri}"/><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#">{key_info}</KeyInfo><CipherData><CipherValue/></CipherData></EncryptedData>"#
    )
}

fn encrypted_key(method: &str) -> String {
    format!(r#"<EncryptedKey xmlns="http://www.w3.org/2001/04/xmlenc#">{method}<CipherData><CipherValue/></CipherData></EncryptedKey>"#)
}

#[test]
fn xmlsec1_encrypts_vtdx_decrypts() {
    let Some(xmlsec) = xmlsec1() else { return };
    let s = Scratch::new("x2v");
    let k = keys_dir();
    let cert = k.join("rsa/rsa-2048-cert.pem").to_string_lossy().into_owned();
    let data = s.write("doc.xml", DOC.as_bytes());
    let want = c14n(DOC.as_bytes());
    let mut failures = Vec::new();
    let mut cases = 0;
    let data_algs = [
        ("aes128-gcm", "http://www.w3.org/2009/xmlenc11#aes128-gcm", 128, false),
        ("aes192-gcm", "http://www.w3.org/2009/xmlenc11#aes192-gcm", 192, false),
        ("aes256-gcm", "http://www.w3.org/2009/xmlenc11#aes256-gcm", 256, false),
        ("aes128-cbc", "http://www.w3.org/2001/04/xmlenc#aes128-cbc", 128, true),
        ("aes256-cbc", "http://www.w3.org/2001/04/xmlenc#aes256-cbc", 256, true),
    ];
    for (dname, duri, bits, legacy_data) in data_algs {
        let session = vec!["--session-key".to_string(), format!("aes-{bits}")];
        let rsa_args = [vec!["--pubkey-cert-pem".to_string(), cert.clone()], session.clone()].concat();
        let mut recipients: Vec<(&str, String, Vec<String>, DecryptionKey, bool)> = vec![
            (
                "rsa-oaep-mgf1p",
                encrypted_key(r#"<EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"/>"#),
                rsa_args.clone(),
                rsa_pair(2048).1,
                false,
            ),
            (
                "rsa-1_5",
                encrypted_key(r#"<EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-1_5"/>"#),
                rsa_args.clone(),
                rsa_pair(2048).1,
                true,
            ),
        ];
        for n in [128, 192, 256] {
            let f = s.write(&format!("kek{n}.bin"), &KEK[..n / 8]);
            recipients.push((
                "kw",
                encrypted_key(&format!(r#"<EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#kw-aes{n}"/>"#)),
                [vec!["--aeskey".to_string(), f], session.clone()].concat(),
                DecryptionKey::aes(&KEK[..n / 8]).unwrap(),
                false,
            ));
        }
        let direct = s.write("direct.bin", &KEK[..bits / 8]);
        recipients.push((
            "direct-keyname",
            "<KeyName>shared</KeyName>".to_string(),
            vec!["--aeskey:shared".into(), direct],
            DecryptionKey::aes(&KEK[..bits / 8]).unwrap().with_name("shared"),
            false,
        ));
        for (kname, key_info, args, key, legacy_key) in recipients {
            let legacy = legacy_data || legacy_key;
            let strict = Decryptor::new(vec![key], DecryptConfig::default().allow_legacy(legacy));
            for (ty, xpath) in [("Element", "//*[local-name()='card']"), ("Content", "//*[local-name()='card']"), ("Content", "/*")] {
                let t = s.write("tmpl.xml", template(duri, ty, &key_info).as_bytes());
                let o = Command::new(xmlsec)
                    .arg("--encrypt")
                    .args(&args)
                    .args(["--xml-data", &data, "--node-xpath", xpath])
                    .arg(&t)
                    .output()
                    .unwrap();
                let label = format!("{dname} {kname} {ty} {xpath}");
                cases += 1;
                if !o.status.success() {
                    failures.push(format!("{label}: xmlsec1 --encrypt failed: {}", String::from_utf8_lossy(&o.stderr)));
                    continue;
                }
                match strict.decrypt_bytes(&o.stdout) {
                    Ok(out) if c14n(&out) == want => {}
                    Ok(out) => failures.push(format!("{label}: decrypted to {}", String::from_utf8_lossy(&out))),
                    Err(e) => failures.push(format!("{label}: {e}")),
                }
                if legacy {
                    // without the opt-in: the uniform error
                    let k2 = if kname.starts_with("rsa") {
                        rsa_pair(2048).1
                    } else {
                        DecryptionKey::aes(&KEK[..if kname == "kw" { 16 } else { bits / 8 }]).unwrap()
                    };
                    let e = Decryptor::new(vec![k2], DecryptConfig::default()).decrypt_bytes(&o.stdout).unwrap_err();
                    if e.to_string() != "decryption failed" {
                        failures.push(format!("{label}: legacy without opt-in gave {e}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} failed:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(cases, 5 * 6 * 3);
}
