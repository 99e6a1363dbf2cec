"""The xmlenc workload (bench/run --only xmlenc): XML Encryption of the SOAP Body, vtdx beside xmlsec1,
python-xmlsec and Apache Santuario, with the crypto floor (aws-lc-rs and OpenSSL).

The job, for every peer as far as it supports it: encrypt the SOAP Body's content (Type Content) with
AES-256-GCM under a fresh session key, the session key transported with RSA-OAEP (`rsa-oaep-mgf1p`, SHA-1) to
an RSA-2048 certificate in an `xenc:EncryptedKey`; decrypt it with the private key. Two forms:

- `wss` (WS-Security): the EncryptedKey at the top of the `wsse:Security` header with a ReferenceList, the
  EncryptedData's KeyInfo a SecurityTokenReference to it. vtdx (in process and `vtdx encrypt --wss`),
  python-xmlsec (py-wsse's way: encrypt with an inline EncryptedKey, then move it to the header) and
  Santuario (XMLCipher, as WSS4J) encrypt this form, and decrypt vtdx's `S.wss.xml`.
- `inline`: the EncryptedKey inside the EncryptedData's KeyInfo, the form `xmlsec1 --encrypt` fills in from
  a template and `xmlsec1 --decrypt` reads (it does not follow a SecurityTokenReference). The whole-process
  pair is `vtdx encrypt --body --content` / `vtdx decrypt` beside `xmlsec1 --encrypt` / `--decrypt`, on the
  same input bytes (`S.inline.xml`, made by vtdx and checked by xmlsec1 first); vtdx in process also
  measures this form.

Before anything is timed, `prepare` makes in bench/out/<mode>/xmlenc/ a new RSA-2048 key and certificate
(openssl, once per run: every peer is given them), and per document S: `S.wss.xml` (`vtdx encrypt --cert
--wss`), `S.inline.xml` (`vtdx encrypt --cert --body --content`) and `S.tpl.xml` (xmlsec1's template). Each
must decrypt (vtdx; the inline one also xmlsec1) to the original Body. After the timed runs every
decryption a peer wrote is compared with the original by the Exclusive C14N of the Body (lxml), and every
encryption a peer wrote is decrypted once by the others (`xmlenc-cross`: vtdx, python-xmlsec, Santuario;
xmlsec1 for the inline form) and compared the same way. A disagreement fails the run.
"""

import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

NAME = "xmlenc"
DOCS = ["generated/soap_wss_2k.xml", "soap/plain-soap-1.1.xml", "generated/soap_big.xml"]
QUICK_DOCS = ["generated/soap_wss_2k.xml"]
CLI_ROUNDS = {"full": 11, "quick": 3}
ROUNDS = 3  # interleaved rounds of the in-process native and Python programs in a full run
INPROC = ["vtdx", "python-xmlsec", "santuario"]
PEERS_OF = {"rust": ["vtdx", "aws-lc"], "py": ["python-xmlsec", "openssl"], "jvm": ["santuario"]}
FLOOR_CASES = ["rsa-oaep-wrap", "rsa-oaep-unwrap", "aes-gcm-seal", "aes-gcm-open"]
XENC = "http://www.w3.org/2001/04/xmlenc#"
SOAP = ("http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope")
AES256_GCM = "http://www.w3.org/2009/xmlenc11#aes256-gcm"
RSA_OAEP_MGF1P = "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"
SHA1 = "http://www.w3.org/2000/09/xmldsig#sha1"
BODY_XPATH = "/*[local-name()='Envelope']/*[local-name()='Body']"
# the targets: decrypt at >= 85% of the floor (2 KB, 111 KB), >= 20x the fastest peer (2.7 MB);
# encrypt >= 2x / 10x / 20x the fastest peer
SHARE = {("decrypt", "generated/soap_wss_2k.xml"): 0.85, ("decrypt", "soap/plain-soap-1.1.xml"): 0.85}
TIMES = {("decrypt", "generated/soap_big.xml"): 20, ("encrypt", "generated/soap_wss_2k.xml"): 2,
         ("encrypt", "soap/plain-soap-1.1.xml"): 10, ("encrypt", "generated/soap_big.xml"): 20}


