"""vtdx.dsig: signing and verification through the Python API, the verified view as
elements, the error kinds, key forms, and the signxml-shaped classes.

The keys are the xmlsec test keys of the shared corpus (``dsig/xmlsec/keys``).
Expected values come from the inputs (the bytes given, the elements signed), never
from running vtdx."""

import concurrent.futures
import datetime
import re

import pytest

import vtdx
import vtdx.dsig as ds
from conftest import corpus_path

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
DS = "http://www.w3.org/2000/09/xmldsig#"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
HMAC_SECRET = b"a secret of at least thirty-two bytes, for HMAC"


def key(name):
    return corpus_path("dsig", "xmlsec", "keys", *name.split("/")).read_bytes()


@pytest.fixture(scope="module")
def rsa():
    return key("rsa/rsa-2048-key.pem"), key("rsa/rsa-2048-cert.pem")


@pytest.fixture(scope="module")
def rsa_other():
    return key("rsa/rsa-4096-key.pem"), key("rsa/rsa-4096-cert.pem")


ORDER = b"""<?xml version="1.0"?>
<!-- a comment before -->
<order xmlns="urn:shop" id='o1'>
  <item  sku="a&amp;b" >Rake</item>
  <qty>3</qty>
</order>
"""

ENVELOPE = (
    b'<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="urn:m">'
    b"<soapenv:Header/><soapenv:Body><m:Pay><m:amount>10</m:amount></m:Pay></soapenv:Body></soapenv:Envelope>"
)


def strip_signature(signed: bytes) -> bytes:
    """The signed bytes without the inserted ds:Signature element."""
    start = signed.index(b"<ds:Signature")
    end = signed.index(b"</ds:Signature>") + len(b"</ds:Signature>")
    return signed[:start] + signed[end:]


# ---- round trips ----------------------------------------------------------------------


def test_enveloped_rsa_round_trip_keeps_every_other_byte(rsa):
    k, c = rsa
    signed = ds.sign(ORDER, k, cert=c)
    assert isinstance(signed, bytes)
    # the Signature is the document element's last child; everything else as it was
    assert strip_signature(signed) == ORDER
    assert signed.index(b"<ds:Signature") > signed.index(b"<qty>3</qty>")
    r = ds.verify(signed, x509_cert=c)
    assert isinstance(r, ds.VerifyResult)
    root = r.document.root
    assert root.tag == "{urn:shop}order"
    assert r.signed_xml == root
    assert r.signature_xml.tag == f"{{{DS}}}Signature"
    assert r.signatures == [r.signature_xml]
    [ref] = r.references
    assert ref.uri == "" and ref.is_document
    assert ref.element == root
    assert ref.transforms == [
        "http://www.w3.org/2000/09/xmldsig#enveloped-signature",
        "http://www.w3.org/2001/10/xml-exc-c14n#",
    ]
    assert ref.digest_algorithm == ds.DigestAlgorithm.SHA256
    assert ref.signature_method == ds.SignatureMethod.RSA_SHA256
    assert ref.excluded == [r.signature_xml]
    assert ref.key_index == 0
    # the enveloped Signature was left out, and is not required of what it is in
    assert r.covers(root) and not r.covers(r.signature_xml)
    assert all(r.covers(e) for e in root if e.tag != f"{{{DS}}}Signature")
    assert r.covers_payload and r.payload == root
    assert not r.is_soap and r.soap_body is None and not r.timestamp_signed
    assert r.signed_data == signed  # the whole document, as it stands


@pytest.mark.parametrize(
    "keyfile, certfile, alg, method",
    [
        ("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", "rsa-sha512", ds.SignatureMethod.RSA_SHA512),
        ("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem", "rsa-pss-sha256", ds.SignatureMethod.SHA256_RSA_MGF1),
        ("ec/ec-prime256v1-key.pem", "ec/ec-prime256v1-cert.pem", None, ds.SignatureMethod.ECDSA_SHA256),
        ("ec/ec-prime384v1-key.pem", "ec/ec-prime384v1-cert.pem", None, ds.SignatureMethod.ECDSA_SHA384),
        ("eddsa/eddsa-ed25519-key.pem", "eddsa/eddsa-ed25519-cert.pem", "ed25519", ds.SignatureMethod.EDDSA_ED25519),
    ],
)
def test_each_key_type(keyfile, certfile, alg, method):
    k, c = key(keyfile), key(certfile)
    signed = ds.sign(ORDER, k, cert=c, signature_algorithm=alg)
    assert f'Algorithm="{method.value}"'.encode() in signed
    r = ds.verify(signed, x509_cert=c)
    assert r.references[0].signature_method == method.value
    # the public key alone verifies too (KeyInfo's certificate selects it by key)
    pub = certfile.replace("-cert.pem", "-pubkey.pem")
    assert ds.verify(signed, key=key(pub)).references[0].key_index == 0


