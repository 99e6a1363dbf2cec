//! The XML Encryption vectors of xmlsec's test folder (`$VTDX_CORPUS/dsig/xmlsec`):
//! each row of `MANIFEST-enc.tsv` decrypted with the keys its xmlsec1
//! arguments name, the result compared byte for byte with the row's expected
//! plaintext file (`X.data`, base64-decoded when the row's `output_filter`
//! says so), or, for a `fail` row, required to fail. The rows that do not come
//! out as listed are in `conformance/expected-failures/xmlenc.txt`, with their
//! reasons; a row that fails unlisted, or passes while listed, fails the test.
//!
//! How the rows' keys become the caller's keys (vtdx never takes a key from
//! the message): `--aeskey[:Name] FILE` and `--aes-key:Name FILE` (raw AES
//! keys), `--keys-file FILE` (the `AESKeyValue`s of an xmlsec keys file, with
//! their `KeyName`s), `$priv_key_option[:Name] FILE.$priv_key_format` and
//! its EC / X25519 siblings (the private key in PEM, else DER: RSA, or EC /
//! X25519 for key agreement), `$pub_key_option:Name FILE.$pub_key_format`
//! (an originator's public key that an `AgreementMethod` names), and
//! `--concatkdf-key`, `--pbkdf2-key`, `--hkdf-key` (master secrets of
//! `xenc11:DerivedKey`s). Legacy algorithms are allowed
//! (most vectors predate AES-GCM), as `vtdx decrypt --allow-legacy` does.
//!
//! Santuario's copies of the XML Encryption 1.1 interop vectors
//! (`santuario/org/w3c/www/interop/xmlenc-core-11`) run too, with the RSA keys
//! of xmlsec's copy of the same set (Santuario keeps them in PKCS#12 and JKS
//! stores only), against Santuario's `plaintext.xml`.

use std::path::{Path, PathBuf};

use vtdx_core::Document;
use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor};

// the same reader as tests/conformance.rs (a second copy of the module: both tests own one)
#[allow(clippy::duplicate_mod)]
#[path = "../../../conformance/src/expected.rs"]
mod expected;

/// Rows in the manifest (PROVENANCE: 261 success / 89 fail, 350 in total).
const ROWS: usize = 350;

pub(crate) fn corpus() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let x = p.join("dsig");
    assert!(x.join("xmlsec/MANIFEST-enc.tsv").is_file(), "the DSig corpus is missing at {} (set VTDX_CORPUS)", x.display());
    x
}

struct Row {
    id: String,
    file: String,
    expected_ok: bool,
    args: String,
    plaintext: String,
    base64: bool,
}

fn rows(root: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(root.join("MANIFEST-enc.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("column {name}"));
    let (f, e, a, p, o) =
        (col("file"), col("expected_decrypt"), col("xmlsec1_decrypt_args"), col("expected_plaintext"), col("output_filter"));
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for l in lines.filter(|l| !l.trim().is_empty()) {
        let c: Vec<&str> = l.split('\t').collect();
        let get = |i: usize| c.get(i).copied().unwrap_or("").to_string();
        let n = seen.entry(get(f)).or_insert(0);
        *n += 1;
        out.push(Row {
            id: format!("{}@{n}", get(f)),
            file: get(f),
            expected_ok: get(e) == "success",
            args: get(a),
            plaintext: get(p),
            base64: get(o).starts_with("base64"),
        });
    }
    out
}

/// The `AESKeyValue`s of an xmlsec keys file, named by their `KeyName`.
pub(crate) fn keys_file(path: &Path) -> Vec<DecryptionKey> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = Document::parse(&bytes).unwrap();
    let mut out = Vec::new();
    for ki in doc.root_element().element_children() {
        let name = ki.element_children().find(|c| c.local_name() == "KeyName").map(|c| c.value().trim().to_string());
        let Some(kv) = ki.element_children().find(|c| c.local_name() == "KeyValue") else { continue };
        for v in kv.element_children().filter(|c| c.local_name() == "AESKeyValue") {
            let clean: String = v.value().chars().filter(|c| !c.is_whitespace()).collect();
            let raw = base64_decode(&clean);
            if let Ok(mut k) = DecryptionKey::aes(&raw) {
                if let Some(n) = &name {
                    k = k.with_name(n.clone());
                }
                out.push(k);
            }
        }
    }
    out
}

pub(crate) fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine;
    let clean: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(clean).unwrap_or_else(|e| panic!("base64 in the corpus: {e}"))
}

