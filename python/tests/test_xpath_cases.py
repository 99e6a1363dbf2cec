"""The engine-independent XPath cases of ``testdata/xpath/*.toml`` (schema in
``testdata/xpath/README.md``), which the Rust suite runs too
(``crates/vtdx-xpath/tests/shared.rs``).

Every case runs through vtdx and, as a cross-check of the expected values (which
come from the XPath 1.0 Recommendation), through lxml. Where lxml departs from the
Recommendation the case is listed in ``LXML_DIFFERS`` with the reason, and the
cross-check then requires the difference. The numbers of files and cases are
asserted, so a moved or truncated file fails loudly."""

import math
import pathlib
import tomllib

import pytest
from lxml import etree

import vtdx

DATA = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "xpath"

#: Files and cases in testdata/xpath (as the Rust runner counts them), and how many of
#: the cases have a text or attribute node as their context, which Python's ``xpath()``
#: cannot start from: those run in Rust only.
FILES, CASES, RUST_ONLY = 10, 323, 7

#: Cases where lxml (libxml2) departs from the Recommendation, with the reason.
LXML_DIFFERS = {
    "recommendation.toml:/": "lxml leaves the root node out of node-sets",
    "axes.toml:ancestor::node() @/r/b": "lxml leaves the root node out of node-sets",
    "axes.toml:ancestor-or-self::node() @/r/b": "lxml leaves the root node out of node-sets",
    "axes.toml:ancestor-or-self::node()[last()] @/r/b": "lxml leaves the root node out of node-sets",
    "data-model.toml:/r/..": "lxml leaves the root node out of node-sets",
    "data-model.toml:/ | /a | /a/@x | /a/namespace::* | /a/node()": "lxml leaves the root node out of node-sets",
    "node-sets.toml://*/.. | /a": "lxml leaves the root node out of node-sets",
    "data-model.toml:/a/text()": "libxml2 makes an empty text node of an empty CDATA section (§5.7: there is no character data)",
    "data-model.toml:an empty CDATA section is no text node": "libxml2 makes an empty text node of an empty CDATA section",
    "data-model.toml:/a/b/following-sibling::node()[1]": "libxml2 makes an empty text node of an empty CDATA section",
    "data-model.toml:count(//text())": "libxml2 makes an empty text node of an empty CDATA section",
    "data-model.toml:concat(name(id('d')), name(id(' s')))": "libxml2's id() does not skip white space before the first ID (§4.1: "
    "the argument is split at white space)",
    "functions.toml:position() @//b[2]": "lxml's xpath() leaves the context position undefined (an XPathEvalError); vtdx's is 1",
    "functions.toml:last() @//b[2]": "lxml's xpath() leaves the context size undefined (an XPathEvalError); vtdx's is 1",
    "functions.toml:no exponent in a Number": "libxml2 reads `1e3` as a number; XPath 1.0 numbers have no exponent (§3.7)",
    "namespaces.toml:undeclared default": "libxml2 makes a namespace node of the undeclaration xmlns=\"\" (§5.4: none)",
    "namespaces.toml:count(/d:a/namespace::p:*)": "libxml2 ignores the prefix of a name test on the namespace axis "
    "(§2.3: namespace nodes have a null namespace URI, so p:* matches none)",
    "namespaces.toml:namespace nodes come before attribute nodes": "libxml2 does not put namespace nodes before attributes in a union (§5)",
    "numbers.toml:string(0.1 + 0.2)": "libxml2 writes 15 significant digits (§4.2: as many as needed to tell the number apart)",
    "numbers.toml:string(1 div 3)": "libxml2 writes 15 significant digits (§4.2: as many as needed to tell the number apart)",
    "numbers.toml:string(0.000001)": "libxml2 writes an exponent (1e-06); §4.2 has none",
    "numbers.toml:string(123456789012)": "libxml2 writes an exponent (1.23456789012e+11); §4.2 has none",
    "numbers.toml:string(100000000000000000000000)": "libxml2 writes an exponent (1e+23); §4.2 has none",
}


class Case:
    def __init__(self, file, data, raw):
        self.file = file
        self.expr = raw["expr"]
        self.context = raw.get("context", "/")
        docs = data["documents"]
        self.xml = docs[raw["document"]] if "document" in raw else next(iter(docs.values()))
        self.namespaces = data.get("namespaces", {})
        self.variables = {k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in raw.get("variables", {}).items()}
        self.raw = raw
        name = raw.get("name") or (self.expr if self.context == "/" else f"{self.expr} @{self.context}")
        self.id = f"{file}:{name}"


def load():
    files = sorted(DATA.glob("*.toml"))
    cases = []
    for f in files:
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        cases += [Case(f.name, data, raw) for raw in data["case"]]
    return files, cases


FILE_LIST, ALL = load()


# ---- what a result looks like, for vtdx's objects and lxml's alike ---------------------------


def is_root(x):
    return isinstance(x, (vtdx.Document, etree._ElementTree))


def kind(x):
    if isinstance(x, (vtdx.Comment, etree._Comment)):
        return "comment()"
    if isinstance(x, (vtdx.ProcessingInstruction, etree._ProcessingInstruction)):
        return "processing-instruction()"
    return "*"


def element_path(x):
    """The path of an element, comment or PI: one positional step per level."""
    steps = []
    while x is not None:
        k = kind(x)
        steps.append(f"{k}[{1 + sum(1 for s in x.itersiblings(preceding=True) if kind(s) == k)}]")
        x = x.getparent()
    return "/" + "/".join(reversed(steps))


