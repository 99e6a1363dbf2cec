#!/usr/bin/env python3
"""Writes BENCHMARKS.md and the charts from the JSON lines the driver collected.

Full run: /BENCHMARKS.md (repository root) and bench/charts/*.png.
Quick run: bench/out/quick/BENCHMARKS.md, no charts (the quick run must not touch tracked files).
"""

import argparse
import json
import statistics
import string
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"

ORDER = ["vtdx", "vtdx-reuse", "vtdx-cold", "simdxml", "pugixml", "pugixml-ws", "quick-xml", "roxmltree", "expat",
         "libxml2", "libxml2-reuse", "lxml", "vtd-xml", "vtd-xml-reuse", "xerces-deferred", "xerces-full"]
LANG = {"vtdx": "Rust", "vtdx-reuse": "Rust", "vtdx-cold": "Rust", "simdxml": "Rust", "quick-xml": "Rust", "roxmltree": "Rust",
        "pugixml": "C++", "pugixml-ws": "C++", "expat": "C", "libxml2": "C", "libxml2-reuse": "C", "lxml": "Python",
        "vtdx-py": "Python", "vtd-xml": "Java", "vtd-xml-reuse": "Java", "xerces-deferred": "Java", "xerces-full": "Java"}
# vtdx's variants: warm (the default per-thread parser, and an explicit reused Parser) and cold
VTDX_WARM = ("vtdx", "vtdx-reuse")
VTDX_COLD = ("vtdx-cold",)
# each peer's variants: a target is judged against the strongest (fastest) of them, cell by cell
VARIANTS = {"pugixml": ("pugixml", "pugixml-ws"), "libxml2": ("libxml2", "libxml2-reuse"), "simdxml": ("simdxml",),
            "lxml": ("lxml",), "vtd-xml": ("vtd-xml", "vtd-xml-reuse"), "xerces": ("xerces-deferred", "xerces-full")}
WHAT = {
    "vtdx": "`Document::parse`: the default per-thread parser, **warm** — each thread keeps one `Parser` for "
            "`Document::parse`, so its name tables and scratch state carry over from the previous document on the "
            "thread (the tape is allocated afresh for each document). Reserialize: `write_to` a `Vec` — "
            "vtdx writes the bytes it indexed, byte for byte, with no reserialization: that is the vtdx way",
    "vtdx-reuse": "`Parser::parse` + `recycle` on one explicit parser, **warm** (the tape, name tables and scratch "
                  "state are reused, like VTD-XML's buffer reuse). Reserialize: as vtdx",
    "vtdx-cold": "`vtdx_core::Parser::new()` + `parse` for every document, **cold** (what a caller who keeps nothing "
                 "gets): scratch state and tape built each time; the name tables are the ones the parser dropped last "
                 "on the thread left behind (`Parser::isolated`, which builds them from nothing, is measured in "
                 "instructions in docs/parsing.md). Reserialize: as vtdx",
    "simdxml": "`simdxml::parse` (SIMD structural index). No serializer, no editing (it has XPath, but cannot remove nodes)",
    "pugixml": "`xml_document::load_buffer`, `parse_default` (whitespace-only text dropped); reserialize: `save` with "
               "`format_default` (re-indents) through an `xml_writer` into a `std::string`",
    "pugixml-ws": "`load_buffer` with `parse_default | parse_ws_pcdata` (all text kept, closest to vtdx); reserialize: `save` with `format_raw`",
    "quick-xml": "every event read from a borrowed slice (`Reader::read_event`), nothing decoded; reserialize: each event "
                 "written back through `quick_xml::Writer`",
    "roxmltree": "`Document::parse_with_options` (DTD allowed) on `&str` (UTF-8 validation included); read-only tree, no serializer",
    "expat": "`XML_Parse` of the whole buffer with no-op start/end/character handlers, parser reused through "
             "`XML_ParserReset`; no tree, so no reserialize or XPath",
    "libxml2": "`xmlReadMemory` (`XML_PARSE_NONET`; a new parser context per document) + `xmlFreeDoc`; reserialize: "
               "`xmlDocDumpMemory`",
    "libxml2-reuse": "`xmlCtxtReadMemory` on one `xmlParserCtxt` kept for every document (its name dictionary and "
                     "buffers reused), with `XML_PARSE_NONET | XML_PARSE_COMPACT` (lxml's default) + `xmlFreeDoc`; "
                     "reserialize: as libxml2",
    "lxml": "`etree.fromstring`; reserialize: `etree.tostring(tree, encoding='UTF-8', xml_declaration=True)`",
    "vtd-xml": "`VTDGen.setDoc` + `parse(true)` (new buffers each parse); reserialize: `VTDNav.dumpXML` to a "
               "`ByteArrayOutputStream` (VTD-XML, like vtdx, writes the untouched bytes)",
    "vtd-xml-reuse": "`VTDGen.setDoc_BR` + `parse(true)` (buffer-reuse mode); reserialize: as vtd-xml",
    "xerces-deferred": "Xerces-J `DocumentBuilder.parse`, namespace-aware, deferred node expansion on (Xerces' default), "
                       "external DTD not loaded; reserialize: `LSSerializer` to a `ByteArrayOutputStream` (expands every node)",
    "xerces-full": "as xerces-deferred with deferred node expansion off (every node built while parsing)",
}
XPATH_WHAT = {
    "vtdx": "`XPath::compile` once; `select`, `Editor::remove` per node (a text node's adjacent text/CDATA records together), `Editor::append_to` a `Vec<u8>` (no tree, no reserialization)",
    "libxml2": "`xmlXPathCompile` once; `xmlXPathCompiledEval`, `xmlUnlinkNode` + `xmlFreeNode` per node, `xmlDocDumpMemory`",
    "lxml": "`etree.XPath` once; elements removed with `parent.remove` (their tail text kept), text nodes by clearing `.text`/`.tail`; `etree.tostring`",
    "pugixml": "`xpath_query` once; `evaluate_node_set`, `parent().remove_child()`, `save` to a string",
    "vtd-xml": "`AutoPilot.selectXPath` once; `evalXPath` loop, `XMLModifier.remove()` (elements) / `removeToken` (text), `XMLModifier.output` to a `ByteArrayOutputStream`",
    "xerces": "`javax.xml.xpath` (the JDK's) `compile` once; `evaluate(NODESET)`, `removeChild`, `LSSerializer`",
}
XEVAL_WHAT = {
    "vtdx": "`XPath::compile` once; `Document::parse` (per-thread parser, warm) + `select(doc.root())` + `len`",
    "vtdx-reuse": "as vtdx with a reused `Parser` (`parse` + `recycle`)",
    "vtdx-cold": "as vtdx with a new `Parser` per document",
    "simdxml": "`CompiledXPath::compile` once; `simdxml::parse` + `ensure_indices` (the query indices the crate's own "
               "`eval` builds first; threaded above 10,000 tags) + `eval` + `len`",
    "pugixml": "`xpath_query` once; `load_buffer` into a fresh `xml_document` + `evaluate_node_set` + `size` (pugixml-ws: whitespace kept)",
    "libxml2": "`xmlXPathCompile` once; `xmlReadMemory` + `xmlXPathCompiledEval` + `nodeNr` + `xmlXPathFreeObject`/`xmlFreeDoc`",
    "libxml2-reuse": "as libxml2, parsing with `xmlCtxtReadMemory` on one reused context (`XML_PARSE_COMPACT`)",
    "lxml": "`etree.XPath` once; `etree.fromstring` + call + `len`",
}
XEVAL_PEERS = ["vtdx", "vtdx-reuse", "vtdx-cold", "simdxml", "pugixml", "pugixml-ws", "libxml2", "libxml2-reuse", "lxml"]
C14N_PEERS = ["vtdx", "vtdx-reuse", "vtdx-cold", "libxml2", "libxml2-reuse", "vtdx-py", "lxml"]
C14N_CASES = {"parse": "parse only", "c14n": "C14N 1.0", "exc": "Exclusive C14N", "exc-body": "Exclusive C14N of soap:Body"}
C14N_WHAT = {
    "vtdx": "`vtdx::c14n::Canonicalizer` straight from the index (for the Body, the `Body` child of the `Envelope` "
            "root, found by navigation), into a fresh `Vec<u8>` each time (`document_to_vec`/`subtree_to_vec`); from "
            "bytes with `Document::parse` (the per-thread parser, warm)",
    "vtdx-reuse": "as vtdx, appending to one reused `Vec<u8>` (`append_document`/`append_subtree`); from bytes with a reused "
                  "`Parser` (`parse` + `recycle`)",
    "vtdx-cold": "from bytes as vtdx with a new `Parser` per document; from a tree it is vtdx (the document is parsed "
                 "before the timing starts), so those cells are blank",
    "libxml2": "libxml2's C14N module, the code behind `xmllint --c14n`/`--exc-c14n`, with xmllint's parse options for them "
               "(`XML_PARSE_NOENT | XML_PARSE_DTDATTR | XML_PARSE_DTDLOAD`, plus `XML_PARSE_NONET`) but without comments: "
               "`xmlC14NDocSaveTo` (no node-set) for the whole document; for the Body `xmlC14NExecute` with an is-visible "
               "callback accepting the nodes whose ancestor-or-self is the Body (the node-set of a same-document "
               "reference, as xmlsec builds it; libxml2 still walks the whole tree); into an `xmlAllocOutputBuffer` "
               "memory buffer; from bytes `xmlReadMemory` + canonicalize + `xmlFreeDoc`",
    "libxml2-reuse": "as libxml2, parsing with one reused parser context (`xmlCtxtReadMemory`, `XML_PARSE_COMPACT` added); "
                     "for the Body lxml's method, done in C: a temporary document whose root element is a shallow copy of "
                     "the Body (`xmlDocCopyNode`) with the namespace declarations in scope and the Body's children lent to "
                     "it, canonicalized whole with `xmlC14NDocSaveTo` (no node-set, no callback; only the Body's subtree "
                     "is walked)",
    "vtdx-py": "the `vtdx` wheel from Python (the same interpreter and loop as lxml): `vtdx.canonicalize(tree or "
               "element, exclusive=…, with_comments=False)` of `vtdx.fromstring(…)`, the Body by `root.find(…Body)`",
    "lxml": "`etree.tostring(tree, method='c14n', exclusive=…, with_comments=False)` (libxml2's C14N underneath); for "
            "the Body `etree.tostring(body, method='c14n', exclusive=True, with_comments=False)` of `root.find(…Body)`; "
            "from bytes `etree.fromstring` first (entities resolved, DTD attributes defaulted)",
}
DSIG_DOCS_ORDER = ["generated/soap_wss_2k.xml", "soap/plain-soap-1.1.xml", "generated/soap_big.xml"]
DSIG_PEERS = ["vtdx", "vtdx-cli", "santuario", "python-xmlsec", "signxml", "xmlsec1"]
DSIG_OTHERS = ["santuario", "python-xmlsec", "signxml", "xmlsec1"]
# the ÷ columns: an in-process peer's time over vtdx's in process; xmlsec1's (a whole process) over the vtdx binary's
DSIG_REF = {"santuario": "vtdx", "python-xmlsec": "vtdx", "signxml": "vtdx", "xmlsec1": "vtdx-cli"}
DSIG_LANG = {"vtdx": "Rust", "vtdx-cli": "whole process", "santuario": "Java", "python-xmlsec": "Python",
             "signxml": "Python", "xmlsec1": "whole process"}
