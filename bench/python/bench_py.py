"""vtdx from Python beside lxml, ElementTree and simdxml (PyPI), on the seed documents.

    python bench/python/bench_py.py                 # po_small, po_medium, po_big; ~2 minutes
    python bench/python/bench_py.py --quick         # shorter samples
    python bench/python/bench_py.py --docs po_big --json out.jsonl
    python bench/python/bench_py.py --harness python [--peers a,b] [policy options] FILE...

Run it with an interpreter where vtdx is installed (``bash scripts/test.sh`` makes
``target/py``; ``target/py/bin/pip install lxml simdxml``). Peers that are not
installed, or cannot do a workload, get a blank cell with the reason below the table.

Workloads (each measured as the median of repeated samples, every result
materialized as Python objects, as a script would use it):

* ``parse``: bytes to a navigable tree (lxml ``fromstring``, ``xml.etree.ElementTree.fromstring``,
  ``simdxml.parse``, ``vtdx.fromstring``);
* ``xpath``: each of the harness's five XPath 1.0 expressions (bench/peers/python/lxml_peer.py),
  compiled once, evaluated on a parsed document, the result as a Python list; the
  number of results is checked against lxml's;
* ``parse+xpath``: both, end to end, per expression;
* ``tostring``: the document as bytes (lxml and ElementTree serialize the tree; simdxml
  serializes its root element; vtdx returns the bytes it parsed);
* ``c14n``: Canonical XML 1.0 with comments of the whole document (lxml
  ``tostring(method='c14n')``, simdxml ``Element.c14n()``, vtdx ``canonicalize``; outputs
  checked equal to lxml's; ElementTree has only C14N 2.0 from text, so it is skipped).

``--harness`` makes it one of the side-by-side harness's peer programs (bench/run, workload
``python``): the harness's command line, measurement loop and JSON lines
(bench/peers/python/harness.py, after bench/src/harness.rs), one line per (peer, document,
case) on stdout, with the peers named ``vtdx-py``, ``lxml``, ``etree`` and ``simdxml-py``;
``--harness versions`` prints their versions.
"""

import argparse
import gc
import json
import os
import pathlib
import platform
import statistics
import sys
import time
import xml.etree.ElementTree as ET

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench" / "peers" / "python"))
import harness  # noqa: E402 - the harness's loop and JSON lines, beside lxml_peer.py

CORPUS = pathlib.Path(os.environ.get("VTDX_CORPUS", REPO.parent / "shared" / "corpus"))

XPATH_EXPRS = [
    "/*/*/*[position() mod 2 = 0]",
    "/purchaseOrder/items/item[USPrice<100]",
    "/*/*/*/quantity/text()",
    "//item/comment",
    "//item/comment/../quantity",
]

PEERS = ["vtdx", "lxml", "etree", "simdxml"]


def load_peers():
    peers, missing = {}, {}
    import vtdx

    peers["vtdx"] = vtdx
    try:
        from lxml import etree

        peers["lxml"] = etree
    except ImportError:
        missing["lxml"] = "not installed (pip install lxml)"
    peers["etree"] = ET
    try:
        import simdxml

        peers["simdxml"] = simdxml
    except ImportError:
        missing["simdxml"] = "not installed (pip install simdxml)"
    return peers, missing


def measure(op, min_time, max_time=None, min_samples=7):
    """Median seconds per call: samples of >= 20 ms batches after a warm-up."""
    op()
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < min_time / 4 or n < 2:
        op()
        n += 1
    per = (time.perf_counter() - t0) / n
    batch = max(1, int(0.02 / per))
    samples = []
    start = time.perf_counter()
    max_time = max_time or min_time * 4
    while True:
        s = time.perf_counter()
        for _ in range(batch):
            op()
        samples.append((time.perf_counter() - s) / batch)
        el = time.perf_counter() - start
        if (len(samples) >= min_samples and el >= min_time) or (el >= max_time and len(samples) >= 3):
            break
    return statistics.median(samples)


def count(result):
    return len(result) if isinstance(result, list) else result


