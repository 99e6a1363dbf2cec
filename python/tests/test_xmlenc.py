"""vtdx.xmlenc: XML Encryption through the Python API, against independent oracles.

* round trips compared by canonical form with lxml (libxml2's C14N), and the
  encrypted markup read back with lxml (never with vtdx);
* xmlsec1 both ways: vtdx encrypts and ``xmlsec1 --decrypt`` gives the original back;
  ``xmlsec1 --encrypt`` fills a template and vtdx decrypts. Without xmlsec1 these
  tests are reported as skipped, unless ``VTDX_REQUIRE_XMLSEC1=1`` (set by
  scripts/test.sh): then they fail;
* the XML Encryption vectors of the shared corpus (``dsig/xmlsec/MANIFEST-enc.tsv``)
  whose keys can be given directly: each decrypts to the listed plaintext, except
  the rows listed with their reason in ``conformance/expected-failures/xmlenc.txt``,
  which must fail with the uniform error;
* attacks: messages tampered with, and legacy-algorithm messages built with the
  ``cryptography`` package (an independent AES and RSA implementation), all refused
  with the one :class:`vtdx.xmlenc.DecryptionError`, message ``decryption failed``.

The keys are the xmlsec test keys of the shared corpus (``dsig/xmlsec/keys``).
"""

import base64
import csv
import os
import shutil
import subprocess

import pytest

import vtdx
import vtdx.dsig as ds
import vtdx.xmlenc as xe
from conftest import REPO, corpus_path

etree = pytest.importorskip("lxml.etree")

XENC = "http://www.w3.org/2001/04/xmlenc#"
DS = "http://www.w3.org/2000/09/xmldsig#"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
NS = {"xenc": XENC, "ds": DS, "wsse": WSSE}

KEK = bytes(range(32))


def key(name):
    return corpus_path("dsig", "xmlsec", "keys", *name.split("/")).read_bytes()


@pytest.fixture(scope="module")
def rsa():
    return key("rsa/rsa-2048-key.pem"), key("rsa/rsa-2048-cert.pem")


@pytest.fixture(scope="module")
def rsa_other():
    return key("rsa/rsa-4096-key.pem"), key("rsa/rsa-4096-cert.pem")


DOC = (
    b'<?xml version="1.0"?>\n'
    b'<order xmlns="urn:order" xmlns:p="urn:p" xml:lang="fr">\n'
    b'  <p:card p:type="visa">4111 caf\xc3\xa9 &amp; co<!-- c --></p:card>\n'
    b'  <item n="1">a</item>\n'
    b"</order>\n"
)

ENVELOPE = (
    b'<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="urn:m">'
    b'<soapenv:Header><m:Account>acct-42</m:Account></soapenv:Header>'
    b"<soapenv:Body><m:Pay><m:amount>10</m:amount><m:payee>Bob</m:payee></m:Pay></soapenv:Body></soapenv:Envelope>"
)


def c14n(data):
    """libxml2's C14N 1.0 with comments of a document."""
    return etree.tostring(etree.fromstring(data).getroottree(), method="c14n", with_comments=True)


def lx(data):
    return etree.fromstring(data)


def body_content(data, soap_ns=SOAP11):
    """The Body's children in exclusive C14N (the signer adds an Id to the Body itself)."""
    body = lx(data).find(f"{{{soap_ns}}}Body")
    return [etree.tostring(c, method="c14n", exclusive=True) for c in body]


def failure(fn, *args, **kwargs):
    """The DecryptionError ``fn`` raises; checks it is the uniform one."""
    with pytest.raises(xe.DecryptionError) as e:
        fn(*args, **kwargs)
    assert str(e.value) == "decryption failed"
    assert e.value.kind == "decryption_failed" and e.value.position is None and e.value.byte_offset is None
    return e.value


# ---- round trips ----------------------------------------------------------------------------

RECIPIENTS = ["cert", "cert-oaep11", "kek16", "kek24", "kek32", "direct"]
ALGS = ["aes128-gcm", "aes192-gcm", "aes256-gcm"]


def encryption_args(rsa, recipient, alg):
    """(encrypt kwargs, decrypt kwargs, KeyInfo child expected) for a recipient."""
    k, c = rsa
    if recipient == "cert":
        return {"cert": c}, {"key": k}, "rsa-oaep-mgf1p"
    if recipient == "cert-oaep11":
        return {"cert": c, "key_transport": "rsa-oaep"}, {"key": k}, "http://www.w3.org/2009/xmlenc11#rsa-oaep"
    if recipient.startswith("kek"):
        n = int(recipient[3:])
        return {"kek": KEK[:n]}, {"aes_key": KEK[:n]}, f"kw-aes{n * 8}"
    n = int(alg[3:6]) // 8
    return {"aes_key": KEK[:n], "key_name": "shared"}, {"aes_key": KEK[:n], "key_name": "shared"}, None


