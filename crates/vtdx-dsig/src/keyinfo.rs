//! `KeyInfo` as a selector among the caller's keys (XML Signature §4.5).
//!
//! Nothing in `KeyInfo` is ever used as a key. Each child names a key —
//! by name, certificate, issuer and serial, subject key identifier, subject
//! name, certificate digest, or by value — and the caller's keys that fit
//! one of the names are the candidates. A selector that could be compared with
//! the caller's keys but matches none of them is an `UntrustedKey` error: the
//! message says it was signed with a key the caller did not give.

use vtdx_core::Node;

use crate::alg::{DigestAlgorithm, DSIG11_NS, DSIG_NS};
use crate::crypto::CryptoProvider;
use crate::error::{Error, ErrorKind};
use crate::key::{decode_base64, Certificate, Curve, KeyMaterial, VerifyingKey};
use crate::reference::IdIndex;
use crate::wss::{BASE64_BINARY, THUMBPRINT_SHA1, WSSE_NS, X509V3, X509_SKI};

#[derive(Debug)]
enum Selector {
    Name(String),
    Cert(Vec<u8>),
    IssuerSerial(String, String),
    Ski(Vec<u8>),
    Subject(String),
    CertDigest(DigestAlgorithm, Vec<u8>),
    Value(KeyMaterial),
    /// A key value of a type this implementation does not offer (DSA...): matches no key.
    Other(String),
}

fn ds<'d>(n: Node<'d>, ns: &'static str) -> impl Iterator<Item = Node<'d>> + 'd {
    n.element_children().filter(move |c| c.namespace_uri() == Some(ns))
}

fn b64(n: Node<'_>, what: &'static str) -> Result<Vec<u8>, Error> {
    decode_base64(&n.value()).ok_or_else(|| Error::at(ErrorKind::Base64(what), n.range().start))
}

fn child_text(n: Node<'_>, ns: &'static str, local: &str) -> Option<String> {
    ds(n, ns).find(|c| c.local_name() == local).map(|c| c.value().trim().to_string())
}

/// `wsse:SecurityTokenReference` (WSS X.509 Token Profile 1.1 §3.2): a
/// Reference to a BinarySecurityToken of the message by `#id` (its certificate
/// then selects, as an `X509Certificate` would), a KeyIdentifier by subject
/// key identifier or SHA-1 thumbprint, or `ds:X509Data` issuer and serial.
fn str_selectors(str_el: Node<'_>, ids: &IdIndex<'_>, out: &mut Vec<Selector>) -> Result<(), Error> {
    let str_err = |m: String, n: Node<'_>| Error::at(ErrorKind::SecurityTokenReference(m), n.range().start);
    for c in str_el.element_children() {
        match (c.namespace_uri(), c.local_name()) {
            (Some(WSSE_NS), "Reference") => {
                let uri = c.attribute("URI").map(|u| u.into_owned()).unwrap_or_default();
                let Some(id) = uri.strip_prefix('#') else {
                    return Err(Error::at(ErrorKind::ExternalReference(uri), c.range().start));
                };
                let tok = ids.get(id).map_err(|k| Error::at(k, c.range().start))?;
                if !(tok.local_name() == "BinarySecurityToken" && tok.namespace_uri() == Some(WSSE_NS)) {
                    return Err(str_err(format!("`#{id}` is a {}, not a wsse:BinarySecurityToken", tok.name()), c));
                }
                let vt = tok.attribute("ValueType").unwrap_or_default();
                if vt != X509V3 {
                    out.push(Selector::Other(format!("BinarySecurityToken of ValueType `{vt}`")));
                    continue;
                }
                if tok.attribute("EncodingType").is_some_and(|e| e != BASE64_BINARY) {
                    return Err(str_err("the BinarySecurityToken is not Base64Binary".into(), tok));
                }
                out.push(Selector::Cert(b64(tok, "BinarySecurityToken")?));
            }
            (Some(WSSE_NS), "KeyIdentifier") => {
                let vt = c.attribute("ValueType").unwrap_or_default();
                if c.attribute("EncodingType").is_some_and(|e| e != BASE64_BINARY) {
                    return Err(str_err("the KeyIdentifier is not Base64Binary".into(), c));
                }
                match vt.as_ref() {
                    X509_SKI => out.push(Selector::Ski(b64(c, "KeyIdentifier")?)),
                    // a thumbprint only *selects* a certificate the caller gave: SHA-1 is not trusted for integrity here
                    THUMBPRINT_SHA1 => out.push(Selector::CertDigest(DigestAlgorithm::Sha1, b64(c, "KeyIdentifier")?)),
                    X509V3 => out.push(Selector::Cert(b64(c, "KeyIdentifier")?)),
                    other => out.push(Selector::Other(format!("KeyIdentifier of ValueType `{other}`"))),
                }
            }
            (Some(DSIG_NS), "X509Data") => x509_data(c, out)?,
            _ => out.push(Selector::Other(format!("{} in a SecurityTokenReference", c.name()))),
        }
    }
    Ok(())
}

