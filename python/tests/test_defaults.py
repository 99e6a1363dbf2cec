"""Attributes defaulted by the internal subset (issue 14): vtdx against lxml.

``<!ATTLIST e x CDATA "v">`` gives every ``e`` that does not specify ``x`` an
attribute ``x="v"`` (XML 1.0 §3.3.2). As in lxml, the Python parse functions leave
such attributes out of ``attrib``, ``get()``, ``keys()``/``items()`` and XPath
unless ``attribute_defaults=True``; defaulted namespace declarations (``xmlns``,
``xmlns:p``) bind either way, and canonical XML always has the defaults (the C14N
specs require them).

Every document of ``DOCS`` is parsed by both libraries twice: with the defaults
(vtdx's against lxml's ``XMLParser()``) and with ``attribute_defaults=True``
(against ``XMLParser(attribute_defaults=True)``), and every element is compared:
tag, nsmap, sourceline, ``attrib``/``keys``/``items``/``get``, XPath on the
attribute and namespace axes, and canonical XML (against lxml's with the defaults,
whatever vtdx's keyword says). The number of documents is asserted.
"""

import threading

import pytest
from lxml import etree

import vtdx

#: Documents with attribute-list defaults: name -> document.
DOCS = {
    "cdata": b'<!DOCTYPE a [<!ATTLIST a x CDATA "v" y CDATA " s  p ">]><a/>',
    "cdata_whitespace": b'<!DOCTYPE a [<!ATTLIST a x CDATA " a\tb&#9;c  d\ne ">]><a/>',
    "fixed": b'<!DOCTYPE a [<!ATTLIST b x CDATA #FIXED "f">]><a><b/><b x="f"/><c/></a>',
    "nmtokens": b'<!DOCTYPE a [<!ATTLIST a t NMTOKENS "  x   y  " u NMTOKENS #IMPLIED>]><a u="  p   q "/>',
    "enumeration": b'<!DOCTYPE a [<!ATTLIST a c (red|green) "green" d (x|y) #IMPLIED>]><a d=" y "><a/><a c=" red "/></a>',
    "id": b'<!DOCTYPE a [<!ATTLIST a id ID #IMPLIED><!ATTLIST b k ID "  k1 ">]><a id="  i1  "><b/></a>',
    "overridden": b'<!DOCTYPE a [<!ATTLIST a x CDATA "d" y CDATA "e">]><a x="s"><a/><a y=""/></a>',
    "first_declaration_wins": b'<!DOCTYPE a [<!ATTLIST a x CDATA "1"><!ATTLIST a x CDATA "2" y CDATA "3">]><a/>',
    "entities": b'<!DOCTYPE a [<!ENTITY e "E&#65;"><!ATTLIST a x CDATA "&e;-&#65;-&#x20;-&lt;" y NMTOKENS " &e;  B ">]><a/>',
    "parameter_entity": b"<!DOCTYPE a [<!ENTITY % d \"<!ATTLIST a x CDATA 'pe'>\">%d;]><a/>",
    "xmlns_default": b'<!DOCTYPE a [<!ATTLIST a xmlns CDATA "urn:d" x CDATA "1">]><a><b/></a>',
    "xmlns_prefix_fixed": b'<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED "urn:p">]><a><p:b/></a>',
    "xmlns_prefix_repeated": b'<!DOCTYPE a [<!ATTLIST b xmlns:p CDATA "urn:p">]><a><b/><b><p:c/></b><b/></a>',
    "xmlns_default_repeated": b'<!DOCTYPE a [<!ATTLIST b xmlns CDATA "urn:d">]><a><b/><b><c/></b></a>',
    "xmlns_undeclared": b'<!DOCTYPE a [<!ATTLIST b xmlns CDATA "">]><a xmlns="urn:d"><b><c/></b><b xmlns="urn:e"/></a>',
    "xmlns_overridden": b'<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA "urn:p">]><a xmlns:p="urn:q"><p:b/></a>',
    "prefixed_declared_by_default": b'<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA "urn:p" p:x CDATA "px">]><a/>',
    "prefixed_declared_here": b'<!DOCTYPE p:a [<!ATTLIST p:a p:x CDATA "px" y CDATA "y">]><p:a xmlns:p="urn:p"/>',
    "prefixed_declared_above": b'<!DOCTYPE r [<!ATTLIST b p:x CDATA "px">]><r xmlns:p="urn:p"><b/><b p:x="s"/></r>',
    "default_namespace_element": b'<!DOCTYPE a [<!ATTLIST b x CDATA "1">]><a xmlns="urn:d"><b/><b x="2"/></a>',
    "xml_lang": b'<!DOCTYPE a [<!ATTLIST a xml:lang CDATA "en"><!ATTLIST b xml:space (default|preserve) "preserve">]><a><b/></a>',
    "empty_and_start_end_tags": b'<!DOCTYPE r [<!ATTLIST e a CDATA "1">]><r><e/><e></e><e a="2"/><e>t</e><e\n/></r>',
    "nested": b"""<!DOCTYPE r [
<!ATTLIST r v CDATA "r">
<!ATTLIST i n CDATA "0" s NMTOKENS "a  b">
]>
<r>
  <i/>
  <i
    n="1"></i>
  <g><i s=" c "><i/></i></g>
</r>""",
    "many_defaults": b'<!DOCTYPE r [<!ATTLIST e a CDATA "1" b CDATA "2" c CDATA "3" d NMTOKEN " 4 ">]><r><e/><e c="x"/><e d="y"/></r>',
}