def workloads(peers, data):
    """(workload, peer) -> (callable, check value) or a skip reason string."""
    w = {}
    vtdx = peers["vtdx"]
    lx = peers.get("lxml")
    sx = peers.get("simdxml")
    lparser = lx.XMLParser(resolve_entities=True, huge_tree=True) if lx else None

    w[("parse", "vtdx")] = (lambda: vtdx.fromstring(data), None)
    if lx:
        w[("parse", "lxml")] = (lambda: lx.fromstring(data, lparser), None)
    w[("parse", "etree")] = (lambda: ET.fromstring(data), None)
    if sx:
        w[("parse", "simdxml")] = (lambda: sx.parse(data), None)

    vdoc = vtdx.parse(data)
    ldoc = lx.fromstring(data, lparser) if lx else None
    sdoc = sx.parse(data) if sx else None
    for i, expr in enumerate(XPATH_EXPRS, 1):
        name = f"xpath{i}"
        vx = vtdx.XPath(expr)
        want = len(vx(vdoc))
        w[(name, "vtdx")] = (lambda vx=vx: vx(vdoc), want)
        w[("parse+" + name, "vtdx")] = (lambda vx=vx: vx(vtdx.parse(data)), want)
        if lx:
            lxp = lx.XPath(expr)
            w[(name, "lxml")] = (lambda lxp=lxp: lxp(ldoc), want)
            w[("parse+" + name, "lxml")] = (lambda lxp=lxp: lxp(lx.fromstring(data, lparser)), want)
        w[(name, "etree")] = "ElementTree has no XPath 1.0 (findall takes an ElementPath subset)"
        w[("parse+" + name, "etree")] = w[(name, "etree")]
        if sx:
            try:
                sdoc.xpath(expr)
                w[(name, "simdxml")] = (lambda expr=expr: sdoc.xpath(expr), want)
                w[("parse+" + name, "simdxml")] = (lambda expr=expr: sx.parse(data).xpath(expr), want)
            except Exception as e:  # noqa: BLE001 - a peer's refusal becomes a footnote
                w[(name, "simdxml")] = f"simdxml refuses it: {e}"
                w[("parse+" + name, "simdxml")] = w[(name, "simdxml")]

    w[("tostring", "vtdx")] = (lambda: vtdx.tostring(vdoc), None)
    if lx:
        w[("tostring", "lxml")] = (lambda: lx.tostring(ldoc), None)
    eroot = ET.fromstring(data)
    w[("tostring", "etree")] = (lambda: ET.tostring(eroot), None)
    if sx:
        w[("tostring", "simdxml")] = (lambda: sdoc.root.tostring(), None)

    w[("c14n", "vtdx")] = (lambda: vtdx.canonicalize(vdoc, with_comments=True), None)
    if lx:
        ltree = ldoc.getroottree()
        w[("c14n", "lxml")] = (lambda: lx.tostring(ltree, method="c14n"), None)
    w[("c14n", "etree")] = "ElementTree has only C14N 2.0, from text (xml.etree.ElementTree.canonicalize)"
    if sx:
        w[("c14n", "simdxml")] = (lambda: sdoc.root.c14n(), None)
    return w


def check(workload, peer, op, want, peers, data):
    """Cross-checks a result; returns a note when it differs from the reference."""
    r = op()
    if workload.startswith(("xpath", "parse+xpath")) and want is not None and count(r) != want:
        return f"{count(r)} results, vtdx has {want}"
    if workload == "c14n" and peer != "lxml" and "lxml" in peers:
        lx = peers["lxml"]
        ref = lx.tostring(lx.fromstring(data, lx.XMLParser(huge_tree=True)).getroottree(), method="c14n")
        got = r.encode() if isinstance(r, str) else r
        if got != ref:
            return "output differs from lxml's"
    return None


# the harness's names for the peers (lxml and simdxml are also peers of other programs there)
HARNESS_NAMES = {"vtdx": "vtdx-py", "lxml": "lxml", "etree": "etree", "simdxml": "simdxml-py"}


