"""The `template` workload (issue 19): streams of messages that repeat a structure, parsed one by one, messages per
second, vtdx with its template cache (docs/template-cache.md) beside vtdx's full parse, pugixml, simdxml and lxml.

Four streams, generated here (deterministic) into bench/out/template/<mode>/, NUL-separated as the `many` workload's
bundle (10,000 messages each; 1,000 in a quick run):

- `soap`: distinct SOAP messages of one structure from generated/soap_wss_2k.xml (the driver's make_messages changes
  every id, timestamp, token, digest and symbol), then values of varying length: the note (1-240 characters, some
  with `&amp;`), the symbol (1-8), the user name, the SignatureValue (172 or 344 base64 characters, RSA-1024 or -2048)
  and the Nonce (24 or 32);
- `mixed`: the same messages in four structures interleaved (message i has the Body operation `m:GetQuote`,
  `m:GetPrice`, `m:GetVolume` or `m:GetRating` by i mod 4): operations of one service, which share their first bytes
  (one cache key) and part about 1,900 bytes in, as in bench/src/bin/template_stream.rs;
- `po`: purchase orders of 1 to 12 items (seeded random count), values of varying length;
- `miss`: the SOAP messages, message i with the operation `m:Op<i>`: every message a structure of its own.

Peers: `vtdx-template` and `vtdx-full` (bench/src/bin/template_peers.rs: one reused parser with and without the
cache; the cache warm, learned in an untimed first pass), and the `many` workload of the existing peer programs on the
same bundles: pugixml and pugixml-ws (bench/peers/cpp/pugixml.cpp), simdxml (rust_peers), lxml (lxml_peer.py).

The all-miss stream: each timed pass of `vtdx-template` starts with a new, empty cache, so within a pass no structure
is seen twice: nothing is learned and nothing hits, every message pays what a miss costs (key, lookup, counting its
structure). `vtdx-template-near` starts each pass with a new cache holding the templates of the four mixed-stream
operations, which share the key of every miss message: each message is tried against them and fails late (the
operation element is ~1,900 bytes in). The replayed all-miss of template_stream.rs (one cache over repeated passes) is
not used: from its second pass on every structure has been seen twice and is learned, evicting another of its key, so
it measures learning churn (a second parse per message) rather than the cost of a miss.
"""

import hashlib
import os
import random
import re
import statistics
from pathlib import Path

NAME = "template"
STREAMS = ["soap", "mixed", "po", "miss"]
N_MESSAGES = {"full": 10_000, "quick": 1_000}
OPS = ["GetQuote", "GetPrice", "GetVolume", "GetRating"]
# the peer programs' `many` workload on the bundles: (label, peers)
MANY_PROGRAMS = [("pugixml", ["pugixml", "pugixml-ws"]), ("rust", ["simdxml"]), ("lxml", ["lxml"])]
CACHE_PEERS = ["vtdx-template", "vtdx-full"]
PEERS = CACHE_PEERS + ["pugixml", "pugixml-ws", "simdxml", "lxml"]
QUICK_SKIP = {"pugixml-ws"}
ROUNDS = {"full": 3, "quick": 1}
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore "
         "magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo").split()


# ---------------------------------------------------------------- the streams

def vary_soap(msgs, seed=19):
    """The driver's equal-length SOAP messages with values of varying length (see the module doc)."""
    rnd = random.Random(seed)
    out, seen = [], set()
    for b in msgs:
        m = b.decode("utf-8")

        def sub(pattern, value):
            nonlocal m
            m, k = re.subn(pattern, lambda g: g.group(1) + value + g.group(2), m, count=1)
            if k != 1:
                raise SystemExit(f"ERROR: template workload: soap_wss_2k.xml changed: {pattern!r} not found")

        words = []
        while sum(len(w) + 1 for w in words) < rnd.randint(1, 240):
            words.append(rnd.choice(WORDS) if rnd.random() > 0.1 else "&amp;")
        note = " ".join(words)[: rnd.randint(1, 240)].rstrip(" &;amp") or "x"
        sub(r"(<m:note>)[^<]*(</m:note>)", note)
        sub(r"(<m:symbol>)[^<]*(</m:symbol>)", "".join(rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rnd.randint(1, 8))))
        sub(r"(<wsse:Username>)[^<]*(</wsse:Username>)", rnd.choice(["al", "bob", "carol.smith", "d", "erin-jones-whitfield"]) + str(rnd.randrange(100_000)))
        sig = "".join(rnd.choice(B64) for _ in range(rnd.choice([170, 342]))) + "=="
        sub(r"(<ds:SignatureValue>)[^<]*(</ds:SignatureValue>)", sig)
        nonce = "".join(rnd.choice(B64) for _ in range(rnd.choice([22, 30]))) + "=="
        sub(r"(<wsse:Nonce [^>]*>)[^<]*(</wsse:Nonce>)", nonce)
        x = m.encode("utf-8")
        if x in seen:
            raise SystemExit("ERROR: template workload: generated a duplicate SOAP message")
        seen.add(x)
        out.append(x)
    return out


