"""Which webhook URLs the server may call, and which addresses it may connect to (issue 26, point 5:
no server-side request forgery).

A webhook URL is chosen by an app, and the server calls it from inside the operator's network: left
unchecked, an app could make the server reach the operator's Redis, a cloud's metadata service (and
its credentials) or any internal admin page.  So:

- :func:`check_url` judges the URL's syntax when an endpoint is registered or changed (and again before
  every delivery): ``https`` only (``http`` where the operator allows, ``TABLETOP_WEBHOOK_ALLOW_HTTP``),
  a host, no user name or password, no fragment, a real port, at most 2,000 characters.  Host names
  that only look like names (``2130706433``, ``0x7f.1``: numeric forms the C resolver reads as
  addresses) are refused, so the URL says what it reaches.
- :func:`address_refusal` says whether one IP address is public, or which class of non-public address it
  is (loopback, private, link-local, cloud metadata...), judging an IPv4 address wrapped in IPv6
  (IPv4-mapped, NAT64, 6to4) as the IPv4 address it carries.  The tables are written out here rather
  than read from :mod:`ipaddress`'s ``is_private``/``is_global``, whose answers change between Python
  releases (3.11.7 calls Oracle Cloud's metadata address 192.0.0.192 global).
- :func:`check_resolved` resolves a host name and refuses it when *any* address it resolves to is not
  public (a name with one public and one private address would otherwise reach the private one half
  of the time), unless the operator allows private addresses (``TABLETOP_WEBHOOK_ALLOW_PRIVATE``, on
  in development mode so tests can use loopback).

A refusal tells the app which *kind* of address its host reached (:func:`refusal_text`), never the
address: naming it would turn the check into a DNS oracle, any app mapping the operator's internal
names to their addresses.  The address goes to the operator's log instead.

Checking a name at registration proves nothing at delivery: DNS may answer differently a second later
(DNS rebinding).  So the delivery client (``workers/webhook_http.py``) resolves once per attempt,
judges those addresses with :func:`address_refusal` and connects to the very address it judged, never
to the name.  Resolution is injected (``resolve=``) so tests can make any name resolve anywhere.

Pure but for :func:`resolve_host`, which asks the system resolver.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.digits import digits
from service.domain.errors import invalid

log = logging.getLogger(__name__)
#: The longest URL an endpoint may have (characters).
MAX_URL_LENGTH = 2000
#: The port a scheme means when the URL names none.
DEFAULT_PORTS = {"https": 443, "http": 80}

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: Resolves ``(host, port)`` to the addresses to try, in order (``socket.gaierror`` when it cannot).
Resolver = Callable[[str, int], list[str]]

#: Cloud metadata services (instance credentials live there): refused by name of their own, and
#: before the wider class they sit in (most are link-local; Azure's is a public address).
METADATA = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean... instance metadata
        "169.254.169.253",  # AWS DNS resolver
        "169.254.169.123",  # AWS time sync
        "169.254.170.2",  # AWS ECS task metadata and credentials
        "169.254.170.23",  # AWS EKS pod identity agent
        "100.100.100.200",  # Alibaba Cloud metadata
        "192.0.0.192",  # Oracle Cloud metadata
        "168.63.129.16",  # Azure wire server (a public address, reachable only from inside Azure)
        "fd00:ec2::254",  # AWS metadata over IPv6
        "fd00:ec2::253",  # AWS DNS over IPv6
        "fd00:ec2::123",  # AWS time sync over IPv6
        "fd00:ec2::23",  # AWS EKS pod identity agent over IPv6
    )
)


def _table(*rows: tuple[str, str]) -> tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...]:
    return tuple((ipaddress.ip_network(network), kind) for network, kind in rows)


#: The IPv4 special-purpose ranges (IANA's registry), most specific first where they nest.
_IPV4 = _table(
    ("0.0.0.0/8", "unspecified"),  # "this network": connecting to 0.x reaches this host on Linux
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "shared address space"),  # carrier-grade NAT: another customer's network
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "reserved"),  # IETF protocol assignments
    ("192.0.2.0/24", "reserved"),  # documentation
    ("192.88.99.0/24", "reserved"),  # the retired 6to4 relay anycast
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "reserved"),  # benchmarking
    ("198.51.100.0/24", "reserved"),  # documentation
    ("203.0.113.0/24", "reserved"),  # documentation
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),  # future use, and the broadcast address
)

#: The IPv6 ranges judged by class; the ranges that embed an IPv4 address are handled apart.
_IPV6 = _table(
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "reserved"),  # the deprecated IPv4-compatible addresses
    ("64:ff9b:1::/48", "private"),  # NAT64 for local use (RFC 8215)
    ("100::/64", "reserved"),  # discard only
    ("2001::/23", "reserved"),  # IETF protocol assignments, Teredo among them
    ("2001:db8::/32", "reserved"),  # documentation
    ("3fff::/20", "reserved"),  # documentation (RFC 9637)
    ("5f00::/16", "reserved"),  # segment routing identifiers
    ("fc00::/7", "private"),  # unique local addresses
    ("fe80::/10", "link-local"),
    ("fec0::/10", "private"),  # the retired site-local addresses
    ("ff00::/8", "multicast"),
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
#: Only this block of IPv6 is handed out as global unicast; anything outside it is not a receiver.
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")


def address_refusal(ip: IPAddress) -> str | None:
    """``None`` when webhooks may connect to ``ip`` (a public address), else the class that forbids
    it: ``"loopback"``, ``"private"``, ``"link-local"``, ``"metadata"``, ``"shared address space"``,
    ``"multicast"``, ``"reserved"`` or ``"unspecified"``.

    An IPv6 address that carries an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, NAT64
    ``64:ff9b::a.b.c.d``, 6to4 ``2002:aabb:ccdd::``) is judged as the IPv4 address it reaches.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return address_refusal(embedded)
    if ip in METADATA:
        return "metadata"
    for network, kind in _IPV4 if isinstance(ip, ipaddress.IPv4Address) else _IPV6:
        if ip in network:
            return kind
    if isinstance(ip, ipaddress.IPv6Address) and ip not in _GLOBAL_UNICAST:
        return "reserved"
    if not ip.is_global:  # whatever a later registry adds that the tables above do not know yet
        return "reserved"
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address forwards to, for the forms a router or this host would
    translate: IPv4-mapped, well-known-prefix NAT64, 6to4."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _SIX_TO_FOUR:
        return ip.sixtofour
    return None


