"""vtdx.pack / vtdx.unpack and pickling: exact round trips, checked decoding, errors."""

import os
import pickle
from pathlib import Path

import lxml.etree as ET
import pytest

import vtdx

CORPUS = Path(os.environ.get("VTDX_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus"))

DOCS = [
    b"<a/>",
    b"<?xml version='1.0' encoding='UTF-8'?>\n<po xmlns='urn:po' d=\"1\"><item n='1'>Can &amp; lid</item>\n  <item n='2' /></po>\n",
    b"<!DOCTYPE a [<!ENTITY e 'ent'><!ATTLIST a d CDATA 'x'>]><a>&e;<![CDATA[<b>]]><!--c--><?p q?></a>",
    "<?xml version='1.0' encoding='UTF-16'?><r>\u00e9\u20ac</r>".encode("utf-16"),
    "<?xml version='1.0' encoding='ISO-8859-1'?><r>\u00e9</r>".encode("latin-1"),
]


@pytest.mark.parametrize("xml", DOCS)
def test_round_trip_is_byte_for_byte(xml):
    doc = vtdx.fromstring(xml).getroottree()
    packed = vtdx.pack(doc)
    assert isinstance(packed, bytes)
    back = vtdx.unpack(packed)
    assert back.tostring() == xml
    # the same tree as lxml reads from the original bytes
    assert [e.tag for e in back.iter() if isinstance(e.tag, str)] == [e.tag for e in ET.fromstring(xml).iter() if isinstance(e.tag, str)]


def test_unpacked_document_is_a_full_document():
    xml = b"<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body><q n='1'>x</q><q n='2'>y</q></s:Body></s:Envelope>"
    doc = vtdx.unpack(vtdx.pack(vtdx.fromstring(xml).getroottree()))
    assert doc.xpath("count(//q)") == 2.0
    assert [q.get("n") for q in doc.findall(".//q")] == ["1", "2"]
    assert vtdx.canonicalize(doc) == ET.tostring(ET.fromstring(xml), method="c14n")


def test_pickle_uses_the_packed_form():
    xml = b"<a x='1'>\n  <b>t</b>\n</a>"
    doc = vtdx.fromstring(xml).getroottree()
    data = pickle.dumps(doc)
    assert vtdx.pack(doc) in data
    back = pickle.loads(data)
    assert back.tostring() == xml
    assert back.getroot().find("b").text == "t"


def test_damaged_and_foreign_input_is_refused():
    packed = vtdx.pack(vtdx.fromstring(b"<a><b/></a>").getroottree())
    with pytest.raises(ValueError, match="not a packed vtdx file"):
        vtdx.unpack(b"<a/>")
    with pytest.raises(ValueError, match="checksum"):
        vtdx.unpack(packed[:-10] + bytes([packed[-10] ^ 1]) + packed[-9:])
    for cut in range(len(packed)):
        with pytest.raises(ValueError):
            vtdx.unpack(packed[:cut])


def test_benchmark_documents_round_trip():
    classic = CORPUS / "bench" / "classic"
    files = sorted(classic.glob("*.xml"))
    assert len(files) == 8, f"expected the 8 classic benchmark documents in {classic}"
    for f in files:
        xml = f.read_bytes()
        doc = vtdx.parse(str(f), forbid_external=False)
        assert vtdx.unpack(vtdx.pack(doc)).tostring() == xml, f