/// The caller's keys a row's xmlsec1 arguments name.
fn keys_for(args: &str, root: &Path) -> Vec<DecryptionKey> {
    let toks: Vec<&str> = args.split_whitespace().collect();
    let resolve = |p: &str| root.join(p.trim_start_matches("ROOT/"));
    let mut keys = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (opt, name) = match toks[i].split_once(':') {
            Some((o, n)) => (o, Some(n.to_string())),
            None => (toks[i], None),
        };
        let value = toks.get(i + 1).copied().unwrap_or("");
        let named = |k: DecryptionKey| match &name {
            Some(n) => k.with_name(n.clone()),
            None => k,
        };
        match opt {
            "--aeskey" | "--aes-key" => {
                let raw = std::fs::read(resolve(value)).unwrap();
                if let Ok(k) = DecryptionKey::aes(&raw) {
                    keys.push(named(k));
                }
                i += 2;
            }
            "--keys-file" => {
                keys.extend(keys_file(&resolve(value)));
                i += 2;
            }
            // options with a value that is not a key
            "--enabled-key-data" | "--pwd" => i += 2,
            "--concatkdf-key" | "--pbkdf2-key" | "--hkdf-key" => {
                let raw = std::fs::read(resolve(value)).unwrap();
                keys.push(named(DecryptionKey::master_secret(&raw).unwrap()));
                i += 2;
            }
            // $priv_key_option, $ec_interop_priv_key_option, $xdh_priv_key_option, $pub_key_option
            o if o.starts_with('$') && o.ends_with("_option") => {
                let public = o.contains("pub_key");
                let base = value.replace("$priv_key_suffix", "");
                let format_var = base.rsplit_once('.').map_or("", |(_, f)| f).to_string();
                for fmt in ["pem", "der"] {
                    let p = resolve(&base.replace(&format_var, fmt));
                    if let Ok(bytes) = std::fs::read(&p) {
                        let k = if public {
                            DecryptionKey::originator_public_from_pem_or_der(&bytes)
                        } else {
                            DecryptionKey::private_from_pem_or_der(&bytes)
                        };
                        if let Ok(k) = k {
                            keys.push(named(k));
                            break;
                        }
                    }
                }
                i += 2;
            }
            _ if value.starts_with("ROOT/") || value.starts_with('$') => i += 2,
            _ => i += 1,
        }
    }
    keys
}

fn check_row(root: &Path, row: &Row, dec: &Decryptor) -> Option<String> {
    let bytes = match std::fs::read(root.join(&row.file)) {
        Ok(b) => b,
        Err(_) => return Some("the vector is not in the corpus".into()),
    };
    let started = std::time::Instant::now();
    let result = dec.decrypt_bytes(&bytes);
    assert!(started.elapsed().as_secs() < 5, "{} took {:?}", row.id, started.elapsed());
    match (result, row.expected_ok) {
        (Err(_), false) => None,
        (Ok(_), false) => Some("decrypted, expected to fail".into()),
        (Err(e), true) => Some(format!("{:?}: {e}", e.kind())),
        (Ok(out), true) => {
            let want = std::fs::read(root.join(&row.plaintext)).unwrap_or_else(|e| panic!("{}: {e}", row.plaintext));
            let want = if row.base64 { base64_decode(std::str::from_utf8(&want).unwrap()) } else { want };
            same_plaintext(&out, &want).err()
        }
    }
}