#: The number of documents: a shrinking list fails here.
N_DOCS = 24

#: The document of the issue: a prefix bound only by a defaulted declaration.
ISSUE_DOC = b'<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED "urn:p">]><a><p:b/></a>'


def test_document_count():
    assert len(DOCS) == N_DOCS
    assert DOCS["xmlns_prefix_fixed"] == ISSUE_DOC


def lxml_root(doc, defaults):
    # resolve_entities=True: vtdx always expands internal entities, parameter
    # entities of the internal subset included (lxml's default 'internal' does not)
    return etree.fromstring(doc, etree.XMLParser(attribute_defaults=defaults, resolve_entities=True))


def attribute_names(doc):
    """The qualified names of every attribute any element has with the defaults
    (lxml's reading), and one no element has."""
    names = {"missing"}
    for el in lxml_root(doc, True).iter():
        for key in el.attrib:
            names.add(qname_of(el, key))
    return sorted(names)


def qname_of(el, clark):
    """The qualified name of attribute ``clark`` of lxml element ``el``."""
    if not clark.startswith("{"):
        return clark
    uri, local = clark[1:].split("}")
    if uri == "http://www.w3.org/XML/1998/namespace":
        return "xml:" + local
    prefix = next(p for p, u in el.nsmap.items() if u == uri and p)
    return f"{prefix}:{local}"


def clark_names(doc):
    names = {"missing", "{urn:p}missing"}
    for el in lxml_root(doc, True).iter():
        names.update(el.attrib.keys())
    return sorted(names)


def view(root, qnames, clarks, lxml_without_defaults=False):
    """What one library shows of every element of the tree at ``root``.

    ``lxml_without_defaults`` is kept for the record: lxml's ``get()``,
    ``attrib[k]`` and ``k in attrib`` look defaults up in the DTD even without
    ``attribute_defaults`` (libxml2's ``xmlGetProp``), and vtdx does the same, so
    both libraries are asked the same way."""
    out = []
    for el in root.iter():
        get, contains = el.get, el.attrib.__contains__
        namespaces = sorted((p or "", u) for p, u in el.xpath("namespace::*"))
        out.append(
            {
                "tag": el.tag,
                "nsmap": dict(el.nsmap),
                "sourceline": el.sourceline,
                "attrib": dict(el.attrib),
                "len": len(el.attrib),
                "bool": bool(el.attrib),
                "keys": list(el.keys()),
                "items": list(el.items()),
                "attrib.items": list(el.attrib.items()),
                "get": {k: get(k) for k in clarks},
                "in": {k: contains(k) for k in clarks},
                "count(@*)": el.xpath("count(@*)"),
                "name(@*)": el.xpath("name(@*)"),
                "@*": [str(s) for s in el.xpath("@*")],
                "attrname": [s.attrname for s in el.xpath("@*")],
                "parent": [s.getparent().tag for s in el.xpath("@*")],
                "string(@x)": {n: el.xpath("string(@*[name()=$n])", n=n) for n in qnames},
                "count(@x)": {n: el.xpath("count(@*[name()=$n])", n=n) for n in qnames},
                # libxml2 lists xmlns="" as a namespace node; vtdx (and XPath 1.0 §5.4) do not
                "namespace::*": [(p, u) for p, u in namespaces if u],
            }
        )
    tree = root.getroottree()
    out.append(
        {
            "//@*": [str(s) for s in tree.xpath("//@*")],
            "count(//@*)": tree.xpath("count(//@*)"),
            "//*[@*]": [e.tag for e in tree.xpath("//*[@*]")],
        }
    )
    return out