def harness_main(argv):
    """The side-by-side harness's `python` workload: every case of `workloads` on every FILE."""
    a = harness.parse_args(argv)
    w = a["workload"]
    if not (os.environ.get("MALLOC_TRIM_THRESHOLD_") and os.environ.get("MALLOC_MMAP_THRESHOLD_")):
        sys.exit("MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ must be set (bench/run sets them)")
    peers, missing = load_peers()
    if w == "versions":
        import vtdx

        mod = pathlib.Path(getattr(vtdx, "_vtdx").__file__)
        stale = [str(p.relative_to(REPO)) for p in (REPO / "crates").rglob("*.rs") if p.stat().st_mtime > mod.stat().st_mtime]
        v = {"vtdx-py": {"version": vtdx.__version__, "module": str(mod), "interpreter": sys.executable,
                         "python": platform.python_version()}}
        if stale:
            v["vtdx-py"]["stale"] = f"{len(stale)} source files in crates/ are newer than this build (e.g. {stale[0]})"
        if "lxml" in peers:
            v["lxml-py"] = {"version": ".".join(map(str, peers["lxml"].LXML_VERSION)),
                            "libxml2": ".".join(map(str, peers["lxml"].LIBXML_VERSION)), "interpreter": sys.executable}
        if "simdxml" in peers:
            v["simdxml-py"] = {"version": getattr(peers["simdxml"], "__version__", "?"), "source": "PyPI"}
        v["etree"] = {"version": "Python " + platform.python_version(), "source": "xml.etree.ElementTree (standard library, expat)"}
        for k, d in v.items():
            harness.emit({"peer": k, "workload": "versions", "file": "", **d})
        return
    if w != "python":
        sys.exit(f"bench_py --harness: unknown workload {w}")
    for f in a["files"]:
        data = pathlib.Path(f).read_bytes()
        table = workloads(peers, data)
        cases = []
        for (wl, _p) in table:
            if wl not in cases:
                cases.append(wl)
        for p in PEERS:
            name = HARNESS_NAMES[p]
            if a["peers"] is not None and name not in a["peers"]:
                continue
            for wl in cases:
                d = {"peer": name, "workload": w, "file": f, "case": wl}
                entry = table.get((wl, p))
                if p in missing or entry is None or isinstance(entry, str):
                    reason = missing.get(p) or entry or "no such operation"
                    harness.emit({**d, "status": "skip", "reason": reason})
                    continue
                op, want = entry
                note = check(wl, p, op, want, peers, data)
                r = op()
                if wl.startswith(("xpath", "parse+xpath")):
                    d["results"] = count(r)
                elif wl == "c14n":
                    out = r.encode() if isinstance(r, str) else r
                    d.update(out_bytes=len(out), out_crc32=harness.crc32(out))
                if note:
                    d["mismatch"] = note
                gc.collect()
                s = harness.measure(a, op)
                harness.emit({**d, **harness.stats_fields(s, len(data))})


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--harness":
        return harness_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", default="po_small,po_medium,po_big")
    ap.add_argument("--quick", action="store_true", help="short samples (about 20 s)")
    ap.add_argument("--min-time", type=float, default=None, help="seconds of samples per cell")
    ap.add_argument("--json", help="also write one JSON object per cell to this file")
    ap.add_argument("--workloads", default=None, help="comma-separated subset (parse,xpath1,...,parse+xpath1,...,tostring,c14n)")
    a = ap.parse_args()
    min_time = a.min_time or (0.15 if a.quick else 0.6)
    peers, missing = load_peers()
    out = open(a.json, "w") if a.json else None
    footnotes = {}
    import vtdx

    print(f"# vtdx {vtdx.__version__} from Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    versions = {"vtdx": vtdx.__version__}
    if "lxml" in peers:
        versions["lxml"] = ".".join(map(str, peers["lxml"].LXML_VERSION))
    if "simdxml" in peers:
        versions["simdxml"] = getattr(peers["simdxml"], "__version__", "?")
    versions["etree"] = "stdlib " + platform.python_version()
    print("# " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print("# median time per call; ratio = peer time / vtdx time (higher: vtdx faster)\n")
    for docname in a.docs.split(","):
        path = CORPUS / "bench" / "generated" / f"{docname}.xml"
        if not path.exists():
            sys.exit(f"bench_py: {path} is missing (set VTDX_CORPUS)")
        data = path.read_bytes()
        table = workloads(peers, data)
        names = []
        for (wl, _p) in table:
            if wl not in names:
                names.append(wl)
        if a.workloads:
            keep = a.workloads.split(",")
            names = [n for n in names if n in keep]
        print(f"## {docname}.xml ({len(data):,} bytes)\n")
        header = "| workload | " + " | ".join(PEERS) + " | " + " | ".join(f"{p}/vtdx" for p in PEERS[1:]) + " |"
        print(header)
        print("|" + "---|" * (1 + 2 * len(PEERS) - 1))
        for wl in names:
            times = {}
            cells = []
            for p in PEERS:
                entry = table.get((wl, p))
                if p in missing:
                    footnotes.setdefault(f"{p}: {missing[p]}", None)
                    cells.append("")
                    continue
                if entry is None or isinstance(entry, str):
                    if isinstance(entry, str):
                        footnotes.setdefault(f"{p}, {wl}: {entry}", None)
                    cells.append("")
                    continue
                op, want = entry
                note = check(wl, p, op, want, peers, data)
                gc.collect()
                t = measure(op, min_time)
                times[p] = t
                cell = f"{t * 1e3:.3f} ms" if t >= 1e-4 else f"{t * 1e6:.1f} µs"
                if note:
                    footnotes.setdefault(f"{p}, {wl}, {docname}: {note}", None)
                    cell += " †"
                cells.append(cell)
                if out:
                    out.write(json.dumps({"doc": docname, "bytes": len(data), "workload": wl, "peer": p, "median_s": t, "note": note}) + "\n")
            ratios = []
            for p in PEERS[1:]:
                if p in times and "vtdx" in times:
                    ratios.append(f"{times[p] / times['vtdx']:.1f}x")
                else:
                    ratios.append("")
            print(f"| {wl} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |", flush=True)
        print()
    if footnotes:
        print("Blank cells and marks:")
        for f in footnotes:
            print(f"- {f}")
    print("\nxpath1..5: " + "; ".join(f"{i}. `{e}`" for i, e in enumerate(XPATH_EXPRS, 1)))
    if out:
        out.close()


if __name__ == "__main__":
    main()
