"""ElementPath (find, findall, iterfind, findtext): every path is run through lxml
too, and the two must select the same elements in the same order (duplicates
included: lxml applies steps to each result in turn). Paths with ``!=``, which
lxml's tokenizer does not know (it reads ``k!`` as a name), are checked against
the standard library's ElementTree, which supports them."""

import xml.etree.ElementTree as ET

import pytest
from lxml import etree

import vtdx

DOC = b"""<root xmlns:x="urn:x" a="1">
  <a id="1" k="v">one<b>bee</b><b id="b2">bee2</b></a>
  <a id="2"><a id="3"><b>inner</b></a></a>
  <x:c id="4" x:k="w"><b>nsb</b><x:b id="x5">xb</x:b></x:c>
  <d>  text  <!-- c --><e/></d>
  <a id="6" k="u"/>
</root>"""

PATHS = [
    "a", "*", ".", "..", "a/b", "./a", "a/*", "*/b", ".//b", "./a//b", ".//a//b", "a//b",
    ".//*", "*//*", "a/..", ".//b/..", "a[@id]", "a[@k='v']", ".//*[@id]",
    "a[b]", ".//a[b]", "a[b='bee']", ".//b[.='inner']",
    "a[1]", "a[2]", "a[3]", "a[last()]", "a[last()-1]", ".//b[1]", ".//b[last()]",
    "{urn:x}c", "{urn:x}c/{urn:x}b", "{*}c", "{*}c/{*}b", "{urn:x}*", "{}a", "{}*", ".//{*}b",
    "x:c", "x:c/x:b", ".//x:b", "x:c[@x:k='w']", "x:c[@x:k]", "a/", ".//d/e", "d[e]",
    "a[@id='2']/a[@id='3']/b", "*[@id='4']", ".//*[@id='x5']/..", "a[b][@k]",
]

NS = {"x": "urn:x"}


def positions(root, found):
    index = {e: i for i, e in enumerate(root.iter())}
    return [index[e] for e in found]


@pytest.fixture(scope="module")
def roots():
    return etree.fromstring(DOC), vtdx.fromstring(DOC)


@pytest.mark.parametrize("path", PATHS)
def test_findall_matches_lxml(roots, path):
    lroot, vroot = roots
    for lstart, vstart in [(lroot, vroot), (lroot[0], vroot[0]), (lroot[1], vroot[1])]:
        want = positions(lroot, lstart.findall(path, namespaces=NS))
        got = positions(vroot, vstart.findall(path, namespaces=NS))
        assert got == want
        lfirst = lstart.find(path, namespaces=NS)
        vfirst = vstart.find(path, namespaces=NS)
        assert (lfirst is None) == (vfirst is None)
        if lfirst is not None:
            assert positions(lroot, [lfirst]) == positions(vroot, [vfirst])
        assert [positions(vroot, [e])[0] for e in vstart.iterfind(path, namespaces=NS)] == want
        assert vstart.findtext(path, namespaces=NS) == lstart.findtext(path, namespaces=NS)


@pytest.mark.parametrize("path", ["a[@k!='v']", "a[b!='bee']", ".//b[.!='inner']", ".//*[@id!='3']"])
def test_not_equal_predicates_match_elementtree(path):
    # (ElementTree drops comments, so compare names and ids rather than positions)
    eroot, vroot = ET.fromstring(DOC), vtdx.fromstring(DOC)
    key = lambda found: [(e.tag, e.get("id"), e.text) for e in found]
    assert key(vroot.findall(path)) == key(eroot.findall(path))


def test_default_namespace_in_namespaces():
    xml = b'<r xmlns="urn:d" xmlns:p="urn:p"><i p:a="1"/><i/><p:j/></r>'
    for ns in ({"": "urn:d", "p": "urn:p"}, {None: "urn:d", "p": "urn:p"}):
        lroot, vroot = etree.fromstring(xml), vtdx.fromstring(xml)
        for path in ["i", "i[@p:a]", "p:j", "*", "i[@a]"]:
            assert positions(vroot, vroot.findall(path, namespaces=ns)) == positions(
                lroot, lroot.findall(path, namespaces=ns)
            ), path
    with pytest.raises(ValueError):
        vtdx.fromstring(xml).findall("i", namespaces={"": "a", None: "b"})


@pytest.mark.parametrize(
    "path",
    ["/a", "//b", "", "a[0]", "a[-1]", "a[@]", "q:a", "a[foo()]", "a[b", "a[@x='1"],
)
def test_bad_paths_raise_syntax_error(path):
    r = vtdx.fromstring(DOC)
    with pytest.raises(SyntaxError):
        r.findall(path)
    with pytest.raises(SyntaxError):
        etree.fromstring(DOC).findall(path)


def test_findtext_defaults():
    r = vtdx.fromstring(b"<r><a/><b>t</b></r>")
    assert r.findtext("a") == ""
    assert r.findtext("b") == "t"
    assert r.findtext("c") is None
    assert r.findtext("c", "x") == "x"
    assert r.findtext("c", default=3) == 3


def test_large_find_stops_early():
    big = b"<r>" + b"<i><v>1</v></i>" * 20000 + b"</r>"
    r = vtdx.fromstring(big)
    assert r.find(".//v").text == "1"
    assert len(r.findall(".//v")) == 20000
    assert len(r.findall("i[v='1']")) == 20000