@pytest.mark.parametrize("defaults", [False, True], ids=["defaults_off", "defaults_on"])
@pytest.mark.parametrize("name", sorted(DOCS))
def test_tree_and_xpath_agree_with_lxml(name, defaults):
    doc = DOCS[name]
    qnames, clarks = attribute_names(doc), clark_names(doc)
    expected = view(lxml_root(doc, defaults), qnames, clarks, lxml_without_defaults=not defaults)
    kwargs = {"attribute_defaults": True} if defaults else {}
    got = view(vtdx.fromstring(doc, **kwargs), qnames, clarks)
    assert got == expected


@pytest.mark.parametrize("name", sorted(DOCS))
def test_defaults_change_what_is_seen(name):
    """The keyword is not ignored: with it, exactly the defaulted attributes appear
    (every document defaults at least one attribute or namespace declaration)."""
    doc = DOCS[name]
    off, on = vtdx.fromstring(doc), vtdx.fromstring(doc, attribute_defaults=True)
    added = sum(len(b.attrib) - len(a.attrib) for a, b in zip(off.iter(), on.iter()))
    lx_added = sum(len(b.attrib) - len(a.attrib) for a, b in zip(lxml_root(doc, False).iter(), lxml_root(doc, True).iter()))
    assert added == lx_added
    assert added > 0 or "xmlns" in name
    assert on.xpath("count(//@*)") - off.xpath("count(//@*)") == added


@pytest.mark.parametrize("name", sorted(DOCS))
def test_canonical_xml_has_the_defaults_whatever_the_keyword(name):
    doc = DOCS[name]
    lx = lxml_root(doc, True).getroottree()
    for kwargs in ({}, {"attribute_defaults": False}, {"attribute_defaults": True}):
        tree = vtdx.parse(doc, **kwargs)
        for exclusive in (False, True):
            want = etree.tostring(lx, method="c14n", exclusive=exclusive)
            assert vtdx.canonicalize(tree, exclusive=exclusive) == want
            assert vtdx.tostring(tree, method="c14n", exclusive=exclusive) == want
        # subtrees: every element, exclusive (inclusive C14N of a subtree differs from
        # libxml2 on inherited xml:* attributes, which test_differential.py covers)
        for el, lel in zip(tree.getroot().iter(), lx.getroot().iter()):
            want = etree.tostring(lel, method="c14n", exclusive=True, with_comments=False)
            assert vtdx.canonicalize(el, exclusive=True) == want
    assert vtdx.canonicalize(doc) == etree.tostring(lx, method="c14n")


@pytest.mark.parametrize("defaults", [False, True], ids=["defaults_off", "defaults_on"])
@pytest.mark.parametrize("name", sorted(DOCS))
def test_tostring_of_an_element_stands_alone(name, defaults):
    """An element's bytes, with the declarations in scope and those defaulted in
    it written out (and, with ``attribute_defaults=True``, the defaulted
    attributes), parse on their own, without the DTD, to the same names."""

    def names(root):
        # (an element's own xmlns="" undeclares nothing once it stands alone)
        return [(el.tag, sorted(el.keys()), {p: u for p, u in el.nsmap.items() if u}) for el in root.iter()]

    root = vtdx.fromstring(DOCS[name], attribute_defaults=defaults)
    for el in root.iter():
        alone = etree.fromstring(vtdx.tostring(el, with_tail=False))
        assert names(alone) == names(el)
        assert names(vtdx.fromstring(vtdx.tostring(el, with_tail=False))) == names(el)


