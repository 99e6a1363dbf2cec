"""Differential tests: vtdx and lxml on the same inputs must agree.

Inputs are the documents of the shared corpus (W3C XML conformance "valid" cases,
XPath and C14N test documents, benchmark documents) and seeded random documents.
For every document both libraries must give the same tree (tags, attributes,
text, tail, prefixes, nsmap, sourceline, node kinds, iteration order), the same
XPath results, the same ElementPath results, the same itertext, the same
canonical XML, and ``vtdx.tostring(el)`` must stand alone (lxml re-reads it to the
same canonical form).

Known differences are libxml2 deviations from the specifications, where vtdx
follows the specification; each is listed in ``KNOWN`` with its reason.

The documents lxml refuses are listed in ``LXML_REFUSES`` with the true reason
(libxml2's own error); for them another oracle decides: Expat (Python's
``xml.parsers.expat``, an independent parser) and the W3C catalog's verdict. A
document lxml refuses that is not listed fails the test, and the counts are
asserted, so a change in the corpus, in lxml or in vtdx shows.
"""

import random
import warnings
from xml.parsers import expat

import pytest
from lxml import etree

import vtdx

from conftest import corpus_path

PATTERNS = [
    "bench/classic/*.xml",
    "bench/generated/po_small.xml",
    "bench/generated/po_medium.xml",
    "bench/generated/soap_wss_2k.xml",
    "bench/soap/*.xml",
    "bench/vtd-xml-samples/*.xml",
    "bench/xmark/xmark-f0.001.xml",
    "xpath/*/*.xml",
    "xmlconf/xmltest/valid/sa/*.xml",
    "xmlconf/sun/valid/*.xml",
    "xmlconf/oasis/*pass*.xml",
    "xmlconf/ibm/valid/*/*.xml",
    "xmlconf/eduni/namespaces/1.0/*.xml",
    "c14n/*/*.xml",
]

#: libxml2 deviations (file name -> reason); vtdx follows the specifications here.
KNOWN = {
    "068.xml": "libxml2 reads the CR of a character reference in an entity value as LF (XML 1.0 §2.11 normalizes only literal line ends)",
    "108.xml": "libxml2 does not normalize an entity's line end to a space in an attribute value (XML 1.0 §3.3.3)",
    "097.xml": "after an unread external parameter entity, later declarations must be skipped (XML 1.0 §5.1, "
    "W3C expected output out/097.xml); libxml2 applies the later ATTLIST default",
}

#: Why lxml refuses a document (libxml2's error, checked in ``check_lxml_refusal``), and what the
#: other oracle says instead.
REFUSAL_REASONS = {
    "external": "an entity is declared in the external DTD subset, which lxml does not load (libxml2: "
    "\"Entity 'x' not defined\"); vtdx refuses the external identifier by default (ExternalPolicy::Forbid) and "
    "with forbid_external=False reads the document without the external content, as Expat does: compared with Expat",
    "ns-name": "well-formed XML 1.0 but not namespace-well-formed: a name with a colon Namespaces in XML forbids "
    "(libxml2: \"Failed to parse QName\"; the W3C catalog runs it with NAMESPACE=\"no\"); vtdx and Expat refuse it "
    "with namespaces, and without namespace processing vtdx is compared with Expat",
    "ns-not-wf": "not namespace-well-formed (the W3C catalog: TYPE=\"not-wf\"): vtdx and Expat refuse it too",
    "ns-undeclare": "xmlns:p=\"\" undeclares a prefix, which Namespaces in XML 1.0 forbids (only 1.1 allows it; "
    "libxml2: \"Empty XML namespace is not allowed\"): vtdx and Expat refuse it too",
    "xml-id": "an xml:id value that is not an NCName: libxml2 applies the xml:id Recommendation and stops, but "
    "that Recommendation makes an xml:id error non-fatal, and it is no well-formedness error, so vtdx accepts the "
    "document: compared with Expat",
    "iri": "a namespace name with a non-ASCII character, which libxml2 refuses as not a URI (the W3C catalog: "
    "TYPE=\"error\", either outcome allowed); vtdx accepts it: compared with Expat",
}

