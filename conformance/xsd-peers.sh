#!/usr/bin/env bash
# Runs xmllint --schema (libxml2), Python xmlschema and Apache Xerces-J 2.12.2 through the
# same catalogs, the same test selection and the same verdict rule as `cargo run -p
# vtdx-conformance --bin xsd`, and prints their pass rates beside vtdx's. Not part of
# scripts/test.sh (it takes several minutes). Needs xmllint on PATH and a Python with
# xmlschema (e.g. target/py: `target/py/bin/python -m pip install xmlschema`); for Xerces-J
# Maven and a JDK (17+): the JVM peers of bench/peers/java are built as bench/run builds
# them (Maven Central), and vtdxbench.XsdSuite runs; without mvn/javac it is skipped with
# a note. Xerces's failing cases go to target/xsd-peers/xerces-failures.txt.
#
#   bash conformance/xsd-peers.sh [PYTHON]      SKIP_VTDX=1: leave out vtdx; SKIP_XERCES=1: Xerces
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${1:-$root/target/py/bin/python}"
corpus="${VTDX_CORPUS:-$root/../shared/corpus}/xsd"
if [ -z "${SKIP_VTDX:-}" ]; then
  echo "== vtdx"
  cargo run --release -q -p vtdx-conformance --bin xsd | sed -n '1,7p' || true
fi
echo "== peers (xmllint --schema, Python xmlschema)"
"$py" - "$corpus" <<'PY'
import glob, os, subprocess, sys, tempfile
from xml.etree import ElementTree as ET
TS = "{http://www.w3.org/XML/2004/xml-schema-test-suite/}"
XL = "{http://www.w3.org/1999/xlink}href"
corpus = sys.argv[1]
try:
    import xmlschema
except ImportError:
    xmlschema = None
cats = [(p, "ms") for p in sorted(glob.glob(f"{corpus}/msMeta/*_w3c.xml"))]
cats += [(p, "sun") for p in sorted(glob.glob(f"{corpus}/sunMeta/*.testSet"))]
cats += [(p, "boeing") for p in sorted(glob.glob(f"{corpus}/boeingMeta/*.testSet"))]
cats += [(f"{corpus}/wgMeta/{n}", "wg") for n in ("IRI.testSet", "substitution-groups.testSet")]

def skip11(e):
    v = (e.get("version") or "").split()
    return any(t.startswith("1.1") for t in v) and "1.0" not in v

def expected(e):
    best = None
    for x in e.findall(TS + "expected"):
        v = x.get("version")
        if v is None: r = 1
        elif "1.0" in v.split(): r = 0
        elif "Unicode_6" in v: r = 2
        elif all(t.startswith("1.1") for t in v.split()): continue
        else: r = 3
        if best is None or r < best[0]: best = (r, x.get("validity"))
    return {"valid": True, "invalid": False}.get(best[1]) if best else None

def binding(e):
    c = e.find(TS + "current")
    return c is None or c.get("status") in (None, "accepted", "stable")

def wrapper(docs):
    # One schema from several documents: a wrapper importing/including each (xsts.xsd).
    if len(docs) == 1: return docs[0], None
    parts = []
    for d in docs:
        tns = ET.parse(d).getroot().get("targetNamespace")
        uri = "file://" + os.path.abspath(d)
        parts.append(f'<xs:import namespace="{tns}" schemaLocation="{uri}"/>' if tns else f'<xs:include schemaLocation="{uri}"/>')
    f = tempfile.NamedTemporaryFile("w", suffix=".xsd", delete=False)
    f.write('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">' + "".join(parts) + "</xs:schema>")
    f.close()
    return f.name, f.name