fn x509_data(c: Node<'_>, out: &mut Vec<Selector>) -> Result<(), Error> {
    for x in c.element_children() {
        let xat = x.range().start;
        match (x.namespace_uri(), x.local_name()) {
            (Some(DSIG_NS), "X509Certificate") => out.push(Selector::Cert(b64(x, "X509Certificate")?)),
            (Some(DSIG_NS), "X509SKI") => out.push(Selector::Ski(b64(x, "X509SKI")?)),
            (Some(DSIG_NS), "X509SubjectName") => out.push(Selector::Subject(x.value().trim().to_string())),
            (Some(DSIG_NS), "X509IssuerSerial") => {
                let i = child_text(x, DSIG_NS, "X509IssuerName");
                let s = child_text(x, DSIG_NS, "X509SerialNumber");
                match (i, s) {
                    (Some(i), Some(s)) => out.push(Selector::IssuerSerial(i, s)),
                    _ => return Err(Error::at(ErrorKind::Malformed("X509IssuerSerial without issuer and serial".into()), xat)),
                }
            }
            (Some(DSIG11_NS), "X509Digest") => {
                let uri = x.attribute("Algorithm").unwrap_or_default();
                let d = DigestAlgorithm::from_uri(&uri).map_err(|k| Error::at(k, xat))?;
                out.push(Selector::CertDigest(d, b64(x, "X509Digest")?));
            }
            _ => {} // X509CRL and extensions select nothing
        }
    }
    Ok(())
}

fn selectors(key_info: Node<'_>, ids: &IdIndex<'_>) -> Result<Vec<Selector>, Error> {
    let mut out = Vec::new();
    for c in key_info.element_children() {
        let at = c.range().start;
        match (c.namespace_uri(), c.local_name()) {
            (Some(DSIG_NS), "RetrievalMethod") => return Err(Error::at(ErrorKind::RetrievalMethod, at)),
            (Some(DSIG_NS), "KeyName") => out.push(Selector::Name(c.value().trim().to_string())),
            (Some(DSIG_NS), "KeyValue") => {
                for v in c.element_children() {
                    out.push(match (v.namespace_uri(), v.local_name()) {
                        (Some(DSIG_NS), "RSAKeyValue") => {
                            let m = ds(v, DSIG_NS).find(|x| x.local_name() == "Modulus");
                            let e = ds(v, DSIG_NS).find(|x| x.local_name() == "Exponent");
                            match (m, e) {
                                (Some(m), Some(e)) => Selector::Value(KeyMaterial::rsa(&b64(m, "Modulus")?, &b64(e, "Exponent")?)?),
                                _ => {
                                    return Err(Error::at(
                                        ErrorKind::Malformed("RSAKeyValue without Modulus and Exponent".into()),
                                        v.range().start,
                                    ))
                                }
                            }
                        }
                        (Some(DSIG11_NS), "ECKeyValue") => {
                            let curve = ds(v, DSIG11_NS).find(|x| x.local_name() == "NamedCurve").and_then(|x| x.attribute("URI"));
                            let point = ds(v, DSIG11_NS).find(|x| x.local_name() == "PublicKey");
                            match (curve.as_deref().and_then(Curve::from_oid), point) {
                                (Some(curve), Some(p)) => match KeyMaterial::ec(curve, &b64(p, "PublicKey")?) {
                                    Ok(m) => Selector::Value(m),
                                    Err(_) => Selector::Other("EC key value".into()),
                                },
                                _ => Selector::Other("EC key value".into()),
                            }
                        }
                        _ => Selector::Other(v.name().to_string()),
                    });
                }
            }
            (Some(DSIG11_NS), "DEREncodedKeyValue") => match KeyMaterial::from_spki_der(&b64(c, "DEREncodedKeyValue")?) {
                Ok(m) => out.push(Selector::Value(m)),
                Err(_) => out.push(Selector::Other("DER-encoded key value".into())),
            },
            (Some(DSIG_NS), "X509Data") => x509_data(c, &mut out)?,
            (Some(WSSE_NS), "SecurityTokenReference") => str_selectors(c, ids, &mut out)?,
            _ => {} // KeyInfoReference, PGPData...: select nothing
        }
    }
    Ok(out)
}