@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("recipient", RECIPIENTS)
@pytest.mark.parametrize("xpath, type_", [("//p:card", "element"), ("//p:card", "content"), (None, "content"), (None, "element")])
def test_round_trip(rsa, alg, recipient, xpath, type_):
    enc_kw, dec_kw, transport = encryption_args(rsa, recipient, alg)
    out = xe.encrypt(DOC, xpath=xpath, type=type_, algorithm=alg, **enc_kw)
    assert isinstance(out, bytes)
    assert b">4111 " not in out and b"caf\xc3\xa9" not in out
    # the markup as libxml2 reads it
    root = lx(out)
    [ed] = root.iter(f"{{{XENC}}}EncryptedData") if root.tag != f"{{{XENC}}}EncryptedData" else [root]
    assert ed.get("Type") == XENC + ("Content" if type_ == "content" else "Element")
    assert ed.find("xenc:EncryptionMethod", NS).get("Algorithm") == f"http://www.w3.org/2009/xmlenc11#{alg}"
    ek = ed.find("ds:KeyInfo/xenc:EncryptedKey", NS)
    if transport is None:
        assert ek is None and ed.find("ds:KeyInfo/ds:KeyName", NS).text == "shared"
    else:
        assert ek.find("xenc:EncryptionMethod", NS).get("Algorithm").endswith(transport)
    # AES-GCM: IV (12) + ciphertext + tag (16), base64
    cv = base64.b64decode(ed.find("xenc:CipherData/xenc:CipherValue", NS).text)
    assert len(cv) >= 12 + 16
    back = xe.decrypt(out, **dec_kw)
    assert c14n(back) == c14n(DOC)


def test_bytes_outside_the_part_are_unchanged(rsa):
    k, c = rsa
    out = xe.encrypt(DOC, c, xpath="//p:card")
    start = DOC.index(b"<p:card")
    end = DOC.index(b"</p:card>") + len(b"</p:card>")
    assert out.startswith(DOC[:start]) and out.endswith(DOC[end:])
    # decryption puts the element's own bytes back in place
    assert xe.decrypt(out, k) == DOC


def test_input_forms(rsa):
    k, c = rsa
    doc = vtdx.parse(DOC)
    card = doc.root.find("{urn:p}card")
    for data, kw in [
        (DOC.decode(), {"xpath": "//p:card"}),
        (doc, {"element": card}),
        (doc, {"element": [card, doc.root.find("{urn:order}item")]}),
        (card, {"xpath": ["//p:card"]}),
        (lx(DOC), {"xpath": "//*[local-name()='card']"}),
    ]:
        out = xe.encrypt(data, c, **kw)
        assert b">4111 " not in out
        assert c14n(xe.decrypt(out, k)) == c14n(DOC)
        assert c14n(xe.decrypt(vtdx.parse(out), k)) == c14n(DOC)
        assert c14n(xe.decrypt(lx(out), key=[k])) == c14n(DOC)


def test_several_parts_each_with_its_own_key(rsa):
    k, c = rsa
    out = xe.encrypt(DOC, c, xpath=["//p:card", "/*/*[2]"])
    eds = lx(out).findall(f".//{{{XENC}}}EncryptedData")
    assert len(eds) == 2
    keys = {ed.find("ds:KeyInfo/xenc:EncryptedKey/xenc:CipherData/xenc:CipherValue", NS).text for ed in eds}
    assert len(keys) == 2  # two session keys
    assert xe.decrypt(out, k) == DOC


def test_reusable_engines_and_enums(rsa):
    k, c = rsa
    enc = xe.XMLEncryptor(c, algorithm=xe.BlockAlgorithm.AES128_GCM, key_transport=xe.KeyTransport.RSA_OAEP)
    assert enc.algorithm is xe.BlockAlgorithm.AES128_GCM
    dec = xe.XMLDecryptor(k)
    assert not dec.allow_legacy
    for _ in range(3):
        out = enc.encrypt(DOC, xpath="//p:card", type=xe.EncryptionType.CONTENT)
        assert dec.decrypt(out) == DOC
    default = xe.XMLEncryptor(c)
    assert default.algorithm == "http://www.w3.org/2009/xmlenc11#aes256-gcm"
    assert isinstance(default._engine, xe.Encryptor) and isinstance(dec._engine, xe.Decryptor)


