//! The XPath data model on top of the core index (`XNode`), and the four value
//! types (`Value`, `NodeSet`).

use std::borrow::Cow;
use std::fmt;

use vtdx_core::{Node, NodeKind};

use crate::number;

/// The seven node kinds of the XPath data model (§5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XNodeKind {
    /// The root node (§5.1), parent of the document element.
    Root,
    /// An element (§5.2).
    Element,
    /// An attribute (§5.3); namespace declarations are not attributes.
    Attribute,
    /// A namespace node (§5.4): one per in-scope namespace of an element.
    Namespace,
    /// A processing instruction (§5.5).
    ProcessingInstruction,
    /// A comment (§5.6).
    Comment,
    /// A text node (§5.7): a maximal run of character data, CDATA sections included.
    Text,
}

impl XNodeKind {
    /// The kind's name in `vtdx query --json` output: `root`, `element`,
    /// `attribute`, `text`, `comment`, `pi`, `namespace`.
    pub fn name(self) -> &'static str {
        match self {
            XNodeKind::Root => "root",
            XNodeKind::Element => "element",
            XNodeKind::Attribute => "attribute",
            XNodeKind::Namespace => "namespace",
            XNodeKind::ProcessingInstruction => "pi",
            XNodeKind::Comment => "comment",
            XNodeKind::Text => "text",
        }
    }
}

/// A node of the XPath data model: a core [`Node`] (root, element, attribute,
/// comment, processing instruction), a text node, or a namespace node.
///
/// * A **text node** is a maximal run of adjacent core `Text` and `CData`
///   siblings, identified by its first member; its string-value concatenates
///   the run. Runs whose characters are all empty (`<![CDATA[]]>`) are not nodes.
/// * A **namespace node** is an (element, in-scope namespace) pair. An
///   element's namespace nodes come after it and before its attributes in
///   document order; among themselves (an order the Recommendation leaves to
///   the implementation) `xml` comes first, then the others in the order of
///   the declarations in force, outer elements first.
///
/// `XNode` is `Copy` and costs three words.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct XNode<'d> {
    /// The node; for a namespace node its element.
    pub(crate) node: Node<'d>,
    /// 0, or for a namespace node 1 + its index in the element's in-scope
    /// namespaces (see `ordered_namespaces`).
    pub(crate) ns: u32,
}

pub(crate) use vtdx_core::xml::is_textish;

/// Is a core text or CDATA node empty (an empty CDATA section, or text made
/// only of references to entities that expand to nothing)?
pub(crate) fn text_member_is_empty(n: &Node<'_>) -> bool {
    match n.kind() {
        NodeKind::CData => n.range().len() <= "<![CDATA[]]>".len(),
        _ => {
            let raw = n.raw();
            raw.is_empty() || (raw.contains(&b'&') && n.value().is_empty())
        }
    }
}

/// The in-scope namespaces of an element in the order of its namespace
/// nodes: `xml` first, then by the position of the declaration in force
/// (outer declarations before inner ones, attribute order within an element).
pub(crate) fn ordered_namespaces<'d>(e: &Node<'d>) -> Vec<(&'d str, &'d str)> {
    let mut chain: Vec<Node<'d>> = Vec::new();
    let mut cur = Some(*e).filter(|n| n.is_element());
    while let Some(n) = cur {
        chain.push(n);
        cur = n.parent_element();
    }
    let mut out: Vec<(&'d str, &'d str)> = vec![("xml", vtdx_core::XML_NAMESPACE)];
    for n in chain.iter().rev() {
        for d in n.namespace_declarations() {
            let prefix = if d.name() == "xmlns" { "" } else { d.local_name() };
            if prefix == "xml" {
                continue;
            }
            out.retain(|(p, _)| *p != prefix);
            // The URI as the document binds it (borrowed from the name tables).
            if let Some(uri) = n.lookup_namespace(prefix) {
                if !uri.is_empty() {
                    out.push((prefix, uri));
                }
            }
        }
    }
    out
}