# ---- the issue's document, entry points, options ----------------------------------


def test_a_prefix_bound_by_a_default_binds():
    for kwargs in ({}, {"attribute_defaults": True}):
        a = vtdx.fromstring(ISSUE_DOC, **kwargs)
        b = a[0]
        assert b.tag == "{urn:p}b" and b.prefix == "p"
        assert a.nsmap == b.nsmap == {"p": "urn:p"}
        assert dict(a.attrib) == {} and a.keys() == []  # a declaration is not an attribute
        assert a.xpath("//p:b", namespaces={"p": "urn:p"}) == [b]
        assert ("p", "urn:p") in b.xpath("namespace::*")
        assert vtdx.tostring(b) == b'<p:b xmlns:p="urn:p"/>'
        assert vtdx.tostring(a) == b'<a xmlns:p="urn:p"><p:b/></a>'
        assert vtdx.canonicalize(a) == b'<a xmlns:p="urn:p"><p:b></p:b></a>'


DOC = b'<!DOCTYPE a [<!ATTLIST a x CDATA "v" y NMTOKENS " 1  2 ">]><a y=" 3   4 "/>'


def test_every_entry_point_takes_the_keyword(tmp_path):
    small = tmp_path / "small.xml"
    small.write_bytes(DOC)
    big = tmp_path / "big.xml"  # memory-mapped (64 KiB or more)
    big.write_bytes(DOC[:-2] + b">" + b" " * (70 * 1024) + b"</a>")
    entry_points = [
        lambda **kw: vtdx.fromstring(DOC, **kw),
        lambda **kw: vtdx.XML(DOC, **kw),
        lambda **kw: vtdx.fromstring(DOC.decode(), **kw),
        lambda **kw: vtdx.parse(DOC, **kw).getroot(),
        lambda **kw: vtdx.parse(str(small), **kw).getroot(),
        lambda **kw: vtdx.parse(small, **kw).getroot(),
        lambda **kw: vtdx.parse(str(big), **kw).getroot(),
        lambda **kw: vtdx.parse(small.open("rb"), **kw).getroot(),
        lambda **kw: vtdx.XMLParser(**kw).fromstring(DOC),
        lambda **kw: vtdx.XMLParser(**kw).parse(DOC).getroot(),
        lambda **kw: vtdx.XMLParser(**kw).parse(str(big)).getroot(),
        lambda **kw: vtdx.parse(DOC, parser=vtdx.XMLParser(**kw)).getroot(),
        lambda **kw: vtdx.fromstring(DOC, parser=vtdx.XMLParser(**kw)),
    ]
    for parse in entry_points:
        assert parse().attrib == {"y": "3 4"}
        assert parse(attribute_defaults=False).attrib == {"y": "3 4"}
        assert parse(attribute_defaults=None).attrib == {"y": "3 4"}  # None: the default
        on = parse(attribute_defaults=True)
        assert on.attrib == {"y": "3 4", "x": "v"}
        assert on.xpath("string(@x)") == "v" and on.get("x") == "v"
    # what lxml gives
    assert dict(lxml_root(DOC, False).attrib) == {"y": "3 4"}
    assert dict(lxml_root(DOC, True).attrib) == {"y": "3 4", "x": "v"}
    # canonicalize() of XML text parses it itself, and outputs the defaults
    assert vtdx.canonicalize(DOC) == b'<a x="v" y="3 4"></a>'
    with pytest.raises(TypeError, match="either parser= or parse options"):
        vtdx.fromstring(DOC, parser=vtdx.XMLParser(), attribute_defaults=True)
    with pytest.raises(TypeError, match="attribute_defaults"):
        vtdx.fromstring(DOC, attribute_default=True)  # misspelt: refused, naming the options
    assert "attribute_defaults: true" in repr(vtdx.XMLParser(attribute_defaults=True))


