"""TLS for Mister X's page on the local network: a certificate made at start, used for one run.

Anyone on the same Wi-Fi who knows its password can read plain HTTP (WPA2-PSK: the handshake gives
them the session keys), so the page's traffic goes over TLS. There is no name a public authority
could certify for a laptop's LAN address, so the certificate is self-signed, made fresh from the
OS's randomness (`cryptography` uses the OS's generator) and never written anywhere but a private
temporary file that the server deletes once loaded. The phone warns about it; its SHA-256
fingerprint, printed beside the QR code, is what Mister X compares before he accepts it
(docs/host.md, "Mister X's page on the local network").
"""
import datetime
import ipaddress
import os
import ssl
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

VALID_FOR = datetime.timedelta(days=2)  # one evening's game, and a clock that is a day off


def make_certificate(address):
    """(certificate PEM, private key PEM) for `address` (an IP address string), self-signed."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "yard")])  # in clear under TLS 1.2: says nothing
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + VALID_FOR)
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(address))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def fingerprint(cert_pem):
    """The certificate's SHA-256 fingerprint as browsers show it: AB:CD:..."""
    digest = x509.load_pem_x509_certificate(cert_pem).fingerprint(hashes.SHA256())
    return ":".join("%02X" % b for b in digest)


def server_context(address):
    """(ssl.SSLContext serving a fresh certificate for address, its fingerprint)."""
    cert_pem, key_pem = make_certificate(address)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    fd, path = tempfile.mkstemp(prefix="yard-tls-", suffix=".pem")  # private to this user (0600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key_pem + cert_pem)
        ctx.load_cert_chain(path)
    finally:
        os.remove(path)
    return ctx, fingerprint(cert_pem)