impl<'d> XNode<'d> {
    /// The XPath node for a core node. A text or CDATA node stands for the text
    /// node (run) it belongs to; a namespace declaration (`xmlns:p="..."`), which
    /// XPath does not see as an attribute, for the namespace node it declares
    /// on its element.
    pub fn from_node(node: Node<'d>) -> XNode<'d> {
        if is_textish(&node) {
            let mut first = node;
            while let Some(p) = first.prev_sibling() {
                if !is_textish(&p) {
                    break;
                }
                first = p;
            }
            return XNode { node: first, ns: 0 };
        }
        if node.is_namespace_declaration() {
            if let Some(e) = node.parent() {
                let prefix = if node.name() == "xmlns" { "" } else { node.local_name() };
                if let Some(i) = ordered_namespaces(&e).iter().position(|(p, _)| *p == prefix) {
                    return XNode { node: e, ns: i as u32 + 1 };
                }
            }
        }
        XNode { node, ns: 0 }
    }

    #[inline]
    pub(crate) fn plain(node: Node<'d>) -> XNode<'d> {
        XNode { node, ns: 0 }
    }

    /// The node's kind.
    #[inline]
    pub fn kind(&self) -> XNodeKind {
        if self.ns != 0 {
            return XNodeKind::Namespace;
        }
        match self.node.kind() {
            NodeKind::Root => XNodeKind::Root,
            NodeKind::Element => XNodeKind::Element,
            NodeKind::Attribute => XNodeKind::Attribute,
            NodeKind::Text | NodeKind::CData => XNodeKind::Text,
            NodeKind::Comment => XNodeKind::Comment,
            NodeKind::ProcessingInstruction => XNodeKind::ProcessingInstruction,
        }
    }

    /// The core node: for a text node the first member of its run, for a
    /// namespace node its element.
    #[inline]
    pub fn node(&self) -> Node<'d> {
        self.node
    }

    /// Is this an element?
    #[inline]
    pub fn is_element(&self) -> bool {
        self.ns == 0 && self.node.is_element()
    }

    /// For a namespace node: (prefix, URI); "" is the default namespace's prefix.
    pub fn namespace(&self) -> Option<(&'d str, &'d str)> {
        if self.ns == 0 {
            return None;
        }
        ordered_namespaces(&self.node).get(self.ns as usize - 1).copied()
    }

    /// The qualified name (§4.1 `name()`): as written for elements and
    /// attributes, the target of a processing instruction, the prefix of a
    /// namespace node, "" for other nodes.
    pub fn name(&self) -> &'d str {
        match self.kind() {
            XNodeKind::Element | XNodeKind::Attribute | XNodeKind::ProcessingInstruction => self.node.name(),
            XNodeKind::Namespace => self.namespace().map_or("", |n| n.0),
            _ => "",
        }
    }

