"""The `validate` workload (issue 18): XML Schema validation of the generated purchase orders (po_big, 1 MB; po_16mb,
16 MB; quick: po_big) against testdata/schema/po.xsd (the Primer's purchase-order schema adapted to these documents:
`xmllint --schema` accepts both), from the document's bytes (a validating parse), the schema compiled once.

In-process peers (the shared loop): `vtdx-validate` (Document::parse + Schema::validate_with, typed values off) and
`vtdx-parse` (Document::parse alone: the non-validating parse the 50% target is about) in
bench/src/bin/validate_peers.rs; `lxml` (fromstring + XMLSchema.validate: libxml2's xmlSchemaValidateDoc) and
`xmlschema` (Python xmlschema, one run per document, capped) in bench/peers/python/validate_peer.py; `xerces`
(Xerces-J 2.12.2, JAXP Validator on a cached Schema, JIT warmed) and `jdk` (the JDK's validator) in
bench/peers/java/.../Validate.java. Whole processes (timed as in the cli workload: one untimed run for the verdict,
then rounds, the pair alternating): `xmllint --noout --schema po.xsd FILE` and `vtdx validate --schema po.xsd FILE`.

Cross-check: every peer says both documents are valid, and rejects two invalid variants generated here from po_medium
(a quantity of 0; a shipDate with month 13). A full run measures vtdx and lxml in 3 interleaved rounds (median round;
the vtdx ratio validate/parse is the median of the per-round ratios of the same process).
"""

import os
import re
import shutil
import statistics
import sys
import time

NAME = "validate"
DOCS = {"full": ["generated/po_big.xml", "generated/po_16mb.xml"], "quick": ["generated/po_big.xml"]}
INVALID_FROM = "generated/po_medium.xml"
ROUNDS = {"full": 3, "quick": 1}
CLI_ROUNDS = {"full": 11, "quick": 3}
IN_PROCESS = ["vtdx-validate", "vtdx-parse", "lxml", "xmlschema", "xerces", "jdk"]
WHOLE = ["vtdx-cli", "xmllint"]
JVM = ["xerces", "jdk"]


def schema_path(drv):
    return drv.ROOT / "testdata" / "schema" / "po.xsd"


def invalid_variants(drv):
    """Two invalid documents from po_medium (bench/out/validate/): the 40th quantity with a value set to 0
    (Quantity is 1..99 or empty), the 10th shipDate with month 13."""
    src = (drv.corpus_root() / "bench" / INVALID_FROM).read_text("utf-8")
    d = drv.OUT / "validate"
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for name, pat, k, repl in (("quantity", r"<quantity>\d+</quantity>", 40, "<quantity>0</quantity>"),
                               ("date", r"<shipDate>\d{4}-\d\d-\d\d</shipDate>", 10, "<shipDate>2002-13-01</shipDate>")):
        ms = list(re.finditer(pat, src))
        if len(ms) < k:
            raise drv.Failure(f"validate: {INVALID_FROM} changed: fewer than {k} matches of {pat}")
        m = ms[k - 1]
        p = d / f"po_medium.invalid-{name}.xml"
        text = src[: m.start()] + repl + src[m.end():]
        if not p.exists() or p.read_text("utf-8") != text:
            p.write_text(text, "utf-8")
        out.append(p)
    return out


