"""lxml (libxml2 bundled in the PyPI wheel), for the side-by-side harness (bench/run).

parse: etree.fromstring; roundtrip: parse + etree.tostring of the tree (UTF-8, with
declaration); xpath: parse + a precompiled etree.XPath + removal of every selected node
(elements through parent.remove, keeping their tail text, as removing a DOM node keeps the
following text node; text nodes by clearing .text/.tail) + etree.tostring; many: parse each
bundled message; memory: one parse, peak RSS.

Same command line and JSON lines as every peer (bench/src/harness.rs is the reference).
"""

import json
import os
import sys
import time

from lxml import etree

PEER = "lxml"
SAMPLE_TARGET_NS = 50_000.0
XPATH_EXPRS = [
    "/*/*/*[position() mod 2 = 0]",
    "/purchaseOrder/items/item[USPrice<100]",
    "/*/*/*/quantity/text()",
    "//item/comment",
    "//item/comment/../quantity",
]


def parse_args(argv):
    a = {
        "workload": argv[0],
        "peers": None,
        "warmup": 200e6,
        "min": 500e6,
        "max": 3000e6,
        "min_samples": 15,
        "files": [],
    }
    i = 1
    keys = {"--warmup-ms": "warmup", "--min-ms": "min", "--max-ms": "max"}
    while i < len(argv):
        x = argv[i]
        if x.startswith("--"):
            v = argv[i + 1]
            i += 1
            if x == "--peers":
                a["peers"] = v.split(",")
            elif x in keys:
                a[keys[x]] = float(v) * 1e6
            elif x == "--min-samples":
                a["min_samples"] = max(1, int(v))
            elif x == "--workload-warmup-ms":
                pass
            else:
                sys.exit(f"unknown option {x}")
        else:
            a["files"].append(x)
        i += 1
    return a


def measure(a, op):
    clock = time.perf_counter_ns
    t0 = clock()
    n = 0
    while True:
        op()
        n += 1
        if clock() - t0 >= a["warmup"]:
            break
    per = max(1.0, (clock() - t0) / n)
    batch = max(1, int(-(-SAMPLE_TARGET_NS // per)))
    rng = range(batch)
    samples = []
    start = clock()
    while True:
        s = clock()
        for _ in rng:
            op()
        e = clock()
        samples.append((e - s) / batch)
        el = e - start
        if (len(samples) >= a["min_samples"] and el >= a["min"]) or (el >= a["max"] and len(samples) >= 3):
            break
    samples.sort()
    k = len(samples)
    med = samples[k // 2] if k % 2 else (samples[k // 2 - 1] + samples[k // 2]) / 2
    return {
        "median_ns": med,
        "min_ns": samples[0],
        "p90_ns": samples[min(k - 1, int(k * 0.9))],
        "iters": k * batch,
        "samples": k,
        "batch": batch,
    }


def emit(d):
    print(json.dumps(d), flush=True)


def line(workload, f, **kw):
    d = {"peer": PEER, "workload": workload, "file": f}
    d.update(kw)
    return d


def stats_fields(s, nbytes):
    d = {"status": "ok"}
    d.update(s)
    d["bytes"] = nbytes
    d["mbps"] = nbytes * 1e3 / s["median_ns"]
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
            if w == "xpath":
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
        else:
            sys.exit(f"lxml peer: unknown workload {w}")


if __name__ == "__main__":
    main()