def test_hmac_round_trip_and_wrong_secret():
    signed = ds.sign(b"<a><b>1</b></a>", hmac_key=HMAC_SECRET, signature_algorithm="hmac-sha384")
    assert ds.SignatureMethod.HMAC_SHA384.value.encode() in signed
    assert ds.verify(signed, hmac_key=HMAC_SECRET).references[0].uri == ""
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed, hmac_key=b"another secret of thirty-two bytes......")
    assert e.value.kind == "invalid_signature"


def test_detached_references_by_id_and_xpath(rsa):
    k, c = rsa
    doc = b'<r><a Id="x1"><v>1</v></a><b><v>2</v></b><c><v>3</v></c></r>'
    signed = ds.sign(doc, k, cert=c, reference_uri="#x1", xpath="/r/b")
    r = ds.verify(signed, x509_cert=c)
    uris = [ref.uri for ref in r.references]
    assert uris[0] == "#x1" and uris[1].startswith("#")
    root = r.document.root
    a, b, cc = root.find("a"), root.find("b"), root.find("c")
    assert r.signed_elements == [a, b]
    assert r.covers(a) and r.covers(b) and r.covers(a.find("v"))
    assert not r.covers(cc) and not r.covers(root)
    assert r.references[0].covers(a) and not r.references[0].covers(b)
    assert r.signed_data == b'<a Id="x1"><v>1</v></a>'
    assert r.references[1].element.get("Id") == uris[1][1:]  # a new Id attribute
    # an element of another document is never covered
    assert not r.covers(vtdx.fromstring(signed).find("a"))
    assert r.covers_all([a, b]) and not r.covers_all([a, cc])
    # without require_payload, an uncovered document element is the caller's business
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed, x509_cert=c, expect_config=ds.SignatureConfiguration(require_payload=True))
    assert e.value.kind == "payload_not_covered"


def test_wss_header(rsa):
    k, c = rsa
    signed = ds.sign(ENVELOPE, k, cert=c, method=ds.methods.wss, ttl=60)
    r = ds.verify(signed, x509_cert=c, expect_config=ds.SignatureConfiguration(require_timestamp=True))
    assert r.is_soap
    body = r.document.root.find(f"{{{SOAP11}}}Body")
    assert r.soap_body == body and r.payload == body and r.covers(body) and r.covers_payload
    sec = r.security_header
    assert sec.tag == f"{{{WSSE}}}Security" and sec.getparent() == r.soap_header
    assert sec.get(f"{{{SOAP11}}}mustUnderstand") == "1"
    assert r.timestamp.tag == f"{{{WSU}}}Timestamp" and r.timestamp_signed
    assert sec.find(f"{{{WSSE}}}BinarySecurityToken") is not None
    assert r.signature_xml.find(f"{{{DS}}}KeyInfo/{{{WSSE}}}SecurityTokenReference") is not None
    assert {ref.element for ref in r.references} == {body, r.timestamp}
    # the Timestamp expires after the ttl (and the 300 s clock skew)
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=60 + 301)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed, x509_cert=c, expect_config=ds.SignatureConfiguration(now=later))
    assert e.value.kind == "timestamp_expired"
    assert e.value.position is not None and e.value.byte_offset == signed.index(b"<wsu:Timestamp")


def test_wss_extra_xpath_and_fixed_instant(rsa):
    k, c = rsa
    t = datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    signed = ds.sign(ENVELOPE, k, cert=c, method="wss", xpath="//m:amount", now=t, ttl=None)
    assert re.search(rb"<wsu:Created>2030-01-02T03:04:05(\.0+)?Z</wsu:Created>", signed) and b"Expires" not in signed
    r = ds.verify(signed, x509_cert=c, expect_config=ds.SignatureConfiguration(now=t))
    assert len(r.references) == 3
    assert r.references[2].element.tag == "{urn:m}amount"


# ---- refusals, with their kinds ---------------------------------------------------------


def test_tampered_value_is_digest_mismatch_with_position(rsa):
    k, c = rsa
    signed = ds.sign(ORDER, k, cert=c)
    bad = signed.replace(b"<qty>3</qty>", b"<qty>9</qty>")
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(bad, x509_cert=c)
    err = e.value
    assert isinstance(err, ValueError) and isinstance(err, ds.InvalidInput) and isinstance(err, vtdx.VtdxError)
    assert err.kind == "digest_mismatch"
    assert err.byte_offset == bad.index(b"<ds:Reference")
    line = bad[: err.byte_offset].count(b"\n") + 1
    assert err.position[0] == line == err.lineno
    assert "digest mismatch" in err.msg and f"line {line}" in str(err)


