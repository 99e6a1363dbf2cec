"""Certificate path validation from Python: trust anchors (``ca_pem_file=`` /
``ca_certs=``), intermediates and CRLs in :func:`vtdx.dsig.verify`.

The certificates are xmlsec's test PKI (``../shared/corpus/dsig/xmlsec/keys``): a
root CA (``cacert.pem``), a second-level CA it issued (``ca2cert.pem``), and RSA
leaf certificates ca2 issued (``rsa/rsa-2048-cert.pem``, ``rsa/rsa-4096-cert.pem``)
with a CRL of ca2 that revokes the 2048-bit one. Where signxml can judge the same
question (a chain to the anchors, as of a given time), it is run on the same
bytes as the independent verdict; revocation lists it does not read, so those
expectations come from RFC 5280 §6.3 and the CRL's own content (read with
``cryptography``).
"""

import datetime as dt

import pytest
from conftest import corpus_path

import vtdx.dsig as ds

signxml = pytest.importorskip("signxml")
x509 = pytest.importorskip("cryptography.x509")

ORDER = b'<order xmlns="urn:example:po"><item sku="A-1">2</item><total>9.50</total></order>'
# the test PKI's certificates are valid from March 2026 for a century
AT = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)


def key_path(name):
    return corpus_path("dsig", "xmlsec", "keys", *name.split("/"))


def key(name):
    return key_path(name).read_bytes()


@pytest.fixture(scope="module")
def signed_4096():
    """ORDER signed by the 4096-bit leaf of ca2, its certificate in KeyInfo."""
    return ds.sign(ORDER, key("rsa/rsa-4096-key.pem"), cert=key("rsa/rsa-4096-cert.pem"))


@pytest.fixture(scope="module")
def signed_2048():
    """ORDER signed by the 2048-bit leaf of ca2 (the one ca2's CRL revokes)."""
    return ds.sign(ORDER, key("rsa/rsa-2048-key.pem"), cert=key("rsa/rsa-2048-cert.pem"))


def at(when=AT):
    return ds.SignatureConfiguration(now=when)


def _is_ca(policy, cert, bc):
    if not bc.ca:
        raise ValueError("an issuer that is not a CA")


def signxml_verdict(data, ca_file, when=AT):
    """signxml's verdict on ``data`` with the anchors of ``ca_file`` as of ``when``.

    signxml validates with ``cryptography``'s Web PKI profile by default, which asks
    more of certificates than RFC 5280's path validation does (a critical
    basicConstraints and a keyUsage on CAs, a subjectAltName and no cA on the leaf);
    the test PKI has none of that, so the oracle runs with RFC 5280's rules for these
    extensions: an issuer must assert cA, nothing else is required."""
    from cryptography.x509.verification import Criticality, ExtensionPolicy

    ca_policy = ExtensionPolicy.permit_all().require_present(x509.BasicConstraints, Criticality.AGNOSTIC, _is_ca)
    cfg = signxml.SignatureConfiguration(verification_time=when)
    try:
        signxml.XMLVerifier().verify(
            data, ca_pem_file=str(ca_file), expect_config=cfg, ca_policy=ca_policy, ee_policy=ExtensionPolicy.permit_all()
        )
        return True
    except signxml.exceptions.InvalidSignature:
        return False


def test_the_certificate_in_the_message_verifies_through_its_ca(signed_4096):
    r = ds.verify(signed_4096, ca_certs=key("ca2cert.pem"), expect_config=at())
    assert len(r.references) == 1 and r.covers_payload
    assert signxml_verdict(signed_4096, key_path("ca2cert.pem")) is True


def test_ca_pem_file_is_a_path_as_in_signxml(signed_4096):
    ds.verify(signed_4096, ca_pem_file=str(key_path("ca2cert.pem")), expect_config=at())
    ds.verify(signed_4096, ca_pem_file=key_path("ca2cert.pem"), expect_config=at())
    ds.XMLVerifier().verify(signed_4096, ca_pem_file=str(key_path("ca2cert.pem")), expect_config=at())


