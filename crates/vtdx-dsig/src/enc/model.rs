//! The structures of XML Encryption as they stand in a document:
//! `EncryptedData` and `EncryptedKey` (both `EncryptedType`), their
//! `EncryptionMethod`, `KeyInfo`, `CipherData` and `ReferenceList`.
//!
//! Parsing checks the structure only. What an algorithm URI means, and
//! whether it is offered, is decided when decrypting, where every refusal is
//! the uniform error.

use std::borrow::Cow;

use vtdx_core::Node;

use super::alg::{XENC11_NS, XENC_NS};
use super::error::{EncError, EncErrorKind};
use crate::alg::DSIG_NS;

/// Is `n` the element `{ns}local`?
pub(crate) fn is(n: &Node<'_>, ns: &str, local: &str) -> bool {
    n.is_element() && n.local_name() == local && n.namespace_uri() == Some(ns)
}

/// Is `n` an `xenc:` element named `local`?
pub(crate) fn is_xenc(n: &Node<'_>, local: &str) -> bool {
    is(n, XENC_NS, local)
}

fn malformed(n: Node<'_>, what: String) -> EncError {
    EncError::at(EncErrorKind::Malformed(what), n.range().start)
}

/// The `EncryptionMethod` of an `EncryptedType`.
#[derive(Debug, Clone)]
pub(crate) struct Method {
    pub(crate) algorithm: String,
    /// `ds:DigestMethod/@Algorithm` (RSA-OAEP).
    pub(crate) digest: Option<String>,
    /// `xenc11:MGF/@Algorithm` (XML Encryption 1.1 RSA-OAEP).
    pub(crate) mgf: Option<String>,
    /// `xenc:OAEPparams`, base64-decoded.
    pub(crate) oaep_params: Option<Vec<u8>>,
}

/// Where the cipher octets are.
#[derive(Debug, Clone)]
pub(crate) enum Cipher<'d> {
    /// `CipherValue`: the element (its text is base64 with white space allowed).
    Value(Node<'d>),
    /// `CipherReference`: never dereferenced.
    Reference,
}

/// An `EncryptedData` or `EncryptedKey`.
#[derive(Debug, Clone)]
pub(crate) struct Encrypted<'d> {
    pub(crate) node: Node<'d>,
    pub(crate) type_uri: Option<String>,
    pub(crate) method: Option<Method>,
    pub(crate) key_info: Option<Node<'d>>,
    pub(crate) cipher: Cipher<'d>,
    /// EncryptedKey only: the `DataReference` URIs of its `ReferenceList`.
    pub(crate) data_references: Vec<String>,
}

fn attr<'d>(n: Node<'d>, name: &str) -> Option<Cow<'d, str>> {
    n.attributes().find(|a| a.namespace_uri().is_none() && a.local_name() == name).map(|a| a.value())
}

fn parse_method(m: Node<'_>) -> Result<Method, EncError> {
    let algorithm = attr(m, "Algorithm").ok_or_else(|| malformed(m, "xenc:EncryptionMethod without an Algorithm".into()))?;
    let mut method = Method { algorithm: algorithm.trim().to_string(), digest: None, mgf: None, oaep_params: None };
    for c in m.element_children() {
        if is(&c, DSIG_NS, "DigestMethod") {
            let a = attr(c, "Algorithm").ok_or_else(|| malformed(c, "ds:DigestMethod without an Algorithm".into()))?;
            if method.digest.replace(a.trim().to_string()).is_some() {
                return Err(malformed(c, "two ds:DigestMethod in one xenc:EncryptionMethod".into()));
            }
        } else if is(&c, XENC11_NS, "MGF") {
            let a = attr(c, "Algorithm").ok_or_else(|| malformed(c, "xenc11:MGF without an Algorithm".into()))?;
            if method.mgf.replace(a.trim().to_string()).is_some() {
                return Err(malformed(c, "two xenc11:MGF in one xenc:EncryptionMethod".into()));
            }
        } else if is_xenc(&c, "OAEPparams") {
            let v = crate::key::decode_base64(&c.value()).ok_or_else(|| malformed(c, "xenc:OAEPparams is not base64".into()))?;
            method.oaep_params = Some(v);
        }
        // KeySize and other children (ANY in the schema) do not change decryption
    }
    Ok(method)
}