DSIG_WHAT = {
    "vtdx": "`vtdx-dsig` in process (`bench/src/bin/dsig_peers.rs`): sign = `Document::parse` + `Signer::sign_wss` "
            "(the Editor inserts the Security header's Timestamp, BinarySecurityToken and Signature; the digests stream "
            "Exclusive C14N into SHA-256; the output is the input with the new markup spliced in); verify = "
            "`Document::parse` + `Verifier::verify` with the caller's certificate (SOAP rules, Timestamp freshness, every "
            "Signature, the References' coverage) + `covers_payload` and `timestamp_signed`",
    "vtdx-cli": "the `vtdx` binary, whole process (start-up, key and certificate read, file read, the job, output to "
                "`/dev/null`): `vtdx sign --key --cert --wss FILE` and `vtdx verify --cert --at TIME FILE`",
    "santuario": "Apache Santuario (`XMLSignature`) on a namespace-aware DOM in one JVM, the JIT warmed for three times "
                 "the other workloads' time (every document in turn, 100 ms at a time), as WSS4J uses it: sign = "
                 "parse + Timestamp, BinarySecurityToken, `XMLSignature` with two `addDocument` (wsu:Id set as ID "
                 "attributes) + a SecurityTokenReference KeyInfo + `sign` + `LSSerializer`; verify = parse + ID attributes "
                 "of the Body and Timestamp found by position + `checkSignatureValue(cert)` (secure validation)",
    "python-xmlsec": "python-xmlsec (libxmlsec1 with OpenSSL, on lxml built against the same libxml2), as zeep's "
                     "WS-Security plugin uses it: sign = `etree.fromstring` + Timestamp and token elements + "
                     "`xmlsec.template.create`/`add_reference`/`ensure_key_info` + `register_id` + `SignatureContext.sign` "
                     "+ `etree.tostring`; verify = parse + `register_id` of the Body and Timestamp found by position + "
                     "`SignatureContext.verify` with the certificate as key",
    "signxml": "signxml: sign = `etree.fromstring` + Timestamp and token elements + `XMLSigner(method=detached).sign("
               "reference_uri=[Body, Timestamp], key_info=STR)` + the Signature appended to the Security header + "
               "`etree.tostring`; verify = `XMLVerifier().verify(x509_cert=…, expect_config=2 references)`",
    "xmlsec1": "the `xmlsec1` command (Debian), whole process: `xmlsec1 --sign --privkey-pem KEY,CERT --id-attr:Id …` of a "
               "template (vtdx's signed message with its DigestValues and SignatureValue emptied: the WS-Security markup "
               "is the caller's job with xmlsec) and `xmlsec1 --verify --pubkey-cert-pem CERT --id-attr:Id …`",
}
PY_PEERS = ["vtdx-py", "lxml", "etree", "simdxml-py"]
PY_NAMES = {"vtdx-py": "vtdx", "lxml": "lxml", "etree": "ElementTree", "simdxml-py": "simdxml"}
PY_WHAT = {
    "vtdx-py": "the `vtdx` wheel (PyO3): `vtdx.fromstring`; `vtdx.XPath(expr)` called on a `vtdx.parse` document; "
               "`vtdx.tostring` (the bytes it parsed); `vtdx.canonicalize(doc, with_comments=True)`",
    "lxml": "`etree.fromstring` (entities resolved, `huge_tree`); `etree.XPath(expr)`; `etree.tostring`; "
            "`etree.tostring(tree, method='c14n')`",
    "etree": "`xml.etree.ElementTree.fromstring` and `tostring` (the standard library's, on Expat); no XPath 1.0, and "
             "C14N 2.0 only",
    "simdxml-py": "the `simdxml` wheel from PyPI: `simdxml.parse`; `doc.xpath(expr)`; `root.tostring()`; `root.c14n()`",
}
SEED_DOCS = ["generated/po_small.xml", "generated/po_medium.xml", "generated/po_big.xml", "generated/po_16mb.xml",
             "generated/soap_wss_2k.xml", "generated/soap_big.xml"]
XPATH_DOCS = ["generated/po_small.xml", "generated/po_medium.xml", "generated/po_big.xml"]
HEADLINE_DOCS = ["generated/po_big.xml", "generated/po_16mb.xml"]
CLI_DOCS_ORDER = ["generated/po_big.xml", "generated/po_16mb.xml"]
XPATH_EXPRS = ["/*/*/*[position() mod 2 = 0]", "/purchaseOrder/items/item[USPrice<100]", "/*/*/*/quantity/text()",
               "//item/comment", "//item/comment/../quantity"]
JVM = {"vtd-xml", "vtd-xml-reuse", "xerces-deferred", "xerces-full"}
COLORS = {"vtdx": "#d62728", "vtdx-reuse": "#ff9896", "vtdx-cold": "#e377c2", "libxml2-reuse": "#bcbd22", "vtdx-py": "#f7b6d2", "simdxml": "#8c564b", "pugixml": "#1f77b4", "pugixml-ws": "#aec7e8",
          "quick-xml": "#9467bd", "roxmltree": "#c5b0d5", "expat": "#7f7f7f", "libxml2": "#2ca02c", "lxml": "#98df8a",
          "vtd-xml": "#ff7f0e", "vtd-xml-reuse": "#ffbb78", "xerces-deferred": "#17becf", "xerces-full": "#9edae5"}


def fmt_secs(s):
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def short(doc):
    return doc.rsplit("/", 1)[-1].replace(".xml", "")


def ms(ns):
    if ns is None:
        return ""
    v = ns / 1e6
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    if v >= 0.01:
        return f"{v:.3f}"
    return f"{v:.4f}"


def mbps(x):
    if x is None:
        return ""
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def ratio(peer_ns, vtdx_ns):
    if peer_ns is None or vtdx_ns is None:
        return ""
    r = peer_ns / vtdx_ns
    s = f"{r:.2f}" if r < 10 else f"{r:.1f}" if r < 100 else f"{r:.0f}"
    return f"**{s}**" if r < 1 else s


def nbytes(n):
    return f"{n:,}"