def test_private_key_forms(rsa, tmp_path):
    from cryptography.hazmat.primitives import serialization as ser
    k, c = rsa
    out = xe.encrypt(DOC, c, xpath="//p:card")
    pk = ser.load_pem_private_key(k, password=None)
    der = pk.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption())
    pkcs1 = pk.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.TraditionalOpenSSL, ser.NoEncryption())
    encrypted = pk.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.BestAvailableEncryption(b"pw"))
    for kw in [{"key": der}, {"key": pkcs1}, {"key": k.decode()}, {"key": pk}, {"key": encrypted, "passphrase": "pw"}]:
        assert xe.decrypt(out, **kw) == DOC
    # the certificate as a cryptography object, and a bare public key
    from cryptography import x509
    cert = x509.load_pem_x509_certificate(c)
    for recipient in (cert, cert.public_key()):
        assert xe.decrypt(xe.encrypt(DOC, recipient), k) == DOC


def test_aes_key_forms():
    out = xe.encrypt(DOC, kek=KEK.hex())
    assert xe.decrypt(out, KEK) == DOC  # a raw AES key as key=
    assert xe.decrypt(out, aes_key=KEK.hex()) == DOC
    assert xe.decrypt(out, aes_key=[KEK[:16], KEK]) == DOC  # the one that fits is chosen


def test_key_name_selects_among_the_callers_keys():
    other = bytes(32 - i for i in range(32))
    out = xe.encrypt(DOC, aes_key=KEK, key_name="k2")
    assert lx(out).find("ds:KeyInfo/ds:KeyName", NS).text == "k2"
    d = xe.XMLDecryptor(aes_key=other, key_name="k1")
    failure(d.decrypt, out)
    assert xe.decrypt(out, aes_key=KEK, key_name="k2") == DOC


# ---- WS-Security --------------------------------------------------------------------------


@pytest.mark.parametrize("soap_ns", [SOAP11, SOAP12])
def test_wss_body_and_header_block(rsa, soap_ns):
    k, c = rsa
    msg = ENVELOPE.replace(SOAP11.encode(), soap_ns.encode())
    out = xe.encrypt(msg, c, wss=True, xpath="//m:Account")
    assert b"acct-42" not in out and b">Bob<" not in out
    env = lx(out)
    sec = env.find(f"{{{soap_ns}}}Header/wsse:Security", NS)
    assert sec.get(f"{{{soap_ns}}}mustUnderstand") in ("1", "true")
    ek = sec[0]
    assert ek.tag == f"{{{XENC}}}EncryptedKey"
    refs = [r.get("URI") for r in ek.findall("xenc:ReferenceList/xenc:DataReference", NS)]
    body_ed = env.find(f"{{{soap_ns}}}Body/xenc:EncryptedData", NS)
    header_ed = env.find(f"{{{soap_ns}}}Header/xenc:EncryptedData", NS)
    assert body_ed.get("Type") == XENC + "Content" and header_ed.get("Type") == XENC + "Element"
    assert sorted(refs) == sorted(["#" + body_ed.get("Id"), "#" + header_ed.get("Id")])
    plain = xe.decrypt(out, k, remove_key_entries=True)
    got = lx(plain)
    want = lx(msg)
    for path in (f"{{{soap_ns}}}Body", f"{{{soap_ns}}}Header/{{urn:m}}Account"):
        assert etree.tostring(got.find(path), method="c14n") == etree.tostring(want.find(path), method="c14n")
    assert got.find(f"{{{soap_ns}}}Header/wsse:Security/xenc:EncryptedKey", NS) is None


def test_wss_with_a_direct_key_and_without_body():
    out = xe.encrypt(ENVELOPE, aes_key=KEK, key_name="svc", wss=True, body=False, xpath="//m:Account", must_understand=False)
    env = lx(out)
    sec = env.find(f"{{{SOAP11}}}Header/wsse:Security", NS)
    assert sec.get(f"{{{SOAP11}}}mustUnderstand") is None
    assert sec[0].tag == f"{{{XENC}}}ReferenceList"
    assert b">Bob<" in out and b"acct-42" not in out  # the Body is left as it was
    plain = lx(xe.decrypt(out, aes_key=KEK, key_name="svc"))
    assert plain.find(f"{{{SOAP11}}}Header/{{urn:m}}Account").text == "acct-42"
    assert plain.find(f"{{{SOAP11}}}Header/wsse:Security/xenc:ReferenceList", NS) is not None  # kept by default
    removed = lx(xe.decrypt(out, aes_key=KEK, key_name="svc", remove_key_entries=True))
    assert removed.find(f"{{{SOAP11}}}Header/wsse:Security/xenc:ReferenceList", NS) is None
    assert removed.find(f"{{{SOAP11}}}Header/{{urn:m}}Account").text == "acct-42"