def rename_op(m, op):
    """The message with its operation element m:GetQuote renamed m:<op>."""
    if m.count(b"<m:GetQuote ") != 1 or m.count(b"</m:GetQuote>") != 1:
        raise SystemExit("ERROR: template workload: a SOAP message has no single m:GetQuote element")
    return m.replace(b"<m:GetQuote ", b"<m:" + op.encode() + b" ").replace(b"</m:GetQuote>", b"</m:" + op.encode() + b">")


def purchase_orders(n, seed=1999):
    """n purchase orders of 1 to 12 items, values of varying length, deterministic."""
    rnd = random.Random(seed)
    products = ["Lawnmower", "Baby Monitor", "Sturdy Shelves", "Hose", "Watering can &amp; rake", "Garden gnome (large)",
                "Lapis necklace", "Rake"]
    names = ["Alice Smith", "Robert Smith", "Carol O'Neil", "Dave", "Erin Jones-Whitfield", "Zoë Ångström"]
    out = []
    for i in range(n):
        items = rnd.randint(1, 12)
        s = (f'<?xml version="1.0"?>\n<purchaseOrder xmlns="urn:example:po" orderDate="2026-{rnd.randint(1, 12):02}-'
             f'{rnd.randint(1, 28):02}" id="PO-{i}">\n  <shipTo country="US">\n    <name>{rnd.choice(names)}</name>\n'
             f"    <street>{rnd.randint(1, 99999)} {rnd.choice(['Maple', 'Oak', 'Elm Tree'])} Street</street>\n"
             f"    <city>{rnd.choice(['Mill Valley', 'Old Town', 'San Francisco'])}</city>\n    <zip>{rnd.randint(10000, 99999)}</zip>\n"
             f"  </shipTo>\n  <comment>order {i}: {'hurry, my lawn is going wild'[: rnd.randint(1, 28)]}</comment>\n  <items>")
        for _ in range(items):
            s += (f'\n    <item partNum="{rnd.randint(100, 999)}-{rnd.choice(["AA", "BB", "XY"])}">\n'
                  f"      <productName>{rnd.choice(products)}</productName>\n      <quantity>{rnd.randint(1, 99)}</quantity>\n"
                  f"      <USPrice>{rnd.randint(0, 999)}.{rnd.randint(0, 99):02}</USPrice>\n    </item>")
        s += "\n  </items>\n</purchaseOrder>\n"
        out.append(s.encode("utf-8"))
    return out


def make_streams(drv, mode):
    """Writes the four bundles and the seed bundle (the four operations of the mixed stream) when missing or made by
    another version of this file or of soap_wss_2k.xml; returns {stream: path} and the seed's path."""
    n = N_MESSAGES[mode]
    src = (drv.corpus_root() / "bench" / "generated" / "soap_wss_2k.xml").read_bytes()
    stamp = hashlib.sha256(Path(__file__).read_bytes() + src + str(n).encode()).hexdigest()[:16]
    d = drv.OUT / "template" / mode
    paths = {s: d / f"{s}.bin" for s in STREAMS}
    seed = d / "seed.bin"
    if (d / "stamp").exists() and (d / "stamp").read_text() == stamp and all(p.exists() for p in [*paths.values(), seed]):
        return paths, seed
    d.mkdir(parents=True, exist_ok=True)
    soap = vary_soap(drv.make_messages(src, n))
    streams = {
        "soap": soap,
        "mixed": [rename_op(m, OPS[i % 4]) for i, m in enumerate(soap)],
        "po": purchase_orders(n),
        "miss": [rename_op(m, f"Op{i}") for i, m in enumerate(soap)],
    }
    for s, msgs in streams.items():
        if any(b"\0" in m for m in msgs):
            raise SystemExit("ERROR: template workload: a message contains a NUL byte")
        paths[s].write_bytes(b"\0".join(msgs))
    seed.write_bytes(b"\0".join(streams["mixed"][:4]))
    (d / "stamp").write_text(stamp)
    return paths, seed


