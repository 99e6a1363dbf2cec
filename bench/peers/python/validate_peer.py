"""The validate workload's Python peers (bench/workloads/validate.py): XML Schema validation of a document from its
bytes, same command line and JSON lines as every peer (bench/src/harness.rs is the reference; the loop is in harness.py
beside this file).

    validate_peer.py validate [--peers lxml,xmlschema] [policy options] SCHEMA.xsd FILE...

The first FILE ending in .xsd is the schema, compiled once before anything is timed. Peers:

- `lxml`: etree.fromstring with one reused XMLParser + lxml's XMLSchema.validate (libxml2's xmlSchemaValidateDoc);
- `xmlschema` (Python `xmlschema`, pure Python): XMLSchema.is_valid on the bytes (its own ElementTree parse included).
  It takes seconds per megabyte, so each document gets ONE timed run (samples 1, `single_run`), capped at
  $VTDX_BENCH_XMLSCHEMA_CAP_S seconds (default 300): past it the cell is a skip line saying so.

Every document is validated once first (for xmlschema: the timed run itself); the line says `valid` and `errors`.
A FILE whose name contains `.invalid` is a verdict-only document (`"timed": false`).
"""

import io
import os
import signal
import sys
import time

from harness import emit, measure, parse_args, stats_fields

PEERS = ["lxml", "xmlschema"]
CAP_S = int(os.environ.get("VTDX_BENCH_XMLSCHEMA_CAP_S", "300"))


class Capped(Exception):
    pass


def line(peer, f, **kw):
    d = {"peer": peer, "workload": "validate", "file": f}
    d.update(kw)
    return d


def lxml_peer(a, xsd, files):
    from lxml import etree

    schema = etree.XMLSchema(file=xsd)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    for f in files:
        x = open(f, "rb").read()
        timed = ".invalid" not in f
        try:
            doc = etree.fromstring(x, parser)
        except etree.XMLSyntaxError as e:
            emit(line("lxml", f, status="rejected", reason=f"not well-formed: {e}"))
            continue
        valid = schema.validate(doc)
        errors = len(schema.error_log)
        first = str(schema.error_log[0]) if errors else None
        elements = sum(1 for _ in doc.getroottree().iter(etree.Element))
        del doc

        def op():
            return schema.validate(etree.fromstring(x, parser))

        d = line("lxml", f, **(stats_fields(measure(a, op), len(x)) if timed else {"status": "ok", "bytes": len(x)}))
        d.update(timed=timed, valid=valid, errors=errors, elements=elements)
        if first:
            d["first_error"] = first
        emit(d)


def on_alarm(signum, frame):
    raise Capped()


def xmlschema_peer(a, xsd, files):
    try:
        import xmlschema
    except ImportError as e:
        for f in files:
            emit(line("xmlschema", f, status="skip", reason=f"Python xmlschema is not installed: {e}"))
        return
    schema = xmlschema.XMLSchema(xsd)
    signal.signal(signal.SIGALRM, on_alarm)
    for f in files:
        x = open(f, "rb").read()
        timed = ".invalid" not in f
        signal.alarm(CAP_S)
        try:
            t0 = time.perf_counter_ns()
            errs = list(schema.iter_errors(io.BytesIO(x)))
            dt = time.perf_counter_ns() - t0
        except Capped:
            emit(line("xmlschema", f, status="skip", reason=f"capped: one validation took more than {CAP_S} s"))
            continue
        except Exception as e:  # a parse error of its ElementTree parser
            signal.alarm(0)
            emit(line("xmlschema", f, status="rejected", reason=f"{type(e).__name__}: {e}"))
            continue
        signal.alarm(0)
        d = line("xmlschema", f)
        if timed:
            d.update(stats_fields({"median_ns": dt, "min_ns": dt, "p90_ns": dt, "iters": 1, "samples": 1, "batch": 1}, len(x)))
            d["single_run"] = True
        else:
            d.update(status="ok", bytes=len(x))
        d.update(timed=timed, valid=not errs, errors=len(errs), version=xmlschema.__version__)
        if errs:
            d["first_error"] = str(errs[0].reason)
        emit(d)


def main():
    a = parse_args(sys.argv[1:])
    if a["workload"] != "validate":
        sys.exit(f"validate_peer.py: the workload is `validate`, found {a['workload']!r}")
    xsds = [f for f in a["files"] if f.endswith(".xsd")]
    if not xsds:
        sys.exit("validate_peer.py: no schema (a FILE ending in .xsd) among the files")
    files = [f for f in a["files"] if not f.endswith(".xsd")]
    for p in PEERS:
        if a["peers"] is None or p in a["peers"]:
            (lxml_peer if p == "lxml" else xmlschema_peer)(a, xsds[0], files)


if __name__ == "__main__":
    main()
