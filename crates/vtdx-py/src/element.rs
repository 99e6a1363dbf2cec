//! `Element` (and its subclasses `Comment`, `ProcessingInstruction`), `Attrib`
//! and the node iterators: lxml's `_Element` API on a document index.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySlice, PyString, PyTuple};
use vtdx::core::xml::is_textish;
use vtdx::{Node, NodeId, NodeKind};

use crate::document::{DocRef, Document};
use crate::elementpath;
use crate::names::{attribute_value, clark, split_name, NameTest, TagFilter};

// ---- node helpers ---------------------------------------------------------------

/// Nodes lxml shows as tree members: elements, comments, processing instructions.
#[inline]
pub(crate) fn is_member(n: &Node<'_>) -> bool {
    matches!(n.kind(), NodeKind::Element | NodeKind::Comment | NodeKind::ProcessingInstruction)
}

/// The text of a run of adjacent text/CDATA nodes starting at `cur`; `None` when
/// there is none or it is empty (lxml has no text node then).
pub(crate) fn text_run<'d>(mut cur: Option<Node<'d>>) -> Option<Cow<'d, str>> {
    let mut out: Option<Cow<'d, str>> = None;
    while let Some(n) = cur {
        if !is_textish(&n) {
            break;
        }
        let v = n.value();
        match &mut out {
            None => out = Some(v),
            Some(o) => o.to_mut().push_str(&v),
        }
        cur = n.next_sibling();
    }
    out.filter(|s| !s.is_empty())
}

/// lxml's `.text`: an element's text before its first child node; a comment's
/// content; a processing instruction's data.
pub(crate) fn node_text<'d>(n: &Node<'d>) -> Option<Cow<'d, str>> {
    match n.kind() {
        NodeKind::Element => text_run(n.first_child()),
        NodeKind::Comment => Some(n.value()),
        NodeKind::ProcessingInstruction => Some(n.value()),
        _ => None,
    }
}

/// lxml's `.tail`: the text after a node, up to the next sibling node. Nodes
/// outside the root element have none.
pub(crate) fn node_tail<'d>(n: &Node<'d>) -> Option<Cow<'d, str>> {
    if !n.parent().is_some_and(|p| p.is_element()) {
        return None;
    }
    text_run(n.next_sibling())
}

/// The member children (elements, comments, PIs) of a node.
pub(crate) fn members<'d>(n: &Node<'d>) -> impl Iterator<Item = Node<'d>> + 'd {
    n.children().filter(is_member)
}

fn next_member<'d>(n: &Node<'d>) -> Option<Node<'d>> {
    let mut cur = n.next_sibling();
    while let Some(c) = cur {
        if is_member(&c) {
            return Some(c);
        }
        cur = c.next_sibling();
    }
    None
}

fn prev_member<'d>(n: &Node<'d>) -> Option<Node<'d>> {
    let mut cur = n.prev_sibling();
    while let Some(c) = cur {
        if is_member(&c) {
            return Some(c);
        }
        cur = c.prev_sibling();
    }
    None
}

/// Walks a subtree in document order with start/end events: `f(node, true)` when
/// an element starts (and for each comment/PI), `f(element, false)` when it ends.
/// Iterative, so depth is not limited by the stack.
pub(crate) fn walk<'d>(root: Node<'d>, mut f: impl FnMut(Node<'d>, bool) -> bool) {
    if !root.is_element() {
        f(root, true);
        return;
    }
    if !f(root, true) {
        return;
    }
    let mut stack: Vec<Node<'d>> = vec![root];
    let mut next = members(&root).next();
    loop {
        match next {
            Some(c) if c.is_element() => {
                if !f(c, true) {
                    return;
                }
                stack.push(c);
                next = members(&c).next();
            }
            Some(c) => {
                if !f(c, true) {
                    return;
                }
                next = next_member(&c);
            }
            None => {
                let e = match stack.pop() {
                    Some(e) => e,
                    None => return,
                };
                if !f(e, false) {
                    return;
                }
                if stack.is_empty() {
                    return;
                }
                next = next_member(&e);
            }
        }
    }
}

// ---- wrapping -------------------------------------------------------------------

