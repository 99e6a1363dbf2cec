//! `vtdx edit`: each operation, their sequencing, the output modes (standard
//! output, `-o`, `-L` in place), standard input and the exit codes.
//!
//! Expected outputs are written by hand from the inputs, or computed by an
//! independent implementation of the same edits with lxml (`LXML_EDIT` below, run
//! in a Python subprocess) and compared after canonicalization by lxml. Nothing
//! expected comes from running vtdx.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;

use common::{code, run_vtdx, stderr, stdout, TempDir};

/// Runs `vtdx edit ARGS` in `dir`.
fn vtdx(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut a = vec!["edit"];
    a.extend_from_slice(args);
    run_vtdx(dir, &a, stdin)
}

/// `vtdx edit ARGS -` on `doc`, from a throwaway directory.
fn edit_stdin(doc: &str, args: &[&str]) -> Output {
    let mut a = args.to_vec();
    a.push("-");
    vtdx(&std::env::temp_dir(), &a, Some(doc.as_bytes()))
}

/// Runs `doc` through `vtdx edit ARGS -`, asserts success and returns the output.
fn ok(doc: &str, args: &[&str]) -> String {
    let o = edit_stdin(doc, args);
    assert_eq!(code(&o), 0, "vtdx edit {args:?}: {}", stderr(&o));
    assert_eq!(stderr(&o), "", "vtdx edit {args:?}");
    stdout(&o)
}

