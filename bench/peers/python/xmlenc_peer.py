"""The Python peers of the xmlenc workload (bench/run --only xmlenc), run with bench/out/venv-dsig/bin/python
(the dsig workload's venv: lxml compiled against Debian's libxml2, python-xmlsec on Debian's libxmlsec1,
cryptography).

    xmlenc_peer.py xmlenc [--peers python-xmlsec,openssl] [policy options] FILE...
    xmlenc_peer.py xmlenc-cross FILE...

As in bench/src/bin/xmlenc_peers.rs (the reference for this workload): FILE is a corpus document (a SOAP
message); the driver has prepared key.pem, cert.pem, S.wss.xml and S.inline.xml in $VTDX_BENCH_XMLENC_DIR.
python-xmlsec does what a Python WS-Security stack does with it (py-wsse, which zeep users pair with zeep),
bytes in and bytes out:

- encrypt (form wss): parse; build an EncryptedData template (Type Content, AES-256-GCM) whose KeyInfo holds
  an EncryptedKey template (rsa-oaep-mgf1p), a fresh 256-bit session key, `EncryptionContext.encrypt_xml` of
  the Body (its content replaced); then move the EncryptedKey to the top of the wsse:Security header (made
  when missing) with a ReferenceList naming the EncryptedData, whose KeyInfo now holds a
  SecurityTokenReference to it; serialize.
- decrypt (form wss, vtdx's S.wss.xml): parse; for each EncryptedKey of the Security header, in order,
  decrypt it with the caller's private key (`EncryptionContext.decrypt` of the EncryptedKey gives the session
  key), then each EncryptedData its ReferenceList names with that key; serialize.

`openssl` is the crypto floor with the OpenSSL of the `cryptography` wheel: RSA-2048 OAEP (SHA-1, MGF1-SHA-1)
wrap and unwrap of a 32-byte key, AES-256-GCM seal and open of the Body's content bytes.

`xmlenc-cross` decrypts each FILE (another peer's output) once with python-xmlsec, in either form (an
EncryptedKey in the header with a ReferenceList, or inside the EncryptedData's KeyInfo), and writes the
result to cross/python-xmlsec/PRODUCER.NAME in the directory.
"""

import os
import re
import secrets
import sys
from pathlib import Path

from lxml import etree

from harness import emit, measure, parse_args, stats_fields

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
DS = "http://www.w3.org/2000/09/xmldsig#"
XENC = "http://www.w3.org/2001/04/xmlenc#"
WSS_EK = "http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#EncryptedKey"
PEERS = ["python-xmlsec", "openssl"]
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


def line(peer, f, case, form=None, **kw):
    d = {"peer": peer, "workload": "xmlenc", "file": f, "case": case}
    if form is not None:
        d["form"] = form
    d.update(kw)
    return d


def why(e):
    return f"{type(e).__name__}: {e}".strip()


def soap_parts(root):
    """(Header or None, Body) of a SOAP 1.1 or 1.2 Envelope, by position."""
    ns = etree.QName(root).namespace
    if ns not in (SOAP11, SOAP12) or etree.QName(root).localname != "Envelope":
        raise ValueError("not a SOAP Envelope")
    header = body = None
    for c in root:
        if c.tag == f"{{{ns}}}Header":
            header = c
        elif c.tag == f"{{{ns}}}Body":
            body = c
    if body is None:
        raise ValueError("no Body")
    return header, body


def security_header(root, body):
    ns = etree.QName(root).namespace
    header, _ = soap_parts(root)
    if header is None:
        header = etree.Element(f"{{{ns}}}Header")
        body.addprevious(header)
    sec = header.find(f"{{{WSSE}}}Security")
    if sec is None:
        sec = etree.Element(f"{{{WSSE}}}Security", nsmap={"wsse": WSSE})
        sec.set(f"{{{ns}}}mustUnderstand", "1")
        header.insert(0, sec)
    return sec


def kid(el, tag):
    """The first child of `el` named `tag`, compared by name: the nodes libxmlsec1 makes do not use lxml's name
    dictionary, so `el.find(tag)` misses them."""
    for c in el:
        if c.tag == tag:
            return c
    raise ValueError(f"no {tag} in {el.tag}")


def by_id(root, ident):
    for e in root.iter(f"{{{XENC}}}EncryptedData"):
        if e.get("Id") == ident:
            return e
    raise ValueError(f"no xenc:EncryptedData with Id {ident}")


