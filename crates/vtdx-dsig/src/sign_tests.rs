//! The usual WS-Security case signed in one Editor pass ([`Signer::wss_fast`])
//! gives, byte for byte, what the general way ([`Signer::place`]: insert,
//! parse again, digest, fill in) gives with the same IDs, over random message
//! shapes; where the fast way declines, the general way is taken. (That the
//! general way's signatures verify is shown by tests/sign.rs and, with
//! xmlsec1, by tests/interop.rs; here the fast way's output is also verified.)

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::*;
use crate::wss::{SOAP11_NS, SOAP12_NS};
use crate::{Verifier, VerifyingKey};

fn keys_dir() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    p.join("dsig/xmlsec/keys")
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(keys_dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

const SECRET: &[u8] = b"wss-fast-path-hmac-secret-32-bytes!!";

/// xorshift64*: the shapes are random but the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[(self.next() % v.len() as u64) as usize]
    }
    fn bit(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// Signers whose output does not depend on a random nonce (RSA PKCS#1 v1.5,
/// Ed25519, HMAC), each with the key that verifies it, and the configuration.
fn signers() -> Vec<(&'static str, Signer, VerifyingKey)> {
    let rsa_cert = Certificate::from_pem_or_der(&read("rsa/rsa-2048-cert.pem")).unwrap();
    let rsa = || SigningKey::from_pem_or_der(&read("rsa/rsa-2048-key.pem")).unwrap();
    let ed_cert = Certificate::from_pem_or_der(&read("eddsa/eddsa-ed25519-cert.pem")).unwrap();
    let ed = SigningKey::from_pem_or_der(&read("eddsa/eddsa-ed25519-key.pem")).unwrap().with_certificate(ed_cert.clone()).unwrap();
    vec![
        (
            "rsa-sha256 bst",
            Signer::new(rsa().with_certificate(rsa_cert.clone()).unwrap(), SignConfig::default()),
            VerifyingKey::from_certificate(rsa_cert.clone()),
        ),
        (
            "rsa-sha512 sha384 keyname",
            Signer::new(
                rsa().with_name("k1"),
                SignConfig::default().method(SignatureAlgorithm::RsaPkcs1(DigestAlgorithm::Sha512)).digest(DigestAlgorithm::Sha384),
            ),
            VerifyingKey::from_certificate(rsa_cert).with_name("k1"),
        ),
        ("ed25519 bst", Signer::new(ed, SignConfig::default()), VerifyingKey::from_certificate(ed_cert)),
        (
            "hmac-sha256 sha512 no keyinfo",
            Signer::new(SigningKey::hmac(SECRET).unwrap(), SignConfig::default().digest(DigestAlgorithm::Sha512).key_info(false)),
            VerifyingKey::hmac(SECRET).unwrap(),
        ),
    ]
}

const WSU: &str = WSU_NS;

/// A random SOAP message: (bytes, description).
fn message(r: &mut Rng) -> (Vec<u8>, String) {
    let soap12 = r.bit();
    let ns = if soap12 { SOAP12_NS } else { SOAP11_NS };
    let p = r.pick(&["soap", "env", "", "S"]);
    let q = |local: &str| if p.is_empty() { local.to_string() } else { format!("{p}:{local}") };
    let env_decl = if p.is_empty() { format!(r#" xmlns="{ns}""#) } else { format!(r#" xmlns:{p}="{ns}""#) };
    let wsu_env = r.pick(&[
        "",
        r#" xmlns:wsu="WSU""#,
        r#" xmlns:u="WSU""#,
        r#" xmlns:wsu="urn:not-wsu""#,
        r#" xmlns:wsu="urn:not-wsu" xmlns:vtdxwsu="urn:also-not""#,
    ]);
    let env_extra =
        r.pick(&["", r#" xml:lang="en""#, r#" xmlns:m="urn:m""#, r#" xmlns:a="urn:outer-a" a:x="1""#, r#" xmlns:ds="urn:not-ds""#]);
    let sep = r.pick(&["", "\n  ", "\r\n\t"]);
    let mu = if p.is_empty() { String::new() } else { format!(r#" {p}:mustUnderstand="1""#) };
    let role = if soap12 { "role" } else { "actor" };
    let wsse = r#"xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd""#;
    let header_kind = r.pick(&["none", "empty", "empty-open", "other", "security", "security-actor", "security-timestamp"]);
    let header = match header_kind {
        "none" => String::new(),
        "empty" => format!("<{}/>", q("Header")),
        "empty-open" => format!("<{}>{sep}</{}>", q("Header"), q("Header")),
        "other" => format!(r#"<{}><h:Route xmlns:h="urn:h">x</h:Route></{}>"#, q("Header"), q("Header")),
        "security" => format!(
            r#"<{}><wsse:Security {wsse}{mu}><wsse:UsernameToken><wsse:Username>u</wsse:Username></wsse:UsernameToken></wsse:Security></{}>"#,
            q("Header"),
            q("Header")
        ),
        "security-actor" => {
            format!(r#"<{}><wsse:Security {wsse} {role}="urn:other"/></{}>"#, q("Header"), q("Header"))
        }
        _ => format!(
            r#"<{}><wsse:Security {wsse}><wsu:Timestamp xmlns:wsu="WSU" wsu:Id="old-ts"><wsu:Created>2020-01-01T00:00:00Z</wsu:Created></wsu:Timestamp></wsse:Security></{}>"#,
            q("Header"),
            q("Header")
        ),
    };
    let body_id = r.pick(&["", "", "", r#" Id="b-1""#, r#" xmlns:wsx="WSU" wsx:Id="b-1""#, r#" ID="b-2""#, r#" Id="b 1""#, "dup"]);
    let (body_id, dup) = if body_id == "dup" { (r#" id="b-3""#, r#"<d Id="b-3"/>"#) } else { (body_id, "") };
    let mut body_attrs = r
        .pick(&[
            "",
            r#" xmlns:a="urn:a" a:note="x &gt; y &amp; z&#9;t	u""#,
            r#" a="1>2" b="&quot;'""#,
            r#" xmlns:wsu="WSU""#,
            r#" xml:lang="fr""#,
            r#" xmlns:n="urn:n""#,
            r#" xmlns:wsu="urn:body-wsu""#,
        ])
        .to_string();
    if !p.is_empty() && r.bit() {
        body_attrs.push_str(r#" xmlns="urn:default-in-body""#);
    }
    let parts = [
        r#"<m:Pay xmlns:m="urn:m"><m:amount>10</m:amount></m:Pay>"#,
        r#"<Pay xmlns="urn:d"><amount>1</amount><inner xmlns="">x</inner></Pay>"#,
        r#"<m:x xmlns:m="urn:m" xmlns:wsu="WSU" wsu:Id="inner">uses wsu</m:x>"#,
        r#"<u:x xmlns:u="WSU">u prefix</u:x>"#,
        r#"<wsu:y xmlns:wsu="urn:other">other wsu</wsu:y>"#,
        "text with &lt;tags&gt; &amp; <![CDATA[cdata <x> wsu]]><!-- a comment --><?pi data?>",
        r#"<m:a xmlns:m="urn:m" m:b="1" c="2"><m:a xmlns:m="urn:m2"/></m:a>"#,
        r#"<e xml:lang="de" xml:space="preserve"> x </e>"#,
        r#"<vtdxwsu:z xmlns:vtdxwsu="urn:v"/>"#,
        r#"<n:p xmlns:n="urn:n2" n:q="caf&#xE9;">&#233;t&#xE9;</n:p>"#,
        "<x>\u{e9}\u{20ac}</x>",
    ];
    let mut content = String::new();
    for _ in 0..(r.next() % 4) {
        content.push_str(sep);
        content.push_str(r.pick(&parts));
    }
    content.push_str(dup);
    let body = if content.is_empty() && r.bit() {
        format!("<{}{body_id}{body_attrs}/>", q("Body"))
    } else {
        format!("<{}{body_id}{body_attrs}>{content}</{}>", q("Body"), q("Body"))
    };
    let decl = r.pick(&["", "<?xml version=\"1.0\"?>\n", "<?xml version=\"1.0\" encoding=\"UTF-16\"?>", "<!-- first -->"]);
    let text = format!("{decl}<{}{env_decl}{wsu_env}{env_extra}>{sep}{header}{sep}{body}{sep}</{}>\n", q("Envelope"), q("Envelope"))
        .replace("\"WSU\"", &format!("\"{WSU}\""));
    let desc = format!("{text:?}");
    let bytes = if decl.contains("UTF-16") {
        let mut b = vec![0xff, 0xfe];
        b.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
        b
    } else {
        text.into_bytes()
    };
    (bytes, desc)
}

fn ids(k: usize) -> WssIds {
    WssIds { body: format!("id-body{k}"), ts: format!("TS-t{k}"), bst: format!("X509-b{k}") }
}

#[test]
fn the_fast_way_gives_the_bytes_of_the_general_way() {
    let signers = signers();
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let now = SystemTime::now();
    let (mut fast, mut declined, mut both_failed) = (0, 0, 0);
    for k in 0..600 {
        let (bytes, desc) = message(&mut r);
        let doc = Document::parse(&bytes).unwrap_or_else(|e| panic!("{desc}: {e}"));
        let (name, signer, vk) = &signers[k % signers.len()];
        let opts = WssOptions {
            now: Some(now),
            ttl: [Some(Duration::from_secs(300)), None, Some(Duration::from_millis(1500))][k % 3],
            must_understand: k % 5 != 0,
        };
        let ids = ids(k);
        let general = signer.place(&doc, &Mode::Wss(opts.clone(), Vec::new()), &ids);
        match (general, signer.wss_fast(&doc, &opts, &ids)) {
            (_, Ok(None)) => declined += 1,
            (Ok(a), Ok(Some(b))) => {
                assert!(a == b, "{name} {desc}:\ngeneral {}\nfast    {}", String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
                let d = Document::parse(&b).unwrap();
                let v = Verifier::new(VerifyConfig::default(), vec![vk.clone()]);
                let verified = v.verify(&d).unwrap_or_else(|e| panic!("{name} {desc}: {e}"));
                assert!(verified.covers(wss_parts(&d).unwrap().body), "{name} {desc}");
                fast += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "{name} {desc}");
                both_failed += 1;
            }
            (a, b) => panic!("{name} {desc}: the general way gives {:?}, the fast way {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
    eprintln!("fast {fast}, declined {declined}, both failed {both_failed}");
    assert!(fast >= 300 && declined >= 50, "fast {fast}, declined {declined}, both failed {both_failed}");
}

fn fast_or_not(input: &str, signer: &Signer) -> Option<Vec<u8>> {
    let doc = Document::parse(input.as_bytes()).unwrap();
    let opts = WssOptions { now: Some(SystemTime::now()), ..WssOptions::default() };
    let fast = signer.wss_fast(&doc, &opts, &ids(0)).unwrap();
    let general = signer.place(&doc, &Mode::Wss(opts.clone(), Vec::new()), &ids(0));
    if let Some(f) = &fast {
        assert_eq!(String::from_utf8_lossy(f), String::from_utf8_lossy(&general.unwrap()), "{input}");
    }
    fast
}

#[test]
fn which_messages_take_the_fast_way() {
    let s = Signer::new(SigningKey::hmac(SECRET).unwrap(), SignConfig::default());
    let env =
        |attrs: &str, body: &str| format!(r#"<s:Envelope xmlns:s="{SOAP11_NS}"{attrs}><s:Header/><s:Body{body}</s:Body></s:Envelope>"#);
    let wsu = format!(r#" xmlns:wsu="{WSU}""#);
    // taken: the benchmark's shape (wsu declared on the Envelope, the Body without an ID) and others
    for m in [
        env(&wsu, ">x"),
        env("", ">x"),
        env("", r#" Id="b">x"#),
        env("", r#" xmlns:a="urn:a" a:v="1>2">x"#),
        env(&wsu, r#"><m:y xmlns:m="urn:m" xmlns:wsu="urn:wsu">but wsu:nothing</m:y>"#).replace("wsu:nothing", "nothing"),
    ] {
        assert!(fast_or_not(&m, &s).is_some(), "{m}");
    }
    // declined: a descendant may use the prefix of the new wsu:Id; a Timestamp is there;
    // the Body's ID is not unique; inclusive C14N
    for m in [
        env(&wsu, r#"><wsu:x>y</wsu:x>"#),
        env("", r#"><wsu:x xmlns:wsu="urn:other">y</wsu:x>"#),
        env("", r#"><x>text naming wsu:Id</x>"#),
        env("", r#" Id="b"><x Id="b"/>"#),
        format!(
            r#"<s:Envelope xmlns:s="{SOAP11_NS}"><s:Header><wsse:Security xmlns:wsse="{WSSE_NS}"><wsu:Timestamp xmlns:wsu="{WSU}"><wsu:Created>2020-01-01T00:00:00Z</wsu:Created></wsu:Timestamp></wsse:Security></s:Header><s:Body>x</s:Body></s:Envelope>"#
        ),
    ] {
        assert!(fast_or_not(&m, &s).is_none(), "{m}");
    }
    let inclusive = Signer::new(SigningKey::hmac(SECRET).unwrap(), SignConfig::default().signed_info_c14n(Algorithm::C14n10));
    assert!(fast_or_not(&env("", ">x"), &inclusive).is_none());
    let c14n11 = Signer::new(SigningKey::hmac(SECRET).unwrap(), SignConfig::default().reference_c14n(Algorithm::C14n11));
    assert!(fast_or_not(&env("", ">x"), &c14n11).is_none());
}

#[test]
fn parse_options_the_general_way_would_trip_on_are_left_to_it() {
    let s = Signer::new(SigningKey::hmac(SECRET).unwrap(), SignConfig::default());
    let m = format!(r#"<s:Envelope xmlns:s="{SOAP11_NS}"><s:Header/><s:Body a="1" b="2">x</s:Body></s:Envelope>"#);
    let now = Some(SystemTime::now());
    let run = |o: &vtdx_core::ParseOptions| {
        let doc = Document::parse_with(m.as_bytes(), o).unwrap();
        let opts = WssOptions { now, ..WssOptions::default() };
        let general = s.place(&doc, &Mode::Wss(opts.clone(), Vec::new()), &ids(1)).map_err(|e| e.to_string());
        (s.wss_fast(&doc, &opts, &ids(1)).map_err(|e| e.to_string()), general)
    };
    let (fast, general) = run(&vtdx_core::ParseOptions::default());
    assert_eq!(fast.unwrap().unwrap(), general.unwrap());
    // the Body has two attributes and four after the edit: over a limit of three, the
    // general way cannot parse what it made
    let (fast, general) = run(&vtdx_core::ParseOptions::default().max_attributes(3));
    assert!(matches!(fast, Ok(None)) && general.is_err(), "{general:?}");
    // (the Editor checks the inserted markup against the size limit too)
    let (fast, general) = run(&vtdx_core::ParseOptions::default().max_document_size(m.len() as u64 + 100));
    assert!(!matches!(fast, Ok(Some(_))) && general.is_err(), "{fast:?} {general:?}");
    let unaware = vtdx_core::ParseOptions { namespaces: false, ..Default::default() };
    // (without namespaces the Envelope is no SOAP Envelope: both ways refuse it)
    let (fast, general) = run(&unaware);
    assert!(fast.is_err() && fast == general.map(Some), "{fast:?}");
}
