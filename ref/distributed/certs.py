"""Throwaway certificates for a local cluster: one CA and one task certificate.

``make_local_ca(directory)`` writes ``ca.pem``, ``cert.pem`` and ``key.pem`` there
and returns their paths. The CA signs one leaf certificate for ``localhost`` and
``127.0.0.1`` (and any extra names given), valid for both TLS server and client
authentication, so every task of a one-machine cluster can serve with it and
present it to the others (mutual TLS). The keys are ECDSA P-256, the lifetime one
day: they protect a test or a local run, nothing more. The ``cryptography``
package makes them when it is installed (``pip install 'ref-tf1[distributed]'``),
else the ``openssl`` command; without either a RuntimeError says so.
"""
from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import subprocess

__all__ = ["make_local_ca", "LOCAL_NAMES"]

LOCAL_NAMES = ("localhost", "127.0.0.1")
_DAYS = 1


def make_local_ca(directory, names=LOCAL_NAMES):
    """Writes a new CA and a task certificate/key for ``names`` into ``directory``;
    returns ``{"ca": path, "cert": path, "key": path}``."""
    os.makedirs(directory, exist_ok=True)
    paths = {k: os.path.join(directory, f"{k}.pem") for k in ("ca", "cert", "key")}
    try:
        import cryptography  # noqa: F401
    except ImportError:
        if shutil.which("openssl") is None:
            raise RuntimeError("making a local CA needs the cryptography package "
                               "(pip install 'ref-tf1[distributed]') or the openssl command") from None
        _with_openssl(directory, paths, names)
    else:
        _with_cryptography(paths, names)
    os.chmod(paths["key"], 0o600)
    return paths


def _san(x509, names):
    entries = []
    for n in names:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(n)))
        except ValueError:
            entries.append(x509.DNSName(n))
    return x509.SubjectAlternativeName(entries)


def _with_cryptography(paths, names):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    until = now + datetime.timedelta(days=_DAYS)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ref local cluster CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(until)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(until)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_san(x509, names), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    with open(paths["ca"], "wb") as f:
        f.write(ca.public_bytes(pem))
    with open(paths["cert"], "wb") as f:
        f.write(cert.public_bytes(pem))
    with open(paths["key"], "wb") as f:
        f.write(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def _with_openssl(directory, paths, names):
    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=directory, timeout=60)

    ca_key = os.path.join(directory, "ca-key.pem")
    csr = os.path.join(directory, "cert.csr")
    ext = os.path.join(directory, "cert.ext")
    san = ",".join(f"IP:{n}" if _is_ip(n) else f"DNS:{n}" for n in names)
    with open(ext, "w") as f:
        f.write(f"basicConstraints=critical,CA:FALSE\nsubjectAltName={san}\nextendedKeyUsage=serverAuth,clientAuth\n")
    run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", ca_key)
    run("req", "-x509", "-new", "-key", ca_key, "-subj", "/CN=ref local cluster CA", "-days", str(_DAYS),
        "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        "-out", paths["ca"])
    run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", paths["key"])
    run("req", "-new", "-key", paths["key"], "-subj", f"/CN={names[0]}", "-out", csr)
    run("x509", "-req", "-in", csr, "-CA", paths["ca"], "-CAkey", ca_key, "-CAcreateserial", "-days", str(_DAYS),
        "-extfile", ext, "-out", paths["cert"])
    os.remove(ca_key)  # nothing can be signed with this CA afterwards


def _is_ip(name):
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False
