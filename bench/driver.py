#!/usr/bin/env python3
"""Runs the side-by-side benchmark (called by bench/run, which installs and builds first).

Every peer program loads its documents into memory and prints one JSON line per
(peer, workload, document[, expression]); this driver runs them one after another (never two
at once), with the same glibc malloc settings for every process, stores the lines in
bench/out/<mode>/results/<workload>.jsonl, checks them against each other, and calls
report.py. It exits non-zero when a program fails, a cell is missing, or the peers disagree.
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"

# The glibc allocator settings of every native peer process (and the JVM's native side):
# never give freed memory back to the OS between iterations (trim threshold 4 GiB), serve
# every allocation up to glibc's maximum of 32 MiB from the heap rather than fresh mmap'd
# pages, and grow the heap in 64 MiB steps. Without these, run order decided whether
# pugixml or roxmltree paid page faults on every iteration.
MALLOC_ENV = {
    "MALLOC_TRIM_THRESHOLD_": str(4 << 30),
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
    "MALLOC_TOP_PAD_": str(64 << 20),
}

JVM_OPTS = ["-server", "-XX:+UseParallelGC", "-Xms2g", "-Xmx8g", "-XX:+AlwaysPreTouch"]
# The quick run's JVM smoke test: a small heap that starts at once.
JVM_OPTS_QUICK = ["-server", "-XX:+UseParallelGC", "-Xmx1g", "-XX:TieredStopAtLevel=1"]
# The memory workload measures the retained heap; no pre-touched heap to start.
JVM_OPTS_MEMORY = ["-server", "-XX:+UseParallelGC", "-Xmx8g"]

# vtdx three ways: "vtdx" is Document::parse (the default per-thread parser, warm), "vtdx-cold" a new
# Parser per document, "vtdx-reuse" one explicit Parser with recycle (bench/src/bin/rust_peers.rs)
RUST_PEERS = ["vtdx", "vtdx-cold", "vtdx-reuse", "quick-xml", "roxmltree", "simdxml"]
NATIVE_PROGRAMS = [
    # (program id, peers it runs)
    ("rust", RUST_PEERS),
    # libxml2-reuse: one parser context for every document, XML_PARSE_COMPACT (as lxml parses)
    ("libxml2", ["libxml2", "libxml2-reuse"]),
    ("expat", ["expat"]),
    ("pugixml", ["pugixml", "pugixml-ws"]),
    ("lxml", ["lxml"]),
]
JVM_PEERS = ["vtd-xml", "vtd-xml-reuse", "xerces-deferred", "xerces-full"]
# The headline cells (parse of the big purchase orders, many small messages) are measured in
# this many interleaved rounds of every native program in a full run; each cell keeps the
# round with the median latency, so one slow phase of a shared machine does not decide a ratio.
HEADLINE_ROUNDS = 3
HEADLINE_DOCS = ["generated/po_big.xml", "generated/po_16mb.xml"]
ALL_PEERS = [p for _, ps in NATIVE_PROGRAMS for p in ps] + JVM_PEERS
WORKLOADS = ["parse", "roundtrip", "xpath", "xpath-eval", "many", "memory", "scan", "c14n", "python", "cli", "dsig"]


def load_plugins():
    """The workloads that live in bench/workloads/<name>.py (see bench/workloads/README.md): a module with
    NAME, run(drv, mode, with_jvm, log) -> (results, timings, docs) and check(drv, results, quick, with_jvm)
    -> (failures, notes); report.py calls its report(rows, meta, quick). Sorted by file name."""
    import importlib.util
    plugins = {}
    for f in sorted((Path(__file__).resolve().parent / "workloads").glob("[a-z]*.py")):
        spec = importlib.util.spec_from_file_location(f"vtdx_bench_workload_{f.stem}", f)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        plugins[mod.NAME] = mod
    return plugins


PLUGINS = load_plugins()
WORKLOADS += [w for w in PLUGINS if w not in WORKLOADS]
# Variants measured only where they differ: one parse in a fresh process (memory) is the same cold
# parse for vtdx and vtdx-cold, and the same context for libxml2 and libxml2-reuse.
MEMORY_SKIP = {"vtdx-cold", "vtdx-reuse", "libxml2-reuse"}
XPATH_DOCS = ["generated/po_small.xml", "generated/po_medium.xml", "generated/po_big.xml"]
# xpath-eval (parse + evaluate + count, no edit): po_big (quick: po_small); the peers with XPath
XPATH_EVAL_DOCS = ["generated/po_big.xml"]
XPATH_EVAL_QUICK_DOCS = ["generated/po_small.xml"]
XPATH_EVAL_PEERS = ["vtdx", "vtdx-cold", "vtdx-reuse", "simdxml", "pugixml", "pugixml-ws", "libxml2", "libxml2-reuse", "lxml"]
MEMORY_DOCS = ["generated/po_big.xml", "generated/soap_big.xml", "xmark/xmark-f0.1.xml", "generated/po_16mb.xml"]
QUICK_DOCS = ["generated/po_small.xml", "generated/po_big.xml", "generated/soap_wss_2k.xml"]
# Canonical XML: the purchase orders and the SOAP messages (a SOAP document also gets the exclusive
# C14N of its Body); the peers that can canonicalize, and the JSON `case` values.
C14N_DOCS = ["generated/po_big.xml", "generated/po_16mb.xml", "generated/soap_big.xml", "generated/soap_wss_2k.xml"]
C14N_QUICK_DOCS = ["generated/po_big.xml", "generated/soap_wss_2k.xml"]
C14N_PEERS = ["vtdx", "vtdx-cold", "vtdx-reuse", "libxml2", "libxml2-reuse", "lxml", "vtdx-py"]
# vtdx from Python in the c14n workload (the Python pairing beside lxml): bench/peers/python/vtdx_py_peer.py,
# run with the interpreter of target/py where the vtdx wheel is installed
C14N_PY_PEERS = ["vtdx-py"]
# vtdx from Python (bench/python/bench_py.py --harness), on the documents its XPath expressions are for.
PYTHON_DOCS = ["generated/po_small.xml", "generated/po_medium.xml", "generated/po_big.xml"]
PYTHON_QUICK_DOCS = ["generated/po_small.xml"]
PYTHON_PEERS = ["vtdx-py", "lxml", "etree", "simdxml-py"]
PYTHON_CASES = ["parse"] + [f"{p}xpath{i}" for i in range(1, 6) for p in ("", "parse+")] + ["tostring", "c14n"]
N_MESSAGES = 10_000
# cli: whole-process times of the vtdx binary beside xmllint (libxml2-utils), each command run once per
# round, the two programs alternating within a round; each cell is the median over the rounds.
CLI_DOCS = ["generated/po_big.xml", "generated/po_16mb.xml"]
CLI_QUICK_DOCS = ["generated/po_big.xml"]
CLI_ROUNDS = {"full": 15, "quick": 3}
# ... except that a (document, command) pair whose rounds have taken CLI_PAIR_BUDGET_S seconds stops
# after CLI_MIN_ROUNDS (xmllint --xpath on po_16mb takes seconds for some expressions)
CLI_MIN_ROUNDS, CLI_PAIR_BUDGET_S = 5, 12
# dsig: WS-Security header signing (Body + Timestamp, RSA-2048 SHA-256, Exclusive C14N, BinarySecurityToken) and
# verification, on a 2 KB, a 111 KB (WSS4J's test message) and a 2.7 MB SOAP message (quick: the 2 KB one).
# In-process peers: vtdx and the aws-lc floor (bench/src/bin/dsig_peers.rs), python-xmlsec, signxml and the
# OpenSSL floor (bench/peers/python/dsig_peer.py, in bench/out/venv-dsig), Apache Santuario (the JVM program);
# whole processes: the vtdx binary and xmlsec1 (run_dsig_cli). Inputs are prepared by dsig_prepare.
DSIG_DOCS = ["generated/soap_wss_2k.xml", "soap/plain-soap-1.1.xml", "generated/soap_big.xml"]
DSIG_QUICK_DOCS = ["generated/soap_wss_2k.xml"]
DSIG_SIGNERS = ["vtdx", "vtdx-cli", "xmlsec1", "python-xmlsec", "signxml", "santuario"]
DSIG_FLOORS = ["aws-lc", "openssl"]
DSIG_CLI_ROUNDS = {"full": 11, "quick": 3}
WSU_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
# xmlsec1 finds the References' targets by these ID attributes (its --id-attr option)
XMLSEC1_IDS = ["--id-attr:Id", "http://schemas.xmlsoap.org/soap/envelope/:Body", "--id-attr:Id",
               "http://www.w3.org/2003/05/soap-envelope:Body", "--id-attr:Id", f"{WSU_NS}:Timestamp"]
XPATH_EXPRS = ["/*/*/*[position() mod 2 = 0]", "/purchaseOrder/items/item[USPrice<100]", "/*/*/*/quantity/text()",
               "//item/comment", "//item/comment/../quantity"]

# Measurement policies (milliseconds; see bench/src/harness.rs for the loop).
POLICY = {
    "full": {"warmup": 50, "min": 250, "max": 2000, "samples": 10, "jvm_workload_warmup": 2000, "jvm_warmup": 100},
    "quick": {"warmup": 5, "min": 30, "max": 150, "samples": 5, "jvm_workload_warmup": 300, "jvm_warmup": 20},
}


def corpus_root():
    return Path(os.environ.get("VTDX_CORPUS", ROOT.parent / "shared" / "corpus")).resolve()


def bench_docs(quick):
    base = corpus_root() / "bench"
    if not base.is_dir():
        sys.exit(f"ERROR: the benchmark corpus is missing at {base} (set VTDX_CORPUS)")
    if quick:
        return [base / d for d in QUICK_DOCS]
    docs = sorted(base.glob("*/*.xml"), key=lambda p: (p.stat().st_size, str(p)))
    return docs


def doc_id(path):
    return str(Path(path).resolve().relative_to(corpus_root() / "bench"))


# ---------------------------------------------------------------- the 10,000 SOAP messages

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et "
         "dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea "
         "commodo consequat").split()
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar"]


def make_messages(template: bytes, n=N_MESSAGES, seed=20060523):
    """n distinct messages from soap_wss_2k.xml: same structure, every id, timestamp, token,
    digest, signature, symbol and text changed (deterministic; each as long as the template,
    2,048 bytes, unless ids grow past what the note text can absorb)."""
    t = template.decode("utf-8")
    fixed = {
        "ts_id": 'wsu:Id="TS-1"', "ut_id": 'wsu:Id="UT-2"', "ut_ref": 'URI="#UT-2"',
        "body_id": 'wsu:Id="Body-1"', "body_ref": 'URI="#Body-1"', "user": "<wsse:Username>alice<",
        "symbol": "<m:symbol>ACME<", "note": "<m:note>lorem ipsum dolor sit amet co<",
    }
    for k, v in fixed.items():
        if t.count(v) != 1:
            raise SystemExit(f"ERROR: soap_wss_2k.xml changed: expected {v!r} once (message generator needs updating)")
    tokens = re.findall(r">([A-Za-z0-9+/=]{20,})<", t)
    if len(tokens) < 4 or len(re.findall(r"<wsu:(Created|Expires)>", t)) < 3:
        raise SystemExit("ERROR: soap_wss_2k.xml changed: tokens/timestamps not found")
    rnd = random.Random(seed)
    out = []
    seen = set()
    for i in range(n):
        m = t
        m = m.replace(fixed["ts_id"], f'wsu:Id="TS-{i + 1}"')
        m = m.replace(fixed["ut_id"], f'wsu:Id="UT-{i + 2}"').replace(fixed["ut_ref"], f'URI="#UT-{i + 2}"')
        m = m.replace(fixed["body_id"], f'wsu:Id="Body-{i + 1}"').replace(fixed["body_ref"], f'URI="#Body-{i + 1}"')
        m = m.replace(fixed["user"], f"<wsse:Username>{rnd.choice(NAMES)}{rnd.randrange(100)}<")
        sym = "".join(rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rnd.randint(3, 5)))
        m = m.replace(fixed["symbol"], f"<m:symbol>{sym}<")
        for tok in tokens:
            m = m.replace(">" + tok + "<", ">" + "".join(rnd.choice(B64) for _ in tok) + "<", 1)
        created = 1_714_557_600 + i * 7
        m = re.sub(
            r"<wsu:(Created|Expires)>[^<]*<",
            lambda g: f"<wsu:{g.group(1)}>"
            + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created + (300 if g.group(1) == "Expires" else 0)))
            + "<",
            m,
        )
        # The note text absorbs the length changes above: every message is as long as the template.
        room = 29 - (len(m) - len(t))
        note = " ".join(rnd.choice(WORDS) for _ in range(12))[:max(room, 4)].rstrip().ljust(max(room, 4), "x")
        m = m.replace(fixed["note"], f"<m:note>{note}<")
        b = m.encode("utf-8")
        if b in seen:
            raise SystemExit("ERROR: generated a duplicate SOAP message")
        seen.add(b)
        out.append(b)
    return out


def message_bundle(quick):
    """The messages, NUL-separated, in bench/out/soap_messages.bin (regenerated when missing)."""
    path = OUT / f"soap_messages_{N_MESSAGES}.bin"
    if not path.exists():
        template = (corpus_root() / "bench" / "generated" / "soap_wss_2k.xml").read_bytes()
        msgs = make_messages(template)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(b"\0".join(msgs))
        tmp.rename(path)
    return path


# ---------------------------------------------------------------- running the programs

def python_interpreter():
    """(interpreter with the vtdx wheel, None) for the python workload, or (None, why not).
    bench/run finds or builds it (target/py, as scripts/test.sh makes it) and says so in
    VTDX_BENCH_PYTHON or VTDX_BENCH_PYTHON_SKIP."""
    py = os.environ.get("VTDX_BENCH_PYTHON")
    if py:
        return py, None
    why = os.environ.get("VTDX_BENCH_PYTHON_SKIP")
    if why:
        return None, why
    py = ROOT / "target" / "py" / "bin" / "python"
    if py.exists() and subprocess.run([str(py), "-c", "import vtdx"], capture_output=True).returncode == 0:
        return str(py), None
    return None, "no Python interpreter with the vtdx wheel (target/py; bench/run or scripts/test.sh builds it)"


def program_cmd(prog, quick=False, workload=None):
    if prog == "rust":
        target = Path(os.environ["CARGO_TARGET_DIR"]) if os.environ.get("CARGO_TARGET_DIR") else ROOT / "target"
        if not target.is_absolute():
            target = ROOT / target
        return [str(target / "release" / "rust_peers")]
    if prog in ("libxml2", "expat", "pugixml"):
        return [str(OUT / "bin" / f"{prog}_peer")]
    if prog == "lxml":
        return [sys.executable, str(BENCH / "peers" / "python" / "lxml_peer.py")]
    if prog == "python":
        return [python_interpreter()[0], str(BENCH / "python" / "bench_py.py"), "--harness"]
    if prog == "vtdx-py":
        return [python_interpreter()[0], str(BENCH / "peers" / "python" / "vtdx_py_peer.py")]
    if prog == "dsig-rust":
        target = Path(os.environ["CARGO_TARGET_DIR"]) if os.environ.get("CARGO_TARGET_DIR") else ROOT / "target"
        if not target.is_absolute():
            target = ROOT / target
        return [str(target / "release" / "dsig_peers")]
    if prog == "dsig-py":
        return [os.environ.get("VTDX_BENCH_DSIG_PYTHON", str(OUT / "venv-dsig" / "bin" / "python")),
                str(BENCH / "peers" / "python" / "dsig_peer.py")]
    if prog == "jvm":
        cp = f"{OUT / 'java' / 'target' / 'jvm-peers-0.1.0.jar'}:{OUT / 'java' / 'lib'}/*"
        opts = JVM_OPTS_QUICK if quick else JVM_OPTS_MEMORY if workload == "memory" else JVM_OPTS
        return ["java"] + opts + ["-cp", cp, "vtdxbench.Peers"]
    raise ValueError(prog)


class Failure(Exception):
    pass


def rust_bin(name):
    """The path of a release binary of this workspace (CARGO_TARGET_DIR honoured, as bench/run builds it)."""
    target = Path(os.environ["CARGO_TARGET_DIR"]) if os.environ.get("CARGO_TARGET_DIR") else ROOT / "target"
    if not target.is_absolute():
        target = ROOT / target
    return str(target / "release" / name)


def run_program(prog, workload, files, extra, timeout, log, quick=False):
    return run_cmd(program_cmd(prog, quick, workload) + [workload] + extra + [str(f) for f in files],
                   f"{prog} {workload}", timeout, log, len(files))


def run_cmd(cmd, label, timeout, log, nfiles=0):
    """Runs one peer program (the command line complete), with the peers' malloc settings; returns its JSON
    lines and the wall time. A non-zero exit, a time-out or a line that is not JSON is a Failure."""
    env = dict(os.environ)
    env.update(MALLOC_ENV)
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"{label}: timed out after {timeout} s")
    dt = time.monotonic() - t0
    log.write(f"$ {' '.join(cmd[:6])} ... ({nfiles} files) -> rc={r.returncode} in {dt:.1f} s\n")
    if r.stderr.strip():
        log.write(r.stderr[-4000:] + "\n")
    if r.returncode != 0:
        raise Failure(f"{label}: exit code {r.returncode}: {r.stderr.strip()[-800:]}")
    lines = []
    for ln in r.stdout.splitlines():
        ln = ln.strip()
        if not ln:
            continue
        try:
            lines.append(json.loads(ln))
        except json.JSONDecodeError:
            raise Failure(f"{label}: not a JSON line: {ln[:200]}")
    return lines, dt


def policy_args(pol, jvm=False, many=False):
    a = ["--warmup-ms", str(pol["jvm_warmup"] if jvm else pol["warmup"]), "--min-ms", str(pol["min"]),
         "--max-ms", str(pol["max"] * (3 if many else 1)), "--min-samples", str(max(3, pol["samples"] // 2) if many else pol["samples"])]
    if jvm:
        a += ["--workload-warmup-ms", str(pol["jvm_workload_warmup"])]
    return a


def run_workload(workload, mode, with_jvm, log):
    if workload in PLUGINS:
        return PLUGINS[workload].run(sys.modules[__name__], mode, with_jvm, log)
    quick = mode == "quick"
    pol = POLICY[mode]
    timeout = 120 if quick else 900
    docs = bench_docs(quick)
    results = []
    timings = {}

    def go(prog, files, extra, peers=None):
        ex = list(extra)
        if peers:
            ex = ["--peers", ",".join(peers)] + ex
        lines, dt = run_program(prog, workload, files, ex, timeout, log, quick)
        key = prog if not peers or prog != "jvm" else f"jvm:{peers[0]}"
        timings[key] = timings.get(key, 0) + dt
        for d in lines:
            d["program"] = prog
        results.extend(lines)
        print(f"    {key:<22} {len(lines):4d} results  {dt:6.1f} s", flush=True)

    def median_of_rounds(files, extra, label="round", progs=()):
        """Measures `files` again in rounds 2..HEADLINE_ROUNDS (every native program, and `progs`,
        once per round) and keeps each cell's median round: the target and headline cells."""
        nonlocal results
        more = []
        for r in range(2, HEADLINE_ROUNDS + 1):
            for prog in [p for p, _ in NATIVE_PROGRAMS] + list(progs):
                lines, dt = run_program(prog, workload, files, extra, timeout, log, quick)
                more.extend(lines)
                timings[prog] = timings.get(prog, 0) + dt
            print(f"    {label} {r}/{HEADLINE_ROUNDS}: {len(more)} results so far", flush=True)
        results = keep_median_round(results, more)

    if workload == "cli":
        docs = [corpus_root() / "bench" / d for d in (CLI_QUICK_DOCS if quick else CLI_DOCS)]
        t0 = time.monotonic()
        results = run_cli(docs, CLI_ROUNDS[mode], log)
        timings["cli"] = time.monotonic() - t0
        print(f"    cli: {len(results)} results in {timings['cli']:.1f} s", flush=True)
    elif workload == "scan":
        go("rust", docs, policy_args(pol), ["memchr", "memcpy", "vtdx-edit"])
    elif workload == "dsig":
        docs = [corpus_root() / "bench" / d for d in (DSIG_QUICK_DOCS if quick else DSIG_DOCS)]
        prep = dsig_prepare(mode, docs, log)
        os.environ.update(VTDX_BENCH_DSIG_DIR=str(prep["dir"]), VTDX_BENCH_DSIG_AT=prep["at"])
        progs = ["dsig-rust"]
        py_ok, why = dsig_python()
        if py_ok:
            progs.append("dsig-py")
        else:
            print(f"    dsig-py: not run: {why}", flush=True)
            for p in ("python-xmlsec", "signxml", "openssl"):
                for d in docs:
                    for c in (("rsa-sign", "rsa-verify", "sha256") if p == "openssl" else ("sign", "verify")):
                        results.append({"peer": p, "workload": "dsig", "file": str(d), "case": c, "status": "skip",
                                        "reason": f"not run: {why}", "program": "dsig-py"})
        for prog in progs:
            go(prog, docs, policy_args(pol))
        if with_jvm:
            # three times the policy's JIT warm-up: one sign is an RSA private-key operation and a DOM round trip
            ja = policy_args(pol, jvm=True)
            ja[ja.index("--workload-warmup-ms") + 1] = str(3 * pol["jvm_workload_warmup"])
            go("jvm", docs, ja, ["santuario"])
        else:
            for d in docs:
                for c in ("sign", "verify"):
                    results.append({"peer": "santuario", "workload": "dsig", "file": str(d), "case": c, "status": "skip",
                                    "reason": "not run: no JVM (--no-jvm, or no java)", "program": "jvm"})
        t0 = time.monotonic()
        results.extend(run_dsig_cli(docs, DSIG_CLI_ROUNDS[mode], prep, log))
        timings["dsig-cli"] = time.monotonic() - t0
        print(f"    dsig-cli (vtdx, xmlsec1) {time.monotonic() - t0:6.1f} s", flush=True)
        if not quick:
            # the target cells: the median of interleaved rounds of the in-process programs (the JVM, with its
            # JIT warm-up, and the whole processes, in rounds of their own, are from their one run)
            more = []
            for r in range(2, HEADLINE_ROUNDS + 1):
                for prog in progs:
                    lines, dt = run_program(prog, workload, docs, policy_args(pol), timeout, log, quick)
                    for x in lines:
                        x["program"] = prog
                    more.extend(lines)
                    timings[prog] = timings.get(prog, 0) + dt
                print(f"    round {r}/{HEADLINE_ROUNDS}: {len(more)} results so far", flush=True)
            results = keep_median_round(results, more)
        dsig_crosscheck(results, prep, log)
    elif workload == "c14n":
        # every native program: the ones without Canonical XML print a skip line per document; the JVM
        # peers have none (Apache Santuario would be Java's; it is not among the peers)
        docs = [corpus_root() / "bench" / d for d in (C14N_QUICK_DOCS if quick else C14N_DOCS)]
        for prog, _peers in NATIVE_PROGRAMS:
            go(prog, docs, policy_args(pol))
        # vtdx from Python, the Python pairing of the targets (lxml is the other side)
        py, why = python_interpreter()
        if py:
            go("vtdx-py", docs, policy_args(pol))
        else:
            print(f"    vtdx-py: not run: {why}", flush=True)
            for p in C14N_PY_PEERS:
                for d in docs:
                    results.append({"peer": p, "workload": "c14n", "file": str(d), "status": "skip",
                                    "reason": f"not run: {why}", "program": "vtdx-py"})
        if not quick:
            # the target cells (the SOAP documents): the median of interleaved rounds, as for
            # the headline cells
            median_of_rounds([d for d in docs if "soap" in d.name], policy_args(pol), progs=["vtdx-py"] if py else [])
    elif workload == "xpath-eval":
        # every native program (the ones without XPath print a skip line per expression); no JVM peer
        docs = [corpus_root() / "bench" / d for d in (XPATH_EVAL_QUICK_DOCS if quick else XPATH_EVAL_DOCS)]
        for prog, _peers in NATIVE_PROGRAMS:
            go(prog, docs, policy_args(pol))
        if not quick:
            # a target cell of the XPath issue: the median of interleaved rounds, as for the headline
            median_of_rounds(docs, policy_args(pol))
    elif workload == "python":
        docs = [corpus_root() / "bench" / d for d in (PYTHON_QUICK_DOCS if quick else PYTHON_DOCS)]
        py, why = python_interpreter()
        if py:
            go("python", docs, policy_args(pol))
        else:
            # not silent: a blank section with the reason in the report, and a note (a failure in a full run)
            print(f"    python: not run: {why}", flush=True)
            for p in PYTHON_PEERS:
                for d in docs:
                    results.append({"peer": p, "workload": "python", "file": str(d), "status": "skip",
                                    "reason": f"not run: {why}", "program": "python"})
    elif workload == "memory":
        mdocs = [corpus_root() / "bench" / d for d in (["generated/po_big.xml"] if quick else MEMORY_DOCS)]
        for prog, peers in NATIVE_PROGRAMS + ([("jvm", JVM_PEERS)] if with_jvm and not quick else []):
            for p in peers:
                if p in MEMORY_SKIP:
                    continue  # one parse in a fresh process: the same as its default variant
                for d in mdocs:
                    lines, dt = run_program(prog, "memory", [d], ["--peers", p], timeout, log)
                    for x in lines:
                        x["program"] = prog
                    results.extend(lines)
                    timings[p] = timings.get(p, 0) + dt
        print(f"    memory: {len(results)} results in {sum(timings.values()):.1f} s", flush=True)
    else:
        if workload == "xpath":
            files = [corpus_root() / "bench" / d for d in (XPATH_DOCS[:1] if quick else XPATH_DOCS)]
        elif workload == "many":
            files = [message_bundle(quick)]
        else:
            files = docs
        many = workload == "many"
        for prog, _peers in NATIVE_PROGRAMS:
            go(prog, files, policy_args(pol, many=many))
        if not quick and workload in ("parse", "many"):
            # every parse cell, not only the headline's: the many-document targets (every document of the
            # corpus at least as fast as pugixml) are judged on them, and single rounds swing by tens of percent
            median_of_rounds(files, policy_args(pol, many=many), "round")
        if with_jvm:
            if quick:
                # A smoke test that the JVM peers still build, run and agree with the others: one JVM for
                # all four, on po_small only, and not the many-messages workload (seconds per pass).
                if not many:
                    go("jvm", [f for f in files if f.name == "po_small.xml"], policy_args(pol, jvm=True))
            else:
                for p in JVM_PEERS:  # one JVM per peer, each with its own JIT warm-up
                    go("jvm", files, policy_args(pol, jvm=True, many=many), [p])
    return results, timings, [doc_id(d) for d in docs]