/// Byte for byte; else, when both are XML documents, by their canonical form
/// (C14N 1.0 with comments): xmlsec1 writes its result through libxml2's
/// serializer, which adds an XML declaration and normalizes line ends,
/// where vtdx leaves every byte outside the decrypted part as it was.
pub(crate) fn same_plaintext(out: &[u8], want: &[u8]) -> Result<(), String> {
    if out == want {
        return Ok(());
    }
    let c14n = |b: &[u8]| -> Option<Vec<u8>> {
        let d = Document::parse(b).ok()?;
        vtdx_c14n::Canonicalizer::new(vtdx_c14n::Algorithm::C14n10).with_comments(true).document_to_vec(&d).ok()
    };
    match (c14n(out), c14n(want)) {
        (Some(a), Some(b)) if a == b => Ok(()),
        _ => Err(format!(
            "plaintext differs: got {:?}, want {:?}",
            String::from_utf8_lossy(&out[..out.len().min(200)]),
            String::from_utf8_lossy(&want[..want.len().min(200)])
        )),
    }
}

#[test]
fn xmlsec_enc_manifest() {
    let dsig = corpus();
    let root = dsig.join("xmlsec");
    let all = rows(&root);
    assert_eq!(all.len(), ROWS, "rows in MANIFEST-enc.tsv");
    let list =
        expected::ExpectedFailures::read(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/expected-failures/xmlenc.txt"))
            .unwrap_or_else(|e| panic!("{e}"));
    let config = DecryptConfig::default().allow_legacy(true);
    let mut outcomes: Vec<(String, Option<String>)> = Vec::new();
    let mut passed = 0;
    for row in &all {
        let dec = Decryptor::new(keys_for(&row.args, &root), config.clone());
        let failure = check_row(&root, row, &dec);
        if failure.is_none() {
            passed += 1;
        }
        if std::env::var_os("XMLENC_VERBOSE").is_some() {
            println!("{} -> {:?}", row.id, failure);
        }
        outcomes.push((row.id.clone(), failure));
    }
    // Santuario's copies of the xmlenc11 interop set, with xmlsec's DER keys of the same set
    let s11 = dsig.join("santuario/org/w3c/www/interop/xmlenc-core-11");
    let want = std::fs::read(s11.join("plaintext.xml")).unwrap();
    let mut santuario = 0;
    for (file, key) in [
        ("cipherText__RSA-2048__aes128-gcm__rsa-oaep-mgf1p.xml", "RSA-2048_SHA256WithRSA.der"),
        ("cipherText__RSA-3072__aes192-gcm__rsa-oaep-mgf1p__Sha256.xml", "RSA-3072_SHA256WithRSA.der"),
        ("cipherText__RSA-3072__aes256-gcm__rsa-oaep__Sha384-MGF_Sha1.xml", "RSA-3072_SHA256WithRSA.der"),
        ("cipherText__RSA-4096__aes256-gcm__rsa-oaep__Sha512-MGF_Sha1_PSource.xml", "RSA-4096_SHA256WithRSA.der"),
    ] {
        let k = DecryptionKey::rsa_from_pem_or_der(&std::fs::read(root.join("xmlenc11-interop-2012").join(key)).unwrap()).unwrap();
        let dec = Decryptor::new(vec![k], DecryptConfig::default());
        let id = format!("santuario/xmlenc-core-11/{file}");
        let failure = match dec.decrypt_bytes(&std::fs::read(s11.join(file)).unwrap()) {
            Ok(out) => same_plaintext(&out, &want).err(),
            Err(e) => Some(format!("{:?}: {e}", e.kind())),
        };
        santuario += 1;
        if failure.is_none() {
            passed += 1;
        }
        outcomes.push((id, failure));
    }
    let listed = list.entries.len();
    println!(
        "xmlsec MANIFEST-enc.tsv + Santuario xmlenc-core-11: {passed}/{} cases as expected; {listed} listed in xmlenc.txt",
        all.len() + santuario
    );
    let report = list.compare(outcomes.iter().map(|(i, f)| (i.as_str(), f.as_deref())));
    assert!(report.is_empty(), "{} difference(s) with {}:\n{}", report.len(), list.path.display(), report.join("\n"));
}