/// The Python object for a member node: `Element`, `Comment` or `ProcessingInstruction`.
pub(crate) fn wrap_node<'py>(py: Python<'py>, doc: &DocRef, n: Node<'_>) -> PyResult<Bound<'py, PyAny>> {
    let base = Element { doc: doc.clone(), id: n.id() };
    let obj = match n.kind() {
        NodeKind::Comment => Bound::new(py, PyClassInitializer::from(base).add_subclass(Comment))?.into_any(),
        NodeKind::ProcessingInstruction => Bound::new(py, PyClassInitializer::from(base).add_subclass(ProcessingInstruction))?.into_any(),
        _ => Bound::new(py, base)?.into_any(),
    };
    crate::untrack(&obj);
    Ok(obj)
}

/// A list of member nodes as Python objects.
pub(crate) fn wrap_list<'py>(py: Python<'py>, doc: &DocRef, nodes: impl IntoIterator<Item = NodeId>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for id in nodes {
        list.append(wrap_node(py, doc, doc.node(id))?)?;
    }
    Ok(list)
}

/// The `(tag=None, *tags)` arguments as a filter.
pub(crate) fn tag_filter(py: Python<'_>, tag: Option<&Bound<'_, PyAny>>, tags: &Bound<'_, PyTuple>) -> PyResult<TagFilter> {
    let mut all: Vec<Bound<'_, PyAny>> = Vec::new();
    if let Some(t) = tag {
        if !t.is_none() {
            all.push(t.clone());
        }
    }
    for t in tags.iter() {
        all.push(t);
    }
    if all.is_empty() {
        return Ok(TagFilter::everything());
    }
    let mut f = TagFilter::default();
    let mut add = |t: &Bound<'_, PyAny>| -> PyResult<()> {
        if let Ok(s) = t.cast::<PyString>() {
            let s = s.to_cow()?;
            let s: &str = &s;
            if s == "*" {
                f.all_elements = true;
            } else {
                f.names.push(NameTest::parse(s));
            }
        } else if t.is(py.get_type::<Comment>()) {
            f.comments = true;
        } else if t.is(py.get_type::<ProcessingInstruction>()) {
            f.pis = true;
        } else if t.is(py.get_type::<Element>()) {
            f.all_elements = true;
        } else {
            return Err(PyTypeError::new_err(format!(
                "tag must be a str, Element, Comment or ProcessingInstruction, not {}",
                t.get_type().name()?
            )));
        }
        Ok(())
    };
    for t in &all {
        if let Ok(seq) = t.cast::<PyList>() {
            for x in seq.iter() {
                add(&x)?;
            }
        } else if let Ok(seq) = t.cast::<PyTuple>() {
            for x in seq.iter() {
                add(&x)?;
            }
        } else {
            add(t)?;
        }
    }
    Ok(f)
}

/// An iterator over `start` (when `include_self`) and its descendants passing `filter`.
pub(crate) fn iter_nodes<'py>(
    py: Python<'py>,
    doc: &DocRef,
    start: Node<'_>,
    filter: &TagFilter,
    include_self: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut ids: Vec<NodeId> = Vec::new();
    if filter.elements_only() && start.is_element() {
        // a straight scan of the element records
        if include_self && filter.matches(&start) {
            ids.push(start.id());
        }
        if filter.all_elements && filter.names.is_empty() {
            ids.extend(start.descendant_elements().map(|n| n.id()));
        } else {
            ids.extend(start.descendant_elements().filter(|n| filter.matches(n)).map(|n| n.id()));
        }
    } else {
        walk(start, |n, is_start| {
            if is_start && (include_self || n != start) && filter.matches(&n) {
                ids.push(n.id());
            }
            true
        });
    }
    NodeIterator::create(py, doc, ids)
}

// ---- Element --------------------------------------------------------------------

/// An element of a parsed document, with lxml's ``_Element`` API (read-only: change
/// documents with :class:`Editor`).
///
/// Elements are small handles into their document, made on demand: the same node
/// reached twice gives two objects that compare equal (``==``, ``hash``) but are not
/// identical (``is``). Comments and processing instructions are subclasses, as in lxml.
#[pyclass(frozen, subclass, module = "vtdx", name = "Element")]
pub struct Element {
    pub(crate) doc: DocRef,
    pub(crate) id: NodeId,
}

