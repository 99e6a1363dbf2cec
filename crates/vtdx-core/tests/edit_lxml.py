"""The lxml side of the Editor differential test (tests/edit.rs, differential_against_lxml).

Reads one JSON object per line on standard input:

    {"id": N, "doc": INPUT, "out": VTDX_OUTPUT, "edits": [[OP, PATH, ...], ...]}

applies the edits to INPUT with lxml, and compares the canonical XML (C14N 1.0, with
comments) of the result with that of VTDX_OUTPUT parsed by lxml. Prints `ok` or
`FAIL N REASON` (one line) per document. Exits non-zero if lxml is missing.

A PATH is a list of child indices from the root element, counting every child node:
in lxml terms the element's .text, then each child node followed by its .tail. Edits
name nodes of the input document, so every path is resolved before any edit is made.
Removals of elements, comments and PIs are made last, so that the text around them
merges only after the text edits (in the Editor a removal never changes the nodes
other edits name).

OPs: remove, remove_text, remove_attr QNAME, set_attr QNAME VALUE, set_text VALUE,
append QNAME [[QNAME, VALUE]...] TEXT|null, rename QNAME.
"""

import json
import sys

try:
    from lxml import etree
except ImportError as e:  # fail loudly: the Rust test reports stderr
    sys.stderr.write(f"edit_lxml.py: lxml is required (python3 -m pip install lxml; scripts/test.sh does): {e}\n")
    sys.exit(3)

XML_NS = "http://www.w3.org/XML/1998/namespace"
PARSER = etree.XMLParser(remove_blank_text=False, strip_cdata=True, resolve_entities=False, huge_tree=True)


def slots(el):
    s = []
    if el.text:
        s.append(("text", el))
    for c in el:
        s.append(("node", c))
        if c.tail:
            s.append(("tail", c))
    return s


def resolve(root, path):
    slot = ("node", root)
    for i in path:
        kind, obj = slot
        if kind != "node":
            raise ValueError(f"path {path} goes through text")
        s = slots(obj)
        if i >= len(s):
            raise ValueError(f"path {path}: {obj!r} has {len(s)} children")
        slot = s[i]
    return slot


def clark(el, qname, attribute):
    if ":" in qname:
        prefix, local = qname.split(":", 1)
        uri = XML_NS if prefix == "xml" else el.nsmap[prefix]
        return "{%s}%s" % (uri, local)
    if attribute:
        return qname
    uri = el.nsmap.get(None)
    return "{%s}%s" % (uri, qname) if uri else qname


def remove_keep_tail(node):
    parent = node.getparent()
    if parent is None:
        return  # inside a subtree already removed (by set_text)
    if node.tail:
        prev = node.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + node.tail
        else:
            parent.text = (parent.text or "") + node.tail
    parent.remove(node)


def prepare(root, edits):
    """Resolves paths and names on the input tree, before any edit: an edit that
    detaches a subtree changes what lxml reports as in scope inside it."""
    out = []
    for e in edits:
        kind, obj = resolve(root, e[1])
        op = e[0]
        if op in ("remove_attr", "set_attr"):
            args = [clark(obj, e[2], True)] + e[3:]
        elif op == "append":
            args = [clark(obj, e[2], False), [(clark(obj, n, True), v) for n, v in e[3]], e[4]]
        elif op == "rename":
            args = [clark(obj, e[2], False)]
        else:
            args = e[2:]
        out.append((op, kind, obj, args))
    return out


def apply(root, edits):
    removals = []
    for op, kind, obj, args in prepare(root, edits):
        if op == "remove":
            if kind != "node":
                raise ValueError(f"remove names text: {args}")
            removals.append(obj)
        elif op == "remove_text":
            if kind == "text":
                obj.text = None
            elif kind == "tail":
                obj.tail = None
            else:
                raise ValueError("remove_text names a node")
        elif op == "remove_attr":
            obj.attrib.pop(args[0], None)
        elif op == "set_attr":
            obj.set(args[0], args[1])
        elif op == "set_text":
            for c in list(obj):
                obj.remove(c)
            obj.text = args[0]
        elif op == "append":
            sub = etree.SubElement(obj, args[0])
            for name, value in args[1]:
                sub.set(name, value)
            if args[2] is not None:
                sub.text = args[2]
        elif op == "rename":
            obj.tag = args[0]
        else:
            raise ValueError(f"unknown edit {op}")
    for obj in removals:
        remove_keep_tail(obj)


def c14n(root):
    return etree.tostring(root.getroottree(), method="c14n", with_comments=True)


def main():
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        case = json.loads(line)
        i = case["id"]
        try:
            root = etree.fromstring(case["doc"].encode("utf-8"), PARSER)
            apply(root, case["edits"])
            want = c14n(root)
        except Exception as e:  # noqa: BLE001 - reported to the Rust side
            print(f"FAIL {i} lxml could not apply the edits: {e!r}", flush=True)
            continue
        try:
            got = c14n(etree.fromstring(case["out"].encode("utf-8"), PARSER))
        except Exception as e:  # noqa: BLE001
            print(f"FAIL {i} lxml cannot parse the vtdx output: {e!r}", flush=True)
            continue
        if got == want:
            print("ok", flush=False)
        else:
            print(f"FAIL {i} canonical forms differ: lxml {json.dumps(want.decode())} vtdx {json.dumps(got.decode())}", flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
