"""Differential test of ``vtdx.XMLSchema`` against Python ``xmlschema`` (an independent XML
Schema 1.0 validator): seeded random schemas (sequence/choice/all with occurrence bounds,
attributes required/default/fixed, simple types with facets, list and union) and instances
generated from them, valid ones and mutated ones; both validators must give the same verdict
on every instance. Where they differ, libxml2 (lxml) is asked as a third, independent
validator: vtdx must never be alone against both; a case where xmlschema is alone against vtdx
and libxml2 is listed in the test's output (xmlschema 4.3 rejects, for example, a choice with
minOccurs="2" whose first iteration is an emptiable particle) and counted, and must stay rare."""

import random

import pytest

import vtdx

xmlschema = pytest.importorskip("xmlschema")
lxml_etree = pytest.importorskip("lxml.etree")

SEED = 20261126
SCHEMAS = 100
INSTANCES_PER_SCHEMA = 12

XS = "http://www.w3.org/2001/XMLSchema"

# (type, facets or derivation as XSD text, valid lexical values, invalid lexical values)
SIMPLE_TYPES = [
    ("xs:string", None, ["", "a b", "x&amp;y"], []),
    ("xs:int", None, ["0", "-2147483648", " 42 ", "+7"], ["2147483648", "1.0", "x", ""]),
    ("xs:positiveInteger", None, ["1", "0012", "99999999999999999999"], ["0", "-1", "1e3"]),
    ("xs:boolean", None, ["true", "0", " false"], ["yes", "TRUE", ""]),
    ("xs:date", None, ["2024-02-29", "2001-12-31Z", "-0044-03-15"], ["2023-02-29", "2024-13-01", "24-01-01"]),
    ("xs:decimal", '<xs:minInclusive value="-10"/><xs:maxExclusive value="100"/><xs:totalDigits value="4"/><xs:fractionDigits value="2"/>',
     ["-10", "99.99", "0.5", "+1.00", "12.30"], ["100", "-10.01", "1.234", "12345", "abc"]),
    ("xs:string", '<xs:minLength value="2"/><xs:maxLength value="4"/>', ["ab", "abcd", "é€x"], ["a", "abcde", ""]),
    ("xs:token", '<xs:enumeration value="red"/><xs:enumeration value="green"/>', ["red", " green "], ["blue", "Red", "red green"]),
    ("xs:string", r'<xs:pattern value="[A-Z]\d{2,3}"/>', ["A12", "Z999"], ["A1", "a12", "A1234", " A12"]),
    ("xs:integer", '<xs:minExclusive value="0"/><xs:maxInclusive value="5"/>', ["1", "5", "03"], ["0", "6", "2.5"]),
    ("list", '<xs:list itemType="xs:int"/>', ["1 2 3", "", " 4 "], ["1 x", "1.5"]),
    ("union", '<xs:union memberTypes="xs:boolean xs:date"/>', ["true", "2020-01-01"], ["maybe", "2020-1-1"]),
]


def _simple_type_xml(i):
    base, facets, _, _ = SIMPLE_TYPES[i]
    if facets is None:
        return None
    if base in ("list", "union"):
        return f'<xs:simpleType name="t{i}">{facets}</xs:simpleType>'
    return f'<xs:simpleType name="t{i}"><xs:restriction base="{base}">{facets}</xs:restriction></xs:simpleType>'


