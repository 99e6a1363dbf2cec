"""The Python peers of the dsig workload (bench/run --only dsig), run with bench/out/venv-dsig/bin/python
(lxml compiled against Debian's libxml2, python-xmlsec on Debian's libxmlsec1, signxml, cryptography).

    dsig_peer.py dsig [--peers python-xmlsec,signxml,openssl] [policy options] FILE...

As in bench/src/bin/dsig_peers.rs (the reference for this workload): FILE is a corpus document; the
driver has prepared S.unsigned.xml, S.signed.xml, key.pem and cert.pem in $VTDX_BENCH_DSIG_DIR. Each
peer does the whole job a WS-Security stack does with it, bytes in and bytes out:

- sign: parse the unsigned message; in its wsse:Security header (made when missing) add a
  wsu:Timestamp (Created now, Expires 5 minutes later), a BinarySecurityToken with the certificate and
  a ds:Signature (RSA-SHA256, Exclusive C14N, SHA-256) over the Body (its wsu:Id, or a new one) and the
  Timestamp, whose KeyInfo is a SecurityTokenReference to the token; serialize.
- verify: parse the signed message; find the Body and the Timestamp by position and register their
  wsu:Id as IDs; verify the Signature with the caller's certificate; check that its References name
  the Body and the Timestamp.

python-xmlsec builds the Signature from xmlsec.template (as zeep's WS-Security plugin does);
signxml's XMLSigner makes a detached Signature, which is then put in the Security header. `openssl`
is the crypto floor with the OpenSSL of the `cryptography` wheel: RSA-2048 PKCS#1 v1.5 SHA-256 sign
and verify of the SignedInfo bytes, and SHA-256 (hashlib) of the bytes the References cover.
"""

import datetime
import hashlib
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
WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
DS = "http://www.w3.org/2000/09/xmldsig#"
B64BIN = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
X509V3 = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"
EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#"
PEERS = ["python-xmlsec", "signxml", "openssl"]
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
WSU_ID = f"{{{WSU}}}Id"
CERT_B64 = ""  # the certificate's DER in base64, the BinarySecurityToken's text (set by main)


def line(peer, f, case, **kw):
    d = {"peer": peer, "workload": "dsig", "file": f, "case": case}
    d.update(kw)
    return d


def why(e):
    return f"{type(e).__name__}: {e}".strip()


def now_pair():
    t = datetime.datetime.now(datetime.timezone.utc)
    fmt = lambda x: x.strftime("%Y-%m-%dT%H:%M:%S.") + f"{x.microsecond // 1000:03d}Z"
    return fmt(t), fmt(t + datetime.timedelta(minutes=5))


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


def wss_header(root):
    """Builds the WS-Security header of a message (everything but the Signature): returns
    (Security element, Body, body id, Timestamp, timestamp id, BinarySecurityToken id)."""
    ns = etree.QName(root).namespace
    header, body = soap_parts(root)
    if header is None:
        header = etree.Element(f"{{{ns}}}Header")
        body.addprevious(header)
    sec = header.find(f"{{{WSSE}}}Security")
    if sec is None:
        sec = etree.Element(f"{{{WSSE}}}Security", nsmap={"wsse": WSSE})
        sec.set(f"{{{ns}}}mustUnderstand", "1")
        header.insert(0, sec)
    body_id = body.get(WSU_ID)
    if body_id is None:
        body_id = "id-" + secrets.token_hex(16)
        body.set(WSU_ID, body_id)
    ts_id, bst_id = "TS-" + secrets.token_hex(16), "X509-" + secrets.token_hex(16)
    created, expires = now_pair()
    ts = etree.SubElement(sec, f"{{{WSU}}}Timestamp", {WSU_ID: ts_id}, nsmap={"wsu": WSU})
    etree.SubElement(ts, f"{{{WSU}}}Created").text = created
    etree.SubElement(ts, f"{{{WSU}}}Expires").text = expires
    bst = etree.SubElement(sec, f"{{{WSSE}}}BinarySecurityToken", {"EncodingType": B64BIN, "ValueType": X509V3, WSU_ID: bst_id},
                           nsmap={"wsse": WSSE, "wsu": WSU})
    bst.text = CERT_B64
    return sec, body, body_id, ts, ts_id, bst_id


def str_key_info(parent_tag, bst_id):
    """A KeyInfo (or the given element) holding a SecurityTokenReference to the token."""
    ki = etree.Element(parent_tag, nsmap={"ds": DS}) if isinstance(parent_tag, str) else parent_tag
    ref = etree.SubElement(ki, f"{{{WSSE}}}SecurityTokenReference", nsmap={"wsse": WSSE})
    etree.SubElement(ref, f"{{{WSSE}}}Reference", {"URI": "#" + bst_id, "ValueType": X509V3})
    return ki


