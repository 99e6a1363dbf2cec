//! WS-Security on verify: SecurityTokenReference key selection (never trust
//! the token's certificate by itself), Timestamp freshness, `mustUnderstand`,
//! the SOAP structure rules and the UsernameToken validator — each rule with
//! an attack that it refuses with its own error kind.
//!
//! The expected identifiers of the rsa-2048 test certificate (issuer, serial,
//! subject key identifier, SHA-1 thumbprint) were read with `openssl x509`.

use std::time::{Duration, SystemTime};

use base64::Engine;
use vtdx_core::Document;
use vtdx_dsig::time::{format_rfc3339, parse_rfc3339};
use vtdx_dsig::{
    select_elements, Certificate, ErrorKind, InMemoryReplayCache, SignConfig, Signer, SigningKey, UsernameTokenValidator, Verifier,
    VerifyConfig, VerifyingKey, WssOptions,
};

use crate::sign::{key_pair, keys_dir};

const SOAP11: &str = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:Pay xmlns:m="urn:m">10</m:Pay></soap:Body></soap:Envelope>"#;
const WSSE: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
const WSU: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
const SKI_VT: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509SubjectKeyIdentifier";
const THUMB_VT: &str = "http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#ThumbprintSHA1";
const B64BIN: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";

fn cert(rel: &str) -> Certificate {
    Certificate::from_pem_or_der(&std::fs::read(keys_dir().join(rel)).unwrap()).unwrap()
}

/// The SOAP message signed with the WS-Security header by the rsa-2048 key.
fn signed_rsa() -> String {
    let (sk, _) = key_pair("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem");
    let doc = Document::parse(SOAP11.as_bytes()).unwrap();
    String::from_utf8(Signer::new(sk, SignConfig::default()).sign_wss(&doc, &WssOptions::default(), &[]).unwrap()).unwrap()
}

fn verify_with(msg: &str, keys: Vec<VerifyingKey>) -> Result<(), ErrorKind> {
    let doc = Document::parse(msg.as_bytes()).unwrap();
    Verifier::new(VerifyConfig::default(), keys).verify(&doc).map(|_| ()).map_err(|e| e.kind().clone())
}

fn rsa2048() -> VerifyingKey {
    VerifyingKey::from_certificate(cert("rsa/rsa-2048-cert.pem"))
}

/// Replaces the SecurityTokenReference's content (KeyInfo is not signed).
fn with_str(msg: &str, content: &str) -> String {
    let i = msg.find("<wsse:SecurityTokenReference").unwrap();
    let open_end = msg[i..].find('>').unwrap() + i + 1;
    let close = msg.find("</wsse:SecurityTokenReference>").unwrap();
    format!("{}{content}{}", &msg[..open_end], &msg[close..])
}

