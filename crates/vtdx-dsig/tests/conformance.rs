//! The XML-DSig vectors of xmlsec's test folder (`$VTDX_CORPUS/dsig/xmlsec`),
//! each row of `MANIFEST-dsig.tsv` verified with the key its xmlsec1 arguments
//! name and compared with `expected_verify`; the rows that do not come out as
//! listed are in `conformance/expected-failures/dsig.txt`, with their reasons.
//!
//! How the rows' keys become the caller's keys (vtdx never takes a key from
//! the message):
//!
//! * `--pubkey-*`, `--pubkey-cert-*`, `--privkey-*` (the public half) and
//!   `--hmackey`, with the `:Name` suffix as the key's name;
//! * `--trusted-*`, `--untrusted-*`, `--crl-*`, `--verification-gmt-time`,
//!   `--verify-keys`: a [`TrustStore`] with those anchors, intermediates, CRLs
//!   and validation time; the certificate in the message (or the untrusted
//!   certificate its X509Data names) is used only once its chain validates;
//! * rows that ask xmlsec1 to skip validation (`--insecure`,
//!   `--X509-skip-time-checks`), which vtdx does not offer: the trusted
//!   certificates plus every certificate of the corpus issued under them
//!   (issuer name = subject name, and authority key id = subject key id
//!   where both are present), standing for certificates the application
//!   accepted by its own means;
//! * rows where xmlsec takes the key from the message (`key-value`,
//!   `der-encoded-key-value` enabled and no key given): the keyring of every
//!   public key and certificate in the corpus, among which the message's
//!   KeyValue *selects* one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use vtdx_core::{Document, ErrorKind as ParseErrorKind, ExternalPolicy, ParseOptions};
use vtdx_dsig::{Certificate, Crl, TrustStore, Verifier, VerifyConfig, VerifyingKey};

#[path = "../../../conformance/src/expected.rs"]
mod expected;

/// Rows in the manifest (PROVENANCE: 236 success / 18 fail).
const ROWS: usize = 254;

fn corpus() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let x = p.join("dsig/xmlsec");
    assert!(x.join("MANIFEST-dsig.tsv").is_file(), "the DSig corpus is missing at {} (set VTDX_CORPUS)", x.display());
    x
}

fn read_key_file(path: &Path) -> Option<VerifyingKey> {
    VerifyingKey::from_pem_or_der(&std::fs::read(path).ok()?).ok()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every public key and certificate of the corpus, once (by DER or key).
struct Keyring {
    certs: Vec<Certificate>,
    keys: Vec<VerifyingKey>,
}

impl Keyring {
    fn load(root: &Path) -> Keyring {
        let mut files = Vec::new();
        walk(&root.join("keys"), &mut files);
        for d in ["merlin-xmldsig-twenty-three/certs", "phaos-xmldsig-three/certs", "xmldsig11-interop-2012/keys"] {
            walk(&root.join(d), &mut files);
        }
        let mut certs: Vec<Certificate> = Vec::new();
        let mut keys: Vec<VerifyingKey> = Vec::new();
        for f in files {
            let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "pem" | "der" | "crt" | "p8-der" | "p8-pem") {
                continue;
            }
            let Some(k) = read_key_file(&f) else { continue };
            if let Some(c) = k.certificate() {
                if !certs.iter().any(|x| x.der() == c.der()) {
                    certs.push(c.clone());
                }
            }
            if !keys.iter().any(|x| x.material() == k.material()) {
                keys.push(VerifyingKey::new(k.material().clone()));
            }
        }
        Keyring { certs, keys }
    }

    /// The trusted certificates and every certificate issued under them.
    fn issued_under(&self, trusted: &[Certificate], untrusted: &[Certificate]) -> Vec<Certificate> {
        let mut set: Vec<Certificate> = trusted.to_vec();
        let pool: Vec<&Certificate> = self.certs.iter().chain(untrusted).collect();
        loop {
            let mut grew = false;
            for c in &pool {
                if set.iter().any(|s| s.der() == c.der()) {
                    continue;
                }
                let issued = set.iter().any(|s| {
                    s.der() != c.der()
                        && c.issuer_der() == s.subject_der()
                        && match (c.authority_key_id(), s.subject_key_id()) {
                            (Some(a), Some(k)) => a == k,
                            _ => true,
                        }
                });
                if issued {
                    set.push((*c).clone());
                    grew = true;
                }
            }
            if !grew {
                return set;
            }
        }
    }
}