def xmllint(schema, inst):
    args = ["xmllint", "--noout", "--nonet", "--schema", schema] + ([inst] if inst else [schema])
    try:
        r = subprocess.run(args, capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return None
    if inst is None:
        return b"failed to compile" not in r.stderr and b"Schemas parser error" not in r.stderr
    return r.returncode == 0

cache = {}
def xs_schema(docs):
    k = tuple(docs)
    if k not in cache:
        try:
            cache[k] = xmlschema.XMLSchema10(list(docs) if len(docs) > 1 else docs[0])
        except Exception:
            cache[k] = None
    return cache[k]

tally = {}
for path, s in cats:
    base = os.path.dirname(path)
    root = ET.parse(path).getroot()
    for g in root.findall(TS + "testGroup"):
        if skip11(g): continue
        st = g.find(TS + "schemaTest")
        docs = [os.path.join(base, d.get(XL)) for d in st.findall(TS + "schemaDocument")] if st is not None else []
        tests = []
        if st is not None and not skip11(st) and expected(st) is not None and binding(st):
            tests.append((True, None, expected(st)))
        for it in g.findall(TS + "instanceTest"):
            if skip11(it) or expected(it) is None or not binding(it): continue
            inst = os.path.join(base, it.find(TS + "instanceDocument").get(XL))
            if os.path.exists(inst): tests.append((False, inst, expected(it)))
        for is_schema, inst, exp in tests:
            key = (s, is_schema)
            t = tally.setdefault(key, [0, 0, 0])
            t[0] += 1
            if docs:
                sch, tmp = wrapper(docs)
                v = xmllint(sch, inst)
                if tmp: os.unlink(tmp)
            else:
                v = None if is_schema else False
            t[1] += int(v == exp)
            if xmlschema is not None:
                try:
                    sc = xs_schema(docs) if docs else None
                    if is_schema: w = sc is not None
                    elif sc is None: w = False
                    else: w = sc.is_valid(inst)
                except Exception:
                    w = False
                t[2] += int(w == exp)
print(f"{'set':<8} {'kind':<9} {'cases':>6} {'xmllint':>9} {'xmlschema':>10}")
tot = [0, 0, 0]
for (s, is_schema), (n, a, b) in sorted(tally.items()):
    for i, x in enumerate((n, a, b)): tot[i] += x
    print(f"{s:<8} {'schema' if is_schema else 'instance':<9} {n:>6} {100*a/n:8.1f}% {100*b/n:9.1f}%")
print(f"{'total':<18} {tot[0]:>6} {100*tot[1]/tot[0]:8.1f}% {100*tot[2]/tot[0]:9.1f}%")
print(f"passed: xmllint {tot[1]}/{tot[0]}, xmlschema {tot[2]}/{tot[0]}")
PY

echo "== Xerces-J (org.apache.xerces.jaxp.validation.XMLSchemaFactory, XSD 1.0)"
if [ -n "${SKIP_XERCES:-}" ]; then
  echo "xerces: skipped (SKIP_XERCES set)"
elif ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  echo "xerces: skipped: Maven and a JDK are needed (e.g. apt-get install maven default-jdk-headless, as bench/run does)"
else
  jvm="$root/bench/out/java"
  jar="$jvm/target/jvm-peers-0.1.0.jar"
  mkdir -p "$root/bench/out" "$root/target/xsd-peers"
  # The build of bench/run (step 3), when the jar is missing or older than its sources.
  if [ ! -e "$jar" ] || [ -n "$(find "$root/bench/peers/java/pom.xml" "$root/bench/peers/java/src" -newer "$jar" -print -quit)" ]; then
    echo "xerces: building the JVM peers (mvn package; Maven Central)"
    if ! mvn -B -q -f "$root/bench/peers/java/pom.xml" package >"$root/bench/out/mvn.log" 2>&1; then
      tail -20 "$root/bench/out/mvn.log" >&2
      echo "xerces: skipped: mvn package failed (see bench/out/mvn.log)"
      exit 0
    fi
  fi
  java -cp "$jar:$jvm/lib/*" vtdxbench.XsdSuite "$corpus" \
    --failures "$root/target/xsd-peers/xerces-failures.txt" || echo "xerces: the run failed (exit $?)"
fi