#: The documents of the corpus lxml refuses, by reason (relative to the corpus root).
LXML_REFUSES = {
    **dict.fromkeys(["xmlconf/sun/valid/not-sa03.xml", "xmlconf/sun/valid/pe00.xml", "xmlconf/ibm/valid/P09/ibm09v03.xml",
                     "xmlconf/ibm/valid/P09/ibm09v05.xml", "xmlconf/ibm/valid/P32/ibm32v02.xml"], "external"),
    **dict.fromkeys(["xmlconf/xmltest/valid/sa/012.xml", "xmlconf/oasis/p04pass1.xml", "xmlconf/oasis/p05pass1.xml"], "ns-name"),
    **dict.fromkeys([f"xmlconf/eduni/namespaces/1.0/{n:03}.xml" for n in
                     (9, 10, 11, 12, 13, 14, 15, 16, 23, 25, 26, 29, 30, 31, 32, 33, 35, 36, 42, 43, 44)], "ns-not-wf"),
    **dict.fromkeys([f"c14n/c14n20/out_{n}_c14nPrefix.xml" for n in ("inC14N3", "inNsDefault", "inNsRedecl")], "ns-undeclare"),
    **dict.fromkeys(["c14n/c14n20/inNsXml.xml"] + [f"c14n/c14n20/out_inNsXml_{n}.xml" for n in
                                                   ("c14nDefault", "c14nPrefix", "c14nPrefixQname", "c14nQname")], "xml-id"),
    "xmlconf/eduni/namespaces/1.0/006.xml": "iri",
}
#: How many documents each reason covers; a change in the corpus, lxml or vtdx shows here first.
REFUSAL_COUNTS = {"external": 5, "ns-name": 3, "ns-not-wf": 21, "ns-undeclare": 3, "xml-id": 5, "iri": 1}
#: The reasons where vtdx reads the document (with the options below) and is compared with Expat; vtdx
#: and Expat refuse the others.
COMPARED_WITH_EXPAT = {"external": {"forbid_external": False}, "ns-name": {"namespaces": False}, "xml-id": {}, "iri": {}}

LXML_PARSER = etree.XMLParser(resolve_entities=True, huge_tree=True)
LXML_DEFAULTS = etree.XMLParser(resolve_entities=True, huge_tree=True, attribute_defaults=True)

XPATHS = [
    "//*", "//@*", "//text()", "//comment()", "//processing-instruction()", "count(//*)", "string(/*)",
    "//*[1]", "//*[last()]", "/*/*[2]", "name(/*)", "//*[@*]", "//namespace::*", "/*/node()", "//*[2]/..",
    "//*/text()[1]", "boolean(//*[3])", "string-length(string(/*))", "//*[not(*)]", "sum(//*[not(*)][number(.) = number(.)])",
    "//*[normalize-space(text())][1]", "//@*[starts-with(., 'h')]", "//*[contains(local-name(), 'e')][position() < 3]",
]


def corpus_files():
    root = corpus_path()
    files = []
    for pat in PATTERNS:
        files.extend(sorted(root.glob(pat)))
    return files


FILES = corpus_files()


def test_the_corpus_is_all_there():
    # a moved or missing directory must fail loudly, not shrink the test silently
    assert len(FILES) == 562, len(FILES)


def kind_of(el, lib):
    if el.tag is lib.Comment:
        return "comment"
    if el.tag is lib.ProcessingInstruction:
        return "pi"
    return "element"


def describe(root, lib, with_lines=True):
    out = []
    for el in root.iter():
        k = kind_of(el, lib)
        line = el.sourceline if with_lines else None
        if k == "element":
            nsmap = sorted((str(p), u) for p, u in el.nsmap.items())
            out.append((k, el.tag, sorted(el.attrib.items()), el.text, el.tail, el.prefix, nsmap, line, len(el)))
        elif k == "pi":
            out.append((k, el.target, el.text, el.tail, line))
        else:
            out.append((k, el.text, el.tail, line))
    return out


