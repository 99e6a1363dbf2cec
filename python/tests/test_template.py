"""``vtdx.XMLParser(template_cache=True)``: a stream of messages of a few
structures, with near misses, gives the same trees and errors through the
template cache as without it, and lxml agrees on every verdict and value."""

import pytest
from lxml import etree

import vtdx


def soap(op, n, items, value):
    body = "".join(
        f'\n      <m:item code="{k}-{n}" qty=\'{k + n % 5}\'>{value} {k}</m:item>' for k in range(items)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="urn:shop">\n'
        f"  <soap:Header><m:MessageID>uuid:{n:08}</m:MessageID></soap:Header>\n"
        f'  <soap:Body>\n    <m:{op} customer="c{n}">{body}\n    </m:{op}>\n  </soap:Body>\n</soap:Envelope>\n'
    ).encode()


def stream():
    ops = ["GetQuote", "PlaceOrder", "CancelOrder", "TrackShipment"]
    values = ["Can", "Rake &amp; hoe", "caf\u00e9", "", "a &lt; b"]
    out = []
    for n in range(80):
        msg = soap(ops[n % 4], n, 1 + n % 6, values[n % 5])
        kind = n % 10
        if kind == 3:
            msg = msg[: len(msg) // 2] + b"<" + msg[len(msg) // 2 + 1 :]
        elif kind == 5:
            msg = msg[:-11]
        elif kind == 7:
            msg = msg.replace(b"m:item", b"x:item")
        elif kind == 8:
            msg = msg.replace(b"qty='", b"qty='&undeclared;")
        out.append(msg)
    return out


def outcome(parser, msg):
    try:
        root = parser.fromstring(msg) if parser else vtdx.fromstring(msg)
    except vtdx.XMLSyntaxError as e:
        return ("error", str(e), e.position)
    return ("ok", [(el.tag, sorted(el.attrib.items()), el.text) for el in root.iter()])


def lxml_outcome(msg):
    try:
        root = etree.fromstring(msg)
    except etree.XMLSyntaxError:
        return "error"
    return [(el.tag, sorted(el.attrib.items()), el.text) for el in root.iter()]


def test_same_trees_and_errors_as_without_the_cache():
    cached = vtdx.XMLParser(template_cache=True)
    plain = vtdx.XMLParser()
    for msg in stream():
        a, b = outcome(cached, msg), outcome(plain, msg)
        assert a == b
        ref = lxml_outcome(msg)
        if ref == "error":
            assert a[0] == "error"
        else:
            assert a == ("ok", ref)
    stats = cached.template_stats()
    assert stats["hits"] + stats["misses"] == 80
    # four structures of six sizes each, learned at their second sighting: most messages hit
    assert stats["hits"] >= 30, stats
    assert stats["bytes_matched"] > 0 and 0 < stats["bytes"] <= stats["max_bytes"]


def test_parse_and_fromstring_with_the_parser(tmp_path):
    parser = vtdx.XMLParser(template_cache=True)
    for n in range(4):
        path = tmp_path / f"m{n}.xml"
        path.write_bytes(soap("GetQuote", n, 2, "v"))
        doc = vtdx.parse(str(path), parser=parser)
        assert doc.getroot().tag == "{http://schemas.xmlsoap.org/soap/envelope/}Envelope"
        root = vtdx.fromstring(soap("GetQuote", n, 3, "w"), parser=parser)
        assert [e.get("code") for e in root.iter("{urn:shop}item")] == [f"{k}-{n}" for k in range(3)]
    assert parser.template_stats()["hits"] >= 4


def test_off_by_default_and_options_still_checked():
    assert vtdx.XMLParser().template_stats() is None
    with pytest.raises(TypeError):
        vtdx.XMLParser(template_cache=True, no_such_option=1)
    limited = vtdx.XMLParser(template_cache=True, max_depth=2)
    for _ in range(3):
        with pytest.raises(vtdx.XMLSyntaxError):
            limited.fromstring(b"<a><b><c/></b></a>")