def test_other_certificate_is_untrusted_key(rsa, rsa_other):
    k, c = rsa
    signed = ds.sign(ORDER, k, cert=c)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed, x509_cert=rsa_other[1])
    assert e.value.kind == "untrusted_key"


def test_algorithm_confusion_hmac_with_public_key(rsa):
    # an HMAC signature whose "secret" is the verifier's public certificate
    k, c = rsa
    forged = ds.sign(ORDER, hmac_key=c)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(forged, x509_cert=c)
    assert e.value.kind == "key_mismatch"


def test_wrapped_body_is_refused(rsa):
    k, c = rsa
    signed = ds.sign(ENVELOPE, k, cert=c, method="wss")
    # the signed Body moved into a header, a forged one put where it is read
    start = signed.index(b"<soapenv:Body")
    end = signed.index(b"</soapenv:Body>") + len(b"</soapenv:Body>")
    body = signed[start:end]
    wrapped = signed[:start] + b"<soapenv:Body><m:Pay><m:amount>1000</m:amount></m:Pay></soapenv:Body>" + signed[end:]
    wrapped = wrapped.replace(b"<soapenv:Header>", b"<soapenv:Header><w>" + body + b"</w>", 1)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(wrapped, x509_cert=c)
    assert e.value.kind == "soap_body_count"


def test_no_signature_and_no_key(rsa):
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(b"<a/>", x509_cert=rsa[1])
    assert e.value.kind == "no_signature"
    with pytest.raises(ds.InvalidInput) as e:
        ds.verify(b"<a/>")
    assert e.value.kind == "no_key" and not isinstance(e.value, ds.InvalidSignature)


def test_not_well_formed_is_a_syntax_error(rsa):
    with pytest.raises(vtdx.XMLSyntaxError):
        ds.verify(b"<a>", x509_cert=rsa[1])


def test_expect_config(rsa):
    k, c = rsa
    signed = ds.sign(ORDER, k, cert=c)
    cfg = ds.SignatureConfiguration(expect_references=2)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed, x509_cert=c, expect_config=cfg)
    assert e.value.kind == "reference_count"
    cfg = ds.SignatureConfiguration(signature_methods=frozenset({ds.SignatureMethod.ECDSA_SHA256}))
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed, x509_cert=c, expect_config=cfg)
    assert e.value.kind == "disallowed_algorithm"
    cfg = ds.SignatureConfiguration(expect_references=1, signature_methods=frozenset({"rsa-sha256"}),
                                    digest_algorithms=frozenset({ds.DigestAlgorithm.SHA256}))
    assert len(ds.verify(signed, x509_cert=c, expect_config=cfg).references) == 1


def test_signing_errors_are_invalid_input(rsa):
    k, c = rsa
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, b"not a key")
    assert e.value.kind == "key"
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, k, cert=c, signature_algorithm="ecdsa-sha256")
    assert e.value.kind == "signing_key_mismatch"
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, k, signature_algorithm=ds.SignatureMethod.RSA_SHA1)
    assert e.value.kind == "disallowed_algorithm"
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, k, cert=key("rsa/rsa-4096-cert.pem"))
    assert e.value.kind == "key"  # the certificate holds another key
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, k, method=ds.methods.enveloping)
    assert e.value.kind == "unsupported_method"
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, k, xpath="//nothing")
    assert e.value.kind == "sign"
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(b"<a/>", k, method="wss")
    assert e.value.kind == "sign"  # not a SOAP message
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, k, signature_algorithm="rot13")
    assert e.value.kind == "unsupported_algorithm"


# ---- inputs: key forms, document forms --------------------------------------------------


def test_key_forms(rsa):
    k, c = rsa
    der_key = key("rsa/rsa-2048-key.der")
    signed = ds.sign(ORDER, der_key, cert=key("rsa/rsa-2048-cert.der"))
    ds.verify(signed, x509_cert=c.decode())  # str PEM
    ds.verify(signed, x509_cert=key("rsa/rsa-2048-cert.der"))  # DER
    ds.verify(signed, x509_cert=[key("rsa/rsa-4096-cert.pem"), c])  # a list: each trusted
    ds.verify(signed, x509_cert=key("rsa/rsa-4096-cert.pem") + c)  # a PEM bundle
    assert ds.verify(signed, x509_cert=[key("rsa/rsa-4096-cert.pem"), c]).references[0].key_index == 1
    signed = ds.sign(ORDER, k.decode(), cert=c.decode(), key_info=False)
    assert b"KeyInfo" not in signed
    ds.verify(signed, x509_cert=c)


