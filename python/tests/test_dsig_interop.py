"""vtdx.dsig against independent oracles.

* signxml (an lxml + cryptography implementation): documents signed by signxml are
  verified by vtdx, and documents signed by vtdx are verified by signxml, for every
  signature method, digest and canonicalization both offer;
* the xmlsec XML-DSig vectors of the shared corpus (``dsig/xmlsec/MANIFEST-dsig.tsv``)
  whose keys are given to xmlsec1 directly (``--hmackey``, ``--pubkey-*``): each comes
  out as the manifest's ``expected_verify`` says, except the rows listed (with the
  reason) in ``conformance/expected-failures/dsig.txt``, which must not.
"""

import re

import pytest

import vtdx
import vtdx.dsig as ds
from conftest import REPO, corpus_path

signxml = pytest.importorskip("signxml")
etree = pytest.importorskip("lxml.etree")


def key(name):
    return corpus_path("dsig", "xmlsec", "keys", *name.split("/")).read_bytes()


RSA = ("rsa/rsa-2048-key.pem", "rsa/rsa-2048-cert.pem")
P256 = ("ec/ec-prime256v1-key.pem", "ec/ec-prime256v1-cert.pem")
P384 = ("ec/ec-prime384v1-key.pem", "ec/ec-prime384v1-cert.pem")
P521 = ("ec/ec-prime521v1-key.pem", "ec/ec-prime521v1-cert.pem")

DOC = (
    b'<inv:Invoice xmlns:inv="urn:invoice" xmlns:x="urn:unused" Id="inv1">\n'
    b'  <inv:Line n="1" note="a &amp; b">Rake</inv:Line>\n'
    b"  <inv:Total currency='EUR'>12.50</inv:Total>\n"
    b"</inv:Invoice>"
)

# (key pair, signature method): every method signxml and vtdx both sign with
PAIRS = [
    (RSA, "RSA_SHA256"),
    (RSA, "RSA_SHA384"),
    (RSA, "RSA_SHA512"),
    (RSA, "SHA256_RSA_MGF1"),
    (RSA, "SHA384_RSA_MGF1"),
    (RSA, "SHA512_RSA_MGF1"),
    (P256, "ECDSA_SHA256"),
    (P384, "ECDSA_SHA384"),
    (P521, "ECDSA_SHA512"),
]
DIGESTS = ["SHA256", "SHA384", "SHA512"]
C14NS = ["CANONICAL_XML_1_0", "CANONICAL_XML_1_1", "EXCLUSIVE_XML_CANONICALIZATION_1_0"]


def sx_enum(cls_name, member):
    return getattr(getattr(signxml, cls_name), member, None)


def pairs():
    for (k, c), m in PAIRS:
        if sx_enum("SignatureMethod", m) is None:  # pragma: no cover - older signxml
            continue
        yield pytest.param(k, c, m, id=m)


# ---- signxml signs, vtdx verifies ----------------------------------------------------------


@pytest.mark.parametrize("keyfile, certfile, method", list(pairs()))
@pytest.mark.parametrize("c14n", C14NS)
def test_signxml_signed_vtdx_verifies(keyfile, certfile, method, c14n):
    k, c = key(keyfile), key(certfile)
    signer = signxml.XMLSigner(
        method=signxml.methods.enveloped,
        signature_algorithm=sx_enum("SignatureMethod", method),
        digest_algorithm=signxml.DigestAlgorithm.SHA256,
        c14n_algorithm=sx_enum("CanonicalizationMethod", c14n),
    )
    signed = etree.tostring(signer.sign(etree.fromstring(DOC), key=k, cert=c))
    r = ds.verify(signed, x509_cert=c)
    assert r.references[0].signature_method == getattr(ds.SignatureMethod, method).value
    assert r.covers_payload and r.signed_xml.tag == "{urn:invoice}Invoice"
    # what signxml signed, vtdx covers; a changed value fails
    total = r.document.root.find("{urn:invoice}Total")
    assert r.covers(total)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed.replace(b">12.50<", b">99.99<"), x509_cert=c)
    assert e.value.kind == "digest_mismatch"


@pytest.mark.parametrize("digest", DIGESTS)
def test_signxml_signed_digests_and_hmac(digest):
    secret = b"an HMAC secret of 32 bytes or more"
    signer = signxml.XMLSigner(
        signature_algorithm=signxml.SignatureMethod.HMAC_SHA256,
        digest_algorithm=sx_enum("DigestAlgorithm", digest),
    )
    signed = etree.tostring(signer.sign(etree.fromstring(DOC), key=secret))
    r = ds.verify(signed, hmac_key=secret)
    assert r.references[0].digest_algorithm == getattr(ds.DigestAlgorithm, digest).value
    with pytest.raises(ds.InvalidSignature):
        ds.verify(signed, hmac_key=b"another secret of 32 bytes or more")


def test_signxml_reference_to_an_id_is_covered_by_position():
    k, c = key(RSA[0]), key(RSA[1])
    doc = b'<r><payload Id="p1"><v>1</v></payload><other><v>2</v></other></r>'
    signed = etree.tostring(signxml.XMLSigner().sign(etree.fromstring(doc), key=k, cert=c, reference_uri="#p1"))
    r = ds.verify(signed, x509_cert=c)
    root = r.document.root
    assert r.references[0].uri == "#p1" and r.signed_xml == root.find("payload")
    assert r.covers(root.find("payload")) and not r.covers(root.find("other")) and not r.covers_payload


# ---- vtdx signs, signxml verifies ----------------------------------------------------------


