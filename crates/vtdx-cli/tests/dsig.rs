//! `vtdx sign` and `vtdx verify`: the built binary in a temporary directory.
//! Keys are xmlsec's test keys (`$VTDX_CORPUS/dsig/xmlsec/keys`, default
//! `../shared/corpus` beside the repository). Exit statuses: verify 0 when
//! every signature verifies and covers the SOAP Body or the document element,
//! 1 when rejected (`FILE: message`), 2 on usage or I/O errors; sign 0, 1 when
//! the document cannot be signed, 2 on usage or I/O errors.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

use common::{code, run_vtdx, stderr, stdout, TempDir};

fn keys() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let k = p.join("dsig/xmlsec/keys");
    assert!(k.is_dir(), "the DSig test keys are missing at {} (set VTDX_CORPUS)", k.display());
    k
}

fn key(rel: &str) -> String {
    keys().join(rel).to_string_lossy().into_owned()
}

fn vtdx(dir: &Path, args: &[&str]) -> Output {
    run_vtdx(dir, args, None)
}

const SOAP11: &[u8] = b"<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">\n <soapenv:Body><m:Pay xmlns:m=\"urn:m\">10</m:Pay></soapenv:Body>\n</soapenv:Envelope>\n";
const SOAP12: &[u8] = b"<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Header/><env:Body><m:Pay xmlns:m=\"urn:m\">10</m:Pay></env:Body></env:Envelope>";
const PLAIN: &[u8] = b"<?xml version=\"1.0\"?>\n<order id=\"o1\"><qty>3</qty></order>\n";

/// (--alg, key arguments for sign, key arguments for verify)
fn algs() -> Vec<(&'static str, Vec<String>, Vec<String>)> {
    let pair = |k: &str, c: &str| (vec!["--key".into(), key(k), "--cert".into(), key(c)], vec!["--cert".into(), key(c)]);
    let (rsa_s, rsa_v) = pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
    let (ec_s, ec_v) = pair("ec/ec-prime256v1-key.pem", "ec/ec-prime256v1-cert.pem");
    let (ed_s, ed_v) = pair("eddsa/eddsa-ed25519-key.pem", "eddsa/eddsa-ed25519-cert.pem");
    let hmac = vec!["--hmac-key".to_string(), key("hmackey.bin")];
    vec![
        ("rsa-sha256", rsa_s.clone(), rsa_v.clone()),
        ("rsa-pss-sha256", rsa_s, rsa_v),
        ("ecdsa-sha256", ec_s, ec_v),
        ("ed25519", ed_s, ed_v),
        ("hmac-sha256", hmac.clone(), hmac),
    ]
}

fn args<'a>(fixed: &[&'a str], owned: &'a [String], tail: &[&'a str]) -> Vec<&'a str> {
    fixed.iter().copied().chain(owned.iter().map(String::as_str)).chain(tail.iter().copied()).collect()
}