def _type_name(i):
    return SIMPLE_TYPES[i][0] if SIMPLE_TYPES[i][1] is None else f"t{i}"


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.names = 0

    def occurs(self, in_all=False):
        r = self.rng
        if in_all:
            return r.choice([(0, 1), (1, 1), (1, 1)])
        lo = r.choice([0, 1, 1, 1, 2])
        hi = r.choice([lo, lo, lo + 1, lo + 2, None]) if lo > 0 else r.choice([1, 1, 2, None])
        return lo, hi

    def element(self, in_all=False):
        name = f"e{self.names}"
        self.names += 1
        return ("element", name, self.rng.randrange(len(SIMPLE_TYPES)), self.occurs(in_all))

    def particle(self, depth):
        r = self.rng
        if depth >= 2 or r.random() < 0.4:
            return self.element()
        kind = r.choice(["sequence", "choice"])
        children = [self.particle(depth + 1) for _ in range(r.randint(1, 3))]
        return (kind, children, self.occurs())

    def model(self):
        r = self.rng
        if r.random() < 0.2:
            # xs:all: element children with maxOccurs 1, the group itself once or optional
            children = [self.element(in_all=True) for _ in range(r.randint(1, 4))]
            return ("all", children, r.choice([(1, 1), (0, 1)]))
        kind = r.choice(["sequence", "choice"])
        return (kind, [self.particle(1) for _ in range(r.randint(1, 4))], (1, 1))

    def attributes(self):
        r = self.rng
        out = []
        for k in range(r.randint(0, 3)):
            t = r.choice([0, 1, 3, 5, 7, 8, 9])  # atomic types, so default/fixed compare simply
            use = r.choice(["required", "optional", "default", "fixed"])
            value = r.choice(SIMPLE_TYPES[t][2])
            out.append((f"a{k}", t, use, value.strip()))
        return out


def _occ_xml(occ):
    lo, hi = occ
    s = "" if lo == 1 else f' minOccurs="{lo}"'
    return s + ("" if hi == 1 else f' maxOccurs="{"unbounded" if hi is None else hi}"')


def particle_xml(p):
    if p[0] == "element":
        _, name, t, occ = p
        return f'<xs:element name="{name}" type="{_type_name(t)}"{_occ_xml(occ)}/>'
    kind, children, occ = p
    return f"<xs:{kind}{_occ_xml(occ)}>" + "".join(particle_xml(c) for c in children) + f"</xs:{kind}>"


def schema_xml(model, attrs):
    decls = []
    for name, t, use, value in attrs:
        extra = {"required": ' use="required"', "optional": "", "default": f' default="{value}"', "fixed": f' fixed="{value}"'}[use]
        decls.append(f'<xs:attribute name="{name}" type="{_type_name(t)}"{extra}/>')
    types = [x for x in (_simple_type_xml(i) for i in range(len(SIMPLE_TYPES))) if x]
    return (
        f'<xs:schema xmlns:xs="{XS}">\n'
        f'<xs:element name="root"><xs:complexType>{particle_xml(model)}{"".join(decls)}</xs:complexType></xs:element>\n'
        + "\n".join(types)
        + "\n</xs:schema>\n"
    )


def instance(rng, p, valid_only=True):
    """Children (name, text) generated from particle p, each repetition count within bounds."""
    out = []
    if p[0] == "element":
        _, name, t, (lo, hi) = p
        for _ in range(rng.randint(lo, min(hi if hi is not None else 3, lo + 2))):
            out.append([name, t, rng.choice(SIMPLE_TYPES[t][2])])
        return out
    kind, children, (lo, hi) = p
    for _ in range(rng.randint(lo, min(hi if hi is not None else 3, lo + 2))):
        if kind == "sequence":
            for c in children:
                out += instance(rng, c)
        elif kind == "choice":
            out += instance(rng, rng.choice(children))
        else:
            parts = [instance(rng, c) for c in children]
            rng.shuffle(parts)
            for part in parts:
                out += part
    return out