def test_cryptography_objects(rsa):
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import serialization

    k, c = rsa
    kobj = serialization.load_pem_private_key(k, password=None)
    cobj = x509.load_pem_x509_certificate(c)
    signed = ds.sign(ORDER, kobj, cert=cobj)
    ds.verify(signed, x509_cert=cobj)
    ds.verify(signed, key=cobj.public_key())
    enc = kobj.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw")
    )
    ds.verify(ds.sign(ORDER, enc, passphrase="pw", cert=c), x509_cert=c)
    with pytest.raises(ds.InvalidInput) as e:
        ds.sign(ORDER, enc, cert=c)
    assert e.value.kind == "key"  # encrypted, no passphrase


def test_document_forms(rsa):
    k, c = rsa
    doc = vtdx.parse(ORDER)
    signed = ds.sign(doc, k, cert=c)
    assert strip_signature(signed) == ORDER
    parsed = vtdx.parse(signed)
    assert ds.verify(parsed, x509_cert=c).document == parsed
    assert ds.verify(parsed.root.find("{urn:shop}qty"), x509_cert=c).document == parsed  # an element: its document
    assert ds.verify(signed.decode(), x509_cert=c).signed_xml.tag == "{urn:shop}order"
    assert ds.verify(bytearray(signed), x509_cert=c).references[0].uri == ""
    lxml = pytest.importorskip("lxml.etree")
    assert ds.verify(lxml.fromstring(signed), x509_cert=c).references[0].uri == ""
    signed2 = ds.sign(lxml.fromstring(ORDER), k, cert=c)
    ds.verify(signed2, x509_cert=c)
    with pytest.raises(TypeError):
        ds.verify(12, x509_cert=c)


# ---- the signxml-shaped classes ---------------------------------------------------------


def test_xml_signer_and_verifier(rsa):
    k, c = rsa
    signer = ds.XMLSigner(
        method=ds.methods.enveloped,
        signature_algorithm=ds.SignatureMethod.SHA256_RSA_MGF1,
        digest_algorithm=ds.DigestAlgorithm.SHA512,
        c14n_algorithm=ds.CanonicalizationMethod.CANONICAL_XML_1_1,
    )
    root = signer.sign(ORDER, key=k, cert=c)
    assert isinstance(root, vtdx.Element) and root.tag == "{urn:shop}order"
    assert strip_signature(root.getroottree().tostring()) == ORDER
    r = ds.XMLVerifier().verify(root, x509_cert=c)
    assert r.references[0].digest_algorithm == ds.DigestAlgorithm.SHA512.value
    assert r.signature_xml.find(f"{{{DS}}}SignedInfo/{{{DS}}}CanonicalizationMethod").get("Algorithm") == (
        ds.CanonicalizationMethod.CANONICAL_XML_1_1.value
    )
    assert r.references[0].transforms[-1] == ds.CanonicalizationMethod.CANONICAL_XML_1_1.value
    # HMAC the signxml way: the secret as key=, with an HMAC method
    root = ds.XMLSigner(signature_algorithm="hmac-sha256").sign(b"<a>1</a>", key=HMAC_SECRET)
    assert ds.XMLVerifier().verify(root, hmac_key=HMAC_SECRET).signed_xml.text == "1"
    root = ds.XMLSigner(method=ds.methods.detached).sign(b'<a><b id="q">1</b></a>', key=k, reference_uri=["#q"])
    r = ds.XMLVerifier().verify(root, key=key("rsa/rsa-2048-pubkey.pem"))
    assert r.signed_xml.tag == "b" and r.signed_data == b'<b id="q">1</b>'


def test_low_level_engines_are_reusable_across_threads(rsa):
    k, c = rsa
    signer = ds.Signer(k, cert=c)
    assert signer.signature_algorithm == ds.SignatureMethod.RSA_SHA256.value
    verifier = ds.Verifier([("key", c, None)])
    docs = [b"<d><n>%d</n></d>" % i for i in range(16)]

    def round_trip(d):
        r = verifier.verify(signer.sign_enveloped(d))
        return r.document.root.find("n").text

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert list(pool.map(round_trip, docs)) == [str(i) for i in range(16)]


def test_names_are_documented():
    for name in ds.__all__:
        obj = getattr(ds, name)
        assert obj.__doc__, f"vtdx.dsig.{name} has no docstring"
        if isinstance(obj, type):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (callable(member) or isinstance(member, property)):
                    continue
                if isinstance(obj, type) and issubclass(obj, __import__("enum").Enum):
                    continue
                assert getattr(member, "__doc__", None), f"vtdx.dsig.{name}.{attr} has no docstring"