def located(root):
    """(Body, Timestamp or None, Signature or None) of a signed message, by position."""
    header, body = soap_parts(root)
    ts = sig = None
    if header is not None:
        sec = header.find(f"{{{WSSE}}}Security")
        if sec is not None:
            ts = sec.find(f"{{{WSU}}}Timestamp")
            sig = sec.find(f"{{{DS}}}Signature")
    return body, ts, sig


def check_refs(uris, body, ts):
    want = {"#" + body.get(WSU_ID, ""), "#" + (ts.get(WSU_ID, "") if ts is not None else "")}
    if set(uris) != want:
        raise ValueError(f"the References name {sorted(uris)}, not the Body and the Timestamp {sorted(want)}")
    return len(uris)


# ---------------------------------------------------------------- python-xmlsec

def xmlsec_peer(key_pem, cert_pem):
    import xmlsec

    sign_key = xmlsec.Key.from_memory(key_pem, xmlsec.constants.KeyDataFormatPem)
    cert_key = xmlsec.Key.from_memory(cert_pem, xmlsec.constants.KeyDataFormatCertPem)

    def sign(x):
        root = etree.fromstring(x, PARSER)
        sec, body, body_id, ts, ts_id, bst_id = wss_header(root)
        sig = xmlsec.template.create(root, xmlsec.constants.TransformExclC14N, xmlsec.constants.TransformRsaSha256, ns="ds")
        sec.append(sig)
        for i in (body_id, ts_id):
            ref = xmlsec.template.add_reference(sig, xmlsec.constants.TransformSha256, uri="#" + i)
            xmlsec.template.add_transform(ref, xmlsec.constants.TransformExclC14N)
        str_key_info(xmlsec.template.ensure_key_info(sig), bst_id)
        ctx = xmlsec.SignatureContext()
        ctx.key = sign_key
        ctx.register_id(body, "Id", WSU)
        ctx.register_id(ts, "Id", WSU)
        ctx.sign(sig)
        return etree.tostring(root, encoding="UTF-8", xml_declaration=True)

    def verify(x):
        root = etree.fromstring(x, PARSER)
        body, ts, sig = located(root)
        if sig is None or ts is None:
            raise ValueError("no Signature or Timestamp in the Security header")
        ctx = xmlsec.SignatureContext()
        ctx.key = cert_key
        ctx.register_id(body, "Id", WSU)
        ctx.register_id(ts, "Id", WSU)
        ctx.verify(sig)  # raises xmlsec.VerificationError
        return check_refs([r.get("URI") for r in sig.iterfind(f"{{{DS}}}SignedInfo/{{{DS}}}Reference")], body, ts)

    return sign, verify


# ---------------------------------------------------------------- signxml

def signxml_peer(key_pem, cert_pem):
    from signxml import SignatureConfiguration, XMLSigner, XMLVerifier
    from signxml.algorithms import SignatureConstructionMethod

    signer = XMLSigner(method=SignatureConstructionMethod.detached, signature_algorithm="rsa-sha256",
                       digest_algorithm="sha256", c14n_algorithm=EXC_C14N)
    signer.namespaces = {"ds": DS}
    config = SignatureConfiguration(expect_references=2)
    # the key and certificate loaded once, as objects (signxml would otherwise load, and check, the PEM key every time)
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    key = serialization.load_pem_private_key(key_pem, password=None)
    cert = x509.load_pem_x509_certificate(cert_pem)

    def sign(x):
        root = etree.fromstring(x, PARSER)
        sec, body, body_id, ts, ts_id, bst_id = wss_header(root)
        sig = signer.sign(root, key=key, reference_uri=[body_id, ts_id], key_info=str_key_info(f"{{{DS}}}KeyInfo", bst_id))
        sec.append(sig)
        return etree.tostring(root, encoding="UTF-8", xml_declaration=True)

    def verify(x):
        root = etree.fromstring(x, PARSER)
        body, ts, sig = located(root)
        if sig is None or ts is None:
            raise ValueError("no Signature or Timestamp in the Security header")
        results = XMLVerifier().verify(root, x509_cert=cert, expect_config=config)
        return check_refs([r.get("URI") for r in sig.iterfind(f"{{{DS}}}SignedInfo/{{{DS}}}Reference")], body, ts) if results else 0

    return sign, verify


# ---------------------------------------------------------------- the crypto floor

