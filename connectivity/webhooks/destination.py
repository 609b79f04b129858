"""Where a webhook may be sent (contract 12.3): the URL rules and the address check that keep
deliveries from reaching the service's own network (SSRF).

The host is resolved here and every address it resolves to is checked; the delivery then
connects to the address that was checked (sender.py), never resolving the name again, so a
name that answers a public address to the check and a private one to the connection (DNS
rebinding) reaches nothing. Checked at creation and again at every delivery.

Refused: loopback (`localhost` included), private, shared (100.64.0.0/10), link-local
(169.254.0.0/16, where cloud metadata answers), multicast, unspecified and reserved addresses,
and any other address that is not globally routable; an IPv6 address that embeds an IPv4 one
is judged by it. Sandbox keys may use `http` and loopback addresses, to test on the partner's
own machine; production keys `https` only.

`Resolver` is the seam a test replaces to make a name resolve where it wants."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2000
SCHEMES = {"sandbox": ("https", "http"), "production": ("https",)}
DEFAULT_PORTS = {"http": 80, "https": 443}

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# The well-known NAT64 prefix (RFC 6052): the last 32 bits are the IPv4 address reached.
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# (host, port) -> every address the name resolves to, as text.
Resolver = Callable[[str, int], list[str]]


class RefusedDestination(ValueError):
    """The URL breaks a rule; the message says which, in words a partner can act on."""


def system_resolver(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise RefusedDestination(f"the host {host!r} does not resolve ({exc})") from None
    return list(dict.fromkeys(info[4][0] for info in infos))


@dataclass(frozen=True)
class Destination:
    """A URL that passed the rules, and the address to connect to."""
    url: str
    scheme: str
    host: str       # as in the URL, without brackets
    port: int
    target: str     # path and query, as sent
    address: str    # the checked address the connection goes to

    @property
    def host_header(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return shown if self.port == DEFAULT_PORTS[self.scheme] else f"{shown}:{self.port}"

    @property
    def connect_url(self) -> str:
        """The URL with the checked address in place of the host."""
        address = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{address}:{self.port}{self.target}"


def check_url_form(url: str, environment: str) -> tuple[str, str, int, str]:
    """The rules that need no resolution: (scheme, host, port, target)."""
    if len(url) > MAX_URL_LENGTH:
        raise RefusedDestination(f"at most {MAX_URL_LENGTH} characters")
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise RefusedDestination("a URL holds no spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise RefusedDestination(f"not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    allowed = SCHEMES[environment]
    if scheme not in allowed:
        raise RefusedDestination(
            "an absolute https URL is required" if environment == "production"
            else "an absolute http or https URL is required")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise RefusedDestination("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise RefusedDestination("credentials in the URL are not accepted")
    if parts.fragment:
        raise RefusedDestination("a URL with a fragment (#...) is not accepted")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, host, port or DEFAULT_PORTS[scheme], target


def refusal_of(address: IpAddress, environment: str) -> str | None:
    """Why a delivery may not go to this address, or None when it may."""
    address = _embedded_ipv4(address) or address
    if address.is_loopback:
        return None if environment == "sandbox" else "a loopback address"
    for label, flag in (("an unspecified", address.is_unspecified),
                        ("a link-local", address.is_link_local),
                        ("a multicast", address.is_multicast),
                        ("a private", address.is_private),
                        ("a reserved", address.is_reserved)):
        if flag:
            return f"{label} address"
    if not address.is_global:
        return "an address that is not globally routable"
    return None


def _embedded_ipv4(address: IpAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, NAT64, Teredo's client), which is
    where a connection to it ends up."""
    if address.version == 4:
        return None
    if address.ipv4_mapped is not None or address.sixtofour is not None:
        return address.ipv4_mapped or address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def resolve_destination(url: str, environment: str,
                        resolver: Resolver = system_resolver) -> Destination:
    """The URL's checked destination; RefusedDestination when any rule refuses it."""
    scheme, host, port, target = check_url_form(url, environment)
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        if host.lower() == "localhost" or host.lower().endswith(".localhost"):
            addresses = [ipaddress.ip_address("127.0.0.1")]
        else:
            addresses = []
            for text in resolver(host, port):
                try:
                    addresses.append(ipaddress.ip_address(text.split("%", 1)[0]))
                except ValueError:
                    raise RefusedDestination(f"the host {host!r} resolves to {text!r}, "
                                             "which is not an address") from None
    if not addresses:
        raise RefusedDestination(f"the host {host!r} does not resolve")
    # Every address: a name answering one public and one private address is refused whichever
    # the connection would have taken.
    for address in addresses:
        why = refusal_of(address, environment)
        if why is not None:
            raise RefusedDestination(f"the host {host!r} is or resolves to {why} ({address}), "
                                     "where webhooks are never sent")
    return Destination(url=url, scheme=scheme, host=host, port=port, target=target,
                       address=str(addresses[0]))