impl Element {
    #[inline]
    pub(crate) fn node(&self) -> Node<'_> {
        self.doc.node(self.id)
    }
}

/// The element a Python object stands for, checking it belongs to `doc` when given.
pub(crate) fn as_element<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<&'a Element> {
    match obj.cast::<Element>() {
        Ok(e) => Ok(e.get()),
        Err(_) => Err(PyTypeError::new_err(format!("expected a vtdx.Element, not {}", obj.get_type().name()?))),
    }
}

#[pymethods]
impl Element {
    /// The tag in Clark notation: ``'{namespace-uri}local'``, or ``'local'`` for no
    /// namespace. For comments and processing instructions, the classes
    /// :class:`Comment` and :class:`ProcessingInstruction` (as lxml returns its factories).
    #[getter]
    fn tag<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let n = self.node();
        Ok(match n.kind() {
            NodeKind::Comment => py.get_type::<Comment>().into_any(),
            NodeKind::ProcessingInstruction => py.get_type::<ProcessingInstruction>().into_any(),
            _ => self.doc.tag(py, &n).into_any(),
        })
    }

    /// The namespace prefix of the tag as written, or ``None``.
    #[getter]
    fn prefix(&self) -> Option<&str> {
        let n = self.node();
        if !n.is_element() || !self.doc.doc.options().namespaces {
            return None;
        }
        Some(n.prefix()).filter(|p| !p.is_empty())
    }

    /// The local part of the tag (lxml: ``QName(el).localname``).
    #[getter]
    fn localname(&self) -> Option<&str> {
        let n = self.node();
        n.is_element().then(|| split_name(&n).1)
    }

    /// The namespace URI of the tag, or ``None`` (lxml: ``QName(el).namespace``).
    #[getter]
    fn namespace(&self) -> Option<&str> {
        let n = self.node();
        if n.is_element() {
            split_name(&n).0
        } else {
            None
        }
    }

    /// The namespaces in scope, as a new dict ``{prefix: uri}``; the default
    /// namespace has the key ``None`` (with ``''`` where ``xmlns=""`` undeclares it,
    /// as lxml). The ``xml`` prefix is not included.
    #[getter]
    fn nsmap<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let n = self.node();
        let mut seen: Vec<(&str, Cow<'_, str>)> = Vec::new();
        let mut cur = if n.is_element() { Some(n) } else { n.parent_element() };
        while let Some(e) = cur {
            for a in e.namespace_declarations() {
                let p = if a.name() == "xmlns" { "" } else { a.local_name() };
                if p != "xml" && !seen.iter().any(|(q, _)| *q == p) {
                    seen.push((p, a.value()));
                }
            }
            cur = e.parent_element();
        }
        let d = PyDict::new(py);
        // outermost first, so the dict's order follows the document
        for (p, u) in seen.iter().rev() {
            if p.is_empty() {
                d.set_item(py.None(), u.as_ref())?;
            } else {
                d.set_item(*p, u.as_ref())?;
            }
        }
        Ok(d)
    }

    /// The attributes as a read-only mapping ``{clark-name: value}`` in document order
    /// (namespace declarations are not attributes).
    #[getter]
    fn attrib(&self) -> Attrib {
        Attrib { doc: self.doc.clone(), id: self.id }
    }

    /// The text before the first child node (entity and character references
    /// resolved, CDATA sections included), or ``None``. For a comment its content,
    /// for a processing instruction its data.
    #[getter]
    fn text(&self) -> Option<Cow<'_, str>> {
        node_text(&self.node())
    }

    /// The text after this node up to the next sibling node, or ``None``.
    #[getter]
    fn tail(&self) -> Option<Cow<'_, str>> {
        node_tail(&self.node())
    }

    /// The line of the node in the document (1-based): where an element's start tag
    /// ends, where a comment or processing instruction ends (as libxml2 reports it).
    #[getter]
    fn sourceline(&self) -> u32 {
        let n = self.node();
        let off = match n.start_tag_range() {
            Some(r) => r.end.saturating_sub(1),
            None => n.range().end.saturating_sub(1),
        };
        self.doc.line_of(off)
    }

    /// The attribute's value, or ``default``. ``key`` is a Clark name:
    /// ``'{uri}local'`` or ``'local'`` (no namespace).
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(&self, py: Python<'py>, key: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        self.attrib().get(py, key, default)
    }

    /// The attribute names (Clark notation), in document order.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.attrib().keys(py)
    }

    /// The attribute values, in document order.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.attrib().values(py)
    }

    /// The attributes as ``(name, value)`` pairs, in document order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.attrib().items(py)
    }

    /// Number of child nodes (elements, comments, processing instructions).
    fn __len__(&self) -> usize {
        members(&self.node()).count()
    }

    /// The children (elements, comments, processing instructions), in order.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ids: Vec<NodeId> = members(&self.node()).map(|n| n.id()).collect();
        NodeIterator::create(py, &self.doc, ids)
    }

    /// ``el[i]`` (negative counts from the end) or ``el[i:j:k]`` (a list).
    fn __getitem__<'py>(&self, py: Python<'py>, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let n = self.node();
        if let Ok(s) = index.cast::<PySlice>() {
            let kids: Vec<NodeId> = members(&n).map(|c| c.id()).collect();
            let ind = s.indices(kids.len() as isize)?;
            let mut out = Vec::new();
            let mut i = ind.start;
            for _ in 0..ind.slicelength {
                out.push(kids[i as usize]);
                i += ind.step;
            }
            return Ok(wrap_list(py, &self.doc, out)?.into_any());
        }
        let i: isize = index.extract()?;
        let c = if i >= 0 {
            members(&n).nth(i as usize)
        } else {
            let kids: Vec<Node<'_>> = members(&n).collect();
            let j = kids.len() as isize + i;
            if j >= 0 {
                Some(kids[j as usize])
            } else {
                None
            }
        };
        match c {
            Some(c) => wrap_node(py, &self.doc, c),
            None => Err(PyIndexError::new_err("list index out of range")),
        }
    }

    /// ``child in el``: is ``child`` a child of this element?
    fn __contains__(&self, child: &Bound<'_, PyAny>) -> bool {
        match child.cast::<Element>() {
            Ok(c) => {
                let c = c.get();
                Arc::ptr_eq(&c.doc, &self.doc) && c.node().parent().map(|p| p.id()) == Some(self.id)
            }
            Err(_) => false,
        }
    }

    /// The position of ``child`` among the children.
    #[pyo3(signature = (child, start=None, stop=None))]
    fn index(&self, child: &Bound<'_, PyAny>, start: Option<usize>, stop: Option<usize>) -> PyResult<usize> {
        let c = as_element(child)?;
        if Arc::ptr_eq(&c.doc, &self.doc) {
            for (i, m) in members(&self.node()).enumerate() {
                if start.is_some_and(|s| i < s) {
                    continue;
                }
                if stop.is_some_and(|s| i >= s) {
                    break;
                }
                if m.id() == c.id {
                    return Ok(i);
                }
            }
        }
        Err(PyValueError::new_err("element is not a child of this node"))
    }

    /// The children as a list (deprecated in ElementTree; use ``list(el)``).
    fn getchildren<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        wrap_list(py, &self.doc, members(&self.node()).map(|n| n.id()))
    }

    /// The parent element, or ``None`` for the root element (and for comments and
    /// processing instructions outside it).
    fn getparent<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.node().parent_element() {
            Some(p) => Ok(Some(wrap_node(py, &self.doc, p)?)),
            None => Ok(None),
        }
    }

    /// The next sibling node (element, comment or PI), or ``None``.
    fn getnext<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match next_member(&self.node()) {
            Some(p) => Ok(Some(wrap_node(py, &self.doc, p)?)),
            None => Ok(None),
        }
    }

    /// The previous sibling node (element, comment or PI), or ``None``.
    fn getprevious<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match prev_member(&self.node()) {
            Some(p) => Ok(Some(wrap_node(py, &self.doc, p)?)),
            None => Ok(None),
        }
    }

    /// The :class:`Document` this element belongs to.
    fn getroottree(&self) -> Document {
        Document { inner: self.doc.clone() }
    }

    /// Iterates over this element and its descendants in document order
    /// (comments and processing instructions included), optionally only those
    /// matching ``tag``: ``'{uri}local'``, ``'local'`` (no namespace), ``'{*}local'``,
    /// ``'{uri}*'``, ``'*'`` (any element), or the classes ``Element``, ``Comment``,
    /// ``ProcessingInstruction``. Several tags may be given.
    #[pyo3(signature = (tag=None, *tags))]
    fn iter<'py>(&self, py: Python<'py>, tag: Option<&Bound<'py, PyAny>>, tags: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        let f = tag_filter(py, tag, tags)?;
        iter_nodes(py, &self.doc, self.node(), &f, true)
    }

    /// Like :meth:`iter` without the element itself.
    #[pyo3(signature = (tag=None, *tags))]
    fn iterdescendants<'py>(
        &self,
        py: Python<'py>,
        tag: Option<&Bound<'py, PyAny>>,
        tags: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let f = tag_filter(py, tag, tags)?;
        iter_nodes(py, &self.doc, self.node(), &f, false)
    }

    /// The children matching ``tag`` (all when omitted), optionally in reverse.
    #[pyo3(signature = (tag=None, *tags, reversed=false))]
    fn iterchildren<'py>(
        &self,
        py: Python<'py>,
        tag: Option<&Bound<'py, PyAny>>,
        tags: &Bound<'py, PyTuple>,
        reversed: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let f = tag_filter(py, tag, tags)?;
        let mut ids: Vec<NodeId> = members(&self.node()).filter(|n| f.matches(n)).map(|n| n.id()).collect();
        if reversed {
            ids.reverse();
        }
        NodeIterator::create(py, &self.doc, ids)
    }

    /// The following (or, with ``preceding=True``, preceding, nearest first) siblings.
    #[pyo3(signature = (tag=None, *tags, preceding=false))]
    fn itersiblings<'py>(
        &self,
        py: Python<'py>,
        tag: Option<&Bound<'py, PyAny>>,
        tags: &Bound<'py, PyTuple>,
        preceding: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let f = tag_filter(py, tag, tags)?;
        let n = self.node();
        let mut ids = Vec::new();
        let mut cur = if preceding { prev_member(&n) } else { next_member(&n) };
        while let Some(c) = cur {
            if f.matches(&c) {
                ids.push(c.id());
            }
            cur = if preceding { prev_member(&c) } else { next_member(&c) };
        }
        NodeIterator::create(py, &self.doc, ids)
    }

    /// The ancestor elements, nearest first.
    #[pyo3(signature = (tag=None, *tags))]
    fn iterancestors<'py>(
        &self,
        py: Python<'py>,
        tag: Option<&Bound<'py, PyAny>>,
        tags: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let f = tag_filter(py, tag, tags)?;
        let ids: Vec<NodeId> = self.node().ancestors().filter(|a| a.is_element() && f.matches(a)).map(|a| a.id()).collect();
        NodeIterator::create(py, &self.doc, ids)
    }

    /// Iterates over the text of this element and its descendants in document order
    /// (each element's ``text`` and, with ``with_tail``, the ``tail`` of each descendant
    /// node), as lxml does. With tags, only the text of matching nodes.
    #[pyo3(signature = (tag=None, *tags, with_tail=true))]
    fn itertext<'py>(
        &self,
        py: Python<'py>,
        tag: Option<&Bound<'py, PyAny>>,
        tags: &Bound<'py, PyTuple>,
        with_tail: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let f = tag_filter(py, tag, tags)?;
        let start = self.node();
        let list = PyList::empty(py);
        let mut err: Option<PyErr> = None;
        walk(start, |n, is_start| {
            if !f.matches(&n) {
                return true;
            }
            let t = if n.is_element() {
                if is_start {
                    node_text(&n)
                } else if with_tail && n != start {
                    node_tail(&n)
                } else {
                    None
                }
            } else if with_tail && n != start {
                node_tail(&n)
            } else {
                None
            };
            if let Some(t) = t {
                if let Err(e) = list.append(PyString::new(py, &t)) {
                    err = Some(e);
                    return false;
                }
            }
            true
        });
        if let Some(e) = err {
            return Err(e);
        }
        Ok(list.try_iter()?.into_any())
    }

    /// Evaluates an XPath 1.0 expression with this element as the context node.
    ///
    /// ``namespaces`` maps prefixes to URIs; keyword arguments bind ``$variables``
    /// (str, float/int, bool, an element or a list of elements). Results are typed as
    /// lxml's: a list of elements and strings (attribute values and text, as "smart"
    /// strings with ``getparent()``, ``attrname``, ``is_text``, ``is_tail``,
    /// ``is_attribute``) and ``(prefix, uri)`` tuples for namespace nodes, a float, a
    /// bool or a string.
    #[pyo3(signature = (_path, namespaces=None, smart_strings=true, **variables))]
    fn xpath<'py>(
        &self,
        py: Python<'py>,
        _path: &str,
        namespaces: Option<&Bound<'py, PyAny>>,
        smart_strings: bool,
        variables: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::xpath::eval_str(py, &self.doc, self.node(), _path, namespaces, smart_strings, variables)
    }

    /// The first element matching an ElementPath expression (``tag``, ``*``, ``.``,
    /// ``..``, ``//``, ``[@attr]``, ``[@attr='v']``, ``[tag]``, ``[tag='text']``,
    /// ``[.='text']``, ``[n]``, ``[last()]``, ``{uri}tag``, ``prefix:tag`` with
    /// ``namespaces``), or ``None``.
    #[pyo3(signature = (path, namespaces=None))]
    fn find<'py>(&self, py: Python<'py>, path: &str, namespaces: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        elementpath::find(py, &self.doc, self.node(), path, namespaces)
    }

    /// Every element matching an ElementPath expression, as a list.
    #[pyo3(signature = (path, namespaces=None))]
    fn findall<'py>(&self, py: Python<'py>, path: &str, namespaces: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        elementpath::findall(py, &self.doc, self.node(), path, namespaces)
    }

    /// An iterator over the elements matching an ElementPath expression.
    #[pyo3(signature = (path, namespaces=None))]
    fn iterfind<'py>(&self, py: Python<'py>, path: &str, namespaces: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        elementpath::iterfind(py, &self.doc, self.node(), path, namespaces)
    }

    /// The text of the first match (``''`` when it has none), or ``default`` when
    /// nothing matches.
    #[pyo3(signature = (path, default=None, namespaces=None))]
    fn findtext<'py>(
        &self,
        py: Python<'py>,
        path: &str,
        default: Option<Bound<'py, PyAny>>,
        namespaces: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        elementpath::findtext(py, &self.doc, self.node(), path, default, namespaces)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        let me = slf.get();
        let n = me.node();
        match n.kind() {
            NodeKind::Comment => format!("<!--{}-->", n.value()),
            NodeKind::ProcessingInstruction => {
                let d = n.value();
                if d.is_empty() {
                    format!("<?{}?>", n.name())
                } else {
                    format!("<?{} {}?>", n.name(), d)
                }
            }
            _ => format!("<Element {} at {:#x}>", clark(&n), slf.as_ptr() as usize),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Element>() {
            Ok(o) => {
                let o = o.get();
                o.id == self.id && Arc::ptr_eq(&o.doc, &self.doc)
            }
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> isize {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (Arc::as_ptr(&self.doc) as usize).hash(&mut h);
        self.id.hash(&mut h);
        h.finish() as isize
    }

    fn __copy__(slf: &Bound<'_, Self>) -> Py<Self> {
        slf.clone().unbind()
    }

    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf.clone().unbind()
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err("vtdx elements cannot be pickled; pickle vtdx.tostring(el) and parse it again"))
    }
}