/// Runs `doc` through `vtdx edit ARGS -`, asserts exit status `want` with nothing on
/// standard output and returns standard error.
fn fails(doc: &str, args: &[&str], want: i32) -> String {
    let o = edit_stdin(doc, args);
    assert_eq!(code(&o), want, "vtdx edit {args:?}: stdout {:?}, stderr {}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), "", "vtdx edit {args:?}");
    let e = stderr(&o);
    assert!(!e.trim().is_empty(), "vtdx edit {args:?}: no message");
    e
}

// ---- the lxml reference -----------------------------------------------------------

/// The same edits with lxml, parsed from the same arguments. `c14n` prints the
/// canonical form of the document on standard input; `edit ARGS...` applies ARGS
/// (operations and -N only) to it and prints the canonical form of the result.
/// Whitespace is kept as lxml has it, so the documents compared here carry no
/// indentation for `-d` to tidy.
const LXML_EDIT: &str = r#"
import sys
from lxml import etree

def c14n(root):
    return etree.tostring(etree.ElementTree(root), method="c14n")

def expand(ctx, name, element):
    # names are spliced in as text: an unprefixed element name takes the default
    # namespace in scope where it lands (as with xmlstarlet's output)
    if ":" in name:
        p, l = name.split(":", 1)
        uri = ctx.nsmap.get(p)
        if uri is None:
            sys.exit("reference: prefix %s not declared" % p)
        return "{%s}%s" % (uri, l), {p: uri}
    if element and ctx.nsmap.get(None):
        return "{%s}%s" % (ctx.nsmap[None], name), None
    return name, None

def add_text_before(node, v):
    prev, parent = node.getprevious(), node.getparent()
    if prev is not None:
        prev.tail = (prev.tail or "") + v
    else:
        parent.text = (parent.text or "") + v

def append_text(el, v):
    if len(el):
        el[-1].tail = (el[-1].tail or "") + v
    else:
        el.text = (el.text or "") + v

def detach(node):
    # lxml's remove() takes the tail along: leave it where it was
    if node.tail:
        add_text_before(node, node.tail)
    node.tail = None
    node.getparent().remove(node)

def is_str(n):
    return isinstance(n, str)

def text_parent(n):
    return n.getparent()

def remove_text(n):
    if n.is_text:
        n.getparent().text = None
    else:
        n.getparent().tail = None

def set_text(n, v):
    if n.is_text:
        n.getparent().text = v
    else:
        n.getparent().tail = v

def op_delete(root, ns, x):
    # last first: a text node that is an element's tail goes before the element
    for n in reversed(root.xpath(x, namespaces=ns)):
        if is_str(n):
            if n.is_attribute:
                del n.getparent().attrib[n.attrname]
            else:
                remove_text(n)
        else:
            detach(n)

def op_update(root, ns, x, v):
    for n in root.xpath(x, namespaces=ns):
        if is_str(n):
            if n.is_attribute:
                n.getparent().set(n.attrname, v)
            else:
                set_text(n, v)
        elif isinstance(n.tag, str):
            for c in list(n):
                n.remove(c)
            n.text = v
        else:
            n.text = v

def op_insert(root, ns, at, x, what, name, value):
    for n in root.xpath(x, namespaces=ns):
        if is_str(n):
            sys.exit("reference: insert at a text or attribute node is not modelled")
        if what == "attr":
            tag, _ = expand(n, name, False)
            n.set(tag, value or "")
        elif what == "text":
            v = value or ""
            if at == "-i":
                add_text_before(n, v)
            elif at == "-a":
                n.tail = v + (n.tail or "")
            else:
                append_text(n, v)
        else:
            ctx = n if at == "-s" else n.getparent()
            tag, nsmap = expand(ctx, name, True)
            new = etree.Element(tag, nsmap=nsmap)
            new.text = value or None
            if at == "-i":
                n.addprevious(new)
            elif at == "-a":
                # lxml adds after the tail; XPath's next sibling comes before it
                n.addnext(new)
                new.tail, n.tail = n.tail, None
            else:
                n.append(new)

def op_rename(root, ns, x, new):
    for n in root.xpath(x, namespaces=ns):
        if is_str(n):
            owner = n.getparent()
            v = owner.attrib.pop(n.attrname)
            owner.set(expand(owner, new, False)[0], v)
        else:
            n.tag = expand(n, new, True)[0]

def op_move(root, ns, x, target):
    dest = [t for t in root.xpath(target, namespaces=ns) if not is_str(t)][0]
    for n in root.xpath(x, namespaces=ns):
        if is_str(n):
            if n.is_attribute:
                owner = n.getparent()
                if owner is not dest:
                    dest.set(n.attrname, str(n))
                    del owner.attrib[n.attrname]
            else:
                remove_text(n)
                append_text(dest, str(n))
        else:
            detach(n)
            dest.append(n)

def main():
    mode, args = sys.argv[1], sys.argv[2:]
    src = sys.stdin.buffer.read()
    root = etree.fromstring(src)
    if mode == "c14n":
        sys.stdout.buffer.write(c14n(root))
        return
    # `exact`: lxml's own serialization instead of the canonical form, for documents
    # lxml writes back byte for byte (checked here)
    if mode == "exact" and etree.tostring(root) != src:
        sys.exit("reference: lxml does not write this document back as it was")
    ns, ops, i = {}, [], 0
    while i < len(args):
        a = args[i]
        if a == "-N":
            p, u = args[i + 1].split("=", 1)
            ns[p] = u
            i += 2
        elif a == "-d":
            ops.append((op_delete, args[i + 1]))
            i += 2
        elif a in ("-u", "-r"):
            assert args[i + 2] == "-v"
            ops.append((op_update if a == "-u" else op_rename, args[i + 1], args[i + 3]))
            i += 4
        elif a == "-m":
            ops.append((op_move, args[i + 1], args[i + 2]))
            i += 3
        elif a in ("-i", "-a", "-s"):
            x, i = args[i + 1], i + 2
            what = name = value = None
            while i < len(args) and args[i] in ("-t", "-n", "-v"):
                if args[i] == "-t":
                    what = args[i + 1]
                elif args[i] == "-n":
                    name = args[i + 1]
                else:
                    value = args[i + 1]
                i += 2
            ops.append((op_insert, a, x, what, name, value))
        else:
            sys.exit("reference: unexpected argument %r" % a)
    for op in ops:
        op[0](root, ns, *op[1:])
    sys.stdout.buffer.write(etree.tostring(root) if mode == "exact" else c14n(root))

main()
"#;

fn python(args: &[&str], stdin: &[u8]) -> String {
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(LXML_EDIT).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("python3 is needed for the lxml reference (scripts/test.sh installs lxml)");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "the lxml reference failed for {args:?} (is lxml installed? `python3 -m pip install lxml`): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Applies `args` with `vtdx edit -P` and with lxml (removed nodes leave their tails
/// where they were), and compares the bytes: lxml's serialization of the result,
/// on a document lxml writes back unchanged, is the input minus the removed nodes.
fn preserves_like_lxml(doc: &str, args: &[&str]) {
    let mut a = vec!["-P"];
    a.extend_from_slice(args);
    let got = ok(doc, &a);
    let mut p = vec!["exact"];
    p.extend_from_slice(args);
    let want = python(&p, doc.as_bytes());
    assert_eq!(got, want, "vtdx edit {a:?} on\n{doc}");
}

/// Applies `args` with vtdx and with lxml, and compares the canonical forms.
fn agrees_with_lxml(doc: &str, args: &[&str]) {
    let got = ok(doc, args);
    let got_c14n = python(&["c14n"], got.as_bytes());
    let mut a = vec!["edit"];
    a.extend_from_slice(args);
    let want_c14n = python(&a, doc.as_bytes());
    assert_eq!(got_c14n, want_c14n, "vtdx edit {args:?} on\n{doc}\ngave\n{got}");
}

// ---- documents ----------------------------------------------------------------------

/// No indentation (see `LXML_EDIT`); mixed content, CDATA, a comment, a PI, a
/// prefixed element and attribute, a default namespace in a subtree.
const DOC: &str = concat!(
    r#"<?xml version="1.0"?>"#,
    "\n",
    r#"<po xmlns:p="urn:p" date="2026"><item n="1" p:k="v">Can &amp; lid</item>"#,
    r#"<!--note--><item n="2">a<![CDATA[<b>]]>c<sub>s</sub>tail</item><?pi data?>"#,
    r#"<p:extra p:x="1"/><ship xmlns="urn:d"><to>Ann</to></ship><empty/></po>"#,
);

// ---- each operation ---------------------------------------------------------------

#[test]
fn delete_by_hand() {
    let d = r#"<r a='1'  b="2"><x/>t1<y>in</y><!-- c --><?p q?>t2</r>"#;
    assert_eq!(ok(d, &["-d", "//y"]), r#"<r a='1'  b="2"><x/>t1<!-- c --><?p q?>t2</r>"#);
    // an attribute goes with the whitespace before it
    assert_eq!(ok(d, &["-d", "/r/@b"]), r#"<r a='1'><x/>t1<y>in</y><!-- c --><?p q?>t2</r>"#);
    assert_eq!(ok(d, &["-d", "/r/text()"]), r#"<r a='1'  b="2"><x/><y>in</y><!-- c --><?p q?></r>"#);
    assert_eq!(ok(d, &["-d", "//comment() | //processing-instruction()"]), r#"<r a='1'  b="2"><x/>t1<y>in</y>t2</r>"#);
    // a selection that matches nothing changes nothing
    assert_eq!(ok(d, &["-d", "//nothing"]), d);
    // a text node that is text and CDATA is deleted whole
    assert_eq!(ok("<r>a<![CDATA[b]]>c<x/></r>", &["-d", "/r/text()"]), "<r><x/></r>");
}

#[test]
fn delete_removes_the_line_of_an_indented_node() {
    let d = "<r>\n  <a/>\n  <!-- c -->\n  <b>t</b>\n</r>\n";
    assert_eq!(ok(d, &["-d", "//a"]), "<r>\n  <!-- c -->\n  <b>t</b>\n</r>\n");
    assert_eq!(ok(d, &["-d", "//comment()"]), "<r>\n  <a/>\n  <b>t</b>\n</r>\n");
    assert_eq!(ok(d, &["-d", "//b", "-d", "//a"]), "<r>\n  <!-- c -->\n</r>\n");
}

#[test]
fn preserve_whitespace_by_hand() {
    let d = "<r>\n  <a/>\n  <!-- c -->\n  <b>t</b>\n</r>\n";
    for p in ["-P", "--preserve-whitespace"] {
        assert_eq!(ok(d, &[p, "-d", "//a"]), "<r>\n  \n  <!-- c -->\n  <b>t</b>\n</r>\n");
        // among or after the operations
        assert_eq!(ok(d, &["-d", "//comment()", p]), "<r>\n  <a/>\n  \n  <b>t</b>\n</r>\n");
        assert_eq!(ok(d, &["-d", "//b", p, "-d", "//a"]), "<r>\n  \n  <!-- c -->\n  \n</r>\n");
    }
    // CR LF line ends and tabs stay too
    assert_eq!(ok("<r>\r\n\t<a/>\r\n</r>", &["-P", "-d", "//a"]), "<r>\r\n\t\r\n</r>");
    assert_eq!(ok("<r>\r\n\t<a/>\r\n</r>", &["-d", "//a"]), "<r>\r\n</r>");
    // moving a node leaves its line behind
    assert_eq!(ok("<r>\n  <a/>\n  <b/>\n</r>", &["-P", "-m", "//a", "//b"]), "<r>\n  \n  <b><a/></b>\n</r>");
}

/// Indented, with a prefix, mixed content, a comment and a PI, in the form lxml
/// writes (double quotes, `<x/>`, no declaration), so lxml's output can be compared
/// byte for byte.
const INDENTED: &str = r#"<r xmlns:p="urn:p">
  <a k="1" j="2"/>
  <!-- note -->
  <b>
    <c>t</c>
    <?pi data?>
    <d/>
  </b>
  <p:e p:k="v">mixed <f/> text</p:e>
  <a/>
</r>"#;

#[test]
fn preserve_whitespace_agrees_with_lxml() {
    for x in [
        "//a",
        "//a[1]",
        "//comment()",
        "//processing-instruction()",
        "//b",
        "//c | //d",
        "//b/*",
        "//f",
        "//p:e",
        "//@k",
        "//@p:k",
        "//p:e/text()",
        "//b/text()",
        "/r/node()[not(self::b)]",
    ] {
        preserves_like_lxml(INDENTED, &["-N", "p=urn:p", "-d", x]);
    }
    preserves_like_lxml(INDENTED, &["-d", "//c", "-d", "//a", "-d", "//comment()"]);
}

#[test]
fn delete_agrees_with_lxml() {
    for x in ["//item[1]", "//@n", "//@p:k", "//text()", "//sub", "//comment()", "//processing-instruction()", "//d:to", "//item[2]/node()"]
    {
        agrees_with_lxml(DOC, &["-N", "d=urn:d", "-N", "p=urn:p", "-d", x]);
    }
}

#[test]
fn update_by_hand() {
    let d = r#"<r a='1' b="2"><x>old<i/>more</x><y/>t<![CDATA[c]]>u</r>"#;
    // element: all content becomes the (escaped) text
    assert_eq!(ok(d, &["-u", "//x", "-v", "a<b&c"]), r#"<r a='1' b="2"><x>a&lt;b&amp;c</x><y/>t<![CDATA[c]]>u</r>"#);
    assert_eq!(ok(d, &["-u", "//y", "-v", "new"]), r#"<r a='1' b="2"><x>old<i/>more</x><y>new</y>t<![CDATA[c]]>u</r>"#);
    // attribute: escaped for its own quote (`'` may be written `&apos;` or `&#39;`,
    // so lxml reads the value back)
    let out = ok(d, &["-u", "/r/@a", "-v", "it's \"q\""]);
    assert!(out.starts_with("<r a='") && out.ends_with(r#"' b="2"><x>old<i/>more</x><y/>t<![CDATA[c]]>u</r>"#), "{out}");
    agrees_with_lxml(d, &["-u", "/r/@a", "-v", "it's \"q\""]);
    assert_eq!(ok(d, &["-u", "/r/@b", "-v", "<&>"]), r#"<r a='1' b="&lt;&amp;>"><x>old<i/>more</x><y/>t<![CDATA[c]]>u</r>"#);
    // text: the whole text node (text and CDATA) takes the value
    assert_eq!(ok(d, &["-u", "/r/text()", "-v", "T"]), r#"<r a='1' b="2"><x>old<i/>more</x><y/>T</r>"#);
    assert_eq!(ok(d, &["-u", "//x/text()[2]", "-v", ""]), r#"<r a='1' b="2"><x>old<i/></x><y/>t<![CDATA[c]]>u</r>"#);
}

#[test]
fn update_agrees_with_lxml() {
    for x in ["//item", "//item[2]", "//@n", "//@p:k", "//item[2]/text()", "//sub/text()", "//d:to", "//empty"] {
        agrees_with_lxml(DOC, &["-N", "d=urn:d", "-N", "p=urn:p", "-u", x, "-v", "v <&> \"'\t\r\n end"]);
    }
    agrees_with_lxml(DOC, &["-u", "//comment()", "-v", " new note "]);
}

#[test]
fn insert_by_hand() {
    let d = "<r><a/>t<b>x</b></r>";
    assert_eq!(ok(d, &["-i", "//b", "-t", "elem", "-n", "n", "-v", "1<2"]), "<r><a/>t<n>1&lt;2</n><b>x</b></r>");
    assert_eq!(ok(d, &["-a", "//a", "-t", "elem", "-n", "n"]), "<r><a/><n/>t<b>x</b></r>");
    assert_eq!(ok(d, &["-s", "//b", "-t", "elem", "-n", "n", "-v", "v"]), "<r><a/>t<b>x<n>v</n></b></r>");
    // as last child of an empty-element tag: it gets an end tag
    assert_eq!(ok(d, &["-s", "//a", "-t", "elem", "-n", "n"]), "<r><a><n/></a>t<b>x</b></r>");
    assert_eq!(ok(d, &["-s", "//a", "-t", "text", "-v", "&"]), "<r><a>&amp;</a>t<b>x</b></r>");
    assert_eq!(ok(d, &["-i", "//a", "-t", "text", "-v", ">"]), "<r>&gt;<a/>t<b>x</b></r>");
    assert_eq!(ok(d, &["-a", "//b", "-t", "text", "-v", "end"]), "<r><a/>t<b>x</b>end</r>");
    // an attribute goes on the selected element whatever the position flag
    for at in ["-i", "-a", "-s"] {
        assert_eq!(ok(d, &[at, "//b", "-t", "attr", "-n", "k", "-v", "\"v\""]), "<r><a/>t<b k=\"&quot;v&quot;\">x</b></r>");
    }
    assert_eq!(ok(d, &["-s", "//a", "-t", "attr", "-n", "k"]), "<r><a k=\"\"/>t<b>x</b></r>");
    // after a text node: after the whole run
    assert_eq!(ok("<r>a<![CDATA[b]]>c</r>", &["-a", "/r/text()", "-t", "elem", "-n", "n"]), "<r>a<![CDATA[b]]>c<n/></r>");
    // at every selected node
    assert_eq!(ok("<r><a/><a/></r>", &["-s", "//a", "-t", "elem", "-n", "n"]), "<r><a><n/></a><a><n/></a></r>");
    // a prefixed name declared where it lands
    assert_eq!(
        ok(r#"<r xmlns:p="urn:p"><a/></r>"#, &["-s", "//a", "-t", "elem", "-n", "p:n", "-s", "//a", "-t", "attr", "-n", "p:k", "-v", "1"]),
        r#"<r xmlns:p="urn:p"><a p:k="1"><p:n/></a></r>"#
    );
}

#[test]
fn insert_agrees_with_lxml() {
    let ns = ["-N", "d=urn:d", "-N", "p=urn:p"];
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for at in ["-i", "-a", "-s"] {
        for x in ["//item", "//sub", "//d:to", "//empty"] {
            cases.push(vec![at, x, "-t", "elem", "-n", "new", "-v", "v&<"]);
            cases.push(vec![at, x, "-t", "elem", "-n", "p:new"]);
            cases.push(vec![at, x, "-t", "text", "-v", "T&<"]);
            cases.push(vec![at, x, "-t", "attr", "-n", "k", "-v", "a\"b"]);
            cases.push(vec![at, x, "-t", "attr", "-n", "p:k", "-v", "1"]);
        }
    }
    for at in ["-i", "-a"] {
        cases.push(vec![at, "//comment()", "-t", "elem", "-n", "c"]);
        cases.push(vec![at, "//processing-instruction()", "-t", "text", "-v", "t"]);
    }
    for c in cases {
        let mut args = ns.to_vec();
        args.extend(c);
        agrees_with_lxml(DOC, &args);
    }
}

#[test]
fn rename_by_hand() {
    let d = r#"<r xmlns:p="urn:p"><a k='1'>t</a><b/><a/></r>"#;
    assert_eq!(ok(d, &["-r", "//a", "-v", "z"]), r#"<r xmlns:p="urn:p"><z k='1'>t</z><b/><z/></r>"#);
    assert_eq!(ok(d, &["-r", "//@k", "-v", "p:q"]), r#"<r xmlns:p="urn:p"><a p:q='1'>t</a><b/><a/></r>"#);
    assert_eq!(ok(d, &["-r", "/r", "-v", "p:root"]), r#"<p:root xmlns:p="urn:p"><a k='1'>t</a><b/><a/></p:root>"#);
    // an empty-element tag that gets content keeps its new name in the end tag
    assert_eq!(
        ok(d, &["-r", "//b", "-v", "c", "-s", "//c", "-t", "text", "-v", "x"]),
        r#"<r xmlns:p="urn:p"><a k='1'>t</a><c>x</c><a/></r>"#
    );
}

#[test]
fn rename_agrees_with_lxml() {
    for (x, v) in [("//item", "line"), ("//@n", "num"), ("//@p:k", "kk"), ("//d:to", "dest"), ("/po", "order"), ("//sub", "p:sub")] {
        agrees_with_lxml(DOC, &["-N", "d=urn:d", "-N", "p=urn:p", "-r", x, "-v", v]);
    }
}

#[test]
fn move_by_hand() {
    let d = r#"<r><a k="1">x</a><b/><c>y</c></r>"#;
    assert_eq!(ok(d, &["-m", "//a", "//c"]), r#"<r><b/><c>y<a k="1">x</a></c></r>"#);
    // into an empty-element tag
    assert_eq!(ok(d, &["-m", "//c", "//b"]), r#"<r><a k="1">x</a><b><c>y</c></b></r>"#);
    // attributes move to the target's start tag, text to its end
    assert_eq!(ok(d, &["-m", "//@k", "//b"]), r#"<r><a>x</a><b k="1"/><c>y</c></r>"#);
    assert_eq!(ok(d, &["-m", "//a/text()", "//c"]), r#"<r><a k="1"></a><b/><c>yx</c></r>"#);
    // several nodes, in document order
    assert_eq!(ok(d, &["-m", "//c | //a", "//b"]), r#"<r><b><a k="1">x</a><c>y</c></b></r>"#);
    // only the first element TARGET selects receives
    assert_eq!(ok(d, &["-m", "//c", "/r/*[position() > 1]"]), r#"<r><a k="1">x</a><b><c>y</c></b></r>"#);
}

#[test]
fn move_edge_cases() {
    // an attribute onto its own element stays where it is
    assert_eq!(ok(r#"<r><a k="1"/></r>"#, &["-m", "//@k", "//a"]), r#"<r><a k="1"/></r>"#);
    // a selected node inside another selected node travels with it, once
    assert_eq!(ok("<r><b><b/></b><c/></r>", &["-m", "//b", "//c"]), "<r><c><b><b/></b></c></r>");
    assert_eq!(ok(r#"<r><b k="1"/><c/></r>"#, &["-m", "//b | //b/@k", "//c"]), r#"<r><c><b k="1"/></c></r>"#);
    // into itself or its own descendant: refused
    let e = fails("<r><a><b/></a></r>", &["-m", "//a", "//b"], 1);
    assert!(e.contains("into itself"), "{e}");
    fails("<r><a><b/></a></r>", &["-m", "//a", "//a"], 1);
    // no element as target
    let e = fails("<r><a/></r>", &["-m", "//a", "//missing"], 1);
    assert!(e.contains("selects no element"), "{e}");
    // the moved element's prefix is not declared at the target: refused, not written
    let e = fails(r#"<r><a xmlns:p="urn:p"><p:x/></a><b/></r>"#, &["-N", "p=urn:p", "-m", "//p:x", "/r/b"], 1);
    assert!(e.contains("not well-formed") && e.contains("`p`"), "{e}");
}

#[test]
fn move_agrees_with_lxml() {
    for (x, t) in [
        ("//item[1]", "//empty"),
        ("//sub", "/po"),
        ("//comment()", "//d:to"),
        ("//item[1]/@n", "//empty"),
        ("//item[2]/text()", "//sub"),
        ("//p:extra", "//item[1]"),
    ] {
        agrees_with_lxml(DOC, &["-N", "d=urn:d", "-N", "p=urn:p", "-m", x, t]);
    }
}

#[test]
fn namespace_prefixes_with_n() {
    // the prefixes of -N are the expression's, whatever the document writes
    let d = r#"<q:r xmlns:q="urn:q"><q:a/><a/><s xmlns="urn:q"/></q:r>"#;
    assert_eq!(ok(d, &["-N", "x=urn:q", "-d", "//x:a"]), r#"<q:r xmlns:q="urn:q"><a/><s xmlns="urn:q"/></q:r>"#);
    assert_eq!(ok(d, &["-N", "x=urn:q", "-d", "/x:r/x:s"]), r#"<q:r xmlns:q="urn:q"><q:a/><a/></q:r>"#);
    // -N may come after the operation that uses it
    assert_eq!(ok(d, &["-d", "//x:a", "-N", "x=urn:q"]), r#"<q:r xmlns:q="urn:q"><a/><s xmlns="urn:q"/></q:r>"#);
    // unprefixed names in XPath are in no namespace
    assert_eq!(ok(d, &["-d", "//a"]), r#"<q:r xmlns:q="urn:q"><q:a/><s xmlns="urn:q"/></q:r>"#);
    assert_eq!(ok(d, &["-d", "//s"]), d);
    // the document's own prefix is not known to XPath without -N: an XPath error
    let e = fails(d, &["-d", "//q:a"], 2);
    assert!(e.contains('q'), "{e}");
    // -N must be PREFIX=URI
    fails(d, &["-N", "x", "-d", "//x:a"], 2);
    // a namespace node cannot be edited (its element must not be renamed instead)
    let e = fails(d, &["-N", "x=urn:q", "-r", "/x:r/namespace::q", "-v", "z"], 1);
    assert!(e.contains("namespace"), "{e}");
    let e = fails(d, &["-d", "/*/namespace::q"], 1);
    assert!(e.contains("namespace"), "{e}");
}

#[test]
fn operations_apply_in_order_each_on_the_previous_result() {
    let d = "<r><old>1</old></r>";
    // each operation selects nodes the previous ones made
    let args = [
        "-s",
        "/r",
        "-t",
        "elem",
        "-n",
        "new",
        "-u",
        "//new",
        "-v",
        "2",
        "-s",
        "//new",
        "-t",
        "attr",
        "-n",
        "k",
        "-v",
        "3",
        "-r",
        "//new[@k='3']",
        "-v",
        "renamed",
        "-d",
        "//old",
        "-i",
        "//renamed",
        "-t",
        "elem",
        "-n",
        "first",
        "-m",
        "//first",
        "//renamed",
    ];
    assert_eq!(ok(d, &args), r#"<r><renamed k="3">2<first/></renamed></r>"#);
    agrees_with_lxml(d, &args);
    // an operation that selects what an earlier one deleted finds nothing
    assert_eq!(ok(d, &["-d", "//old", "-u", "//old", "-v", "x"]), "<r></r>");
    // the same operation twice applies twice
    assert_eq!(ok(d, &["-s", "/r", "-t", "elem", "-n", "n", "-s", "/r", "-t", "elem", "-n", "n"]), "<r><old>1</old><n/><n/></r>");
    // on the shared document, a longer mix
    agrees_with_lxml(
        DOC,
        &[
            "-N",
            "p=urn:p",
            "-N",
            "d=urn:d",
            "-d",
            "//item[1]",
            "-r",
            "//item",
            "-v",
            "line",
            "-u",
            "//line/@n",
            "-v",
            "one",
            "-a",
            "//line",
            "-t",
            "elem",
            "-n",
            "after",
            "-v",
            "x",
            "-m",
            "//after",
            "//empty",
            "-s",
            "//empty/after",
            "-t",
            "text",
            "-v",
            "more",
            "-d",
            "//line/text()",
        ],
    );
}

// ---- output modes -----------------------------------------------------------------

const FILE_DOC: &[u8] = b"<?xml version=\"1.0\"?>\n<r>\n  <a k='1'>x</a>\n  <b/>\n</r>\n";

#[test]
fn in_place_rewrites_the_file() {
    let d = TempDir::new("inplace");
    d.file("f.xml", FILE_DOC).file("other.txt", b"keep");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.path().join("f.xml"), std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let o = vtdx(d.path(), &["-d", "//a", "-s", "//b", "-t", "text", "-v", "t", "-L", "f.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "nothing on standard output with -L");
    assert_eq!(d.read("f.xml"), b"<?xml version=\"1.0\"?>\n<r>\n  <b>t</b>\n</r>\n");
    assert_eq!(d.listing(), ["f.xml", "other.txt"], "no temporary file left");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.path().join("f.xml")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640, "permissions kept");
    }
    // -L may come anywhere; a path in another directory
    let o = vtdx(&std::env::temp_dir(), &["-L", "-u", "//b", "-v", "u", d.path().join("f.xml").to_str().unwrap()], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(d.read("f.xml"), b"<?xml version=\"1.0\"?>\n<r>\n  <b>u</b>\n</r>\n");
    assert_eq!(d.listing(), ["f.xml", "other.txt"]);
}

#[test]
fn in_place_failure_leaves_the_file_untouched() {
    let d = TempDir::new("inplace-fail");
    d.file("f.xml", FILE_DOC).file("bad.xml", b"<r><a></r>");
    let cases: [(&[&str], i32); 7] = [
        (&["-d", "//a[", "-L", "f.xml"], 2),                               // XPath syntax
        (&["-d", "//a", "-d", "//(", "-L", "f.xml"], 2),                   // the second is bad: nothing done
        (&["-d", "//a", "-d", "/r", "-L", "f.xml"], 1),                    // the second fails
        (&["-s", "//b", "-t", "elem", "-n", "q:x", "-L", "f.xml"], 1),     // undeclared prefix
        (&["-s", "//b", "-t", "elem", "-n", "x y='1'", "-L", "f.xml"], 1), // not a name
        (&["-m", "//a", "//a", "-L", "f.xml"], 1),                         // into itself
        (&["-u", "//b", "-L", "f.xml"], 2),                                // usage
    ];
    for (args, want) in cases {
        let o = vtdx(d.path(), args, None);
        assert_eq!(code(&o), want, "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "");
        assert_eq!(d.read("f.xml"), FILE_DOC, "{args:?} changed the file");
        assert_eq!(d.listing(), ["bad.xml", "f.xml"], "{args:?} left a file behind");
    }
    // a malformed document: reported like `vtdx check`, not rewritten
    let o = vtdx(d.path(), &["-d", "//a", "-L", "bad.xml"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("bad.xml:1:"), "{}", stderr(&o));
    assert_eq!(d.read("bad.xml"), b"<r><a></r>");
    assert_eq!(d.listing(), ["bad.xml", "f.xml"]);
}

#[test]
fn output_file() {
    let d = TempDir::new("out");
    d.file("f.xml", FILE_DOC);
    let o = vtdx(d.path(), &["-d", "//b", "-o", "out.xml", "f.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(d.read("out.xml"), b"<?xml version=\"1.0\"?>\n<r>\n  <a k='1'>x</a>\n</r>\n");
    assert_eq!(d.read("f.xml"), FILE_DOC, "the input is not changed");
    assert_eq!(d.listing(), ["f.xml", "out.xml"]);
    // an existing OUT is replaced; from standard input
    let o = vtdx(d.path(), &["-o", "out.xml", "-u", "//a/@k", "-v", "2", "-"], Some(FILE_DOC));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(d.read("out.xml"), b"<?xml version=\"1.0\"?>\n<r>\n  <a k='2'>x</a>\n  <b/>\n</r>\n");
    // on failure OUT is not written
    let o = vtdx(d.path(), &["-d", "/r", "-o", "new.xml", "f.xml"], None);
    assert_eq!(code(&o), 1);
    assert_eq!(d.listing(), ["f.xml", "out.xml"]);
    // -o and -L together: usage
    let o = vtdx(d.path(), &["-d", "//b", "-o", "x.xml", "-L", "f.xml"], None);
    assert_eq!(code(&o), 2);
    assert_eq!(d.listing(), ["f.xml", "out.xml"]);
}

#[test]
fn reads_standard_input() {
    let d = TempDir::new("stdin");
    let o = vtdx(d.path(), &["-d", "//a", "-"], Some(b"<r><a/><b/></r>"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "<r><b/></r>");
    // no operation: the document is copied (and checked)
    let o = vtdx(d.path(), &["-"], Some(FILE_DOC));
    assert_eq!(code(&o), 0);
    assert_eq!(o.stdout, FILE_DOC);
    let o = vtdx(d.path(), &["-"], Some(b"<r>"));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("-:1:4: "), "{}", stderr(&o));
    // -L cannot write back to standard input
    let o = vtdx(d.path(), &["-d", "//a", "-L", "-"], Some(b"<r><a/></r>"));
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o), "");
}

#[test]
fn untouched_bytes_are_copied_exactly() {
    let d = "<?xml version='1.0' encoding='UTF-8'?>\r\n<!DOCTYPE r [<!ENTITY e 'ent'>]>\r\n<r  a = 'x' >&e;&#x41;<a/><!--é--><b\tc=\"&lt;\" /></r>\r\n";
    assert_eq!(
        ok(d, &["-d", "//a"]),
        "<?xml version='1.0' encoding='UTF-8'?>\r\n<!DOCTYPE r [<!ENTITY e 'ent'>]>\r\n<r  a = 'x' >&e;&#x41;<!--é--><b\tc=\"&lt;\" /></r>\r\n"
    );
}

// ---- errors -----------------------------------------------------------------------

#[test]
fn malformed_document_exits_1_like_check() {
    let d = TempDir::new("malformed");
    // U+0001 on line 2, after two spaces and a two-byte character: column 4, byte 8
    d.file("bad.xml", "<a>\n  é\u{1}</a>\n".as_bytes());
    for args in [&["-d", "//x", "bad.xml"][..], &["bad.xml"][..], &["-L", "-d", "//x", "bad.xml"][..]] {
        let o = vtdx(d.path(), args, None);
        assert_eq!(code(&o), 1, "{args:?}");
        assert_eq!(stdout(&o), "");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.starts_with("bad.xml:2:4: ") && e.contains("U+0001") && e.trim_end().ends_with("(byte 8)"), "{e}");
    }
    let e = fails("<a><b></a>", &["-d", "//b"], 1);
    assert!(e.starts_with("-:1:"), "{e}");
    // an unreadable file is an I/O problem: 2
    let o = vtdx(d.path(), &["-d", "//x", "missing.xml"], None);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("missing.xml"), "{}", stderr(&o));
}

#[test]
fn xpath_error_exits_2() {
    let doc = "<r><a/></r>";
    // syntax: the column and a caret, as for `vtdx query`
    let e = fails(doc, &["-d", "//item[@n"], 2);
    assert!(e.contains("at column 10") && e.contains("  //item[@n\n           ^"), "{e}");
    for args in [
        &["-u", "//a[", "-v", "x"][..],
        &["-s", "///", "-t", "elem", "-n", "x"][..],
        &["-r", "//a)", "-v", "b"][..],
        &["-m", "//a", "//["][..],
        &["-d", "nope(1)"][..],
        &["-d", "//u:a"][..],
    ] {
        fails(doc, args, 2);
    }
    // an expression that is not a node-set
    fails(doc, &["-d", "count(//a)"], 2);
}

#[test]
fn bad_fragments_and_undeclared_prefixes_are_rejected() {
    let d = r#"<r xmlns:p="urn:p"><a/></r>"#;
    for name in ["a<b", "1x", "x y='1'", "x/", "", "a:b:c"] {
        let e = fails(d, &["-s", "//a", "-t", "elem", "-n", name], 1);
        assert!(e.contains("not") && e.contains("operation 1"), "name {name:?}: {e}");
    }
    for name in ["k k2", "1x", "k=\"1\" j"] {
        fails(d, &["-s", "//a", "-t", "attr", "-n", name, "-v", "1"], 1);
    }
    let e = fails(d, &["-s", "//a", "-t", "elem", "-n", "q:x"], 1);
    assert!(e.contains("`q`") && e.contains("not declared"), "{e}");
    let e = fails(d, &["-i", "//a", "-t", "attr", "-n", "q:k", "-v", "1"], 1);
    assert!(e.contains("`q`") && e.contains("not declared"), "{e}");
    let e = fails(d, &["-r", "//a", "-v", "q:a"], 1);
    assert!(e.contains("`q`") && e.contains("not declared"), "{e}");
    fails(d, &["-r", "//a", "-v", "a b"], 1);
    // -N declares prefixes for XPath only, not for the document
    fails(d, &["-N", "q=urn:q", "-s", "//a", "-t", "elem", "-n", "q:x"], 1);
    // nothing but comments, PIs and whitespace beside the root element
    for at in ["-i", "-a"] {
        fails(d, &[at, "/r", "-t", "elem", "-n", "x"], 1);
        fails(d, &[at, "/r", "-t", "text", "-v", "t"], 1);
    }
    // an attribute needs an element
    let d = r#"<r k="1">t<!--c--></r>"#;
    for x in ["/r/text()", "//comment()", "/r/@k"] {
        fails(d, &["-s", x, "-t", "attr", "-n", "j", "-v", "1"], 1);
    }
}

#[test]
fn deleting_the_root_element_is_refused() {
    let doc = "<r><a/></r>";
    for x in ["/r", "/*", "//r", "//*"] {
        let e = fails(doc, &["-d", x], 1);
        assert!(e.contains("root element"), "{x}: {e}");
    }
    let e = fails(doc, &["-d", "/"], 1);
    assert!(e.contains("root node"), "{e}");
    // after an earlier operation as well
    let e = fails(doc, &["-d", "//a", "-d", "/r"], 1);
    assert!(e.contains("operation 2") && e.contains("root element"), "{e}");
    // moving the root element anywhere is refused too
    fails("<r><a/></r>", &["-m", "/r", "//a"], 1);
}

#[test]
fn usage_errors_exit_2() {
    let doc = "<r><a/></r>";
    for args in [
        &["-u", "//a", "x"][..],
        &["-u", "//a", "-v"][..],
        &["-r", "//a", "b"][..],
        &["-s", "//a", "-n", "x"][..],
        &["-s", "//a", "-t", "comment", "-n", "x"][..],
        &["-s", "//a", "-t", "elem"][..],
        &["-x", "//a"][..],
        &["-d"][..],
        &["-m", "//a"][..],
        &["-d", "//a", "-", "-"][..],
    ] {
        let o = vtdx(&std::env::temp_dir(), args, Some(doc.as_bytes()));
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "");
        assert!(stderr(&o).starts_with("vtdx edit: "), "{args:?}: {}", stderr(&o));
    }
    // no FILE at all
    let o = vtdx(&std::env::temp_dir(), &["-d", "//a"], None);
    assert_eq!(code(&o), 2);
}

#[test]
fn move_two_attributes_of_one_name_to_one_element() {
    // the second value wins, as if they were moved one after the other
    assert_eq!(ok(r#"<r><a n="1"/><a n="2"/><b/></r>"#, &["-m", "//a/@n", "//b"]), r#"<r><a/><a/><b n="2"/></r>"#);
}