# ---------------------------------------------------------------- run

def run(drv, mode, with_jvm, log):
    quick = mode == "quick"
    pol = drv.POLICY[mode]
    timeout = 120 if quick else 900
    paths, seed = make_streams(drv, mode)
    files = [str(paths[s]) for s in STREAMS]
    pargs = drv.policy_args(pol, many=True)
    os.environ["VTDX_BENCH_TEMPLATE_SEED"] = str(seed)
    progs = [("template", [drv.rust_bin("template_peers"), "template"] + pargs + files)]
    for label, peers in MANY_PROGRAMS:
        peers = [p for p in peers if not (quick and p in QUICK_SKIP)]
        progs.append((label, drv.program_cmd(label, quick, "many") + ["many", "--peers", ",".join(peers)] + pargs + files))
    rounds, timings = [], {}
    for r in range(ROUNDS[mode]):
        got = []
        # the programs one after another, their order rotated by round
        for label, cmd in progs[r % len(progs):] + progs[: r % len(progs)]:
            lines, dt = drv.run_cmd(cmd, f"{label} template", timeout, log, len(files))
            timings[label] = timings.get(label, 0) + dt
            for x in lines:
                x["program"] = label
                x["workload"] = NAME
                x["round"] = r + 1
            got.extend(lines)
            print(f"    round {r + 1}/{ROUNDS[mode]} {label:<10} {len(lines):3d} results {dt:6.1f} s", flush=True)
        rounds.append(got)
    return median_rounds(rounds), timings, []