def body_content(x):
    """The bytes of the SOAP Body's content in the document text `x` (the floor's plaintext)."""
    m = re.search(rb"<([\w.-]+:)?Body[\s>/]", x)
    if m is None:
        raise ValueError("no Body start tag")
    qn = x[m.start() + 1:m.end() - 1]
    start = x.index(b">", m.start()) + 1
    end = x.rindex(b"</" + qn)
    return x[start:end]


# ---------------------------------------------------------------- python-xmlsec

def xmlsec_peer(key_pem, cert_pem):
    import xmlsec

    c = xmlsec.constants
    pub = xmlsec.Key.from_memory(cert_pem, c.KeyDataFormatCertPem)
    enc_manager = xmlsec.KeysManager()
    enc_manager.add_key(pub)
    priv = xmlsec.Key.from_memory(key_pem, c.KeyDataFormatPem)
    dec_manager = xmlsec.KeysManager()
    dec_manager.add_key(priv)

    def encrypt(x):
        root = etree.fromstring(x, PARSER)
        _, body = soap_parts(root)
        sec = security_header(root, body)
        ed_id, ek_id = "ED-" + secrets.token_hex(16), "EK-" + secrets.token_hex(16)
        ed = xmlsec.template.encrypted_data_create(root, c.TransformAes256Gcm, id=ed_id, type=c.TypeEncContent, ns="xenc")
        xmlsec.template.encrypted_data_ensure_cipher_value(ed)
        ki = xmlsec.template.encrypted_data_ensure_key_info(ed, ns="ds")
        ek = xmlsec.template.add_encrypted_key(ki, c.TransformRsaOaep, id=ek_id)
        xmlsec.template.encrypted_data_ensure_cipher_value(ek)
        ctx = xmlsec.EncryptionContext(enc_manager)
        ctx.key = xmlsec.Key.generate(c.KeyDataAes, 256, c.KeyDataTypeSession)
        ed = ctx.encrypt_xml(ed, body)
        # the WS-Security form: the EncryptedKey at the top of the Security header, with a ReferenceList
        ki = kid(ed, f"{{{DS}}}KeyInfo")
        ek = kid(ki, f"{{{XENC}}}EncryptedKey")
        ki.remove(ek)
        ref = etree.SubElement(etree.SubElement(ki, f"{{{WSSE}}}SecurityTokenReference", nsmap={"wsse": WSSE}), f"{{{WSSE}}}Reference")
        ref.set("URI", "#" + ek_id)
        ref.set("ValueType", WSS_EK)
        etree.SubElement(etree.SubElement(ek, f"{{{XENC}}}ReferenceList"), f"{{{XENC}}}DataReference", URI="#" + ed_id)
        sec.insert(0, ek)
        return etree.tostring(root, encoding="UTF-8", xml_declaration=True)

    def decrypt(x):
        root = etree.fromstring(x, PARSER)
        header, body = soap_parts(root)
        sec = header.find(f"{{{WSSE}}}Security") if header is not None else None
        eks = [] if sec is None else [e for e in sec.findall(f"{{{XENC}}}EncryptedKey") if e.find(f"{{{XENC}}}ReferenceList") is not None]
        n = 0
        for ek in eks:  # header order
            ctx = xmlsec.EncryptionContext()
            ctx.key = priv
            session = ctx.decrypt(ek)
            key = xmlsec.Key.from_binary_data(c.KeyDataAes, session)
            for dr in ek.iterfind(f"{{{XENC}}}ReferenceList/{{{XENC}}}DataReference"):
                ed = by_id(root, dr.get("URI")[1:])
                dctx = xmlsec.EncryptionContext()
                dctx.key = key
                dctx.decrypt(ed)
                n += 1
        # the inline form (xmlsec1's): the EncryptedKey inside the EncryptedData's KeyInfo
        for ed in list(root.iter(f"{{{XENC}}}EncryptedData")):
            xmlsec.EncryptionContext(dec_manager).decrypt(ed)
            n += 1
        if n == 0:
            raise ValueError("nothing encrypted")
        return etree.tostring(root, encoding="UTF-8", xml_declaration=True)

    return encrypt, decrypt


# ---------------------------------------------------------------- the crypto floor