    /// The local part of the expanded-name (§4.1 `local-name()`).
    pub fn local_name(&self) -> &'d str {
        match self.kind() {
            XNodeKind::Element | XNodeKind::Attribute => self.node.local_name(),
            XNodeKind::ProcessingInstruction => self.node.name(),
            XNodeKind::Namespace => self.namespace().map_or("", |n| n.0),
            _ => "",
        }
    }

    /// The namespace URI of the expanded-name (§4.1 `namespace-uri()`):
    /// `None` for no namespace and for nodes without an expanded-name.
    pub fn namespace_uri(&self) -> Option<&'d str> {
        match self.kind() {
            XNodeKind::Element | XNodeKind::Attribute => self.node.namespace_uri(),
            _ => None,
        }
    }

    /// The string-value (§5): for the root and elements the concatenation of
    /// all descendant text, for attributes the normalized value, for text nodes
    /// their characters, for namespace nodes the URI, for comments and
    /// processing instructions their content. Borrowed from the document when
    /// nothing needs decoding.
    pub fn string_value(&self) -> Cow<'d, str> {
        match self.kind() {
            XNodeKind::Namespace => Cow::Borrowed(self.namespace().map_or("", |n| n.1)),
            XNodeKind::Text => {
                let mut v = self.node.value();
                let mut cur = self.node.next_sibling();
                while let Some(n) = cur {
                    if !is_textish(&n) {
                        break;
                    }
                    v.to_mut().push_str(&n.value());
                    cur = n.next_sibling();
                }
                v
            }
            XNodeKind::Element => crate::tape::Tape::new(self.node.document()).element_value(&self.node),
            _ => self.node.value(),
        }
    }

    /// `number(string(node))`, without decoding a leaf element's content.
    #[inline]
    pub(crate) fn number_value(&self) -> f64 {
        if self.is_element() {
            if let Some(raw) = self.node.plain_content() {
                return crate::number::parse_bytes(raw);
            }
        }
        crate::number::parse(&self.string_value())
    }

    /// `string(node) == s`, without decoding a leaf element's content.
    #[inline]
    pub(crate) fn string_value_is(&self, s: &str) -> bool {
        if self.is_element() {
            if let Some(raw) = self.node.plain_content() {
                return raw == s.as_bytes();
            }
        }
        self.string_value() == s
    }

    /// The parent: the element of an attribute or namespace node; `None` for the root.
    pub fn parent(&self) -> Option<XNode<'d>> {
        if self.ns != 0 {
            return Some(XNode::plain(self.node));
        }
        self.node.parent().map(XNode::plain)
    }

    /// The node's location as `vtdx query --json` writes it: `/` for the
    /// root; otherwise `/`-joined steps from the root, each `*[i]` (element, by
    /// position among its parent's element children), `text()[i]`,
    /// `comment()[i]`, `processing-instruction()[i]`, `@local` or
    /// `@{uri}local`, `namespace::prefix`.
    ///
    /// ```
    /// use vtdx_xpath::{XPath, Namespaces};
    /// let doc = vtdx_core::Document::parse(b"<a><b/>x<b y='1'/></a>").unwrap();
    /// let v = XPath::compile("//b[2]/@y | /a/text()", &Namespaces::new()).unwrap().select(doc.root()).unwrap();
    /// let paths: Vec<String> = v.iter().map(|n| n.path()).collect();
    /// assert_eq!(paths, ["/*[1]/text()[1]", "/*[1]/*[2]/@y"]);
    /// ```
    pub fn path(&self) -> String {
        let mut steps: Vec<String> = Vec::new();
        let mut cur = *self;
        loop {
            let step = match cur.kind() {
                XNodeKind::Root => break,
                XNodeKind::Namespace => format!("namespace::{}", cur.name()),
                XNodeKind::Attribute => match cur.namespace_uri() {
                    Some(u) => format!("@{{{u}}}{}", cur.local_name()),
                    None => format!("@{}", cur.local_name()),
                },
                k => {
                    let parent = match cur.parent() {
                        Some(p) => p,
                        None => break,
                    };
                    let mut i = 0;
                    for c in crate::eval::xpath_children(parent.node) {
                        if c.kind() == k {
                            i += 1;
                        }
                        if c == cur {
                            break;
                        }
                    }
                    let name = match k {
                        XNodeKind::Element => "*",
                        XNodeKind::Text => "text()",
                        XNodeKind::Comment => "comment()",
                        _ => "processing-instruction()",
                    };
                    format!("{name}[{i}]")
                }
            };
            steps.push(step);
            match cur.parent() {
                Some(p) => cur = p,
                None => break,
            }
        }
        if steps.is_empty() {
            return "/".to_string();
        }
        let mut out = String::new();
        for s in steps.iter().rev() {
            out.push('/');
            out.push_str(s);
        }
        out
    }

    /// A key that orders nodes of one document in document order.
    #[inline]
    pub(crate) fn order(&self) -> (u64, u32) {
        (self.node.order_key(), self.ns)
    }
}

impl fmt::Debug for XNode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.kind().name(), self.path())
    }
}

/// A node-set: distinct nodes of one document, in document order.
#[derive(Clone, Default, PartialEq)]
pub struct NodeSet<'d> {
    pub(crate) nodes: Vec<XNode<'d>>,
}

impl<'d> NodeSet<'d> {
    /// The empty set.
    pub fn new() -> NodeSet<'d> {
        NodeSet { nodes: Vec::new() }
    }

    /// A set from nodes in any order, possibly repeated: sorted into document
    /// order and deduplicated.
    pub fn from_nodes(mut nodes: Vec<XNode<'d>>) -> NodeSet<'d> {
        crate::eval::sort_dedup(&mut nodes);
        NodeSet { nodes }
    }

    pub(crate) fn from_sorted(nodes: Vec<XNode<'d>>) -> NodeSet<'d> {
        NodeSet { nodes }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Is the set empty?
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The nodes in document order.
    pub fn iter(&self) -> std::slice::Iter<'_, XNode<'d>> {
        self.nodes.iter()
    }

    /// The nodes in document order.
    pub fn as_slice(&self) -> &[XNode<'d>] {
        &self.nodes
    }

    /// The first node in document order.
    pub fn first(&self) -> Option<XNode<'d>> {
        self.nodes.first().copied()
    }

    /// The nodes, in document order.
    pub fn into_vec(self) -> Vec<XNode<'d>> {
        self.nodes
    }
}