def keep_median_round(results, extra):
    """For each cell (peer, file, and expression or case) measured again in `extra`, keep the round
    with the median latency."""
    def cell(x):
        return (x["peer"], x.get("file"), x.get("expr"), x.get("case"), x.get("from"))
    more = {}
    for x in extra:
        if x.get("status") == "ok":
            more.setdefault(cell(x), []).append(x)
    out = []
    for r in results:
        rounds = more.get(cell(r))
        if r.get("status") == "ok" and rounds:
            alls = sorted([r] + rounds, key=lambda y: y["median_ns"])
            pick = dict(alls[len(alls) // 2])
            pick["program"] = r.get("program")
            pick["rounds"] = len(alls)
            pick["round_medians_ns"] = [y["median_ns"] for y in [r] + rounds]
            out.append(pick)
        else:
            out.append(r)
    return out


# ---------------------------------------------------------------- the cli workload

def vtdx_binary():
    target = Path(os.environ["CARGO_TARGET_DIR"]) if os.environ.get("CARGO_TARGET_DIR") else ROOT / "target"
    if not target.is_absolute():
        target = ROOT / target
    return target / "release" / "vtdx"


def spawn_timed(argv):
    """Runs `argv` once, as a user would from a shell: posix_spawn in the driver's own environment
    (not the peers' malloc settings), standard output and error to /dev/null, reaped with wait4.
    Returns (wall-clock ns from spawn to reaped, user + system CPU ns, peak RSS bytes, exit code);
    the RSS is not the program's own here (see run_untimed)."""
    fa = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
    return t1 - t0, round((ru.ru_utime + ru.ru_stime) * 1e9), ru.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def run_untimed(argv):
    """Runs `argv` once under GNU time (Debian package `time`), capturing its output: (exit code, stdout,
    stderr, peak RSS bytes or None). Linux reports as a process's peak RSS the larger of its own and that
    of the address space it had before exec, which for a child of the driver is the driver's own (tens of
    MB of Python); GNU time's children start from GNU time's small one, so the figure is the program's."""
    gnu_time = "/usr/bin/time"
    if not os.access(gnu_time, os.X_OK):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        return r.returncode, r.stdout, r.stderr, None
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as t:
        r = subprocess.run([gnu_time, "-f", "%M", "-o", t.name] + argv, capture_output=True, text=True, timeout=600)
        try:
            rss = int(t.read().split()[-1]) * 1024
        except (ValueError, IndexError):
            rss = None
    return r.returncode, r.stdout, r.stderr, rss


def cli_commands(docs):
    """(peer, document, case, expression number or None, argv, the command as shown) of the cli workload:
    per document `vtdx check` beside `xmllint --noout`, and per seed expression `vtdx query --count`
    beside `xmllint --xpath 'count(EXPR)'`."""
    vt, xl = str(vtdx_binary()), shutil.which("xmllint") or "xmllint"
    cmds = []
    for d in docs:
        cmds.append(("vtdx-cli", d, "check", None, [vt, "check", str(d)], "vtdx check FILE"))
        cmds.append(("xmllint", d, "check", None, [xl, "--noout", str(d)], "xmllint --noout FILE"))
        for i, e in enumerate(XPATH_EXPRS, 1):
            cmds.append(("vtdx-cli", d, "count", i, [vt, "query", "--count", str(d), e], "vtdx query --count FILE EXPR"))
            cmds.append(("xmllint", d, "count", i, [xl, "--xpath", f"count({e})", str(d)], "xmllint --xpath 'count(EXPR)' FILE"))
    return cmds


def run_cli(docs, rounds, log):
    """The cli workload: whole-process times. One untimed run of every command first (its output is
    checked, and the document is in the page cache), then `rounds` rounds; in each round every
    (document, case) runs its two programs one right after the other, which one first alternating
    from round to round (a pair whose rounds have taken CLI_PAIR_BUDGET_S stops after CLI_MIN_ROUNDS).
    Each cell is the median over its rounds (`round_ns` holds them all)."""
    cmds = cli_commands(docs)
    missing = []
    if not vtdx_binary().exists():
        missing.append(f"no vtdx binary at {vtdx_binary()} (cargo build --release -p vtdx-cli)")
    if not shutil.which("xmllint"):
        missing.append("no xmllint on PATH (Debian package libxml2-utils; bench/run installs it)")
    results = []

    def line(peer, d, case, e, shown, **kw):
        r = {"peer": peer, "workload": "cli", "file": str(d), "case": case, "command": shown, "program": "cli"}
        if e is not None:
            r.update(expr=e, xpath=XPATH_EXPRS[e - 1])
        r.update(kw)
        return r
    if missing:
        return [line(p, d, c, e, shown, status="error", reason="; ".join(missing)) for p, d, c, e, _, shown in cmds]
    counts, rss, bad = {}, {}, set()
    for p, d, c, e, argv, shown in cmds:
        rc, out, err, rss[(p, d, c, e)] = run_untimed(argv)
        log.write(f"$ {' '.join(argv)} -> rc={rc}\n")
        if rc != 0:
            results.append(line(p, d, c, e, shown, status="error", reason=f"exit code {rc}: {err.strip()[-300:]}"))
            bad.add((p, d, c, e))
        elif c == "count":
            try:
                counts[(p, d, e)] = int(float(out.split()[-1]))
            except (ValueError, IndexError):
                results.append(line(p, d, c, e, shown, status="error", reason=f"not a count: {out[:100]!r}"))
                bad.add((p, d, c, e))
    pairs = {}
    for cmd in cmds:
        if cmd[:4] not in bad:
            pairs.setdefault((cmd[1], cmd[2], cmd[3]), []).append(cmd)
    samples, spent = {}, {}
    for k in range(rounds):
        for key, pair in pairs.items():
            if k >= min(CLI_MIN_ROUNDS, rounds) and spent.get(key, 0) > CLI_PAIR_BUDGET_S * 1e9:
                continue
            for p, d, c, e, argv, shown in (pair if k % 2 == 0 else pair[::-1]):
                got = spawn_timed(argv)
                samples.setdefault((p, d, c, e), []).append(got)
                spent[key] = spent.get(key, 0) + got[0]
    for p, d, c, e, argv, shown in cmds:
        got = samples.get((p, d, c, e))
        if not got:
            continue
        failed = [x[3] for x in got if x[3] != 0]
        if failed:
            results.append(line(p, d, c, e, shown, status="error", reason=f"exit code {failed[0]} in a timed round"))
            continue
        wall = sorted(x[0] for x in got)
        size = Path(d).stat().st_size
        med = statistics.median(wall)
        r = line(p, d, c, e, shown, status="ok", median_ns=med, min_ns=wall[0], max_ns=wall[-1], rounds=len(got),
                 round_ns=[x[0] for x in got], cpu_ns=statistics.median(x[1] for x in got),
                 maxrss_bytes=rss[(p, d, c, e)], bytes=size, mbps=size * 1e3 / med, pair_budget_s=CLI_PAIR_BUDGET_S)
        if (p, d, e) in counts:
            r["count"] = counts[(p, d, e)]
        results.append(r)
    return results


# ---------------------------------------------------------------- the dsig workload

def dsig_python():
    """(True, None) when the dsig venv (bench/run makes it) has python-xmlsec and signxml, else (False, why not)."""
    py = os.environ.get("VTDX_BENCH_DSIG_PYTHON", str(OUT / "venv-dsig" / "bin" / "python"))
    if not Path(py).exists():
        return False, f"no {py} (bench/run makes it with --only dsig or a full run)"
    r = subprocess.run([py, "-c", "import lxml.etree, xmlsec, signxml, cryptography"], capture_output=True, text=True)
    if r.returncode != 0:
        return False, "python-xmlsec or signxml does not import: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    return True, None


def dsig_key(log):
    """The RSA-2048 test key (PKCS#8) and its self-signed certificate, made once with openssl in bench/out/dsig-key."""
    kdir = OUT / "dsig-key"
    key, cert = kdir / "key.pem", kdir / "cert.pem"
    if not (key.exists() and cert.exists()):
        kdir.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                            "-days", "3650", "-sha256", "-subj", "/CN=vtdx bench signer"], capture_output=True, text=True)
        log.write(f"$ openssl req -x509 -newkey rsa:2048 ... -> rc={r.returncode}\n{r.stderr[-2000:]}\n")
        if r.returncode != 0:
            raise Failure(f"dsig: openssl could not make the test key: {r.stderr.strip()[-300:]}")
    return key, cert