def normalize(value, index, lib):
    if isinstance(value, list):
        return [normalize(x, index, lib) for x in value]
    if isinstance(value, (bool, float, tuple)):
        return value
    if isinstance(value, str):
        p = value.getparent()
        return ("str", str(value), index.get(p, "?") if p is not None else None, value.is_text, value.is_tail, value.is_attribute, value.attrname)
    return ("node", index.get(value, "outside"))


def compare(data, lroot, vroot, name):
    """Every comparison for one document; returns nothing, asserts."""
    has_dtd = b"<!DOCTYPE" in data
    # trees (line numbers of nodes that come from entity replacement text differ:
    # libxml2 reports the line of the reference)
    assert describe(vroot, vtdx, not has_dtd) == describe(lroot, etree, not has_dtd)
    assert list(vroot.itertext()) == list(lroot.itertext())
    lindex = {e: i for i, e in enumerate(lroot.iter())}
    vindex = {e: i for i, e in enumerate(vroot.iter())}
    # XPath
    for x in XPATHS:
        if has_dtd and x in ("//comment()", "//processing-instruction()"):
            continue  # libxml2 also finds comments and PIs inside the DTD
        try:
            want = normalize(lroot.xpath(x), lindex, etree)
        except etree.XPathError:
            want = "error"
        got = normalize(vroot.xpath(x), vindex, vtdx)
        if x == "//namespace::*":
            # the order of an element's namespace nodes is implementation-defined, and
            # libxml2 makes a node of xmlns="" (which XPath does not)
            want = sorted(str(t) for t in want if t != (None, ""))
            got = sorted(str(t) for t in got)
        assert got == want, x
    # ElementPath, from the root and from its first child element
    tags = []
    for e in lroot.iter("*"):
        if e.tag not in tags:
            tags.append(e.tag)
        if len(tags) == 4:
            break
    for t in tags:
        for path in [".//" + t, t, "*/" + t, ".//" + t + "[1]", ".//" + t + "[last()]", ".//*[" + t + "]", ".//" + t + "/..", "*", "./*/*"]:
            want = [lindex[e] for e in lroot.findall(path)]
            got = [vindex[e] for e in vroot.findall(path)]
            assert got == want, path
    # canonical XML of the document (libxml2 adds DTD default attributes when asked)
    ldoc = etree.fromstring(data, LXML_DEFAULTS).getroottree()
    for wc in (False, True):
        for ex in (False, True):
            try:
                want = etree.tostring(ldoc, method="c14n", with_comments=wc, exclusive=ex)
            except (etree.C14NError, ValueError):
                want = "error"
            try:
                got = vtdx.canonicalize(vroot.getroottree(), with_comments=wc, exclusive=ex)
            except vtdx.C14NError:
                got = "error"
            if want != "error":
                assert got == want, (wc, ex)
    # subtrees: exclusive C14N of each element, and tostring() standing alone
    lels = list(ldoc.getroot().iter("*"))[:25]
    vels = list(vroot.iter("*"))[:25]
    for le, ve in zip(lels, vels):
        try:
            want = etree.tostring(le, method="c14n", exclusive=True, with_comments=False)
        except (etree.C14NError, ValueError):
            continue
        assert vtdx.canonicalize(ve, exclusive=True) == want
        if not has_dtd:
            again = etree.fromstring(vtdx.tostring(ve, with_tail=False))
            assert etree.tostring(again, method="c14n", exclusive=True, with_comments=False) == want


# ---- Expat, the oracle for the documents lxml refuses ----------------------------------------------


