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

ORDER = ["vtdx", "vtdx-reuse", "simdxml", "pugixml", "pugixml-ws", "quick-xml", "roxmltree", "expat",
         "libxml2", "lxml", "vtd-xml", "vtd-xml-reuse", "xerces-deferred", "xerces-full"]
LANG = {"vtdx": "Rust", "vtdx-reuse": "Rust", "simdxml": "Rust", "quick-xml": "Rust", "roxmltree": "Rust",
        "pugixml": "C++", "pugixml-ws": "C++", "expat": "C", "libxml2": "C", "lxml": "Python",
        "vtd-xml": "Java", "vtd-xml-reuse": "Java", "xerces-deferred": "Java", "xerces-full": "Java"}
WHAT = {
    "vtdx": "`Document::parse` (token tape; fresh allocations every time). Reserialize: `write_to` a `Vec` — "
            "vtdx writes the bytes it indexed, byte for byte, with no reserialization: that is the vtdx way",
    "vtdx-reuse": "`Parser::parse` + `recycle` (the tape and name table are reused, like VTD-XML's buffer reuse). Reserialize: as vtdx",
    "simdxml": "`simdxml::parse` (SIMD structural index). No serializer, no editing (it has XPath, but cannot remove nodes)",
    "pugixml": "`xml_document::load_buffer`, `parse_default` (whitespace-only text dropped); reserialize: `save` with "
               "`format_default` (re-indents) through an `xml_writer` into a `std::string`",
    "pugixml-ws": "`load_buffer` with `parse_default | parse_ws_pcdata` (all text kept, closest to vtdx); reserialize: `save` with `format_raw`",
    "quick-xml": "every event read from a borrowed slice (`Reader::read_event`), nothing decoded; reserialize: each event "
                 "written back through `quick_xml::Writer`",
    "roxmltree": "`Document::parse_with_options` (DTD allowed) on `&str` (UTF-8 validation included); read-only tree, no serializer",
    "expat": "`XML_Parse` of the whole buffer with no-op start/end/character handlers, parser reused through "
             "`XML_ParserReset`; no tree, so no reserialize or XPath",
    "libxml2": "`xmlReadMemory` (`XML_PARSE_NONET`) + `xmlFreeDoc`; reserialize: `xmlDocDumpMemory`",
    "lxml": "`etree.fromstring`; reserialize: `etree.tostring(tree, encoding='UTF-8', xml_declaration=True)`",
    "vtd-xml": "`VTDGen.setDoc` + `parse(true)` (new buffers each parse); reserialize: `VTDNav.dumpXML` to a "
               "`ByteArrayOutputStream` (VTD-XML, like vtdx, writes the untouched bytes)",
    "vtd-xml-reuse": "`VTDGen.setDoc_BR` + `parse(true)` (buffer-reuse mode); reserialize: as vtd-xml",
    "xerces-deferred": "Xerces-J `DocumentBuilder.parse`, namespace-aware, deferred node expansion on (Xerces' default), "
                       "external DTD not loaded; reserialize: `LSSerializer` to a `ByteArrayOutputStream` (expands every node)",
    "xerces-full": "as xerces-deferred with deferred node expansion off (every node built while parsing)",
}
XPATH_WHAT = {
    "vtdx": "`XPath::compile` once; `select`, `Editor::remove` per node (a text node's adjacent text/CDATA records together), `Editor::write_into` a `Vec<u8>` (no tree, no reserialization)",
    "libxml2": "`xmlXPathCompile` once; `xmlXPathCompiledEval`, `xmlUnlinkNode` + `xmlFreeNode` per node, `xmlDocDumpMemory`",
    "lxml": "`etree.XPath` once; elements removed with `parent.remove` (their tail text kept), text nodes by clearing `.text`/`.tail`; `etree.tostring`",
    "pugixml": "`xpath_query` once; `evaluate_node_set`, `parent().remove_child()`, `save` to a string",
    "vtd-xml": "`AutoPilot.selectXPath` once; `evalXPath` loop, `XMLModifier.remove()` (elements) / `removeToken` (text), `XMLModifier.output` to a `ByteArrayOutputStream`",
    "xerces": "`javax.xml.xpath` (the JDK's) `compile` once; `evaluate(NODESET)`, `removeChild`, `LSSerializer`",
}
SEED_DOCS = ["generated/po_small.xml", "generated/po_medium.xml", "generated/po_big.xml", "generated/po_16mb.xml",
             "generated/soap_wss_2k.xml", "generated/soap_big.xml"]