def template():
    """xmlsec1's template: an EncryptedData of the Body's content with an EncryptedKey in its KeyInfo."""
    return (f'<xenc:EncryptedData xmlns:xenc="{XENC}" Type="{XENC}Content">'
            f'<xenc:EncryptionMethod Algorithm="{AES256_GCM}"/>'
            f'<ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><xenc:EncryptedKey>'
            f'<xenc:EncryptionMethod Algorithm="{RSA_OAEP_MGF1P}"><ds:DigestMethod Algorithm="{SHA1}"/></xenc:EncryptionMethod>'
            f'<xenc:CipherData><xenc:CipherValue/></xenc:CipherData></xenc:EncryptedKey></ds:KeyInfo>'
            f'<xenc:CipherData><xenc:CipherValue/></xenc:CipherData></xenc:EncryptedData>')


def body_c14n(x):
    """The Exclusive C14N (no comments) of the SOAP Body of the document `x`, and whether anything encrypted is left."""
    from lxml import etree
    root = etree.fromstring(x, etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    body = [c for c in root if isinstance(c.tag, str) and etree.QName(c).localname == "Body" and etree.QName(c).namespace in SOAP]
    if not body:
        raise ValueError("no SOAP Body")
    left = next(root.iter(f"{{{XENC}}}EncryptedData"), None) is not None
    return etree.tostring(body[0], method="c14n", exclusive=True, with_comments=False), left


def compare(x, want):
    """None when the decrypted document `x` has the original Body, else why not."""
    try:
        got, left = body_c14n(x)
    except Exception as e:
        return f"not a SOAP message: {e}"
    if left:
        return "an xenc:EncryptedData is left"
    if got != want:
        return f"the Body differs from the original (canonical forms of {len(got)} and {len(want)} bytes)"
    return None


def xmlsec1():
    return shutil.which("xmlsec1")


def run_checked(argv, log, what, stdout=None, drv=None):
    r = subprocess.run(argv, capture_output=stdout is None, stdout=stdout, stderr=None if stdout is None else subprocess.PIPE)
    log.write(f"$ {' '.join(map(str, argv))} -> rc={r.returncode}\n")
    if r.returncode != 0:
        err = (r.stderr or b"").decode("utf-8", "replace").strip()[-300:]
        raise drv.Failure(f"xmlenc: {what} failed (exit {r.returncode}): {err}")
    return r


def prepare(drv, mode, docs, log):
    d = drv.OUT / mode / "xmlenc"
    if d.exists():
        shutil.rmtree(d)
    (d / "out").mkdir(parents=True)
    key, cert = d / "key.pem", d / "cert.pem"
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                        "-days", "30", "-sha256", "-subj", "/CN=vtdx bench recipient"], capture_output=True, text=True)
    log.write(f"$ openssl req -x509 -newkey rsa:2048 ... -> rc={r.returncode}\n{r.stderr[-2000:]}\n")
    if r.returncode != 0:
        raise drv.Failure(f"xmlenc: openssl could not make the key: {r.stderr.strip()[-300:]}")
    vt = str(drv.vtdx_binary())
    if not Path(vt).exists():
        raise drv.Failure(f"xmlenc: no vtdx binary at {vt} (bench/run builds it)")
    (d / "tpl.xml").write_text(template())
    want = {}
    for doc in docs:
        s = doc.stem
        want[s] = body_c14n(doc.read_bytes())[0]
        for form, extra in (("wss", ["--wss"]), ("inline", ["--body", "--content"])):
            f = d / f"{s}.{form}.xml"
            with open(f, "wb") as fh:
                run_checked([vt, "encrypt", "--cert", str(cert)] + extra + [str(doc)], log, f"vtdx encrypt {' '.join(extra)} {s}",
                            stdout=fh, drv=drv)
            p = subprocess.run([vt, "decrypt", "--key", str(key), str(f)], capture_output=True)
            why = f"exit {p.returncode}: {p.stderr.decode(errors='replace')[-300:]}" if p.returncode else compare(p.stdout, want[s])
            if why:
                raise drv.Failure(f"xmlenc: vtdx decrypt of {f.name}: {why}")
        if xmlsec1():
            p = subprocess.run([xmlsec1(), "--decrypt", "--privkey-pem", str(key), str(d / f"{s}.inline.xml")], capture_output=True)
            why = f"exit {p.returncode}: {p.stderr.decode(errors='replace')[-300:]}" if p.returncode else compare(p.stdout, want[s])
            if why:
                raise drv.Failure(f"xmlenc: xmlsec1 --decrypt of vtdx's {s}.inline.xml: {why}")
    return {"dir": d, "key": key, "cert": cert, "want": want}


def py_cmd(drv):
    """The dsig workload's Python (bench/out/venv-dsig: python-xmlsec, lxml, cryptography) and its reason when absent."""
    okay, why = drv.dsig_python()
    py = os.environ.get("VTDX_BENCH_DSIG_PYTHON", str(drv.OUT / "venv-dsig" / "bin" / "python"))
    return ([py, str(drv.BENCH / "peers" / "python" / "xmlenc_peer.py")] if okay else None), why


