"""Verdicts of Python xmlschema (an independent XSD 1.0 implementation) on simple types.

Reads JSON from stdin: {"types": [{"name": N, "xsd": "<xs:simpleType name=N>...</xs:simpleType>"}],
"values": [[N, lexical], ...]}. Each type is built in its own schema document (so a bad
type does not hide the others). Writes lines to stdout: `T<TAB>N<TAB>ok` or `T<TAB>N<TAB>error<TAB>message` per type, then
`V<TAB>1`, `V<TAB>0` or `V<TAB>-` (the type did not build) per value, in order.
Used by crates/vtdx-schema/tests/datatypes.rs.
"""
import json
import sys

import xmlschema

HEAD = ('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:p="urn:p" '
        'targetNamespace="urn:t" xmlns:t="urn:t">')


NAMESPACES = {"p": "urn:p", "t": "urn:t"}


def main():
    req = json.load(sys.stdin)
    built = {}
    errors = {}
    for t in req["types"]:
        try:
            schema = xmlschema.XMLSchema10(HEAD + t["xsd"] + "</xs:schema>")
            built[t["name"]] = schema.types[t["name"]]
            errors[t["name"]] = None
        except Exception as e:  # a schema error is a verdict
            errors[t["name"]] = str(e).splitlines()[0] if str(e) else type(e).__name__
    out = []
    for name, value in req["values"]:
        ty = built.get(name)
        if ty is None:
            out.append(None)
            continue
        try:
            out.append(bool(ty.is_valid(value, namespaces=NAMESPACES)))
        except Exception:
            out.append(False)
    w = sys.stdout
    for name, err in errors.items():
        if err is None:
            w.write("T\t%s\tok\n" % name)
        else:
            w.write("T\t%s\terror\t%s\n" % (name, err.replace("\t", " ").replace("\n", " ")))
    for v in out:
        w.write("V\t%s\n" % ("-" if v is None else "1" if v else "0"))


if __name__ == "__main__":
    main()