def test_options_do_not_leak_between_parses():
    """The default options go through a parser kept per thread; documents parsed
    with other options around them do not change what it does."""
    for _ in range(3):
        assert vtdx.fromstring(DOC).keys() == ["y"]
        assert vtdx.fromstring(DOC, attribute_defaults=True).keys() == ["y", "x"]
        assert vtdx.fromstring(DOC, huge_tree=True).keys() == ["y"]
    kept = [vtdx.fromstring(DOC), vtdx.fromstring(DOC, attribute_defaults=True), vtdx.fromstring(DOC)]
    assert [len(e.attrib) for e in kept] == [1, 2, 1]


def test_threads_parse_with_either_setting():
    doc = DOCS["nested"]
    want = {on: lxml_root(doc, on).getroottree().xpath("count(//@*)") for on in (False, True)}
    assert want == {False: 2.0, True: 9.0}
    errors = []

    def work(on):
        try:
            for _ in range(200):
                n = vtdx.fromstring(doc, attribute_defaults=on).xpath("count(//@*)")
                assert n == want[on], (on, n)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i % 2 == 0,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_get_looks_in_the_dtd_as_lxml_does():
    """Without ``attribute_defaults`` a default is not an attribute of the tree
    (``attrib``, ``keys()``, ``len()``, XPath), but ``get()``, ``attrib[k]`` and
    ``k in attrib`` still find it in the DTD, as lxml's do (libxml2's
    ``xmlGetProp``)."""
    lx = lxml_root(DOC, False)
    assert (lx.get("x"), lx.attrib["x"], "x" in lx.attrib) == ("v", "v", True)
    assert (lx.keys(), len(lx.attrib), lx.xpath("count(@x)")) == (["y"], 1, 0.0)
    root = vtdx.fromstring(DOC)
    assert (root.get("x"), root.attrib["x"], "x" in root.attrib) == ("v", "v", True)
    assert (root.keys(), len(root.attrib), root.xpath("count(@x)")) == (["y"], 1, 0.0)
    assert root.get("missing") is None and "missing" not in root.attrib
    on = vtdx.fromstring(DOC, attribute_defaults=True)
    assert (on.get("x"), on.attrib["x"], "x" in on.attrib) == ("v", "v", True)
    assert (on.keys(), len(on.attrib)) == (["y", "x"], 2)


# ---- editing ----------------------------------------------------------------------


def test_a_defaulted_attribute_cannot_be_removed_but_can_be_set():
    doc = vtdx.parse(DOC, attribute_defaults=True)
    ed = vtdx.Editor(doc)
    with pytest.raises(vtdx.EditError, match="defaulted") as e:
        ed.remove_attribute(doc.getroot(), "x")
    assert isinstance(e.value, ValueError)
    assert len(ed) == 0  # nothing was recorded
    ed.remove_attribute(doc.getroot(), "y")  # a specified one is removed
    ed.set(doc.getroot(), "x", "w")  # setting writes it
    out = ed.output()
    assert out == b'<!DOCTYPE a [<!ATTLIST a x CDATA "v" y NMTOKENS " 1  2 ">]><a x="w"/>'
    assert ed.to_document().getroot().attrib == {"x": "w", "y": "1 2"}  # keeps attribute_defaults
    # without attribute_defaults the default is not an attribute: nothing to remove
    plain = vtdx.parse(DOC)
    ed = vtdx.Editor(plain)
    ed.remove_attribute(plain.getroot(), "x")
    assert ed.output() == DOC
    ed.set(plain.getroot(), "x", "w")
    assert vtdx.fromstring(ed.output()).attrib == {"y": "3 4", "x": "w"}
    assert ed.to_document().getroot().attrib == {"y": "3 4", "x": "w"}


def test_a_defaulted_namespace_declaration_cannot_be_removed():
    doc = vtdx.parse(ISSUE_DOC)
    ed = vtdx.Editor(doc)
    ed.set(doc.getroot(), "{urn:p}y", "1")  # the defaulted prefix is usable
    assert ed.output() == b'<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED "urn:p">]><a p:y="1"><p:b/></a>'
    ed.rename(doc.getroot()[0], "{urn:p}c")
    assert vtdx.fromstring(ed.output())[0].tag == "{urn:p}c"