def expat_shape(data, namespaces=True):
    """The document's element tree as Expat reports it, in the form of ``shape``: Expat without a
    handler for external entities reads neither the external DTD subset nor external entities (like
    vtdx with forbid_external=False), expands internal entities, and with ``specified_attributes``
    leaves out attribute defaults from the DTD (as lxml and vtdx do by default)."""
    p = expat.ParserCreate(namespace_separator="}" if namespaces else None)
    p.specified_attributes = True
    p.buffer_text = True
    out, stack = [], []  # out: [kind, ...] lists in document order; stack: the open elements' lists

    def clark(name):
        return "{" + name if namespaces and "}" in name else name

    def add_text(s):
        if not stack:
            return  # outside the root element: not part of root.iter()
        el = stack[-1]
        last = el[-1]  # the last child node of the open element, or None: the text goes to its tail
        node, i = (el, 3) if last is None else (last, 4 if last[0] == "element" else len(last) - 1)
        node[i] = (node[i] or "") + s

    def add_node(node):
        if stack:
            stack[-1][-1] = node
        out.append(node)

    def start(name, attrs):
        node = ["element", clark(name), sorted((clark(k), v) for k, v in attrs.items()), None, None, 0, None]
        if stack:
            stack[-1][5] += 1
        add_node(node)
        stack.append(node)

    def end(name):
        stack.pop()

    def comment(text):
        if stack:
            stack[-1][5] += 1
            add_node(["comment", text or None, None])

    def pi(target, text):
        if stack:
            stack[-1][5] += 1
            add_node(["pi", target, text or None, None])

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = add_text
    p.CommentHandler = comment
    p.ProcessingInstructionHandler = pi
    p.Parse(data, True)
    # element lists end with their last child (bookkeeping only): drop it
    return [tuple(n[:-1]) if n[0] == "element" else tuple(n) for n in out]


def shape(root, lib):
    """The tree under ``root`` in the form ``expat_shape`` gives: elements (tag, sorted attributes,
    text, tail, number of children), comments and processing instructions."""
    out = []
    for el in root.iter():
        k = kind_of(el, lib)
        if k == "element":
            out.append(("element", el.tag, sorted(el.attrib.items()), el.text or None, el.tail or None, len(el)))
        elif k == "pi":
            out.append(("pi", el.target, el.text or None, el.tail or None))
        else:
            out.append(("comment", el.text or None, el.tail or None))
    return out


def test_lxml_refusals_are_counted():
    assert {r: list(LXML_REFUSES.values()).count(r) for r in REFUSAL_REASONS} == REFUSAL_COUNTS
    assert len(LXML_REFUSES) == 38
    # every listed document is in the corpus the other tests read
    assert set(LXML_REFUSES) <= {str(p.relative_to(corpus_path())) for p in FILES}


#: Documents of the corpus (outside LXML_REFUSES) that name an external identifier (an external DTD
#: subset, an external or unparsed entity), which vtdx refuses by default.
EXTERNAL_IDENTIFIERS = 83


def test_default_refuses_external_identifiers():
    names = []
    for path in FILES:
        rel = str(path.relative_to(corpus_path()))
        why = refused(path.read_bytes())
        if why is not None and rel not in LXML_REFUSES:
            assert "names external content" in why, (rel, why)
            names.append(rel)
    assert len(names) == EXTERNAL_IDENTIFIERS, names


def refused(data, **options):
    """The error message when vtdx refuses ``data`` with ``options``, else None."""
    try:
        vtdx.fromstring(data, **options)
    except vtdx.XMLSyntaxError as e:
        return str(e)
    return None


