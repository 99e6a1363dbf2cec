//! # vtdx-c14n
//!
//! Canonical XML straight from the vtdx token index: [Canonical XML 1.0],
//! [Canonical XML 1.1] and [Exclusive XML Canonicalization 1.0], each with
//! and without comments, over the whole document, a subtree, a subtree minus
//! excluded subtrees (the enveloped-signature transform) or any XPath
//! node-set.
//!
//! Nothing is built: the canonicalizer walks the index and writes bytes to any
//! [`std::io::Write`] — a file, a `Vec<u8>`, or a [`DigestWriter`] that hashes,
//! so signing never materializes the canonical form. Where a run of input is
//! already canonical (UTF-8, no carriage return, no reference, no CDATA,
//! attributes and namespace declarations in canonical order and not redundant,
//! double quotes, single spaces, no empty-element tag) the input bytes are
//! passed through unchanged; everything else is rebuilt token by token.
//!
//! ```
//! use vtdx_c14n::{Algorithm, Canonicalizer};
//!
//! let doc = vtdx_core::Document::parse(
//!     br#"<env:Envelope xmlns:env="urn:env" xmlns:m="urn:m"><env:Body><m:q a='1' b="2"/></env:Body></env:Envelope>"#,
//! )?;
//! let body = doc.root_element().first_element_child().unwrap();
//! let c14n = Canonicalizer::new(Algorithm::ExcC14n10);
//! let out = c14n.subtree_to_vec(body)?;
//! assert_eq!(out, br#"<env:Body xmlns:env="urn:env"><m:q xmlns:m="urn:m" a="1" b="2"></m:q></env:Body>"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [Canonical XML 1.0]: https://www.w3.org/TR/2001/REC-xml-c14n-20010315
//! [Canonical XML 1.1]: https://www.w3.org/TR/2008/REC-xml-c14n11-20080502/
//! [Exclusive XML Canonicalization 1.0]: https://www.w3.org/TR/2002/REC-xml-exc-c14n-20020718/

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod common;
mod digest;
mod engine;
mod escape;
mod small;
mod tree;
pub mod uri;
#[cfg(feature = "xpath")]
pub mod xpath;

use std::fmt;
use std::io::{self, Write};

use vtdx_core::{Document, Node, NodeKind};

use crate::common::Sink;

pub use digest::{Digest, DigestWriter};

/// A canonicalization algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Canonical XML 1.0 (`http://www.w3.org/TR/2001/REC-xml-c14n-20010315`).
    C14n10,
    /// Canonical XML 1.1 (`http://www.w3.org/2006/12/xml-c14n11`).
    C14n11,
    /// Exclusive XML Canonicalization 1.0 (`http://www.w3.org/2001/10/xml-exc-c14n#`).
    ExcC14n10,
}

impl Algorithm {
    /// The algorithm URI as XML Signature names it.
    pub fn uri(self, with_comments: bool) -> &'static str {
        match (self, with_comments) {
            (Algorithm::C14n10, false) => "http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
            (Algorithm::C14n10, true) => "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments",
            (Algorithm::C14n11, false) => "http://www.w3.org/2006/12/xml-c14n11",
            (Algorithm::C14n11, true) => "http://www.w3.org/2006/12/xml-c14n11#WithComments",
            (Algorithm::ExcC14n10, false) => "http://www.w3.org/2001/10/xml-exc-c14n#",
            (Algorithm::ExcC14n10, true) => "http://www.w3.org/2001/10/xml-exc-c14n#WithComments",
        }
    }

    /// The algorithm and its comments flag for an XML Signature algorithm URI.
    pub fn from_uri(uri: &str) -> Option<(Algorithm, bool)> {
        [Algorithm::C14n10, Algorithm::C14n11, Algorithm::ExcC14n10]
            .into_iter()
            .flat_map(|a| [(a, false), (a, true)])
            .find(|&(a, c)| a.uri(c) == uri)
    }

    /// True for Exclusive XML Canonicalization.
    pub fn is_exclusive(self) -> bool {
        self == Algorithm::ExcC14n10
    }
}

/// A node of an XPath node-set, as [`Canonicalizer::canonicalize_node_set`]
/// asks about it.
///
/// The XPath data model has namespace nodes, which the token index does not:
/// a namespace node is named by its element and prefix (`""` for the default
/// namespace). Attribute nodes are the core attribute nodes (namespace
/// declarations are never asked about as attributes). A text node of the
/// XPath model may span several core `Text`/`CData` nodes; each of them is
/// asked about separately. The `xml` namespace node is never asked about (it
/// is never output), and attributes defaulted from the DTD, which have no
/// node in the index, are in the node-set exactly when their element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetNode<'d> {
    /// An element, attribute, text, CDATA, comment or processing instruction node, or the root.
    Node(Node<'d>),
    /// The namespace node for `prefix` on `element`.
    Namespace {
        /// The element the namespace node belongs to.
        element: Node<'d>,
        /// Its prefix; `""` for the default namespace.
        prefix: &'d str,
    },
}