def floor_cells(a, f, key_pem, signed):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    key = serialization.load_pem_private_key(key_pem, password=None)
    pub = key.public_key()
    root = etree.fromstring(signed, PARSER)
    body, ts, sig = located(root)
    si = re.search(rb"<ds:SignedInfo[ >].*?</ds:SignedInfo>", signed, re.S)
    if si is None or sig is None:
        emit(line("openssl", f, "rsa-sign", status="error", reason="no ds:SignedInfo in the signed message"))
        return
    si = si.group(0)
    # the bytes the References cover: the Body and Timestamp elements as they are in the message
    covered = b""
    for el in (body, ts):
        covered += element_bytes(signed, el)
    pad, h = padding.PKCS1v15(), hashes.SHA256()
    value = key.sign(si, pad, h)
    pub.verify(value, si, pad, h)
    s = measure(a, lambda: key.sign(si, pad, h))
    emit(line("openssl", f, "rsa-sign", bits=key.key_size, **stats_fields(s, len(si))))
    s = measure(a, lambda: pub.verify(value, si, pad, h))
    emit(line("openssl", f, "rsa-verify", bits=key.key_size, **stats_fields(s, len(si))))
    s = measure(a, lambda: hashlib.sha256(covered).digest())
    emit(line("openssl", f, "sha256", **stats_fields(s, len(covered))))


def element_bytes(x, el):
    """The bytes of element `el` (with a wsu:Id) in the document text `x`, start tag to end tag."""
    m = re.search(rb'<([\w.-]+:)?' + etree.QName(el).localname.encode() + rb'\b[^>]*Id="' + el.get(WSU_ID).encode() + rb'"', x)
    if m is None:
        raise ValueError(f"element {el.tag} not found in the text")
    qn = x[m.start() + 1:m.end()].split()[0]
    end = x.index(b"</" + qn + b">", m.end())
    return x[m.start():end + len(qn) + 3]


def main():
    a = parse_args(sys.argv[1:])
    if a["workload"] == "versions":
        from importlib.metadata import version
        import xmlsec
        emit({"peer": "python-xmlsec", "workload": "versions", "file": "", "version": version("xmlsec"),
              "libxmlsec1": ".".join(map(str, xmlsec.get_libxmlsec_version())), "lxml": version("lxml"),
              "libxml2": ".".join(map(str, etree.LIBXML_VERSION))})
        emit({"peer": "signxml", "workload": "versions", "file": "", "version": version("signxml"), "lxml": version("lxml"),
              "cryptography": version("cryptography")})
        from cryptography.hazmat.backends.openssl import backend
        emit({"peer": "openssl", "workload": "versions", "file": "", "version": backend.openssl_version_text(),
              "cryptography": version("cryptography")})
        return
    if a["workload"] != "dsig":
        sys.exit(f"dsig peer: unknown workload {a['workload']}")
    d = Path(os.environ["VTDX_BENCH_DSIG_DIR"])
    key_pem, cert_pem = (d / "key.pem").read_bytes(), (d / "cert.pem").read_bytes()
    global CERT_B64
    CERT_B64 = "".join(cert_pem.decode().split("-----")[2].split())
    peers = [p for p in PEERS if a["peers"] is None or p in a["peers"]]
    for f in a["files"]:
        stem = Path(f).stem
        unsigned = (d / f"{stem}.unsigned.xml").read_bytes()
        signed = (d / f"{stem}.signed.xml").read_bytes()
        for p in peers:
            if p == "openssl":
                floor_cells(a, f, key_pem, signed)
                continue
            try:
                sign, verify = (xmlsec_peer if p == "python-xmlsec" else signxml_peer)(key_pem, cert_pem)
            except Exception as e:  # the package is missing or broken: blank cells with the reason
                for c in ("sign", "verify"):
                    emit(line(p, f, c, status="skip", reason=f"not run: {why(e)}"))
                continue
            try:
                out = sign(unsigned)
            except Exception as e:
                emit(line(p, f, "sign", status="error", reason=why(e)))
            else:
                od = d / "out" / p
                od.mkdir(parents=True, exist_ok=True)
                (od / f"{stem}.xml").write_bytes(out)
                s = measure(a, lambda: sign(unsigned))
                emit(line(p, f, "sign", out_bytes=len(out), out_file=str(od / f"{stem}.xml"),
                          msgs_per_s=1e9 / s["median_ns"], **stats_fields(s, len(unsigned))))
            try:
                n = verify(signed)
            except Exception as e:
                emit(line(p, f, "verify", status="rejected", reason=why(e)))
                continue
            s = measure(a, lambda: verify(signed))
            emit(line(p, f, "verify", references=n, verified=True, msgs_per_s=1e9 / s["median_ns"], **stats_fields(s, len(signed))))


if __name__ == "__main__":
    main()
