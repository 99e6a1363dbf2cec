"""The lxml side of the differential test (tests/differential.rs).

Usage: python3 lxml_oracle.py DIR

DIR holds docN.xml (and, for documents that declare entities, docN.noent.xml:
the same document with the entity references written out) and exprs.txt,
one "N<TAB>EXPR" per line. For each line this writes, to DIR/results.txt,
one line with lxml's result in the canonical form the Rust side also writes:

    N:<IEEE bits as a signed 64-bit integer, or NaN>
    S:<string>
    B:true | B:false
    NS:<node>(\\x1f<node>)*   each node "path\\x1ekind\\x1evalue" (see XNode::path)
    E:<message>

then, for documents with a .noent twin, a TAB and the result on the twin.
Backslash, CR, LF and TAB in each result are escaped as \\\\, \\r, \\n, \\t.
"""

import struct
import sys

from lxml import etree

NS = {"p": "urn:p", "q": "urn:q", "d": "urn:d"}


def esc(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def is_elem(n):
    return isinstance(n, etree._Element) and isinstance(n.tag, str)


def same_kind(a, b):
    if is_elem(a):
        return is_elem(b)
    return isinstance(b, etree._Element) and a.tag is b.tag


def node_path(n):
    """XNode::path for an lxml element, comment or PI."""
    steps = []
    while n is not None:
        if is_elem(n):
            name = "*"
        elif n.tag is etree.Comment:
            name = "comment()"
        else:
            name = "processing-instruction()"
        i = 1 + sum(1 for s in n.itersiblings(preceding=True) if same_kind(n, s))
        steps.append("%s[%d]" % (name, i))
        n = n.getparent()
    return "/" + "/".join(reversed(steps))


def text_path(s):
    owner = s.getparent()
    if s.is_text:
        return node_path(owner) + "/text()[1]"
    parent = owner.getparent()
    i = 1 if parent.text else 0
    for c in parent:
        if c.tail:
            i += 1
        if c is owner:
            break
    return node_path(parent) + "/text()[%d]" % i


def attr_path(s):
    name = s.attrname
    if name.startswith("{"):
        uri, local = name[1:].split("}", 1)
        step = "@{%s}%s" % (uri, local)
    else:
        step = "@" + name
    return node_path(s.getparent()) + "/" + step


def describe(n):
    if isinstance(n, tuple):
        prefix, uri = n
        return ("namespace::" + (prefix or ""), "namespace", uri)
    if isinstance(n, str):
        if n.is_attribute:
            return (attr_path(n), "attribute", str(n))
        return (text_path(n), "text", str(n))
    if is_elem(n):
        return (node_path(n), "element", n.xpath("string()"))
    if n.tag is etree.Comment:
        return (node_path(n), "comment", n.text or "")
    return (node_path(n), "pi", n.text or "")


def canonical(r):
    if isinstance(r, bool):
        return "B:" + ("true" if r else "false")
    if isinstance(r, float):
        if r != r:
            return "N:NaN"
        return "N:%d" % struct.unpack("<q", struct.pack("<d", r))[0]
    if isinstance(r, str):
        return "S:" + str(r)
    if isinstance(r, list):
        items = [describe(n) for n in r]
        # Namespace nodes: lxml does not say whose they are, and their relative
        # order is the implementation's; compare runs of them sorted by prefix.
        out, run = [], []
        for it in items + [None]:
            if it is not None and it[1] == "namespace":
                run.append(it)
                continue
            out.extend(sorted(run))
            run = []
            if it is not None:
                out.append(it)
        return "NS:" + "\x1f".join("\x1e".join(x) for x in out)
    return "E:unexpected result type %r" % type(r)


def evaluate(tree, expr):
    try:
        return canonical(tree.xpath(expr, namespaces=NS))
    except Exception as e:  # noqa: BLE001 - any lxml error is an error result
        return "E:" + type(e).__name__ + ": " + str(e)


def main():
    d = sys.argv[1]
    parser = etree.XMLParser(resolve_entities=True, strip_cdata=True, remove_blank_text=False, huge_tree=True)
    trees, twins = {}, {}
    out = []
    with open(d + "/exprs.txt", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            n, expr = line.split("\t", 1)
            if n not in trees:
                trees[n] = etree.parse(d + "/doc%s.xml" % n, parser)
                try:
                    twins[n] = etree.parse(d + "/doc%s.noent.xml" % n, parser)
                except OSError:
                    twins[n] = None
            r = esc(evaluate(trees[n], expr))
            if twins[n] is not None:
                r += "\t" + esc(evaluate(twins[n], expr))
            out.append(r)
    with open(d + "/results.txt", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