@pytest.mark.parametrize("keyfile, certfile, method", list(pairs()))
@pytest.mark.parametrize("c14n", C14NS)
def test_vtdx_signed_signxml_verifies(keyfile, certfile, method, c14n):
    k, c = key(keyfile), key(certfile)
    signed = ds.sign(
        DOC,
        k,
        cert=c,
        signature_algorithm=getattr(ds.SignatureMethod, method),
        c14n_algorithm=getattr(ds.CanonicalizationMethod, c14n),
    )
    res = signxml.XMLVerifier().verify(signed, x509_cert=c.decode())
    assert etree.tostring(res.signed_xml.find("{urn:invoice}Total")).startswith(b"<inv:Total")
    with pytest.raises(signxml.exceptions.InvalidSignature):
        signxml.XMLVerifier().verify(signed.replace(b">12.50<", b">99.99<"), x509_cert=c.decode())


@pytest.mark.parametrize("digest", DIGESTS)
def test_vtdx_signed_digests_and_hmac_signxml_verifies(digest):
    secret = b"an HMAC secret of 32 bytes or more"
    signed = ds.sign(DOC, hmac_key=secret, digest_algorithm=getattr(ds.DigestAlgorithm, digest))
    cfg = signxml.SignatureConfiguration(require_x509=False, signature_methods=frozenset({signxml.SignatureMethod.HMAC_SHA256}))
    res = signxml.XMLVerifier().verify(signed, hmac_key=secret, expect_config=cfg)
    assert res.signed_xml.tag == "{urn:invoice}Invoice"


def test_vtdx_detached_reference_signxml_verifies():
    k, c = key(RSA[0]), key(RSA[1])
    doc = b'<r><payload Id="p1"><v>1</v></payload><other><v>2</v></other></r>'
    signed = ds.sign(doc, k, cert=c, reference_uri="#p1")
    res = signxml.XMLVerifier().verify(signed, x509_cert=c.decode())
    assert res.signed_xml.tag == "payload"


# ---- the xmlsec vectors of the corpus --------------------------------------------------------

_KEY_OPTS = {"--pubkey-pem", "--pubkey-der", "--pubkey-cert-pem", "--pubkey-cert-der", "--hmackey"}
_SKIP_VALUE = {"--enabled-key-data", "--enabled-reference-uris", "--verification-gmt-time", "--hmac-min-out-len"}
# the manifest's variables, as xmlsec's test script sets them for PEM files
_VARIABLES = {"$cert_format": "pem", "$pub_key_format": "pem", "$pub_key_option": "--pubkey-pem", "$rsa_pub_key_suffix": ""}
_FLAGS = {"--lax-key-search", "--insecure", "--X509-skip-time-checks"}


def _expected_failures():
    listed = set()
    for line in (REPO / "conformance" / "expected-failures" / "dsig.txt").read_text().splitlines():
        item = line.split("#", 1)[0].strip()
        if item:
            listed.add(item)
    return listed


def _direct_key_rows():
    """Rows whose keys xmlsec1 is given directly, as (id, path, expected_ok, keys)."""
    root = corpus_path("dsig", "xmlsec")
    lines = (root / "MANIFEST-dsig.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    seen = {}
    out = []
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        f = row["file"]
        seen[f] = seen.get(f, 0) + 1
        rid = f"{f}@{seen[f]}"
        args = row["xmlsec1_verify_args"]
        for var, value in _VARIABLES.items():
            args = args.replace(var, value)
        args = args.split()
        keys, ok, i = [], True, 0
        while i < len(args):
            opt, _, name = args[i].partition(":")
            if opt in _KEY_OPTS and i + 1 < len(args):
                v = args[i + 1]
                p = root / v[5:] if v.startswith("ROOT/") else root / row["args_relative_to"] / v
                if not p.exists() and p.suffix == ".pem":
                    p = p.with_suffix(".der")
                kind = "hmac" if opt == "--hmackey" else "key"
                keys.append((kind, p.read_bytes(), name or None))
                i += 2
            elif opt in _SKIP_VALUE:
                i += 2
            elif opt in _FLAGS:
                i += 1
            else:
                ok = False  # keys from a trust store, a keys file, CRLs...: the Rust harness covers these
                break
        if ok and keys:
            out.append((rid, root / f, row["expected_verify"] == "success", keys))
    return out


def test_xmlsec_vectors_with_direct_keys():
    rows = _direct_key_rows()
    # 34 rows with --hmackey, 47 with a public key or certificate; a moved corpus fails here
    assert len(rows) == 81, [r[0] for r in rows]
    assert sum(1 for r in rows if r[3][0][0] == "hmac") == 34
    listed = _expected_failures()
    cfg = ds.SignatureConfiguration(allow_sha1=True, min_rsa_bits=1024, allow_xpath_transform=True, allow_xpath_filter2=True)
    differences = []
    as_expected = 0
    for rid, path, expected_ok, keys in rows:
        try:
            doc = vtdx.parse(path.read_bytes(), forbid_external=False)
            cfg.verifier(keys).verify(doc)
            got_ok, why = True, "verified"
        except (ds.InvalidSignature, ds.InvalidInput, vtdx.XMLSyntaxError) as e:
            got_ok, why = False, f"{getattr(e, 'kind', type(e).__name__)}: {e}"
        matches = got_ok == expected_ok
        as_expected += matches
        if matches == (rid in listed):
            state = "listed in dsig.txt but" if rid in listed else "not listed, and"
            differences.append(f"{rid}: {state} expected {'success' if expected_ok else 'fail'}, got {why}")
    assert not differences, "\n".join(differences)
    assert as_expected == sum(r[0] not in listed for r in rows)  # the HMAC-SHA-2, RSA, PSS, ECDSA, Ed25519 rows
