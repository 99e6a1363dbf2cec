//! Certificate path validation against the caller's trust anchors.
//!
//! A [`TrustStore`] is caller key material of another kind: CA certificates
//! the caller trusts (anchors), optional intermediate certificates and CRLs,
//! and the instant to judge validity at. With one configured
//! ([`crate::Verifier::with_trust_store`]), a certificate carried in the
//! message (`X509Data/X509Certificate`, or a BinarySecurityToken named by a
//! SecurityTokenReference) may verify a signature, but only after a chain
//! from it to an anchor validates. Anchors only ever come from the caller;
//! intermediates may come from the message as well as from the caller.
//!
//! What one link of a chain must satisfy (RFC 5280 §6.1, reduced):
//!
//! * the issuer's Name equals the certificate's issuer Name, and the
//!   issuer's public key verifies the certificate's signature (RSA PKCS#1
//!   v1.5 with SHA-256/384/512, SHA-1 only by [`TrustStore::allow_sha1`];
//!   ECDSA P-256/P-384; Ed25519);
//! * the validity period of every certificate (anchor included) contains the
//!   validation time;
//! * an issuing certificate is a CA (`basicConstraints` `cA` TRUE; an anchor
//!   without the extension is accepted, as a v1 root), its `pathLenConstraint`
//!   is respected, and its `keyUsage`, when present, allows `keyCertSign`;
//! * the leaf's `keyUsage`, when present, allows `digitalSignature` or
//!   `nonRepudiation`;
//! * no critical extension other than basicConstraints, keyUsage, the key
//!   identifiers, subjectAltName and extKeyUsage;
//! * no certificate is revoked by a caller-supplied CRL of its issuer: a CRL
//!   counts when its signature verifies under the issuer's key and it was
//!   issued (`thisUpdate`) by the validation time; one past its `nextUpdate`
//!   is refused as stale;
//! * at most [`TrustStore::max_chain_len`] certificates (default 8).
//!
//! Not validated: OCSP, name constraints, certificate policies, extended key
//! usage.

use std::time::SystemTime;

use x509_cert::der::Decode;

use crate::error::{Error, ErrorKind};
use crate::key::{strip_zeros, tlv, to_decimal, Certificate, Curve, KeyMaterial};

const OID_BC: &str = "2.5.29.19";
const OID_KU: &str = "2.5.29.15";
const KNOWN_CRITICAL: [&str; 6] = [OID_BC, OID_KU, "2.5.29.14", "2.5.29.35", "2.5.29.17", "2.5.29.37"];

/// A certificate revocation list (RFC 5280 §5) supplied by the caller.
#[derive(Clone, Debug)]
pub struct Crl {
    issuer: Vec<u8>,
    tbs: Vec<u8>,
    sig_oid: String,
    signature: Vec<u8>,
    this_update: SystemTime,
    next_update: Option<SystemTime>,
    /// (serial without leading zeros, revocation date)
    revoked: Vec<(Vec<u8>, SystemTime)>,
}

impl Crl {
    /// Reads a DER CRL.
    pub fn from_der(der: &[u8]) -> Result<Crl, Error> {
        use x509_cert::der::Encode;
        let crl = x509_cert::crl::CertificateList::from_der(der).map_err(|e| key_err(format!("CRL: {e}")))?;
        let tbs = &crl.tbs_cert_list;
        Ok(Crl {
            issuer: tbs.issuer.to_der().map_err(|e| key_err(e.to_string()))?,
            tbs: first_element(der).ok_or_else(|| key_err("CRL: malformed".into()))?.to_vec(),
            sig_oid: crl.signature_algorithm.oid.to_string(),
            signature: crl.signature.raw_bytes().to_vec(),
            this_update: tbs.this_update.to_system_time(),
            next_update: tbs.next_update.map(|t| t.to_system_time()),
            revoked: tbs
                .revoked_certificates
                .iter()
                .flatten()
                .map(|r| (strip_zeros(r.serial_number.as_bytes()).to_vec(), r.revocation_date.to_system_time()))
                .collect(),
        })
    }

    /// Reads a PEM (`X509 CRL`) or DER CRL.
    pub fn from_pem_or_der(data: &[u8]) -> Result<Crl, Error> {
        match pem::parse(data) {
            Ok(p) if p.tag() == "X509 CRL" => Crl::from_der(p.contents()),
            Ok(p) => Err(key_err(format!("PEM block `{}` is not a CRL", p.tag()))),
            Err(_) => Crl::from_der(data),
        }
    }
}

