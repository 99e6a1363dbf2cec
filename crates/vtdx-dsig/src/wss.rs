//! SOAP and WS-Security 1.1 processing on verify: the structure of the
//! message, the `wsse:Security` header (`mustUnderstand`, one per role),
//! `wsu:Timestamp` freshness, and the [`UsernameTokenValidator`] with its
//! [`ReplayCache`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use base64::Engine;
use vtdx_core::{Document, Editor, Node};

use crate::alg::{DSIG_NS, WSU_NS};
use crate::error::{Error, ErrorKind};
use crate::key::decode_base64;
use crate::time::{format_rfc3339, parse_rfc3339};

/// The SOAP 1.1 envelope namespace.
pub const SOAP11_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// The SOAP 1.2 envelope namespace.
pub const SOAP12_NS: &str = "http://www.w3.org/2003/05/soap-envelope";
/// The WS-Security 1.0 extension namespace (`wsse`).
pub const WSSE_NS: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
/// The WS-Security 1.1 extension namespace (`wsse11`).
pub const WSSE11_NS: &str = "http://docs.oasis-open.org/wss/oasis-wss-wssecurity-secext-1.1.xsd";
/// `ValueType` of an X.509 v3 BinarySecurityToken.
pub const X509V3: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3";
/// `EncodingType` Base64Binary.
pub const BASE64_BINARY: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";
/// `ValueType` of a KeyIdentifier holding a subject key identifier.
pub const X509_SKI: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509SubjectKeyIdentifier";
/// `ValueType` of a KeyIdentifier holding the SHA-1 digest of a certificate.
pub const THUMBPRINT_SHA1: &str = "http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#ThumbprintSHA1";
/// `Type` of a clear-text UsernameToken password.
pub const PASSWORD_TEXT: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText";
/// `Type` of a digested UsernameToken password.
pub const PASSWORD_DIGEST: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest";

/// Which SOAP version an envelope is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoapVersion {
    /// SOAP 1.1 (`http://schemas.xmlsoap.org/soap/envelope/`).
    Soap11,
    /// SOAP 1.2 (`http://www.w3.org/2003/05/soap-envelope`).
    Soap12,
}

impl SoapVersion {
    /// The envelope namespace.
    pub fn namespace(self) -> &'static str {
        match self {
            SoapVersion::Soap11 => SOAP11_NS,
            SoapVersion::Soap12 => SOAP12_NS,
        }
    }
    /// The version of an element in an envelope namespace.
    pub fn of(n: Node<'_>) -> Option<SoapVersion> {
        match n.namespace_uri() {
            Some(SOAP11_NS) => Some(SoapVersion::Soap11),
            Some(SOAP12_NS) => Some(SoapVersion::Soap12),
            _ => None,
        }
    }
    /// The actor/role attribute's local name (`actor` in 1.1, `role` in 1.2).
    fn role_attr(self) -> &'static str {
        match self {
            SoapVersion::Soap11 => "actor",
            SoapVersion::Soap12 => "role",
        }
    }
}

/// The parts of a SOAP message, located by position: the document element
/// (the Envelope), its Header and Body children, the Security header addressed
/// to this receiver and that header's Timestamp.
#[derive(Debug, Clone, Copy)]
pub struct SoapMessage<'d> {
    /// SOAP 1.1 or 1.2.
    pub version: SoapVersion,
    /// The document element.
    pub envelope: Node<'d>,
    /// The Envelope's `Header` child, if any.
    pub header: Option<Node<'d>>,
    /// The Envelope's `Body` child.
    pub body: Node<'d>,
    /// The `wsse:Security` header block addressed to this receiver, if any: no
    /// actor/role, SOAP 1.1's `actor/next`, SOAP 1.2's `role/next` or
    /// `role/ultimateReceiver` (one at most). A Security header for another
    /// actor/role is not processed: its Timestamp is not checked and its
    /// signatures cover nothing ([`SoapMessage::for_other_role`]).
    pub security: Option<Node<'d>>,
    /// That header's `wsu:Timestamp`, if any.
    pub timestamp: Option<Node<'d>>,
}

/// The elements whose number [`SoapMessage::parse`] checks, anywhere in the document:
/// even indexes the Envelopes, odd the Bodies.
pub(crate) const SOAP_ELEMENTS: [(&str, &str); 4] =
    [(SOAP11_NS, "Envelope"), (SOAP11_NS, "Body"), (SOAP12_NS, "Envelope"), (SOAP12_NS, "Body")];

