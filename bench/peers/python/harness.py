"""The measurement loop and JSON lines of the side-by-side harness, for the Python programs
(peers/python/lxml_peer.py, python/bench_py.py --harness). It mirrors bench/src/harness.rs
(the reference): warm-up, a batch size so that one timed sample lasts about 50 µs, samples
until both a minimum count and a minimum time are reached (or a maximum time has passed, with
at least 3 samples), the median time per operation.

    PROGRAM WORKLOAD [--peers a,b] [--warmup-ms N] [--min-ms N] [--max-ms N]
            [--min-samples N] [--workload-warmup-ms N] FILE...
"""

import json
import sys
import time
import zlib

SAMPLE_TARGET_NS = 50_000.0


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


def stats_fields(s, nbytes):
    d = {"status": "ok"}
    d.update(s)
    d["bytes"] = nbytes
    d["mbps"] = nbytes * 1e3 / s["median_ns"]
    return d


def crc32(data):
    """CRC-32 of bytes as 8 hex digits (the c14n cross-check; bench/src/harness.rs crc32)."""
    return f"{zlib.crc32(data) & 0xFFFFFFFF:08x}"


def body_span(x, qn):
    """The bytes in the input of the element whose qualified name is `qn` (a SOAP Body),
    start tag to end tag: the first start tag with that name, the last end tag."""
    i = 0
    while True:
        i = x.find(b"<" + qn.encode(), i)
        if i < 0 or x[i + len(qn) + 1:i + len(qn) + 2] in (b" ", b"\t", b"\r", b"\n", b"/", b">"):
            break
        i += 1
    j = x.rfind(b"</" + qn.encode())
    if i < 0 or j < i:
        return 0
    return x.index(b">", j) + 1 - i