# -- URLs ---------------------------------------------------------------------------------------

#: A path and query may hold only RFC 3986's characters (others must be percent-encoded).
_PATH = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*")
#: One label of a host name: letters, digits, hyphens (not first or last) and, as real DNS has them,
#: underscores.
_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")
#: The last label of a name the C resolver would read as an IPv4 address (``127.1``, ``0x7f.1``,
#: ``2130706433``): no top-level domain is numeric, so such names are refused rather than resolved.
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")


@dataclass(frozen=True)
class Target:
    """A checked URL taken apart for the client that calls it: ``host`` without brackets (the name
    for DNS, TLS's SNI and ``Host``), ``port`` always set, ``path`` with the query."""

    scheme: str
    host: str
    port: int
    path: str


def check_url(url: str, *, allow_http: bool) -> str:
    """The normalised form of a webhook URL (lower-case scheme and host, no default port, a path),
    or :class:`~service.domain.errors.Invalid` on ``url`` naming what is wrong with it."""
    return _parse(url, allow_http=allow_http)[0]


def split_url(url: str, *, allow_http: bool) -> Target:
    """The parts of a webhook URL (checked as :func:`check_url` checks it) for connecting to it."""
    return _parse(url, allow_http=allow_http)[1]


def _parse(url: str, *, allow_http: bool) -> tuple[str, Target]:
    if not isinstance(url, str) or not url:
        raise invalid("url", "a webhook URL is required")
    if len(url) > MAX_URL_LENGTH:
        raise invalid("url", f"is longer than {MAX_URL_LENGTH} characters")
    if any(ch <= " " or ch == "\x7f" for ch in url):
        raise invalid("url", "must not contain spaces or control characters")
    if "#" in url:
        raise invalid("url", "must not have a fragment (#...)")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise invalid("url", f"is not a URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme == "http" and not allow_http:
        raise invalid("url", "must use https (this server does not call plain http URLs)")
    if scheme not in DEFAULT_PORTS:
        allowed = "https or http" if allow_http else "https"
        shown = f"scheme {scheme!r}" if scheme else "no scheme"
        raise invalid("url", f"has {shown}: webhook URLs use {allowed}")
    netloc = parts.netloc
    if not netloc:
        raise invalid("url", "has no host")
    if "@" in netloc:
        raise invalid("url", "must not carry a user name or password (user:pass@)")
    host_text, port_text = _host_and_port(netloc)
    host, shown_host = _check_host(host_text)
    port = DEFAULT_PORTS[scheme]
    if port_text is not None:
        if not digits(port_text) or len(port_text) > 5:
            raise invalid("url", f"has port {port_text!r}: a port is a number from 1 to 65535")
        port = int(port_text)
        if not 1 <= port <= 65535:
            raise invalid("url", f"has port {port}: a port is a number from 1 to 65535")
    path = parts.path or "/"
    if not path.isascii() or not parts.query.isascii():
        raise invalid("url", "must percent-encode characters outside ASCII in its path and query")
    if _PATH.fullmatch(path) is None or _PATH.fullmatch(parts.query) is None:
        raise invalid("url", "has characters its path or query must percent-encode")
    target = path + (f"?{parts.query}" if parts.query else "")
    port_part = "" if port == DEFAULT_PORTS[scheme] else f":{port}"
    normalised = f"{scheme}://{shown_host}{port_part}{target}"
    if len(normalised) > MAX_URL_LENGTH:  # an IDN host's ASCII form can be longer than its text
        raise invalid("url", f"is longer than {MAX_URL_LENGTH} characters")
    return normalised, Target(scheme, host, port, target)


def _host_and_port(netloc: str) -> tuple[str, str | None]:
    """``netloc`` split at its port (``None`` when it names none); IPv6 hosts keep their brackets."""
    if netloc.startswith("["):
        end = netloc.find("]")
        if end < 0:
            raise invalid("url", "has an unclosed [ in its host")
        rest = netloc[end + 1 :]
        if rest and not rest.startswith(":"):
            raise invalid("url", "has text after its [IPv6] host")
        return netloc[: end + 1], (rest[1:] if rest else None)
    if netloc.count(":") > 1:
        raise invalid("url", "has an IPv6 host without [brackets]")
    host, colon, port = netloc.partition(":")
    return host, (port if colon else None)


def _check_host(text: str) -> tuple[str, str]:
    """The host (for DNS and TLS) and its form in the normalised URL (bracketed for IPv6)."""
    if text.startswith("["):
        inner = text[1:-1]
        if "%" in inner:
            raise invalid("url", "must not name an IPv6 zone (%...)")
        try:
            address = ipaddress.IPv6Address(inner)
        except ValueError:
            raise invalid("url", f"has {text!r}, which is not an IPv6 address") from None
        return address.compressed, f"[{address.compressed}]"
    if not text:
        raise invalid("url", "has no host")
    try:
        return str(ipaddress.IPv4Address(text)), str(ipaddress.IPv4Address(text))
    except ValueError:
        pass
    name = text[:-1] if text.endswith(".") else text  # the root's dot: same name, and SNI wants none
    try:
        name = name.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise invalid("url", f"has host {text!r}, which is not a valid host name") from None
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise invalid("url", f"has host {text!r}, which is not a valid host name")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        raise invalid("url", f"has host {text!r}: write an IPv4 address as four decimal numbers")
    return name, name


# -- resolution -----------------------------------------------------------------------------------


def resolve_host(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to for a TCP connection to ``port``, each once, in the
    resolver's order (``socket.gaierror`` when it resolves to none)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    addresses: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in found:
        address = str(sockaddr[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def refused(addresses: list[str], *, allow_private: bool) -> tuple[str, str] | None:
    """The first of ``addresses`` webhooks may not connect to and why (``(address, class)``), or
    ``None`` when all may be connected to.  An address that is not one is refused as ``invalid``."""
    for address in addresses:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return address, "invalid"
        kind = None if allow_private else address_refusal(ip)
        if kind is not None:
            return address, kind
    return None


def refusal_text(host: str, kind: str) -> str:
    """What a refusal tells the app: its host and the kind of address it reached, never the address
    (for an address written in the URL, the app's own text, "is" rather than "resolves to")."""
    article = "an" if kind[0] in "aeiou" else "a"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return f"host {host} resolves to {article} {kind} address"
    return f"host {host} is {article} {kind} address"


def check_resolved(
    host: str, port: int, *, allow_private: bool, resolve: Resolver = resolve_host
) -> list[str]:
    """The addresses ``host`` resolves to, when every one is public (or the operator allows private
    ones); else :class:`~service.domain.errors.Invalid` on ``url`` saying which kind of address is
    refused (the address itself only in the log), or that the name does not resolve."""
    try:
        addresses = resolve(host, port)
    except (OSError, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise invalid("url", f"host {host} does not resolve ({reason})") from None
    if not addresses:
        raise invalid("url", f"host {host} does not resolve")
    refusal = refused(addresses, allow_private=allow_private)
    if refusal is not None:
        address, kind = refusal
        log.warning("webhook URL refused: host %s resolves to %s (%s)", host, address, kind)
        raise invalid("url", f"{refusal_text(host, kind)}; webhooks may only call public addresses")
    return addresses