/// The caller's trust anchors, intermediates, CRLs and validation time.
///
/// ```
/// use vtdx_dsig::TrustStore;
/// let store = TrustStore::new(Vec::new()).max_chain_len(4);
/// assert_eq!(store.anchors().len(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct TrustStore {
    anchors: Vec<Certificate>,
    intermediates: Vec<Certificate>,
    crls: Vec<Crl>,
    time: Option<SystemTime>,
    max_chain_len: usize,
    allow_sha1: bool,
    validate_caller_keys: bool,
}

impl TrustStore {
    /// A store trusting `anchors` (CA certificates, or end-entity
    /// certificates trusted as they are), with no intermediates or CRLs.
    pub fn new(anchors: Vec<Certificate>) -> TrustStore {
        TrustStore {
            anchors,
            intermediates: Vec::new(),
            crls: Vec::new(),
            time: None,
            max_chain_len: 8,
            allow_sha1: false,
            validate_caller_keys: false,
        }
    }

    /// Adds intermediate certificates (untrusted: they only help build a chain).
    pub fn intermediates(mut self, certs: impl IntoIterator<Item = Certificate>) -> TrustStore {
        self.intermediates.extend(certs);
        self
    }

    /// Adds CRLs.
    pub fn crls(mut self, crls: impl IntoIterator<Item = Crl>) -> TrustStore {
        self.crls.extend(crls);
        self
    }

    /// Judges validity periods and revocation as of `t` (default: the
    /// verifier's [`crate::VerifyConfig::now`], i.e. the system clock unless set).
    pub fn at(mut self, t: SystemTime) -> TrustStore {
        self.time = Some(t);
        self
    }

    /// The most certificates a chain may have, leaf and anchor included (default 8, at least 1).
    pub fn max_chain_len(mut self, n: usize) -> TrustStore {
        self.max_chain_len = n.max(1);
        self
    }

    /// Accept certificates signed with RSA or ECDSA over SHA-1 (default off;
    /// for old test CAs only). MD5 is never accepted.
    pub fn allow_sha1(mut self, on: bool) -> TrustStore {
        self.allow_sha1 = on;
        self
    }

    /// Also require the certificates among the caller's own
    /// [`crate::VerifyingKey`]s to chain to an anchor (xmlsec1's
    /// `--verify-keys`; default off: a key the caller gives is trusted as given).
    pub fn validate_caller_keys(mut self, on: bool) -> TrustStore {
        self.validate_caller_keys = on;
        self
    }

    /// The anchors.
    pub fn anchors(&self) -> &[Certificate] {
        &self.anchors
    }

    /// The configured validation time, if any.
    pub fn time(&self) -> Option<SystemTime> {
        self.time
    }

    pub(crate) fn intermediate_certs(&self) -> &[Certificate] {
        &self.intermediates
    }

    pub(crate) fn validates_caller_keys(&self) -> bool {
        self.validate_caller_keys
    }

    /// Validates a chain from `leaf` to an anchor, with `extra` (certificates
    /// of the message) as further intermediates. Returns the chain, leaf
    /// first, anchor last.
    pub fn validate(
        &self,
        leaf: &Certificate,
        extra: &[Certificate],
        now: SystemTime,
        min_rsa_bits: usize,
    ) -> Result<Vec<Certificate>, Error> {
        let ctx = Ctx { store: self, now, min_rsa_bits };
        let leaf_info = Info::of(leaf)?;
        ctx.check_time(leaf, &leaf_info)?;
        if let Some(ku) = leaf_info.key_usage {
            if ku & (KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION) == 0 {
                return Err(ErrorKind::CertificateKeyUsage { subject: leaf.subject_display(), needed: "digitalSignature" }.into());
            }
        }
        // the leaf itself is an anchor
        if self.anchors.iter().any(|a| a.der() == leaf.der()) {
            return Ok(vec![leaf.clone()]);
        }
        let pool: Vec<&Certificate> = extra.iter().chain(self.intermediates.iter()).filter(|c| c.der() != leaf.der()).collect();
        let mut path = vec![(leaf.clone(), leaf_info)];
        let mut best: Option<Error> = None;
        if ctx.build(&mut path, &pool, &mut best) {
            let chain: Vec<Certificate> = path.into_iter().map(|(c, _)| c).collect();
            ctx.check_revocation(&chain)?;
            return Ok(chain);
        }
        Err(best.unwrap_or_else(|| ErrorKind::UntrustedCertificate(leaf.subject_display()).into()))
    }
}

