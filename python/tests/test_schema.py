"""``vtdx.XMLSchema``: verdicts compared with lxml/libxml2 (an independent validator) on the
schema/instance pairs in testdata/schema/py, and error details (line, column, path) checked
against positions computed by hand from the test's own literal documents."""

import pathlib

import pytest

import vtdx

lxml_etree = pytest.importorskip("lxml.etree")

DATA = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "schema" / "py"

PAIRS = sorted((xsd.stem, xml.name) for xsd in DATA.glob("*.xsd") for xml in DATA.glob(xsd.stem + "-*.xml"))


def test_the_pairs_are_there():
    # 2 schemas, 20 instances: a missing directory must fail, not pass an empty parametrization
    assert len(PAIRS) == 20, PAIRS


@pytest.mark.parametrize("stem,name", PAIRS)
def test_verdict_agrees_with_libxml2(stem, name):
    schema = vtdx.XMLSchema(file=str(DATA / f"{stem}.xsd"))
    doc = vtdx.parse(str(DATA / name))
    oracle = lxml_etree.XMLSchema(lxml_etree.parse(str(DATA / f"{stem}.xsd")))
    expected = oracle.validate(lxml_etree.parse(str(DATA / name)))
    assert expected == name.endswith("-valid.xml")  # the file names say what the instance is
    assert schema.validate(doc) is expected
    assert schema.is_valid(doc) is expected
    assert (schema.error_log == []) is expected
    if not expected:
        # libxml2 reports the first error at the line of the start tag of the element it
        # concerns; vtdx's first error is on the same line, except that content missing at the
        # end of an element is reported where the element ends (its end tag)
        ours = schema.error_log[0]
        if "is incomplete" in ours.message:
            text = (DATA / name).read_text()
            local = ours.path.rsplit("/", 1)[1].split("[")[0].split(":")[-1]
            assert ours.line == text[: text.index(f"</{local}>")].count("\n") + 1
        else:
            assert ours.line == oracle.error_log[0].line, (schema.error_log, oracle.error_log)
        assert all(e.filename == str(DATA / name) for e in schema.error_log)
        assert all(e.level_name == "ERROR" for e in schema.error_log)


def _pos(text, needle, nth=0):
    """1-based (line, column) of the nth occurrence of needle in text."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    line = text.count("\n", 0, i) + 1
    return line, i - (text.rfind("\n", 0, i) + 1) + 1


ORDER_XSD = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="item" maxOccurs="unbounded">
          <xs:complexType>
            <xs:simpleContent>
              <xs:extension base="xs:positiveInteger">
                <xs:attribute name="sku" type="xs:string" use="required"/>
              </xs:extension>
            </xs:simpleContent>
          </xs:complexType>
        </xs:element>
        <xs:element name="total" type="xs:decimal"/>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>"""

BAD = """<order>
  <item sku="a">1</item>
  <item>2</item>
  <item sku="c">zero</item>
  <comment/>
  <total>1.5</total>
</order>"""


def test_error_details():
    schema = vtdx.XMLSchema(source=ORDER_XSD)
    doc = vtdx.fromstring(BAD.encode()).getroottree()
    assert not schema.validate(doc)
    errs = schema.error_log
    # one error per problem: missing sku on item[2], "zero" on item[3], <comment> unexpected
    assert [e.path for e in errs] == ["/order/item[2]", "/order/item[3]", "/order/comment"], errs
    # hand-computed: <item> of line 3 starts at column 3; line 4's item likewise; <comment/> on line 5
    assert _pos(BAD, "<item>") == (3, 3)
    assert (errs[0].line, errs[0].column) == (3, 3)
    assert errs[1].line == 4 and errs[1].column in (3, _pos(BAD, "zero")[1])
    assert (errs[2].line, errs[2].column) == (5, 3)
    assert "sku" in errs[0].message
    assert "zero" in errs[1].message
    assert "<comment>" in errs[2].message and "<total>" in errs[2].message
    # byte offsets agree with the lines and columns of the ASCII text
    for e in errs:
        assert BAD[: e.offset].count("\n") + 1 == e.line
    assert all(e.filename is None for e in errs)
    # the same verdict from libxml2
    assert not lxml_etree.XMLSchema(lxml_etree.fromstring(ORDER_XSD)).validate(lxml_etree.fromstring(BAD.encode()))


def test_assert_valid_and_assert_():
    schema = vtdx.XMLSchema(source=ORDER_XSD)
    good = vtdx.fromstring(b'<order><item sku="x">3</item><total>3</total></order>')
    schema.assertValid(good)
    schema.assert_(good)
    assert schema(good) is True
    bad = vtdx.fromstring(b'<order><total>3</total></order>')
    with pytest.raises(vtdx.DocumentInvalid) as ei:
        schema.assertValid(bad)
    # <total> starts at column 8, after the 7 characters of <order>
    assert ":1:8:" in str(ei.value) and "<total>" in str(ei.value)
    assert isinstance(ei.value, ValueError)
    with pytest.raises(AssertionError):
        schema.assert_(bad)
    # iter_errors and is_valid do not touch the log of the last validate()
    schema.validate(good)
    # <total> comes before the required <item>, and at </order> the <item> is still missing
    assert [e.path for e in schema.iter_errors(bad)] == ["/order/total", "/order"]
    assert schema.error_log == []
    assert schema.is_valid(bad) is False


def test_schema_from_a_parsed_document_and_file_list():
    xsd = DATA / "order.xsd"
    by_doc = vtdx.XMLSchema(vtdx.parse(str(xsd)))
    by_list = vtdx.XMLSchema(file=[xsd])
    for name in ("order-valid.xml", "order-bad-sku.xml"):
        doc = vtdx.parse(str(DATA / name))
        assert by_doc.validate(doc) is by_list.validate(doc) is name.endswith("-valid.xml")


def test_bad_schema_and_bad_arguments():
    with pytest.raises(vtdx.XMLSchemaParseError) as ei:
        vtdx.XMLSchema(source=b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="nope"/></xs:schema>')
    assert "nope" in str(ei.value)
    with pytest.raises(vtdx.XMLSchemaParseError):
        vtdx.XMLSchema(file=str(DATA / "does-not-exist.xsd"))
    with pytest.raises(TypeError):
        vtdx.XMLSchema()
    with pytest.raises(TypeError):
        vtdx.XMLSchema(source=ORDER_XSD, file="x.xsd")
    with pytest.raises(TypeError):
        vtdx.XMLSchema("order.xsd")  # a path goes in file=, as in lxml
    schema = vtdx.XMLSchema(source=ORDER_XSD)
    with pytest.raises(TypeError):
        schema.validate("<order/>")
    doc = vtdx.fromstring(b'<order><item sku="x">3</item><total>3</total></order>')
    with pytest.raises(ValueError):
        schema.validate(doc[0])  # a subtree, not the document
    assert schema.validate(doc) is True  # its root element stands for the document


def test_not_well_formed_input_is_the_parser_error():
    with pytest.raises(vtdx.XMLSyntaxError):
        vtdx.fromstring(b"<order><total>1</order>")