/// Canonicalization failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum C14nError {
    /// Writing the output failed.
    Io(io::Error),
    /// A namespace declaration binds a relative URI, which Canonical XML requires
    /// an implementation to report as a failure (C14N 1.0 §2, "relative namespace URIs").
    RelativeNamespaceUri {
        /// The declared prefix (`""` for the default namespace).
        prefix: String,
        /// The URI as declared.
        uri: String,
        /// Byte offset of the declaration in [`Document::text`].
        offset: usize,
    },
    /// A node given to a subtree entry point belongs to another document, or an
    /// excluded node is not an element of the document.
    ForeignNode,
}

impl fmt::Display for C14nError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            C14nError::Io(e) => write!(f, "write error: {e}"),
            C14nError::RelativeNamespaceUri { prefix, uri, offset } => {
                let p = if prefix.is_empty() { "xmlns".to_string() } else { format!("xmlns:{prefix}") };
                write!(f, "relative namespace URI {p}=\"{uri}\" at byte {offset}: canonical XML cannot process it")
            }
            C14nError::ForeignNode => write!(f, "the node does not belong to the document being canonicalized"),
        }
    }
}

impl std::error::Error for C14nError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            C14nError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for C14nError {
    fn from(e: io::Error) -> Self {
        C14nError::Io(e)
    }
}

/// A configured canonicalizer. Cheap to build and reusable; canonicalizing does
/// not change it, so one value can serve many threads.
#[derive(Debug, Clone)]
pub struct Canonicalizer {
    pub(crate) alg: Algorithm,
    pub(crate) with_comments: bool,
    /// The InclusiveNamespaces PrefixList (exclusive only); `""` stands for `#default`.
    pub(crate) prefixes: Vec<String>,
    pub(crate) fast_path: bool,
    /// Bytes collected before they go to the writer ([`Canonicalizer::write_size`]).
    pub(crate) write_size: usize,
}

impl Canonicalizer {
    /// A canonicalizer for `alg`, without comments.
    pub fn new(alg: Algorithm) -> Self {
        Canonicalizer { alg, with_comments: false, prefixes: Vec::new(), fast_path: true, write_size: common::CAP }
    }

    /// Keep comments (the `#WithComments` variants).
    pub fn with_comments(mut self, on: bool) -> Self {
        self.with_comments = on;
        self
    }

    /// The InclusiveNamespaces PrefixList of Exclusive XML Canonicalization:
    /// prefixes whose namespace declarations are treated as in inclusive
    /// canonicalization. `#default` (or `""`) names the default namespace.
    /// Ignored by the inclusive algorithms.
    pub fn inclusive_prefixes<S: AsRef<str>>(mut self, prefixes: &[S]) -> Self {
        self.prefixes = prefixes
            .iter()
            .map(|p| {
                let p = p.as_ref();
                if p == "#default" {
                    String::new()
                } else {
                    p.to_string()
                }
            })
            .collect();
        self.prefixes.sort();
        self.prefixes.dedup();
        self
    }

    /// Parses a whitespace-separated PrefixList (`"p1 p2 #default"`), as the
    /// `PrefixList` attribute of `ec:InclusiveNamespaces` holds it.
    pub fn inclusive_prefix_list(self, list: &str) -> Self {
        let v: Vec<&str> = list.split([' ', '\t', '\r', '\n']).filter(|s| !s.is_empty()).collect();
        self.inclusive_prefixes(&v)
    }

    /// Turn the zero-copy fast path on (the default) or off. The output is the same
    /// either way (property-tested); off, every token is rebuilt.
    pub fn fast_path(mut self, on: bool) -> Self {
        self.fast_path = on;
        self
    }

