"""vtdx called from Python (the wheel in target/py), for the side-by-side harness's c14n workload.

It is the Python side of the Canonical XML targets' Python pairing: vtdx from Python beside lxml
from Python (lxml_peer.py), the same cases as every c14n peer, measured with the same loop
(harness.py). parse: vtdx.fromstring; c14n: vtdx.canonicalize(tree, exclusive=..., with_comments=False)
of the tree (inclusive and exclusive C14N 1.0) and of the SOAP Body element (exclusive), from the
parsed document and from bytes (fromstring + canonicalize). The native pairing is vtdx in Rust
beside libxml2 in C (rust_peers, libxml2_peer).

    python vtdx_py_peer.py c14n [--peers vtdx-py] [policy options] FILE...
    python vtdx_py_peer.py versions

Same command line and JSON lines as every peer (bench/src/harness.rs is the reference).
"""

import os
import sys

import vtdx

from harness import crc32, emit, measure, parse_args, stats_fields
from harness import body_span as element_span

PEER = "vtdx-py"
SOAP_NS = ("http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope")
C14N_CASES = [("c14n", False, False), ("exc", True, False), ("exc-body", True, True)]


def line(workload, f, **kw):
    d = {"peer": PEER, "workload": workload, "file": f}
    d.update(kw)
    return d


def soap_body(root):
    """The Body child of a SOAP Envelope root element, or None."""
    tag = root.tag
    if not tag.startswith("{"):
        return None
    ns, local = tag[1:].split("}", 1)
    if local != "Envelope" or ns not in SOAP_NS:
        return None
    return root.find(f"{{{ns}}}Body")


def body_span(x, body):
    """The Body element's bytes in the input, start tag to end tag (found by its qualified name)."""
    local = body.tag.split("}", 1)[-1]
    qn = ((body.prefix + ":") if body.prefix else "") + local
    return element_span(x, qn)


def c14n_doc(a, f, x):
    w = "c14n"
    try:
        root = vtdx.fromstring(x)
    except vtdx.XMLSyntaxError as e:
        emit(line(w, f, case="parse", **{"from": "bytes"}, status="rejected", reason=str(e)))
        return
    s = measure(a, lambda: vtdx.fromstring(x))
    emit(line(w, f, case="parse", **{"from": "bytes"}, doc_bytes=len(x), **stats_fields(s, len(x))))
    tree = root.getroottree()
    body = soap_body(root)
    for case, exc, sub in C14N_CASES:
        if sub and body is None:
            continue
        if sub:
            def from_tree(exc=exc):
                return vtdx.canonicalize(body, exclusive=exc, with_comments=False)

            def from_bytes(exc=exc):
                return vtdx.canonicalize(soap_body(vtdx.fromstring(x)), exclusive=exc, with_comments=False)
        else:
            def from_tree(exc=exc):
                return vtdx.canonicalize(tree, exclusive=exc, with_comments=False)

            def from_bytes(exc=exc):
                return vtdx.canonicalize(vtdx.fromstring(x).getroottree(), exclusive=exc, with_comments=False)

        for frm, op in (("tree", from_tree), ("bytes", from_bytes)):
            out = op()  # the output of the operation timed: the cross-check's length and CRC-32
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
        emit(line("versions", "", version=getattr(vtdx, "__version__", "?"), python=sys.version.split()[0]))
        return
    if a["peers"] is not None and PEER not in a["peers"]:
        return
    for f in a["files"]:
        with open(f, "rb") as fh:
            x = fh.read()
        if w == "c14n":
            c14n_doc(a, f, x)
        else:
            emit(line(w, f, status="skip", reason="vtdx from Python runs in the c14n workload here (the python workload has the rest)"))


if __name__ == "__main__":
    main()