class Blanks:
    """Footnote letters for blank cells: one letter per distinct reason."""

    def __init__(self, quick=False):
        self.reasons = {}
        self.quick = quick

    def cell(self, r, peer=None):
        if r:
            reason = r.get("reason", "?")
        elif self.quick and peer in JVM:
            reason = "not run: the quick run's JVM smoke test covers po_small only (parse, reserialize, XPath)"
        else:
            reason = "not run"
        reason = " ".join(reason.split())
        if len(reason) > 160:
            reason = reason[:157] + "…"
        if r and r.get("status") == "rejected":
            reason = "rejected the document: " + reason
        if reason not in self.reasons:
            self.reasons[reason] = string.ascii_lowercase[len(self.reasons) % 26] * (1 + len(self.reasons) // 26)
        return f"— [{self.reasons[reason]}]"

    def legend(self):
        if not self.reasons:
            return ""
        return "\n" + "\n".join(f"- [{k}] {reason}" for reason, k in self.reasons.items()) + "\n"


def load_plugins():
    """The workloads of bench/workloads/*.py, as the driver loads them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from driver import PLUGINS
    return PLUGINS


def load(mode):
    mdir = OUT / mode
    meta = json.loads((mdir / "meta.json").read_text())
    res = {}
    for f in sorted((mdir / "results").glob("*.jsonl")):
        res[f.stem] = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
    return meta, res


def index(rows):
    return {(r["peer"], r.get("doc"), r.get("expr")): r for r in rows}


def best_of(I, peers, *rest):
    """(peer, line) of the fastest ok cell among `peers` under the key (peer, *rest), or (None, None)."""
    cells = [(p, I.get((p, *rest))) for p in peers]
    cells = [(p, r) for p, r in cells if ok(r)]
    return min(cells, key=lambda c: c[1]["median_ns"]) if cells else (None, None)


def rounds_mark(r, mixed):
    """`¹` after a cell measured in a single round, in a table where other cells are medians of rounds."""
    return "¹" if mixed and ok(r) and r.get("rounds", 1) == 1 else ""


def rounds_of(rows):
    """The most rounds any ok cell of `rows` was measured in (1: every cell is from one round)."""
    return max((r.get("rounds", 1) for r in rows if ok(r)), default=1)


def rounds_legend(n):
    return (f"\n¹ from a single round; the other cells are each the median of {n} interleaved rounds "
            "(`round_medians_ns` in the JSON).\n")


def peers_ahead(I, label, skip=lambda *key: False):
    """The cells of an index (keys `(peer, *rest)`) where a peer is faster than the faster of
    the warm vtdx variants (vtdx and vtdx-reuse): {peer: ["<label(*rest)> <ratio>×", ...]}, in the index's order."""
    ahead = {}
    for (p, *rest), r in I.items():
        if p.startswith("vtdx") or not ok(r) or skip(*rest):
            continue
        best = [x["median_ns"] for x in (I.get((v, *rest)) for v in VTDX_WARM) if ok(x)]
        if best and r["median_ns"] < min(best):
            ahead.setdefault(p, []).append(f"{label(*rest)} {min(best) / r['median_ns']:.2f}×")
    return ahead


def peers_in(rows):
    ps = {r["peer"] for r in rows}
    return [p for p in ORDER if p in ps] + sorted(ps - set(ORDER))


def md_table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def ok(r):
    return r is not None and r.get("status") == "ok"


PY_CASES = ["parse"] + [f"{p}xpath{i}" for i in range(1, 6) for p in ("", "parse+")] + ["tostring", "c14n"]
PY_COLORS = {"vtdx-py": "#d62728", "lxml": "#98df8a", "etree": "#7f7f7f", "simdxml-py": "#8c564b"}


def C14N_DOCS_ORDER(d):
    return ["generated/soap_wss_2k.xml", "generated/po_big.xml", "generated/soap_big.xml", "generated/po_16mb.xml"].index(d) \
        if d in ("generated/soap_wss_2k.xml", "generated/po_big.xml", "generated/soap_big.xml", "generated/po_16mb.xml") else 99


def c14n_index(rows):
    """(peer, doc, case, from) -> line; a peer's skip line (no case) under (peer, doc, None, None)."""
    return {(r["peer"], r.get("doc"), r.get("case"), r.get("from")): r for r in rows}


def c14n_targets(C):
    """The issue's C14N targets per SOAP document, in two pairings: **native** (vtdx in Rust against libxml2 in C,
    the faster of its two variants cell by cell) and **Python** (vtdx-py against lxml, both called from Python).
    Per vtdx variant (warm: vtdx, vtdx-reuse; cold: vtdx-cold, whose tree cell is vtdx's): Exclusive C14N of the
    Body from a parsed tree at >= 50% of the same variant's parse throughput, and >= 10x the pairing's peer from
    a tree; from bytes (parse + canonicalize) for reference."""
    out = []
    docs = sorted({k[1] for k, r in C.items() if k[2] == "exc-body" and ok(r)}, key=C14N_DOCS_ORDER)
    for d in docs:
        peer_of = {"native": VARIANTS["libxml2"], "Python": VARIANTS["lxml"]}
        for p, pairing, path in (("vtdx", "native", "warm"), ("vtdx-reuse", "native", "warm"), ("vtdx-cold", "native", "cold"),
                                 ("vtdx-py", "Python", "warm")):
            r = C.get(("vtdx" if p == "vtdx-cold" else p, d, "exc-body", "tree"))
            parse, vb = C.get((p, d, "parse", "bytes")), C.get((p, d, "exc-body", "bytes"))
            if not ok(r) or not ok(parse):
                continue
            pt, lt = best_of(C, peer_of[pairing], d, "exc-body", "tree")
            pb, lb = best_of(C, peer_of[pairing], d, "exc-body", "bytes")
            t = {"doc": d, "peer": p, "pairing": pairing, "path": path, "parse": parse["mbps"], "body": r["mbps"],
                 "share": r["mbps"] / parse["mbps"], "other": pt, "other_mbps": lt["mbps"] if lt else None,
                 "x_tree": lt["median_ns"] / r["median_ns"] if lt else None,
                 "x_bytes": lb["median_ns"] / vb["median_ns"] if lb and ok(vb) else None, "other_bytes": pb,
                 "rounds": min(x.get("rounds", 1) for x in (r, parse, lt) if x)}
            t["met"] = t["share"] >= 0.5 and (t["x_tree"] or 0) >= 10
            miss = []
            if t["share"] < 0.5:
                miss.append(f"Exclusive C14N of the Body at {mbps(t['body'])} MB/s is {100 * t['share']:.0f}% of {p}'s parse "
                            f"({mbps(t['parse'])} MB/s), target 50%")
            if t["x_tree"] is not None and t["x_tree"] < 10:
                miss.append(f"{t['x_tree']:.1f}× {pt} from a tree ({pairing} pairing), target 10×")
            t["text"] = "; ".join(miss)
            out.append(t)
    return out


def xeval_targets(E):
    """The issue's target per expression on po_big: parse + evaluate faster than simdxml and pugixml, and
    >= 10x lxml, each peer by its strongest variant; stated for vtdx warm (the faster of vtdx and
    vtdx-reuse) and cold (vtdx-cold) separately."""
    out = []
    d = "generated/po_big.xml"
    for e in range(1, 6):
        for path, vs in (("warm", VTDX_WARM), ("cold", VTDX_COLD)):
            vp, v = best_of(E, vs, d, e)
            if v is None:
                continue
            fast = {}
            for peer in ("simdxml", "pugixml", "lxml"):
                pp, r = best_of(E, VARIANTS[peer], d, e)
                if r:
                    fast[peer] = (pp, r["median_ns"] / v["median_ns"])
            miss = [f"{x:.2f}× {pp}, target above 1×" for peer, (pp, x) in fast.items() if peer != "lxml" and x <= 1]
            if "lxml" in fast and fast["lxml"][1] < 10:
                miss.append(f"{fast['lxml'][1]:.1f}× lxml, target 10×")
            if "lxml" not in fast:
                miss.append("no lxml figure")
            out.append({"expr": e, "path": path, "vtdx": vp, "best": v["median_ns"], "x": fast, "met": not miss,
                        "text": "; ".join(miss)})
    return out


def cli_targets(K):
    """The issue's targets on po_16mb: whole-process `vtdx check` >= 12x `xmllint --noout`, and `vtdx query
    --count` >= 12x `xmllint --xpath 'count(EXPR)'` for each seed expression."""
    out = []
    d = "generated/po_16mb.xml"
    for c, e in [("check", None)] + [("count", i) for i in range(1, 6)]:
        v, x = K.get(("vtdx-cli", d, c, e)), K.get(("xmllint", d, c, e))
        if ok(v) and ok(x):
            r = x["median_ns"] / v["median_ns"]
            out.append({"case": c, "expr": e, "v": v, "x": x, "ratio": r, "met": r >= 12})
    return out


def cli_index(rows):
    """(peer, doc, case, expr) -> line of the cli workload."""
    return {(r["peer"], r.get("doc"), r.get("case"), r.get("expr")): r for r in rows}


def py_index(rows):
    return {(r["peer"], r.get("doc"), r.get("case")): r for r in rows if r.get("case")}


def py_targets(Y):
    """The issue's targets from Python: parse >= 5x lxml (every document), XPath on po_big >= 5x lxml
    end to end (bytes in, the result's Python objects out: parse+xpathN). The XPath call alone on a
    parsed document is listed beside them for reference (`target` False), not judged."""
    out = []
    docs = sorted({k[1] for k in Y})
    cases = [("parse", d) for d in docs] + [(c, "generated/po_big.xml") for c in PY_CASES if "xpath" in c]
    for c, d in cases:
        v, l = Y.get(("vtdx-py", d, c)), Y.get(("lxml", d, c))
        if ok(v) and ok(l):
            x = l["median_ns"] / v["median_ns"]
            target = c == "parse" or c.startswith("parse+")
            out.append({"what": c, "doc": d, "v": v["median_ns"], "l": l["median_ns"], "x": x, "met": x >= 5 or not target,
                        "target": target,
                        "text": f"vtdx {ms(v['median_ns'])} ms, lxml {ms(l['median_ns'])} ms: {x:.1f}× lxml, target 5×"})
    return out


def dsig_index(rows):
    """(peer, doc, case) -> line of the dsig workload."""
    return {(r["peer"], r.get("doc"), r.get("case")): r for r in rows}


def dsig_floor(D, lib, d, case):
    """The crypto floor of `case` (sign or verify) on document d with `lib` (aws-lc or openssl): one RSA-2048 operation
    on the SignedInfo + SHA-256 of the bytes the References cover, in ns; None when a part is missing."""
    a, h = D.get((lib, d, "rsa-" + case)), D.get((lib, d, "sha256"))
    return a["median_ns"] + h["median_ns"] if ok(a) and ok(h) else None


def dsig_targets(D):
    """The issue's targets per (case, document): vtdx (in process) at >= 50% (verify) / 85% (sign, 2 KB and 111 KB)
    of the aws-lc floor, and verify >= 3x (2 KB) / 10x (111 KB, 2.7 MB), sign >= 10x (2.7 MB) the fastest peer."""
    pct = {"verify": {d: 0.5 for d in DSIG_DOCS_ORDER},
           "sign": {"generated/soap_wss_2k.xml": 0.85, "soap/plain-soap-1.1.xml": 0.85}}
    times = {"verify": {"generated/soap_wss_2k.xml": 3, "soap/plain-soap-1.1.xml": 10, "generated/soap_big.xml": 10},
             "sign": {"generated/soap_big.xml": 10}}
    out = []
    for case in ("sign", "verify"):
        for d in DSIG_DOCS_ORDER:
            v = D.get(("vtdx", d, case))
            if not ok(v):
                continue
            fl = dsig_floor(D, "aws-lc", d, case)
            # the fastest in-process peer (xmlsec1, a whole process, only when none of them has a figure)
            bp, b = best_of(D, ["santuario", "python-xmlsec", "signxml"], d, case)
            if b is None:
                bp, b = best_of(D, ["xmlsec1"], d, case)
                bp = bp and f"{bp} (whole process)"
            t = {"case": case, "doc": d, "v": v, "floor": fl, "share": fl / v["median_ns"] if fl else None, "best": bp,
                 "x": b["median_ns"] / v["median_ns"] if b else None, "want_share": pct[case].get(d), "want_x": times[case].get(d)}
            t["share_met"] = None if t["want_share"] is None or t["share"] is None else t["share"] >= t["want_share"]
            t["x_met"] = None if t["want_x"] is None or t["x"] is None else t["x"] >= t["want_x"]
            out.append(t)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="full", choices=["full", "quick"])
    a = ap.parse_args()
    meta, res = load(a.mode)
    quick = a.mode == "quick"
    mach = meta.get("machine", {})
    ghz = mach.get("nominal_ghz") or None
    per_ghz = (lambda x: x / ghz) if ghz else (lambda x: None)
    versions = meta.get("versions", {})
    md = []
    w = md.append
    charts = []

    w("# vtdx benchmarks\n")
    if quick:
        w("> **Quick run** (`bench/run --quick`): a smoke test of the harness with short measurements on three documents, "
          "each cell from a single round (a full run measures its headline and target cells in interleaved rounds). "
          "These figures are not for quoting; the full run writes the repository's `BENCHMARKS.md`.\n")
    fin = sorted(x.get("finished", "") for x in meta.get("workloads", {}).values() if x.get("finished"))
    when = meta.get('date', '?')
    if fin and fin[0][:15] != fin[-1][:15]:  # workloads more than ~10 minutes apart
        when = f"{meta.get('date', '?')} (its workloads finished between {fin[0]} and {fin[-1]}; `bench/run --only` reruns single workloads)"
    w(f"Side-by-side figures for vtdx and its peers, produced by `bench/run` on {when} "
      f"({'quick' if quick else 'full'} run, {fmt_secs(sum(x.get('seconds', 0) for x in meta.get('workloads', {}).values()))} of measuring). Every number in the README and in "
      "closing notes comes from this harness; rerun it with `bench/run` (see [Method](#method)). All peers ran on the same "
      "machine, one process at a time, on documents loaded into memory first; ratios compare figures from the same run.\n")
    loads = [x.get("load_before", 0) for x in meta.get("workloads", {}).values()] + [x.get("load_after", 0) for x in meta.get("workloads", {}).values()]
    if loads and max(loads) >= 1.0:
        w(f"> **Noise warning:** other work shared this 2-core machine during the run (1-minute load average up to "
          f"{max(loads):.1f}, see [Method](#method)); expect differences of tens of percent between runs, and trust ratios "
          "of several times more than small ones.\n")
    w(f"Machine: **{mach.get('cpu_model', '?')}** ({mach.get('family_model', '')}), {mach.get('cores', '?')} cores, "
      f"nominal clock {ghz or '?'} GHz, {mach.get('mem_gb', '?')} GB, {mach.get('os', '')}. "
      "Details in [Machine](#machine) and [Versions](#versions).\n")
    w("How to read the tables: latencies are medians in milliseconds; MB/s means 10^6 bytes of input per second; "
      "MB/s/GHz divides by the nominal clock (XML Screamer's normalization). **÷vtdx** is the peer's latency divided by "
      "vtdx's on the same document in the same run: 4.00 means vtdx takes a quarter of the time; a **bold** value below 1 "
      "means the peer is faster and vtdx is behind. A dash marks a blank cell; its letter gives the reason below the table.\n")
    w("Which vtdx: the row **vtdx** is `Document::parse`, the default per-thread parser, **warm** (each thread keeps one "
      "parser whose name tables and scratch state carry over from document to document); **vtdx-reuse** is an explicit "
      "`Parser` reused with `recycle` (warm, and the tape's memory reused too); **vtdx-cold** is a new "
      "`vtdx_core::Parser::new()` for every document (what a caller who keeps nothing gets: a new parser adopts the name "
      "tables the last parser dropped on the thread left). ÷vtdx is always "
      "against the **vtdx** row. libxml2 gets the same courtesy: **libxml2** parses each document with a new context "
      "(`xmlReadMemory`), **libxml2-reuse** with one reused context and `XML_PARSE_COMPACT`, as lxml does. A target is "
      "judged against the strongest variant of each peer, and stated for vtdx warm and cold separately.\n")

    parse = res.get("parse", [])
    rt = res.get("roundtrip", [])
    P = index(parse)
    R = index(rt)

    # ------------------------------------------------------------ headline
    w("## Headline: parse throughput on the big purchase orders\n")
    head_docs = [d for d in ["generated/po_big.xml", "generated/po_16mb.xml"] if any(k[1] == d for k in P)]
    if head_docs:
        b = Blanks(quick)
        rows = []
        nr = rounds_of([r for r in parse if r.get("doc") in head_docs])
        for p in peers_in(parse):
            row = [f"{p} ({LANG.get(p, '')})"]
            for d in head_docs:
                r, v = P.get((p, d, None)), P.get(("vtdx", d, None))
                if ok(r):
                    row += [mbps(r["mbps"]) + rounds_mark(r, nr > 1), mbps(per_ghz(r["mbps"])),
                            ratio(r["median_ns"], v["median_ns"] if ok(v) else None)]
                else:
                    row += [b.cell(r, p), "", ""]
            rows.append(row)
        hdr = ["peer"]
        for d in head_docs:
            sz = next((r["bytes"] for r in parse if r.get("doc") == d and ok(r)), 0)
            hdr += [f"{short(d)} ({sz / 1e6:.2f} MB) MB/s", "MB/s/GHz", "÷vtdx"]
        w(md_table(hdr, rows))
        w(b.legend())
        if nr > 1:
            w(f"\nThe native peers' cells here (and the many-messages table) are the median of {nr} interleaved rounds "
              "(every native program measured once per round, one after the other), so that one slow phase of the shared "
              "machine does not decide a ratio; the JVM peers' cells (marked ¹) come from one round. Each round's median "
              "is in the JSON results (`round_medians_ns`).\n")
        cold_warm = []
        for d in head_docs:
            c, v = P.get(("vtdx-cold", d, None)), P.get(("vtdx", d, None))
            if ok(c) and ok(v):
                cold_warm.append(f"{short(d)} {c['median_ns'] / v['median_ns']:.2f}×")
        if cold_warm:
            w("\nCold against warm (vtdx-cold's latency ÷ vtdx's): " + ", ".join(cold_warm) + "; on small documents "
              "the difference is larger (see [Many small messages](#many-small-messages)).\n")
    else:
        w("(not measured in this run)\n")

    # ------------------------------------------------------------ where vtdx is behind
    w("\n## Where vtdx is behind\n")
    behind = []
    for name, rows_, idx in [("parse", parse, P), ("parse + reserialize", rt, R)]:
        docs = sorted({r["doc"] for r in rows_ if r.get("doc")})
        for p in peers_in(rows_):
            if p.startswith("vtdx"):
                continue
            wins = []
            for d in docs:
                r = idx.get((p, d, None))
                best = [idx.get((v, d, None)) for v in VTDX_WARM]
                best = [x["median_ns"] for x in best if ok(x)]
                if ok(r) and best and r["median_ns"] < min(best):
                    wins.append((d, min(best) / r["median_ns"]))
            if wins:
                wins.sort(key=lambda x: -x[1])
                ex = ", ".join(f"{short(d)} {f:.2f}×" for d, f in wins[:4])
                behind.append(f"- **{name}: {p}** is faster than both warm vtdx variants on {len(wins)} of {len(docs)} documents "
                              f"(by up to: {ex}).")
    many = res.get("many", [])
    M = {r["peer"]: r for r in many if ok(r)}
    if "vtdx" in M:
        best = max(M[v]["msgs_per_s"] for v in VTDX_WARM if v in M)
        cold = M.get("vtdx-cold", {}).get("msgs_per_s")
        for p, r in M.items():
            if not p.startswith("vtdx") and r["msgs_per_s"] > best:
                behind.append(f"- **many small messages: {p}** parses {r['msgs_per_s']:,.0f} messages/s, vtdx warm at best {best:,.0f}.")
        if cold:
            faster = [p for p, r in M.items() if not p.startswith("vtdx") and r["msgs_per_s"] > cold]
            if faster:
                behind.append(f"- **many small messages, cold:** vtdx-cold parses {cold:,.0f} messages/s; faster: "
                              + ", ".join(f"{p} ({M[p]['msgs_per_s']:,.0f})" for p in faster) + ".")
    mem = res.get("memory", [])
    mem_ok = [r for r in mem if ok(r)]
    for d in sorted({r["doc"] for r in mem_ok}):
        v = next((r for r in mem_ok if r["peer"] == "vtdx" and r["doc"] == d), None)
        if not v:
            continue
        less = [r["peer"] for r in mem_ok if r["doc"] == d and r["peer"] not in ("vtdx", "quick-xml", "expat")
                and r["delta_bytes"] < v["delta_bytes"] and "measure" not in r]
        if less:
            behind.append(f"- **memory on {short(d)}:** {', '.join(less)} grew the process by less than vtdx "
                          f"({v['delta_bytes'] / v['bytes']:.2f} bytes per document byte).")
    xbehind = peers_ahead(index([r for r in res.get("xpath", []) if ok(r)]), lambda d, e: f"Table {e + 1} on {short(d)}")
    for p, cells in xbehind.items():
        behind.append(f"- **Tables 2-6: {p}** is faster than both warm vtdx variants in {len(cells)} cells (by: {', '.join(cells)}).")
    E = index(res.get("xpath-eval", []))
    for p, cells in peers_ahead(E, lambda d, e: f"expression {e} on {short(d)}").items():
        behind.append(f"- **Parse + XPath evaluate: {p}** is faster than both warm vtdx variants in {len(cells)} cells (by: {', '.join(cells)}).")
    for t in xeval_targets(E):
        if not t["met"]:
            behind.append(f"- **Parse + XPath evaluate target missed on po_big, expression {t['expr']}, vtdx {t['path']} "
                          f"({t['vtdx']}):** {t['text']}.")
    C = c14n_index(res.get("c14n", []))
    cbehind = peers_ahead(C, lambda d, case, frm: f"{short(d)} {case} from {frm}", skip=lambda d, case, frm: case == "parse")
    for p, cells in cbehind.items():
        behind.append(f"- **Canonical XML: {p}** is faster than both warm vtdx variants in {len(cells)} cells (by: {', '.join(cells)}).")
    for t in c14n_targets(C):
        if not t["met"]:
            behind.append(f"- **Canonical XML target missed on {short(t['doc'])} ({t['pairing']} pairing, {t['peer']}):** {t['text']}.")
    K = cli_index(res.get("cli", []))
    for t in cli_targets(K):
        if not t["met"]:
            what = "vtdx check" if t["case"] == "check" else f"vtdx query --count, expression {t['expr']}"
            behind.append(f"- **Command line target missed on po_16mb ({what}):** {t['ratio']:.1f}× xmllint, target 12×.")
    Y = py_index(res.get("python", []))
    pbehind = {}
    for (p, d, case), r in Y.items():
        v = Y.get(("vtdx-py", d, case))
        if p != "vtdx-py" and ok(r) and ok(v) and r["median_ns"] < v["median_ns"]:
            pbehind.setdefault(p, []).append(f"{case} on {short(d)} {v['median_ns'] / r['median_ns']:.2f}×")
    for p, cells in pbehind.items():
        behind.append(f"- **From Python: {PY_NAMES.get(p, p)}** is faster than vtdx in {len(cells)} cells (by: {', '.join(cells)}).")
    missed = [t for t in py_targets(Y) if not t["met"]]
    if missed:
        behind.append("- **From Python, target (5× lxml) missed:** " + ", ".join(
            f"{t['what']} on {short(t['doc'])} {t['x']:.1f}× ({ms(t['v'])} ms vs {ms(t['l'])} ms)" for t in missed) + ".")
    DS = dsig_index(res.get("dsig", []))
    for (p, d, case), r in DS.items():
        v = DS.get((DSIG_REF.get(p), d, case))
        if p in DSIG_REF and ok(r) and ok(v) and r["median_ns"] < v["median_ns"]:
            behind.append(f"- **XML Signature: {p}** {case}s {short(d)} faster than {DSIG_REF[p]} "
                          f"({r['msgs_per_s']:,.0f} and {v['msgs_per_s']:,.0f} messages/s).")
    for t in dsig_targets(DS):
        miss = []
        if t["share_met"] is False:
            miss.append(f"{100 * t['share']:.0f}% of the crypto floor, target {100 * t['want_share']:.0f}%")
        if t["x_met"] is False:
            miss.append(f"{t['x']:.2f}× {t['best']}, target {t['want_x']}×")
        if miss:
            behind.append(f"- **XML Signature target missed, {t['case']} {short(t['doc'])}:** " + "; ".join(miss) + ".")
    w("\n".join(behind) + "\n")

    # ------------------------------------------------------------ Table 1
    w("\n## Table 1: parse, and parse + reserialize\n")
    w("The seed's Table 1, side by side: each document is parsed from memory (left) and parsed then written back "
      "to a memory buffer (right). The seed's documents that are not public (form, book, blog, ORTCA, address) are "
      "replaced by the generated purchase orders and SOAP messages and by the whole shared benchmark corpus "
      "(`../shared/corpus/bench`, see its PROVENANCE.md). vtdx and VTD-XML write the input bytes back without "
      "reserializing; the DOM peers serialize their trees, so their output differs in bytes (declaration, quoting, "
      "whitespace) while keeping every element (checked).\n")
    for d in [d for d in SEED_DOCS if any(k[1] == d for k in P)]:
        b = Blanks(quick)
        sz = next((r["bytes"] for r in parse if r.get("doc") == d and ok(r)), 0)
        w(f"\n### {short(d)} ({nbytes(sz)} bytes)\n")
        v, vr = P.get(("vtdx", d, None)), R.get(("vtdx", d, None))
        rows = []
        nr = rounds_of([r for r in parse + rt if r.get("doc") == d])
        for p in peers_in(parse + rt):
            r1, r2 = P.get((p, d, None)), R.get((p, d, None))
            row = [p]
            row += [ms(r1["median_ns"]) + rounds_mark(r1, nr > 1), mbps(r1["mbps"]), mbps(per_ghz(r1["mbps"])), ratio(r1["median_ns"], v["median_ns"] if ok(v) else None)] if ok(r1) else [b.cell(r1, p), "", "", ""]
            if ok(r2):
                row += [ms(r2["median_ns"]) + rounds_mark(r2, nr > 1), mbps(r2["mbps"]), ratio(r2["median_ns"], vr["median_ns"] if ok(vr) else None),
                        nbytes(r2["out_bytes"]) + (" (identical)" if r2.get("identical") else "")]
            else:
                row += [b.cell(r2, p), "", "", ""]
            rows.append(row)
        w(md_table(["peer", "parse ms", "MB/s", "MB/s/GHz", "÷vtdx", "parse + reserialize ms", "MB/s", "÷vtdx", "output bytes"], rows))
        w(b.legend())
        if nr > 1:
            w(rounds_legend(nr))

    for title, rows_, idx in [("parse", parse, P), ("parse + reserialize", rt, R)]:
        docs = sorted({r["doc"] for r in rows_ if r.get("doc")}, key=lambda d: next(r["bytes"] for r in rows_ if r.get("doc") == d and "bytes" in r) if any(r.get("doc") == d and "bytes" in r for r in rows_) else 0)
        if not docs:
            continue
        ps = [p for p in peers_in(rows_) if any(ok(idx.get((p, d, None))) for d in docs)]
        skipped = [p for p in peers_in(rows_) if p not in ps]
        for kind in ("MB/s", "÷vtdx"):
            b = Blanks(quick)
            w(f"\n### All documents: {title}, {kind}\n")
            if kind == "÷vtdx":
                w("Peer latency divided by vtdx's (`Document::parse`, the per-thread parser, warm) on the same document; bold "
                  "below 1: the peer is faster.\n\n")
            nr = rounds_of(rows_)
            if kind == "MB/s" and not quick:
                w(f"The native peers' cells are each the median of {nr} interleaved rounds (every native program measured "
                  f"once per round over all documents, as in the headline); cells marked ¹ are from a single round.\n\n"
                  if nr > 1 else "Every cell is from a single round.\n\n")
            rows = []
            for d in docs:
                sz = next((r["bytes"] for r in rows_ if r.get("doc") == d and "bytes" in r), 0)
                row = [f"{d} ({sz / 1000:,.0f} kB)"]
                v = idx.get(("vtdx", d, None))
                for p in ps:
                    r = idx.get((p, d, None))
                    if not ok(r):
                        row.append(b.cell(r, p))
                    elif kind == "MB/s":
                        row.append(mbps(r["mbps"]) + rounds_mark(r, nr > 1))
                    else:
                        row.append(ratio(r["median_ns"], v["median_ns"] if ok(v) else None))
                rows.append(row)
            w(md_table(["document"] + ps, rows))
            w(b.legend())
            if skipped and kind == "MB/s":
                reasons = {p: next((r.get("reason") for r in rows_ if r["peer"] == p), "") for p in skipped}
                w("\nNot in this table: " + "; ".join(f"{p} ({reasons[p]})" for p in skipped) + ".\n")

    # ------------------------------------------------------------ Tables 2-6
    xp = res.get("xpath", [])
    X = index(xp)
    w("\n## Tables 2-6: parse + one precompiled XPath + remove the selected nodes + output\n")
    w("The seed's update benchmark: parse the purchase order from memory, evaluate one precompiled expression, remove "
      "every selected node, write the document to a memory buffer. **vtdx** parses with `Document::parse` (the per-thread "
      "parser, warm) and writes into a fresh buffer each time; **vtdx-reuse** keeps the parser's allocations and the output buffer between documents "
      "(the seed's buffer-reuse mode); both remove with the byte-range `Editor`, so the output is the input with the "
      "removed ranges cut out (`vtdx_xpath_edit` in `bench/src/bin/rust_peers.rs`). "
      "Every peer's output is re-parsed, and all peers must agree on how many nodes each expression selects and how many "
      "elements are left (checked on every run). **vtdx-cold** parses with a new `Parser` per document; **libxml2-reuse** "
      "with one reused parser context. Every cell of Tables 2-6 is from a **single round** (one measurement per cell, not "
      "the median of interleaved rounds).\n")
    xdocs = [d for d in XPATH_DOCS if any(k[1] == d for k in X)]
    for e, expr in enumerate(XPATH_EXPRS, 1):
        if not xdocs:
            break
        b = Blanks(quick)
        w(f"\n### Table {e + 1}: `{expr}`\n")
        sel = []
        for d in xdocs:
            s = {X[k]["selected"] for k in X if k[1] == d and k[2] == e and ok(X[k])}
            left = {X[k].get("out_elements") for k in X if k[1] == d and k[2] == e and ok(X[k])}
            sel.append(f"{short(d)}: {'/'.join(map(str, sorted(s)))} removed, {'/'.join(map(str, sorted(left)))} elements left")
        w("Selected by every peer: " + "; ".join(sel) + ".\n\n")
        rows = []
        for p in peers_in(xp):
            row = [p]
            for d in xdocs:
                r, v = X.get((p, d, e)), X.get(("vtdx", d, e))
                if ok(r):
                    row += [ms(r["median_ns"]), mbps(r["mbps"]), ratio(r["median_ns"], v["median_ns"] if ok(v) else None)]
                else:
                    row += [b.cell(r, p), "", ""]
            rows.append(row)
        hdr = ["peer"]
        for d in xdocs:
            hdr += [f"{short(d)} ms", "MB/s", "÷vtdx"]
        w(md_table(hdr, rows))
        w(b.legend())
    if xdocs:
        w("\nHow each peer does it: " + "; ".join(f"**{k}**: {v}" for k, v in XPATH_WHAT.items()) + ".\n")

    # ------------------------------------------------------------ parse + XPath evaluate
    xe = res.get("xpath-eval", [])
    w("\n## Parse + XPath evaluate\n")
    w("Parse the purchase order from memory, evaluate one precompiled expression of Tables 2-6 and count the selected "
      "nodes: no removal, no output (`xpath-eval`). Every peer with XPath must select as many nodes as every other, and "
      "as many as the xpath workload removed (checked on every run). No JVM peer runs this workload.\n")
    xnr = max((r.get("rounds", 1) for r in xe if ok(r)), default=1)
    if xnr > 1:
        w(f"Each cell is the median of {xnr} interleaved rounds of the native programs (`round_medians_ns` in the JSON).\n")
    xedocs = [d for d in XPATH_DOCS if any(r.get("doc") == d for r in xe)]
    for d in xedocs:
        b = Blanks(quick)
        sz = next((r["bytes"] for r in xe if r.get("doc") == d and ok(r)), 0)
        w(f"\n### {short(d)} ({nbytes(sz)} bytes)\n")
        sel = []
        for e in range(1, 6):
            s_ = {E[k]["selected"] for k in E if k[1] == d and k[2] == e and ok(E[k])}
            sel.append(f"{e}: {'/'.join(map(str, sorted(s_)))}")
        w("Selected by every peer, per expression: " + "; ".join(sel) + ".\n\n")
        rows = []
        for p in peers_in(xe):
            row = [p]
            for e in range(1, 6):
                r, v = E.get((p, d, e)), E.get(("vtdx", d, e))
                if ok(r):
                    row += [ms(r["median_ns"]), mbps(r["mbps"]), ratio(r["median_ns"], v["median_ns"] if ok(v) else None)]
                else:
                    row += [b.cell(r, p), "", ""]
            rows.append(row)
        hdr = ["peer"]
        for e in range(1, 6):
            hdr += [f"{e} ms", "MB/s", "÷vtdx"]
        w(md_table(hdr, rows))
        w(b.legend())
    if xedocs:
        w("\nExpressions: " + "; ".join(f"{i}. `{e}`" for i, e in enumerate(XPATH_EXPRS, 1)) + ".\n")
        targets = xeval_targets(E)
        if targets:
            w("\n**Target** (parse + evaluate on po_big for each seed expression: faster than simdxml and pugixml, and at "
              "least 10× lxml), each peer by its strongest variant (pugixml or pugixml-ws, cell by cell), stated for vtdx "
              "**warm** (the faster of vtdx and vtdx-reuse) and **cold** (vtdx-cold) separately; ✔ met, ✘ not met.\n\n")
            rows = []
            for t in targets:
                row = [str(t["expr"]), f"{t['path']} ({t['vtdx']})", ms(t["best"])]
                for peer in ("simdxml", "pugixml", "lxml"):
                    pp, x = t["x"].get(peer, (None, None))
                    row.append((f"{x:.1f}×" if x >= 10 else f"{x:.2f}×") + (f" ({pp})" if pp and pp != peer else "") if x is not None else "")
                row.append("✔" if t["met"] else "✘ " + t["text"])
                rows.append(row)
            w(md_table(["expression", "vtdx", "ms", "× simdxml (> 1)", "× pugixml (> 1)", "× lxml (≥ 10×)", "met"], rows,
                       ["l", "l", "r", "r", "r", "r", "l"]))
        elif not quick:
            w("\n**Target** (po_big): not measured in this run.\n")
        w("\nHow each peer does it: " + "; ".join(f"**{k}**: {v}" for k, v in XEVAL_WHAT.items()) + ".\n")
    else:
        w("(not measured in this run)\n")

    # ------------------------------------------------------------ many small messages
    w("\n## Many small messages\n")
    w(f"Throughput over {meta.get('messages', 10000):,} distinct SOAP messages with a WS-Security header (2,048 bytes each, "
      "generated deterministically from `soap_wss_2k.xml` by changing every id, timestamp, token, digest, signature value "
      "and text), each in a buffer of its own, parsed one after the other — XML Screamer's method, so the caches are not "
      "flattered by parsing one buffer again and again. One sample is one pass over all messages.\n\n")
    if many:
        b = Blanks(quick)
        v = M.get("vtdx")
        rows = []
        nr = rounds_of(many)
        for p in peers_in(many):
            r = next((x for x in many if x["peer"] == p), None)
            if ok(r):
                rows.append([p, f"{r['msgs_per_s']:,.0f}" + rounds_mark(r, nr > 1), f"{r['median_ns'] / r['messages'] / 1e3:.2f}",
                             mbps(r["mbps"]), mbps(per_ghz(r["mbps"])), ratio(r["median_ns"], v["median_ns"] if v else None)])
            else:
                rows.append([p, b.cell(r, p), "", "", "", ""])
        w(md_table(["peer", "messages/s", "µs per message", "MB/s", "MB/s/GHz", "÷vtdx"], rows))
        w(b.legend())
        if nr > 1:
            w(rounds_legend(nr))
        c, lr = M.get("vtdx-cold"), M.get("libxml2-reuse")
        if v and c:
            w(f"\nCold and warm: a new `Parser` per message (vtdx-cold) parses {c['msgs_per_s']:,.0f} messages/s, "
              f"the per-thread parser (vtdx) {v['msgs_per_s']:,.0f}: {c['median_ns'] / v['median_ns']:.2f}× the time per "
              "message: a new parser builds its scratch state and index for every message, and adopts the name tables "
              "the parser dropped before it left on the thread (`Parser::isolated`, which builds them too, costs 4.6× "
              "the per-thread parser's instructions on soap_wss_2k: docs/parsing.md).\n")

    # ------------------------------------------------------------ memory
    w("\n## Memory\n")
    w("Peak resident memory of one parse, the result kept alive: a fresh process per peer and document loads the document, "
      "notes its peak RSS (`VmHWM`), parses, and notes the peak again. The table gives the growth per byte of document "
      "(the document itself is not counted), and for vtdx also the index alone (`Document::index_bytes`). The JVM peers' "
      "RSS depends on the heap sizing, so for them the figure is the Java heap retained after a full GC instead "
      "(their RSS growth is in the JSON). The streaming parsers keep no document: quick-xml reads from the caller's "
      "slice, and Expat's figure is the copy of the input it makes in its own buffer.\n\n")
    if mem:
        b = Blanks(quick)
        mdocs = [d for d in meta.get("memory_docs", []) if any(r.get("doc") == d for r in mem)]
        rows = []
        mm = index(mem)
        for p in peers_in(mem):
            row = [p]
            for d in mdocs:
                r = mm.get((p, d, None))
                if ok(r):
                    row.append(f"{r['delta_bytes'] / r['bytes']:.2f} ({r['delta_bytes'] / 1e6:,.1f} MB)" + (" ‡" if "measure" in r else ""))
                else:
                    row.append(b.cell(r, p))
            rows.append(row)
        extra = [("vtdx: heap the kept `Document` holds (counted)", "held_heap_bytes"),
                 ("vtdx: heap at the peak of the parse (counted)", "parse_peak_heap_bytes"),
                 ("vtdx: heap a second, warm `Document::parse` adds (counted)", "held_heap_warm_bytes"),
                 ("vtdx: `index_bytes` (tape words in use + name tables)", "index_bytes")]
        for i, (label, key) in enumerate(extra):
            xrow = [label]
            for d in mdocs:
                r = mm.get(("vtdx", d, None))
                xrow.append(f"{r[key] / r['bytes']:.3f} ({r[key] / 1e6:,.1f} MB)" if ok(r) and r.get(key) else "")
            rows.insert(1 + i, xrow)
        hdr = ["peer"] + [f"{short(d)} ({next(r['bytes'] for r in mem if r.get('doc') == d and ok(r)) / 1e6:.1f} MB): bytes per doc byte" for d in mdocs]
        w(md_table(hdr, rows))
        w("\n‡ retained Java heap after GC.\n")
        w(b.legend())
        held = [(d, mm.get(("vtdx", d, None))) for d in mdocs]
        held = [(d, r) for d, r in held if ok(r) and r.get("held_heap_bytes")]
        if held:
            w("\n**Heap held by a parsed document** (the *counted* rows): `rust_peers` counts, with a global allocator "
              "wrapping the system's, the bytes requested and not yet freed (allocator headers and rounding not "
              "included; process RSS, above, also counts pages touched and not returned). The first parse in the process "
              "uses a new `Parser`, which is dropped afterwards: what stays is everything the `Document` owns — the tape (with whatever reserve it keeps), "
              "the name tables, the DTD. Held heap per document byte: "
              + ", ".join(f"{short(d)} {r['held_heap_bytes'] / r['bytes']:.3f} (of which `index_bytes` "
                          f"{r['index_bytes'] / r['bytes']:.3f}; tape words in use {r.get('tape_bytes', 0) / r['bytes']:.3f})"
                          for d, r in held)
              + ". ")
            slack = max(r["held_heap_bytes"] / r["index_bytes"] for d, r in held if r.get("index_bytes"))
            peak = max(r.get("parse_peak_heap_bytes", 0) / r["held_heap_bytes"] for d, r in held)
            if slack > 1.1:
                w("The difference between held heap and `index_bytes` is mostly the tape's reserve, allocated from the "
                  "input's size before parsing and not released when the document is kept.\n")
            else:
                w(f"Held heap is within {100 * (slack - 1):.0f}% of `index_bytes`: the tape's reserve, allocated from the "
                  f"input's size before parsing (the parse's peak is up to {peak:.2f}× the held heap), is released when the "
                  "document is kept.\n")

    ix = sorted((r for r in parse if r["peer"] == "vtdx" and ok(r) and r.get("index_bytes")), key=lambda r: r["bytes"])
    if ix:
        w("\nvtdx's index on every document (`Document::index_bytes`: the tape, the name table and its fixed 8 KiB "
          "lookup cache, which dominates on the smallest documents):\n\n")
        w(md_table(["document", "bytes", "index bytes", "index bytes per document byte"],
                   [[r["doc"], nbytes(r["bytes"]), nbytes(r["index_bytes"]), f"{r['index_bytes'] / r['bytes']:.3f}"] for r in ix]))

    # ------------------------------------------------------------ physical reference
    scan = res.get("scan", [])
    w("\n## The physical reference: memchr and memcpy\n")
    w("The seeds' character-scan loop, today: `memchr::memchr_iter(b'<')` counting every `<`, and `memcpy` of the "
      "document into a preallocated buffer, in MB/s, beside vtdx's parse. Small documents stay in cache, so these are "
      "upper bounds; XML Screamer measured 106 MB/s/GHz for its scan loop on a 3.2 GHz Xeon in 2006. *Sparse edit "
      "write*: the output pass of vtdx's `Editor` after removing 8 leaf elements spread evenly over the document "
      "(fewer in small documents; recorded once, outside the timed loop), `append_to` a cleared, reused buffer, in MB/s of input bytes, "
      "beside `memcpy` (the output is checked against the input with those ranges cut out).\n\n")
    if scan:
        S = index(scan)
        rows = []
        pct = []
        epct = []
        for d in sorted({r["doc"] for r in scan}, key=lambda d: S[("memchr", d, None)]["bytes"] if ("memchr", d, None) in S else 0):
            c, m = S.get(("memchr", d, None)), S.get(("memcpy", d, None))
            e = S.get(("vtdx-edit", d, None))
            v = P.get(("vtdx", d, None))
            row = [f"{d} ({c['bytes'] / 1000:,.0f} kB)" if ok(c) else d]
            row += [mbps(c["mbps"]) if ok(c) else "", mbps(per_ghz(c["mbps"])) if ok(c) else "", mbps(m["mbps"]) if ok(m) else ""]
            if ok(e) and ok(m):
                row += [f"{mbps(e['mbps'])} ({e.get('edits', 0)})", f"{100 * e['mbps'] / m['mbps']:.0f}%"]
                epct.append((c["bytes"], e["mbps"] / m["mbps"]))
            else:
                row += ["", ""]
            if ok(v) and ok(c):
                row += [mbps(v["mbps"]), f"{100 * v['mbps'] / c['mbps']:.1f}%"]
                pct.append(v["mbps"] / c["mbps"])
            else:
                row += ["", ""]
            rows.append(row)
        w(md_table(["document", "memchr `<` MB/s", "MB/s/GHz", "memcpy MB/s", "sparse edit write MB/s (edits)", "edit write ÷ memcpy",
                    "vtdx parse MB/s", "vtdx ÷ memchr"], rows))
        if pct:
            w(f"\nvtdx parses at {100 * min(pct):.1f}–{100 * max(pct):.1f}% (median {100 * statistics.median(pct):.1f}%) of the speed of a memchr scan for `<`.\n")
        big = [r for b, r in epct if b >= 100_000]
        if epct:
            w(f"\nThe Editor's output pass after a sparse edit runs at {100 * statistics.median(r for _, r in epct):.0f}% of `memcpy` "
              f"(median over the documents; {100 * statistics.median(big):.0f}% on those of 100 kB and more).\n" if big else
              f"\nThe Editor's output pass after a sparse edit runs at {100 * statistics.median(r for _, r in epct):.0f}% of `memcpy` (median).\n")

    # ------------------------------------------------------------ canonical XML
    c14n = res.get("c14n", [])
    w("\n## Canonical XML (c14n)\n")
    w("Canonical XML 1.0 without comments of the whole document, inclusive (`c14n`) and exclusive (`exc`), and for the "
      "SOAP messages Exclusive C14N of the `soap:Body` subtree (`exc-body`: the node-set of a WS-Security `#Body` "
      "reference), beside libxml2's C14N (what `xmllint --c14n`/`--exc-c14n` runs) and lxml's. *From a tree*: each peer "
      "parses the document once, outside the timed loop, and each operation canonicalizes its own parsed document into "
      "a memory buffer; *from bytes*: parse + canonicalize (+ free), and *parse only* for reference. MB/s are of input "
      "bytes: the whole document, except `exc-body` from a tree, which counts the Body element's bytes (start tag to end "
      "tag). Every peer's canonical output for each document and case, from a tree and from bytes, is byte-identical to "
      "every other peer's (length and CRC-32 compared on every run). The JVM peers have no Canonical XML of their own "
      "(Apache Santuario would be Java's; it is not among the peers).\n")
    if c14n:
        cdocs = sorted({k[1] for k in C}, key=lambda d: next((r["doc_bytes"] for r in c14n if r.get("doc") == d and r.get("doc_bytes")), 0))
        targets = c14n_targets(C)
        if targets:
            tr = sorted({t["rounds"] for t in targets})
            how = ("each the median of " + "/".join(map(str, tr)) + " interleaved rounds") if tr[-1] > 1 else "each from a single round"
            w("\n**Targets** (issue): Exclusive C14N of a SOAP Body at least 50% of the same vtdx's own parse throughput, and "
              "at least 10× the peer, judged in two pairings, each named in the table: **native** — vtdx in Rust against "
              "libxml2 in C (the C library under lxml; the faster of its two variants, `libxml2` with xmlsec's node-set "
              "callback and `libxml2-reuse` with lxml's fake-root method, per cell) — and **Python** — vtdx against lxml, "
              "both called from Python in the same kind of loop (vtdx-py, the wheel). The ≥ 10× target uses the pairing of "
              "the row; an earlier report compared vtdx in Rust with lxml from Python, which mixes the two and is not used. "
              f"Parse and C14N figures come from the same run of this workload, {how}; ✔ met, ✘ not met. Both targets are "
              "judged on the canonicalization of the parsed document (*from a tree*), where cold and warm vtdx are the same "
              "code (vtdx-cold's tree cell is vtdx's; only its parse differs); parse + canonicalize (*from bytes*) against "
              "the peer's is shown for reference: on a small message it is mostly the parse of the whole message.\n\n")
            rows = []
            for t in targets:
                rows.append([short(t["doc"]), t["pairing"], f"{t['peer']} ({t['path']})", mbps(t["parse"]), mbps(t["body"]),
                             f"{100 * t['share']:.0f}% {'✔' if t['share'] >= 0.5 else '✘'}",
                             f"{mbps(t['other_mbps'])} ({t['other']})" if t["other_mbps"] else "",
                             f"{t['x_tree']:.1f}× {'✔' if t['x_tree'] >= 10 else '✘'}" if t["x_tree"] else "",
                             f"{t['x_bytes']:.1f}× ({t['other_bytes']})" if t["x_bytes"] else ""])
            w(md_table(["document", "pairing", "vtdx", "parse MB/s", "exc-body from tree MB/s", "÷ parse (≥ 50%)",
                        "peer's exc-body from tree MB/s (variant)", "× peer from tree (≥ 10×)", "× peer from bytes (reference)"],
                       rows, ["l", "l", "l"] + ["r"] * 6))
        skipped = [p for p in peers_in(c14n) if p not in C14N_PEERS]
        # ratio columns: the native peers against vtdx; lxml against vtdx-py (the Python pairing)
        ref_of = {p: "vtdx" for p in C14N_PEERS if p not in ("vtdx", "vtdx-py")}
        ref_of["lxml"] = "vtdx-py"
        for frm, title in (("tree", "from a parsed tree"), ("bytes", "from bytes (parse + canonicalize)")):
            b = Blanks(quick)
            w(f"\n### Canonical XML {title}, MB/s\n")
            rows = []
            for d in cdocs:
                cases = [c for c in C14N_CASES if (c != "parse" or frm == "bytes") and any(k[1] == d and k[2] == c and k[3] == frm for k in C)]
                for c in cases:
                    ref = next((C[(p, d, c, frm)] for p in C14N_PEERS if ok(C.get((p, d, c, frm)))), None)
                    cells = [C.get((p, d, c, frm)) for p in C14N_PEERS]
                    row = [short(d), C14N_CASES[c], nbytes(ref["bytes"]) if ref else "", nbytes(ref["out_bytes"]) if ref and "out_bytes" in ref else "",
                           str(rounds_of(cells))]
                    for p in C14N_PEERS:
                        r = C.get((p, d, c, frm))
                        v = C.get((ref_of.get(p), d, c, frm))
                        if ok(r):
                            row.append(mbps(r["mbps"]))
                            if p in ref_of:
                                row.append(ratio(r["median_ns"], v["median_ns"] if ok(v) else None))
                        else:
                            # a program that did not run at all printed one skip line per document (no case)
                            row += [b.cell(r or C.get((p, d, None, None)), p)] + ([""] if p in ref_of else [])
                    rows.append(row)
            hdr = ["document", "case", "input bytes", "output bytes", "rounds"]
            for p in C14N_PEERS:
                hdr += [f"{p} MB/s"] + ([f"÷{ref_of[p]}"] if p in ref_of else [])
            w(md_table(hdr, rows, ["l", "l"] + ["r"] * (len(hdr) - 2)))
            w(b.legend())
        w("\n*rounds*: 1 means every cell of the row is from a single round; more, that each is the median of that many "
          "interleaved rounds. ÷vtdx compares a native peer with vtdx in Rust; ÷vtdx-py compares lxml with vtdx from Python "
          "(the Python pairing).\n")
        if skipped:
            reasons = {p: next((r.get("reason") for r in c14n if r["peer"] == p), "") for p in skipped}
            w("\nNot in these tables: " + "; ".join(f"{p} ({reasons[p]})" for p in skipped) + ".\n")
        w("\nHow each peer does it: " + "; ".join(f"**{k}**: {v}" for k, v in C14N_WHAT.items()) + ".\n")
    else:
        w("\n(not measured in this run)\n")

    # ------------------------------------------------------------ from Python
    pyres = res.get("python", [])
    w("\n## vtdx from Python\n")
    w("The `vtdx` Python package (the wheel `scripts/test.sh` builds into `target/py`) beside lxml, ElementTree and "
      "simdxml (PyPI), run by `bench/python/bench_py.py --harness` in that interpreter with the harness's loop. Every "
      "result is materialized as Python objects, as a script would use it: *parse* is bytes to a navigable tree; "
      "*xpathN* evaluates one of the five expressions of Tables 2-6, compiled once, on a parsed document and returns a "
      "Python list; *parse+xpathN* is both, end to end; *tostring* gives the document as bytes (vtdx returns the bytes "
      "it parsed; simdxml serializes its root element); *c14n* is Canonical XML 1.0 with comments of the whole document. "
      "vtdx and lxml must return the same number of results and the same canonical XML (checked on every run); a peer "
      "that disagrees with them is marked †. **÷vtdx** is the peer's time divided by vtdx's: lxml ÷vtdx 5.0 means vtdx "
      "from Python is 5× lxml.\n")
    pdocs = sorted({r["doc"] for r in pyres if r.get("doc")}, key=lambda d: next((r["bytes"] for r in pyres if r.get("doc") == d and "bytes" in r), 0))
    not_run = [r for r in pyres if r["peer"] == "vtdx-py" and r.get("case") is None]
    if not_run:
        b = Blanks(quick)
        w("\n" + md_table(["document"] + [PY_NAMES[p] for p in PY_PEERS],
                           [[short(d)] + [b.cell(next((r for r in pyres if r["peer"] == p and r.get("doc") == d), None), p) for p in PY_PEERS] for d in pdocs]))
        w(b.legend())
    elif pyres:
        targets = py_targets(Y)
        if targets:
            w("\n**Target** (issue): from Python, parse at least 5× lxml and XPath on po_big at least 5× lxml, end to end "
              "including object creation for the results: judged on *parse+xpathN* (bytes in, the result's Python objects out). "
              "✔ met, ✘ not met; the XPath call alone on an already parsed document (*xpathN*) is shown for reference.\n\n")
            w(md_table(["what", "document", "vtdx ms", "lxml ms", "× lxml (≥ 5×)"],
                       [[t["what"], short(t["doc"]), ms(t["v"]), ms(t["l"]),
                         f"{t['x']:.1f}× {('✔' if t['met'] else '✘') if t['target'] else '(reference)'}"] for t in targets],
                       ["l", "l", "r", "r", "r"]))
        marks = {}
        for d in pdocs:
            b = Blanks(quick)
            sz = next((r["bytes"] for r in pyres if r.get("doc") == d and "bytes" in r), 0)
            w(f"\n### From Python: {short(d)} ({nbytes(sz)} bytes)\n")
            rows = []
            cases = [c for c in PY_CASES if any(k[1] == d and k[2] == c for k in Y)]
            for c in cases:
                v = Y.get(("vtdx-py", d, c))
                n = next((Y[(p, d, c)].get("results") for p in ("vtdx-py", "lxml") if ok(Y.get((p, d, c))) and "results" in Y[(p, d, c)]), None)
                row = [c, "" if n is None else f"{n:,}"]
                for p in PY_PEERS:
                    r = Y.get((p, d, c))
                    if ok(r):
                        cell = ms(r["median_ns"])
                        if r.get("mismatch"):
                            cell += " †"
                            marks[f"{PY_NAMES[p]}, {c} on {short(d)}: {r['mismatch']}"] = None
                        row.append(cell)
                        if p != "vtdx-py":
                            row.append(ratio(r["median_ns"], v["median_ns"] if ok(v) else None))
                    else:
                        row += [b.cell(r, p)] + ([""] if p != "vtdx-py" else [])
                rows.append(row)
            hdr = ["case", "results"]
            for p in PY_PEERS:
                hdr += [f"{PY_NAMES[p]} ms"] + (["÷vtdx"] if p != "vtdx-py" else [])
            w(md_table(hdr, rows))
            w(b.legend())
        if marks:
            w("\n† " + "; ".join(marks) + ".\n")
        w("\nxpath1..5: " + "; ".join(f"{i}. `{e}`" for i, e in enumerate(XPATH_EXPRS, 1)) + ".\n")
        w("\nHow each peer does it: " + "; ".join(f"**{PY_NAMES[k]}**: {v}" for k, v in PY_WHAT.items()) + ".\n")
    else:
        w("\n(not measured in this run)\n")

    # ------------------------------------------------------------ command line
    cli = res.get("cli", [])
    w("\n## Command line: vtdx beside xmllint\n")
    rn = rounds_of(cli)
    rmin = min((r.get("rounds", 1) for r in cli if ok(r)), default=rn)
    binfo = meta.get("workloads", {}).get("cli", {}).get("vtdx_binary", {})
    w("Whole-process times (`cli`): the `vtdx` binary (`" + binfo.get("path", "target/release/vtdx") + "`"
      + (f", built {binfo['built']}" if binfo.get("built") else "") + ") beside `xmllint` (Debian's libxml2-utils): "
      "`vtdx check FILE` beside `xmllint --noout FILE`, and `vtdx query --count FILE EXPR` beside "
      "`xmllint --xpath 'count(EXPR)' FILE` for each of the five seed expressions of Tables 2-6. The driver starts each "
      "command with `posix_spawn` in its ordinary environment (not the peers' malloc settings), output to `/dev/null`, "
      "and times it from the spawn until the process is reaped (`wait4`): start-up, reading the file, parsing, "
      "evaluating, exit. Every command runs once untimed first (exit status and counts checked, both programs must "
      f"count the same; the file is then in the page cache), then in {rn} round{'s' if rn != 1 else ''}"
      + (f" (fewer, at least {rmin}, for a pair whose rounds had taken over "
         f"{next((r['pair_budget_s'] for r in cli if 'pair_budget_s' in r), '?')} s by then)" if rmin < rn else "") + ": in each round "
      "every (document, command) runs its two programs one right after the other, which one first alternating from "
      "round to round. Each cell is the median over the rounds (every round's time is in the JSON, `round_ns`); CPU is "
      "user + system time (median over the rounds); peak RSS comes from the untimed run, under GNU `time` (a child of the "
      "driver would report the driver's own RSS as its floor).\n")
    if binfo.get("sources_newer"):
        w(f"\n> **Note:** {binfo['sources_newer']} source files under `crates/` were newer than the vtdx binary when this "
          "ran (for example " + ", ".join(f"`{x}`" for x in binfo.get("newer_example", [])) + "): the binary measured may "
          "not be the code in the tree.\n")
    K = cli_index(cli)
    if cli:
        b = Blanks(quick)
        for d in [d for d in CLI_DOCS_ORDER if any(k[1] == d for k in K)]:
            sz = next((r["bytes"] for r in cli if r.get("doc") == d and ok(r)), 0)
            w(f"\n### {short(d)} ({nbytes(sz)} bytes)\n")
            rows = []
            for c, e in [("check", None)] + [("count", i) for i in range(1, 6)]:
                v, x = K.get(("vtdx-cli", d, c, e)), K.get(("xmllint", d, c, e))
                what = "`vtdx check` / `xmllint --noout`" if c == "check" else f"`query --count` / `--xpath count()`: {e}. `{XPATH_EXPRS[e - 1]}`"
                row = [what]
                if ok(v) and ok(x):
                    r = x["median_ns"] / v["median_ns"]
                    mark = (" ✔" if r >= 12 else " ✘") if d == "generated/po_16mb.xml" else ""
                    row += [ms(v["median_ns"]), ms(x["median_ns"]), f"{r:.1f}×{mark}", ms(v["cpu_ns"]), ms(x["cpu_ns"]),
                            f"{v['maxrss_bytes'] / 1e6:.1f}" if v.get("maxrss_bytes") else "",
                            f"{x['maxrss_bytes'] / 1e6:.1f}" if x.get("maxrss_bytes") else "",
                            "" if c == "check" else f"{v.get('count', ''):,}"]
                else:
                    row += [b.cell(v) if not ok(v) else ms(v["median_ns"]), b.cell(x) if not ok(x) else ms(x["median_ns"])] + [""] * 6
                rows.append(row)
            w(md_table(["command (vtdx / xmllint)", "vtdx ms", "xmllint ms", "× xmllint", "vtdx CPU ms", "xmllint CPU ms",
                        "vtdx peak RSS MB", "xmllint peak RSS MB", "count"], rows, ["l"] + ["r"] * 8))
        w(b.legend())
        targets = cli_targets(K)
        if targets:
            met = sum(t["met"] for t in targets)
            w(f"\n**Targets** (issue, on po_16mb): whole-process `vtdx check` at least 12× `xmllint --noout`, and `vtdx query "
              f"--count` at least 12× `xmllint --xpath` for each seed expression, medians from one run (✔/✘ in the table): "
              f"{met} of {len(targets)} met.\n")
        elif not quick:
            w("\n**Targets** (po_16mb): not measured in this run.\n")
    else:
        w("\n(not measured in this run)\n")

    # ------------------------------------------------------------ XML Signature
    dsig = res.get("dsig", [])
    w("\n## XML Signature and WS-Security (dsig)\n")
    w("Messages per second (higher is better) for the WS-Security header: **sign** = bytes in → the message with a "
      "`wsse:Security` header holding a `wsu:Timestamp`, a `BinarySecurityToken` with the certificate and a `ds:Signature` "
      "over the Body and the Timestamp (RSA-2048 PKCS#1 v1.5 SHA-256, Exclusive C14N, SHA-256, KeyInfo a "
      "`SecurityTokenReference` to the token) → bytes out; **verify** = bytes in → that Signature verified with the "
      "caller's certificate (the message signed once by `vtdx sign --wss` at the start of the run, the same bytes for "
      "every verifier). Inputs: the corpus messages without any Signature or Timestamp they had (soap_wss_2k's is a "
      "placeholder that does not verify). The **crypto floor** is what no signer or verifier can go below with the same "
      "library: one RSA-2048 sign (or verify) of the SignedInfo plus SHA-256 of the bytes the two References cover (the "
      "Body and Timestamp elements), measured with aws-lc (aws-lc-rs, the library vtdx-dsig uses) and with OpenSSL (the "
      "`cryptography` wheel's, beside the Python peers). *% of floor* is the floor's time divided by the peer's time. "
      "vtdx's verify does more than the peers': the SOAP rules (one Envelope and Body, no DOCTYPE, `mustUnderstand`), "
      "the Timestamp's freshness and the coverage of the Body and the Timestamp located by position; the other "
      "verifiers are given the Body and Timestamp as ID elements and their References' URIs are checked. A sign cell "
      "marked ✘ made a signature that `vtdx verify` (or, for vtdx's, `xmlsec1 --verify`) rejects; a verify cell with "
      "a dash and reason did not verify vtdx's signature. The whole-process rows (vtdx-cli, xmlsec1) include process "
      "start-up and are not in-process figures.\n")
    D = dsig_index(dsig)
    if dsig:
        ddocs = [d for d in DSIG_DOCS_ORDER if any(k[1] == d for k in D)]
        nr = rounds_of([r for r in dsig if r.get("program") in ("dsig-rust", "dsig-py")])
        targets = dsig_targets(D)
        if targets:
            met = sum(1 for t in targets for m in (t["share_met"], t["x_met"]) if m)
            judged = sum(1 for t in targets for m in (t["share_met"], t["x_met"]) if m is not None)
            w(f"\n**Targets** (issue): verify at least 50% of the crypto floor on every message and at least 3× the "
              f"fastest peer at 2 KB, 10× at 111 KB and 2.7 MB; sign (WS-Security header, Body + Timestamp) at least 85% of "
              f"the floor at 2 KB and 111 KB, and 10× the fastest peer at 2.7 MB. vtdx is the in-process row; the floor is "
              f"aws-lc's (the same library); the fastest peer is the fastest in-process one (Santuario, python-xmlsec, "
              f"signxml; xmlsec1, a whole process, only where none of them has a figure). ÷ columns below: an in-process "
              f"peer's time over vtdx's, xmlsec1's over the vtdx binary's. {met} of {judged} met.\n\n")
            rows = []
            for t in targets:
                sh = f"{100 * t['share']:.0f}%" if t["share"] is not None else ""
                if t["share_met"] is not None:
                    sh += f" (≥ {100 * t['want_share']:.0f}%) {'✔' if t['share_met'] else '✘'}"
                # two decimals, so that a ratio just below its target never prints as the target
                xx = f"{t['x']:.2f}× {t['best']}" if t["x"] is not None else "no peer figure"
                if t["x_met"] is not None:
                    xx += f" (≥ {t['want_x']}×) {'✔' if t['x_met'] else '✘'}"
                rows.append([t["case"], short(t["doc"]), f"{t['v']['msgs_per_s']:,.0f}",
                             f"{1e9 / t['floor']:,.0f}" if t["floor"] else "", sh, xx])
            w(md_table(["case", "message", "vtdx msgs/s", "aws-lc floor msgs/s", "vtdx % of floor", "vtdx ÷ fastest peer"],
                       rows, ["l", "l", "r", "r", "r", "l"]))
        for case in ("sign", "verify"):
            b = Blanks(quick)
            w(f"\n### {case.capitalize()}: messages per second\n")
            rows = []
            for d in ddocs:
                sz = next((r["bytes"] for r in dsig if r.get("doc") == d and r.get("case") == case and ok(r) and r["peer"] == "vtdx"), 0)
                row = [f"{short(d)} ({nbytes(sz)} B)"]
                for p in DSIG_PEERS:
                    r = D.get((p, d, case))
                    v = D.get((DSIG_REF.get(p), d, case))
                    if ok(r):
                        cell = f"{r['msgs_per_s']:,.0f}" + rounds_mark(r, nr > 1)
                        x = r.get("crosscheck")
                        if x and not x["ok"]:
                            cell += " ✘" + b.cell({"reason": f"its signature fails the cross-check ({x['by']}): {x.get('reason')}"})[1:]
                        row.append(cell)
                        if p in DSIG_REF:
                            row.append(ratio(r["median_ns"], v["median_ns"] if ok(v) else None))
                    else:
                        row += [b.cell(r, p)] + ([""] if p in DSIG_REF else [])
                v = D.get(("vtdx", d, case))
                for lib in ("aws-lc", "openssl"):
                    fl = dsig_floor(D, lib, d, case)
                    row.append(f"{1e9 / fl:,.0f}" if fl else b.cell(D.get((lib, d, "rsa-" + case)), lib))
                fl = dsig_floor(D, "aws-lc", d, case)
                row.append(f"{100 * fl / v['median_ns']:.0f}%" if fl and ok(v) else "")
                rows.append(row)
            hdr = ["message"]
            for p in DSIG_PEERS:
                hdr += [f"{p} ({DSIG_LANG[p]})"] + ([f"÷{DSIG_REF[p]}"] if p in DSIG_REF else [])
            hdr += ["floor aws-lc", "floor OpenSSL", "vtdx % of aws-lc floor"]
            w(md_table(hdr, rows))
            w(b.legend())
        if nr > 1:
            w(f"\n¹ from a single run (the JVM, after its JIT warm-up; the whole processes, each the median of their own "
              f"{max((r.get('rounds', 1) for r in dsig if r.get('whole_process')), default=0)} alternating runs); the other "
              f"in-process cells are each the median of {nr} interleaved rounds.\n")
        # the floor's parts
        rows = []
        for d in ddocs:
            row = [short(d)]
            for lib in ("aws-lc", "openssl"):
                for c in ("rsa-sign", "rsa-verify", "sha256"):
                    r = D.get((lib, d, c))
                    row.append(f"{r['median_ns'] / 1e3:,.1f}" if ok(r) else "")
            hb = D.get(("aws-lc", d, "sha256"))
            row.append(nbytes(hb["bytes"]) if ok(hb) else "")
            rows.append(row)
        w("\nThe crypto floor's parts, µs: RSA-2048 PKCS#1 v1.5 SHA-256 sign and verify of the SignedInfo, and SHA-256 of "
          "the bytes the References cover.\n\n")
        w(md_table(["message", "aws-lc sign", "aws-lc verify", "aws-lc SHA-256", "OpenSSL sign", "OpenSSL verify",
                    "OpenSSL SHA-256", "bytes hashed"], rows))
        w("\nHow each peer does it: " + "; ".join(f"**{k}**: {v}" for k, v in DSIG_WHAT.items()) + ".\n")
        xs = [r for r in dsig if r.get("case") == "sign" and r.get("crosscheck")]
        if xs:
            bad = [r for r in xs if not r["crosscheck"]["ok"]]
            w(f"\nCross-checks in this run: {len(xs) - len(bad)} of {len(xs)} signatures made by the signers passed "
              "`vtdx verify --require-timestamp` (vtdx's also `xmlsec1 --verify`)"
              + (": failed: " + "; ".join(f"{r['peer']} on {short(r['doc'])} ({r['crosscheck']['by']})" for r in bad) if bad else "")
              + ".\n")
    else:
        w("\n(not measured in this run)\n")

    # ------------------------------------------------------------ checks
    w("\n## Cross-checks\n")
    w("Every run checks that each peer program exited cleanly and produced every cell (or said why not), that no peer "
      "rejected a generated document, that all peers report the same number of elements for each document, that every "
      "reserialized or edited output re-parses with the same number of elements, that vtdx and VTD-XML write the input "
      "back byte for byte, that all peers select and remove the same nodes in Tables 2-6, that all peers see the same "
      "10,000 messages, that every peer's Canonical XML of each document and case is byte-identical to every other's "
      "(length and CRC-32 of the output of the very operation timed, run once more outside the timing), that vtdx from "
      "Python returns the same number of XPath results and the same canonical XML as lxml, and that `vtdx query --count` "
      "and `xmllint --xpath 'count(…)'` give the same counts, and that every dsig signer's signature verifies with `vtdx verify` "
      "and vtdx's with `xmlsec1 --verify`. A failed check fails `bench/run` (and so the test command, through `--quick`).\n\n")
    fails = [f for wl in meta.get("workloads", {}).values() for f in wl.get("failures", [])]
    notes = [n for wl in meta.get("workloads", {}).values() for n in wl.get("notes", [])]
    if fails:
        w("**Failed in this run:**\n\n" + "\n".join(f"- {f}" for f in fails) + "\n")
    else:
        w("All checks passed in this run.\n")
    if notes:
        w("\nNotes:\n\n" + "\n".join(f"- {n}" for n in notes) + "\n")

    # ------------------------------------------------------------ method
    pol = meta.get("policy", {})
    rs = meta.get("workloads", {})
    # the workloads of bench/workloads/*.py write their own sections
    for name, plugin in load_plugins().items():
        if res.get(name):
            w(plugin.report(res[name], meta, quick))

    w("\n## Method\n")
    w("- **One program per peer**, in the peer's own language (`bench/peers/`; the Rust peers and the memchr/memcpy "
      "reference in `bench/src/bin/rust_peers.rs`). Each loads all its documents into memory first, then measures, and "
      "prints one JSON line per (peer, workload, document); `bench/driver.py` runs the programs one at a time and checks "
      "their output against each other; `bench/report.py` writes this file and the charts.\n")
    w(f"- **Timing**: a monotonic clock around each sample; warm-up {pol.get('warmup')} ms per cell, then samples "
      f"until at least {pol.get('samples')} samples and {pol.get('min')} ms (or {pol.get('max')} ms with at least 3 "
      "samples); the figure is the median per operation. Operations shorter than 50 µs are batched so that one sample "
      "lasts about 50 µs (the clock read then costs nothing measurable). Each operation includes freeing what it "
      "built (DOMs are destroyed inside the loop).\n")
    w(f"- **JVM**: `java {' '.join(meta.get('jvm_opts', []))}`{' (quick run: a smoke test with C1 only)' if quick else ''}; one JVM per peer and workload, and before the first "
      f"measurement the whole workload runs over all its documents for {pol.get('jvm_workload_warmup', 0) / 1000:.1f} s "
      f"(JIT warm-up), then {pol.get('jvm_warmup')} ms more per cell — not a fixed number of iterations.\n")
    menv = meta.get("malloc_env", {})
    w("- **glibc malloc**: freed memory returned to the OS between iterations made pugixml and RapidXML 3-4× slower "
      "depending on run order on these machines (and roxmltree about 3× slower here). Every peer process — C, C++, Rust, "
      "Python and the JVM alike — runs with the same environment: "
      + ", ".join(f"`{k}={v}`" for k, v in menv.items())
      + " (never trim; serve allocations up to glibc's 32 MiB maximum from the heap; grow the heap 64 MiB at a time). "
      "The C and C++ peers refuse to run without them.\n")
    w("- **Compilers**: the C and C++ peers are built with `-O2` against the Debian packages (which are built with "
      "`-O2` for generic x86-64); the Rust peers with the workspace's release profile (thin LTO, one codegen unit) for "
      "generic x86-64 (no `-C target-cpu=native`; simdxml and memchr pick their SIMD kernels at run time).\n")
    w("- **Ratios** come from the same run. The charts normalize each peer's latency to vtdx's on the same document, as "
      "the seed's figures normalize to VTD-XML.\n")
    w("- **MB/s per GHz** divides by the nominal clock: " + f"{ghz} GHz, from {mach.get('nominal_ghz_source', '?')}.\n")
    w("- **Load** (1-minute load average before → after each workload; two cores, so other work on the machine shows "
      "up as noise): " + ", ".join(f"{k} {v.get('load_before', 0):.2f} → {v.get('load_after', 0):.2f}" for k, v in rs.items()) + ".\n")
    w("- **Many small messages** use one NUL-separated bundle file that every program splits into separately allocated "
      "buffers; **memory** uses a fresh process per (peer, document).\n")
    w("- **Canonical XML** (`c14n`): the peers that can canonicalize (vtdx, libxml2, lxml, and vtdx from Python through "
      "`bench/peers/python/vtdx_py_peer.py` in the interpreter of `target/py`) measure the same cases on the same "
      "documents with the same loop; the other native programs print a skip line per document with the reason. "
      "Outputs are compared by length and CRC-32 (`crc32` in `bench/src/harness.rs` and `peers/c/harness.h`, "
      "`zlib.crc32` in Python), taken from one more run of the operation that is timed.\n")
    w("- **Command line** (`cli`): whole processes started by the driver (`posix_spawn`, reaped with `wait4`), in "
      "interleaved rounds; see [Command line](#command-line-vtdx-beside-xmllint).\n")
    w("- **XML Signature** (`dsig`): in-process peers in their own programs with the same loop (Rust, Python in "
      "`bench/out/venv-dsig`, one JVM with the JIT warmed), the vtdx binary and xmlsec1 as whole processes timed like "
      "`cli`; inputs prepared once per run; every signer's output verified afterwards; see "
      "[XML Signature](#xml-signature-and-ws-security-dsig).\n")
    w("- **Heap held** (`memory`, vtdx): counted by a global allocator in `rust_peers` (bytes requested and not yet "
      "freed), not process RSS; see [Memory](#memory).\n")
    w("- **From Python** (`python`): `bench/python/bench_py.py --harness` in the interpreter of `target/py` (the venv "
      "`scripts/test.sh` makes; a full run builds the wheel with maturin when it is missing or older than `crates/`, and "
      "installs lxml and simdxml there from PyPI); the loop is `bench/peers/python/harness.py` (the one lxml uses), with "
      "a `gc.collect()` before each cell. " + (f"Documents: {', '.join(short(d) for d in pdocs)}. " if pdocs else "")
      + ("A quick run without the wheel leaves the section blank with the reason.\n" if quick else "\n"))
    w("\nWhat each peer does for *parse* and *parse + reserialize*:\n\n")
    w("\n".join(f"- **{p}** ({LANG.get(p, '')}): {WHAT[p]}." for p in ORDER) + "\n")
    w("\nRun time per workload: " + ", ".join(f"{k} {v.get('seconds', 0):.0f} s" for k, v in rs.items()) + ".\n")

    # ------------------------------------------------------------ machine and versions
    w("\n## Machine\n")
    w(md_table(["", ""], [
        ["CPU", f"{mach.get('cpu_model')} ({mach.get('vendor')}, {mach.get('family_model')})"],
        ["cores", f"{mach.get('cores')} ({mach.get('threads_per_core')} thread per core), hypervisor: {mach.get('hypervisor') or 'none'}"],
        ["nominal clock", f"{ghz} GHz ({mach.get('nominal_ghz_source')})"],
        ["caches", ", ".join(f"{k.replace(' cache', '')} {v}" for k, v in mach.get("caches", {}).items())],
        ["memory", f"{mach.get('mem_gb')} GB"],
        ["OS", f"{mach.get('os')}, Linux {mach.get('kernel')}, {mach.get('glibc')}"],
        ["compilers", f"{mach.get('gcc')}; {mach.get('rustc')}"],
        ["runtimes", f"{mach.get('java')}; Python {mach.get('python')}"],
    ], ["l", "l"]))
    w("\n## Versions\n")
    vrows = []
    commits = {k: x["commit"] for k, x in meta.get("workloads", {}).items() if x.get("commit")}
    for p in ORDER + ["memchr", "memcpy", "vtdx-py", "lxml-py", "simdxml-py", "etree", "xmllint", "xmlsec1", "python-xmlsec",
                      "signxml", "santuario", "aws-lc", "openssl"]:
        v = versions.get(p)
        if not v:
            continue
        if p.startswith("vtdx") and "commit" in v and commits:
            # each workload keeps the commit it measured (an --only rerun changes only its own)
            v = dict(v)
            by = {}
            for k, c in commits.items():
                by.setdefault(c, []).append(k)
            v["commit"] = by and (next(iter(by)) if len(by) == 1 else
                                  "; ".join(f"{c} ({', '.join(ws)})" for c, ws in by.items()))
        extra = "; ".join(f"{k}: {x}" for k, x in v.items() if k != "version")
        vrows.append([p, v.get("version", "?"), extra])
    w(md_table(["peer", "version", "details"], vrows, ["l", "l", "l"]))

    # ------------------------------------------------------------ charts
    if not quick:
        try:
            charts = make_charts(P, R, X, M, xdocs, C, Y)
        except ImportError:
            print("report: matplotlib missing: no charts", file=sys.stderr)
        if charts:
            w("\n## Charts\n")
            for title, path in charts:
                t = title.replace("\n", " ")
                w(f"\n### {t}\n\n![{t}]({path})\n")

    history = BENCH / "history.md"  # earlier runs' summaries, kept by hand
    if not quick and history.exists():
        md.append("\n" + history.read_text())
    text = "\n".join(md).replace("\n\n\n", "\n\n")
    dest = (OUT / "quick" / "BENCHMARKS.md") if quick else ROOT / "BENCHMARKS.md"
    dest.write_text(text)
    print(f"report: wrote {dest.relative_to(ROOT)}" + (f" and {len(charts)} charts in bench/charts/" if charts else ""))