#[test]
fn str_reference_to_the_token_selects_only_the_callers_certificate() {
    let msg = signed_rsa();
    assert_eq!(verify_with(&msg, vec![rsa2048()]), Ok(()));
    // the token's certificate is not one of the caller's: refused, even though it verifies the signature
    assert!(matches!(
        verify_with(&msg, vec![VerifyingKey::from_certificate(cert("rsa/rsa-4096-cert.pem"))]),
        Err(ErrorKind::UntrustedKey(_))
    ));
    // the caller's key plus another: the token selects the right one
    let keys = vec![VerifyingKey::from_certificate(cert("rsa/rsa-4096-cert.pem")), rsa2048()];
    assert_eq!(verify_with(&msg, keys), Ok(()));
    // an attacker re-signs with their own key and puts their certificate in the token
    let (attacker, _) = key_pair("rsa/rsa-4096-key.pem", "rsa/rsa-4096-cert.pem");
    let doc = Document::parse(SOAP11.as_bytes()).unwrap();
    let forged =
        String::from_utf8(Signer::new(attacker, SignConfig::default()).sign_wss(&doc, &WssOptions::default(), &[]).unwrap()).unwrap();
    assert!(matches!(verify_with(&forged, vec![rsa2048()]), Err(ErrorKind::UntrustedKey(_))));
    // ... or keeps the victim's token but signs with their key: the selected key does not verify
    let bst = |m: &str| {
        let i = m.find("<wsse:BinarySecurityToken").unwrap();
        let j = m.find("</wsse:BinarySecurityToken>").unwrap() + "</wsse:BinarySecurityToken>".len();
        m[i..j].to_string()
    };
    let victim_token = bst(&msg);
    let attacker_token = bst(&forged);
    let id = |t: &str| t.split("wsu:Id=\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let swapped = forged.replace(&attacker_token, &victim_token.replace(&id(&victim_token), &id(&attacker_token)));
    assert_eq!(verify_with(&swapped, vec![rsa2048()]), Err(ErrorKind::InvalidSignature));
}

#[test]
fn str_reference_errors() {
    let msg = signed_rsa();
    let r = |uri: &str| with_str(&msg, &format!(r#"<wsse:Reference URI="{uri}"/>"#));
    assert_eq!(verify_with(&r("#missing"), vec![rsa2048()]), Err(ErrorKind::IdNotFound("missing".into())));
    assert_eq!(
        verify_with(&r("http://evil.example/cert"), vec![rsa2048()]),
        Err(ErrorKind::ExternalReference("http://evil.example/cert".into()))
    );
    // pointing at the Timestamp, not a token
    let ts_id = msg.split("<wsu:Timestamp").nth(1).unwrap().split("wsu:Id=\"").nth(1).unwrap().split('"').next().unwrap();
    assert!(matches!(verify_with(&r(&format!("#{ts_id}")), vec![rsa2048()]), Err(ErrorKind::SecurityTokenReference(_))));
}

#[test]
fn str_key_identifiers_and_issuer_serial() {
    let msg = signed_rsa();
    let ki = |vt: &str, v: &str| {
        with_str(&msg, &format!(r#"<wsse:KeyIdentifier EncodingType="{B64BIN}" ValueType="{vt}">{v}</wsse:KeyIdentifier>"#))
    };
    // subject key identifier and SHA-1 thumbprint of the rsa-2048 certificate (openssl x509)
    assert_eq!(verify_with(&ki(SKI_VT, "bcOXN/nsVl8GatRbcKrPbzIbw0Y="), vec![rsa2048()]), Ok(()));
    assert_eq!(verify_with(&ki(THUMB_VT, "0SRn3soHyXpJTOMGSFEOp8rza/M="), vec![rsa2048()]), Ok(()));
    assert!(matches!(verify_with(&ki(SKI_VT, "AAAAAAAAAAAAAAAAAAAAAAAAAAA="), vec![rsa2048()]), Err(ErrorKind::UntrustedKey(_))));
    assert!(matches!(verify_with(&ki(THUMB_VT, "AAAAAAAAAAAAAAAAAAAAAAAAAAA="), vec![rsa2048()]), Err(ErrorKind::UntrustedKey(_))));
    let issuer = "emailAddress=xmlsec@aleksey.com,CN=Aleksey Sanin,OU=Second level CA,O=XML Security Library (http://www.aleksey.com/xmlsec),ST=California,C=US";
    let is = |serial: &str| {
        with_str(
            &msg,
            &format!(
                r#"<ds:X509Data><ds:X509IssuerSerial><ds:X509IssuerName>{issuer}</ds:X509IssuerName><ds:X509SerialNumber>{serial}</ds:X509SerialNumber></ds:X509IssuerSerial></ds:X509Data>"#
            ),
        )
    };
    assert_eq!(verify_with(&is("680572598617295163017172295025714171905498632019"), vec![rsa2048()]), Ok(()));
    assert!(matches!(verify_with(&is("12345"), vec![rsa2048()]), Err(ErrorKind::UntrustedKey(_))));
}

/// A SOAP 1.1 message with a Security header holding `security` (its children), signed
/// (Body only, by the HMAC key) with a detached reference.
fn with_security(security_attrs: &str, security: &str) -> String {
    let msg = format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><wsse:Security xmlns:wsse="{WSSE}" xmlns:wsu="{WSU}"{security_attrs}>{security}</wsse:Security></soap:Header><soap:Body><m:Pay xmlns:m="urn:m">10</m:Pay></soap:Body></soap:Envelope>"#
    );
    let doc = Document::parse(msg.as_bytes()).unwrap();
    let body = select_elements(&doc, "/soap:Envelope/soap:Body").unwrap();
    let out = Signer::new(SigningKey::hmac(crate::sign::HMAC_SECRET).unwrap(), SignConfig::default()).sign_detached(&doc, &body).unwrap();
    String::from_utf8(out).unwrap()
}

fn hmac() -> Vec<VerifyingKey> {
    vec![VerifyingKey::hmac(crate::sign::HMAC_SECRET).unwrap()]
}

fn ts(created: SystemTime, expires: Option<SystemTime>) -> String {
    let e = expires.map(|e| format!("<wsu:Expires>{}</wsu:Expires>", format_rfc3339(e))).unwrap_or_default();
    format!(r#"<wsu:Timestamp wsu:Id="ts"><wsu:Created>{}</wsu:Created>{e}</wsu:Timestamp>"#, format_rfc3339(created))
}

#[test]
fn timestamp_freshness() {
    let now = SystemTime::now();
    let min = |m: u64| Duration::from_secs(60 * m);
    assert_eq!(verify_with(&with_security("", &ts(now, Some(now + min(5)))), hmac()), Ok(()));
    // expired 10 minutes ago (beyond the 5 minutes of skew)
    let old = with_security("", &ts(now - min(20), Some(now - min(10))));
    assert!(matches!(verify_with(&old, hmac()), Err(ErrorKind::TimestampExpired { skew: 300, .. })));
    // expired 2 minutes ago: within the skew
    assert_eq!(verify_with(&with_security("", &ts(now - min(7), Some(now - min(2)))), hmac()), Ok(()));
    // created 10 minutes in the future
    let future = with_security("", &ts(now + min(10), Some(now + min(15))));
    assert!(matches!(verify_with(&future, hmac()), Err(ErrorKind::TimestampInFuture { .. })));
    // an archived message, judged at the time it was sent
    let doc = Document::parse(old.as_bytes()).unwrap();
    let at = VerifyConfig::builder().now(now - min(15)).build();
    assert!(Verifier::new(at, hmac()).verify(&doc).is_ok());
    // a tighter skew
    let skewed = with_security("", &ts(now - min(7), Some(now - min(2))));
    let doc = Document::parse(skewed.as_bytes()).unwrap();
    let tight = VerifyConfig::builder().max_clock_skew(Duration::from_secs(60)).build();
    assert!(matches!(Verifier::new(tight, hmac()).verify(&doc).unwrap_err().kind(), ErrorKind::TimestampExpired { skew: 60, .. }));
}

#[test]
fn timestamp_malformed() {
    let bad = |inner: &str| with_security("", &format!(r#"<wsu:Timestamp>{inner}</wsu:Timestamp>"#));
    for inner in [
        "<wsu:Expires>2030-01-01T00:00:00Z</wsu:Expires>",
        "<wsu:Created>yesterday</wsu:Created>",
        "<wsu:Created>2020-01-01T00:00:00</wsu:Created>",
        "<wsu:Created>2020-01-01T00:00:00Z</wsu:Created><wsu:Created>2020-01-01T00:00:00Z</wsu:Created>",
        "<wsu:Created>2020-01-02T00:00:00Z</wsu:Created><wsu:Expires>2020-01-01T00:00:00Z</wsu:Expires>",
    ] {
        assert!(matches!(verify_with(&bad(inner), hmac()), Err(ErrorKind::TimestampMalformed(_))), "{inner}");
    }
}

#[test]
fn required_timestamp_must_be_present_and_signed() {
    let now = SystemTime::now();
    let require = |msg: &str| {
        let doc = Document::parse(msg.as_bytes()).unwrap();
        Verifier::new(VerifyConfig::builder().require_timestamp(true).build(), hmac())
            .verify(&doc)
            .map(|_| ())
            .map_err(|e| e.kind().clone())
    };
    // present and fresh, but only the Body is signed
    let unsigned = with_security("", &ts(now, Some(now + Duration::from_secs(300))));
    assert_eq!(verify_with(&unsigned, hmac()), Ok(()));
    assert!(matches!(require(&unsigned), Err(ErrorKind::TimestampRequired(_))));
    let doc = Document::parse(unsigned.as_bytes()).unwrap();
    assert!(!Verifier::new(VerifyConfig::default(), hmac()).verify(&doc).unwrap().timestamp_signed());
    // absent
    assert!(matches!(require(&with_security("", "")), Err(ErrorKind::TimestampRequired(_))));
    // present and signed
    let doc = Document::parse(SOAP11.as_bytes()).unwrap();
    let wss = Signer::new(SigningKey::hmac(crate::sign::HMAC_SECRET).unwrap(), SignConfig::default())
        .sign_wss(&doc, &WssOptions::default(), &[])
        .unwrap();
    assert_eq!(require(std::str::from_utf8(&wss).unwrap()), Ok(()));
}

#[test]
fn must_understand_and_security_headers() {
    let enc = r#"<xenc:EncryptedKey xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"/>"#;
    let mu = |v: &str, inner: &str| with_security(&format!(r#" soap:mustUnderstand="{v}""#), inner);
    assert!(matches!(verify_with(&mu("1", enc), hmac()), Err(ErrorKind::MustUnderstand(_))));
    assert!(matches!(verify_with(&mu("yes", ""), hmac()), Err(ErrorKind::MustUnderstand(_))));
    // SOAP 1.1 has no `true`
    assert!(matches!(verify_with(&mu("true", ""), hmac()), Err(ErrorKind::MustUnderstand(_))));
    assert_eq!(verify_with(&mu("0", enc), hmac()), Ok(()));
    assert_eq!(verify_with(&mu("1", ""), hmac()), Ok(()));
    // two Security headers for the ultimate receiver
    let two = with_security("", "").replacen("<soap:Header>", &format!(r#"<soap:Header><wsse:Security xmlns:wsse="{WSSE}"/>"#), 1);
    assert_eq!(verify_with(&two, hmac()), Err(ErrorKind::DuplicateSecurityHeader));
    // one for another actor is fine
    let other = with_security("", "").replacen(
        "<soap:Header>",
        &format!(r#"<soap:Header><wsse:Security xmlns:wsse="{WSSE}" soap:actor="urn:intermediary"/>"#),
        1,
    );
    assert_eq!(verify_with(&other, hmac()), Ok(()));
}

/// The error of `msg` and its byte offset.
fn error_at(msg: &str, keys: Vec<VerifyingKey>, cfg: VerifyConfig) -> (ErrorKind, Option<usize>) {
    let doc = Document::parse(msg.as_bytes()).unwrap();
    let e = Verifier::new(cfg, keys).verify(&doc).unwrap_err();
    (e.kind().clone(), e.offset())
}

/// The SOAP structure errors point at what is wrong: the `<!DOCTYPE`, the second
/// Envelope, the Security header that lacks the required Timestamp.
#[test]
fn soap_structure_errors_have_positions() {
    let msg = signed_rsa();
    let dt = format!("<?xml version='1.0'?>\n<!DOCTYPE soap:Envelope>{msg}");
    assert_eq!(error_at(&dt, vec![rsa2048()], VerifyConfig::default()), (ErrorKind::SoapDoctype, Some(22)));
    let second = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>"#;
    let nested = msg.replacen("<m:Pay", &format!("{second}<m:Pay"), 1);
    let at = nested.find(second).unwrap();
    assert_eq!(error_at(&nested, vec![rsa2048()], VerifyConfig::default()), (ErrorKind::SoapEnvelopeCount(2), Some(at)));
    let no_ts = with_security("", "");
    let required = VerifyConfig::builder().require_timestamp(true).build();
    let (kind, off) = error_at(&no_ts, hmac(), required);
    assert!(matches!(kind, ErrorKind::TimestampRequired(_)) && off == no_ts.find("<wsse:Security"), "{kind:?} {off:?}");
}

#[test]
fn soap_structure_rules() {
    let msg = signed_rsa();
    // a DOCTYPE
    let dt = format!("<!DOCTYPE soap:Envelope>{msg}");
    assert_eq!(verify_with(&dt, vec![rsa2048()]), Err(ErrorKind::SoapDoctype));
    let dt = format!("<!DOCTYPE soap:Envelope [<!ENTITY x 'y'>]>{msg}");
    assert_eq!(verify_with(&dt, vec![rsa2048()]), Err(ErrorKind::SoapDoctype));
    // a second Envelope, nested in the Body
    let nested = msg.replacen(
        "<m:Pay",
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope><m:Pay"#,
        1,
    );
    assert_eq!(verify_with(&nested, vec![rsa2048()]), Err(ErrorKind::SoapEnvelopeCount(2)));
    // no Body; a Body of the other SOAP version in a header
    let no_body = r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header/></soap:Envelope>"#;
    assert_eq!(verify_with(no_body, vec![rsa2048()]), Err(ErrorKind::SoapBodyCount(0)));
    let other = msg.replacen("<soap:Header>", r#"<soap:Header><b:Body xmlns:b="http://www.w3.org/2003/05/soap-envelope"/>"#, 1);
    assert_eq!(verify_with(&other, vec![rsa2048()]), Err(ErrorKind::SoapBodyCount(2)));
}

/// `SoapMessage::parse` by itself (what signing and encryption call) counts every
/// Envelope and Body in the document: a second one anywhere in a long Body (after
/// 0 to 59 other elements, at any depth, under any prefix) is refused, and the
/// same message without it is accepted.
#[test]
fn soap_structure_rules_hold_anywhere_in_a_long_body() {
    const ENV: &str = "http://schemas.xmlsoap.org/soap/envelope/";
    const ENV12: &str = "http://www.w3.org/2003/05/soap-envelope";
    let parse = |x: &str| {
        let doc = Document::parse(x.as_bytes()).unwrap();
        vtdx_dsig::SoapMessage::parse(&doc).map(|m| m.is_some()).map_err(|e| e.kind().clone())
    };
    for n in 0..60 {
        let filler: String = (0..n).map(|i| format!("<m:i n='{i}'><m:j>{i}</m:j></m:i>")).collect();
        let msg = |extra: &str| {
            format!("<soap:Envelope xmlns:soap='{ENV}'><soap:Header/><soap:Body><m:r xmlns:m='urn:m'>{filler}{extra}</m:r></soap:Body></soap:Envelope>")
        };
        assert_eq!(parse(&msg("")), Ok(true), "{n}");
        assert_eq!(parse(&msg(&format!("<e:Envelope xmlns:e='{ENV}'/>"))), Err(ErrorKind::SoapEnvelopeCount(2)), "{n}");
        assert_eq!(parse(&msg("<m:x><soap:Body/></m:x>")), Err(ErrorKind::SoapBodyCount(2)), "{n}");
        assert_eq!(parse(&msg(&format!("<b:Body xmlns:b='{ENV12}'/>"))), Err(ErrorKind::SoapBodyCount(2)), "{n}");
        assert_eq!(parse(&msg("<soap:Body xmlns:soap='urn:not-soap'/>")), Ok(true), "{n}");
    }
}

// ---- UsernameToken --------------------------------------------------------------------

const PW_TEXT: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText";
const PW_DIGEST: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest";

fn ut_message(user: &str, pw_type: &str, pw: &str, nonce: Option<&str>, created: Option<&str>) -> String {
    let n = nonce.map(|n| format!(r#"<wsse:Nonce EncodingType="{B64BIN}">{n}</wsse:Nonce>"#)).unwrap_or_default();
    let c = created.map(|c| format!("<wsu:Created>{c}</wsu:Created>")).unwrap_or_default();
    format!(
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><wsse:Security xmlns:wsse="{WSSE}" xmlns:wsu="{WSU}"><wsse:UsernameToken><wsse:Username>{user}</wsse:Username><wsse:Password Type="{pw_type}">{pw}</wsse:Password>{n}{c}</wsse:UsernameToken></wsse:Security></soap:Header><soap:Body/></soap:Envelope>"#
    )
}

/// Base64(SHA-1(nonce + created + password)), WSS UsernameToken Profile 1.1 §3.1.
fn digest(nonce: &[u8], created: &str, password: &str) -> String {
    let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(nonce);
    ctx.update(created.as_bytes());
    ctx.update(password.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(ctx.finish().as_ref())
}

fn check(v: &UsernameTokenValidator<InMemoryReplayCache>, msg: &str, user: &str, pw: &str) -> Result<bool, ErrorKind> {
    let doc = Document::parse(msg.as_bytes()).unwrap();
    v.validate(&doc, user, pw).map(|i| i.digest).map_err(|e| e.kind().clone())
}

#[test]
fn username_token_password_text() {
    let v = UsernameTokenValidator::new(InMemoryReplayCache::new());
    let m = ut_message("alice", PW_TEXT, "s3cret", None, None);
    assert_eq!(check(&v, &m, "alice", "s3cret"), Ok(false));
    assert_eq!(check(&v, &m, "alice", "wrong"), Err(ErrorKind::WrongPassword));
    assert_eq!(check(&v, &m, "bob", "s3cret"), Err(ErrorKind::WrongUsername));
    let strict = UsernameTokenValidator::new(InMemoryReplayCache::new()).allow_password_text(false);
    assert!(matches!(check(&strict, &m, "alice", "s3cret"), Err(ErrorKind::UsernameToken(_))));
    assert!(matches!(check(&v, SOAP11, "alice", "s3cret"), Err(ErrorKind::UsernameToken(_))));
}

#[test]
fn username_token_password_digest_and_replay() {
    let now = SystemTime::now();
    let created = format_rfc3339(now);
    let nonce = b"0123456789abcdef";
    let n64 = base64::engine::general_purpose::STANDARD.encode(nonce);
    let v = UsernameTokenValidator::new(InMemoryReplayCache::new());
    let m = ut_message("alice", PW_DIGEST, &digest(nonce, &created, "s3cret"), Some(&n64), Some(&created));
    assert_eq!(check(&v, &m, "alice", "wrong"), Err(ErrorKind::WrongPassword));
    assert_eq!(check(&v, &m, "alice", "s3cret"), Ok(true));
    // the same message again: the nonce was used
    assert_eq!(check(&v, &m, "alice", "s3cret"), Err(ErrorKind::ReplayedNonce));
    assert_eq!(v.cache().len(), 1);
    // a digest without Nonce or Created
    let m = ut_message("alice", PW_DIGEST, &digest(b"", &created, "s3cret"), None, Some(&created));
    assert!(matches!(check(&v, &m, "alice", "s3cret"), Err(ErrorKind::UsernameToken(_))));
    // created an hour ago, or an hour ahead
    for t in [now - Duration::from_secs(3600), now + Duration::from_secs(3600)] {
        let c = format_rfc3339(t);
        let m = ut_message("alice", PW_DIGEST, &digest(b"other-nonce", &c, "s3cret"), Some("b3RoZXItbm9uY2U="), Some(&c));
        assert!(matches!(check(&v, &m, "alice", "s3cret"), Err(ErrorKind::UsernameTokenStale { .. })), "{c}");
    }
    // an archived message, judged at its time
    let t = parse_rfc3339("2020-06-01T10:00:00Z").unwrap();
    let c = "2020-06-01T10:00:00Z";
    let m = ut_message("alice", PW_DIGEST, &digest(b"n2", c, "s3cret"), Some("bjI="), Some(c));
    let archived = UsernameTokenValidator::new(InMemoryReplayCache::new()).now(t + Duration::from_secs(10));
    assert_eq!(check(&archived, &m, "alice", "s3cret"), Ok(true));
}

#[test]
fn two_timestamps_in_one_header_are_refused() {
    let now = SystemTime::now();
    let one = ts(now, Some(now + Duration::from_secs(300)));
    let two = with_security("", &format!("{one}{}", one.replace("wsu:Id=\"ts\"", "wsu:Id=\"ts2\"")));
    assert!(matches!(verify_with(&two, hmac()), Err(ErrorKind::TimestampMalformed(_))));
}

const SOAP12: &str = r#"<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body><m:Pay xmlns:m="urn:m">10</m:Pay></env:Body></env:Envelope>"#;

/// `msg` signed by the HMAC key with the usual WS-Security header (Body and
/// Timestamp signed, the Timestamp valid for 300 s from now).
fn wss_hmac(msg: &str) -> String {
    let doc = Document::parse(msg.as_bytes()).unwrap();
    let signer = Signer::new(SigningKey::hmac(crate::sign::HMAC_SECRET).unwrap(), SignConfig::default());
    String::from_utf8(signer.sign_wss(&doc, &WssOptions::default(), &[]).unwrap()).unwrap()
}

/// Verifies `msg` as of `later` seconds from now: the message's coverage of its
/// Body and Timestamp when it verifies.
fn verify_later(msg: &str, later: u64) -> Result<(bool, bool), ErrorKind> {
    let doc = Document::parse(msg.as_bytes()).unwrap();
    let cfg = VerifyConfig::builder().now(SystemTime::now() + Duration::from_secs(later)).build();
    let v = Verifier::new(cfg, hmac()).verify(&doc).map_err(|e| e.kind().clone())?;
    Ok((v.covers_payload(), v.timestamp_signed()))
}

/// Adds `attr` to the Security header's start tag (unsigned markup).
fn retarget(msg: &str, attr: &str) -> String {
    msg.replacen("<wsse:Security ", &format!("<wsse:Security {attr} "), 1)
}

/// A Security header with no actor/role, SOAP 1.1's `actor/next`, SOAP 1.2's
/// `role/next` or `role/ultimateReceiver` is addressed to this receiver (SOAP 1.1
/// §4.2.2, SOAP 1.2 Part 1 §2.2): its Timestamp is checked, so re-targeting the
/// header of an expired message to one of them does not make it acceptable.
#[test]
fn security_header_for_this_receiver_has_its_timestamp_checked() {
    let day = 86_400;
    let s11 = wss_hmac(SOAP11);
    let s12 = wss_hmac(SOAP12);
    let next11 = r#"soap:actor="http://schemas.xmlsoap.org/soap/actor/next""#;
    for msg in [
        s11.clone(),
        retarget(&s11, next11),
        retarget(&s11, r#"soap:actor="""#),
        s12.clone(),
        retarget(&s12, r#"env:role="http://www.w3.org/2003/05/soap-envelope/role/next""#),
        retarget(&s12, r#"env:role="http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver""#),
    ] {
        // fresh: accepted, Body and Timestamp covered
        assert_eq!(verify_later(&msg, 0), Ok((true, true)), "{msg}");
        // replayed a day later: expired
        assert!(matches!(verify_later(&msg, day), Err(ErrorKind::TimestampExpired { .. })), "{msg}");
    }
    // one with no actor and one for `actor/next`: both for this receiver
    let two = retarget(&s11, next11).replacen("<soap:Header>", &format!(r#"<soap:Header><wsse:Security xmlns:wsse="{WSSE}"/>"#), 1);
    assert_eq!(verify_later(&two, 0), Err(ErrorKind::DuplicateSecurityHeader));
    let two12 = s12.replacen(
        "<env:Header>",
        &format!(
            r#"<env:Header><wsse:Security xmlns:wsse="{WSSE}" env:role="http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver"/>"#
        ),
        1,
    );
    assert_eq!(verify_later(&two12, 0), Err(ErrorKind::DuplicateSecurityHeader));
}

/// A Security header for another actor/role is not processed: its Timestamp is
/// not checked, and its signatures cover nothing, so a message whose only
/// signature is there has neither its Body nor its Timestamp covered.
#[test]
fn security_header_for_another_actor_covers_nothing() {
    let day = 86_400;
    let s11 = wss_hmac(SOAP11);
    let s12 = wss_hmac(SOAP12);
    for msg in [
        retarget(&s11, r#"soap:actor="urn:nobody""#),
        // SOAP 1.2's URI means nothing to SOAP 1.1
        retarget(&s11, r#"soap:actor="http://www.w3.org/2003/05/soap-envelope/role/next""#),
        retarget(&s12, r#"env:role="urn:nobody""#),
        retarget(&s12, r#"env:role="http://www.w3.org/2003/05/soap-envelope/role/none""#),
    ] {
        assert_eq!(verify_later(&msg, 0), Ok((false, false)), "{msg}");
        assert_eq!(verify_later(&msg, day), Ok((false, false)), "{msg}");
    }
    // and its signatures are not listed among the verified ones
    let nobody = retarget(&s11, r#"soap:actor="urn:nobody""#);
    let doc = Document::parse(nobody.as_bytes()).unwrap();
    let v = Verifier::new(VerifyConfig::default(), hmac()).verify(&doc).unwrap();
    assert!(v.signatures().is_empty() && v.soap().unwrap().security.is_none());
}

/// A signed Timestamp that is not the child of the Security header addressed to
/// this receiver is refused (WS-Security 1.1 §10): moved into another header
/// block, to the Header itself, deeper into the Security header, or into a
/// header for another actor.
#[test]
fn signed_timestamp_out_of_its_header_is_refused() {
    let s11 = wss_hmac(SOAP11);
    let (i, j) = (s11.find("<wsu:Timestamp").unwrap(), s11.find("</wsu:Timestamp>").unwrap() + "</wsu:Timestamp>".len());
    let (ts, without) = (&s11[i..j], format!("{}{}", &s11[..i], &s11[j..]));
    for msg in [
        without.replacen("<soap:Header>", &format!(r#"<soap:Header><x:Old xmlns:x="urn:x">{ts}</x:Old>"#), 1),
        without.replacen("<soap:Header>", &format!("<soap:Header>{ts}"), 1),
        without.replacen(r#"soap:mustUnderstand="1""#, r#"soap:mustUnderstand="0""#, 1).replacen(
            "<ds:Signature",
            &format!(r#"<x:In xmlns:x="urn:x">{ts}</x:In><ds:Signature"#),
            1,
        ),
        without.replacen(
            "<soap:Header>",
            &format!(r#"<soap:Header><wsse:Security xmlns:wsse="{WSSE}" soap:actor="urn:b">{ts}</wsse:Security>"#),
            1,
        ),
    ] {
        assert_eq!(verify_later(&msg, 0), Err(ErrorKind::TimestampMisplaced), "{msg}");
    }
    // an unsigned one elsewhere is no concern of the signature's
    let unsigned =
        s11.replacen("<soap:Header>", &format!(r#"<soap:Header><x:Old xmlns:x="urn:x">{}</x:Old>"#, ts.replace("wsu:Id=", "x:n=")), 1);
    assert_eq!(verify_later(&unsigned, 0), Ok((true, true)));
}

/// Outside SOAP, a `wsu:Timestamp` a verified signature covers is checked for freshness.
#[test]
fn signed_timestamp_outside_soap_is_checked() {
    let now = SystemTime::now();
    let doc_with = |t: SystemTime| {
        let x = format!(r#"<a xmlns:wsu="{WSU}">{}<b>1</b></a>"#, ts(t, Some(t + Duration::from_secs(300))));
        let doc = Document::parse(x.as_bytes()).unwrap();
        String::from_utf8(
            Signer::new(SigningKey::hmac(crate::sign::HMAC_SECRET).unwrap(), SignConfig::default()).sign_enveloped(&doc).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(verify_with(&doc_with(now), hmac()), Ok(()));
    assert!(matches!(verify_with(&doc_with(now - Duration::from_secs(86_400)), hmac()), Err(ErrorKind::TimestampExpired { .. })));
}