/// A comment (``<!--...-->``): an :class:`Element` subclass, as in lxml.
/// ``tag`` is the class ``Comment``; ``text`` is the content.
#[pyclass(frozen, extends = Element, module = "vtdx", name = "Comment")]
pub struct Comment;

/// A processing instruction (``<?target data?>``): an :class:`Element` subclass, as
/// in lxml. ``tag`` is the class ``ProcessingInstruction``; ``target`` and ``text``
/// (the data) are its parts.
#[pyclass(frozen, extends = Element, module = "vtdx", name = "ProcessingInstruction")]
pub struct ProcessingInstruction;

#[pymethods]
impl ProcessingInstruction {
    /// The PI target.
    #[getter]
    fn target(slf: PyRef<'_, Self>) -> String {
        let base: &Element = slf.as_super();
        base.node().pi_target().unwrap_or("").to_string()
    }
}

/// Is ``obj`` a vtdx element (comments and processing instructions included)?
#[pyfunction]
pub(crate) fn iselement(obj: &Bound<'_, PyAny>) -> bool {
    obj.cast::<Element>().is_ok()
}

// ---- Attrib ---------------------------------------------------------------------

/// The attributes of an element: a read-only mapping ``{clark-name: value}`` in
/// document order, like lxml's ``_Attrib`` (``dict(el.attrib)`` copies it).
#[pyclass(frozen, module = "vtdx", name = "Attrib", mapping)]
pub struct Attrib {
    doc: DocRef,
    id: NodeId,
}