def path(x):
    """The path of a result node (namespace nodes: the last step only, see the README)."""
    if isinstance(x, tuple):
        return "namespace::" + (x[0] or "")
    if is_root(x):
        return "/"
    if isinstance(x, str):
        owner = x.getparent()
        if x.is_attribute:
            return f"{element_path(owner)}/@{x.attrname}"
        if x.is_text:
            return f"{element_path(owner)}/text()[1]"
        # the tail of `owner`: count the text nodes of its parent up to it
        parent = owner.getparent()
        n = (1 if parent.text else 0) + 1 + sum(1 for s in owner.itersiblings(preceding=True) if s.tail)
        return f"{element_path(parent)}/text()[{n}]"
    return element_path(x)


def string_value(x):
    if isinstance(x, tuple):
        return x[1]
    if isinstance(x, str):
        return str(x)
    if is_root(x):
        return string_value(x.getroot())
    if kind(x) != "*":
        return x.text or ""
    return (x.text or "") + "".join((string_value(c) if kind(c) == "*" else "") + (c.tail or "") for c in x)


def last_step_if_namespace(p):
    last = p.rsplit("/", 1)[-1]
    return last if last.startswith("namespace::") else p


def mismatch(case, got):
    """None if `got` is the expected result, else what is wrong."""
    want = case.raw
    if "nodes" in want or "values" in want:
        if not isinstance(got, list):
            return f"got {got!r}, want a node-set"
        n = len(want.get("nodes", want.get("values", [])))
        exp = [
            (last_step_if_namespace(want["nodes"][i]) if "nodes" in want else None, want["values"][i] if "values" in want else None)
            for i in range(n)
        ]
        res = [(path(x) if "nodes" in want else None, string_value(x) if "values" in want else None) for x in got]
        if want.get("any_order"):
            exp, res = sorted(exp, key=repr), sorted(res, key=repr)
        return None if res == exp else f"got {res}, want {exp}"
    if "count" in want:
        return None if isinstance(got, list) and len(got) == want["count"] else f"got {got!r}, want {want['count']} nodes"
    if "number" in want:
        w = float(want["number"])
        ok = isinstance(got, float) and (
            (math.isnan(got) and math.isnan(w)) or (got == w and math.copysign(1, got) == math.copysign(1, w))
        )
        return None if ok else f"got {got!r}, want the number {w!r}"
    if "string" in want:
        return None if isinstance(got, str) and not isinstance(got, bool) and got == want["string"] else f"got {got!r}, want {want['string']!r}"
    if "boolean" in want:
        return None if got is want["boolean"] else f"got {got!r}, want {want['boolean']!r}"
    return f"got {got!r}, want an error when the expression is {want['error']}d"


def outcome(case, root, errors):
    """Evaluates `case` from `root` (a document element): None when it is as expected,
    else what is wrong. `errors` maps "compile"/"evaluate" to the exception expected."""
    if case.context == "/":
        node = root  # as lxml's ElementTree.xpath: the document element (see the README)
    else:
        found = root.xpath(case.context, namespaces=case.namespaces)
        assert len(found) == 1, f"context {case.context} selects {len(found)} nodes"
        node = found[0]
    try:
        got = node.xpath(case.expr, namespaces=case.namespaces, **case.variables)
    except (vtdx.XPathError, etree.XPathError) as e:
        if "error" in case.raw and isinstance(e, errors[case.raw["error"]]):
            return None
        return f"raised {type(e).__name__}: {e}"
    return mismatch(case, got)


def python_can_start_from(case):
    """False when the context is a text or attribute node (Rust only)."""
    if case.context == "/":
        return True
    root = vtdx.fromstring(case.xml.encode(), attribute_defaults=True)
    found = root.xpath(case.context, namespaces=case.namespaces)
    return len(found) == 1 and not isinstance(found[0], (str, tuple))


RUNNABLE = [c for c in ALL if python_can_start_from(c)]


def test_counts():
    assert len(FILE_LIST) == FILES, f"files in {DATA} were added or moved: update FILES"
    assert len(ALL) == CASES, f"cases in {DATA} were added or lost: update CASES"
    assert len(ALL) - len(RUNNABLE) == RUST_ONLY
    ids = [c.id for c in ALL]
    assert len(set(ids)) == len(ids), "case IDs must be unique (see the README)"
    assert set(LXML_DIFFERS) <= set(ids), "LXML_DIFFERS names a case that does not exist"


@pytest.mark.parametrize("case", RUNNABLE, ids=lambda c: c.id)
def test_vtdx(case):
    # the Rust API applies the internal subset's attribute defaults by default; Python asks for it
    root = vtdx.fromstring(case.xml.encode(), attribute_defaults=True)
    wrong = outcome(case, root, {"compile": vtdx.XPathSyntaxError, "evaluate": vtdx.XPathEvalError})
    assert wrong is None, wrong


@pytest.mark.parametrize("case", RUNNABLE, ids=lambda c: c.id)
def test_lxml_cross_check(case):
    root = etree.fromstring(case.xml.encode(), etree.XMLParser(attribute_defaults=True))
    # lxml reports unbound prefixes and unknown functions when it evaluates
    wrong = outcome(case, root, {"compile": etree.XPathError, "evaluate": etree.XPathError})
    if case.id in LXML_DIFFERS:
        assert wrong is not None, f"lxml now agrees: remove {case.id!r} from LXML_DIFFERS"
    else:
        assert wrong is None, f"lxml disagrees with the expected value (check the case): {wrong}"