def run(drv, mode, with_jvm, log):
    quick = mode == "quick"
    pol = drv.POLICY[mode]
    timeout = 120 if quick else 1800
    xsd = str(schema_path(drv))
    docs = [drv.corpus_root() / "bench" / d for d in DOCS[mode]]
    bad = invalid_variants(drv)
    files = [xsd] + [str(d) for d in docs + bad]
    pargs = drv.policy_args(pol)
    results, timings = [], {}

    def go(label, cmd, rnd=1):
        lines, dt = drv.run_cmd(cmd, f"{label} validate", timeout, log, len(files) - 1)
        timings[label] = timings.get(label, 0) + dt
        for x in lines:
            x["program"] = label
            x["round"] = rnd
        print(f"    {label:<12} {len(lines):3d} results {dt:6.1f} s", flush=True)
        return lines

    rust = [drv.rust_bin("validate_peers"), "validate"] + pargs + files
    lxml = [sys.executable, str(drv.BENCH / "peers" / "python" / "validate_peer.py"), "validate", "--peers", "lxml"] + pargs + files
    rounds = []
    for r in range(ROUNDS[mode]):
        pair = [("rust", rust), ("lxml", lxml)]
        got = []
        for label, cmd in (pair if r % 2 == 0 else pair[::-1]):
            got += go(label, cmd, r + 1)
        rounds.append(got)
    results += median_rounds(rounds)
    # Python xmlschema: one run per document (seconds per MB); a quick run gives verdicts on the small variants only
    xs = [sys.executable, str(drv.BENCH / "peers" / "python" / "validate_peer.py"), "validate", "--peers", "xmlschema"] + pargs
    if quick:
        results += go("xmlschema", xs + [xsd] + [str(b) for b in bad])
        results += [{"peer": "xmlschema", "workload": NAME, "file": str(d), "status": "skip", "program": "xmlschema",
                     "reason": "quick run: Python xmlschema takes seconds per megabyte (timed in the full run)"} for d in docs]
    else:
        results += go("xmlschema", xs + files)
    if with_jvm and not quick:
        ja = drv.policy_args(pol, jvm=True)
        for p in JVM:  # one JVM per peer, each with its own JIT warm-up
            results += go(f"jvm:{p}", drv.program_cmd("jvm", quick, NAME) + [NAME, "--peers", p] + ja + files)
    else:
        why = "quick run: no JVM" if quick else "no JVM (--no-jvm, or no java)"
        results += [{"peer": p, "workload": NAME, "file": str(d), "status": "skip", "reason": why, "program": "jvm"}
                    for p in JVM for d in docs + bad]
    results += run_whole(drv, docs, bad, xsd, CLI_ROUNDS[mode], log, timings)
    return results, timings, [drv.doc_id(d) for d in docs]