def test_a_bundle_of_anchors(tmp_path, signed_4096):
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(key("cacert.pem") + key("ca2cert.pem"))
    ds.verify(signed_4096, ca_pem_file=str(bundle), expect_config=at())
    assert signxml_verdict(signed_4096, bundle) is True


def test_another_anchor_is_not_trusted(signed_4096):
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, ca_certs=key("same-subj-cert1.pem"), expect_config=at())
    assert e.value.kind == "untrusted_certificate"
    assert "does not chain to a trust anchor" in str(e.value)
    assert signxml_verdict(signed_4096, key_path("same-subj-cert1.pem")) is False


def test_the_root_alone_needs_the_intermediate(signed_4096):
    # the message carries only the leaf: with the root as the only anchor there is
    # no chain, until ca2 is given as an (untrusted) intermediate
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, ca_certs=key("cacert.pem"), expect_config=at())
    assert e.value.kind == "untrusted_certificate"
    assert signxml_verdict(signed_4096, key_path("cacert.pem")) is False
    ds.verify(signed_4096, ca_certs=key("cacert.pem"), intermediates=key("ca2cert.pem"), expect_config=at())


def test_validity_is_judged_at_the_configured_instant(signed_4096):
    before = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, ca_certs=key("ca2cert.pem"), expect_config=at(before))
    assert e.value.kind == "certificate_not_yet_valid"
    assert signxml_verdict(signed_4096, key_path("ca2cert.pem"), when=before) is False
    after = dt.datetime(2127, 1, 1, tzinfo=dt.timezone.utc)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, ca_certs=key("ca2cert.pem"), expect_config=at(after))
    assert e.value.kind == "certificate_expired"


def test_a_crl_of_the_issuer_revokes(signed_2048, signed_4096):
    crl_pem = key("rsa/rsa-2048-cert-revoked-crl.pem")
    # the CRL is current from 15 March to 14 April 2026
    when = dt.datetime(2026, 3, 20, tzinfo=dt.timezone.utc)
    crl = x509.load_pem_x509_crl(crl_pem)
    leaf = x509.load_pem_x509_certificate(key("rsa/rsa-2048-cert.pem"))
    other = x509.load_pem_x509_certificate(key("rsa/rsa-4096-cert.pem"))
    # what the CRL says, read independently: it lists the 2048-bit leaf, not the 4096-bit one
    assert crl.get_revoked_certificate_by_serial_number(leaf.serial_number) is not None
    assert crl.get_revoked_certificate_by_serial_number(other.serial_number) is None
    assert crl.issuer == x509.load_pem_x509_certificate(key("ca2cert.pem")).subject
    ds.verify(signed_2048, ca_certs=key("ca2cert.pem"), expect_config=at(when))
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_2048, ca_certs=key("ca2cert.pem"), crls=crl_pem, expect_config=at(when))
    assert e.value.kind == "certificate_revoked"
    # a cryptography CRL object is accepted as well
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_2048, ca_certs=key("ca2cert.pem"), crls=[crl], expect_config=at(when))
    assert e.value.kind == "certificate_revoked"
    ds.verify(signed_4096, ca_certs=key("ca2cert.pem"), crls=crl_pem, expect_config=at(when))
    # past its nextUpdate the CRL is stale: refused rather than trusted (RFC 5280 §6.3.3 (a)(2))
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, ca_certs=key("ca2cert.pem"), crls=crl_pem, expect_config=at())
    assert e.value.kind == "crl_expired"
    assert crl.next_update_utc < AT