pub(crate) fn is(n: &Node<'_>, ns: &str, local: &str) -> bool {
    n.is_element() && n.local_name() == local && n.namespace_uri() == Some(ns)
}

/// Puts `inner` (header entries this crate made) into the `wsse:Security`
/// header of `soap`: first (`first`, as an `EncryptedKey` must come before what
/// it decrypts) or last in the existing one; else into a new one, with
/// `mustUnderstand` when asked (declaring a `soapenv` prefix when the Envelope
/// has none), first in the `Header`, which is made before the Body when the
/// message has none. Used by signing and by encryption alike.
pub(crate) fn insert_security_header<'d>(
    ed: &mut Editor<'d>,
    soap: &SoapMessage<'d>,
    must_understand: bool,
    inner: &str,
    first: bool,
) -> Result<(), vtdx_core::EditError> {
    if let Some(sec) = soap.security {
        return if first { ed.prepend_child(sec, inner) } else { ed.append_child(sec, inner) };
    }
    let env_prefix = soap.envelope.name().split_once(':').map_or("", |(p, _)| p);
    let (decl, p) = if env_prefix.is_empty() {
        (format!(r#" xmlns:soapenv="{}""#, soap.version.namespace()), "soapenv")
    } else {
        (String::new(), env_prefix)
    };
    let mu = if must_understand {
        let v = if soap.version == SoapVersion::Soap12 { "true" } else { "1" };
        format!(r#"{decl} {p}:mustUnderstand="{v}""#)
    } else {
        String::new()
    };
    let sec = format!(r#"<wsse:Security xmlns:wsse="{WSSE_NS}"{mu}>{inner}</wsse:Security>"#);
    match soap.header {
        Some(h) => ed.prepend_child(h, &sec),
        None => {
            let h = if env_prefix.is_empty() { "Header".to_string() } else { format!("{env_prefix}:Header") };
            ed.insert_before(soap.body, &format!("<{h}>{sec}</{h}>"))
        }
    }
}

/// Is `doc` a SOAP message (its element an `Envelope` in a SOAP namespace)?
pub fn is_soap(doc: &Document<'_>) -> bool {
    let e = doc.root_element();
    e.local_name() == "Envelope" && SoapVersion::of(e).is_some()
}

/// SOAP 1.1 §4.2.2: the actor of "the first SOAP application that processes the message".
const SOAP11_NEXT: &str = "http://schemas.xmlsoap.org/soap/actor/next";
/// SOAP 1.2 Part 1 §2.2: the role every SOAP node plays.
const SOAP12_NEXT: &str = "http://www.w3.org/2003/05/soap-envelope/role/next";
/// SOAP 1.2 Part 1 §2.2: the role of the ultimate receiver.
const SOAP12_ULTIMATE: &str = "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver";

/// The actor/role a Security header is for, `None` when it is addressed to this
/// receiver: no actor/role (or an empty one), SOAP 1.1's `actor/next`, SOAP 1.2's
/// `role/next` or `role/ultimateReceiver` (SOAP 1.1 §4.2.2, SOAP 1.2 Part 1 §2.2).
fn role(sec: Node<'_>, v: SoapVersion) -> Option<String> {
    let r = sec.attributes().find(|a| a.local_name() == v.role_attr() && a.namespace_uri() == Some(v.namespace()))?;
    let r = r.value().trim().to_string();
    let ours = match v {
        SoapVersion::Soap11 => matches!(r.as_str(), "" | SOAP11_NEXT),
        SoapVersion::Soap12 => matches!(r.as_str(), "" | SOAP12_NEXT | SOAP12_ULTIMATE),
    };
    (!ours).then_some(r)
}

impl<'d> SoapMessage<'d> {
    /// Locates the parts of a SOAP message and checks the rules of its
    /// structure: no DOCTYPE, exactly one Envelope and one Body (anywhere in
    /// the document: a second one is a wrapping set-up), at most one Security
    /// header per actor/role (the ones addressed to this receiver counting as
    /// one role). `Ok(None)` when the document is not SOAP.
    pub fn parse(doc: &'d Document<'d>) -> Result<Option<SoapMessage<'d>>, Error> {
        Self::parse_from(doc, None)
    }

    /// [`SoapMessage::parse`], given the elements named in [`SOAP_ELEMENTS`] (the
    /// indexes of that list; entries with other indexes are ignored) when the caller
    /// has found them already, in document order, as `elements_named` does.
    pub(crate) fn parse_from(doc: &'d Document<'d>, found: Option<&[(usize, Node<'d>)]>) -> Result<Option<SoapMessage<'d>>, Error> {
        let env = doc.root_element();
        let Some(version) = SoapVersion::of(env).filter(|_| env.local_name() == "Envelope") else { return Ok(None) };
        if let Some(at) = doctype_at(doc) {
            return Err(Error::at(ErrorKind::SoapDoctype, at));
        }
        let ns = version.namespace();
        let (mut envelopes, mut bodies) = (Vec::new(), Vec::new());
        let scanned;
        let found = match found {
            Some(f) => f,
            None => {
                scanned = crate::reference::elements_named(doc, &SOAP_ELEMENTS);
                &scanned[..]
            }
        };
        for &(k, e) in found.iter().filter(|(k, _)| *k < SOAP_ELEMENTS.len()) {
            if k % 2 == 0 {
                envelopes.push(e);
            } else {
                bodies.push(e);
            }
        }
        if envelopes.len() != 1 {
            // the second Envelope (the document element is the first)
            let at = envelopes.iter().find(|e| **e != env).map_or(env.range().start, |e| e.range().start);
            return Err(Error::at(ErrorKind::SoapEnvelopeCount(envelopes.len()), at));
        }
        let body = match bodies.as_slice() {
            [b] if b.parent() == Some(env) && b.namespace_uri() == Some(ns) => *b,
            _ => {
                let at = bodies.get(1).or(bodies.first()).map_or(env.range().start, |b| b.range().start);
                return Err(Error::at(ErrorKind::SoapBodyCount(bodies.len()), at));
            }
        };
        let header = env.element_children().find(|c| is(c, ns, "Header"));
        let mut security = None;
        let mut roles: Vec<Option<String>> = Vec::new();
        if let Some(h) = header {
            for s in h.element_children().filter(|c| is(c, WSSE_NS, "Security")) {
                let r = role(s, version);
                if roles.contains(&r) {
                    return Err(Error::at(ErrorKind::DuplicateSecurityHeader, s.range().start));
                }
                if r.is_none() {
                    security = Some(s);
                }
                roles.push(r);
            }
        }
        // WS-Security 1.1 §10: at most one Timestamp per Security header
        let stamps: Vec<Node<'d>> =
            security.map(|s| s.element_children().filter(|c| is(c, WSU_NS, "Timestamp")).collect()).unwrap_or_default();
        if stamps.len() > 1 {
            return Err(Error::at(
                ErrorKind::TimestampMalformed("more than one Timestamp in the Security header".into()),
                stamps[1].range().start,
            ));
        }
        let timestamp = stamps.first().copied();
        Ok(Some(SoapMessage { version, envelope: env, header, body, security, timestamp }))
    }

    /// Is `n` inside a Security header block addressed to another actor/role
    /// (a child of the Header that is a `wsse:Security` other than
    /// [`SoapMessage::security`])?
    pub fn for_other_role(&self, n: Node<'d>) -> bool {
        let Some(h) = self.header else { return false };
        let block = std::iter::once(n).chain(n.ancestors()).find(|a| a.parent() == Some(h));
        block.is_some_and(|b| is(&b, WSSE_NS, "Security") && Some(b) != self.security)
    }

    /// `mustUnderstand` on the Security header: a valid value, and, when true,
    /// only children this implementation processes (Timestamp,
    /// BinarySecurityToken, Signature, UsernameToken, SecurityTokenReference,
    /// SignatureConfirmation).
    pub fn check_must_understand(&self, encryption: bool) -> Result<(), Error> {
        let Some(sec) = self.security else { return Ok(()) };
        let ns = self.version.namespace();
        let Some(mu) = sec.attributes().find(|a| a.local_name() == "mustUnderstand" && a.namespace_uri() == Some(ns)) else {
            return Ok(());
        };
        let on = match (self.version, mu.value().trim()) {
            (_, "1") => true,
            (_, "0") => false,
            (SoapVersion::Soap12, "true") => true,
            (SoapVersion::Soap12, "false") => false,
            (_, v) => {
                return Err(Error::at(ErrorKind::MustUnderstand(format!("mustUnderstand has the invalid value `{v}`")), mu.range().start))
            }
        };
        if !on {
            return Ok(());
        }
        for c in sec.element_children() {
            let known = is(&c, WSU_NS, "Timestamp")
                || is(&c, WSSE_NS, "BinarySecurityToken")
                || is(&c, WSSE_NS, "UsernameToken")
                || is(&c, WSSE_NS, "SecurityTokenReference")
                || is(&c, WSSE11_NS, "SignatureConfirmation")
                || is(&c, DSIG_NS, "Signature")
                || (encryption && (is(&c, crate::enc::alg::XENC_NS, "EncryptedKey") || is(&c, crate::enc::alg::XENC_NS, "ReferenceList")));
            if !known {
                return Err(Error::at(
                    ErrorKind::MustUnderstand(format!("it holds {}, which is not processed", c.name())),
                    c.range().start,
                ));
            }
        }
        Ok(())
    }

    /// Checks the Timestamp, if there is one: exactly one `Created`, at most one
    /// `Expires`, both instants with a time zone, Expires not before Created;
    /// Created not after `now + skew`, Expires after `now - skew`.
    pub fn check_timestamp(&self, now: SystemTime, skew: Duration) -> Result<(), Error> {
        let Some(ts) = self.timestamp else { return Ok(()) };
        check_timestamp(ts, now, skew)
    }
}

/// Where the document's `<!DOCTYPE` (with or without an internal subset) starts, if it has one.
fn doctype_at(doc: &Document<'_>) -> Option<usize> {
    let t = doc.text();
    let end = doc.root_element().range().start.min(t.len());
    let at = t[..end].windows(9).position(|w| w == b"<!DOCTYPE");
    at.or(doc.dtd().map(|_| 0))
}

fn instant(n: Node<'_>, what: &str) -> Result<SystemTime, Error> {
    parse_rfc3339(&n.value()).ok_or_else(|| {
        Error::at(
            ErrorKind::TimestampMalformed(format!("{what} `{}` is not a date-time with a time zone", n.value().trim())),
            n.range().start,
        )
    })
}

pub(crate) fn check_timestamp(ts: Node<'_>, now: SystemTime, skew: Duration) -> Result<(), Error> {
    let at = ts.range().start;
    let malformed = |m: &str| Error::at(ErrorKind::TimestampMalformed(m.into()), at);
    let created: Vec<Node<'_>> = ts.element_children().filter(|c| is(c, WSU_NS, "Created")).collect();
    let expires: Vec<Node<'_>> = ts.element_children().filter(|c| is(c, WSU_NS, "Expires")).collect();
    let c = match created.as_slice() {
        [c] => instant(*c, "Created")?,
        [] => return Err(malformed("no Created")),
        _ => return Err(malformed("more than one Created")),
    };
    let e = match expires.as_slice() {
        [e] => Some(instant(*e, "Expires")?),
        [] => None,
        _ => return Err(malformed("more than one Expires")),
    };
    if e.is_some_and(|e| e < c) {
        return Err(malformed("Expires is before Created"));
    }
    if c > now + skew {
        return Err(Error::at(
            ErrorKind::TimestampInFuture { created: format_rfc3339(c), now: format_rfc3339(now), skew: skew.as_secs() },
            at,
        ));
    }
    if let Some(e) = e {
        if e + skew <= now {
            return Err(Error::at(
                ErrorKind::TimestampExpired { expires: format_rfc3339(e), now: format_rfc3339(now), skew: skew.as_secs() },
                at,
            ));
        }
    }
    Ok(())
}

// ---- UsernameToken ------------------------------------------------------------------

/// Remembers nonces for their lifetime, so a UsernameToken cannot be replayed.
/// Implement it over a shared store (a database, a cache) when several
/// processes receive messages; [`InMemoryReplayCache`] serves one process.
pub trait ReplayCache: Send + Sync {
    /// Records `nonce` until `expires`. Returns `false` when it was already
    /// recorded and has not expired (a replay).
    fn insert_if_new(&self, nonce: &[u8], expires: SystemTime, now: SystemTime) -> bool;
}

/// A [`ReplayCache`] in memory: a map from nonce to expiry, purged of expired
/// entries as it grows.
#[derive(Debug, Default)]
pub struct InMemoryReplayCache {
    seen: Mutex<HashMap<Vec<u8>, SystemTime>>,
}

impl InMemoryReplayCache {
    /// An empty cache.
    pub fn new() -> InMemoryReplayCache {
        InMemoryReplayCache::default()
    }
    /// Nonces held (expired ones included until the next purge).
    pub fn len(&self) -> usize {
        self.seen.lock().map_or(0, |m| m.len())
    }
    /// True when no nonce is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ReplayCache for InMemoryReplayCache {
    fn insert_if_new(&self, nonce: &[u8], expires: SystemTime, now: SystemTime) -> bool {
        let mut m = match self.seen.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        if m.len() >= 1024 && m.len().is_power_of_two() {
            m.retain(|_, e| *e > now);
        }
        match m.get(nonce) {
            Some(e) if *e > now => false,
            _ => {
                m.insert(nonce.to_vec(), expires);
                true
            }
        }
    }
}

/// What a validated UsernameToken said.
#[derive(Debug, Clone)]
pub struct UsernameTokenInfo<'d> {
    /// The `wsse:UsernameToken` element.
    pub token: Node<'d>,
    /// The user name.
    pub username: String,
    /// True for `PasswordDigest`, false for `PasswordText`.
    pub digest: bool,
}

/// Checks a UsernameToken (WSS UsernameToken Profile 1.1) against the
/// password the caller expects. Separate from signature verification: the
/// application calls it with the user's password.
///
/// * `PasswordText`: the password compared in constant time.
/// * `PasswordDigest`: `Base64(SHA-1(nonce + created + password))`, with
///   `Nonce` and `Created` required.
/// * `Created`, when present, within `max_age` (default 300 s) plus the clock
///   skew in the past and not beyond the skew in the future; a `Nonce` is
///   recorded in the [`ReplayCache`] and a second use refused.
pub struct UsernameTokenValidator<C: ReplayCache> {
    cache: C,
    max_age: Duration,
    skew: Duration,
    now: Option<SystemTime>,
    allow_text: bool,
}

impl<C: ReplayCache> std::fmt::Debug for UsernameTokenValidator<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsernameTokenValidator").field("max_age", &self.max_age).field("skew", &self.skew).finish()
    }
}

impl<C: ReplayCache> UsernameTokenValidator<C> {
    /// A validator recording nonces in `cache`.
    pub fn new(cache: C) -> Self {
        UsernameTokenValidator { cache, max_age: Duration::from_secs(300), skew: Duration::from_secs(300), now: None, allow_text: true }
    }
    /// The oldest `Created` accepted (default 300 s), plus the clock skew.
    pub fn max_age(mut self, d: Duration) -> Self {
        self.max_age = d;
        self
    }
    /// The clock skew allowed (default 300 s).
    pub fn max_clock_skew(mut self, d: Duration) -> Self {
        self.skew = d;
        self
    }
    /// Judge `Created` as of `t` instead of the system clock.
    pub fn now(mut self, t: SystemTime) -> Self {
        self.now = Some(t);
        self
    }
    /// Accept `PasswordText` (default on; turn off to demand digests).
    pub fn allow_password_text(mut self, on: bool) -> Self {
        self.allow_text = on;
        self
    }
    /// The cache.
    pub fn cache(&self) -> &C {
        &self.cache
    }

    /// Validates the UsernameToken of the Security header of `doc` for
    /// `username` with `password`.
    pub fn validate<'d>(&self, doc: &'d Document<'d>, username: &str, password: &str) -> Result<UsernameTokenInfo<'d>, Error> {
        let soap =
            SoapMessage::parse(doc)?.ok_or_else(|| Error::new(ErrorKind::UsernameToken("the document is not a SOAP message".into())))?;
        let sec = soap.security.ok_or_else(|| Error::new(ErrorKind::UsernameToken("no wsse:Security header".into())))?;
        let tokens: Vec<Node<'d>> = sec.element_children().filter(|c| is(c, WSSE_NS, "UsernameToken")).collect();
        let token = match tokens.as_slice() {
            [t] => *t,
            [] => return Err(Error::at(ErrorKind::UsernameToken("no wsse:UsernameToken".into()), sec.range().start)),
            _ => return Err(Error::at(ErrorKind::UsernameToken("more than one wsse:UsernameToken".into()), tokens[1].range().start)),
        };
        self.validate_token(token, username, password)
    }

    /// Validates one `wsse:UsernameToken` element.
    pub fn validate_token<'d>(&self, token: Node<'d>, username: &str, password: &str) -> Result<UsernameTokenInfo<'d>, Error> {
        use aws_lc_rs::constant_time::verify_slices_are_equal;
        let at = token.range().start;
        let bad = |m: &str| Error::at(ErrorKind::UsernameToken(m.into()), at);
        let one = |ns: &str, local: &str| -> Result<Option<Node<'d>>, Error> {
            let v: Vec<Node<'d>> = token.element_children().filter(|c| is(c, ns, local)).collect();
            match v.as_slice() {
                [] => Ok(None),
                [n] => Ok(Some(*n)),
                _ => Err(bad(&format!("more than one {local}"))),
            }
        };
        let user = one(WSSE_NS, "Username")?.ok_or_else(|| bad("no Username"))?;
        let pw = one(WSSE_NS, "Password")?.ok_or_else(|| bad("no Password"))?;
        let nonce = one(WSSE_NS, "Nonce")?;
        let created = one(WSU_NS, "Created")?;
        let user_value = user.value().trim().to_string();
        if verify_slices_are_equal(user_value.as_bytes(), username.as_bytes()).is_err() {
            return Err(Error::at(ErrorKind::WrongUsername, user.range().start));
        }
        let now = self.now.unwrap_or_else(SystemTime::now);
        let created_t = match created {
            Some(c) => {
                let t = parse_rfc3339(&c.value()).ok_or_else(|| {
                    Error::at(
                        ErrorKind::UsernameToken(format!("Created `{}` is not a date-time with a time zone", c.value().trim())),
                        c.range().start,
                    )
                })?;
                if t > now + self.skew || t + self.max_age + self.skew < now {
                    return Err(Error::at(
                        ErrorKind::UsernameTokenStale { created: format_rfc3339(t), now: format_rfc3339(now) },
                        c.range().start,
                    ));
                }
                Some(t)
            }
            None => None,
        };
        let nonce_bytes = match nonce {
            Some(n) => {
                let enc = n.attribute("EncodingType");
                if enc.as_deref().is_some_and(|e| e != BASE64_BINARY) {
                    return Err(Error::at(ErrorKind::UsernameToken("the Nonce is not Base64Binary".into()), n.range().start));
                }
                Some(decode_base64(&n.value()).ok_or_else(|| Error::at(ErrorKind::Base64("Nonce"), n.range().start))?)
            }
            None => None,
        };
        let ty = pw.attribute("Type").map(|t| t.trim().to_string()).unwrap_or_else(|| PASSWORD_TEXT.to_string());
        let digest = match ty.as_str() {
            PASSWORD_TEXT => {
                if !self.allow_text {
                    return Err(Error::at(ErrorKind::UsernameToken("PasswordText is not accepted".into()), pw.range().start));
                }
                if verify_slices_are_equal(pw.value().as_bytes(), password.as_bytes()).is_err() {
                    return Err(Error::at(ErrorKind::WrongPassword, pw.range().start));
                }
                false
            }
            PASSWORD_DIGEST => {
                let (Some(n), Some(c)) = (&nonce_bytes, created) else {
                    return Err(bad("PasswordDigest needs a Nonce and a Created"));
                };
                let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY);
                ctx.update(n);
                ctx.update(c.value().trim().as_bytes());
                ctx.update(password.as_bytes());
                let want = base64::engine::general_purpose::STANDARD.encode(ctx.finish().as_ref());
                let got = pw.value();
                if verify_slices_are_equal(got.trim().as_bytes(), want.as_bytes()).is_err() {
                    return Err(Error::at(ErrorKind::WrongPassword, pw.range().start));
                }
                true
            }
            other => return Err(Error::at(ErrorKind::UsernameToken(format!("unknown password type `{other}`")), pw.range().start)),
        };
        if let Some(n) = &nonce_bytes {
            // a nonce lives as long as a Created in the window could be accepted
            let expires = created_t.unwrap_or(now) + self.max_age + 2 * self.skew;
            if !self.cache.insert_if_new(n, expires, now) {
                return Err(Error::at(ErrorKind::ReplayedNonce, at));
            }
        }
        Ok(UsernameTokenInfo { token, username: user_value, digest })
    }
}
