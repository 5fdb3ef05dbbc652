"""A local RFC 3161 time-stamping authority for the tests: its own CA, its own DER, its own HTTP server.

Nothing here comes from ``rfc3161-client`` (the code under test): the CA and the TSA
certificate are made with ``cryptography``, requests are parsed and responses built by the
small DER codec below, following RFC 3161 section 2.4 (TimeStampReq / TimeStampResp /
TSTInfo) and RFC 5652 (CMS SignedData with signed attributes). The server speaks the
RFC 3161 section 3.4 HTTP transport: POST ``application/timestamp-query``, answer
``application/timestamp-reply``.

``Authority.fail`` makes the server answer HTTP 503, ``Authority.hang`` makes it wait until
the server stops; ``Authority.at`` sets the ``genTime``
it stamps (a TSA is trusted for its clock, so tests choose it); ``Authority.seen`` counts
the requests.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# -- DER: just what RFC 3161 needs ------------------------------------------------------------


def tlv(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        length = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + body


def seq(*parts: bytes) -> bytes:
    return tlv(0x30, b"".join(parts))


def set_of(*parts: bytes) -> bytes:
    return tlv(0x31, b"".join(sorted(parts)))  # DER: SET OF sorted by encoding


def integer(value: int) -> bytes:
    raw = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big", signed=True)
    return tlv(0x02, raw)


def oid(dotted: str) -> bytes:
    nums = [int(x) for x in dotted.split(".")]
    out = bytearray([40 * nums[0] + nums[1]])
    for n in nums[2:]:
        chunk = [n & 0x7F]
        n >>= 7
        while n:
            chunk.append(0x80 | (n & 0x7F))
            n >>= 7
        out += bytes(reversed(chunk))
    return tlv(0x06, bytes(out))


def octets(data: bytes) -> bytes:
    return tlv(0x04, data)


def gentime(moment: datetime) -> bytes:
    return tlv(0x18, moment.astimezone(UTC).strftime("%Y%m%d%H%M%SZ").encode())


def explicit(n: int, body: bytes) -> bytes:
    return tlv(0xA0 + n, body)


def read_tlv(data: bytes, pos: int = 0) -> tuple[int, bytes, int]:
    """(tag, contents, position after) of the element at ``pos``."""
    tag, first = data[pos], data[pos + 1]
    pos += 2
    if first & 0x80:
        count = first & 0x7F
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    else:
        length = first
    return tag, data[pos : pos + length], pos + length


def children(body: bytes) -> list[tuple[int, bytes]]:
    out, pos = [], 0
    while pos < len(body):
        tag, value, pos = read_tlv(body, pos)
        out.append((tag, value))
    return out


SHA256 = "2.16.840.1.101.3.4.2.1"
ID_DATA_SIGNED = "1.2.840.113549.1.7.2"
ID_CT_TSTINFO = "1.2.840.113549.1.9.16.1.4"
ATTR_CONTENT_TYPE = "1.2.840.113549.1.9.3"
ATTR_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
ATTR_SIGNING_CERT_V2 = "1.2.840.113549.1.9.16.2.47"
ECDSA_SHA256 = "1.2.840.10045.4.3.2"
POLICY = "1.3.6.1.4.1.99999.1"


def parse_request(der: bytes) -> tuple[bytes, bytes, int | None, bool]:
    """TimeStampReq -> (hash algorithm OID DER, hashed message, nonce, certReq)."""
    tag, body, _ = read_tlv(der)
    assert tag == 0x30, "not a TimeStampReq"
    items = children(body)
    imprint = children(items[1][1])
    algorithm = children(imprint[0][1])[0][1]
    nonce, cert_req = None, False
    for tag, value in items[2:]:
        if tag == 0x02:
            nonce = int.from_bytes(value, "big", signed=True)
        elif tag == 0x01:
            cert_req = value != b"\x00"
    return algorithm, imprint[1][1], nonce, cert_req


# -- the authority ---------------------------------------------------------------------------


def name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


@dataclass
class Chain:
    """A root CA and a TSA certificate it issued, directly or through an intermediate CA (ECDSA P-256)."""

    root: x509.Certificate
    root_key: ec.EllipticCurvePrivateKey
    tsa: x509.Certificate
    tsa_key: ec.EllipticCurvePrivateKey
    intermediate: x509.Certificate | None = None  # never embedded in the tokens (like a cross-certificate)

    def root_pem(self) -> bytes:
        return self.root.public_bytes(serialization.Encoding.PEM)

    def intermediate_pem(self) -> bytes:
        return self.intermediate.public_bytes(serialization.Encoding.PEM) if self.intermediate else b""


def _ca(label: str, issuer: x509.Name, signer, key) -> x509.Certificate:
    return (
        x509.CertificateBuilder().subject_name(name(label)).issuer_name(issuer)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(datetime(2020, 1, 1, tzinfo=UTC)).not_valid_after(datetime(2040, 1, 1, tzinfo=UTC))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(signer, hashes.SHA256())
    )  # fmt: skip


def make_chain(label: str, valid_from: datetime, valid_until: datetime, intermediate: bool = False) -> Chain:
    """A self-signed root valid 2020-2040 and a TSA certificate valid ``[valid_from, valid_until]``,
    issued by the root or (``intermediate``) by a CA the root issued."""
    root_key = ec.generate_private_key(ec.SECP256R1())
    root = _ca(f"{label} Root", name(f"{label} Root"), root_key, root_key)
    ca, issuer_key = None, root_key
    if intermediate:
        issuer_key = ec.generate_private_key(ec.SECP256R1())
        ca = _ca(f"{label} Time Stamping CA", root.subject, root_key, issuer_key)
    tsa_key = ec.generate_private_key(ec.SECP256R1())
    tsa = (
        x509.CertificateBuilder().subject_name(name(f"{label} TSA")).issuer_name((ca or root).subject)
        .public_key(tsa_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(valid_from).not_valid_after(valid_until)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .sign(issuer_key, hashes.SHA256())
    )  # fmt: skip
    return Chain(root, root_key, tsa, tsa_key, ca)


@dataclass
class Authority:
    """One TSA: a chain, the time it stamps, and whether it is down."""

    chain: Chain
    at: datetime = field(default_factory=lambda: datetime.now(UTC))
    fail: bool = False
    hang: bool = False  # answer only once ``release`` is set (a TSA that does not answer in time)
    seen: int = 0
    serial: int = 0
    release: threading.Event = field(default_factory=threading.Event)

    def stamp(self, request: bytes) -> bytes:
        """A granted TimeStampResp for ``request``, signed by this TSA (RFC 3161 2.4.2)."""
        algorithm, digest, nonce, cert_req = parse_request(request)
        self.serial += 1
        return token_response(self.chain, digest, self.at, self.serial, nonce, cert_req, algorithm)


def token_response(chain: Chain, digest: bytes, at: datetime, serial: int = 1, nonce: int | None = None,
                   cert_req: bool = True, algorithm: bytes | None = None) -> bytes:  # fmt: skip
    algorithm_id = seq(tlv(0x06, algorithm) if algorithm else oid(SHA256))
    tst_info = seq(
        integer(1), oid(POLICY), seq(algorithm_id, octets(digest)), integer(serial), gentime(at),
        *([integer(nonce)] if nonce is not None else []),
    )  # fmt: skip
    cert_der = chain.tsa.public_bytes(serialization.Encoding.DER)
    ess_cert_id_v2 = seq(octets(hashlib.sha256(cert_der).digest()))  # hashAlgorithm sha256 is the DEFAULT
    attributes = [
        seq(oid(ATTR_CONTENT_TYPE), set_of(oid(ID_CT_TSTINFO))),
        seq(oid(ATTR_MESSAGE_DIGEST), set_of(octets(hashlib.sha256(tst_info).digest()))),
        seq(oid(ATTR_SIGNING_CERT_V2), set_of(seq(seq(ess_cert_id_v2)))),
    ]
    signed_attrs = set_of(*attributes)  # signed as a SET (tag 0x31), sent as [0] IMPLICIT
    signature = chain.tsa_key.sign(signed_attrs, ec.ECDSA(hashes.SHA256()))
    issuer = chain.tsa.issuer.public_bytes()
    signer_info = seq(
        integer(1), seq(issuer, integer(chain.tsa.serial_number)), seq(oid(SHA256)),
        b"\xa0" + signed_attrs[1:],  # the same SET, retagged [0] IMPLICIT
        seq(oid(ECDSA_SHA256)), octets(signature),
    )  # fmt: skip
    signed_data = seq(
        integer(3), set_of(seq(oid(SHA256))), seq(oid(ID_CT_TSTINFO), explicit(0, octets(tst_info))),
        *([tlv(0xA0, cert_der)] if cert_req else []), set_of(signer_info),
    )  # fmt: skip
    token = seq(oid(ID_DATA_SIGNED), explicit(0, signed_data))
    return seq(seq(integer(0)), token)


def rejection() -> bytes:
    """A TimeStampResp with status rejection (2) and no token."""
    return seq(seq(integer(2)))


def with_status(response: bytes, status: int) -> bytes:
    """``response`` (a granted TimeStampResp) with another PKIStatus, e.g. 1, grantedWithMods."""
    _, body, _ = read_tlv(response)
    _, status_info, after = read_tlv(body)
    return seq(seq(integer(status)), body[after:])


class _Handler(BaseHTTPRequestHandler):
    authority: Authority

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.authority.seen += 1
        if self.authority.hang:
            self.authority.release.wait(60)
        if self.authority.fail:
            self._answer(503, b"down", "text/plain")
        elif self.headers.get("content-type") != "application/timestamp-query":
            self._answer(400, b"wrong content type", "text/plain")
        else:
            self._answer(200, self.authority.stamp(body), "application/timestamp-reply")

    def _answer(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


class TsaServer:
    """``Authority`` served on 127.0.0.1 in a thread; ``url`` is its endpoint."""

    def __init__(self, authority: Authority):
        self.authority = authority
        handler = type("Handler", (_Handler,), {"authority": authority})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/tsr"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> TsaServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.authority.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


YEAR = timedelta(days=365)