impl Attrib {
    fn node(&self) -> Node<'_> {
        self.doc.node(self.id)
    }
}

#[pymethods]
impl Attrib {
    fn __getitem__(&self, key: &str) -> PyResult<Cow<'_, str>> {
        match attribute_value(&self.node(), key) {
            Some(v) => Ok(v),
            None => Err(PyKeyError::new_err(key.to_string())),
        }
    }

    fn __len__(&self) -> usize {
        self.node().attributes().count()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        match key.extract::<String>() {
            Ok(k) => attribute_value(&self.node(), &k).is_some(),
            Err(_) => false,
        }
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.keys(py)?.try_iter()?.into_any())
    }

    /// The value for ``key``, or ``default``.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(&self, py: Python<'py>, key: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        match attribute_value(&self.node(), key) {
            Some(v) => Ok(PyString::new(py, &v).into_any()),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    /// The names, in document order.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.node().attributes().map(|a| clark(&a)))
    }

    /// The values, in document order.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.node().attributes().map(|a| a.value()))
    }

    /// ``(name, value)`` pairs, in document order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.node().attributes().map(|a| (clark(&a), a.value())))
    }

    /// A new ``dict`` with the attributes.
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for a in self.node().attributes() {
            d.set_item(clark(&a), a.value())?;
        }
        Ok(d)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mine = self.copy(py)?;
        if let Ok(o) = other.cast::<Attrib>() {
            return mine.eq(o.get().copy(py)?);
        }
        mine.eq(other)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.copy(py)?.repr()?.to_string())
    }

    fn __bool__(&self) -> bool {
        self.node().attributes().next().is_some()
    }
}