def mutate(rng, children, attrs, all_names):
    """One random change that may (or may not) make the instance invalid."""
    m = rng.choice(["drop", "dup", "swap", "unknown", "value", "attr-drop", "attr-extra", "attr-value", "text"])
    if m == "drop" and children:
        del children[rng.randrange(len(children))]
    elif m == "dup" and children:
        i = rng.randrange(len(children))
        children.insert(i, list(children[i]))
    elif m == "swap" and len(children) > 1:
        i, j = rng.sample(range(len(children)), 2)
        children[i], children[j] = children[j], children[i]
    elif m == "unknown":
        children.insert(rng.randint(0, len(children)), [rng.choice(all_names + ["zz"]), 0, "x"])
    elif m == "value" and children:
        c = children[rng.randrange(len(children))]
        bad = SIMPLE_TYPES[c[1]][3]
        if bad:
            c[2] = rng.choice(bad)
    elif m == "attr-drop" and attrs:
        attrs.pop(rng.choice(list(attrs)))
    elif m == "attr-extra":
        attrs["zz"] = "1"
    elif m == "attr-value" and attrs:
        k = rng.choice(list(attrs))
        attrs[k] = rng.choice(["bogus", "0", "2024-01-01", "A12"])
    elif m == "text":
        children.insert(rng.randint(0, len(children)), ["#text", 0, "stray"])
    return m


def names_of(p):
    if p[0] == "element":
        return [p[1]]
    return [n for c in p[1] for n in names_of(c)]


def render(children, attrs):
    a = "".join(f' {k}="{v}"' for k, v in attrs.items())
    body = "".join(text if name == "#text" else f"<{name}>{text}</{name}>" for name, _, text in children)
    return f"<root{a}>{body}</root>\n"


def test_verdicts_agree_with_xmlschema(tmp_path):
    rng = random.Random(SEED)
    disagreements = []
    xmlschema_alone = []
    verdicts = {True: 0, False: 0}
    cases = 0
    for s in range(SCHEMAS):
        g = Gen(rng)
        model, attrs = g.model(), g.attributes()
        xsd = tmp_path / f"s{s}.xsd"
        xsd.write_text(schema_xml(model, attrs), encoding="utf-8")
        ours = vtdx.XMLSchema(file=str(xsd))
        theirs = xmlschema.XMLSchema10(str(xsd))
        for k in range(INSTANCES_PER_SCHEMA):
            children = instance(rng, model)
            av = {}
            for name, t, use, value in attrs:
                if use == "required" or (use != "fixed" and rng.random() < 0.5) or (use == "fixed" and rng.random() < 0.3):
                    av[name] = value if use == "fixed" else rng.choice(SIMPLE_TYPES[t][2]).strip()
            how = "generated"
            if k % 3:  # two in three instances mutated once or twice
                how = mutate(rng, children, av, names_of(model))
                if rng.random() < 0.3:
                    how += "+" + mutate(rng, children, av, names_of(model))
            xml = tmp_path / f"s{s}-{k}.xml"
            xml.write_text(render(children, av), encoding="utf-8")
            a = ours.is_valid(vtdx.parse(str(xml)))
            b = theirs.is_valid(str(xml))
            cases += 1
            verdicts[b] += 1
            if a != b:
                c = lxml_etree.XMLSchema(lxml_etree.parse(str(xsd))).validate(lxml_etree.parse(str(xml)))
                if c == a:
                    xmlschema_alone.append(f"{xml.name} ({how}): vtdx and libxml2 {a}, xmlschema {b}")
                    continue
                disagreements.append(f"{xml.name} ({how}): vtdx {a}, xmlschema {b}\n{xsd.read_text(encoding='utf-8')}{xml.read_text(encoding='utf-8')}"
                                     + "".join(f"  vtdx: {e.message}\n" for e in ours.iter_errors(vtdx.parse(str(xml)))))
    assert cases == SCHEMAS * INSTANCES_PER_SCHEMA
    # both verdicts well represented, or the comparison says little
    assert verdicts[True] > cases // 5 and verdicts[False] > cases // 5, verdicts
    print("\n".join(xmlschema_alone))
    assert len(xmlschema_alone) <= cases // 50, xmlschema_alone
    assert not disagreements, f"{len(disagreements)} of {cases} disagree (vtdx against xmlschema and libxml2):\n\n" + "\n".join(disagreements[:5])