    /// How many bytes of output collect before they go to the writer in one
    /// `write_all` (default 64 KiB; at least 1 KiB, at most 64 KiB). A consumer that
    /// works on the bytes while the canonicalization goes on (a hash on another
    /// thread) gets its first bytes sooner with a smaller size. The output is the same.
    pub fn write_size(mut self, bytes: usize) -> Self {
        self.write_size = bytes.clamp(1024, common::CAP);
        self
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    /// Canonicalizes the whole document (comments per the configuration).
    pub fn canonicalize_document<W: Write + ?Sized>(&self, doc: &Document<'_>, w: &mut W) -> Result<(), C14nError> {
        tree::run(self, doc, None, &[], Sink::new(w, doc.text().len() + 1024, self.write_size)).1
    }

    /// Canonicalizes the subtree rooted at `node`: for an element, the element with
    /// its attributes, namespace nodes and descendants (the node-set of an XML
    /// Signature same-document reference `#id`); inherited namespaces are declared on
    /// it and, for C14N 1.0/1.1, inherited `xml:*` attributes added. The root node
    /// gives the whole document; any other node kind gives that node alone.
    pub fn canonicalize_subtree<W: Write + ?Sized>(&self, node: Node<'_>, w: &mut W) -> Result<(), C14nError> {
        self.canonicalize_subtree_excluding(node, &[], w)
    }

    /// Like [`Canonicalizer::canonicalize_subtree`], leaving out the subtrees rooted at
    /// `excluded` (the enveloped-signature transform removes the `Signature`
    /// element this way).
    pub fn canonicalize_subtree_excluding<W: Write + ?Sized>(
        &self,
        node: Node<'_>,
        excluded: &[Node<'_>],
        w: &mut W,
    ) -> Result<(), C14nError> {
        let doc = node.document();
        for x in excluded {
            if !std::ptr::eq(x.document(), doc) {
                return Err(C14nError::ForeignNode);
            }
        }
        if excluded.iter().any(|x| matches!(x.kind(), NodeKind::Text | NodeKind::Attribute)) {
            // text and attribute nodes are not subtrees of their own: the general node-set walk
            let within = |n: Node<'_>| {
                let mut cur = Some(n);
                let mut inside = node.kind() == NodeKind::Root;
                while let Some(x) = cur {
                    if excluded.contains(&x) {
                        return false;
                    }
                    inside |= x == node;
                    cur = x.parent();
                }
                inside
            };
            return engine::run_set(
                self,
                doc,
                &mut |n: SetNode<'_>| match n {
                    SetNode::Node(x) => within(x),
                    SetNode::Namespace { element, .. } => within(element),
                },
                w,
            );
        }
        match node.kind() {
            NodeKind::Root => tree::run(self, doc, None, excluded, Sink::new(w, doc.text().len() + 1024, self.write_size)).1,
            NodeKind::Element => tree::run(self, doc, Some(node), excluded, Sink::new(w, node.range().len() + 1024, self.write_size)).1,
            _ => {
                let target = node;
                engine::run_set(self, doc, &mut |n: SetNode<'_>| matches!(n, SetNode::Node(x) if x == target), w)
            }
        }
    }

    /// Canonicalizes an arbitrary XPath node-set of `doc`, given as a membership
    /// test, following the node-set rules of the algorithm (C14N 1.0 §2.3/§2.4,
    /// C14N 1.1 §2.4, Exclusive C14N §3). Every node of the document may be asked
    /// about, including namespace nodes ([`SetNode::Namespace`]).
    pub fn canonicalize_node_set<'d, W, F>(&self, doc: &'d Document<'d>, mut include: F, w: &mut W) -> Result<(), C14nError>
    where
        W: Write + ?Sized,
        F: FnMut(SetNode<'d>) -> bool,
    {
        engine::run_set(self, doc, &mut include, w)
    }

    /// [`Canonicalizer::canonicalize_document`] into a new vector.
    pub fn document_to_vec(&self, doc: &Document<'_>) -> Result<Vec<u8>, C14nError> {
        // allocated at its size up front (cheaper than growing an empty vector)
        let mut v = Vec::with_capacity(room_for(doc.text().len()));
        self.append_document(doc, &mut v)?;
        Ok(v)
    }

    /// [`Canonicalizer::canonicalize_subtree`] into a new vector.
    pub fn subtree_to_vec(&self, node: Node<'_>) -> Result<Vec<u8>, C14nError> {
        let mut v = Vec::with_capacity(room_for(node.range().len()));
        self.append_subtree(node, &mut v)?;
        Ok(v)
    }

    /// [`Canonicalizer::canonicalize_document`], appending to `out` with no
    /// intermediate buffer: with a vector reused from one message to the next,
    /// canonicalizing allocates nothing. On an error `out` keeps what was written
    /// before it.
    pub fn append_document(&self, doc: &Document<'_>, out: &mut Vec<u8>) -> Result<(), C14nError> {
        self.append(doc, None, doc.text().len(), out)
    }

    /// [`Canonicalizer::canonicalize_subtree`], appending to `out` (see
    /// [`Canonicalizer::append_document`]).
    pub fn append_subtree(&self, node: Node<'_>, out: &mut Vec<u8>) -> Result<(), C14nError> {
        let apex = match node.kind() {
            NodeKind::Element => Some(node),
            NodeKind::Root => None,
            // not a subtree of the tree walk: the node-set walk, through `Write`
            _ => return self.canonicalize_subtree(node, out),
        };
        self.append(node.document(), apex, node.range().len(), out)
    }

    /// The tree walk of `apex` (the whole document for `None`, `n` input bytes),
    /// appending to `out` straight (no pooled buffer, no copy); `out` keeps its
    /// bytes, error or not.
    fn append(&self, doc: &Document<'_>, apex: Option<Node<'_>>, n: usize, out: &mut Vec<u8>) -> Result<(), C14nError> {
        let mut buf = std::mem::take(out);
        buf.reserve(room_for(n));
        let mut none = io::sink();
        let (sink, r) = tree::run(self, doc, apex, &[], Sink::collect(&mut none, buf));
        *out = sink.into_vec();
        r
    }
}

/// Room for the canonical form of `n` input bytes: about as many, plus the namespace
/// declarations a subtree's apex gains and the end tags of empty-element tags.
fn room_for(n: usize) -> usize {
    n + n / 8 + 256
}