def unsigned_message(x):
    """The message to sign: the corpus message without the Signature and Timestamp a Security header may hold
    (soap_wss_2k's Signature is a placeholder that does not verify; a signer makes its own Timestamp)."""
    t = x.decode("utf-8")
    t = re.sub(r"<ds:Signature[ >].*?</ds:Signature>\s*", "", t, flags=re.S)
    t = re.sub(r"<wsu:Timestamp[ >].*?</wsu:Timestamp>\s*", "", t, flags=re.S)
    return t.encode("utf-8")


def dsig_prepare(mode, docs, log):
    """Per document S, in bench/out/<mode>/dsig: S.unsigned.xml (the input of every signer), S.signed.xml (signed
    once by `vtdx sign --wss`: the input of every verifier) and S.template.xml (S.signed.xml with its DigestValues
    and SignatureValue emptied: what `xmlsec1 --sign` fills in), key.pem and cert.pem; `at`, when S.signed.xml was
    made (vtdx judges its Timestamp as of then). vtdx's signature is checked by xmlsec1 and by vtdx before anything
    is timed; a failure fails the workload."""
    d = OUT / mode / "dsig"
    if d.exists():
        shutil.rmtree(d)
    (d / "out").mkdir(parents=True)
    key, cert = dsig_key(log)
    shutil.copy(key, d / "key.pem")
    shutil.copy(cert, d / "cert.pem")
    vt = str(vtdx_binary())
    if not Path(vt).exists():
        raise Failure(f"dsig: no vtdx binary at {vt} (cargo build --release -p vtdx-cli; bench/run builds it)")
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for doc in docs:
        stem = doc.stem
        u, sgn, tpl = d / f"{stem}.unsigned.xml", d / f"{stem}.signed.xml", d / f"{stem}.template.xml"
        u.write_bytes(unsigned_message(doc.read_bytes()))
        cmd = [vt, "sign", "--key", str(d / "key.pem"), "--cert", str(d / "cert.pem"), "--wss", "-o", str(sgn), str(u)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        log.write(f"$ {' '.join(cmd)} -> rc={r.returncode}\n{r.stderr[-2000:]}\n")
        if r.returncode != 0:
            raise Failure(f"dsig: vtdx sign --wss {u.name} failed: {r.stderr.strip()[-300:]}")
        t = sgn.read_text("utf-8")
        t = re.sub(r"(<ds:DigestValue>)[^<]*(</ds:DigestValue>)", r"\1\2", t)
        t = re.sub(r"(<ds:SignatureValue>)[^<]*(</ds:SignatureValue>)", r"\1\2", t)
        tpl.write_text(t, "utf-8")
        for what, argv in (("xmlsec1 --verify", xmlsec1_verify_argv(d, sgn)), ("vtdx verify", vtdx_verify_argv(d, sgn, at))):
            r = subprocess.run(argv, capture_output=True, text=True)
            if r.returncode != 0:
                raise Failure(f"dsig: {what} rejects vtdx's signature of {stem}: {(r.stderr + r.stdout).strip()[-300:]}")
    return {"dir": d, "at": at, "key": d / "key.pem", "cert": d / "cert.pem"}


def xmlsec1_verify_argv(d, f):
    return [shutil.which("xmlsec1") or "xmlsec1", "--verify", "--pubkey-cert-pem", str(d / "cert.pem")] + XMLSEC1_IDS + [str(f)]


def vtdx_verify_argv(d, f, at=None):
    """`vtdx verify` as the cross-check runs it: the Body and the Timestamp must be covered; Timestamps judged as of
    `at`, or (for the other signers' outputs, made during the run) now with a day's clock skew allowed."""
    when = ["--at", at] if at else ["--max-clock-skew", "86400"]
    return [str(vtdx_binary()), "verify", "--cert", str(d / "cert.pem"), "--require-timestamp"] + when + [str(f)]


def run_dsig_cli(docs, rounds, prep, log):
    """Whole processes, as run_cli times them: per document `vtdx sign --wss` beside `xmlsec1 --sign` (of the template)
    and `vtdx verify` beside `xmlsec1 --verify` (of S.signed.xml). Each command runs once untimed, writing its output
    for the cross-check, then `rounds` times, the two programs of a pair one right after the other, alternating."""
    d, at = prep["dir"], prep["at"]
    vt, xs = str(vtdx_binary()), shutil.which("xmlsec1")
    key, cert = str(prep["key"]), str(prep["cert"])
    results = []

    def line(peer, doc, case, **kw):
        r = {"peer": peer, "workload": "dsig", "file": str(doc), "case": case, "program": "dsig-cli"}
        r.update(kw)
        return r
    cmds = []
    for doc in docs:
        s = doc.stem
        u, sgn, tpl = d / f"{s}.unsigned.xml", d / f"{s}.signed.xml", d / f"{s}.template.xml"
        for peer in ("vtdx-cli", "xmlsec1"):
            (d / "out" / peer).mkdir(parents=True, exist_ok=True)
        out_v, out_x = d / "out" / "vtdx-cli" / f"{s}.xml", d / "out" / "xmlsec1" / f"{s}.xml"
        cmds += [
            ("vtdx-cli", doc, "sign", [vt, "sign", "--key", key, "--cert", cert, "--wss", str(u)], ["-o", str(out_v)], out_v, u,
             "vtdx sign --key KEY --cert CERT --wss FILE"),
            ("xmlsec1", doc, "sign", [xs, "--sign", "--privkey-pem", f"{key},{cert}"] + XMLSEC1_IDS + [str(tpl)],
             ["--output", str(out_x)], out_x, tpl, "xmlsec1 --sign --privkey-pem KEY,CERT --id-attr:Id … TEMPLATE"),
            ("vtdx-cli", doc, "verify", [vt, "verify", "--cert", cert, "--at", at, str(sgn)], [], None, sgn,
             "vtdx verify --cert CERT --at TIME FILE"),
            ("xmlsec1", doc, "verify", xmlsec1_verify_argv(d, sgn), [], None, sgn, "xmlsec1 --verify --pubkey-cert-pem CERT --id-attr:Id … FILE"),
        ]
    if not xs:
        return [line(p, doc, c, status="skip", reason="no xmlsec1 on PATH (Debian package xmlsec1; bench/run installs it)")
                if p == "xmlsec1" else line(p, doc, c, status="error", reason="no xmlsec1 to run beside it")
                for p, doc, c, *_ in cmds]
    bad = {}
    for p, doc, c, argv, outopt, outf, inp, shown in cmds:
        # the untimed run writes the output file (xmlsec1: --output goes before the input file)
        full = argv[:2] + outopt + argv[2:]
        r = subprocess.run(full, capture_output=True, text=True)
        log.write(f"$ {' '.join(full)} -> rc={r.returncode}\n")
        if r.returncode != 0:
            bad[(p, doc, c)] = f"exit code {r.returncode}: {(r.stderr + r.stdout).strip()[-300:]}"
    samples = {}
    pairs = {}
    for cmd in cmds:
        if cmd[:3] not in bad:
            pairs.setdefault((cmd[1], cmd[2]), []).append(cmd)
    for k in range(rounds):
        for key_, pair in pairs.items():
            for cmd in (pair if k % 2 == 0 else pair[::-1]):
                samples.setdefault(cmd[:3], []).append(spawn_timed(cmd[3]))
    for p, doc, c, argv, outopt, outf, inp, shown in cmds:
        if (p, doc, c) in bad:
            results.append(line(p, doc, c, status="rejected" if c == "verify" else "error", reason=bad[(p, doc, c)], command=shown))
            continue
        got = samples.get((p, doc, c), [])
        failed = [x[3] for x in got if x[3] != 0]
        if failed or not got:
            results.append(line(p, doc, c, status="error", reason=f"exit code {failed[0] if failed else '?'} in a timed round", command=shown))
            continue
        wall = sorted(x[0] for x in got)
        med = statistics.median(wall)
        size = inp.stat().st_size
        r = line(p, doc, c, status="ok", median_ns=med, min_ns=wall[0], rounds=len(got), round_ns=[x[0] for x in got],
                 cpu_ns=statistics.median(x[1] for x in got), bytes=size, mbps=size * 1e3 / med, msgs_per_s=1e9 / med,
                 command=shown, whole_process=True)
        if outf is not None:
            r.update(out_file=str(outf), out_bytes=outf.stat().st_size)
        results.append(r)
    return results


def dsig_crosscheck(results, prep, log):
    """Every signer's output (written once outside its timed loop) is verified by `vtdx verify` (Body and Timestamp
    covered), and vtdx's own also by `xmlsec1 --verify`; the result goes into the sign cell (`crosscheck`)."""
    for r in results:
        if r.get("case") != "sign" or r.get("status") != "ok":
            continue
        f = r.get("out_file")
        if not f or not Path(f).exists():
            r["crosscheck"] = {"ok": False, "by": "vtdx verify", "reason": "no output file to check"}
            continue
        checks = [("vtdx verify", vtdx_verify_argv(prep["dir"], f))]
        if r["peer"] in ("vtdx", "vtdx-cli"):
            checks.append(("xmlsec1 --verify", xmlsec1_verify_argv(prep["dir"], f)))
        res = {"ok": True, "by": ", ".join(w for w, _ in checks)}
        for what, argv in checks:
            p = subprocess.run(argv, capture_output=True, text=True)
            log.write(f"$ {' '.join(argv)} -> rc={p.returncode}\n")
            if p.returncode != 0:
                res = {"ok": False, "by": what, "reason": (p.stderr + p.stdout).strip()[-300:]}
                break
        r["crosscheck"] = res


# ---------------------------------------------------------------- checks

def has_dtd(path):
    with open(path, "rb") as fh:
        head = fh.read(4096)
    return b"<!DOCTYPE" in head


def check(workload, results, docs, with_jvm, quick):
    """Cross-checks; returns (failures, notes). A failure makes the run exit non-zero."""
    fails, notes = [], []
    peers = [p for p in ALL_PEERS if with_jvm or p not in JVM_PEERS]
    if quick and workload in ("many", "memory"):
        peers = [p for p in peers if p not in JVM_PEERS]

    def expected(p, d):  # the quick run's JVM smoke test covers po_small only
        return not (quick and p in JVM_PEERS and d != "generated/po_small.xml")
    for r in results:
        if r.get("status") == "error":
            fails.append(f"{workload}: {r['peer']} on {r.get('doc')}: {r.get('reason')}")
        if r.get("reparse_error"):
            fails.append(f"{workload}: {r['peer']} output of {r.get('doc')} does not re-parse: {r['reparse_error']}")
    by = {}
    for r in results:
        by.setdefault((r["peer"], r.get("doc"), r.get("expr")), r)
    generated = lambda d: d.startswith("generated/") or d.startswith("soap_messages")

    if workload in ("parse", "roundtrip"):
        for d in docs:
            for p in peers:
                if (p, d, None) not in by:
                    if expected(p, d):
                        fails.append(f"{workload}: no result for {p} on {d}")
                elif by[(p, d, None)]["status"] == "rejected" and generated(d):
                    fails.append(f"{workload}: {p} rejected {d}: {by[(p, d, None)].get('reason')}")
    if workload == "parse":
        for d in docs:
            counts = {p: by[(p, d, None)]["elements"] for p in peers if (p, d, None) in by and by[(p, d, None)]["status"] == "ok"}
            if len(set(counts.values())) > 1:
                msg = f"parse: element counts differ on {d}: " + ", ".join(f"{p}={n}" for p, n in sorted(counts.items()))
                if has_dtd(corpus_root() / "bench" / d):
                    notes.append(msg + " (the document declares entities in its DTD; peers that keep entity "
                                 "references unexpanded count fewer elements)")
                else:
                    fails.append(msg)
    if workload == "roundtrip":
        for r in results:
            if r["status"] != "ok":
                continue
            if r["peer"] in ("vtdx", "vtdx-reuse", "vtd-xml", "vtd-xml-reuse") and not r.get("identical"):
                fails.append(f"roundtrip: {r['peer']} output of {r['doc']} is not byte-identical to the input")
            ref = by.get(("vtdx", r["doc"], None))
            if ref and ref.get("out_elements") is not None and "out_elements" in r and not has_dtd(corpus_root() / "bench" / r["doc"]):
                if r["out_elements"] != ref["out_elements"]:
                    fails.append(f"roundtrip: {r['peer']} output of {r['doc']} has {r['out_elements']} elements, vtdx's {ref['out_elements']}")
    if workload == "xpath":
        xdocs = sorted({r["doc"] for r in results})
        for d in xdocs:
            for e in range(1, 6):
                cells = {p: by.get((p, d, e)) for p in peers}
                for p, c in cells.items():
                    if c is None:
                        fails.append(f"xpath: no result for {p} on {d} expression {e}")
                ok = {p: c for p, c in cells.items() if c and c["status"] == "ok"}
                sel = {p: c["selected"] for p, c in ok.items()}
                outs = {p: c.get("out_elements") for p, c in ok.items()}
                if len(ok) < 2:
                    fails.append(f"xpath: fewer than two peers ran {d} expression {e}")
                if len(set(sel.values())) > 1:
                    fails.append(f"xpath: peers disagree on the nodes selected by expression {e} on {d}: {sel}")
                if len(set(outs.values())) > 1:
                    fails.append(f"xpath: peers disagree on the elements left by expression {e} on {d}: {outs}")
    if workload == "xpath-eval":
        # every native peer has a line per (document, expression); the XPath peers agree on the count,
        # and with the xpath workload's "selected" counts from the same mode's last run
        prev = {}
        xf = OUT / ("quick" if quick else "full") / "results" / "xpath.jsonl"
        if xf.exists():
            for ln in xf.read_text().splitlines():
                r = json.loads(ln)
                if r.get("status") == "ok" and "selected" in r:
                    prev.setdefault((r.get("doc"), r.get("expr")), set()).add(r["selected"])
        for d in docs:
            for e in range(1, 6):
                for p in [q for _, qs in NATIVE_PROGRAMS for q in qs]:
                    r = by.get((p, d, e))
                    if r is None:
                        fails.append(f"xpath-eval: no result (not even a skip line) for {p} on {d} expression {e}")
                    elif p in XPATH_EVAL_PEERS and p != "simdxml" and r["status"] != "ok":
                        fails.append(f"xpath-eval: {p} on {d} expression {e}: {r['status']}: {r.get('reason')}")
                sel = {p: by[(p, d, e)]["selected"] for p in XPATH_EVAL_PEERS if by.get((p, d, e), {}).get("status") == "ok"}
                if len(set(sel.values())) > 1:
                    fails.append(f"xpath-eval: peers disagree on the nodes selected by expression {e} on {d}: {sel}")
                old = prev.get((d, e), set())
                if sel and old and set(sel.values()) != old:
                    fails.append(f"xpath-eval: expression {e} on {d} selects {sorted(set(sel.values()))}, the xpath workload "
                                 f"removed {sorted(old)}")
    if workload == "many":
        ok = {r["peer"]: r for r in results if r["status"] == "ok"}
        for p in peers:
            if p not in ok:
                fails.append(f"many: no result for {p}")
        if len({r["messages"] for r in ok.values()}) > 1 or any(r["messages"] != N_MESSAGES for r in ok.values()):
            fails.append("many: peers saw different numbers of messages: " + str({p: r["messages"] for p, r in ok.items()}))
        if len({r["elements"] for r in ok.values()}) > 1:
            fails.append("many: element counts differ: " + str({p: r["elements"] for p, r in ok.items()}))
    if workload == "memory":
        if not any(r["peer"] == "vtdx" and r["status"] == "ok" and r.get("index_bytes") for r in results):
            fails.append("memory: no vtdx result with index bytes")
    if workload == "c14n":
        cells = {(r["peer"], r.get("doc"), r.get("case"), r.get("from")): r for r in results}
        # vtdx from Python without its wheel: one skip line per document; a note in a quick run, a failure in a full one
        not_run = {r["peer"] for r in results if r["peer"] in C14N_PY_PEERS and r["status"] == "skip" and r.get("case") is None}
        for p in sorted(not_run):
            msg = f"c14n: {p} {next(r['reason'] for r in results if r['peer'] == p and r.get('case') is None)}"
            (notes if quick else fails).append(msg)
        for d in docs:
            for p in [q for _, qs in NATIVE_PROGRAMS for q in qs if q not in C14N_PEERS]:
                if not any(r["peer"] == p and r.get("doc") == d for r in results):
                    fails.append(f"c14n: no result (not even a skip line) for {p} on {d}")
            cases = [("parse", "bytes")] + [(c, f) for c in ("c14n", "exc") + (("exc-body",) if "soap" in d else ())
                                            for f in ("tree", "bytes")]
            for case, frm in cases:
                for p in [q for q in C14N_PEERS if q not in not_run]:
                    r = cells.get((p, d, case, frm))
                    if r is None:
                        fails.append(f"c14n: no result for {p} on {d} ({case} from {frm})")
                    elif r["status"] == "rejected" and generated(d):
                        fails.append(f"c14n: {p} rejected {d}: {r.get('reason')}")
            for case in ("c14n", "exc", "exc-body"):
                ok = {(p, f): cells[(p, d, case, f)] for p in C14N_PEERS for f in ("tree", "bytes")
                      if cells.get((p, d, case, f), {}).get("status") == "ok"}
                if not ok:
                    continue
                outs = {k: (r["out_bytes"], r["out_crc32"]) for k, r in ok.items()}
                if len(set(outs.values())) > 1:
                    fails.append(f"c14n: canonical outputs of {d} ({case}) differ (bytes, CRC-32): "
                                 + ", ".join(f"{p} from {f}={v[0]}/{v[1]}" for (p, f), v in sorted(outs.items())))
                if len({(r["bytes"], r["doc_bytes"]) for (p, f), r in ok.items() if f == "tree"}) > 1:
                    fails.append(f"c14n: peers disagree on the input bytes of {d} ({case})")
    if workload == "python":
        cells = {(r["peer"], r.get("doc"), r.get("case")): r for r in results}
        skipped = [r for r in results if r["peer"] == "vtdx-py" and r["status"] == "skip" and r.get("case") is None]
        if skipped:
            msg = f"python: {skipped[0]['reason']}"
            (notes if quick else fails).append(msg)
            return fails, notes
        for d in docs:
            for c in PYTHON_CASES:
                ref = cells.get(("lxml", d, c))
                for p in PYTHON_PEERS:
                    r = cells.get((p, d, c))
                    if r is None:
                        fails.append(f"python: no result for {p} on {d} ({c})")
                    elif r["status"] != "ok" and p in ("vtdx-py", "lxml"):
                        fails.append(f"python: {p} on {d} ({c}): {r['status']}: {r.get('reason')}")
                    elif r["status"] == "ok" and r.get("mismatch"):
                        # vtdx and lxml must agree; another peer's disagreement is its own, shown in its cell
                        (fails if p in ("vtdx-py", "lxml") else notes).append(f"python: {p} on {d} ({c}): {r['mismatch']}")
                v = cells.get(("vtdx-py", d, c))
                if v and ref and v["status"] == ref["status"] == "ok":
                    if v.get("results") != ref.get("results"):
                        fails.append(f"python: vtdx-py and lxml return different numbers of results on {d} ({c}): "
                                     f"{v.get('results')} and {ref.get('results')}")
                    if (v.get("out_bytes"), v.get("out_crc32")) != (ref.get("out_bytes"), ref.get("out_crc32")):
                        fails.append(f"python: vtdx-py's canonical output of {d} differs from lxml's")
    if workload == "cli":
        cells = {(r["peer"], r.get("doc"), r.get("case"), r.get("expr")): r for r in results}
        for d in docs:
            for c, e in [("check", None)] + [("count", i) for i in range(1, 6)]:
                got = {p: cells.get((p, d, c, e)) for p in ("vtdx-cli", "xmllint")}
                for p, r in got.items():
                    if r is None:
                        fails.append(f"cli: no result for {p} on {d} ({c}{'' if e is None else f' expression {e}'})")
                n = {p: r.get("count") for p, r in got.items() if r and r.get("status") == "ok" and c == "count"}
                if len(n) == 2 and len(set(n.values())) > 1:
                    fails.append(f"cli: vtdx query --count and xmllint --xpath count() disagree on expression {e} on {d}: {n}")
    if workload == "dsig":
        cells = {(r["peer"], r.get("doc"), r.get("case")): r for r in results}
        for d in docs:
            for p in DSIG_SIGNERS + DSIG_FLOORS:
                for c in (("rsa-sign", "rsa-verify", "sha256") if p in DSIG_FLOORS else ("sign", "verify")):
                    r = cells.get((p, d, c))
                    if r is None:
                        fails.append(f"dsig: no result (not even a skip line) for {p} on {d} ({c})")
                    elif p in ("vtdx", "vtdx-cli", "aws-lc") and r["status"] != "ok":
                        fails.append(f"dsig: {p} on {d} ({c}): {r['status']}: {r.get('reason')}")
                    elif r["status"] == "rejected":
                        notes.append(f"dsig: {p} does not verify vtdx's signature of {d}: {r.get('reason')}")
                    elif r["status"] == "skip":
                        msg = f"dsig: {p}: {r.get('reason')}"
                        bucket = notes if quick or p == "santuario" else fails
                        if msg not in bucket:
                            bucket.append(msg)
                    x = (r or {}).get("crosscheck")
                    if x and not x["ok"]:
                        msg = f"dsig: the signature {p} made of {d} fails the cross-check ({x['by']}): {x.get('reason')}"
                        # vtdx's own signatures must pass xmlsec1 and vtdx; another signer's failure is marked in its cell
                        (fails if p in ("vtdx", "vtdx-cli") else notes).append(msg)
    if workload == "scan":
        for d in docs:
            for p in ("memchr", "memcpy", "vtdx-edit"):
                if (p, d, None) not in by:
                    fails.append(f"scan: no {p} result for {d}")
    return fails, notes


# ---------------------------------------------------------------- machine and versions

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:
        return ""


def machine_info():
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    model = model.group(1).strip() if model else platform_fallback()
    mhz = [float(x) for x in re.findall(r"^cpu MHz\s*:\s*([\d.]+)", cpuinfo, re.M)]
    lscpu = sh("lscpu")
    lsf = dict(re.findall(r"^([^:]+):\s*(.*)$", lscpu, re.M))
    ghz, source = None, None
    m = re.search(r"@\s*([\d.]+)\s*GHz", model)
    if m:
        ghz, source = float(m.group(1)), "the CPU model name"
    elif Path("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency").exists():
        ghz = int(Path("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency").read_text()) / 1e6
        source = "cpufreq base_frequency"
    elif mhz:
        ghz, source = round(max(mhz) / 1000, 2), "/proc/cpuinfo `cpu MHz` (this KVM guest reports the fixed TSC clock; no frequency scaling is visible)"
    return {
        "cpu_model": model,
        "vendor": lsf.get("Vendor ID", ""),
        "family_model": f"family {lsf.get('CPU family', '?')}, model {lsf.get('Model', '?')}, stepping {lsf.get('Stepping', '?')}",
        "cores": os.cpu_count(),
        "threads_per_core": lsf.get("Thread(s) per core", ""),
        "hypervisor": lsf.get("Hypervisor vendor", ""),
        "caches": {k: lsf.get(k, "") for k in ("L1d cache", "L2 cache", "L3 cache")},
        "cpu_mhz": max(mhz) if mhz else None,
        "nominal_ghz": ghz,
        "nominal_ghz_source": source,
        "mem_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "os": sh(". /etc/os-release && echo $PRETTY_NAME"),
        "kernel": sh("uname -r"),
        "glibc": sh("ldd --version | head -1"),
        "gcc": sh("gcc --version | head -1"),
        "rustc": sh("rustc --version"),
        "java": sh("java -version 2>&1 | head -1"),
        "python": sys.version.split()[0],
    }


def platform_fallback():
    import platform
    return platform.processor() or "unknown"


def vtdx_commit():
    """The commit vtdx was built from, marked when crates/ has uncommitted changes."""
    commit = sh(f"git -C {ROOT} rev-parse --short HEAD")
    dirty = sh(f"git -C {ROOT} status --porcelain -- crates") != ""
    return commit + ("+uncommitted changes in crates/" if dirty else "")


def vtdx_binary_info():
    """The vtdx binary the cli workload ran: when it was built, and whether crates/ changed since."""
    b = vtdx_binary()
    if not b.exists():
        return {"path": str(b), "missing": True}
    newer = [str(p.relative_to(ROOT)) for p in (ROOT / "crates").rglob("*.rs")
             if "vtdx-py" not in p.parts and p.stat().st_mtime > b.stat().st_mtime]  # the Python extension is not in the binary
    return {"path": str(b.relative_to(ROOT)) if b.is_relative_to(ROOT) else str(b),
            "built": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(b.stat().st_mtime)),
            "sources_newer": len(newer), "newer_example": newer[:3]}


