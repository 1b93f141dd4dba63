"""Who is asking: a request's address (behind a trusted proxy, the client's, never one the client wrote) and the
client id the server issued to its browser tab.

The address is the connection's peer, except where that peer is a proxy the operator trusts (`--trusted-proxy`, or
`AE_TRUSTED_PROXIES`: addresses and networks, comma-separated, or `*` on a host only its proxy can reach, such as a
Hugging Face Space). Then it is the right-most entry of `X-Forwarded-For`: the one that proxy appended. The entries
to its left are whatever the client sent, so a client cannot choose the address it is counted by. An IPv6 address
counts by its /56, what a home is given (RFC 6177; a phone holds a /64 of it): counted by /64, one home was 256
addresses, enough to take every room and every kept upload (a review of issue 51). A /56 of a carrier's phones is
counted as one, as an IPv4 address behind the carrier's NAT is.

A client id is issued by the server (`POST /ae/api/client`), at most `ISSUE_RATE` per address, and signed: an id the
server did not make counts for nothing, so a script cannot talk its way around its address's share by naming itself
anew with each request.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import secrets
from dataclasses import dataclass

CLIENT_HEADER = "x-ae-client"  # the id the server issued to a browser tab, sent with each API request
FORWARDED_HEADER = "x-forwarded-for"
TRUSTED_PROXIES_ENV = "AE_TRUSTED_PROXIES"
IPV6_PREFIX = 56  # the bits of an IPv6 address that name who asks: a home's prefix
ISSUE_RATE = "400/minute"  # client ids one address may be issued: a class of 200 opening the page at once, twice


def trusted_proxies(spec: str | None = None) -> list | None:
    """The proxies whose `X-Forwarded-For` is believed: networks, or None for any peer (`*`); [] trusts none."""
    spec = os.environ.get(TRUSTED_PROXIES_ENV, "") if spec is None else spec
    if spec.strip() == "*":
        return None
    try:
        return [ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip()]
    except ValueError as exc:
        raise ValueError(
            f"{TRUSTED_PROXIES_ENV}={spec!r}: {exc} (addresses or networks, comma-separated, or *)"
        ) from exc


def _trusted(peer: str, proxies: list | None) -> bool:
    if proxies is None:
        return True
    try:
        ip = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(ip in network for network in proxies)


def address_of(request, proxies: list | None) -> str:
    """The address a Starlette request is counted by: its peer, or behind a trusted proxy the entry that proxy
    appended to `X-Forwarded-For` (the right-most; a malformed one counts as the proxy's own address)."""
    peer = request.client.host if request.client else "?"
    forwarded = ",".join(request.headers.getlist(FORWARDED_HEADER))  # a proxy may add its own header after the client's
    if not forwarded or not _trusted(peer, proxies):
        return counted(peer)
    try:
        return counted(str(ipaddress.ip_address(forwarded.split(",")[-1].strip())))
    except ValueError:
        return counted(peer)


def counted(address: str) -> str:
    """An address as it is counted: an IPv4 address as itself, an IPv6 one by its /56 (one home holds a whole /56:
    a script there must not count as 256 people, nor millions), an IPv4-mapped IPv6 one as its IPv4."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False))
    return address


class ClientIds:
    """Client ids signed with a secret this server process makes: issued at a bounded rate per address (`rates`: the
    server's `rate_limits.Rates`, which imports this module), and checked without keeping any of them."""

    def __init__(self, rates, rate: str = ISSUE_RATE):
        self.secret = secrets.token_bytes(32)
        self.rates, self.rate = rates, rate

    def _sign(self, nonce: str) -> str:
        mac = hmac.new(self.secret, nonce.encode(), hashlib.sha256).digest()[:12]
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def issue(self, address: str) -> str:
        self.rates.hit(self.rate, "client ids", address, "Too many client ids for one address.")
        nonce = secrets.token_urlsafe(12)
        return f"{nonce}.{self._sign(nonce)}"

    def valid(self, client: str) -> bool:
        nonce, _, mac = client.partition(".")
        return bool(nonce) and len(client) <= 64 and hmac.compare_digest(mac.encode(), self._sign(nonce).encode())


@dataclass(frozen=True)
class Caller:
    """Who asks: the address, and the issued client id (None where the request names none the server made)."""

    address: str
    client: str | None


SERVER = Caller("server", None)  # the server's own model work: the start-up trace, the warm per-model answers


def caller_of(request, clients: ClientIds, proxies: list | None) -> Caller:
    """The caller of a Starlette request; a download link cannot send a header, so it names its id in its query."""
    client = request.headers.get(CLIENT_HEADER, "") or request.query_params.get("client", "")
    return Caller(address_of(request, proxies), client if client and clients.valid(client) else None)
