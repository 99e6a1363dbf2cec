//! Reading a `ds:Signature` element into a checked model (XML Signature §4):
//! structure, algorithms and limits are checked here, before any
//! canonicalization, digest or signature work.

use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::Node;

use crate::alg::{self, DigestAlgorithm, SignatureAlgorithm, DSIG_NS, EXC_C14N_NS, XPATH_FILTER2};
use crate::config::VerifyConfig;
use crate::error::{Error, ErrorKind};
use crate::key::decode_base64;

/// A transform of a Reference.
#[derive(Debug, Clone)]
pub(crate) enum Transform<'d> {
    Enveloped,
    C14n(Canonicalizer),
    Base64,
    /// The `ds:XPath` element.
    XPath(Node<'d>),
    /// The `dsf:XPath` elements, in order.
    Filter2(Vec<Node<'d>>),
}

#[derive(Debug, Clone)]
pub(crate) struct TransformElem<'d> {
    pub node: Node<'d>,
    pub uri: String,
    pub kind: Transform<'d>,
}

#[derive(Debug, Clone)]
pub(crate) struct Reference<'d> {
    pub node: Node<'d>,
    pub uri: Option<String>,
    pub transforms: Vec<TransformElem<'d>>,
    pub digest: DigestAlgorithm,
    pub digest_value: Vec<u8>,
}

#[derive(Debug, Clone)]
pub(crate) struct Signature<'d> {
    pub node: Node<'d>,
    pub signed_info: Node<'d>,
    pub c14n: Canonicalizer,
    pub method: SignatureAlgorithm,
    pub method_node: Node<'d>,
    pub references: Vec<Reference<'d>>,
    pub value: Vec<u8>,
    pub key_info: Option<Node<'d>>,
}

pub(crate) fn is_ds(n: &Node<'_>, local: &str) -> bool {
    n.is_element() && n.local_name() == local && n.namespace_uri() == Some(DSIG_NS)
}

/// The longest `DigestValue` text read, in bytes: the longest digest (SHA-512,
/// SHA3-512: 64 bytes) is 88 base64 characters; the rest is room for white space.
const MAX_DIGEST_VALUE_TEXT: usize = 1024;

fn malformed(n: Node<'_>, what: String) -> Error {
    Error::at(ErrorKind::Malformed(what), n.range().start)
}

fn algorithm_attr(n: Node<'_>) -> Result<String, Error> {
    n.attribute("Algorithm").map(|a| a.into_owned()).ok_or_else(|| malformed(n, format!("{} without an Algorithm attribute", n.name())))
}

/// Children of `n` that are elements; text other than white space is an error
/// (XML Signature's elements have element-only content, except the values).
fn element_children<'d>(n: Node<'d>) -> Result<Vec<Node<'d>>, Error> {
    let mut out = Vec::new();
    for c in n.children() {
        match c.kind() {
            vtdx_core::NodeKind::Element => out.push(c),
            vtdx_core::NodeKind::Text | vtdx_core::NodeKind::CData if !c.value().trim_matches([' ', '\t', '\r', '\n']).is_empty() => {
                return Err(malformed(c, format!("text in {}", n.name())));
            }
            _ => {}
        }
    }
    Ok(out)
}

fn check_sha1(uri: &str, d: Option<DigestAlgorithm>, cfg: &VerifyConfig, at: Node<'_>) -> Result<(), Error> {
    if d.is_some_and(|d| d.is_sha1()) && !cfg.allow_sha1 {
        return Err(Error::at(ErrorKind::DisallowedAlgorithm { uri: uri.into(), reason: "SHA-1 is not allowed" }, at.range().start));
    }
    Ok(())
}

/// A canonicalization algorithm (for `CanonicalizationMethod` or a Transform), with its PrefixList.
fn canonicalizer(n: Node<'_>, uri: &str) -> Result<Option<Canonicalizer>, Error> {
    let Some((a, comments)) = Algorithm::from_uri(uri) else { return Ok(None) };
    let mut c = Canonicalizer::new(a).with_comments(comments);
    if a == Algorithm::ExcC14n10 {
        for ch in element_children(n)? {
            if ch.local_name() == "InclusiveNamespaces" && ch.namespace_uri() == Some(EXC_C14N_NS) {
                c = c.inclusive_prefix_list(&ch.attribute("PrefixList").unwrap_or_default());
            }
        }
    }
    Ok(Some(c))
}