def floor_cells(a, f, key_pem, plain):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key = serialization.load_pem_private_key(key_pem, password=None)
    pub = key.public_key()
    oaep = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()), algorithm=hashes.SHA1(), label=None)
    session = os.urandom(32)
    wrapped = pub.encrypt(session, oaep)
    assert key.decrypt(wrapped, oaep) == session
    s = measure(a, lambda: pub.encrypt(session, oaep))
    emit(line("openssl", f, "rsa-oaep-wrap", bits=key.key_size, **stats_fields(s, 32)))
    s = measure(a, lambda: key.decrypt(wrapped, oaep))
    emit(line("openssl", f, "rsa-oaep-unwrap", bits=key.key_size, **stats_fields(s, 32)))
    body = body_content(plain)
    gcm, iv = AESGCM(session), os.urandom(12)
    ct = gcm.encrypt(iv, body, None)
    assert gcm.decrypt(iv, ct, None) == body
    s = measure(a, lambda: gcm.encrypt(iv, body, None))
    emit(line("openssl", f, "aes-gcm-seal", **stats_fields(s, len(body))))
    s = measure(a, lambda: gcm.decrypt(iv, ct, None))
    emit(line("openssl", f, "aes-gcm-open", **stats_fields(s, len(body))))


def cross(a, d, key_pem, cert_pem):
    _, decrypt = xmlsec_peer(key_pem, cert_pem)
    for f in a["files"]:
        p = Path(f)
        out = d / "cross" / "python-xmlsec" / f"{p.parent.name}.{p.name}"
        try:
            r = decrypt(p.read_bytes())
        except Exception as e:
            emit({"peer": "python-xmlsec", "workload": "xmlenc-cross", "file": f, "status": "error", "reason": why(e)})
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(r)
        emit({"peer": "python-xmlsec", "workload": "xmlenc-cross", "file": f, "status": "ok", "out_file": str(out)})


def main():
    a = parse_args(sys.argv[1:])
    if a["workload"] == "versions":
        from importlib.metadata import version
        import xmlsec
        emit({"peer": "python-xmlsec", "workload": "versions", "file": "", "version": version("xmlsec"),
              "libxmlsec1": ".".join(map(str, xmlsec.get_libxmlsec_version())), "lxml": version("lxml"),
              "libxml2": ".".join(map(str, etree.LIBXML_VERSION))})
        from cryptography.hazmat.backends.openssl import backend
        emit({"peer": "openssl", "workload": "versions", "file": "", "version": backend.openssl_version_text(),
              "cryptography": version("cryptography")})
        return
    d = Path(os.environ["VTDX_BENCH_XMLENC_DIR"])
    key_pem, cert_pem = (d / "key.pem").read_bytes(), (d / "cert.pem").read_bytes()
    if a["workload"] == "xmlenc-cross":
        return cross(a, d, key_pem, cert_pem)
    if a["workload"] != "xmlenc":
        sys.exit(f"xmlenc peer: unknown workload {a['workload']}")
    peers = [p for p in PEERS if a["peers"] is None or p in a["peers"]]
    for f in a["files"]:
        stem = Path(f).stem
        plain = Path(f).read_bytes()
        wss = (d / f"{stem}.wss.xml").read_bytes()
        for p in peers:
            if p == "openssl":
                floor_cells(a, f, key_pem, plain)
                continue
            try:
                encrypt, decrypt = xmlsec_peer(key_pem, cert_pem)
            except Exception as e:  # the package is missing or broken: blank cells with the reason
                for c in ("encrypt", "decrypt"):
                    emit(line(p, f, c, "wss", status="skip", reason=f"not run: {why(e)}"))
                continue
            od = d / "out" / p
            od.mkdir(parents=True, exist_ok=True)
            cases = os.environ.get("VTDX_BENCH_XMLENC_CASES", "encrypt,decrypt").split(",")
            for case, fn, x in (("encrypt", encrypt, plain), ("decrypt", decrypt, wss)):
                if case not in cases:
                    continue
                try:
                    out = fn(x)
                except Exception as e:
                    emit(line(p, f, case, "wss", status="error" if case == "encrypt" else "rejected", reason=why(e)))
                    continue
                path = od / f"{stem}.{case}-wss.xml"
                path.write_bytes(out)
                s = measure(a, lambda: fn(x))
                emit(line(p, f, case, "wss", out_bytes=len(out), out_file=str(path), msgs_per_s=1e9 / s["median_ns"],
                          **stats_fields(s, len(x))))


if __name__ == "__main__":
    main()