fn key_err(s: String) -> Error {
    ErrorKind::Key(s).into()
}

/// The first element of the outer SEQUENCE, with its tag and length.
fn first_element(der: &[u8]) -> Option<&[u8]> {
    let (t, body, _) = tlv(der)?;
    if t != 0x30 {
        return None;
    }
    let (_, _, rest) = tlv(body)?;
    Some(&body[..body.len() - rest.len()])
}

const KU_DIGITAL_SIGNATURE: u16 = 1;
const KU_NON_REPUDIATION: u16 = 2;
const KU_KEY_CERT_SIGN: u16 = 1 << 5;
const KU_CRL_SIGN: u16 = 1 << 6;

/// What path validation needs of a certificate beyond [`Certificate`].
#[derive(Clone, Debug)]
struct Info {
    tbs: Vec<u8>,
    sig_oid: String,
    signature: Vec<u8>,
    not_before: SystemTime,
    not_after: SystemTime,
    /// basicConstraints: (cA, pathLenConstraint)
    basic: Option<(bool, Option<u8>)>,
    /// keyUsage bits, bit 0 = digitalSignature
    key_usage: Option<u16>,
    unknown_critical: Option<String>,
}

impl Info {
    fn of(c: &Certificate) -> Result<Info, Error> {
        let cert = x509_cert::Certificate::from_der(c.der()).map_err(|e| key_err(format!("certificate: {e}")))?;
        let tbs = &cert.tbs_certificate;
        let mut basic = None;
        let mut key_usage = None;
        let mut unknown_critical = None;
        for ext in tbs.extensions.iter().flatten() {
            let oid = ext.extn_id.to_string();
            let v = ext.extn_value.as_bytes();
            if oid == OID_BC {
                let bc = x509_cert::ext::pkix::BasicConstraints::from_der(v).map_err(|e| key_err(format!("basicConstraints: {e}")))?;
                basic = Some((bc.ca, bc.path_len_constraint));
            } else if oid == OID_KU {
                let ku = x509_cert::ext::pkix::KeyUsage::from_der(v).map_err(|e| key_err(format!("keyUsage: {e}")))?;
                key_usage = Some(ku.0.bits());
            } else if ext.critical && !KNOWN_CRITICAL.contains(&oid.as_str()) {
                unknown_critical.get_or_insert(oid);
            }
        }
        Ok(Info {
            tbs: first_element(c.der()).ok_or_else(|| key_err("certificate: malformed".into()))?.to_vec(),
            sig_oid: cert.signature_algorithm.oid.to_string(),
            signature: cert.signature.raw_bytes().to_vec(),
            not_before: tbs.validity.not_before.to_system_time(),
            not_after: tbs.validity.not_after.to_system_time(),
            basic,
            key_usage,
            unknown_critical,
        })
    }
}

struct Ctx<'a> {
    store: &'a TrustStore,
    now: SystemTime,
    min_rsa_bits: usize,
}