def test_anchors_alone_or_keys_alone(signed_4096):
    # without anchors, the certificate in the message is not the caller's key
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, x509_cert=key("rsa/rsa-2048-cert.pem"), expect_config=at())
    assert e.value.kind == "untrusted_key"
    # the caller's own certificate verifies without any chain...
    ds.verify(signed_4096, x509_cert=key("rsa/rsa-4096-cert.pem"), expect_config=at())
    # ...unless the caller asks for its keys to chain too
    cfg = ds.SignatureConfiguration(now=AT, validate_caller_keys=True)
    ds.verify(signed_4096, x509_cert=key("rsa/rsa-4096-cert.pem"), ca_certs=key("ca2cert.pem"), expect_config=cfg)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, x509_cert=key("rsa/rsa-4096-cert.pem"), ca_certs=key("cacert.pem"), expect_config=cfg)
    assert e.value.kind == "untrusted_certificate"


def test_chain_length_is_bounded(signed_4096):
    cfg = ds.SignatureConfiguration(now=AT, max_chain_len=2)
    ds.verify(signed_4096, ca_certs=key("ca2cert.pem"), expect_config=cfg)
    with pytest.raises(ds.InvalidSignature) as e:
        ds.verify(signed_4096, ca_certs=key("cacert.pem"), intermediates=key("ca2cert.pem"), expect_config=cfg)
    assert e.value.kind in ("certificate_chain_too_long", "untrusted_certificate")


def test_signxml_signatures_verify_through_the_ca():
    from lxml import etree

    signed = signxml.XMLSigner().sign(
        etree.fromstring(ORDER), key=key("rsa/rsa-4096-key.pem"), cert=key("rsa/rsa-4096-cert.pem").decode()
    )
    data = etree.tostring(signed)
    ds.verify(data, ca_certs=key("ca2cert.pem"), expect_config=at())
    with pytest.raises(ds.InvalidSignature):
        ds.verify(data, ca_certs=key("same-subj-cert1.pem"), expect_config=at())


def test_bad_arguments():
    with pytest.raises(ds.InvalidInput) as e:
        ds.verify(ORDER)
    assert e.value.kind == "no_key"
    with pytest.raises(ValueError):
        ds.verify(ORDER, x509_cert=key("rsa/rsa-4096-cert.pem"), crls=key("rsa/rsa-2048-cert-revoked-crl.pem"))
    with pytest.raises(ds.InvalidInput):
        ds.verify(ORDER, ca_certs=b"not a certificate")
    with pytest.raises(FileNotFoundError):
        ds.verify(ORDER, ca_pem_file="/nonexistent/ca.pem")


def test_zeep_plugin_accepts_responses_through_the_ca():
    """A client that trusts ca2 accepts a response signed by any certificate ca2
    issued, carried in the response's BinarySecurityToken; not with another anchor."""
    pytest.importorskip("zeep")
    from lxml import etree

    import vtdx.dsig.zeep as wz

    soap11 = "http://schemas.xmlsoap.org/soap/envelope/"
    envelope = etree.fromstring(
        f'<e:Envelope xmlns:e="{soap11}"><e:Body><p:Paid xmlns:p="urn:pay">7</p:Paid></e:Body></e:Envelope>'.encode()
    )
    server = wz.WsseSignature(key("rsa/rsa-4096-key.pem"), key("rsa/rsa-4096-cert.pem"), verify_response=False)
    response, _ = server.apply(envelope, {})
    client_key = (key("rsa/rsa-2048-key.pem"), key("rsa/rsa-2048-cert.pem"))
    trusting = wz.WsseSignature(*client_key, ca_certs=key("ca2cert.pem"))
    r = trusting.verify(etree.fromstring(etree.tostring(response)))
    assert r is not None and r.covers_payload and r.timestamp_signed
    # the client's own certificate is not the default key once anchors are given,
    # and the root alone does not make a chain
    other = wz.WsseSignature(*client_key, ca_pem_file=str(key_path("cacert.pem")))
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        other.verify(etree.fromstring(etree.tostring(response)))
    assert e.value.kind == "untrusted_certificate"
    # without anchors, zeep's default: only the client's own certificate
    plain = wz.WsseSignature(*client_key)
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        plain.verify(etree.fromstring(etree.tostring(response)))
    assert e.value.kind == "untrusted_key"
