"""The lxml-familiar API on hand-written documents. Expected values are worked out
from the documents (and agree with lxml; test_differential.py checks that on corpora)."""

import collections.abc
import io
import pathlib
import pickle
import copy

import pytest

import vtdx

PO = b"""<?xml version="1.0" encoding="UTF-8"?>
<!-- a purchase order -->
<po:order xmlns:po="urn:po" xmlns="urn:default" id="7" po:rev="2">
  <item sku="A-1" qty="2">Can<!--note--> of beans</item>
  <item sku="B-2" qty="1"><![CDATA[Rake & <hoe>]]></item>
  <?audit checked?>
  <po:total>3</po:total>
</po:order>
<?trailer ok?>
"""


@pytest.fixture
def doc():
    return vtdx.parse(PO)


# ---- parsing inputs --------------------------------------------------------------


def test_parse_accepts_bytes_str_paths_and_files(tmp_path):
    p = tmp_path / "a.xml"
    p.write_bytes(b"<a><b/></a>")
    for source in (
        b"<a><b/></a>",
        bytearray(b"<a><b/></a>"),
        memoryview(b"<a><b/></a>"),
        "<a><b/></a>",
        "  \n<a><b/></a>",
        str(p),
        p,
        io.BytesIO(b"<a><b/></a>"),
        io.StringIO("<a><b/></a>"),
    ):
        d = vtdx.parse(source)
        assert d.root.tag == "a", source
        assert [c.tag for c in d.root] == ["b"]
    with open(p, "rb") as fh:
        assert vtdx.parse(fh).docinfo["URL"] == str(p)
    assert vtdx.parse(str(p)).docinfo["URL"] == str(p)


def test_parse_missing_file_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        vtdx.parse(str(tmp_path / "nope.xml"))
    with pytest.raises(TypeError):
        vtdx.parse(12)


def big_doc(n=4000, tail=b"</r>\n"):
    """About 100 KB, more than vtdx memory-maps (64 KiB): `<r>` and n lines `<i n="K">text K</i>`."""
    return b"<r>\n" + b"".join(b'<i n="%d">text %d</i>\n' % (k, k) for k in range(n)) + tail


def test_parse_of_a_large_file_is_mapped_with_the_same_result(tmp_path):
    data = big_doc()
    assert len(data) > 96 * 1024
    p = tmp_path / "big.xml"
    p.write_bytes(data)
    with open(p, "rb") as fh:
        from_file_object = vtdx.parse(fh)  # read, not mapped
    for d in (vtdx.parse(p), vtdx.parse(str(p)), vtdx.XMLParser().parse(p), vtdx.parse(p, max_depth=5), from_file_object):
        assert d.docinfo["URL"] == str(p)
        assert len(d.root) == 4000
        assert d.root[3999].text == "text 3999" and d.root[3999].sourceline == 4001
        assert d.xpath("count(//i)") == 4000
        assert d.nbytes[0] == len(data)
        out = io.BytesIO()
        d.write(out)
        assert out.getvalue() == data
    # an error near the end of a mapped file: line 4002, column 4 (U+0001 after `<x>`)
    p.write_bytes(big_doc(tail=b"<x>\x01</x></r>\n"))
    with pytest.raises(vtdx.XMLSyntaxError) as ei:
        vtdx.parse(p)
    assert ei.value.position == (4002, 4) and ei.value.filename == str(p)


def test_writing_a_mapped_document_over_its_own_file(tmp_path):
    data = big_doc()
    p = tmp_path / "big.xml"
    p.write_bytes(data)
    d = vtdx.parse(p)
    # opening the file for writing truncates the pages the document lies in: the
    # bytes written come from a copy, and the document reads the same afterwards
    d.write(p)
    d.write(str(p))
    assert p.read_bytes() == data
    assert d.root[3999].text == "text 3999"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes here")
def test_parse_reads_a_named_pipe(tmp_path):
    import os
    import threading

    fifo = tmp_path / "fifo.xml"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(big_doc(),), daemon=True)
    writer.start()
    try:
        d = vtdx.parse(str(fifo))
    finally:
        writer.join(timeout=10)
    assert len(d.root) == 4000


def test_fromstring_and_XML_return_the_root():
    r = vtdx.fromstring("<a x='1'/>")
    assert isinstance(r, vtdx.Element) and r.tag == "a"
    assert vtdx.XML(b"<b/>").tag == "b"
    assert r.getroottree().root == r
    assert r.getroottree().getroot() == r