def median_rounds(rounds):
    """One line per (peer, file): the round with the median latency (round_medians_ns: every round's); for
    vtdx-validate also the share of vtdx-parse's throughput per round (paired_shares) and their median (share)."""
    cells = {}
    for got in rounds:
        parse = {x["file"]: x for x in got if x["peer"] == "vtdx-parse" and x.get("status") == "ok" and x.get("timed")}
        for x in got:
            if x["peer"] == "vtdx-validate" and x.get("timed") and x.get("status") == "ok" and x["file"] in parse:
                x["paired_share"] = parse[x["file"]]["median_ns"] / x["median_ns"]
            cells.setdefault((x["peer"], x.get("file")), []).append(x)
    out = []
    for rows in cells.values():
        oks = [x for x in rows if x.get("status") == "ok" and x.get("timed")]
        if len(oks) < len(rows) or not oks:
            out.append(rows[0])
            continue
        pick = dict(sorted(oks, key=lambda x: x["median_ns"])[len(oks) // 2])
        pick["rounds"] = len(oks)
        pick["round_medians_ns"] = [x["median_ns"] for x in oks]
        if "paired_share" in pick:
            pick["paired_shares"] = [x["paired_share"] for x in oks]
            pick["share"] = statistics.median(pick["paired_shares"])
        out.append(pick)
    return out


def run_whole(drv, docs, bad, xsd, rounds, log, timings):
    """xmllint --schema and vtdx validate as whole processes: an untimed run for the verdict (exit status) and the
    peak RSS, then `rounds` timed runs per valid document, the two alternating which goes first."""
    xl = shutil.which("xmllint")
    vt = drv.vtdx_binary()
    progs = {"xmllint": (xl, lambda f: [xl, "--noout", "--schema", xsd, str(f)], "xmllint --noout --schema po.xsd FILE"),
             "vtdx-cli": (str(vt) if vt.exists() else None, lambda f: [str(vt), "validate", "--schema", xsd, str(f)],
                          "vtdx validate --schema po.xsd FILE")}
    out, cells = [], {}
    t0 = time.monotonic()
    for peer, (exe, argv, shown) in progs.items():
        for f in docs + bad:
            base = {"peer": peer, "workload": NAME, "file": str(f), "program": "whole-process", "command": shown,
                    "whole_process": True, "timed": ".invalid" not in str(f)}
            if not exe:
                out.append(dict(base, status="skip", reason=f"{'xmllint (libxml2-utils)' if peer == 'xmllint' else vt} "
                                                            "is not installed"))
                continue
            rc, so, se, rss = drv.run_untimed(argv(f))
            log.write(f"$ {' '.join(argv(f))} -> rc={rc}\n{se[-1000:]}\n")
            if rc not in (0, 1, 3) or (peer == "vtdx-cli" and rc == 2):
                out.append(dict(base, status="error", reason=f"exit status {rc}: {se.strip()[-300:]}"))
                continue
            cells[(peer, str(f))] = dict(base, status="ok", valid=rc == 0, exit_code=rc, peak_rss=rss,
                                         first_error=(se or so).strip().splitlines()[0][:300] if rc else None,
                                         bytes=os.path.getsize(f))
    for r in range(rounds):
        for f in docs:
            order = list(progs) if r % 2 == 0 else list(progs)[::-1]
            for peer in order:
                c = cells.get((peer, str(f)))
                if c is None:
                    continue
                ns, cpu, _, rc = drv.spawn_timed(progs[peer][1](f))
                c.setdefault("round_ns", []).append(ns)
                c.setdefault("cpu_ns", []).append(cpu)
    for c in cells.values():
        if c.get("round_ns"):
            c["median_ns"] = statistics.median(c["round_ns"])
            c["mbps"] = c["bytes"] * 1e3 / c["median_ns"]
            c["rounds"] = len(c["round_ns"])
        out.append(c)
    timings["whole-process"] = time.monotonic() - t0
    print(f"    whole processes (xmllint, vtdx validate) {timings['whole-process']:6.1f} s", flush=True)
    return out


# ---------------------------------------------------------------- check

def check(drv, results, quick, with_jvm):
    fails, notes = [], []
    by = {(r["peer"], r.get("doc")): r for r in results}
    docs = DOCS["quick" if quick else "full"]
    bad = sorted({r["doc"] for r in results if ".invalid" in r.get("doc", "")})
    if len(bad) != 2:
        fails.append(f"validate: expected results on the two invalid variants, found {bad}")
    for r in results:
        if r.get("status") in ("error", "rejected"):
            fails.append(f"validate: {r['peer']} on {r.get('doc')}: {r['status']}: {r.get('reason')}")
    for p in IN_PROCESS + WHOLE:
        for d in docs + bad:
            r = by.get((p, d))
            if r is None:
                fails.append(f"validate: no result (not even a skip line) for {p} on {d}")
                continue
            if r["status"] == "skip":
                if p in ("vtdx-validate", "vtdx-parse", "lxml", "xmllint") or (p == "xmlschema" and ".invalid" in d):
                    fails.append(f"validate: {p} skipped {d}: {r.get('reason')}")
                elif p == "vtdx-cli" or (p in JVM and not quick and with_jvm):
                    fails.append(f"validate: {p} skipped {d}: {r.get('reason')}")
                continue
            if r["status"] != "ok":
                continue
            want = ".invalid" not in d
            if p != "vtdx-parse" and r.get("valid") is not want:
                fails.append(f"validate: {p} says {d} is {'valid' if r.get('valid') else 'invalid'}"
                             + (f" ({r.get('first_error')})" if r.get("first_error") else ""))
            if want and r.get("median_ns") is None:
                fails.append(f"validate: {p} has no time for {d}")
    for d in docs:
        el = {p: by[(p, d)]["elements"] for p in ("vtdx-validate", "vtdx-parse", "lxml") if by.get((p, d), {}).get("status") == "ok"}
        if len(set(el.values())) > 1:
            fails.append(f"validate: element counts differ on {d}: {el}")
    return fails, notes


# ---------------------------------------------------------------- report

def ok(r):
    return bool(r) and r.get("status") == "ok" and r.get("median_ns") is not None


def report(rows, meta, quick):
    by = {(r["peer"], r.get("doc")): r for r in rows}
    docs = [d for d in DOCS["full"] if any(r.get("doc") == d for r in rows)]
    w = ["\n## XML Schema validation (issue 18)\n"]
    w.append(
        "Validation of the generated purchase orders against `testdata/schema/po.xsd` (the Primer's shape; "
        "`xmllint --schema` accepts both documents) from the document's bytes in memory, the schema compiled once: MB/s "
        "(10^6 bytes per second), median of the shared loop's samples. `vtdx-validate` is `Document::parse` + "
        "`Schema::validate_with` (typed values off), `vtdx-parse` the same parse alone; `lxml` is `fromstring` + "
        "`XMLSchema.validate` (libxml2); `xerces` is Xerces-J 2.12.2's JAXP `Validator` on a cached `Schema`, `jdk` the "
        "JDK's own, both JIT-warmed; `xmlschema` is Python xmlschema, **one run per document** (it takes seconds per MB; "
        "capped at 300 s). Whole processes (spawn to exit, median of rounds, the two alternating): `xmllint --noout "
        "--schema` and `vtdx validate --schema`. Every peer says both documents valid and rejects the two invalid "
        "variants of po_medium (a quantity of 0, a shipDate with month 13). vtdx and lxml are the median of 3 "
        "interleaved rounds in a full run; the machine is shared (2 cores, other work running).\n")
    w.append("| peer | " + " | ".join(f"{d.split('/')[-1]} MB/s | ms" for d in docs) + " | vtdx-validate is (×) |")
    w.append("|---|" + "---:|---:|" * len(docs) + "---|")
    for p in IN_PROCESS + WHOLE:
        cells, xs = [], []
        for d in docs:
            r = by.get((p, d))
            if ok(r):
                cells.append(f"{r['mbps']:,.1f} | {r['median_ns'] / 1e6:,.1f}")
                v = by.get(("vtdx-cli" if p == "xmllint" else "vtdx-validate", d))
                if ok(v) and p not in ("vtdx-validate", "vtdx-cli", "vtdx-parse"):
                    xs.append(f"{r['median_ns'] / v['median_ns']:.1f}")
            else:
                cells.append(f"— ({r.get('reason', r.get('status'))}) | —" if r else "— | —")
        label = p + (" (whole process)" if p in WHOLE else "") + (" (one run)" if p == "xmlschema" else "")
        w.append(f"| {label} | " + " | ".join(cells) + f" | {' / '.join(xs) if xs else ''} |")
    w.append("\nThe last column: how many times faster vtdx-validate is than the peer, per document (for xmllint: "
             "`vtdx validate` against it, both whole processes).\n")
    w.append("*Targets (issue 18):*\n")
    for d in docs:
        v, pa = by.get(("vtdx-validate", d)), by.get(("vtdx-parse", d))
        name = d.split("/")[-1]
        if ok(v) and ok(pa):
            share = v.get("share", pa["median_ns"] / v["median_ns"])
            per = ", ".join(f"{x * 100:.0f}%" for x in v.get("paired_shares", []))
            w.append(f"- {name}: validating parse ≥ 50% of vtdx's non-validating parse throughput: {share * 100:.0f}%"
                     + (f" (per round {per})" if per else "") + f" — **{'met' if share >= 0.5 else 'not met'}**")
        for p, want, vs in (("xerces", 10, "vtdx-validate"), ("lxml", 20, "vtdx-validate"), ("xmllint", 20, "vtdx-cli"),
                            ("xmlschema", 100, "vtdx-validate")):
            r, me = by.get((p, d)), by.get((vs, d))
            if ok(r) and ok(me):
                x = r["median_ns"] / me["median_ns"]
                w.append(f"- {name}: ≥ {want}× {p}{' (whole processes)' if p == 'xmllint' else ''}: {x:.1f}× — "
                         f"**{'met' if x >= want else 'not met'}**")
            else:
                why = (r or {}).get("reason") or "not measured"
                w.append(f"- {name}: ≥ {want}× {p}: not measured ({why})")
    return "\n".join(w) + "\n"