pub(crate) fn parse<'d>(sig: Node<'d>, cfg: &VerifyConfig) -> Result<Signature<'d>, Error> {
    if !is_ds(&sig, "Signature") {
        return Err(Error::at(ErrorKind::NotASignature, sig.range().start));
    }
    let kids = element_children(sig)?;
    let mut it = kids.iter().copied();
    let signed_info = it.next().filter(|n| is_ds(n, "SignedInfo")).ok_or_else(|| malformed(sig, "SignedInfo must come first".into()))?;
    let value_el =
        it.next().filter(|n| is_ds(n, "SignatureValue")).ok_or_else(|| malformed(sig, "SignatureValue must follow SignedInfo".into()))?;
    let mut key_info = None;
    for n in it {
        if is_ds(&n, "KeyInfo") && key_info.is_none() {
            key_info = Some(n);
        } else if !is_ds(&n, "Object") {
            return Err(malformed(n, format!("unexpected {} in Signature", n.name())));
        }
    }
    let value = decode_base64(&value_el.value()).ok_or_else(|| Error::at(ErrorKind::Base64("SignatureValue"), value_el.range().start))?;

    let si = element_children(signed_info)?;
    let c14n_el = si
        .first()
        .copied()
        .filter(|n| is_ds(n, "CanonicalizationMethod"))
        .ok_or_else(|| malformed(signed_info, "CanonicalizationMethod must come first in SignedInfo".into()))?;
    let c14n_uri = algorithm_attr(c14n_el)?;
    let c14n = canonicalizer(c14n_el, &c14n_uri)?
        .ok_or_else(|| Error::at(ErrorKind::UnsupportedAlgorithm(c14n_uri.clone()), c14n_el.range().start))?;
    let method_node = si
        .get(1)
        .copied()
        .filter(|n| is_ds(n, "SignatureMethod"))
        .ok_or_else(|| malformed(signed_info, "SignatureMethod must follow CanonicalizationMethod".into()))?;
    let method_uri = algorithm_attr(method_node)?;
    let method = SignatureAlgorithm::from_uri(&method_uri).map_err(|k| Error::at(k, method_node.range().start))?;
    check_sha1(&method_uri, method.digest(), cfg, method_node)?;
    for ch in element_children(method_node)? {
        if is_ds(&ch, "HMACOutputLength") {
            let full = method.digest().map_or(0, |d| d.output_len() as u64 * 8);
            let bits: u64 = ch.value().trim().parse().map_err(|_| malformed(ch, "HMACOutputLength is not a number".into()))?;
            if !matches!(method, SignatureAlgorithm::Hmac(_)) {
                return Err(malformed(ch, "HMACOutputLength on a method that is not HMAC".into()));
            }
            if bits != full {
                return Err(Error::at(ErrorKind::TruncatedHmac { bits, full }, ch.range().start));
            }
        }
    }
    let ref_nodes = &si[2..];
    if ref_nodes.is_empty() {
        return Err(malformed(signed_info, "SignedInfo has no Reference".into()));
    }
    if ref_nodes.len() > cfg.max_references {
        return Err(Error::at(
            ErrorKind::TooManyReferences { count: ref_nodes.len(), max: cfg.max_references },
            ref_nodes[cfg.max_references].range().start,
        ));
    }
    let mut references = Vec::with_capacity(ref_nodes.len());
    for &r in ref_nodes {
        if !is_ds(&r, "Reference") {
            return Err(malformed(r, format!("unexpected {} in SignedInfo", r.name())));
        }
        references.push(parse_reference(r, cfg)?);
    }
    Ok(Signature { node: sig, signed_info, c14n, method, method_node, references, value, key_info })
}