#[test]
fn wss_sign_then_verify_every_alg_both_soap_versions() {
    let d = TempDir::new("wss");
    d.file("m11.xml", SOAP11).file("m12.xml", SOAP12);
    for (alg, sk, vk) in algs() {
        for m in ["m11.xml", "m12.xml"] {
            let o = vtdx(d.path(), &args(&["sign", "--alg", alg, "--wss"], &sk, &["-o", "s.xml", m]));
            assert_eq!(code(&o), 0, "{alg} {m}: {}", stderr(&o));
            assert_eq!(stdout(&o), "");
            let o = vtdx(d.path(), &args(&["verify", "--require-timestamp", "--json"], &vk, &["s.xml"]));
            assert_eq!(code(&o), 0, "{alg} {m}: {}", stderr(&o));
            let json = stdout(&o);
            let body = if m == "m11.xml" { "/soapenv:Envelope/soapenv:Body" } else { "/env:Envelope/env:Body" };
            assert!(json.starts_with(r##"[{"reference": "#id-"##), "{json}");
            assert!(json.contains(&format!(r#""node": "{body}""#)), "{json}");
            assert!(json.contains(r#"/wsse:Security/wsu:Timestamp""#) && json.contains(r#""timestamp_signed": true"#), "{json}");
            assert!(json.contains(
                r#""digest": "http://www.w3.org/2001/04/xmlenc#sha256", "transforms": ["http://www.w3.org/2001/10/xml-exc-c14n#"]"#
            ));
            assert_eq!(json.lines().count(), 1);
        }
    }
}

#[test]
fn enveloped_sign_to_stdout_is_byte_exact_and_json_is_the_verified_view() {
    let d = TempDir::new("env");
    d.file("p.xml", PLAIN);
    let o = vtdx(d.path(), &["sign", "--key", &key("rsa/rsa-2048-key.pem"), "p.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let signed = stdout(&o);
    let (i, j) = (signed.find("<ds:Signature").unwrap(), signed.find("</ds:Signature>").unwrap() + "</ds:Signature>".len());
    assert_eq!(format!("{}{}", &signed[..i], &signed[j..]).as_bytes(), PLAIN);
    assert!(!signed.contains("KeyInfo"), "no certificate, no name: no KeyInfo");
    d.file("s.xml", signed.as_bytes());
    let o = vtdx(d.path(), &["verify", "--json", "--cert", &key("rsa/rsa-2048-cert.pem"), "s.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "[{\"reference\": \"\", \"node\": \"/\", \"digest\": \"http://www.w3.org/2001/04/xmlenc#sha256\", \"transforms\": [\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\", \"http://www.w3.org/2001/10/xml-exc-c14n#\"], \"timestamp_signed\": false}]\n"
    );
    // the public key instead of the certificate
    let o = vtdx(d.path(), &["verify", "--cert", &key("rsa/rsa-2048-pubkey.pem"), "s.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn verify_rejections_exit_1_with_file_and_message() {
    let d = TempDir::new("reject");
    d.file("m.xml", SOAP11);
    let o = vtdx(
        d.path(),
        &["sign", "--wss", "--key", &key("rsa/rsa-2048-key.pem"), "--cert", &key("rsa/rsa-2048-cert.pem"), "-o", "s.xml", "m.xml"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let good = d.read("s.xml");
    // another signer's certificate: the token names a key the caller did not give
    let o = vtdx(d.path(), &["verify", "--cert", &key("rsa/rsa-4096-cert.pem"), "s.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("s.xml: KeyInfo names a key the caller did not supply"), "{}", stderr(&o));
    // a tampered Body
    let tampered = String::from_utf8(good.clone()).unwrap().replace(">10<", ">10000<");
    d.file("t.xml", tampered.as_bytes());
    let o = vtdx(d.path(), &["verify", "--cert", &key("rsa/rsa-2048-cert.pem"), "t.xml", "s.xml"]);
    assert_eq!(code(&o), 1, "one good file does not save a bad one");
    assert!(stderr(&o).starts_with("t.xml: digest mismatch for reference 0"), "{}", stderr(&o));
    assert!(stderr(&o).contains("(line "), "positions where they apply: {}", stderr(&o));
    // judged long before it was created, and long after it expired
    let cert = key("rsa/rsa-2048-cert.pem");
    let o = vtdx(d.path(), &["verify", "--cert", &cert, "--at", "2001-01-01T00:00:00Z", "s.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("created in the future"), "{}", stderr(&o));
    let o = vtdx(d.path(), &["verify", "--cert", &cert, "--at", "2999-01-01T00:00:00+02:00", "s.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("expired"), "{}", stderr(&o));
    // the huge skew accepts it
    let o = vtdx(d.path(), &["verify", "--cert", &cert, "--at", "2001-01-01T00:00:00Z", "--max-clock-skew", "4000000000", "s.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // a message signed by the HMAC key on only a part: the Body is not covered
    let o = vtdx(d.path(), &["sign", "--hmac-key", &key("hmackey.bin"), "--sign", "//m:Pay", "-o", "part.xml", "m.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = vtdx(d.path(), &["verify", "--hmac-key", &key("hmackey.bin"), "part.xml"]);
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o), "part.xml: the signatures verify, but no verified reference covers the SOAP Body\n");
    // no Timestamp, but one is required
    let o = vtdx(d.path(), &["sign", "--hmac-key", &key("hmackey.bin"), "--sign", "/*/*", "-o", "body.xml", "m.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = vtdx(d.path(), &["verify", "--hmac-key", &key("hmackey.bin"), "body.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = vtdx(d.path(), &["verify", "--require-timestamp", "--hmac-key", &key("hmackey.bin"), "body.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("wsu:Timestamp is required in the wsse:Security header (line 1, column 1)"), "{}", stderr(&o));
    // no signature; not well-formed
    d.file("none.xml", PLAIN).file("bad.xml", b"<a>");
    let o = vtdx(d.path(), &["verify", "--cert", &cert, "none.xml"]);
    assert_eq!((code(&o), stderr(&o)), (1, "none.xml: no ds:Signature element in the document\n".to_string()));
    let o = vtdx(d.path(), &["verify", "--cert", &cert, "bad.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("bad.xml:1:"), "{}", stderr(&o));
}

/// A replayed message stays expired whatever unsigned markup is edited: the
/// Security header re-targeted to another actor (its signature then covers
/// nothing), to SOAP 1.1's `actor/next` or SOAP 1.2's `role/next` (both addressed
/// to this receiver, SOAP 1.1 §4.2.2, SOAP 1.2 Part 1 §2.2: its Timestamp is
/// checked), or the signed Timestamp moved out of the header (WS-Security 1.1 §10).
#[test]
fn replayed_message_stays_refused_after_unsigned_edits() {
    let d = TempDir::new("replay");
    d.file("m11.xml", SOAP11).file("m12.xml", SOAP12);
    let cert = key("rsa/rsa-2048-cert.pem");
    for m in ["m11.xml", "m12.xml"] {
        let o = vtdx(d.path(), &["sign", "--wss", "--key", &key("rsa/rsa-2048-key.pem"), "--cert", &cert, "-o", "s.xml", m]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let s = String::from_utf8(d.read("s.xml")).unwrap();
        let p = if m == "m11.xml" { "soapenv" } else { "env" };
        let retarget = |attr: &str| s.replacen("<wsse:Security ", &format!("<wsse:Security {p}:{attr} "), 1);
        let next = if m == "m11.xml" {
            r#"actor="http://schemas.xmlsoap.org/soap/actor/next""#
        } else {
            r#"role="http://www.w3.org/2003/05/soap-envelope/role/next""#
        };
        let nobody = if m == "m11.xml" { r#"actor="urn:nobody""# } else { r#"role="urn:nobody""# };
        let (i, j) = (s.find("<wsu:Timestamp").unwrap(), s.find("</wsu:Timestamp>").unwrap() + "</wsu:Timestamp>".len());
        let moved = format!("{}{}", &s[..i], &s[j..]).replacen(
            &format!("<{p}:Header>"),
            &format!(r#"<{p}:Header><x:Old xmlns:x="urn:x">{}</x:Old>"#, &s[i..j]),
            1,
        );
        d.file("next.xml", retarget(next).as_bytes()).file("nobody.xml", retarget(nobody).as_bytes()).file("moved.xml", moved.as_bytes());
        // fresh, addressed to this receiver: accepted
        let o = vtdx(d.path(), &["verify", "--require-timestamp", "--cert", &cert, "next.xml"]);
        assert_eq!(code(&o), 0, "{m}: {}", stderr(&o));
        let later = ["verify", "--cert", &cert, "--at", "2999-01-01T00:00:00Z"];
        for (f, want) in [
            ("s.xml", "s.xml: the message expired at "),
            ("next.xml", "next.xml: the message expired at "),
            ("nobody.xml", "nobody.xml: the signatures verify, but no verified reference covers the SOAP Body"),
            (
                "moved.xml",
                "moved.xml: a signed wsu:Timestamp must be a child of the wsse:Security header addressed to this receiver (line ",
            ),
        ] {
            let o = vtdx(d.path(), &[&later[..], &[f]].concat());
            assert_eq!(code(&o), 1, "{m} {f}");
            assert!(stderr(&o).starts_with(want), "{m} {f}: {}", stderr(&o));
        }
    }
}

/// A 1024-bit RSA private key (made by openssl, PKCS#8 and PKCS#1) is refused
/// for its size, in the words `vtdx verify` uses, not as "not a key".
#[test]
fn sign_refuses_a_short_rsa_key_for_its_size() {
    let d = TempDir::new("rsa1024");
    d.file("p.xml", PLAIN);
    let openssl = |args: &[&str]| std::process::Command::new("openssl").args(args).current_dir(d.path()).output();
    match openssl(&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "k8.pem"]) {
        Ok(o) if o.status.success() => {}
        _ => {
            eprintln!("note: openssl is missing, the 1024-bit key is not tested");
            return;
        }
    }
    assert!(openssl(&["rsa", "-traditional", "-in", "k8.pem", "-out", "k1.pem"]).unwrap().status.success());
    for k in ["k8.pem", "k1.pem"] {
        let o = vtdx(d.path(), &["sign", "--key", k, "p.xml"]);
        assert_eq!(code(&o), 2, "{k}");
        assert_eq!(stderr(&o), format!("vtdx sign: {k}: RSA key of 1024 bits refused: at least 2048 required\n"));
    }
}

#[test]
fn sha1_needs_allow_sha1() {
    let f = keys().join("../merlin-xmldsig-twenty-three/signature-enveloping-hmac-sha1.xml");
    let d = TempDir::new("sha1");
    d.file("e.xml", &std::fs::read(f).unwrap());
    let o = vtdx(d.path(), &["verify", "--hmac-key", &key("hmackey.bin"), "e.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("SHA-1 is not allowed"), "{}", stderr(&o));
    // allowed, it verifies; but an enveloping signature covers its own Object, not the document element
    let o = vtdx(d.path(), &["verify", "--allow-sha1", "--hmac-key", &key("hmackey.bin"), "e.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("no verified reference covers the document element"), "{}", stderr(&o));
}

#[test]
fn usage_and_io_errors_exit_2() {
    let d = TempDir::new("usage");
    d.file("p.xml", PLAIN).file("m.xml", SOAP11);
    let cert = key("rsa/rsa-2048-cert.pem");
    let cases: Vec<Vec<&str>> = vec![
        vec!["verify", "p.xml"],                                             // no key
        vec!["verify", "--cert", "missing.pem", "p.xml"],                    // unreadable key
        vec!["verify", "--cert", "p.xml", "p.xml"],                          // not a key
        vec!["verify", "--cert", &cert, "--at", "yesterday", "p.xml"],       // bad --at
        vec!["verify", "--cert", &cert, "missing.xml"],                      // unreadable input
        vec!["sign", "p.xml"],                                               // no key
        vec!["sign", "--key", &cert, "p.xml"],                               // a certificate is not a private key
        vec!["sign", "--hmac-key", "p.xml", "--sign", "//[", "p.xml"],       // bad XPath
        vec!["sign", "--hmac-key", "p.xml", "--sign", "//zz", "p.xml"],      // XPath selecting nothing
        vec!["sign", "--hmac-key", "p.xml", "--alg", "rsa-sha256", "p.xml"], // an algorithm the key cannot make
        vec!["sign", "--hmac-key", "p.xml", "missing.xml"],
    ];
    for c in cases {
        let o = vtdx(d.path(), &c);
        assert_eq!(code(&o), 2, "{c:?}: {}", stderr(&o));
    }
    // an empty HMAC key file (or /dev/null): refused for signing and verifying
    d.file("empty.key", b"").file("s.xml", b"");
    let o = vtdx(d.path(), &["sign", "--hmac-key", "p.xml", "-o", "s.xml", "p.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for c in [
        vec!["sign", "--hmac-key", "empty.key", "p.xml"],
        vec!["verify", "--hmac-key", "empty.key", "s.xml"],
        vec!["verify", "--hmac-key", "/dev/null", "s.xml"],
    ] {
        let o = vtdx(d.path(), &c);
        assert_eq!(code(&o), 2, "{c:?}: {}", stderr(&o));
        assert!(stderr(&o).ends_with(&format!("{}: cannot read key: an empty HMAC key is refused\n", c[2])), "{c:?}: {}", stderr(&o));
    }
    // --wss on a document that is not SOAP, and a document that is not well-formed: 1
    let o = vtdx(d.path(), &["sign", "--wss", "--hmac-key", "p.xml", "p.xml"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("not a SOAP message"), "{}", stderr(&o));
    d.file("bad.xml", b"<a>");
    let o = vtdx(d.path(), &["sign", "--hmac-key", "p.xml", "bad.xml"]);
    assert_eq!(code(&o), 1);
    // nothing written on failure
    assert!(!d.listing().iter().any(|n| n.contains("tmp")));
}

#[test]
fn verify_trusted_ca_and_crl() {
    let d = TempDir::new("trusted");
    d.file("p.xml", PLAIN);
    for (k, c, out) in
        [("rsa/rsa-4096-key.pem", "rsa/rsa-4096-cert.pem", "a.xml"), ("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", "b.xml")]
    {
        let o = vtdx(d.path(), &["sign", "--key", &key(k), "--cert", &key(c), "-o", out, "p.xml"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let ca2 = key("ca2cert.pem");
    let crl = key("rsa/rsa-2048-cert-revoked-crl.pem");
    let at = "2026-03-20T00:00:00Z";
    // the certificate in the message, trusted through its CA
    let o = vtdx(d.path(), &["verify", "--trusted", &ca2, "--at", at, "a.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // not through another CA
    let o = vtdx(d.path(), &["verify", "--trusted", &key("same-subj-cert1.pem"), "--at", at, "a.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("does not chain to a trust anchor"), "{}", stderr(&o));
    // before it is valid
    let o = vtdx(d.path(), &["verify", "--trusted", &ca2, "--at", "2025-01-01T00:00:00Z", "a.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("is not valid before"), "{}", stderr(&o));
    // revoked by the CA's CRL
    let o = vtdx(d.path(), &["verify", "--trusted", &ca2, "--crl", &crl, "--at", at, "b.xml"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("is revoked"), "{}", stderr(&o));
    let o = vtdx(d.path(), &["verify", "--trusted", &ca2, "--crl", &crl, "--at", at, "a.xml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // --crl needs --trusted
    let o = vtdx(d.path(), &["verify", "--cert", &key("rsa/rsa-4096-cert.pem"), "--crl", &crl, "a.xml"]);
    assert_eq!(code(&o), 2);
}