def test_sign_then_encrypt_decrypts_then_verifies(rsa, rsa_other):
    k, c = rsa  # the sender's signing key
    rk, rc = rsa_other  # the recipient's
    signed = ds.sign(ENVELOPE, k, cert=c, method="wss")
    out = xe.encrypt(signed, rc, wss=True, xpath="//ds:Signature")
    assert b"SignatureValue" not in out  # the signature is encrypted too
    sec = lx(out).find(f"{{{SOAP11}}}Header/wsse:Security", NS)
    assert sec[0].tag == f"{{{XENC}}}EncryptedKey"  # processed first: decrypt, then verify
    with pytest.raises(ds.InvalidSignature):
        ds.verify(out, x509_cert=c)
    plain = xe.decrypt(out, rk, remove_key_entries=True)
    assert plain == signed  # exactly as it was signed
    r = ds.verify(plain, x509_cert=c)
    assert r.covers_payload and r.timestamp_signed


def test_encrypt_then_sign_verifies_before_decryption(rsa, rsa_other):
    k, c = rsa
    rk, rc = rsa_other
    out = xe.encrypt(ENVELOPE, rc, wss=True, must_understand=False)
    signed = ds.sign(out, k, cert=c, method="wss")
    r = ds.verify(signed, x509_cert=c)
    assert r.covers_payload
    assert r.soap_body[0].tag == f"{{{XENC}}}EncryptedData"  # what was signed is the ciphertext
    assert body_content(xe.decrypt(signed, rk)) == body_content(ENVELOPE)
    # a change to the ciphertext after signing breaks the signature before anything is decrypted
    cv = lx(signed).find(f".//{{{SOAP11}}}Body/xenc:EncryptedData/xenc:CipherData/xenc:CipherValue", NS).text
    flipped = cv[:10] + ("A" if cv[10] != "A" else "B") + cv[11:]
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed.replace(cv.encode(), flipped.encode()), x509_cert=c)
    assert e.value.kind == "digest_mismatch"


# ---- usage errors and limits ----------------------------------------------------------------


def test_usage_errors_are_invalid_input(rsa):
    k, c = rsa
    cases = [
        (lambda: xe.encrypt(DOC), "key"),
        (lambda: xe.encrypt(DOC, c, kek=KEK), "key"),
        (lambda: xe.encrypt(DOC, kek=b"short"), "key"),
        (lambda: xe.encrypt(DOC, b"not a certificate"), "key"),
        (lambda: xe.encrypt(DOC, c, algorithm="aes256-cbc"), "algorithm"),
        (lambda: xe.encrypt(DOC, c, algorithm="chacha20"), "algorithm"),
        (lambda: xe.encrypt(DOC, c, key_transport="rsa-1_5"), "algorithm"),
        (lambda: xe.encrypt(DOC, aes_key=KEK, algorithm="aes128-gcm"), "key"),
        (lambda: xe.encrypt(DOC, c, xpath="//nothing"), "xpath"),
        (lambda: xe.encrypt(DOC, c, xpath="//p:card[", type="content"), "xpath"),
        (lambda: xe.encrypt(DOC, c, xpath=[]), "encrypt"),
        (lambda: xe.encrypt(DOC, c, xpath=["//p:card", "/*"]), "encrypt"),
        (lambda: xe.encrypt(DOC, c, type="both"), "encrypt"),
        (lambda: xe.encrypt(DOC, c, wss=True), "not_soap"),
        (lambda: xe.encrypt(vtdx.parse(DOC), c, element=vtdx.parse(DOC).root), "encrypt"),
        (lambda: xe.decrypt(DOC), "key"),
        (lambda: xe.decrypt(DOC, b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), "key"),
    ]
    for fn, kind in cases:
        with pytest.raises(xe.InvalidInput) as e:
            fn()
        assert e.value.kind == kind, (kind, e.value)
        assert not isinstance(e.value, xe.DecryptionError)
        assert isinstance(e.value, xe.XMLEncryptionError) and isinstance(e.value, vtdx.VtdxError)
        assert isinstance(e.value, ValueError)
    with pytest.raises(vtdx.XMLSyntaxError):
        xe.encrypt(b"<a><b></a>", c)
    with pytest.raises(TypeError):
        xe.encrypt(42, c)


def test_structural_errors_and_limits(rsa):
    k, c = rsa
    with pytest.raises(xe.XMLEncryptionError) as e:
        xe.decrypt(DOC, k)
    assert e.value.kind == "nothing_encrypted" and not isinstance(e.value, xe.DecryptionError)
    two = xe.encrypt(DOC, c, xpath=["//p:card", "/*/*[2]"])
    with pytest.raises(xe.XMLEncryptionError) as e:
        xe.decrypt(two, k, max_parts=1)
    assert e.value.kind == "limit"
    with pytest.raises(xe.XMLEncryptionError) as e:
        xe.decrypt(two, k, max_cipher_bytes=100)
    assert e.value.kind == "limit"
    # super-encryption: the encrypted element encrypted again needs two passes
    twice = xe.encrypt(xe.encrypt(DOC, c, xpath="//p:card"), c, xpath="/*")
    assert xe.decrypt(twice, k) == DOC
    with pytest.raises(xe.XMLEncryptionError) as e:
        xe.decrypt(twice, k, max_depth=1)
    assert e.value.kind == "limit"
    # a CipherData without its CipherValue: malformed, with a position
    broken = two.replace(b"<xenc:CipherData>", b"<xenc:CipherDatum>", 1).replace(b"</xenc:CipherData>", b"</xenc:CipherDatum>", 1)
    with pytest.raises(xe.XMLEncryptionError) as e:
        xe.decrypt(broken, k)
    assert e.value.kind == "malformed" and e.value.position is not None and e.value.byte_offset is not None