def make_charts(P, R, X, M, xdocs, C=None, Y=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cdir = BENCH / "charts"
    cdir.mkdir(exist_ok=True)
    made = []

    def grouped(fname, title, groups, table, ref_peers, ylabel, order=ORDER, label=short):
        peers = [p for p in order if any(ok(table.get((p, g, None))) for g in groups)]
        if not peers or not groups:
            return
        fig, ax = plt.subplots(figsize=(min(16, max(8, 1.6 * len(groups) + 4)), 5.2))
        wdt = 0.8 / len(peers)
        for i, p in enumerate(peers):
            xs, ys = [], []
            for j, g in enumerate(groups):
                r = table.get((p, g, None))
                ref = next((table.get((q, g, None)) for q in ref_peers if ok(table.get((q, g, None)))), None)
                if ok(r) and ref:
                    xs.append(j - 0.4 + wdt * (i + 0.5))
                    ys.append(r["median_ns"] / ref["median_ns"])
            ax.bar(xs, ys, wdt, label=PY_NAMES.get(p, p) if order is PY_PEERS else p, color=COLORS.get(p, PY_COLORS.get(p)))
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([label(g) for g in groups], fontsize=8 if len(groups) > 8 else None)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=11)
        ax.legend(ncol=2, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.grid(axis="y", which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(cdir / fname, dpi=110)
        plt.close(fig)
        made.append((title, f"bench/charts/{fname}"))

    seed = [d for d in SEED_DOCS if any(k[1] == d for k in P)]
    grouped("table1_parse.png", "Table 1: parse latency normalized to vtdx\n(lower is faster)", seed, P, ["vtdx"],
            "latency ÷ vtdx latency (log)")
    grouped("table1_roundtrip.png", "Table 1: parse + reserialize latency normalized to vtdx\n(lower is faster)", seed, R, ["vtdx"],
            "latency ÷ vtdx latency (log)")
    for e, expr in enumerate(XPATH_EXPRS, 1):
        t = {(k[0], k[1], None): v for k, v in X.items() if k[2] == e}
        grouped(f"xpath_{e}.png", f"Table {e + 1}: {expr}\nlatency normalized to vtdx (lower is faster)",
                xdocs, t, ["vtdx"], "latency ÷ vtdx latency (log)")
    if C:
        # canonicalization from a parsed tree, one group per (document, case)
        groups, t = [], {}
        for (p, d, case, frm), r in C.items():
            if frm == "tree":
                g = f"{d}|{case}"
                t[(p, g, None)] = r
                if g not in groups:
                    groups.append(g)
        groups.sort(key=lambda g: (C14N_DOCS_ORDER(g.split("|")[0]), list(C14N_CASES).index(g.split("|")[1])))
        grouped("c14n.png", "Canonical XML of a parsed document: latency normalized to vtdx\n(lower is faster)",
                groups, t, ["vtdx"], "latency ÷ vtdx latency (log)", label=lambda g: f"{short(g.split('|')[0])}\n{g.split('|')[1]}")
    if Y:
        docs = sorted({k[1] for k in Y}, key=lambda d: max((r.get("bytes", 0) for r in Y.values() if r.get("doc") == d), default=0))
        if docs:
            big = docs[-1]
            t = {(p, c, None): r for (p, d, c), r in Y.items() if d == big}
            cases = [c for c in PY_CASES if any(k[1] == c for k in t)]
            grouped("python.png", f"From Python, {short(big)}: latency normalized to vtdx\n(lower is faster)", cases, t,
                    ["vtdx-py"], "latency ÷ vtdx latency (log)", order=PY_PEERS, label=lambda c: c.replace("parse+", "parse+\n"))
    if M:
        peers = [p for p in ORDER if p in M]
        fig, ax = plt.subplots(figsize=(9, 4.5))
        ax.barh(peers[::-1], [M[p]["msgs_per_s"] for p in peers[::-1]], color=[COLORS.get(p) for p in peers[::-1]])
        ax.set_xscale("log")
        ax.set_xlabel("messages per second (log), 2 KB SOAP messages with WS-Security header")
        ax.set_title("Many small messages: 10,000 distinct messages, each from its own buffer")
        ax.grid(axis="x", which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(cdir / "many.png", dpi=110)
        plt.close(fig)
        made.append(("Many small messages", "bench/charts/many.png"))
    return made


if __name__ == "__main__":
    main()