def test_str_with_foreign_encoding_declaration_is_refused():
    with pytest.raises(ValueError):
        vtdx.fromstring("<?xml version='1.0' encoding='ISO-8859-1'?><a/>")
    assert vtdx.fromstring("<?xml version='1.0' encoding='utf-8'?><a>\u00e9</a>").text == "\u00e9"
    # bytes in another encoding are transcoded
    assert vtdx.fromstring("<?xml version='1.0' encoding='ISO-8859-1'?><a>\u00e9</a>".encode("latin-1")).text == "\u00e9"
    assert vtdx.fromstring("<a>\u00e9</a>".encode("utf-16")).text == "\u00e9"


def test_docinfo(doc):
    info = doc.docinfo
    assert info["xml_version"] == "1.0"
    assert info["encoding"] == "UTF-8"
    assert info["root_name"] == "po:order"
    assert info["URL"] is None
    d = vtdx.parse(b"<!DOCTYPE r [<!ENTITY e 'x'>]><r>&e;</r>")
    assert d.docinfo["doctype_name"] == "r"
    assert d.root.text == "x"


# ---- options, limits, errors -----------------------------------------------------


def test_syntax_error_attributes():
    with pytest.raises(vtdx.XMLSyntaxError) as ei:
        vtdx.fromstring(b"<a>\n  <b></c>\n</a>")
    e = ei.value
    assert isinstance(e, SyntaxError) and isinstance(e, ValueError) and isinstance(e, vtdx.VtdxError)
    assert e.lineno == 2
    assert e.position == (2, 6)
    assert e.offset == 5  # lxml: column - 1
    assert e.kind == "mismatched_end_tag"
    assert e.byte_offset == 9
    assert "line 2, column 6" in e.msg
    assert e.filename == "<string>"
    assert vtdx.ParseError is vtdx.XMLSyntaxError