# ---- attacks: one uniform error -------------------------------------------------------------


def tamper(data, part, how):
    """``data`` with the EncryptedData's CipherValue changed: the IV, the ciphertext
    or the tag flipped, or the value truncated (base64 decoded and encoded with the
    standard library)."""
    root = lx(data)
    eds = [root] if root.tag == f"{{{XENC}}}EncryptedData" else root.iter(f"{{{XENC}}}EncryptedData")
    cv = next(iter(eds)).find("xenc:CipherData/xenc:CipherValue", NS)
    raw = bytearray(base64.b64decode(cv.text))
    if how == "truncate":
        raw = raw[: len(raw) - 1]
    else:
        i = {"iv": 3, "ciphertext": 12 + 2, "tag": len(raw) - 5}[part]
        raw[i] ^= 0x01
    return data.replace(cv.text.encode(), base64.b64encode(bytes(raw)))


@pytest.mark.parametrize("part, how", [("iv", "flip"), ("ciphertext", "flip"), ("tag", "flip"), ("tag", "truncate")])
@pytest.mark.parametrize("recipient", ["cert", "kek32"])
def test_tampered_messages_fail_uniformly(rsa, part, how, recipient):
    enc_kw, dec_kw, _ = encryption_args(rsa, recipient, "aes256-gcm")
    out = xe.encrypt(DOC, xpath="//p:card", **enc_kw)
    failure(xe.decrypt, tamper(out, part, how), **dec_kw)


def test_wrong_keys_fail_uniformly(rsa, rsa_other):
    k, c = rsa
    ok, oc = rsa_other
    failure(xe.decrypt, xe.encrypt(DOC, c), ok)  # another RSA key
    failure(xe.decrypt, xe.encrypt(DOC, kek=KEK), aes_key=bytes(32))  # another KEK
    failure(xe.decrypt, xe.encrypt(DOC, aes_key=KEK), aes_key=bytes(32))  # another data key
    failure(xe.decrypt, xe.encrypt(DOC, kek=KEK), ok)  # no key of the right kind
    # the encrypted session key itself tampered with
    out = xe.encrypt(DOC, c)
    ek = lx(out).find("ds:KeyInfo/xenc:EncryptedKey/xenc:CipherData/xenc:CipherValue", NS).text
    raw = bytearray(base64.b64decode(ek))
    raw[100] ^= 0x80
    failure(xe.decrypt, out.replace(ek.encode(), base64.b64encode(bytes(raw))), k)


# messages made with the `cryptography` package (installed with signxml): legacy algorithms, CipherReference
from cryptography.hazmat.primitives.ciphers import aead as crypto_aead  # noqa: E402


def _encrypted_data(method, key_info, cipher_data, type_="Element"):
    return (
        f'<xenc:EncryptedData xmlns:xenc="{XENC}" Type="{XENC}{type_}">'
        f'<xenc:EncryptionMethod Algorithm="{method}"/>{key_info}{cipher_data}</xenc:EncryptedData>'
    ).encode()


def _cv(raw):
    return f"<xenc:CipherData><xenc:CipherValue>{base64.b64encode(raw).decode()}</xenc:CipherValue></xenc:CipherData>"