struct Row {
    id: String,
    file: String,
    expected_ok: bool,
    rel: String,
    args: String,
}

fn rows(root: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(root.join("MANIFEST-dsig.tsv")).unwrap();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let file = cols[0].to_string();
        let n = seen.entry(file.clone()).or_insert(0);
        *n += 1;
        out.push(Row {
            id: format!("{file}@{n}"),
            file,
            expected_ok: cols[1] == "success",
            rel: cols.get(2).unwrap_or(&"").to_string(),
            args: cols.get(5).unwrap_or(&"").to_string(),
        });
    }
    out
}

/// The caller's keys and trust store for a row, from its xmlsec1 arguments.
fn keys_for(row: &Row, root: &Path, ring: &Keyring) -> (Vec<VerifyingKey>, Option<TrustStore>) {
    let args = row
        .args
        .replace("$cert_format", "pem")
        .replace("$pub_key_format", "pem")
        .replace("$rsa_pub_key_suffix", "")
        .replace("$pub_key_option", "--pubkey-pem")
        .replace("$priv_key_format", "pem")
        .replace("$priv_key_option", "--privkey-pem")
        .replace("$mlkem_priv_key_format", "pem")
        .replace("$mlkem_priv_key_option", "--privkey-pem");
    // `$cert_format` is pem, but some sets (Phaos) have DER files only
    let resolve = |p: &str| -> PathBuf {
        let path = match p.strip_prefix("ROOT/") {
            Some(r) => root.join(r),
            None => root.join(&row.rel).join(p),
        };
        if !path.exists() && path.extension().is_some_and(|e| e == "pem") {
            return path.with_extension("der");
        }
        path
    };
    let mut keys = Vec::new();
    let (mut trusted, mut untrusted) = (Vec::new(), Vec::new());
    let mut key_from_message = false;
    let mut crls = Vec::new();
    let mut time = None;
    let (mut verify_keys, mut skip_validation) = (false, false);
    let toks: Vec<&str> = args.split_whitespace().collect();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let (opt, name) = match t.split_once(':') {
            Some((o, n)) if o.starts_with("--") => (o, Some(n)),
            _ => (t, None),
        };
        let value = toks.get(i + 1).copied().unwrap_or("");
        match opt {
            "--pubkey-pem" | "--pubkey-der" | "--pubkey-cert-pem" | "--pubkey-cert-der" | "--privkey-pem" | "--privkey-der" => {
                if let Some(mut k) = read_key_file(&resolve(value)) {
                    if let Some(n) = name {
                        k = k.with_name(n);
                    }
                    keys.push(k);
                }
                i += 2;
            }
            "--hmackey" => {
                let path = resolve(value);
                let mut k = VerifyingKey::hmac(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap();
                if let Some(n) = name {
                    k = k.with_name(n);
                }
                keys.push(k);
                i += 2;
            }
            "--trusted-pem" | "--trusted-der" | "--untrusted-pem" | "--untrusted-der" => {
                let path = resolve(value);
                let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                if let Ok(c) = Certificate::from_pem_or_der(&bytes) {
                    if opt.starts_with("--trusted") {
                        trusted.push(c);
                    } else {
                        untrusted.push(c);
                    }
                }
                i += 2;
            }
            "--enabled-key-data" => {
                key_from_message |= value.split(',').any(|k| k == "key-value" || k == "der-encoded-key-value");
                i += 2;
            }
            "--crl-pem" | "--crl-der" => {
                let path = resolve(value);
                crls.push(Crl::from_pem_or_der(&std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
                i += 2;
            }
            "--verification-gmt-time" => {
                // `2019-01-01+00:00:00`
                time = Some(vtdx_dsig::time::parse_rfc3339(&format!("{}Z", value.replacen('+', "T", 1))).expect("verification time"));
                i += 2;
            }
            "--verify-keys" => {
                verify_keys = true;
                i += 1;
            }
            "--insecure" | "--X509-skip-time-checks" => {
                skip_validation = true;
                i += 1;
            }
            "--enabled-reference-uris" | "--enabled-retrieval-method-uris" | "--hmac-min-out-len" | "--pwd" | "--keys-file" => i += 2,
            _ => i += 1,
        }
    }
    let mut store = None;
    if skip_validation {
        if !trusted.is_empty() {
            keys.extend(ring.issued_under(&trusted, &untrusted).into_iter().map(VerifyingKey::from_certificate));
        }
    } else if !trusted.is_empty() || verify_keys {
        let mut t = TrustStore::new(trusted).intermediates(untrusted).crls(crls).validate_caller_keys(verify_keys);
        if let Some(time) = time {
            t = t.at(time);
        }
        store = Some(t);
    }
    if keys.is_empty() && key_from_message {
        keys.extend(ring.keys.iter().cloned());
    }
    (keys, store)
}

fn parse(bytes: &[u8]) -> Result<Document<'_>, String> {
    match Document::parse(bytes) {
        Err(e) if matches!(e.kind(), ParseErrorKind::ExternalReference { .. }) => {
            Document::parse_with(bytes, &ParseOptions::new().external(ExternalPolicy::Ignore)).map_err(|e| e.to_string())
        }
        r => r.map_err(|e| e.to_string()),
    }
}

#[test]
fn xmlsec_manifest() {
    let root = corpus();
    let all = rows(&root);
    assert_eq!(all.len(), ROWS, "rows in MANIFEST-dsig.tsv");
    let ring = Keyring::load(&root);
    let config = VerifyConfig::builder()
        .allow_sha1(true)
        .min_rsa_bits(1024) // the 1024-bit keys of the Merlin and Phaos vectors
        .allow_xpath_transform(true)
        .allow_xpath_filter2(true)
        .build();
    let list =
        expected::ExpectedFailures::read(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/expected-failures/dsig.txt"))
            .unwrap_or_else(|e| panic!("{e}"));
    let mut outcomes: Vec<(String, Option<String>)> = Vec::new();
    let mut passed = 0;
    for row in &all {
        let Ok(bytes) = std::fs::read(root.join(&row.file)) else {
            outcomes.push((row.id.clone(), Some("the vector is not in the corpus".into())));
            continue;
        };
        let (keys, store) = keys_for(row, &root, &ring);
        let started = std::time::Instant::now();
        let result: Result<usize, String> = parse(&bytes).and_then(|doc| {
            let mut v = Verifier::new(config.clone(), keys);
            if let Some(t) = store {
                v = v.with_trust_store(t);
            }
            v.verify(&doc).map(|ok| ok.signatures().len()).map_err(|e| format!("{:?}: {}", e.kind(), e.display_with(doc.text())))
        });
        assert!(started.elapsed().as_secs() < 5, "{} took {:?}", row.id, started.elapsed());
        let failure = match (&result, row.expected_ok) {
            (Ok(_), true) | (Err(_), false) => None,
            (Ok(n), false) => Some(format!("verified ({n} signatures), expected to fail")),
            (Err(e), true) => Some(e.clone()),
        };
        if failure.is_none() {
            passed += 1;
        }
        if std::env::var_os("DSIG_VERBOSE").is_some() {
            println!("{} {} -> {:?}", row.id, if row.expected_ok { "success" } else { "fail" }, result);
        }
        outcomes.push((row.id.clone(), failure));
    }
    let listed = list.entries.len();
    println!("xmlsec MANIFEST-dsig.tsv: {passed}/{} rows as expected; {listed} listed in dsig.txt", all.len());
    let report = list.compare(outcomes.iter().map(|(i, f)| (i.as_str(), f.as_deref())));
    assert!(report.is_empty(), "{} difference(s) with {}:\n{}", report.len(), list.path.display(), report.join("\n"));
}