/// Parses an `xenc:EncryptedData` or `xenc:EncryptedKey` element.
pub(crate) fn parse(node: Node<'_>) -> Result<Encrypted<'_>, EncError> {
    let name = node.name();
    let mut method = None;
    let mut key_info = None;
    let mut cipher = None;
    let mut data_references = Vec::new();
    for c in node.element_children() {
        if is_xenc(&c, "EncryptionMethod") {
            if method.is_some() || key_info.is_some() || cipher.is_some() {
                return Err(malformed(c, format!("{name}: xenc:EncryptionMethod must be the first child, once")));
            }
            method = Some(parse_method(c)?);
        } else if is(&c, DSIG_NS, "KeyInfo") {
            if key_info.is_some() || cipher.is_some() {
                return Err(malformed(c, format!("{name}: ds:KeyInfo must come before xenc:CipherData, once")));
            }
            key_info = Some(c);
        } else if is_xenc(&c, "CipherData") {
            if cipher.is_some() {
                return Err(malformed(c, format!("{name} has two xenc:CipherData")));
            }
            let mut kids = c.element_children();
            let (Some(v), None) = (kids.next(), kids.next()) else {
                return Err(malformed(c, "xenc:CipherData must hold one xenc:CipherValue or xenc:CipherReference".into()));
            };
            cipher = Some(if is_xenc(&v, "CipherValue") {
                Cipher::Value(v)
            } else if is_xenc(&v, "CipherReference") {
                Cipher::Reference
            } else {
                return Err(malformed(v, format!("xenc:CipherData holds {}, not xenc:CipherValue or xenc:CipherReference", v.name())));
            });
        } else if is_xenc(&c, "ReferenceList") && node.local_name() == "EncryptedKey" {
            data_references.extend(reference_list(c)?);
        }
    }
    let cipher = cipher.ok_or_else(|| malformed(node, format!("{name} has no xenc:CipherData")))?;
    Ok(Encrypted { node, type_uri: attr(node, "Type").map(|v| v.trim().to_string()), method, key_info, cipher, data_references })
}

/// The `DataReference` URIs of a `ReferenceList` (`KeyReference`s are not data and are skipped).
pub(crate) fn reference_list(list: Node<'_>) -> Result<Vec<String>, EncError> {
    let mut out = Vec::new();
    for r in list.element_children() {
        if is_xenc(&r, "DataReference") {
            let uri = attr(r, "URI").ok_or_else(|| malformed(r, "xenc:DataReference without a URI".into()))?;
            out.push(uri.trim().to_string());
        } else if !is_xenc(&r, "KeyReference") {
            return Err(malformed(r, format!("xenc:ReferenceList holds {}", r.name())));
        }
    }
    Ok(out)
}

/// The ID of a same-document reference `#id`; `ExternalReference` for anything else.
pub(crate) fn fragment_id<'a>(uri: &'a str, at: Node<'_>) -> Result<&'a str, EncError> {
    match uri.strip_prefix('#') {
        Some(id) if !id.is_empty() && !id.starts_with("xpointer(") => Ok(id),
        _ => Err(EncError::at(EncErrorKind::ExternalReference(uri.to_string()), at.range().start)),
    }
}

/// The names (`ds:KeyName`) a `KeyInfo` carries.
pub(crate) fn key_names(key_info: Option<Node<'_>>) -> Vec<String> {
    key_info
        .into_iter()
        .flat_map(|k| k.element_children())
        .filter(|c| is(c, DSIG_NS, "KeyName"))
        .map(|c| c.value().trim().to_string())
        .collect()
}