def test_syntax_error_names_the_file(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_bytes(b"<a>")
    with pytest.raises(vtdx.XMLSyntaxError) as ei:
        vtdx.parse(str(p))
    assert ei.value.filename == str(p)
    assert ei.value.kind == "unclosed_element" or ei.value.kind == "unexpected_eof"


def test_limits_are_options():
    deep = b"<a>" * 40 + b"</a>" * 40
    assert vtdx.fromstring(deep).tag == "a"
    with pytest.raises(vtdx.ResourceLimitError) as ei:
        vtdx.fromstring(deep, max_depth=10)
    assert ei.value.kind == "limit_exceeded"
    assert isinstance(ei.value, vtdx.XMLSyntaxError)
    p = vtdx.XMLParser(max_depth=10)
    with pytest.raises(vtdx.ResourceLimitError):
        vtdx.parse(deep, parser=p)
    assert vtdx.parse(deep, parser=vtdx.XMLParser(huge_tree=True)).root.tag == "a"
    very_deep = b"<a>" * 2000 + b"</a>" * 2000
    with pytest.raises(vtdx.ResourceLimitError):
        vtdx.fromstring(very_deep)
    assert len(list(vtdx.fromstring(very_deep, huge_tree=True).iter())) == 2000
    with pytest.raises(TypeError):
        vtdx.parse(b"<a/>", recover=True)
    with pytest.raises(TypeError):
        vtdx.parse(b"<a/>", parser=p, max_depth=3)
    with pytest.raises(ValueError):
        vtdx.parse(b"<a/>", resolve_entities=False)


def test_billion_laughs_is_stopped():
    lol = b"""<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
    <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
    <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
    <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]><l>&h;</l>"""
    with pytest.raises(vtdx.ResourceLimitError):
        vtdx.fromstring(lol)


# Each names something external; (line, column) of its external identifier, by hand.
EXTERNAL = [
    # an external DTD subset: after `<!DOCTYPE a `
    (b'<!DOCTYPE a SYSTEM "a.dtd">\n<a>t</a>', (1, 13), 'SYSTEM "a.dtd"'),
    # an external general entity: after `<!ENTITY ext ` on line 2
    (b'<!DOCTYPE a [\n<!ENTITY ext SYSTEM "file:///etc/passwd">]><a>a&ext;b</a>', (2, 14), "file:///etc/passwd"),
    # an external parameter entity, never referred to: after `<!ENTITY % p `
    (b'<!DOCTYPE a [<!ENTITY % p PUBLIC "-//x//p" "p.ent">]><a/>', (1, 27), '"-//x//p"'),
    # an unparsed entity: after `<!ENTITY u `
    (b'<!DOCTYPE a [<!NOTATION n SYSTEM "n"><!ENTITY u SYSTEM "u.gif" NDATA n>]><a/>', (1, 49), "u.gif"),
]


@pytest.mark.parametrize("xml,position,identifier", EXTERNAL)
def test_external_identifiers_are_refused_by_default(xml, position, identifier):
    for parse in (
        lambda: vtdx.fromstring(xml),
        lambda: vtdx.parse(xml),
        lambda: vtdx.fromstring(xml, forbid_external=True),
        lambda: vtdx.XMLParser().fromstring(xml),
        lambda: vtdx.fromstring(xml, external_entities="error"),  # never less than the default
    ):
        with pytest.raises(vtdx.XMLSyntaxError) as ei:
            parse()
        e = ei.value
        assert e.kind == "external_reference"
        assert e.position == position
        assert identifier in e.msg and "forbid_external=False" in e.msg
    # read without the external content; nothing is fetched
    for opts in ({"forbid_external": False}, {"external_entities": "skip"}, {"forbid_external": False, "external_entities": "skip"}):
        assert vtdx.fromstring(xml, **opts).tag == "a"
        assert vtdx.XMLParser(**opts).fromstring(xml).tag == "a"


def test_external_entities_are_never_fetched(tmp_path):
    # the entity names a file that exists: its content must not show
    (tmp_path / "ext.xml").write_bytes(b"SECRET")
    x = b'<!DOCTYPE a [<!ENTITY ext SYSTEM "' + (tmp_path / "ext.xml").as_uri().encode() + b'">]><a>a&ext;b</a>'
    assert vtdx.fromstring(x, forbid_external=False).text == "ab"
    assert vtdx.fromstring(x, external_entities="skip").text == "ab"
    # with forbid_external=False, external_entities='error' refuses the reference in content
    with pytest.raises(vtdx.XMLSyntaxError) as ei:
        vtdx.fromstring(x, forbid_external=False, external_entities="error")
    assert ei.value.kind == "external_entity"
    assert ei.value.position == (1, x.index(b"&ext;") + 1)  # the reference
    # a declaration without a reference is fine then
    y = b'<!DOCTYPE a [<!ENTITY ext SYSTEM "ext.xml">]><a>ab</a>'
    assert vtdx.fromstring(y, forbid_external=False, external_entities="error").text == "ab"


def test_external_options_that_contradict_are_refused():
    x = b"<a/>"
    with pytest.raises(ValueError):
        vtdx.fromstring(x, forbid_external=True, external_entities="skip")
    with pytest.raises(ValueError):
        vtdx.XMLParser(forbid_external=True, external_entities="skip")
    with pytest.raises(ValueError):
        vtdx.fromstring(x, external_entities="fetch")
    # None leaves an option at its default, as for the other options
    assert vtdx.fromstring(x, forbid_external=None, external_entities=None).tag == "a"


def test_namespaces_off():
    r = vtdx.fromstring(b"<p:a p:x='1'><p:b/></p:a>", namespaces=False)
    assert r.tag == "p:a"
    assert r.get("p:x") == "1"
    assert r.prefix is None
    assert [c.tag for c in r] == ["p:b"]


# ---- elements --------------------------------------------------------------------


def test_tags_prefixes_and_namespaces(doc):
    r = doc.root
    assert r.tag == "{urn:po}order"
    assert r.prefix == "po"
    assert r.localname == "order" and r.namespace == "urn:po"
    assert r.nsmap == {"po": "urn:po", None: "urn:default"}
    item = r[0]
    assert item.tag == "{urn:default}item"
    assert item.prefix is None
    assert item.nsmap == {"po": "urn:po", None: "urn:default"}
    assert vtdx.fromstring(b"<a xmlns='u'><b xmlns=''/></a>")[0].nsmap == {None: ""}


def test_attrib_is_a_read_only_mapping(doc):
    r = doc.root
    a = r.attrib
    assert isinstance(a, collections.abc.Mapping)
    assert a == {"id": "7", "{urn:po}rev": "2"}
    assert dict(a) == {"id": "7", "{urn:po}rev": "2"}
    assert list(a) == ["id", "{urn:po}rev"]
    assert a.keys() == ["id", "{urn:po}rev"] == r.keys()
    assert a.values() == ["7", "2"] == r.values()
    assert a.items() == [("id", "7"), ("{urn:po}rev", "2")] == r.items()
    assert len(a) == 2 and "id" in a and "rev" not in a and bool(a)
    assert a["{urn:po}rev"] == "2"
    assert a.get("nope", "d") == "d"
    with pytest.raises(KeyError):
        a["nope"]
    with pytest.raises(TypeError):
        a["id"] = "8"
    assert r.get("id") == "7" and r.get("{urn:po}rev") == "2" and r.get("po:rev") is None
    assert r.get("missing") is None and r.get("missing", 5) == 5
    assert not r[0][0].attrib  # the comment has none
    assert repr(a) == "{'id': '7', '{urn:po}rev': '2'}"
    assert vtdx.fromstring(b"<a x='1 &amp; &lt;2&gt;'/>").get("x") == "1 & <2>"


def test_text_and_tail(doc):
    r = doc.root
    item1, item2, pi, total = list(r)
    assert r.text == "\n  "
    assert item1.text == "Can"
    assert item1[0].text == "note" and item1[0].tail == " of beans"
    assert item1.tail == "\n  "
    assert item2.text == "Rake & <hoe>"  # CDATA is text
    assert pi.text == "checked" and pi.target == "audit" and pi.tail == "\n  "
    assert total.text == "3" and total.tail == "\n"
    e = vtdx.fromstring(b"<a><b/>x<![CDATA[y]]>z<c/></a>")
    assert e.text is None
    assert e[0].tail == "xyz"
    assert e[1].tail is None
    assert vtdx.fromstring(b"<a>&#65;&amp;&#x42;</a>").text == "A&B"
    assert vtdx.fromstring(b"<a>x\r\ny\rz</a>").text == "x\ny\nz"


def test_children_indexing_and_len(doc):
    r = doc.root
    assert len(r) == 4
    kinds = [type(c) for c in r]
    assert kinds == [vtdx.Element, vtdx.Element, vtdx.ProcessingInstruction, vtdx.Element]
    assert r[0].get("sku") == "A-1"
    assert r[-1].tag == "{urn:po}total"
    assert [c.get("sku") for c in r[0:2]] == ["A-1", "B-2"]
    assert [c.tag for c in r[::-2]] == ["{urn:po}total", "{urn:default}item"]
    with pytest.raises(IndexError):
        r[4]
    with pytest.raises(IndexError):
        r[-5]
    assert r[1] in r and r not in r
    assert r.index(r[3]) == 3
    with pytest.raises(ValueError):
        r.index(r[0][0])
    assert r.getchildren() == list(r)
    assert len(r[0]) == 1
    assert bool(r[1]) is False  # like lxml: truth is len() (lxml warns)


def test_comments_and_pis_are_elements(doc):
    c = doc.root[0][0]
    assert isinstance(c, vtdx.Comment) and isinstance(c, vtdx.Element)
    assert c.tag is vtdx.Comment
    assert repr(c) == "<!--note-->"
    pi = doc.root[2]
    assert pi.tag is vtdx.ProcessingInstruction
    assert repr(pi) == "<?audit checked?>"
    assert vtdx.iselement(c) and not vtdx.iselement("x")
    assert c.getparent() == doc.root[0]
    assert len(c) == 0 and c.get("x") is None


def test_navigation(doc):
    r = doc.root
    item1, item2, pi, total = list(r)
    assert r.getparent() is None
    assert item1.getparent() == r
    assert item1.getnext() == item2 and item2.getprevious() == item1
    assert item2.getnext() == pi and pi.getnext() == total and total.getnext() is None
    assert item1.getprevious() is None
    assert [e.tag for e in total.iterancestors()] == ["{urn:po}order"]
    assert list(item1.itersiblings()) == [item2, pi, total]
    assert list(total.itersiblings(preceding=True)) == [pi, item2, item1]
    assert list(item1.itersiblings("{urn:default}item")) == [item2]
    assert list(r.iterchildren(reversed=True)) == [total, pi, item2, item1]
    assert list(r.iterchildren("{urn:po}total")) == [total]


def test_iter_with_tags(doc):
    r = doc.root
    allnodes = list(r.iter())
    assert len(allnodes) == 6
    assert allnodes[0] == r
    assert [type(n).__name__ for n in allnodes] == ["Element", "Element", "Comment", "Element", "ProcessingInstruction", "Element"]
    assert len(list(r.iter("{urn:default}item"))) == 2
    assert len(list(r.iter("item"))) == 0  # 'local' means no namespace, as in lxml
    assert len(list(r.iter("{*}item"))) == 2
    assert len(list(r.iter("{urn:po}*"))) == 2
    assert len(list(r.iter("*"))) == 4
    assert len(list(r.iter(vtdx.Element))) == 4
    assert len(list(r.iter(vtdx.Comment))) == 1
    assert len(list(r.iter(vtdx.ProcessingInstruction))) == 1
    assert len(list(r.iter(vtdx.Comment, "{urn:po}total"))) == 2
    assert len(list(r.iter(["{urn:po}total", "{urn:default}item"]))) == 3
    assert list(r.iterdescendants("{urn:po}*")) == [r[3]]
    assert len(list(doc.iter())) == 6  # the tree's iter starts at the root element
    with pytest.raises(TypeError):
        r.iter(5)
    it = r.iter()
    assert iter(it) is it
    assert it.__length_hint__() == 6
    next(it)
    assert it.__length_hint__() == 5


def test_itertext(doc):
    r = doc.root
    assert "".join(r.itertext()) == "\n  Can of beans\n  Rake & <hoe>\n  \n  3\n"
    assert list(r[0].itertext()) == ["Can", " of beans"]
    assert list(r[0].itertext(with_tail=False)) == ["Can"]
    assert list(r.itertext("{urn:po}total")) == ["3", "\n"]


def test_sourceline():
    r = vtdx.fromstring(b"<a>\n<b/>\r\n<c\n x='1'\n/>\r<!--\n-->\n</a>")
    assert r.sourceline == 1
    assert [c.sourceline for c in r] == [2, 5, 7]  # an element's start tag ends there


def test_equality_hash_identity(doc):
    a = doc.root[0]
    b = doc.find("{urn:default}item")
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != doc.root[1]
    assert len({a, b, doc.root[1]}) == 2
    other = vtdx.parse(PO)
    assert other.root != doc.root
    assert doc == doc.root.getroottree() and hash(doc) == hash(doc.root.getroottree())
    assert copy.copy(a) == a and copy.deepcopy(a) == a
    assert repr(a).startswith("<Element {urn:default}item at 0x")
    with pytest.raises(TypeError):
        pickle.dumps(a)


def test_elements_keep_the_document_alive():
    r = vtdx.fromstring(b"<a><b>x</b></a>")[0]
    import gc

    gc.collect()
    assert r.text == "x" and r.getparent().tag == "a"


def test_tree_methods(doc):
    assert doc.getroot() == doc.root
    assert doc.find("{urn:default}item").get("sku") == "A-1"
    assert doc.find("/{urn:default}item") == doc.root[0]  # lxml: relative to the root
    assert len(doc.findall("{*}item")) == 2
    assert [e.get("sku") for e in doc.iterfind("{*}item")] == ["A-1", "B-2"]
    assert doc.findtext("{urn:po}total") == "3"
    assert doc.findtext("nope", "dflt") == "dflt"


def test_tostring(doc, tmp_path):
    assert doc.tostring() == PO
    assert vtdx.tostring(doc) == PO
    assert doc.tostring(encoding="unicode") == PO.decode()
    assert vtdx.tostring(doc, encoding="unicode") == PO.decode()
    assert vtdx.tostring(doc, encoding=str) == PO.decode()
    item = doc.root[0]
    assert vtdx.tostring(item) == b'<item xmlns:po="urn:po" xmlns="urn:default" sku="A-1" qty="2">Can<!--note--> of beans</item>\n  '
    assert vtdx.tostring(item, with_tail=False).endswith(b"</item>")
    assert vtdx.tostring(doc.root[2]) == b"<?audit checked?>\n  "
    assert vtdx.tostring(item, method="text", with_tail=False) == b"Can of beans"
    assert vtdx.tostring(item, xml_declaration=True, with_tail=False).startswith(b"<?xml version='1.0' encoding='UTF-8'?>\n<item")
    assert vtdx.tostring(item[0]) == b"<!--note--> of beans"
    assert vtdx.tostring(vtdx.fromstring(b"<a><b>1</b></a>"), pretty_print=True) == b"<a>\n  <b>1</b>\n</a>\n"
    with pytest.raises(ValueError):
        vtdx.tostring(item, encoding="latin-1")
    with pytest.raises(ValueError):
        vtdx.tostring(item, method="html")
    out = tmp_path / "o.xml"
    doc.write(str(out))
    assert out.read_bytes() == PO
    buf = io.BytesIO()
    doc.write(buf)
    assert buf.getvalue() == PO
    # a transcoded document gives its original bytes back
    latin = "<?xml version='1.0' encoding='ISO-8859-1'?><a>\u00e9</a>".encode("latin-1")
    assert vtdx.parse(latin).tostring() == latin
    assert vtdx.tostring(vtdx.parse(latin).root) == "<a>\u00e9</a>".encode()


def test_nbytes_reports_document_and_index(doc):
    n, idx = doc.nbytes
    assert n == len(PO) and idx > 0