// ---- iterators ------------------------------------------------------------------

/// An iterator over nodes of one document (what ``iter()``, ``iterchildren()``,
/// ``iterfind()`` and friends return). Safe to share: each item is handed out once.
#[pyclass(frozen, module = "vtdx", name = "NodeIterator")]
pub struct NodeIterator {
    doc: DocRef,
    ids: Vec<NodeId>,
    pos: AtomicUsize,
}

impl NodeIterator {
    pub(crate) fn create<'py>(py: Python<'py>, doc: &DocRef, ids: Vec<NodeId>) -> PyResult<Bound<'py, PyAny>> {
        let it = Bound::new(py, NodeIterator { doc: doc.clone(), ids, pos: AtomicUsize::new(0) })?;
        crate::untrack(&it);
        Ok(it.into_any())
    }
}

#[pymethods]
impl NodeIterator {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let i = self.pos.fetch_add(1, Ordering::Relaxed);
        match self.ids.get(i) {
            Some(&id) => Ok(Some(wrap_node(py, &self.doc, self.doc.node(id))?)),
            None => {
                self.pos.store(self.ids.len(), Ordering::Relaxed);
                Ok(None)
            }
        }
    }

    fn __length_hint__(&self) -> usize {
        self.ids.len().saturating_sub(self.pos.load(Ordering::Relaxed))
    }
}