XPATH_DOCS = ["generated/po_small.xml", "generated/po_medium.xml", "generated/po_big.xml"]
XPATH_EXPRS = ["/*/*/*[position() mod 2 = 0]", "/purchaseOrder/items/item[USPrice<100]", "/*/*/*/quantity/text()",
               "//item/comment", "//item/comment/../quantity"]
JVM = {"vtd-xml", "vtd-xml-reuse", "xerces-deferred", "xerces-full"}
COLORS = {"vtdx": "#d62728", "vtdx-reuse": "#ff9896", "simdxml": "#8c564b", "pugixml": "#1f77b4", "pugixml-ws": "#aec7e8",
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


def load(mode):
    mdir = OUT / mode
    meta = json.loads((mdir / "meta.json").read_text())
    res = {}
    for f in sorted((mdir / "results").glob("*.jsonl")):
        res[f.stem] = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
    return meta, res


def index(rows):
    return {(r["peer"], r.get("doc"), r.get("expr")): r for r in rows}


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
        w("> **Quick run** (`bench/run --quick`): a smoke test of the harness with short measurements on three documents. "
          "These figures are not for quoting; the full run writes the repository's `BENCHMARKS.md`.\n")
    w(f"Side-by-side figures for vtdx and its peers, produced by `bench/run` on {meta.get('date', '?')} "
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
        for p in peers_in(parse):
            row = [f"{p} ({LANG.get(p, '')})"]
            for d in head_docs:
                r, v = P.get((p, d, None)), P.get(("vtdx", d, None))
                if ok(r):
                    row += [mbps(r["mbps"]), mbps(per_ghz(r["mbps"])), ratio(r["median_ns"], v["median_ns"] if ok(v) else None)]
                else:
                    row += [b.cell(r, p), "", ""]
            rows.append(row)
        hdr = ["peer"]
        for d in head_docs:
            sz = next((r["bytes"] for r in parse if r.get("doc") == d and ok(r)), 0)
            hdr += [f"{short(d)} ({sz / 1e6:.2f} MB) MB/s", "MB/s/GHz", "÷vtdx"]
        w(md_table(hdr, rows))
        w(b.legend())
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
                best = [idx.get((v, d, None)) for v in ("vtdx", "vtdx-reuse")]
                best = [x["median_ns"] for x in best if ok(x)]
                if ok(r) and best and r["median_ns"] < min(best):
                    wins.append((d, min(best) / r["median_ns"]))
            if wins:
                wins.sort(key=lambda x: -x[1])
                ex = ", ".join(f"{short(d)} {f:.2f}×" for d, f in wins[:4])
                behind.append(f"- **{name}: {p}** is faster than both vtdx variants on {len(wins)} of {len(docs)} documents "
                              f"(by up to: {ex}).")
    many = res.get("many", [])
    M = {r["peer"]: r for r in many if ok(r)}
    if "vtdx" in M:
        best = max(M[v]["msgs_per_s"] for v in ("vtdx", "vtdx-reuse") if v in M)
        for p, r in M.items():
            if not p.startswith("vtdx") and r["msgs_per_s"] > best:
                behind.append(f"- **many small messages: {p}** parses {r['msgs_per_s']:,.0f} messages/s, vtdx at best {best:,.0f}.")
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
    xp_ok = [r for r in res.get("xpath", []) if ok(r)]
    xbest = {}
    for r in xp_ok:
        if r["peer"] in ("vtdx", "vtdx-reuse"):
            k = (r["doc"], r["expr"])
            xbest[k] = min(xbest.get(k, float("inf")), r["median_ns"])
    xbehind = {}
    for r in xp_ok:
        k = (r["doc"], r["expr"])
        if not r["peer"].startswith("vtdx") and k in xbest and r["median_ns"] < xbest[k]:
            xbehind.setdefault(r["peer"], []).append(f"Table {r['expr'] + 1} on {short(r['doc'])} {xbest[k] / r['median_ns']:.2f}×")
    for p, cells in xbehind.items():
        behind.append(f"- **Tables 2-6: {p}** is faster than both vtdx variants in {len(cells)} cells (by: {', '.join(cells)}).")
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
        for p in peers_in(parse + rt):
            r1, r2 = P.get((p, d, None)), R.get((p, d, None))
            row = [p]
            row += [ms(r1["median_ns"]), mbps(r1["mbps"]), mbps(per_ghz(r1["mbps"])), ratio(r1["median_ns"], v["median_ns"] if ok(v) else None)] if ok(r1) else [b.cell(r1, p), "", "", ""]
            if ok(r2):
                row += [ms(r2["median_ns"]), mbps(r2["mbps"]), ratio(r2["median_ns"], vr["median_ns"] if ok(vr) else None),
                        nbytes(r2["out_bytes"]) + (" (identical)" if r2.get("identical") else "")]
            else:
                row += [b.cell(r2, p), "", "", ""]
            rows.append(row)
        w(md_table(["peer", "parse ms", "MB/s", "MB/s/GHz", "÷vtdx", "parse + reserialize ms", "MB/s", "÷vtdx", "output bytes"], rows))
        w(b.legend())

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
                w("Peer latency divided by vtdx's (fresh parser) on the same document; bold below 1: the peer is faster.\n\n")
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
                        row.append(mbps(r["mbps"]))
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
      "every selected node, write the document to a memory buffer. **vtdx** parses with a fresh parser and writes into a "
      "fresh buffer each time; **vtdx-reuse** keeps the parser's allocations and the output buffer between documents "
      "(the seed's buffer-reuse mode); both remove with the byte-range `Editor`, so the output is the input with the "
      "removed ranges cut out (`vtdx_xpath_edit` in `bench/src/bin/rust_peers.rs`). "
      "Every peer's output is re-parsed, and all peers must agree on how many nodes each expression selects and how many "
      "elements are left (checked on every run).\n")
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
        for p in peers_in(many):
            r = next((x for x in many if x["peer"] == p), None)
            if ok(r):
                rows.append([p, f"{r['msgs_per_s']:,.0f}", f"{r['median_ns'] / r['messages'] / 1e3:.2f}", mbps(r["mbps"]),
                             mbps(per_ghz(r["mbps"])), ratio(r["median_ns"], v["median_ns"] if v else None)])
            else:
                rows.append([p, b.cell(r, p), "", "", "", ""])
        w(md_table(["peer", "messages/s", "µs per message", "MB/s", "MB/s/GHz", "÷vtdx"], rows))
        w(b.legend())

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
        idxrow = ["vtdx index only"]
        for d in mdocs:
            r = mm.get(("vtdx", d, None))
            idxrow.append(f"{r['index_bytes'] / r['bytes']:.3f} ({r['index_bytes'] / 1e6:,.1f} MB)" if ok(r) and r.get("index_bytes") else "")
        rows.insert(1, idxrow)
        hdr = ["peer"] + [f"{short(d)} ({next(r['bytes'] for r in mem if r.get('doc') == d and ok(r)) / 1e6:.1f} MB): bytes per doc byte" for d in mdocs]
        w(md_table(hdr, rows))
        w("\n‡ retained Java heap after GC.\n")
        w(b.legend())

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
      "upper bounds; XML Screamer measured 106 MB/s/GHz for its scan loop on a 3.2 GHz Xeon in 2006.\n\n")
    if scan:
        S = index(scan)
        rows = []
        pct = []
        for d in sorted({r["doc"] for r in scan}, key=lambda d: S[("memchr", d, None)]["bytes"] if ("memchr", d, None) in S else 0):
            c, m = S.get(("memchr", d, None)), S.get(("memcpy", d, None))
            v = P.get(("vtdx", d, None))
            row = [f"{d} ({c['bytes'] / 1000:,.0f} kB)" if ok(c) else d]
            row += [mbps(c["mbps"]) if ok(c) else "", mbps(per_ghz(c["mbps"])) if ok(c) else "", mbps(m["mbps"]) if ok(m) else ""]
            if ok(v) and ok(c):
                row += [mbps(v["mbps"]), f"{100 * v['mbps'] / c['mbps']:.1f}%"]
                pct.append(v["mbps"] / c["mbps"])
            else:
                row += ["", ""]
            rows.append(row)
        w(md_table(["document", "memchr `<` MB/s", "MB/s/GHz", "memcpy MB/s", "vtdx parse MB/s", "vtdx ÷ memchr"], rows))
        if pct:
            w(f"\nvtdx parses at {100 * min(pct):.1f}–{100 * max(pct):.1f}% (median {100 * statistics.median(pct):.1f}%) of the speed of a memchr scan for `<`.\n")

    # ------------------------------------------------------------ checks
    w("\n## Cross-checks\n")
    w("Every run checks that each peer program exited cleanly and produced every cell (or said why not), that no peer "
      "rejected a generated document, that all peers report the same number of elements for each document, that every "
      "reserialized or edited output re-parses with the same number of elements, that vtdx and VTD-XML write the input "
      "back byte for byte, that all peers select and remove the same nodes in Tables 2-6, and that all peers see the same "
      "10,000 messages. A failed check fails `bench/run` (and so the test command, through `--quick`).\n\n")
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
      "the seed's figures normalize to VTD-XML (Tables 2-6, where vtdx has no figure yet: to VTD-XML).\n")
    w("- **MB/s per GHz** divides by the nominal clock: " + f"{ghz} GHz, from {mach.get('nominal_ghz_source', '?')}.\n")
    w("- **Load** (1-minute load average before → after each workload; two cores, so other work on the machine shows "
      "up as noise): " + ", ".join(f"{k} {v.get('load_before', 0):.2f} → {v.get('load_after', 0):.2f}" for k, v in rs.items()) + ".\n")
    w("- **Many small messages** use one NUL-separated bundle file that every program splits into separately allocated "
      "buffers; **memory** uses a fresh process per (peer, document).\n")
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
    for p in ORDER + ["memchr", "memcpy"]:
        v = versions.get(p)
        if not v:
            continue
        extra = "; ".join(f"{k}: {x}" for k, x in v.items() if k != "version")
        vrows.append([p, v.get("version", "?"), extra])
    w(md_table(["peer", "version", "details"], vrows, ["l", "l", "l"]))

    # ------------------------------------------------------------ charts
    if not quick:
        try:
            charts = make_charts(P, R, X, M, xdocs)
        except ImportError:
            print("report: matplotlib missing: no charts", file=sys.stderr)
        if charts:
            w("\n## Charts\n")
            for title, path in charts:
                t = title.replace("\n", " ")
                w(f"\n### {t}\n\n![{t}]({path})\n")

    text = "\n".join(md).replace("\n\n\n", "\n\n")
    dest = (OUT / "quick" / "BENCHMARKS.md") if quick else ROOT / "BENCHMARKS.md"
    dest.write_text(text)
    print(f"report: wrote {dest.relative_to(ROOT)}" + (f" and {len(charts)} charts in bench/charts/" if charts else ""))


def make_charts(P, R, X, M, xdocs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cdir = BENCH / "charts"
    cdir.mkdir(exist_ok=True)
    made = []

    def grouped(fname, title, groups, table, ref_peers, ylabel):
        peers = [p for p in ORDER if any(ok(table.get((p, g, None))) for g in groups)]
        if not peers or not groups:
            return
        fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(groups) + 4), 5.2))
        wdt = 0.8 / len(peers)
        for i, p in enumerate(peers):
            xs, ys = [], []
            for j, g in enumerate(groups):
                r = table.get((p, g, None))
                ref = next((table.get((q, g, None)) for q in ref_peers if ok(table.get((q, g, None)))), None)
                if ok(r) and ref:
                    xs.append(j - 0.4 + wdt * (i + 0.5))
                    ys.append(r["median_ns"] / ref["median_ns"])
            ax.bar(xs, ys, wdt, label=p, color=COLORS.get(p))
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([short(g) for g in groups])
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
        grouped(f"xpath_{e}.png", f"Table {e + 1}: {expr}\nlatency normalized to vtdx (to VTD-XML until vtdx has XPath)",
                xdocs, t, ["vtdx", "vtd-xml"], "latency ÷ reference latency (log)")
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
