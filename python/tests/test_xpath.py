"""XPath from Python: result types as lxml's, smart strings, variables, the compiled
XPath class, errors. What expressions select is in the shared cases of testdata/xpath
(test_xpath_cases.py, which also cross-checks them with lxml)."""

import pytest

import vtdx

DOC = b"""<po xmlns:x="urn:x" n="1">
  <item sku="A"><price>12.5</price><qty>2</qty>text<!--c-->tail</item>
  <item sku="B"><price>150</price><qty>1</qty></item>
  <x:note x:lang="en">hello <b>world</b></x:note>
  <?pi data?>
</po>"""


@pytest.fixture(scope="module")
def r():
    return vtdx.fromstring(DOC)


def test_result_types(r):
    assert isinstance(r.xpath("count(//item)"), float)
    assert r.xpath("boolean(/po)") is True
    s = r.xpath("string(/po/@n)")
    assert s == "1" and isinstance(s, vtdx.SmartString) and s.getparent() is None
    items = r.xpath("//item")
    assert all(type(i) is vtdx.Element for i in items)
    a = r.xpath("//item/@sku")[0]
    assert isinstance(a, str) and a.is_attribute and a.attrname == "sku" and a.getparent() == items[0]
    t = r.xpath("//item[1]/text()")
    assert [str(x) for x in t] == ["text", "tail"]
    assert t[0].is_text is False and t[0].is_tail is True and t[0].getparent() == r.xpath("//qty")[0]
    assert t[1].is_tail and type(t[1].getparent()) is vtdx.Comment
    assert r.xpath("//price/text()")[0].is_text
    plain = r.xpath("//item/@sku", smart_strings=False)
    assert plain == ["A", "B"] and type(plain[0]) is str
    assert r.xpath("/")[0] == r.getroottree()  # the root node (lxml leaves it out)
    assert r.xpath("//namespace::x")[0] == ("x", "urn:x")
    assert (None, "urn:d") in vtdx.fromstring(b"<a xmlns='urn:d'/>").xpath("namespace::*")


def test_document_xpath_uses_the_root_element_as_context():
    d = vtdx.parse(DOC)
    assert d.xpath("count(item)") == 2.0  # as lxml's ElementTree.xpath
    assert d.xpath(".")[0] == d.root
    assert len(d.xpath("//item")) == 2


def test_variables(r):
    assert r.xpath("//item[price > $p]/@sku", p=100) == ["B"]
    assert r.xpath("//item[@sku = $s]/qty/text()", s="A") == ["2"]
    assert r.xpath("count($nodes)", nodes=r.xpath("//item")) == 2.0
    assert r.xpath("$e/@sku", e=r[0]) == ["A"]
    with pytest.raises(TypeError):
        r.xpath("$v", v=object())
    with pytest.raises(ValueError):
        r.xpath("$v", v=vtdx.fromstring(b"<z/>"))


def test_compiled_xpath_on_many_documents():
    find = vtdx.XPath("//i[@v > $min]/@v")
    assert find.path == "//i[@v > $min]/@v"
    assert repr(find) == "XPath('//i[@v > $min]/@v')"
    docs = [vtdx.parse(b"<r>" + b"".join(b"<i v='%d'/>" % i for i in range(n)) + b"</r>") for n in range(1, 6)]
    assert [len(find(d, min=1)) for d in docs] == [0, 0, 1, 2, 3]
    assert find(docs[-1].root, min=3) == ["4"]
    ns = vtdx.XPath("//p:a", namespaces={"p": "urn:p"})
    assert len(ns(vtdx.parse(b"<r xmlns:q='urn:p'><q:a/><a/></r>"))) == 1
    assert len(vtdx.XPath("//p:a", {"p": "urn:p"})(vtdx.parse(b"<p:a xmlns:p='urn:p'/>"))) == 1
    assert vtdx.XPath("//a", smart_strings=False)(vtdx.parse(b"<r/>")) == []
    with pytest.raises(TypeError):
        find("<r/>")


def test_errors():
    r = vtdx.fromstring(b"<a/>")
    with pytest.raises(vtdx.XPathSyntaxError) as ei:
        r.xpath("/a/b[@c")
    e = ei.value
    assert isinstance(e, vtdx.XPathError) and isinstance(e, SyntaxError) and isinstance(e, ValueError)
    assert e.offset == 7 and "^" in str(e) and e.expression == "/a/b[@c"
    with pytest.raises(vtdx.XPathSyntaxError):
        vtdx.XPath("//q:a")  # unbound prefix
    with pytest.raises(vtdx.XPathSyntaxError):
        r.xpath("foo()")
    with pytest.raises(TypeError):
        r.xpath("//a", namespaces={None: "urn:x"})
    with pytest.raises(vtdx.XPathEvalError):
        r.xpath("count(1)")


def test_large_result_sets():
    big = b"<r>" + b"<i n='1'>x</i>" * 50000 + b"</r>"
    r = vtdx.fromstring(big)
    assert len(r.xpath("//i")) == 50000
    assert len(r.xpath("//i/@n")) == 50000
    assert r.xpath("count(//i/text())") == 50000.0