impl Ctx<'_> {
    fn check_time(&self, c: &Certificate, i: &Info) -> Result<(), Error> {
        if let Some(oid) = &i.unknown_critical {
            return Err(ErrorKind::UnhandledCriticalExtension { subject: c.subject_display(), oid: oid.clone() }.into());
        }
        if self.now < i.not_before {
            return Err(ErrorKind::CertificateNotYetValid {
                subject: c.subject_display(),
                not_before: crate::time::format_rfc3339(i.not_before),
            }
            .into());
        }
        if self.now > i.not_after {
            return Err(ErrorKind::CertificateExpired {
                subject: c.subject_display(),
                not_after: crate::time::format_rfc3339(i.not_after),
            }
            .into());
        }
        Ok(())
    }

    /// Checks that `issuer` may issue the certificate at the end of a path of `below` certificates.
    fn check_issuer(&self, issuer: &Certificate, i: &Info, below: usize, anchor: bool) -> Result<(), Error> {
        match i.basic {
            Some((true, len)) => {
                // intermediates between this issuer and the leaf
                let between = below - 1;
                if len.is_some_and(|l| between > l as usize) {
                    return Err(ErrorKind::CertificatePathLen { subject: issuer.subject_display() }.into());
                }
            }
            None if anchor => {}
            _ => return Err(ErrorKind::NotACertificateAuthority(issuer.subject_display()).into()),
        }
        if i.key_usage.is_some_and(|ku| ku & KU_KEY_CERT_SIGN == 0) {
            return Err(ErrorKind::CertificateKeyUsage { subject: issuer.subject_display(), needed: "keyCertSign" }.into());
        }
        Ok(())
    }

    fn signed_by(&self, tbs: &[u8], sig_oid: &str, sig: &[u8], issuer: &KeyMaterial) -> Result<(), ErrorKind> {
        verify_signature(tbs, sig_oid, sig, issuer, self.store.allow_sha1, self.min_rsa_bits)
    }

    /// Depth-first search for an issuer of the last certificate of `path`.
    fn build(&self, path: &mut Vec<(Certificate, Info)>, pool: &[&Certificate], best: &mut Option<Error>) -> bool {
        let (cur, cur_info) = path.last().cloned().expect("path is never empty");
        let note = |e: Error, best: &mut Option<Error>| {
            // a specific reason beats "no path"
            if best.as_ref().is_none_or(|b| matches!(b.kind(), ErrorKind::UntrustedCertificate(_))) {
                *best = Some(e);
            }
        };
        let name_fits = |c: &Certificate| {
            c.subject_der() == cur.issuer_der()
                && match (cur.authority_key_id(), c.subject_key_id()) {
                    (Some(a), Some(k)) => a == k,
                    _ => true,
                }
        };
        for a in self.store.anchors.iter().filter(|a| name_fits(a)) {
            let step = Info::of(a).and_then(|ai| {
                self.signed_by(&cur_info.tbs, &cur_info.sig_oid, &cur_info.signature, a.key()).map_err(|k| sig_error(k, &cur))?;
                self.check_time(a, &ai)?;
                self.check_issuer(a, &ai, path.len(), true)?;
                Ok(ai)
            });
            match step {
                Ok(ai) => {
                    path.push((a.clone(), ai));
                    return true;
                }
                Err(e) => note(e, best),
            }
        }
        if path.len() + 1 >= self.store.max_chain_len {
            note(ErrorKind::CertificateChainTooLong(self.store.max_chain_len).into(), best);
            return false;
        }
        for c in pool.iter().filter(|c| name_fits(c)) {
            if path.iter().any(|(p, _)| p.der() == c.der()) {
                continue;
            }
            let step = Info::of(c).and_then(|ci| {
                self.signed_by(&cur_info.tbs, &cur_info.sig_oid, &cur_info.signature, c.key()).map_err(|k| sig_error(k, &cur))?;
                self.check_time(c, &ci)?;
                self.check_issuer(c, &ci, path.len(), false)?;
                Ok(ci)
            });
            match step {
                Ok(ci) => {
                    path.push(((*c).clone(), ci));
                    if self.build(path, pool, best) {
                        return true;
                    }
                    path.pop();
                }
                Err(e) => note(e, best),
            }
        }
        if best.is_none() {
            *best = Some(ErrorKind::UntrustedCertificate(cur.subject_display()).into());
        }
        false
    }

    /// Every certificate but the anchor against the CRLs of its issuer in the chain.
    fn check_revocation(&self, chain: &[Certificate]) -> Result<(), Error> {
        for pair in chain.windows(2) {
            let (c, issuer) = (&pair[0], &pair[1]);
            let issuer_info = Info::of(issuer)?;
            if issuer_info.key_usage.is_some_and(|ku| ku & KU_CRL_SIGN == 0) {
                continue; // this issuer cannot sign CRLs: none of the caller's is its
            }
            for crl in self.store.crls.iter().filter(|l| l.issuer == issuer.subject_der()) {
                if self.signed_by(&crl.tbs, &crl.sig_oid, &crl.signature, issuer.key()).is_err() {
                    continue; // another CA of the same name
                }
                if crl.this_update > self.now {
                    continue; // not issued yet at the validation time
                }
                if crl.next_update.is_some_and(|n| n < self.now) {
                    return Err(ErrorKind::CrlExpired {
                        issuer: issuer.subject_display(),
                        next_update: crate::time::format_rfc3339(crl.next_update.unwrap_or(self.now)),
                    }
                    .into());
                }
                if crl.revoked.iter().any(|(s, at)| s.as_slice() == c.serial() && *at <= self.now) {
                    return Err(ErrorKind::CertificateRevoked { subject: c.subject_display(), serial: to_decimal(c.serial()) }.into());
                }
            }
        }
        Ok(())
    }
}

