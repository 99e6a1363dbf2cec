"""Editor: byte-range edits written in one pass; untouched bytes stay as they were."""

import pytest

import vtdx

DOC = b"""<?xml version="1.0"?>
<r xmlns:p="urn:p" a='1'>
  <b>one</b>
  <c x="1"/>
  <p:d p:y="2">two</p:d>
  <!-- note -->
</r>
"""


@pytest.fixture
def doc():
    return vtdx.parse(DOC)


def test_no_edits_gives_the_input_back(doc):
    assert vtdx.Editor(doc).output() == DOC


def test_each_operation(doc):
    r = doc.root
    b, c, d, comment = list(r)
    ed = vtdx.Editor(doc)
    ed.remove(b)
    ed.set(c, "x", "2 & <3>")
    ed.set(c, "new", "v")
    ed.append(c, "<e/>")
    ed.rename(d, "p:dd")
    ed.set_text(d, "a<b")
    ed.insert_before(comment, "<f/>")
    ed.insert_after(comment, "<g/>")
    ed.set(d, "{urn:p}y", "3")
    ed.remove_attribute(r, "a")
    assert len(ed) == 10
    out = ed.output()
    assert out == (
        b'<?xml version="1.0"?>\n<r xmlns:p="urn:p">\n  \n'
        b'  <c x="2 &amp; &lt;3>" new="v"><e/></c>\n'
        b'  <p:dd p:y="3">a&lt;b</p:dd>\n'
        b"  <f/><!-- note --><g/>\n</r>\n"
    )
    # the document itself is unchanged; the output parses
    assert doc.tostring() == DOC
    new = ed.to_document()
    assert new.root.find("c").get("x") == "2 & <3>"
    assert new.root.find("{urn:p}dd").text == "a<b"
    assert new.root.get("a") is None


def test_prepend_replace_and_remove_indentation(doc):
    r = doc.root
    ed = vtdx.Editor(doc, remove_indentation=True)
    ed.prepend(r, "<first/>")
    ed.replace(r[1], "<cc/>")
    ed.remove(r[0])
    out = ed.output()
    assert out == b'<?xml version="1.0"?>\n<r xmlns:p="urn:p" a=\'1\'><first/>\n  <cc/>\n  <p:d p:y="2">two</p:d>\n  <!-- note -->\n</r>\n'


def test_errors_are_raised_by_the_call_that_causes_them(doc):
    r = doc.root
    ed = vtdx.Editor(doc)
    with pytest.raises(vtdx.EditError):
        ed.remove(r)  # the root element
    with pytest.raises(vtdx.EditError):
        ed.append(r, "<unclosed>")
    with pytest.raises(vtdx.EditError):
        ed.append(r, "<q:x/>")  # undeclared prefix
    with pytest.raises(vtdx.EditError):
        ed.rename(r[0], "1bad")
    with pytest.raises(vtdx.EditError):
        ed.set(r[0], "{urn:nowhere}x", "1")
    with pytest.raises(vtdx.EditError):
        ed.rename(r[3], "x")  # a comment has no name
    assert len(ed) == 0
    with pytest.raises(ValueError):
        ed.remove(vtdx.fromstring(b"<z><y/></z>")[0])
    with pytest.raises(TypeError):
        ed.remove("b")
    # unchecked fragments are taken as they are
    loose = vtdx.Editor(doc, check=False)
    loose.append(r, "<unclosed>")
    assert b"<unclosed>" in loose.output()


def test_conflicting_edits_fail_at_output(doc):
    ed = vtdx.Editor(doc)
    b = doc.root[0]
    ed.set_text(b, "x")
    ed.remove(b)  # contains the first edit: absorbed
    assert b"<b>" not in ed.output()
    ed.clear()
    assert len(ed) == 0 and ed.output() == DOC


def test_editor_on_an_element_and_other_encodings():
    latin = "<?xml version='1.0' encoding='ISO-8859-1'?><a>\u00e9<b/></a>".encode("latin-1")
    r = vtdx.fromstring(latin)
    ed = vtdx.Editor(r)
    assert ed.document == r.getroottree()
    ed.set_text(r[0], "\u00e8")
    assert ed.output() == "<?xml version='1.0' encoding='ISO-8859-1'?><a>\u00e9<b>\u00e8</b></a>".encode("latin-1")


def test_big_document_output():
    big = b"<r>" + b"<i>x</i>" * 100000 + b"</r>"
    doc = vtdx.parse(big)
    ed = vtdx.Editor(doc)
    for i in doc.root.findall("i")[::2]:
        ed.remove(i)
    out = ed.output()
    assert out == b"<r>" + b"<i>x</i>" * 50000 + b"</r>"