def median_rounds(rounds):
    """One line per (peer, file): the round with the median latency, with every round's median (round_medians_ns);
    for the cache peers also the speed-up over vtdx-full of the same program run, per round (paired_speedups) and
    their median (speedup)."""
    cells = {}
    for got in rounds:
        full = {x["file"]: x for x in got if x["peer"] == "vtdx-full" and x.get("status") == "ok"}
        for x in got:
            # the program's own paired passes (template_peers.rs `paired`); else the two cells' ratio
            if x["peer"].startswith("vtdx-template") and x.get("status") == "ok" and x["file"] in full:
                x.setdefault("paired_speedup", full[x["file"]]["median_ns"] / x["median_ns"])
            cells.setdefault((x["peer"], x.get("file")), []).append(x)
    out = []
    for rows in cells.values():
        oks = [x for x in rows if x.get("status") == "ok"]
        if len(oks) < len(rows) or not oks:
            out.extend(x for x in rows if x.get("status") != "ok")
            continue
        pick = dict(sorted(oks, key=lambda x: x["median_ns"])[len(oks) // 2])
        pick["rounds"] = len(oks)
        pick["round_medians_ns"] = [x["median_ns"] for x in oks]
        if "paired_speedup" in pick:
            pick["paired_speedups"] = [x["paired_speedup"] for x in oks]
            pick["speedup"] = statistics.median(pick["paired_speedups"])
            if all("min_speedup" in x for x in oks):
                pick["min_speedups"] = [x["min_speedup"] for x in oks]
                pick["best_speedup"] = statistics.median(pick["min_speedups"])
        out.append(pick)
    return out


# ---------------------------------------------------------------- check

def check(drv, results, quick, with_jvm):
    fails, notes = [], []
    n = N_MESSAGES["quick" if quick else "full"]
    by = {(r["peer"], r.get("doc")): r for r in results}
    for r in results:
        if r.get("status") == "error":
            fails.append(f"template: {r['peer']} on {r.get('doc')}: {r.get('reason')}")
    for s in STREAMS:
        peers = [p for p in PEERS if not (quick and p in QUICK_SKIP)] + (["vtdx-template-near"] if s == "miss" else [])
        for p in peers:
            r = by.get((p, s))
            if r is None:
                fails.append(f"template: no result for {p} on the {s} stream")
            elif r["status"] != "ok":
                fails.append(f"template: {p} on the {s} stream: {r['status']}: {r.get('reason')}")
        ok = {p: by[(p, s)] for p in peers if by.get((p, s), {}).get("status") == "ok"}
        msgs = {p: r["messages"] for p, r in ok.items()}
        if any(m != n for m in msgs.values()):
            fails.append(f"template: peers saw other numbers of messages than {n} in the {s} stream: {msgs}")
        elems = {p: r["elements"] for p, r in ok.items()}
        if len(set(elems.values())) > 1:
            fails.append(f"template: element counts differ on the {s} stream: {elems}")
        c = ok.get("vtdx-template")
        if c:
            if c["check_hits"] + c["check_misses"] != n:
                fails.append(f"template: the cache counted {c['check_hits']} hits and {c['check_misses']} misses on "
                             f"the {s} stream's {n} messages")
            if s == "miss" and (c["check_hits"] or c["hits"]):
                fails.append(f"template: the all-miss stream hit the cache ({c['check_hits']} + {c['hits']} hits)")
            if s != "miss" and c["check_hits"] < n // 2:
                notes.append(f"template: the cache matched only {c['check_hits']} of the {s} stream's {n} messages")
        near = ok.get("vtdx-template-near")
        if s == "miss" and near and (near["check_hits"] or near["hits"]):
            fails.append("template: a near-miss message matched a seed template: the all-miss stream is not all-miss")
    return fails, notes


# ---------------------------------------------------------------- report

TARGETS = [("soap", "vtdx-full", 4), ("soap", "pugixml", 3), ("mixed", "vtdx-full", 3)]


def fmt_rate(r):
    return f"{r['msgs_per_s']:,.0f}" if r and r.get("status") == "ok" else "—"


def report(rows, meta, quick):
    by = {(r["peer"], r.get("doc")): r for r in rows}
    n = N_MESSAGES["quick" if quick else "full"]
    w = ["\n## Template cache: streams of messages that repeat a structure (issue 19)\n"]
    w.append(
        f"Messages per second over a stream of {n:,} messages parsed one by one (one operation of the shared loop is a "
        "pass over the whole stream, in memory; median of the samples). `vtdx-template` is one reused `Parser` with "
        "`with_template_cache`, warm: the cache learns in an untimed first pass, which also checks every message's "
        "index against a new parser's; `vtdx-full` the same parser without the cache (`recycle` after each message). "
        "The other peers run their `many` workload on the same bundles. The streams (`bench/workloads/template.py`): "
        "`soap`, distinct WS-Security messages of one structure from soap_wss_2k.xml with values of varying length; "
        "`mixed`, the same in four operations of one service interleaved (one cache key; they part ~1,900 bytes in); "
        "`po`, purchase orders of 1-12 items; `miss`, every message a structure of its own, each timed pass starting "
        "with a new cache (`vtdx-template`: empty; `vtdx-template-near`: holding the four `mixed` templates of the same "
        "key, so each message fails late against four templates).")
    rounds = max((r.get("rounds", 1) for r in rows if r.get("status") == "ok"), default=1)
    w.append(f" Cells are the median of {rounds} interleaved round(s) of every program. The cache's speed-up over "
             "`vtdx-full` (*cache / full*, and the all-miss overhead) is measured in pairs: each sample times one pass "
             "without and one with the cache right after each other (order alternating), the sample is their ratio; "
             "the figure is the median over the rounds of each round's median ratio (so both sides see the same load; "
             "the two msg/s cells, measured one after the other, can disagree with it on a busy machine). The machine "
             "is shared (2 cores, other work running): expect 10-30% noise in the msg/s cells.\n")
    w.append("| stream | avg bytes | vtdx-template | vtdx-full | pugixml | pugixml-ws | simdxml | lxml | cache / full | "
             "cache / pugixml | hits (first pass) | templates | bytes / template |")
    w.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in STREAMS:
        c, f = by.get(("vtdx-template", s)), by.get(("vtdx-full", s))
        pg = best_pugixml(by, s)
        cells = [fmt_rate(by.get((p, s))) for p in PEERS]
        avg = f"{f['bytes'] / f['messages']:,.0f}" if ok(f) else "—"
        sp = f"{c['speedup']:.2f}×" if ok(c) and "speedup" in c else (f"{f['median_ns'] / c['median_ns']:.2f}×" if ok(c) and ok(f) else "—")
        xp = f"{pg['median_ns'] / c['median_ns']:.2f}×" if ok(c) and pg else "—"
        hits = f"{c['check_hits']:,}/{c['check_hits'] + c['check_misses']:,}" if ok(c) else "—"
        tb = f"{c['template_bytes'] / c['templates']:,.0f}" if ok(c) and c.get("templates") else "—"
        tn = str(c.get("templates", "—")) if ok(c) else "—"
        w.append(f"| {s} | {avg} | " + " | ".join(cells) + f" | {sp} | {xp} | {hits} | {tn} | {tb} |")
        if s == "miss":
            nr = by.get(("vtdx-template-near", s))
            if ok(nr):
                spn = f"{nr['speedup']:.2f}×" if "speedup" in nr else "—"
                w.append(f"| miss, near (4 templates of its key) | {avg} | {fmt_rate(nr)} | {cells[1]} | | | | | {spn} | | "
                         f"0/{n:,} | 4 | {nr['template_bytes'] / max(1, nr['templates']):,.0f} |")
    w.append("\n*Targets (issue 19):*\n")
    for s, base, want in TARGETS:
        c = by.get(("vtdx-template", s))
        b = best_pugixml(by, s) if base == "pugixml" else by.get((base, s))
        if not (ok(c) and b):
            w.append(f"- `{s}`: cache ≥ {want}× {base}: not measured")
            continue
        x = c["speedup"] if base == "vtdx-full" and "speedup" in c else b["median_ns"] / c["median_ns"]
        extra = ""
        if base == "vtdx-full" and "best_speedup" in c:
            extra = f" (fastest pass over fastest pass: {c['best_speedup']:.2f}×)"
        w.append(f"- `{s}` stream, cache ≥ {want}× {base if base != 'pugixml' else 'pugixml (faster variant)'}: "
                 f"{x:.2f}×{extra} — **{'met' if x >= want else 'not met'}**")
    for peer, label in (("vtdx-template", "empty cache per pass"), ("vtdx-template-near", "4 templates of its key")):
        c = by.get((peer, "miss"))
        if ok(c) and "speedup" in c:
            over = 1 / c["speedup"] - 1
            w.append(f"- all-miss overhead ≤ 5% ({label}): {over * 100:+.1f}% (paired, per round: "
                     + ", ".join(f"{(1 / x - 1) * 100:+.1f}%" for x in c["paired_speedups"])
                     + (f"; fastest pass over fastest pass {(1 / c['best_speedup'] - 1) * 100:+.1f}%" if "best_speedup" in c else "")
                     + f") — **{'met' if over <= 0.05 else 'not met'}**")
    mem = [by.get(("vtdx-template", s)) for s in STREAMS if s != "miss"]
    mem = [m for m in mem if ok(m) and m.get("templates")]
    if mem:
        w.append("- memory per cached template (the cache's `stats().bytes / templates`): "
                 + ", ".join(f"{m['doc']} {m['template_bytes'] / m['templates'] / 1024:.1f} KiB "
                             f"({m['templates']} template{'s' if m['templates'] != 1 else ''})" for m in mem)
                 + f"; bounded by `TemplateConfig::max_bytes` ({mem[0].get('max_bytes', 16 << 20) >> 20} MiB by default, "
                 "LRU eviction)")
    return "\n".join(w) + "\n"


def ok(r):
    return bool(r) and r.get("status") == "ok"


def best_pugixml(by, s):
    rs = [by.get((p, s)) for p in ("pugixml", "pugixml-ws")]
    rs = [r for r in rs if ok(r)]
    return min(rs, key=lambda r: r["median_ns"]) if rs else None
