"""Where a webhook may be sent (contract 12.3): the URL rules and the address check that keep
deliveries from reaching the service's own network (SSRF).

The host is resolved here and every address it resolves to is checked; the delivery then
connects to the address that was checked (sender.py), never resolving the name again, so a
name that answers a public address to the check and a private one to the connection (DNS
rebinding) reaches nothing. Checked at creation and again at every delivery.

Refused: loopback (`localhost` included), private, shared (100.64.0.0/10), link-local
(169.254.0.0/16, where cloud metadata answers), multicast, unspecified and reserved addresses,
and any other address that is not globally routable; an IPv6 address that embeds an IPv4 one
is judged by it. Loopback is the service's own machine, not the partner's: sandbox keys may use
it only where the operator allows it (WEBHOOK_ALLOW_LOOPBACK, a local demo). Production keys
`https` only. Ports: 80, 443 and 1024-65535, written as a plain number.

A refusal of the host says one thing whatever the reason: that it is not a public address. It
never says what a name resolved to, nor whether it resolved at all, so that a partner cannot map
the names the service's DNS knows.

`Resolver` is the seam a test replaces to make a name resolve where it wants."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2000
SCHEMES = {"sandbox": ("https", "http"), "production": ("https",)}
DEFAULT_PORTS = {"http": 80, "https": 443}

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# The well-known NAT64 prefix (RFC 6052): the last 32 bits are the IPv4 address reached.
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Ports below this are the machines' own services; only HTTP's two are sent to.
FIRST_FREE_PORT = 1024
# (host, port) -> every address the name resolves to, as text; none (or OSError) when it does
# not resolve.
Resolver = Callable[[str, int], list[str]]


class RefusedDestination(ValueError):
    """The URL breaks a rule; the message says which, in words a partner can act on."""


class ResolutionTimedOut(Exception):
    """The host did not resolve in the time left (a slow DNS server is not a refusal)."""


def not_public(host: str) -> RefusedDestination:
    """The one refusal of a host, whatever its addresses were or whether it had any."""
    return RefusedDestination(f"the host {host!r} is not a public address, nor a name that "
                              "resolves only to public addresses")


def system_resolver(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(info[4][0] for info in infos))


def within(resolver: Resolver, seconds: float) -> Resolver:
    """`resolver`, given at most `seconds` (the system's resolver cannot be interrupted: it goes
    on in a thread of its own, bounded by the resolver's own timeouts, and its answer is
    dropped)."""
    def resolve(host: str, port: int) -> list[str]:
        answer: list = []
        done = threading.Event()

        def run() -> None:
            try:
                answer.append(resolver(host, port))
            except (OSError, UnicodeError, RefusedDestination):
                answer.append([])
            finally:
                done.set()
        threading.Thread(target=run, name="webhook-resolve", daemon=True).start()
        if not done.wait(max(0.0, seconds)):
            raise ResolutionTimedOut(host)
        return answer[0] if answer else []
    return resolve


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
        parts.port  # noqa: B018 - raises ValueError for a port that is no number
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
    return scheme, host, _port(parts.netloc, scheme), target


def _port(netloc: str, scheme: str) -> int:
    """The URL's port: the scheme's when none is written; else a plain number (no sign, no
    leading zero: `:00443` is not taken for 443), 80, 443 or 1024-65535 (`:0` is no port, and
    below 1024 listen the machines' own services: SSH, SMTP, ...)."""
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        written = hostport.partition("]")[2]
    else:
        _, colon, after = hostport.rpartition(":")
        written = colon + after if colon else ""
    if not written:
        return DEFAULT_PORTS[scheme]
    digits = written[1:]
    if digits.isascii() and digits.isdigit() and not digits.startswith("0"):
        port = int(digits)
        if port in DEFAULT_PORTS.values() or FIRST_FREE_PORT <= port <= 65535:
            return port
    raise RefusedDestination("the port must be 80, 443 or 1024-65535, written as a plain number "
                             f"(not {digits!r})")


def is_public(address: IpAddress, environment: str, allow_loopback: bool = False) -> bool:
    """Whether a delivery may go to this address: a global one, or loopback for a sandbox key
    where the operator allows it."""
    address = _embedded_ipv4(address) or address
    if address.is_loopback:
        return allow_loopback and environment == "sandbox"
    return address.is_global and not (address.is_unspecified or address.is_link_local
                                      or address.is_multicast or address.is_private
                                      or address.is_reserved)


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


def resolve_destination(url: str, environment: str, resolver: Resolver = system_resolver, *,
                        allow_loopback: bool = False) -> Destination:
    """The URL's checked destination; RefusedDestination when any rule refuses it
    (ResolutionTimedOut from a resolver bounded by `within`)."""
    scheme, host, port, target = check_url_form(url, environment)
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        if host.lower() == "localhost" or host.lower().endswith(".localhost"):
            addresses = [ipaddress.ip_address("127.0.0.1")]
        else:
            addresses = _addresses(resolver, host, port)
    # Every address: a name answering one public and one private address is refused whichever
    # the connection would have taken.
    if not addresses or not all(is_public(a, environment, allow_loopback) for a in addresses):
        raise not_public(host)
    return Destination(url=url, scheme=scheme, host=host, port=port, target=target,
                       address=str(addresses[0]))


def _addresses(resolver: Resolver, host: str, port: int) -> list[IpAddress]:
    """What the name resolves to; none when it does not, or to something that is no address."""
    try:
        answers = resolver(host, port)
    except (OSError, UnicodeError, RefusedDestination):
        return []
    try:
        return [ipaddress.ip_address(text.split("%", 1)[0]) for text in answers]
    except ValueError:
        return []
