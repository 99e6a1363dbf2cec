"""vtdx.XMLSchema.from_schema_location: the opt-in to xsi:schemaLocation /
xsi:noNamespaceSchemaLocation hints (XML Schema 1.0 §4.3.2), local files only.
The verdicts are compared with Python xmlschema, which follows hints by default."""

import pytest
import xmlschema

import vtdx

A = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:a" elementFormDefault="qualified">
  <xs:element name="root"><xs:complexType><xs:sequence>
    <xs:element name="n" type="xs:int"/>
    <xs:any namespace="urn:b" processContents="strict"/>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>"""
B = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b">
  <xs:element name="x" type="xs:boolean"/>
</xs:schema>"""
NONS = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="qty" type="xs:positiveInteger"/>
</xs:schema>"""


def instance(hints, n, x):
    return (
        "<a:root xmlns:a='urn:a' xmlns:b='urn:b' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance'\n"
        f"  xsi:schemaLocation='{hints}'>\n<a:n>{n}</a:n><b:x>{x}</b:x></a:root>"
    )


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "xsd").mkdir()
    (tmp_path / "inst").mkdir()
    (tmp_path / "xsd" / "a.xsd").write_text(A)
    (tmp_path / "xsd" / "b.xsd").write_text(B)
    (tmp_path / "xsd" / "nons.xsd").write_text(NONS)
    return tmp_path


CASES = [
    instance("urn:a ../xsd/a.xsd urn:b ../xsd/b.xsd", "1", "true"),
    instance("urn:a ../xsd/a.xsd urn:b ../xsd/b.xsd", "1", "maybe"),
    instance("urn:a ../xsd/a.xsd urn:b ../xsd/b.xsd", "one", "true"),
    instance("urn:a ../xsd/a.xsd", "1", "true"),
    "<qty xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:noNamespaceSchemaLocation='../xsd/nons.xsd'>3</qty>",
    "<qty xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:noNamespaceSchemaLocation='../xsd/nons.xsd'>0</qty>",
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_verdict_matches_xmlschema(tree, i):
    path = tree / "inst" / f"case{i}.xml"
    path.write_text(CASES[i])
    expected = xmlschema.is_valid(str(path))
    doc = vtdx.parse(str(path))
    schema = vtdx.XMLSchema.from_schema_location(doc)
    assert schema.validate(doc) is expected, [str(e) for e in schema.error_log]


def test_base_for_a_document_parsed_from_bytes(tree):
    doc = vtdx.fromstring(CASES[0].encode())
    with pytest.raises(ValueError, match="base"):
        vtdx.XMLSchema.from_schema_location(doc)
    schema = vtdx.XMLSchema.from_schema_location(doc, base=tree / "inst")
    assert schema.validate(doc)


def test_urls_are_refused(tree):
    path = tree / "inst" / "remote.xml"
    path.write_text(instance("urn:a http://example.com/a.xsd", "1", "true"))
    with pytest.raises(vtdx.XMLSchemaParseError, match="names a remote resource; nothing is fetched"):
        vtdx.XMLSchema.from_schema_location(vtdx.parse(str(path)))


def test_file_takes_precedence(tree):
    # A caller-given urn:b where x is an int: the hint's boolean b.xsd is not used.
    (tree / "xsd" / "b2.xsd").write_text(B.replace("xs:boolean", "xs:int"))
    path = tree / "inst" / "p.xml"
    path.write_text(instance("urn:a ../xsd/a.xsd urn:b ../xsd/b.xsd", "1", "true"))
    doc = vtdx.parse(str(path))
    assert vtdx.XMLSchema.from_schema_location(doc).validate(doc)
    schema = vtdx.XMLSchema.from_schema_location(doc, file=str(tree / "xsd" / "b2.xsd"))
    assert not schema.validate(doc)
    assert "int" in schema.error_log[0].message
