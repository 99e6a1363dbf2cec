//! Names in Clark notation (`{uri}local`) and the tag tests of `iter(tag)`,
//! `iterchildren(tag)` and ElementPath steps, with lxml's rules:
//!
//! * `"{uri}local"`: that namespace and local name; either part may be `*`;
//!   `"{}local"` is no namespace;
//! * `"local"`: the local name **in no namespace** (as `"{}local"`);
//! * `"*"`: every element (`"{*}*"`);
//! * the classes `Element`, `Comment`, `ProcessingInstruction`: every node of that kind.

use std::borrow::Cow;

use vtdx::{Node, NodeKind};

/// (namespace URI, local name) of an element or attribute, as lxml sees it.
/// With namespace processing off, the whole qualified name is the local name.
#[inline]
pub(crate) fn split_name<'d>(n: &Node<'d>) -> (Option<&'d str>, &'d str) {
    if !n.document().options().namespaces {
        return (None, n.name());
    }
    (n.namespace_uri(), n.local_name())
}

/// The Clark-notation name of an element or attribute.
pub(crate) fn clark<'d>(n: &Node<'d>) -> Cow<'d, str> {
    match split_name(n) {
        (Some(uri), local) => Cow::Owned(format!("{{{uri}}}{local}")),
        (None, local) => Cow::Borrowed(local),
    }
}

/// A parsed Clark name: (namespace, local).
pub(crate) fn parse_clark(name: &str) -> (Option<&str>, &str) {
    if let Some(rest) = name.strip_prefix('{') {
        if let Some(close) = rest.find('}') {
            let uri = &rest[..close];
            return (if uri.is_empty() { None } else { Some(uri) }, &rest[close + 1..]);
        }
    }
    (None, name)
}

/// The attribute of `el` with Clark name `key`.
pub(crate) fn find_attribute<'d>(el: &Node<'d>, key: &str) -> Option<Node<'d>> {
    let (ns, local) = parse_clark(key);
    el.attributes().find(|a| {
        let (ans, alocal) = split_name(a);
        alocal == local && ans == ns
    })
}

/// The value of the attribute of `el` with Clark name `key`, as lxml's `get()`,
/// `attrib[key]` and `key in attrib` find it: a written (or, with
/// `attribute_defaults`, defaulted) attribute, else the default the internal
/// subset declares for it (libxml2's `xmlGetProp` looks in the DTD even when the
/// defaults are not in the tree).
pub(crate) fn attribute_value<'d>(el: &Node<'d>, key: &str) -> Option<std::borrow::Cow<'d, str>> {
    if let Some(a) = find_attribute(el, key) {
        return Some(a.value());
    }
    let dtd = el.document().dtd()?;
    let (ns, local) = parse_clark(key);
    for decl in dtd.attributes_of(el.name()) {
        let name = decl.name.as_str();
        if name == "xmlns" || name.starts_with("xmlns:") {
            continue;
        }
        let (uri, l) = match name.split_once(':') {
            None => (None, name),
            Some(("xml", l)) => (Some("http://www.w3.org/XML/1998/namespace"), l),
            Some((p, l)) => (el.lookup_namespace(p), l),
        };
        if l == local && uri == ns {
            return el.default_attribute(name);
        }
    }
    None
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum NsTest {
    Any,
    NoNamespace,
    Uri(String),
}

/// A test on an element's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NameTest {
    ns: NsTest,
    /// `None` for any local name.
    local: Option<String>,
}

impl NameTest {
    /// Every element.
    pub(crate) fn any() -> NameTest {
        NameTest { ns: NsTest::Any, local: None }
    }

    /// Parses a tag in lxml's notation (see the module docs).
    pub(crate) fn parse(tag: &str) -> NameTest {
        if tag == "*" {
            return NameTest::any();
        }
        if let Some(rest) = tag.strip_prefix('{') {
            if let Some(close) = rest.find('}') {
                let uri = &rest[..close];
                let local = &rest[close + 1..];
                let ns = match uri {
                    "*" => NsTest::Any,
                    "" => NsTest::NoNamespace,
                    u => NsTest::Uri(u.to_string()),
                };
                let local = if local == "*" { None } else { Some(local.to_string()) };
                return NameTest { ns, local };
            }
        }
        NameTest { ns: NsTest::NoNamespace, local: Some(tag.to_string()) }
    }

    /// The test that matches exactly the name of `el` (as `el.tag` would).
    pub(crate) fn of(el: &Node<'_>) -> NameTest {
        let (ns, local) = split_name(el);
        NameTest {
            ns: match ns {
                Some(u) => NsTest::Uri(u.to_string()),
                None => NsTest::NoNamespace,
            },
            local: Some(local.to_string()),
        }
    }

    /// Does the element `el` pass?
    #[inline]
    pub(crate) fn matches(&self, el: &Node<'_>) -> bool {
        if !el.is_element() {
            return false;
        }
        if self.local.is_none() && self.ns == NsTest::Any {
            return true;
        }
        let (ns, local) = split_name(el);
        if let Some(l) = &self.local {
            if l != local {
                return false;
            }
        }
        match &self.ns {
            NsTest::Any => true,
            NsTest::NoNamespace => ns.is_none(),
            NsTest::Uri(u) => ns == Some(u.as_str()),
        }
    }
}

/// A union of tag tests (the `tag, *tags` arguments): element name tests and
/// whole node kinds. Empty means "everything" (elements, comments, PIs).
#[derive(Debug, Clone, Default)]
pub(crate) struct TagFilter {
    pub names: Vec<NameTest>,
    pub all_elements: bool,
    pub comments: bool,
    pub pis: bool,
}

impl TagFilter {
    pub(crate) fn everything() -> TagFilter {
        TagFilter { names: Vec::new(), all_elements: true, comments: true, pis: true }
    }

    /// True when nothing but elements can match (the fast element-only walks apply).
    pub(crate) fn elements_only(&self) -> bool {
        !self.comments && !self.pis
    }

    #[inline]
    pub(crate) fn matches(&self, n: &Node<'_>) -> bool {
        match n.kind() {
            NodeKind::Element => self.all_elements || self.names.iter().any(|t| t.matches(n)),
            NodeKind::Comment => self.comments,
            NodeKind::ProcessingInstruction => self.pis,
            _ => false,
        }
    }
}
