"""lxml (libxml2 bundled in the PyPI wheel), for the side-by-side harness (bench/run).

parse: etree.fromstring; roundtrip: parse + etree.tostring of the tree (UTF-8, with
declaration); xpath: parse + a precompiled etree.XPath + removal of every selected node
(elements through parent.remove, keeping their tail text, as removing a DOM node keeps the
following text node; text nodes by clearing .text/.tail) + etree.tostring; xpath-eval: parse +
a precompiled etree.XPath + len of the result; many: parse each bundled message; memory: one
parse, peak RSS; c14n: etree.tostring(..., method='c14n',
exclusive=..., with_comments=False) of the tree (inclusive and exclusive C14N 1.0) and of the
SOAP Body element (exclusive), from the parsed document and from bytes (parse + canonicalize).

Same command line and JSON lines as every peer (bench/src/harness.rs is the reference; the loop
is in harness.py beside this file).
"""

import os
import sys

from lxml import etree

from harness import crc32, emit, measure, parse_args, stats_fields
from harness import body_span as element_span

PEER = "lxml"
XPATH_EXPRS = [
    "/*/*/*[position() mod 2 = 0]",
    "/purchaseOrder/items/item[USPrice<100]",
    "/*/*/*/quantity/text()",
    "//item/comment",
    "//item/comment/../quantity",
]


def line(workload, f, **kw):
    d = {"peer": PEER, "workload": workload, "file": f}
    d.update(kw)
    return d


def proc_kb(key):
    with open("/proc/self/status") as fh:
        for ln in fh:
            if ln.startswith(key):
                return int(ln.split()[1]) * 1024
    return 0


PARSER = etree.XMLParser(resolve_entities=True, no_network=True, huge_tree=True)


def parse(x):
    return etree.fromstring(x, PARSER)


def count_elements(root):
    tree = root.getroottree()
    return sum(1 for _ in tree.iter(etree.Element))


def serialize(root):
    return etree.tostring(root.getroottree(), encoding="UTF-8", xml_declaration=True)


def remove_keep_tail(el):
    parent = el.getparent()
    if parent is None:
        return False
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)
    return True


def xpath_edit(x, find):
    root = parse(x)
    n = 0
    for r in find(root):
        if isinstance(r, etree._Element):
            if remove_keep_tail(r):
                n += 1
        elif getattr(r, "is_text", False):
            r.getparent().text = None
            n += 1
        elif getattr(r, "is_tail", False):
            r.getparent().tail = None
            n += 1
    return n, serialize(root)


# parse options for Canonical XML as xmllint --c14n uses them: entities substituted, DTD
# attributes defaulted (the documents have no DTD), no network
C14N_PARSER = etree.XMLParser(resolve_entities=True, attribute_defaults=True, no_network=True, huge_tree=True)
SOAP_NS = ("http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope")
C14N_CASES = [("c14n", False, False), ("exc", True, False), ("exc-body", True, True)]


def soap_body(root):
    """The Body child of a SOAP Envelope root element, or None."""
    q = etree.QName(root)
    if q.localname != "Envelope" or q.namespace not in SOAP_NS:
        return None
    return root.find(f"{{{q.namespace}}}Body")


def body_span(x, body):
    """The Body element's bytes in the input, start tag to end tag (found by its qualified name)."""
    qn = (body.prefix + ":" if body.prefix else "") + etree.QName(body).localname
    return element_span(x, qn)


def c14n_doc(a, f, x):
    w = "c14n"
    try:
        root = etree.fromstring(x, C14N_PARSER)
    except etree.XMLSyntaxError as e:
        emit(line(w, f, case="parse", **{"from": "bytes"}, status="rejected", reason=str(e)))
        return
    s = measure(a, lambda: etree.fromstring(x, C14N_PARSER))
    emit(line(w, f, case="parse", **{"from": "bytes"}, doc_bytes=len(x), **stats_fields(s, len(x))))
    tree = root.getroottree()
    body = soap_body(root)
    for case, exc, sub in C14N_CASES:
        if sub and body is None:
            continue
        if sub:
            def from_tree(exc=exc):
                return etree.tostring(body, method="c14n", exclusive=exc, with_comments=False)

            def from_bytes(exc=exc):
                return etree.tostring(soap_body(etree.fromstring(x, C14N_PARSER)), method="c14n", exclusive=exc, with_comments=False)
        else:
            def from_tree(exc=exc):
                return etree.tostring(tree, method="c14n", exclusive=exc, with_comments=False)

            def from_bytes(exc=exc):
                return etree.tostring(etree.fromstring(x, C14N_PARSER).getroottree(), method="c14n", exclusive=exc, with_comments=False)

        for frm, op in (("tree", from_tree), ("bytes", from_bytes)):
            out = op()
            s = measure(a, op)
            nbytes = body_span(x, body) if sub and frm == "tree" else len(x)
            emit(line(w, f, case=case, **{"from": frm}, doc_bytes=len(x), out_bytes=len(out), out_crc32=crc32(out),
                      **stats_fields(s, nbytes)))


