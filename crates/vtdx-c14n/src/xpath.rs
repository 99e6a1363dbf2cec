//! Node-sets selected by XPath (feature `xpath`, on by default): the bridge
//! between the XPath data model of `vtdx-xpath` (namespace nodes, text nodes
//! spanning CDATA sections) and [`SetNode`].
//!
//! ```
//! use vtdx_c14n::{Algorithm, Canonicalizer, xpath::XPathNodeSet};
//! use vtdx_xpath::{Namespaces, XPath};
//!
//! let doc = vtdx_core::Document::parse(br#"<a xmlns:p="urn:p"><p:b x="1">t</p:b><c/></a>"#)?;
//! let set = XPath::compile("(//. | //@* | //namespace::*)[ancestor-or-self::p:b]", &Namespaces::new().with("p", "urn:p"))?
//!     .select(doc.root())?;
//! let out = Canonicalizer::new(Algorithm::C14n10).node_set_to_vec(&doc, &XPathNodeSet::new(&set))?;
//! assert_eq!(out, br#"<p:b xmlns:p="urn:p" x="1">t</p:b>"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;
use std::io::Write;

use vtdx_core::{Document, NodeId};
use vtdx_xpath::{NodeSet, XNode, XNodeKind};

use crate::{C14nError, Canonicalizer, SetNode};

/// An XPath node-set prepared for membership tests by the canonicalizer.
#[derive(Debug, Clone, Default)]
pub struct XPathNodeSet<'d> {
    nodes: HashSet<XNode<'d>>,
    namespaces: HashSet<(NodeId, &'d str)>,
}

impl<'d> XPathNodeSet<'d> {
    /// Indexes the nodes of `set`.
    pub fn new(set: &NodeSet<'d>) -> Self {
        Self::from_nodes(set.iter().copied())
    }

    /// Indexes any collection of XPath nodes.
    pub fn from_nodes(nodes: impl IntoIterator<Item = XNode<'d>>) -> Self {
        let mut s = XPathNodeSet::default();
        for x in nodes {
            s.insert(x);
        }
        s
    }

    /// Adds a node.
    pub fn insert(&mut self, x: XNode<'d>) {
        if x.kind() == XNodeKind::Namespace {
            if let Some((prefix, _)) = x.namespace() {
                self.namespaces.insert((x.node().id(), prefix));
            }
        } else {
            self.nodes.insert(x);
        }
    }

    /// Is `n` in the set? A core text or CDATA node is in it when the XPath text
    /// node it belongs to is.
    pub fn contains(&self, n: SetNode<'d>) -> bool {
        match n {
            SetNode::Node(node) => self.nodes.contains(&XNode::from_node(node)),
            SetNode::Namespace { element, prefix } => self.namespaces.contains(&(element.id(), prefix)),
        }
    }

    /// Number of nodes (namespace nodes included).
    pub fn len(&self) -> usize {
        self.nodes.len() + self.namespaces.len()
    }

    /// True for the empty node-set.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Canonicalizer {
    /// Canonicalizes the node-set `set` of `doc` (see [`Canonicalizer::canonicalize_node_set`]).
    pub fn canonicalize_xpath_node_set<'d, W: Write + ?Sized>(
        &self,
        doc: &'d Document<'d>,
        set: &XPathNodeSet<'d>,
        w: &mut W,
    ) -> Result<(), C14nError> {
        self.canonicalize_node_set(doc, |n| set.contains(n), w)
    }

    /// [`Canonicalizer::canonicalize_xpath_node_set`] into a new vector.
    pub fn node_set_to_vec<'d>(&self, doc: &'d Document<'d>, set: &XPathNodeSet<'d>) -> Result<Vec<u8>, C14nError> {
        let mut v = Vec::new();
        self.canonicalize_xpath_node_set(doc, set, &mut v)?;
        Ok(v)
    }
}