impl<'d> IntoIterator for NodeSet<'d> {
    type Item = XNode<'d>;
    type IntoIter = std::vec::IntoIter<XNode<'d>>;
    fn into_iter(self) -> Self::IntoIter {
        self.nodes.into_iter()
    }
}

impl<'a, 'd> IntoIterator for &'a NodeSet<'d> {
    type Item = &'a XNode<'d>;
    type IntoIter = std::slice::Iter<'a, XNode<'d>>;
    fn into_iter(self) -> Self::IntoIter {
        self.nodes.iter()
    }
}

impl fmt::Debug for NodeSet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.nodes).finish()
    }
}

/// The result of an expression (§1: node-set, boolean, number or string).
#[derive(Clone, PartialEq)]
pub enum Value<'d> {
    /// Nodes of the document, in document order.
    NodeSet(NodeSet<'d>),
    /// An IEEE 754 double.
    Number(f64),
    /// A string, borrowed from the document or the expression when possible.
    String(Cow<'d, str>),
    /// A boolean.
    Boolean(bool),
}

impl<'d> Value<'d> {
    /// `boolean()` (§4.3): a node-set is true when non-empty, a number when
    /// neither zero nor NaN, a string when non-empty.
    pub fn boolean(&self) -> bool {
        match self {
            Value::NodeSet(s) => !s.is_empty(),
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::String(s) => !s.is_empty(),
            Value::Boolean(b) => *b,
        }
    }

    /// `number()` (§4.4).
    pub fn number(&self) -> f64 {
        match self {
            Value::NodeSet(s) => s.first().map_or(f64::NAN, |n| n.number_value()),
            Value::Number(n) => *n,
            Value::String(s) => number::parse(s),
            Value::Boolean(b) => {
                if *b {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// `string()` (§4.2): the first node's string-value for a node-set,
    /// `true`/`false`, numbers per [`number::to_string`].
    pub fn string(&self) -> Cow<'d, str> {
        match self {
            Value::NodeSet(s) => s.first().map_or(Cow::Borrowed(""), |n| n.string_value()),
            Value::Number(n) => Cow::Owned(number::to_string(*n)),
            Value::String(s) => s.clone(),
            Value::Boolean(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        }
    }

    /// The node-set, if this is one.
    pub fn as_nodes(&self) -> Option<&NodeSet<'d>> {
        match self {
            Value::NodeSet(s) => Some(s),
            _ => None,
        }
    }

    /// The node-set, if this is one.
    pub fn into_nodes(self) -> Option<NodeSet<'d>> {
        match self {
            Value::NodeSet(s) => Some(s),
            _ => None,
        }
    }

    /// "node-set", "number", "string" or "boolean".
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::NodeSet(_) => "node-set",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Boolean(_) => "boolean",
        }
    }
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::NodeSet(s) => write!(f, "NodeSet({s:?})"),
            Value::Number(n) => write!(f, "Number({})", number::to_string(*n)),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::Boolean(b) => write!(f, "Boolean({b})"),
        }
    }
}

impl fmt::Display for Value<'_> {
    /// The value's `string()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.string())
    }
}

impl<'d> From<f64> for Value<'d> {
    fn from(v: f64) -> Self {
        Value::Number(v)
    }
}
impl<'d> From<bool> for Value<'d> {
    fn from(v: bool) -> Self {
        Value::Boolean(v)
    }
}
impl<'d> From<&'d str> for Value<'d> {
    fn from(v: &'d str) -> Self {
        Value::String(Cow::Borrowed(v))
    }
}
impl<'d> From<String> for Value<'d> {
    fn from(v: String) -> Self {
        Value::String(Cow::Owned(v))
    }
}
impl<'d> From<NodeSet<'d>> for Value<'d> {
    fn from(v: NodeSet<'d>) -> Self {
        Value::NodeSet(v)
    }
}