def versions(with_jvm, log, with_xmllint=False):
    v = {}
    for prog in ["libxml2", "expat", "pugixml", "lxml"] + (["jvm"] if with_jvm else []):
        lines, _ = run_program(prog, "versions", [], [], 120, log)
        for d in lines:
            d.pop("workload", None)
            d.pop("file", None)
            v[d.pop("peer")] = d
    if python_interpreter()[0]:
        try:
            for d in run_program("python", "versions", [], [], 120, log)[0]:
                d.pop("workload", None)
                d.pop("file", None)
                v[d.pop("peer")] = d
        except Failure as e:
            log.write(f"python versions: {e}\n")
    ok_py, _ = dsig_python()
    if ok_py:
        try:
            for d in run_program("dsig-py", "versions", [], [], 120, log)[0]:
                d.pop("workload", None)
                d.pop("file", None)
                v[d.pop("peer")] = d
        except Failure as e:
            log.write(f"dsig-py versions: {e}\n")
    if shutil.which("xmlsec1"):
        v["xmlsec1"] = {"version": sh("xmlsec1 --version").replace("xmlsec1 ", ""),
                        "debian_package": "xmlsec1 " + sh("dpkg-query -W -f='${Version}' xmlsec1")}
    lock = (ROOT / "Cargo.lock").read_text()
    crates = {}
    for m in re.finditer(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"', lock):
        crates[m.group(1)] = m.group(2)
    for p, c in [("quick-xml", "quick-xml"), ("roxmltree", "roxmltree"), ("simdxml", "simdxml"), ("memchr", "memchr")]:
        v[p] = {"version": crates.get(c, "?"), "source": "crates.io (Cargo.lock)"}
    vtdx_v = crates.get("vtdx", "?")
    v["vtdx"] = {"version": vtdx_v, "commit": vtdx_commit()}
    v["vtdx-reuse"] = v["vtdx-cold"] = v["vtdx"]
    v["aws-lc"] = {"version": f"aws-lc-rs {crates.get('aws-lc-rs', '?')} (aws-lc-sys {crates.get('aws-lc-sys', '?')})",
                   "source": "crates.io (Cargo.lock); what vtdx-dsig signs and verifies with"}
    if with_xmllint:
        r = subprocess.run(["xmllint", "--version"], capture_output=True, text=True)
        m = re.search(r"using libxml version (\d+)", r.stderr + r.stdout)
        if m:
            n = int(m.group(1))
            v["xmllint"] = {"version": f"{n // 10000}.{n // 100 % 100}.{n % 100} (libxml2)",
                            "debian_package": "libxml2-utils " + sh("dpkg-query -W -f='${Version}' libxml2-utils")}
    v["memcpy"] = {"version": "Rust core::slice::copy_from_slice (glibc memcpy)"}
    for pkg, peer in [("libpugixml-dev", "pugixml"), ("libxml2", "libxml2"), ("libexpat1", "expat")]:
        deb = sh(f"dpkg-query -W -f='${{Version}}' {pkg}")
        if peer in v:
            v[peer]["debian_package"] = f"{pkg} {deb}"
    if "libxml2" in v:
        v["libxml2-reuse"] = v["libxml2"]
    if "pugixml-ws" in v and "pugixml" in v:
        v["pugixml-ws"] = v["pugixml"]
    return v


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small documents, short runs, JVM smoke test only, no charts")
    ap.add_argument("--only", action="append", default=[], help="run only this workload (repeatable, or comma-separated): " + ", ".join(WORKLOADS))
    ap.add_argument("--no-jvm", action="store_true", help="leave out the JVM peers")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="MINUTES",
                    help="first wait up to MINUTES for the 1-minute load average to fall below 0.5")
    a = ap.parse_args()
    mode = "quick" if a.quick else "full"
    only = [w for x in a.only for w in x.split(",") if w]
    for w in only:
        if w not in WORKLOADS:
            sys.exit(f"unknown workload {w}; one of: {', '.join(WORKLOADS)}")
    workloads = only or WORKLOADS
    with_jvm = not a.no_jvm and shutil.which("java") is not None
    mdir = OUT / mode
    (mdir / "results").mkdir(parents=True, exist_ok=True)
    log = open(mdir / "run.log", "a")
    log.write(f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} {mode} {workloads}\n")

    if a.wait_quiet > 0:
        deadline = time.monotonic() + 60 * a.wait_quiet
        while os.getloadavg()[0] >= 0.5 and time.monotonic() < deadline:
            print(f"bench: waiting for a quiet machine (load average {os.getloadavg()[0]:.2f})", flush=True)
            time.sleep(30)
    t_start = time.monotonic()
    load_before = os.getloadavg()
    # the commit the programs were built from (bench/run builds them just before starting the driver)
    built_from = vtdx_commit()
    failures, notes = [], []
    meta_path = mdir / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() and only else {"workloads": {}}
    print(f"bench: {mode} run of {', '.join(workloads)} (load average {load_before[0]:.2f})", flush=True)
    if load_before[0] > 0.5 and not a.quick:
        print("bench: WARNING: the machine is busy; figures will be noisy", flush=True)
    try:
        meta["machine"] = machine_info()
        meta["versions"] = versions(with_jvm, log, with_xmllint=shutil.which("xmllint") is not None)
    except Failure as e:
        failures.append(str(e))
    for w in workloads:
        print(f"  {w}", flush=True)
        t0 = time.monotonic()
        load_w = os.getloadavg()[0]
        try:
            results, timings, docs = run_workload(w, mode, with_jvm, log)
        except Failure as e:
            failures.append(str(e))
            print(f"    FAILED: {e}", flush=True)
            continue
        for r in results:
            if r.get("file"):
                f = Path(r["file"])
                r["doc"] = doc_id(f) if str(f.resolve()).startswith(str(corpus_root())) else f.name.replace(".bin", "")
        if w in PLUGINS:
            f, n = PLUGINS[w].check(sys.modules[__name__], results, a.quick, with_jvm)
        else:
            f, n = check(w, results, docs if w not in ("xpath", "many") else [], with_jvm, a.quick)
        failures += f
        notes += n
        with open(mdir / "results" / f"{w}.jsonl", "w") as fh:
            for r in results:
                fh.write(json.dumps(r) + "\n")
        meta["workloads"][w] = {
            # each workload keeps the commit it measured: an --only rerun of another leaves it alone
            "commit": built_from,
            "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "seconds": round(time.monotonic() - t0, 1),
            "program_seconds": {k: round(v, 1) for k, v in timings.items()},
            "load_before": load_w,
            "load_after": os.getloadavg()[0],
            "failures": f,
            "notes": n,
        }
        if w == "cli":
            meta["workloads"][w]["vtdx_binary"] = vtdx_binary_info()
    meta.update({
        "mode": mode,
        "jvm": with_jvm,
        "policy": POLICY[mode],
        "malloc_env": MALLOC_ENV,
        "jvm_opts": JVM_OPTS_QUICK if a.quick else JVM_OPTS,
        "messages": N_MESSAGES,
        "memory_docs": ["generated/po_big.xml"] if a.quick else MEMORY_DOCS,
        "run_seconds": round(time.monotonic() - t_start, 1),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "corpus": str(corpus_root()),
    })
    meta_path.write_text(json.dumps(meta, indent=1))
    if not a.no_report:
        cmd = [sys.executable, str(BENCH / "report.py"), "--mode", mode]
        r = subprocess.run(cmd)
        if r.returncode != 0:
            failures.append("report.py failed")
    dt = time.monotonic() - t_start
    for n in notes:
        print(f"bench: note: {n}")
    if failures:
        for f in failures:
            print(f"bench: FAIL: {f}", file=sys.stderr)
        print(f"bench: {len(failures)} failure(s) in {dt:.0f} s", file=sys.stderr)
        sys.exit(1)
    print(f"bench: {mode} run passed its cross-checks in {dt:.0f} s")


if __name__ == "__main__":
    main()