fn matches(s: &Selector, k: &VerifyingKey, provider: &dyn CryptoProvider) -> bool {
    let cert = k.certificate();
    match s {
        Selector::Name(n) => k.name() == Some(n.as_str()),
        Selector::Cert(der) => match cert {
            Some(c) => c.der() == der.as_slice(),
            None => Certificate::from_der(der).is_ok_and(|c| c.key() == k.material()),
        },
        Selector::IssuerSerial(i, s) => cert.is_some_and(|c| c.issuer_matches(i) && c.serial_matches(s)),
        Selector::Ski(ski) => cert.is_some_and(|c| c.subject_key_id() == Some(ski.as_slice())),
        Selector::Subject(dn) => cert.is_some_and(|c| c.subject_matches(dn)),
        Selector::CertDigest(alg, d) => {
            cert.is_some_and(|c| provider.digest(*alg).is_ok_and(|mut ctx| ctx.write_all(c.der()).is_ok() && ctx.finish() == *d))
        }
        Selector::Value(m) => k.material() == m,
        Selector::Other(_) => false,
    }
}

/// Can `s` be compared with the caller's keys at all? A KeyName when none of
/// them has a name, or issuer/serial when none has a certificate, cannot.
fn applicable(s: &Selector, keys: &[VerifyingKey]) -> bool {
    match s {
        Selector::Name(_) => keys.iter().any(|k| k.name().is_some()),
        Selector::IssuerSerial(..) | Selector::Ski(_) | Selector::Subject(_) | Selector::CertDigest(..) => {
            keys.iter().any(|k| k.certificate().is_some())
        }
        Selector::Cert(_) | Selector::Value(_) | Selector::Other(_) => true,
    }
}

fn describe(s: &Selector) -> String {
    match s {
        Selector::Name(n) => format!("KeyName `{n}`"),
        Selector::Cert(_) => "an X509Certificate".into(),
        Selector::IssuerSerial(i, s) => format!("issuer `{i}` serial {s}"),
        Selector::Ski(_) => "an X509SKI".into(),
        Selector::Subject(d) => format!("subject `{d}`"),
        Selector::CertDigest(..) => "an X509Digest".into(),
        Selector::Value(m) => format!("a KeyValue ({})", m.describe()),
        Selector::Other(w) => format!("a {w} (not offered)"),
    }
}

/// The indexes of the caller's keys that `KeyInfo` selects (all of them when
/// it is absent or names nothing comparable).
pub(crate) fn select(
    key_info: Option<Node<'_>>,
    keys: &[VerifyingKey],
    provider: &dyn CryptoProvider,
    ids: &IdIndex<'_>,
) -> Result<Vec<usize>, Error> {
    if keys.is_empty() {
        return Err(ErrorKind::NoKey.into());
    }
    let Some(ki) = key_info else { return Ok((0..keys.len()).collect()) };
    let sels: Vec<Selector> = selectors(ki, ids)?.into_iter().filter(|s| applicable(s, keys)).collect();
    if sels.is_empty() {
        return Ok((0..keys.len()).collect());
    }
    let chosen: Vec<usize> = (0..keys.len()).filter(|&i| sels.iter().any(|s| matches(s, &keys[i], provider))).collect();
    if chosen.is_empty() {
        let what = sels.iter().map(describe).collect::<Vec<_>>().join(", ");
        return Err(Error::at(ErrorKind::UntrustedKey(what), ki.range().start));
    }
    Ok(chosen)
}

use std::io::Write as _;

/// The certificates `KeyInfo` carries (`X509Certificate`, and BinarySecurityTokens
/// a SecurityTokenReference names), at most `max`, for path validation:
/// never keys by themselves.
pub(crate) fn message_certificates(key_info: Option<Node<'_>>, ids: &IdIndex<'_>, max: usize) -> Result<Vec<Certificate>, Error> {
    let Some(ki) = key_info else { return Ok(Vec::new()) };
    let mut out: Vec<Certificate> = Vec::new();
    for s in selectors(ki, ids)? {
        if let Selector::Cert(der) = s {
            if out.len() < max && !out.iter().any(|c| c.der() == der.as_slice()) {
                if let Ok(c) = Certificate::from_der(&der) {
                    out.push(c);
                }
            }
        }
    }
    Ok(out)
}