def _cbc(key, plain, last=None):
    """AES-CBC with ISO 10126 padding (random bytes, the last the pad length), IV first."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    pad = 16 - len(plain) % 16
    padded = plain + os.urandom(pad - 1) + bytes([pad if last is None else last])
    iv = os.urandom(16)
    e = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return iv + e.update(padded) + e.finalize()


def _oaep_or_v15(cert_pem, session, v15):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    pub = x509.load_pem_x509_certificate(cert_pem).public_key()
    if v15:
        return pub.encrypt(session, padding.PKCS1v15())
    return pub.encrypt(session, padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None))


def _rsa_key_info(cert_pem, session, v15):
    method = XENC + ("rsa-1_5" if v15 else "rsa-oaep-mgf1p")
    ek = _oaep_or_v15(cert_pem, session, v15)
    return (
        f'<ds:KeyInfo xmlns:ds="{DS}"><xenc:EncryptedKey><xenc:EncryptionMethod Algorithm="{method}"/>'
        f"{_cv(ek)}</xenc:EncryptedKey></ds:KeyInfo>"
    )


PLAIN = b'<card xmlns="urn:c">4111</card>'


def test_legacy_algorithms_only_by_opt_in(rsa):
    k, c = rsa
    session = os.urandom(32)
    gcm_iv = os.urandom(12)
    gcm = gcm_iv + crypto_aead.AESGCM(session).encrypt(gcm_iv, PLAIN, None)
    cases = {
        "cbc+oaep": _encrypted_data(XENC + "aes256-cbc", _rsa_key_info(c, session, False), _cv(_cbc(session, PLAIN))),
        "gcm+rsa-1_5": _encrypted_data(
            "http://www.w3.org/2009/xmlenc11#aes256-gcm", _rsa_key_info(c, session, True), _cv(gcm)
        ),
        "cbc+rsa-1_5": _encrypted_data(XENC + "aes256-cbc", _rsa_key_info(c, session, True), _cv(_cbc(session, PLAIN))),
        "cbc direct": _encrypted_data(XENC + "aes256-cbc", "", _cv(_cbc(session, PLAIN))),
    }
    for name, msg in cases.items():
        dec_key = session if name == "cbc direct" else k
        failure(xe.decrypt, msg, dec_key)
        assert c14n(xe.decrypt(msg, dec_key, allow_legacy=True)) == c14n(PLAIN), name
    # the AES-GCM + RSA-OAEP control decrypts without the opt-in
    ok = _encrypted_data("http://www.w3.org/2009/xmlenc11#aes256-gcm", _rsa_key_info(c, session, False), _cv(gcm))
    assert c14n(xe.decrypt(ok, k)) == c14n(PLAIN)


def test_cbc_padding_shapes_fail_uniformly():
    """With the opt-in, CBC messages whose padding is wrong fail exactly like a wrong
    key: the same exception, the same message (no padding oracle in the API)."""
    session = os.urandom(16)
    messages = [
        _encrypted_data(XENC + "aes128-cbc", "", _cv(_cbc(session, PLAIN, last=0))),  # pad length 0
        _encrypted_data(XENC + "aes128-cbc", "", _cv(_cbc(session, PLAIN, last=17))),  # longer than a block
        _encrypted_data(XENC + "aes128-cbc", "", _cv(_cbc(session, PLAIN)[:-3])),  # not whole blocks
        _encrypted_data(XENC + "aes128-cbc", "", _cv(_cbc(session, b"<card>&bad;</card>"))),  # not well-formed
    ]
    for m in messages:
        failure(xe.decrypt, m, session, allow_legacy=True)
    failure(xe.decrypt, _encrypted_data(XENC + "aes128-cbc", "", _cv(_cbc(session, PLAIN))), os.urandom(16), allow_legacy=True)


def test_cipher_reference_and_unknown_algorithms_fail_uniformly(rsa):
    k, c = rsa
    session = os.urandom(32)
    ref = (
        f'<xenc:CipherData><xenc:CipherReference URI="http://127.0.0.1:9/never"/></xenc:CipherData>'
    )
    failure(xe.decrypt, _encrypted_data("http://www.w3.org/2009/xmlenc11#aes256-gcm", _rsa_key_info(c, session, False), ref), k)
    same_doc = '<xenc:CipherData><xenc:CipherReference URI="#x"/></xenc:CipherData>'
    failure(xe.decrypt, _encrypted_data("http://www.w3.org/2009/xmlenc11#aes256-gcm", "", same_doc), session)
    iv = os.urandom(12)
    gcm = iv + crypto_aead.AESGCM(session).encrypt(iv, PLAIN, None)
    for method in ("http://www.w3.org/2001/04/xmlenc#tripledes-cbc", "http://www.w3.org/2009/xmlenc11#chacha20", "urn:unknown"):
        failure(xe.decrypt, _encrypted_data(method, _rsa_key_info(c, session, False), _cv(gcm)), k)


def test_uniform_error_for_every_failure_has_one_message(rsa, rsa_other):
    """The messages of the failures above, side by side: one string."""
    k, c = rsa
    out = xe.encrypt(DOC, c)
    errors = [
        failure(xe.decrypt, out, rsa_other[0]),
        failure(xe.decrypt, tamper(out, "tag", "flip"), k),
        failure(xe.decrypt, tamper(out, "iv", "flip"), k),
        failure(xe.decrypt, out, aes_key=KEK),
    ]
    assert {(type(e), str(e), e.args) for e in errors} == {(xe.DecryptionError, "decryption failed", ("decryption failed",))}


# ---- xmlsec1 both ways ----------------------------------------------------------------------


def xmlsec1():
    """The xmlsec1 command; skips visibly when it is missing, fails under VTDX_REQUIRE_XMLSEC1=1."""
    exe = shutil.which("xmlsec1")
    if exe and subprocess.run([exe, "--version"], capture_output=True).returncode == 0:
        return exe
    if os.environ.get("VTDX_REQUIRE_XMLSEC1") == "1":
        pytest.fail("xmlsec1 is required (VTDX_REQUIRE_XMLSEC1=1) but is not installed: scripts/test.sh installs Debian's package `xmlsec1`")
    pytest.skip("xmlsec1 is not installed (apt-get install xmlsec1; scripts/test.sh does it)")


@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("recipient", ["cert", "kek16", "kek24", "kek32", "direct"])
@pytest.mark.parametrize("xpath, type_", [("//p:card", "element"), ("//p:card", "content"), (None, "content"), (None, "element")])
def test_vtdx_encrypts_xmlsec1_decrypts(rsa, tmp_path, alg, recipient, xpath, type_):
    exe = xmlsec1()
    k, c = rsa
    enc_kw, _, _ = encryption_args(rsa, recipient, alg)
    out = xe.encrypt(DOC, xpath=xpath, type=type_, algorithm=alg, **enc_kw)
    f = tmp_path / "enc.xml"
    f.write_bytes(out)
    if recipient == "cert":
        args = ["--privkey-pem", str(corpus_path("dsig", "xmlsec", "keys", "rsa", "rsa-2048-key.pem"))]
    else:
        kf = tmp_path / "key.bin"
        if recipient == "direct":
            kf.write_bytes(enc_kw["aes_key"])
            args = ["--aeskey:shared", str(kf)]
        else:
            kf.write_bytes(enc_kw["kek"])
            args = ["--aeskey", str(kf)]
    r = subprocess.run([exe, "--decrypt", *args, str(f)], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    assert c14n(r.stdout) == c14n(DOC)


def _template(data_uri, ty, key_info):
    return (
        f'<EncryptedData xmlns="{XENC}" Type="{XENC}{ty}"><EncryptionMethod Algorithm="{data_uri}"/>'
        f'<KeyInfo xmlns="{DS}">{key_info}</KeyInfo><CipherData><CipherValue/></CipherData></EncryptedData>'
    )


def _ek_template(method):
    return f'<EncryptedKey xmlns="{XENC}"><EncryptionMethod Algorithm="{method}"/><CipherData><CipherValue/></CipherData></EncryptedKey>'


XMLSEC_DATA = [
    ("aes128-gcm", "http://www.w3.org/2009/xmlenc11#aes128-gcm", 128, False),
    ("aes192-gcm", "http://www.w3.org/2009/xmlenc11#aes192-gcm", 192, False),
    ("aes256-gcm", "http://www.w3.org/2009/xmlenc11#aes256-gcm", 256, False),
    ("aes128-cbc", XENC + "aes128-cbc", 128, True),
    ("aes256-cbc", XENC + "aes256-cbc", 256, True),
]


@pytest.mark.parametrize("dname, duri, bits, legacy_data", XMLSEC_DATA, ids=[d[0] for d in XMLSEC_DATA])
@pytest.mark.parametrize("recipient", ["rsa-oaep-mgf1p", "rsa-1_5", "kw-aes128", "kw-aes256", "direct"])
@pytest.mark.parametrize("ty, xpath", [("Element", "//*[local-name()='card']"), ("Content", "//*[local-name()='card']"), ("Content", "/*")])
def test_xmlsec1_encrypts_vtdx_decrypts(rsa, tmp_path, dname, duri, bits, legacy_data, recipient, ty, xpath):
    exe = xmlsec1()
    k, c = rsa
    data = tmp_path / "doc.xml"
    data.write_bytes(DOC)
    session = ["--session-key", f"aes-{bits}"]
    if recipient.startswith("rsa"):
        key_info = _ek_template(XENC + recipient)
        certf = corpus_path("dsig", "xmlsec", "keys", "rsa", "rsa-2048-cert.pem")
        args = ["--pubkey-cert-pem", str(certf), *session]
        dec = {"key": k}
    elif recipient.startswith("kw"):
        n = int(recipient[6:]) // 8
        key_info = _ek_template(XENC + recipient)
        kf = tmp_path / "kek.bin"
        kf.write_bytes(KEK[:n])
        args = ["--aeskey", str(kf), *session]
        dec = {"aes_key": KEK[:n]}
    else:
        key_info = "<KeyName>shared</KeyName>"
        kf = tmp_path / "direct.bin"
        kf.write_bytes(KEK[: bits // 8])
        args = ["--aeskey:shared", str(kf)]
        dec = {"aes_key": KEK[: bits // 8], "key_name": "shared"}
    t = tmp_path / "tmpl.xml"
    t.write_text(_template(duri, ty, key_info))
    r = subprocess.run([exe, "--encrypt", *args, "--xml-data", str(data), "--node-xpath", xpath, str(t)], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    assert b">4111 " not in r.stdout
    legacy = legacy_data or recipient == "rsa-1_5"
    if legacy:
        failure(xe.decrypt, r.stdout, **dec)  # refused without the opt-in, uniformly
    assert c14n(xe.decrypt(r.stdout, allow_legacy=legacy, **dec)) == c14n(DOC)


# ---- the corpus vectors -----------------------------------------------------------------------


def _expected_failures():
    listed = set()
    for line in (REPO / "conformance" / "expected-failures" / "xmlenc.txt").read_text().splitlines():
        item = line.split("#", 1)[0].strip()
        if item:
            listed.add(item)
    return listed


def _keys_file(path):
    """The AESKeyValue keys of an xmlsec keys file, read with lxml: (name, bytes)."""
    out = []
    for ki in lx(path.read_bytes()):
        name = ki.find(f"{{{DS}}}KeyName")
        for v in ki.iter("{*}AESKeyValue"):
            raw = base64.b64decode("".join(v.text.split()))
            if len(raw) in (16, 24, 32):
                out.append((None if name is None else name.text.strip(), raw))
    return out


_USABLE = {"--aeskey", "--aes-key", "--keys-file", "$priv_key_option", "--pwd", "--lax-key-search"}


def _rows():
    """Rows whose keys can be given directly: (id, path, expected_ok, plaintext, keys)."""
    root = corpus_path("dsig", "xmlsec")
    with open(root / "MANIFEST-enc.tsv", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    seen = {}
    out = []
    for row in rows:
        seen[row["file"]] = seen.get(row["file"], 0) + 1
        rid = f"{row['file']}@{seen[row['file']]}"
        toks = row["xmlsec1_decrypt_args"].split()
        opts = {t.split(":")[0] for t in toks if t.startswith("-") or t.startswith("$")}
        if not opts or not opts <= _USABLE:
            continue
        keys = []  # (kind, bytes, name)
        i = 0
        while i < len(toks):
            opt, _, name = toks[i].partition(":")
            value = toks[i + 1] if i + 1 < len(toks) else ""
            p = root / value.removeprefix("ROOT/")
            if opt in ("--aeskey", "--aes-key"):
                keys.append(("aes", p.read_bytes(), name or None))
            elif opt == "--keys-file":
                keys.extend(("aes", raw, n) for n, raw in _keys_file(p))
            elif opt == "$priv_key_option":
                base = value.replace("$priv_key_suffix", "")
                for fmt in ("pem", "der"):
                    q = root / base.removeprefix("ROOT/").replace("$priv_key_format", fmt)
                    if q.exists():
                        keys.append(("rsa", q.read_bytes(), name or None))
                        break
            i += 2 if opt in ("--aeskey", "--aes-key", "--keys-file", "$priv_key_option", "--pwd") else 1
        plaintext = root / row["expected_plaintext"] if row["expected_plaintext"] else None
        b64 = "base64" in row.get("output_filter", "")
        out.append((rid, root / row["file"], row["expected_decrypt"] == "success", plaintext, b64, keys))
    return out


def _same(out, want):
    if out == want:
        return True
    try:
        return c14n(out) == c14n(want)
    except etree.XMLSyntaxError:
        return False


def test_corpus_vectors():
    rows = _rows()
    assert len(rows) == 287, len(rows)  # a moved or changed corpus fails here
    listed = _expected_failures()
    differences = []
    passed = 0
    for rid, path, expected_ok, plaintext, b64, keys in rows:
        try:
            dec = xe.Decryptor([(kind, data, name) for kind, data, name in keys], allow_legacy=True)
        except xe.InvalidInput:
            dec = None  # a key vtdx cannot read (EC, X25519...): the row is listed
        try:
            if dec is None:
                raise xe.DecryptionError("decryption failed")
            out = dec.decrypt(vtdx.parse(path.read_bytes(), forbid_external=False))
            if not expected_ok:
                ok, why = False, "decrypted, expected to fail"
            else:
                want = plaintext.read_bytes()
                if b64:
                    want = base64.b64decode(b"".join(want.split()))
                ok, why = _same(out, want), "plaintext differs"
        except xe.DecryptionError as e:
            ok, why = not expected_ok, str(e)
            if not expected_ok or rid in listed:
                assert str(e) == "decryption failed"
        except (xe.XMLEncryptionError, vtdx.XMLSyntaxError) as e:
            ok, why = not expected_ok, f"{type(e).__name__}: {e}"
        passed += ok
        if ok == (rid in listed):
            differences.append(f"{rid}: {'listed but passed' if ok else 'not listed, ' + why}")
    assert not differences, "\n".join(differences)
    print(f"{passed} of {len(rows)} corpus rows as the manifest says")
    assert passed == len(rows) - len(listed & {r[0] for r in rows})