def cmd_of(drv, prog, quick):
    if prog == "rust":
        return [drv.rust_bin("xmlenc_peers")]
    if prog == "py":
        return py_cmd(drv)[0]
    return drv.program_cmd("jvm", quick)


def cell_key(x):
    return (x["peer"], x.get("file"), x.get("case"), x.get("form"))


def keep_median(results, more):
    """Each cell measured again in `more`: keep the round with the median latency (bench/driver.py's
    keep_median_round, with the form in the cell's key)."""
    extra = {}
    for x in more:
        if x.get("status") == "ok":
            extra.setdefault(cell_key(x), []).append(x)
    out = []
    for r in results:
        rounds = extra.get(cell_key(r))
        if r.get("status") == "ok" and rounds:
            alls = sorted([r] + rounds, key=lambda y: y["median_ns"])
            pick = dict(alls[len(alls) // 2])
            for k in ("program", "out_file", "out_bytes"):
                if k in r:
                    pick[k] = r[k]
            pick["rounds"] = len(alls)
            pick["round_medians_ns"] = [y["median_ns"] for y in [r] + rounds]
            out.append(pick)
        else:
            out.append(r)
    return out


def run_cli(drv, docs, rounds, prep, log):
    """Whole processes, as the cli and dsig workloads time them: per document `vtdx encrypt`/`decrypt` in both forms
    and `xmlsec1 --encrypt` (the template) / `--decrypt` (S.inline.xml). Each command runs once untimed, writing
    its output for the cross-check, then `rounds` times; the inline pair one right after the other, alternating."""
    d = prep["dir"]
    vt, xs = str(drv.vtdx_binary()), xmlsec1()
    key, cert = str(prep["key"]), str(prep["cert"])
    results = []

    def line(peer, doc, case, form, **kw):
        r = {"peer": peer, "workload": "xmlenc", "file": str(doc), "case": case, "form": form, "program": "cli"}
        r.update(kw)
        return r

    cmds = []  # (peer, doc, case, form, argv, output-to-stdout?, out file, input, shown)
    for doc in docs:
        s = doc.stem
        od = {p: d / "out" / p for p in ("vtdx-cli", "xmlsec1")}
        for p in od.values():
            p.mkdir(parents=True, exist_ok=True)
        for form, extra in (("wss", ["--wss"]), ("inline", ["--body", "--content"])):
            cmds.append(("vtdx-cli", doc, "encrypt", form, [vt, "encrypt", "--cert", cert] + extra + [str(doc)], True,
                         od["vtdx-cli"] / f"{s}.encrypt-{form}.xml", doc, f"vtdx encrypt --cert CERT {' '.join(extra)} FILE"))
            cmds.append(("vtdx-cli", doc, "decrypt", form, [vt, "decrypt", "--key", key, str(d / f"{s}.{form}.xml")], True,
                         od["vtdx-cli"] / f"{s}.decrypt-{form}.xml", d / f"{s}.{form}.xml", "vtdx decrypt --key KEY FILE"))
        if xs:
            cmds.append(("xmlsec1", doc, "encrypt", "inline",
                         [xs, "--encrypt", "--pubkey-cert-pem", cert, "--session-key", "aes-256", "--xml-data", str(doc),
                          "--node-xpath", BODY_XPATH, str(d / "tpl.xml")], True, od["xmlsec1"] / f"{s}.encrypt-inline.xml", doc,
                         "xmlsec1 --encrypt --pubkey-cert-pem CERT --session-key aes-256 --xml-data FILE --node-xpath BODY TEMPLATE"))
            cmds.append(("xmlsec1", doc, "decrypt", "inline", [xs, "--decrypt", "--privkey-pem", key, str(d / f"{s}.inline.xml")],
                         True, od["xmlsec1"] / f"{s}.decrypt-inline.xml", d / f"{s}.inline.xml", "xmlsec1 --decrypt --privkey-pem KEY FILE"))
        else:
            for c in ("encrypt", "decrypt"):
                results.append(line("xmlsec1", doc, c, "inline", status="skip",
                                    reason="no xmlsec1 on PATH (Debian package xmlsec1; bench/run installs it)"))
    bad = {}
    for p, doc, c, form, argv, _, outf, inp, shown in cmds:
        with open(outf, "wb") as fh:
            r = subprocess.run(argv, stdout=fh, stderr=subprocess.PIPE)
        log.write(f"$ {' '.join(argv)} -> rc={r.returncode}\n")
        if r.returncode != 0:
            bad[(p, doc, c, form)] = f"exit code {r.returncode}: {r.stderr.decode(errors='replace').strip()[-300:]}"
    groups = {}
    for cmd in cmds:
        if tuple(cmd[:4]) not in bad:
            groups.setdefault((cmd[1], cmd[2], cmd[3]), []).append(cmd)
    samples = {}
    for k in range(rounds):
        for g in groups.values():
            for cmd in (g if k % 2 == 0 else g[::-1]):
                samples.setdefault(tuple(cmd[:4]), []).append(drv.spawn_timed(cmd[4]))
    for p, doc, c, form, argv, _, outf, inp, shown in cmds:
        k = (p, doc, c, form)
        if k in bad:
            results.append(line(p, doc, c, form, status="rejected" if c == "decrypt" else "error", reason=bad[k], command=shown))
            continue
        got = samples.get(k, [])
        failed = [x[3] for x in got if x[3] != 0]
        if failed or not got:
            results.append(line(p, doc, c, form, status="error", reason=f"exit code {failed[0] if failed else '?'} in a timed round",
                                command=shown))
            continue
        wall = sorted(x[0] for x in got)
        med = statistics.median(wall)
        size = inp.stat().st_size
        results.append(line(p, doc, c, form, status="ok", median_ns=med, min_ns=wall[0], rounds=len(got), round_ns=[x[0] for x in got],
                            cpu_ns=statistics.median(x[1] for x in got), bytes=size, mbps=size * 1e3 / med, msgs_per_s=1e9 / med,
                            command=shown, whole_process=True, out_file=str(outf), out_bytes=outf.stat().st_size))
    return results


def cross(drv, results, prep, progs, quick, log):
    """Every decryption a peer wrote is compared with the original Body (`crosscheck` in its cell); every encryption a
    peer wrote is decrypted once by each other decryptor (vtdx, python-xmlsec and Santuario in process, xmlsec1 for
    the inline form) and compared: one `case: cross` line per (decryptor, producer, document, form)."""
    d, want = prep["dir"], prep["want"]
    for r in results:
        if r.get("case") == "decrypt" and r.get("status") == "ok":
            f = r.get("out_file")
            why = compare(Path(f).read_bytes(), want[Path(r["file"]).stem]) if f and Path(f).exists() else "no output file"
            r["crosscheck"] = {"ok": why is None, "by": "Exclusive C14N of the Body (lxml) against the original", **({"reason": why} if why else {})}
    made = [r for r in results if r.get("case") == "encrypt" and r.get("status") == "ok" and r.get("out_file")]
    files = [r["out_file"] for r in made]
    of = {r["out_file"]: r for r in made}
    lines = []
    if files:
        env = dict(os.environ)
        env.update(drv.MALLOC_ENV)
        for prog in progs:
            argv = cmd_of(drv, prog, quick) + ["xmlenc-cross"] + files
            if prog == "jvm":
                argv = cmd_of(drv, prog, quick) + ["xmlenc-cross"] + files
            lines += drv.run_cmd(argv, f"{prog} xmlenc-cross", 600, log, len(files))[0]
        xs = xmlsec1()
        if xs:
            for f in files:
                if of[f].get("form") != "inline":
                    continue
                p = subprocess.run([xs, "--decrypt", "--privkey-pem", str(prep["key"]), f], capture_output=True)
                log.write(f"$ xmlsec1 --decrypt ... {f} -> rc={p.returncode}\n")
                o = d / "cross" / "xmlsec1" / f"{Path(f).parent.name}.{Path(f).name}"
                o.parent.mkdir(parents=True, exist_ok=True)
                if p.returncode == 0:
                    o.write_bytes(p.stdout)
                    lines.append({"peer": "xmlsec1", "file": f, "status": "ok", "out_file": str(o)})
                else:
                    lines.append({"peer": "xmlsec1", "file": f, "status": "error", "reason": p.stderr.decode(errors="replace")[-300:]})
    out = []
    for x in lines:
        src = of.get(x["file"])
        if src is None:
            continue
        if x["peer"] == src["peer"] or {x["peer"], src["peer"]} == {"vtdx", "vtdx-cli"}:
            continue  # its own output: the timed decrypt cells and their crosscheck already cover that
        why = x.get("reason") if x.get("status") != "ok" else compare(Path(x["out_file"]).read_bytes(), want[Path(src["file"]).stem])
        out.append({"peer": x["peer"], "workload": "xmlenc", "file": src["file"], "case": "cross", "form": src.get("form"),
                    "producer": src["peer"], "input": x["file"], "status": "ok" if why is None else "error",
                    **({"reason": why} if why else {})})
    return out


def run(drv, mode, with_jvm, log):
    quick = mode == "quick"
    pol = drv.POLICY[mode]
    timeout = 120 if quick else 900
    docs = [drv.corpus_root() / "bench" / x for x in (QUICK_DOCS if quick else DOCS)]
    prep = prepare(drv, mode, docs, log)
    os.environ["VTDX_BENCH_XMLENC_DIR"] = str(prep["dir"])
    results, timings = [], {}
    progs = ["rust"]
    py, why_py = py_cmd(drv)
    if py:
        progs.append("py")
    else:
        print(f"    xmlenc-py: not run: {why_py}", flush=True)
        for d in docs:
            for c in ("encrypt", "decrypt"):
                results.append({"peer": "python-xmlsec", "workload": "xmlenc", "file": str(d), "case": c, "form": "wss",
                                "status": "skip", "reason": f"not run: {why_py}", "program": "py"})
            for c in FLOOR_CASES:
                results.append({"peer": "openssl", "workload": "xmlenc", "file": str(d), "case": c, "status": "skip",
                                "reason": f"not run: {why_py}", "program": "py"})

    def go(prog, args):
        lines, dt = drv.run_cmd(cmd_of(drv, prog, quick) + ["xmlenc"] + args + [str(f) for f in docs], f"{prog} xmlenc", timeout, log,
                                len(docs))
        for x in lines:
            x["program"] = prog
        timings[prog] = timings.get(prog, 0) + dt
        print(f"    xmlenc {prog:<18} {len(lines):4d} results  {dt:6.1f} s", flush=True)
        return lines

    def go_py(args):
        """The Python peers one document and one case at a time: python-xmlsec's encrypt_xml crashes the
        process (SIGSEGV) on some Bodies; such a cell becomes an error line with the reason, the others stay."""
        out = []
        for d in docs:
            for peers, cases in (("openssl", "encrypt,decrypt"), ("python-xmlsec", "decrypt"), ("python-xmlsec", "encrypt")):
                os.environ["VTDX_BENCH_XMLENC_CASES"] = cases
                try:
                    lines, dt = drv.run_cmd(cmd_of(drv, "py", quick) + ["xmlenc", "--peers", peers] + args + [str(d)],
                                            f"py xmlenc {peers} {cases}", timeout, log, 1)
                except drv.Failure as e:
                    if "exit code -11" not in str(e):
                        raise
                    lines, dt = [{"peer": peers, "workload": "xmlenc", "file": str(d), "case": cases, "form": "wss",
                                  "status": "error", "reason": f"python-xmlsec crashed (SIGSEGV) in {cases}"}], 0
                for x in lines:
                    x["program"] = "py"
                timings["py"] = timings.get("py", 0) + dt
                out += lines
        print(f"    xmlenc py                 {len(out):4d} results", flush=True)
        return out

    def run_progs(args):
        out = []
        for prog in progs:
            out += go_py(args) if prog == "py" else go(prog, args)
        return out

    results += run_progs(drv.policy_args(pol))
    if not quick:
        # the target cells: the median of interleaved rounds of the in-process programs
        more = []
        for r in range(2, ROUNDS + 1):
            more += run_progs(drv.policy_args(pol))
        results = keep_median(results, more)
    if with_jvm and not quick:
        # three times the policy's JIT warm-up, as in dsig: one message is an RSA operation and a DOM round trip
        ja = drv.policy_args(pol, jvm=True)
        ja[ja.index("--workload-warmup-ms") + 1] = str(3 * pol["jvm_workload_warmup"])
        results += go("jvm", ja)
        progs.append("jvm")
    else:
        why = "not run in a quick run (no JVM)" if quick else "not run: no JVM (--no-jvm, or no java)"
        for d in docs:
            for c in ("encrypt", "decrypt"):
                results.append({"peer": "santuario", "workload": "xmlenc", "file": str(d), "case": c, "form": "wss",
                                "status": "skip", "reason": why, "program": "jvm"})
    t0 = time.monotonic()
    results += run_cli(drv, docs, CLI_ROUNDS[mode], prep, log)
    timings["cli"] = time.monotonic() - t0
    print(f"    xmlenc cli (vtdx, xmlsec1) {timings['cli']:6.1f} s", flush=True)
    t0 = time.monotonic()
    results += cross(drv, results, prep, progs, quick, log)
    timings["cross"] = time.monotonic() - t0
    print(f"    xmlenc cross-check {timings['cross']:6.1f} s", flush=True)
    return results, timings, [drv.doc_id(d) for d in docs]


def check(drv, results, quick, with_jvm):
    fails, notes = [], []
    docs = QUICK_DOCS if quick else DOCS
    idx = {(r["peer"], r.get("doc"), r.get("case"), r.get("form")): r for r in results if r.get("case") != "cross"}
    want = [("vtdx", c, f) for c in ("encrypt", "decrypt") for f in ("wss", "inline")]
    want += [("vtdx-cli", c, f) for c in ("encrypt", "decrypt") for f in ("wss", "inline")]
    want += [("xmlsec1", c, "inline") for c in ("encrypt", "decrypt")]
    want += [("python-xmlsec", c, "wss") for c in ("encrypt", "decrypt")] + [("santuario", c, "wss") for c in ("encrypt", "decrypt")]
    want += [(p, c, None) for p in ("aws-lc", "openssl") for c in FLOOR_CASES]
    for d in docs:
        for p, c, f in want:
            r = idx.get((p, d, c, f))
            if r is None:
                fails.append(f"xmlenc: no result for {p} {c} {f or ''} on {d}")
                continue
            st = r.get("status")
            if st == "skip":
                notes.append(f"xmlenc: {p} {c} on {d} not measured: {r.get('reason')}")
            elif st != "ok":
                msg = f"xmlenc: {p} {c} {f or ''} on {d}: {st}: {r.get('reason')}"
                # vtdx's own cells, the floor and the whole-process pair must work; another peer's failure is a note
                (fails if p in ("vtdx", "vtdx-cli", "aws-lc", "xmlsec1") else notes).append(msg)
            elif c == "decrypt" and not r.get("crosscheck", {}).get("ok"):
                fails.append(f"xmlenc: {p}'s decryption of {d} ({f}) is not the original: {r.get('crosscheck')}")
    crosses = [r for r in results if r.get("case") == "cross"]
    for r in crosses:
        if r["status"] != "ok":
            msg = f"xmlenc: {r['peer']} cannot decrypt {r['producer']}'s {r.get('form')} encryption of {r.get('doc')}: {r.get('reason')}"
            (fails if "vtdx" in (r["peer"], r["producer"]) else notes).append(msg)
    pairs = {(r["peer"], r["producer"]) for r in crosses if r["status"] == "ok"}
    for a, b in (("vtdx", "xmlsec1"), ("xmlsec1", "vtdx"), ("vtdx", "santuario"), ("santuario", "vtdx"), ("santuario", "xmlsec1"),
                 ("vtdx", "python-xmlsec"), ("python-xmlsec", "vtdx")):
        if (a, b) in pairs or (a == "xmlsec1" and ("xmlsec1", "vtdx-cli") in pairs):
            continue
        skipped = any(r.get("peer") in (a, b) and r.get("status") == "skip" for r in results)
        (notes if skipped else fails).append(f"xmlenc: no successful cross-decryption of {b}'s output by {a}")
    return fails, notes


# ---------------------------------------------------------------- report

ORDER = ["vtdx", "vtdx-cli", "xmlsec1", "python-xmlsec", "santuario"]
WHAT = {"vtdx": "in process (Rust)", "vtdx-cli": "whole process", "xmlsec1": "whole process (C, libxmlsec1 + OpenSSL)",
        "python-xmlsec": "in process (Python, libxmlsec1 + lxml)", "santuario": "in process (Java, JIT warmed)"}


def ok(r):
    return r is not None and r.get("status") == "ok"


def fmt_rate(r):
    v = 1e9 / r["median_ns"]
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def fmt_us(ns):
    v = ns / 1e3
    return f"{v:,.0f} µs" if v >= 100 else f"{v:.1f} µs"


def floor_ns(I, lib, d, case):
    parts = ("rsa-oaep-wrap", "aes-gcm-seal") if case == "encrypt" else ("rsa-oaep-unwrap", "aes-gcm-open")
    xs = [I.get((lib, d, p, None)) for p in parts]
    return sum(x["median_ns"] for x in xs) if all(ok(x) for x in xs) else None


def best_peer(I, d, case):
    """The fastest in-process peer other than vtdx (python-xmlsec, Santuario); xmlsec1 (whole process) only when
    neither has a figure."""
    cands = [I.get((p, d, case, "wss")) for p in ("python-xmlsec", "santuario")]
    cands = [c for c in cands if ok(c)]
    if not cands:
        c = I.get(("xmlsec1", d, case, "inline"))
        cands = [c] if ok(c) else []
    return min(cands, key=lambda c: c["median_ns"]) if cands else None


def targets(I, docs):
    out = []
    for case in ("decrypt", "encrypt"):
        for d in docs:
            v = I.get(("vtdx", d, case, "wss"))
            if not ok(v):
                continue
            fl = floor_ns(I, "aws-lc", d, case)
            b = best_peer(I, d, case)
            t = {"case": case, "doc": d, "v": v, "floor": fl, "share": fl / v["median_ns"] if fl else None,
                 "best": b, "x": b["median_ns"] / v["median_ns"] if b else None,
                 "want_share": SHARE.get((case, d)), "want_x": TIMES.get((case, d))}
            t["share_met"] = None if t["want_share"] is None or t["share"] is None else t["share"] >= t["want_share"]
            t["x_met"] = None if t["want_x"] is None or t["x"] is None else t["x"] >= t["want_x"]
            out.append(t)
    return out


def report(rows, meta, quick):
    docs = [d for d in DOCS if any(r.get("doc") == d for r in rows)]
    I = {(r["peer"], r.get("doc"), r.get("case"), r.get("form")): r for r in rows if r.get("case") != "cross"}
    sizes = {}
    for r in rows:
        if r.get("peer") == "vtdx" and r.get("case") == "encrypt" and ok(r):
            sizes[r["doc"]] = r["bytes"]
    out = []
    w = out.append
    w("\n## XML Encryption of the SOAP Body (`xmlenc`)\n")
    w("The job: encrypt the SOAP Body's content (Type Content) with AES-256-GCM under a fresh session key, the key "
      "transported with RSA-OAEP (`rsa-oaep-mgf1p`, SHA-1) to an RSA-2048 certificate in an `xenc:EncryptedKey`, and "
      "decrypt it with the private key; bytes in, bytes out (parse, encrypt or decrypt, serialize). Form **wss**: the "
      "EncryptedKey at the top of the `wsse:Security` header with a ReferenceList, the EncryptedData pointing to it "
      "with a SecurityTokenReference (vtdx `encrypt_wss`; python-xmlsec the way py-wsse does it, encrypting with an "
      "inline EncryptedKey and moving it to the header; Santuario's `XMLCipher` as WSS4J uses it); every decryptor of "
      "this form decrypts the same message, made by `vtdx encrypt --wss`. Form **inline**: the EncryptedKey inside the "
      "EncryptedData's KeyInfo, the form `xmlsec1` fills in from a template and reads (it does not follow a "
      "SecurityTokenReference); `vtdx encrypt --body --content` / `vtdx decrypt` run beside it as whole processes on "
      "the same bytes. A new RSA-2048 key is made for each run and given to every peer.\n")
    w("Cross-checks: every decryption is compared with the original by the Exclusive C14N of the Body (lxml), and "
      "every encryption is decrypted once, outside the timed loops, by the other decryptors (vtdx, python-xmlsec, "
      "Santuario; xmlsec1 for the inline form) and compared the same way; a disagreement fails the run. "
      + ("Quick run: one round per cell, no JVM. " if quick else
         "The in-process native and Python cells are the median of 3 interleaved rounds; Santuario's are from one JVM "
         "after its JIT warm-up; the whole processes are the median of 11 runs. ")
      + "This machine has 2 cores shared with other work: expect tens of percent of noise.\n")
    for case in ("encrypt", "decrypt"):
        w(f"\n### {case.capitalize()}: messages per second\n")
        hdr = ["peer", "form", "how"] + [f"{d.rsplit('/', 1)[-1].replace('.xml', '')} ({sizes.get(d, 0) / 1e3:,.0f} KB)" for d in docs]
        body = []
        for p in ORDER:
            for form in ("wss", "inline"):
                cells = [I.get((p, d, case, form)) for d in docs]
                if all(c is None for c in cells):
                    continue
                row = [f"**{p}**" if p == "vtdx" else p, form, WHAT[p]]
                for d, c in zip(docs, cells):
                    if ok(c):
                        b = best_peer(I, d, case) if p in ("vtdx",) and form == "wss" else None
                        v = I.get(("vtdx", d, case, "wss"))
                        rat = ""
                        if p != "vtdx" and ok(v):
                            rat = f" ({c['median_ns'] / v['median_ns']:.1f}× vtdx's time)"
                        mark = "" if c.get("crosscheck", {"ok": True}).get("ok", True) else " ✘"
                        row.append(f"{fmt_rate(c)}{rat}{mark}")
                    elif c is None:
                        row.append("—")
                    else:
                        row.append(f"— ({c.get('status')}: {str(c.get('reason', ''))[:80]})")
                body.append(row)
        for lib in ("aws-lc", "openssl"):
            fl = [floor_ns(I, lib, d, case) for d in docs]
            if any(fl):
                body.append([f"floor: {lib}", "", "RSA-OAEP " + ("wrap" if case == "encrypt" else "unwrap") + " + AES-256-GCM "
                             + ("seal" if case == "encrypt" else "open") + " of the Body's content"]
                            + [f"{1e9 / x:,.0f} ({fmt_us(x)})" if x else "—" for x in fl])
        w("| " + " | ".join(hdr) + " |\n| " + " | ".join(["---", "---", "---"] + ["---:"] * len(docs)) + " |\n")
        w("".join("| " + " | ".join(map(str, r)) + " |\n" for r in body))
        w("\n(n× vtdx's time: the peer's latency over vtdx's in-process `wss` cell for the same document.)\n")
    # the floor's parts
    w("\n### The crypto floor (median per operation)\n")
    fhdr = ["library", "operation"] + [d.rsplit("/", 1)[-1].replace(".xml", "") for d in docs]
    fbody = []
    for lib in ("aws-lc", "openssl"):
        for c in FLOOR_CASES:
            cells = [I.get((lib, d, c, None)) for d in docs]
            if all(not ok(x) for x in cells):
                continue
            fbody.append([lib, c] + [fmt_us(x["median_ns"]) if ok(x) else "—" for x in cells])
    w("| " + " | ".join(fhdr) + " |\n| " + " | ".join(["---", "---"] + ["---:"] * len(docs)) + " |\n")
    w("".join("| " + " | ".join(map(str, r)) + " |\n" for r in fbody))
    w("\nRSA-OAEP of a 32-byte key with RSA-2048 (SHA-1, MGF1-SHA-1), the key parsed once; AES-256-GCM of the Body's "
      "content bytes (the plaintext), the key set up once. aws-lc is aws-lc-rs, the library vtdx encrypts with; OpenSSL "
      "is the `cryptography` wheel's, for reference.\n")
    # targets
    w("\n### The issue's targets\n")
    tg = targets(I, docs)
    tb = []
    for t in tg:
        v = t["v"]
        name = t["doc"].rsplit("/", 1)[-1].replace(".xml", "")
        if t["want_share"] is not None:
            share = "—" if t["share"] is None else f"{t['share'] * 100:.0f}%"
            met = "not measured" if t["share_met"] is None else ("**met**" if t["share_met"] else "**not met**")
            tb.append([t["case"], name, f"≥ {t['want_share'] * 100:.0f}% of the aws-lc floor",
                       f"{share} (vtdx {fmt_us(v['median_ns'])}, floor {fmt_us(t['floor']) if t['floor'] else '—'})", met])
        if t["want_x"] is not None:
            b = t["best"]
            met = "not measured" if t["x_met"] is None else ("**met**" if t["x_met"] else "**not met**")
            tb.append([t["case"], name, f"≥ {t['want_x']}× the fastest peer",
                       "—" if b is None else f"{t['x']:.1f}× ({b['peer']}: {fmt_rate(b)}/s, vtdx {fmt_rate(v)}/s)", met])
        elif t["x"] is not None:
            b = t["best"]
            tb.append([t["case"], name, "(no target) vs the fastest peer", f"{t['x']:.1f}× ({b['peer']}: {fmt_rate(b)}/s)", ""])
    w("| case | document | target | measured | |\n| --- | --- | --- | ---: | --- |\n")
    w("".join("| " + " | ".join(map(str, r)) + " |\n" for r in tb))
    w("\nvtdx is its in-process `wss` cell; the fastest peer is the faster of python-xmlsec and Santuario in process "
      "(xmlsec1, a whole process, only when neither has a figure). The floor is the aws-lc cells above: RSA-OAEP unwrap "
      "+ AES-256-GCM open (decrypt), wrap + seal (encrypt); the share is floor time / vtdx time.\n")
    crosses = [r for r in rows if r.get("case") == "cross"]
    if crosses:
        good = sum(1 for r in crosses if r["status"] == "ok")
        pairs = sorted({f"{r['producer']} → {r['peer']}" for r in crosses if r["status"] == "ok"})
        w(f"\nCross-decryption (outside the timed loops): {good} of {len(crosses)} decryptions of another peer's output "
          f"gave the original Body ({', '.join(pairs)}).\n")
        for r in crosses:
            if r["status"] != "ok":
                w(f"- ✘ {r['peer']} on {r['producer']}'s {r.get('form')} output of {r.get('doc')}: {r.get('reason')}\n")
    return "".join(out)