fn sig_error(k: ErrorKind, subject: &Certificate) -> Error {
    match k {
        ErrorKind::InvalidSignature => ErrorKind::CertificateSignature(subject.subject_display()).into(),
        other => other.into(),
    }
}

/// Verifies an X.509 signature (certificate or CRL): `sig_oid` over `tbs` with `key`.
fn verify_signature(
    tbs: &[u8],
    sig_oid: &str,
    sig: &[u8],
    key: &KeyMaterial,
    allow_sha1: bool,
    min_rsa_bits: usize,
) -> Result<(), ErrorKind> {
    use aws_lc_rs::signature::{self as s, VerificationAlgorithm};
    let refused = |reason: &'static str| ErrorKind::DisallowedAlgorithm { uri: format!("urn:oid:{sig_oid}"), reason };
    let unsupported = || ErrorKind::UnsupportedAlgorithm(format!("urn:oid:{sig_oid} (certificate signature)"));
    let sha1 = matches!(sig_oid, "1.2.840.113549.1.1.5" | "1.2.840.10045.4.1");
    if sha1 && !allow_sha1 {
        return Err(refused("SHA-1 certificate signatures not allowed"));
    }
    let (alg, pk): (&'static dyn VerificationAlgorithm, &[u8]) = match (sig_oid, key) {
        ("1.2.840.113549.1.1.4" | "1.2.840.113549.1.1.2", _) => return Err(refused("MD5 is broken")),
        (oid, KeyMaterial::Rsa { pkcs1, bits }) => {
            if *bits < min_rsa_bits {
                return Err(ErrorKind::WeakKey { bits: *bits, min: min_rsa_bits });
            }
            let legacy = *bits < 2048;
            let a: &'static dyn VerificationAlgorithm = match (oid, legacy) {
                ("1.2.840.113549.1.1.11", false) => &s::RSA_PKCS1_2048_8192_SHA256,
                ("1.2.840.113549.1.1.12", false) => &s::RSA_PKCS1_2048_8192_SHA384,
                ("1.2.840.113549.1.1.13", false) => &s::RSA_PKCS1_2048_8192_SHA512,
                ("1.2.840.113549.1.1.5", false) => &s::RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY,
                ("1.2.840.113549.1.1.11", true) => &s::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY,
                ("1.2.840.113549.1.1.13", true) => &s::RSA_PKCS1_1024_8192_SHA512_FOR_LEGACY_USE_ONLY,
                ("1.2.840.113549.1.1.5", true) => &s::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
                _ => return Err(unsupported()),
            };
            (a, pkcs1)
        }
        (oid, KeyMaterial::Ec { curve, point }) => {
            let a: &'static dyn VerificationAlgorithm = match (oid, curve) {
                ("1.2.840.10045.4.3.2", Curve::P256) => &s::ECDSA_P256_SHA256_ASN1,
                ("1.2.840.10045.4.3.3", Curve::P256) => &s::ECDSA_P256_SHA384_ASN1,
                ("1.2.840.10045.4.3.4", Curve::P256) => &s::ECDSA_P256_SHA512_ASN1,
                ("1.2.840.10045.4.1", Curve::P256) => &s::ECDSA_P256_SHA1_ASN1,
                ("1.2.840.10045.4.3.2", Curve::P384) => &s::ECDSA_P384_SHA256_ASN1,
                ("1.2.840.10045.4.3.3", Curve::P384) => &s::ECDSA_P384_SHA384_ASN1,
                ("1.2.840.10045.4.3.4", Curve::P384) => &s::ECDSA_P384_SHA512_ASN1,
                _ => return Err(unsupported()),
            };
            (a, point)
        }
        ("1.3.101.112", KeyMaterial::Ed25519(k)) => (&s::ED25519, k),
        _ => return Err(unsupported()),
    };
    s::UnparsedPublicKey::new(alg, pk).verify(tbs, sig).map_err(|_| ErrorKind::InvalidSignature)
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