def check_lxml_refusal(rel, data):
    """A document lxml refuses: check lxml's reason, then decide with Expat and the W3C catalog."""
    reason = LXML_REFUSES[rel]
    with pytest.raises(etree.XMLSyntaxError) as lx:
        etree.fromstring(data, LXML_PARSER)
    lxml_says = {"external": "not defined", "ns-name": "Failed to parse QName", "ns-undeclare": "Empty XML namespace",
                 "xml-id": "xml:id", "iri": "is not a valid URI"}.get(reason)
    if lxml_says:
        assert lxml_says in str(lx.value), (reason, str(lx.value))
    if reason == "external":
        # the default refuses the external DTD subset's identifier, naming the option that reads it
        assert "external" in (refused(data) or ""), refused(data)
    if reason in COMPARED_WITH_EXPAT:
        options = COMPARED_WITH_EXPAT[reason]
        if reason == "ns-name":
            assert refused(data) is not None  # namespace-aware vtdx refuses the name, as lxml does
            with pytest.raises(expat.ExpatError):
                expat_shape(data, namespaces=True)
        vroot = vtdx.fromstring(data, **options)
        assert shape(vroot, vtdx) == expat_shape(data, namespaces=options.get("namespaces", True))
    else:
        # refused by lxml, by Expat and (the W3C catalog says not-wf) by vtdx
        assert refused(data) is not None
        with pytest.raises(expat.ExpatError):
            expat_shape(data, namespaces=True)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(corpus_path())))
def test_corpus_document(path):
    if path.name in KNOWN:
        pytest.skip(KNOWN[path.name])
    data = path.read_bytes()
    rel = str(path.relative_to(corpus_path()))
    if rel in LXML_REFUSES:
        check_lxml_refusal(rel, data)
        return
    # any other refusal fails here: a new one must be listed in LXML_REFUSES with its reason
    lroot = etree.fromstring(data, LXML_PARSER)
    if any(e.tag is etree.Entity for e in lroot.iter()):
        pytest.skip("lxml keeps an unexpanded entity reference node")
    # lxml reads a document without loading its external DTD subset or external entities; vtdx
    # refuses external identifiers by default and reads the same way with forbid_external=False
    why = refused(data)
    if why is not None:
        assert "names external content" in why, why
    vroot = vtdx.fromstring(data) if why is None else vtdx.fromstring(data, forbid_external=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(data, lroot, vroot, path.name)


# ---- generated documents ---------------------------------------------------------

NAMES = ["a", "b", "item", "x:c", "y:d", "e"]
TEXTS = ["", "t", " sp ", "a&amp;b", "&lt;x&gt;", "&#233;t\u00e9", "\n  ", "1.5", "<![CDATA[c<d]]>", "m\r\nn"]


def generate(rng, depth=0):
    name = rng.choice(NAMES)
    attrs = []
    for an in rng.sample(["id", "k", "x:q", "y:r"], rng.randint(0, 3)):
        attrs.append(f'{an}="{rng.choice(["1", "two", "a&amp;b", "h x"])}"')
    decl = ""
    if depth == 0:
        decl = ' xmlns:x="urn:x" xmlns:y="urn:y"'
    elif rng.random() < 0.1:
        decl = ' xmlns="urn:default"' if rng.random() < 0.5 else ' xmlns:x="urn:x2"'
    out = [f"<{name}{decl}" + "".join(" " + a for a in attrs)]
    if depth > 4 or rng.random() < 0.2:
        return out[0] + "/>"
    out[0] += ">"
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.45:
            out.append(generate(rng, depth + 1))
        elif r < 0.8:
            out.append(rng.choice(TEXTS))
        elif r < 0.9:
            out.append("<!--" + rng.choice(["c", " note ", ""]) + "-->")
        else:
            out.append("<?pi " + rng.choice(["d", "", "x y"]) + "?>")
    out.append(f"</{name}>")
    return "".join(out)


@pytest.mark.parametrize("seed", range(150))
def test_generated_document(seed):
    rng = random.Random(seed)
    data = generate(rng).encode()
    if rng.random() < 0.3:
        data = b"<?xml version='1.0'?>\n<!--top-->\n" + data + b"\n<?after x?>"
    lroot = etree.fromstring(data, LXML_PARSER)
    vroot = vtdx.fromstring(data)
    compare(data, lroot, vroot, f"seed {seed}")