def main():
    a = parse_args(sys.argv[1:])
    w = a["workload"]
    if not (os.environ.get("MALLOC_TRIM_THRESHOLD_") and os.environ.get("MALLOC_MMAP_THRESHOLD_")):
        sys.exit("MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ must be set (bench/run sets them)")
    if w == "versions":
        emit(
            line(
                "versions",
                "",
                version=".".join(map(str, etree.LXML_VERSION)),
                libxml2=".".join(map(str, etree.LIBXML_VERSION)),
                libxml2_compiled=".".join(map(str, etree.LIBXML_COMPILED_VERSION)),
                python=sys.version.split()[0],
            )
        )
        return
    if a["peers"] is not None and PEER not in a["peers"]:
        return
    for f in a["files"]:
        with open(f, "rb") as fh:
            x = fh.read()
        if w == "c14n":
            c14n_doc(a, f, x)
            continue
        if w == "memory":
            base = max(proc_kb("VmHWM:"), proc_kb("VmRSS:"))
            try:
                root = parse(x)
            except etree.XMLSyntaxError as e:
                emit(line(w, f, status="rejected", reason=str(e)))
                continue
            peak = proc_kb("VmHWM:")
            emit(line(w, f, status="ok", bytes=len(x), base_rss=base, peak_rss=peak, delta_bytes=max(0, peak - base)))
            del root
            continue
        if w == "many":
            msgs = [bytes(bytearray(m)) for m in x.split(b"\0") if m]
            try:
                elems = sum(count_elements(parse(m)) for m in msgs)
            except etree.XMLSyntaxError as e:
                emit(line(w, f, status="rejected", reason=str(e)))
                continue

            def op():
                for m in msgs:
                    parse(m)

            s = measure(a, op)
            total = sum(len(m) for m in msgs)
            d = line(w, f, **stats_fields(s, total))
            d.update(messages=len(msgs), msgs_per_s=len(msgs) * 1e9 / s["median_ns"], elements=elems)
            emit(d)
            continue
        try:
            elems = count_elements(parse(x))
        except etree.XMLSyntaxError as e:
            if w in ("xpath", "xpath-eval"):
                for i, ex in enumerate(XPATH_EXPRS):
                    emit(line(w, f, expr=i + 1, xpath=ex, status="rejected", reason=str(e)))
            else:
                emit(line(w, f, status="rejected", reason=str(e)))
            continue
        if w == "parse":
            s = measure(a, lambda: parse(x))
            emit(line(w, f, elements=elems, **stats_fields(s, len(x))))
        elif w == "roundtrip":
            out = serialize(parse(x))
            try:
                oe = {"out_elements": count_elements(parse(out))}
            except etree.XMLSyntaxError as e:
                oe = {"reparse_error": str(e)}
            s = measure(a, lambda: serialize(parse(x)))
            emit(line(w, f, out_bytes=len(out), identical=out == x, **oe, **stats_fields(s, len(x))))
        elif w == "xpath":
            for i, ex in enumerate(XPATH_EXPRS):
                find = etree.XPath(ex)
                n, out = xpath_edit(x, find)
                try:
                    oe = {"out_elements": count_elements(parse(out))}
                except etree.XMLSyntaxError as e:
                    oe = {"reparse_error": str(e)}
                s = measure(a, lambda: xpath_edit(x, find))
                emit(line(w, f, expr=i + 1, xpath=ex, selected=n, out_bytes=len(out), **oe, **stats_fields(s, len(x))))
        elif w == "xpath-eval":
            for i, ex in enumerate(XPATH_EXPRS):
                find = etree.XPath(ex)
                n = len(find(parse(x)))
                s = measure(a, lambda: len(find(parse(x))))
                emit(line(w, f, expr=i + 1, xpath=ex, selected=n, **stats_fields(s, len(x))))
        else:
            sys.exit(f"lxml peer: unknown workload {w}")


if __name__ == "__main__":
    main()