fn parse_reference<'d>(r: Node<'d>, cfg: &VerifyConfig) -> Result<Reference<'d>, Error> {
    let kids = element_children(r)?;
    let mut i = 0;
    let mut transforms = Vec::new();
    if kids.first().is_some_and(|n| is_ds(n, "Transforms")) {
        let ts = element_children(kids[0])?;
        if ts.is_empty() {
            return Err(malformed(kids[0], "Transforms without a Transform".into()));
        }
        if ts.len() > cfg.max_transforms {
            return Err(Error::at(
                ErrorKind::TooManyTransforms { count: ts.len(), max: cfg.max_transforms },
                ts[cfg.max_transforms].range().start,
            ));
        }
        for t in ts {
            if !is_ds(&t, "Transform") {
                return Err(malformed(t, format!("unexpected {} in Transforms", t.name())));
            }
            transforms.push(parse_transform(t, cfg)?);
        }
        i = 1;
    }
    let dm =
        kids.get(i).copied().filter(|n| is_ds(n, "DigestMethod")).ok_or_else(|| malformed(r, "Reference without DigestMethod".into()))?;
    let dv =
        kids.get(i + 1).copied().filter(|n| is_ds(n, "DigestValue")).ok_or_else(|| malformed(r, "Reference without DigestValue".into()))?;
    if let Some(extra) = kids.get(i + 2) {
        return Err(malformed(*extra, format!("unexpected {} in Reference", extra.name())));
    }
    let duri = algorithm_attr(dm)?;
    let digest = DigestAlgorithm::from_uri(&duri).map_err(|k| Error::at(k, dm.range().start))?;
    check_sha1(&duri, Some(digest), cfg, dm)?;
    // the text's length first: a hostile DigestValue of megabytes is refused before
    // it is copied, decoded or canonicalized with the SignedInfo
    let text_len: usize = dv.children().map(|c| c.range().len()).sum();
    if text_len > MAX_DIGEST_VALUE_TEXT {
        return Err(Error::at(ErrorKind::Base64("DigestValue"), dv.range().start));
    }
    let digest_value = decode_base64(&dv.value()).ok_or_else(|| Error::at(ErrorKind::Base64("DigestValue"), dv.range().start))?;
    Ok(Reference { node: r, uri: r.attribute("URI").map(|u| u.into_owned()), transforms, digest, digest_value })
}

fn parse_transform<'d>(t: Node<'d>, cfg: &VerifyConfig) -> Result<TransformElem<'d>, Error> {
    let uri = algorithm_attr(t)?;
    let at = t.range().start;
    let kind = match uri.as_str() {
        alg::ENVELOPED => Transform::Enveloped,
        alg::BASE64 => Transform::Base64,
        alg::XSLT => return Err(Error::at(ErrorKind::DisallowedAlgorithm { uri, reason: "XSLT is never run" }, at)),
        alg::XPATH => {
            if !cfg.allow_xpath {
                return Err(Error::at(ErrorKind::DisallowedAlgorithm { uri, reason: "the XPath transform is not allowed" }, at));
            }
            let x = element_children(t)?
                .into_iter()
                .find(|c| is_ds(c, "XPath"))
                .ok_or_else(|| malformed(t, "XPath transform without an XPath element".into()))?;
            Transform::XPath(x)
        }
        XPATH_FILTER2 => {
            if !cfg.allow_xpath_filter2 {
                return Err(Error::at(ErrorKind::DisallowedAlgorithm { uri, reason: "XPath Filter 2.0 is not allowed" }, at));
            }
            let xs: Vec<Node<'d>> = element_children(t)?
                .into_iter()
                .filter(|c| c.local_name() == "XPath" && c.namespace_uri() == Some(XPATH_FILTER2))
                .collect();
            if xs.is_empty() {
                return Err(malformed(t, "XPath Filter 2.0 transform without an XPath element".into()));
            }
            Transform::Filter2(xs)
        }
        _ => match canonicalizer(t, &uri)? {
            Some(c) => Transform::C14n(c),
            None => return Err(Error::at(ErrorKind::UnsupportedAlgorithm(uri), at)),
        },
    };
    Ok(TransformElem { node: t, uri, kind })
}
