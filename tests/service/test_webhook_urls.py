"""The webhook URL policy (issue 26, point 5: "No server-side request forgery. Only https (and http
where the operator allows); URLs that resolve to loopback, private, link-local or metadata addresses
are refused unless the operator allows them").

Pure checks: the URL's syntax (:func:`check_url`), each address's class (:func:`address_refusal`), and
what a name resolves to (:func:`check_resolved`, with resolvers injected so any name can resolve
anywhere).  The delivery client that applies them on a real socket is tested in
tests/workers/test_webhook_http.py.
"""

from __future__ import annotations

import ipaddress
import logging
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import Invalid
from service.domain.webhooks.urls import (
    MAX_URL_LENGTH,
    Resolver,
    Target,
    address_refusal,
    check_resolved,
    check_url,
    resolve_host,
    split_url,
)

# -- check_url: syntax ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "normalised"),
    [
        ("https://hooks.example.com/tabletop", "https://hooks.example.com/tabletop"),
        ("HTTPS://Hooks.Example.COM/Path?A=1", "https://hooks.example.com/Path?A=1"),
        ("https://hooks.example.com", "https://hooks.example.com/"),
        ("https://hooks.example.com:443/x", "https://hooks.example.com/x"),
        ("https://hooks.example.com:8443/x", "https://hooks.example.com:8443/x"),
        ("https://hooks.example.com./x", "https://hooks.example.com/x"),
        ("https://93.184.216.34/x", "https://93.184.216.34/x"),
        ("https://[2606:2800:0220:0001::]/x", "https://[2606:2800:220:1::]/x"),
        ("https://[2606:2800:220:1::]:8443/x", "https://[2606:2800:220:1::]:8443/x"),
        ("https://bücher.example/x", "https://xn--bcher-kva.example/x"),
        ("https://my_service.example.com/a%20b", "https://my_service.example.com/a%20b"),
        ("https://hooks.example.com/x?", "https://hooks.example.com/x"),
    ],
)
def test_urls_are_normalised(url: str, normalised: str) -> None:
    assert check_url(url, allow_http=False) == normalised
    assert check_url(normalised, allow_http=False) == normalised  # normalising is stable


def test_http_only_where_the_operator_allows_it() -> None:
    with pytest.raises(Invalid, match="must use https"):
        check_url("http://hooks.example.com/x", allow_http=False)
    assert check_url("HTTP://hooks.example.com:80/x", allow_http=True) == "http://hooks.example.com/x"
    assert check_url("http://hooks.example.com:8080/x", allow_http=True) == "http://hooks.example.com:8080/x"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("", "required"),
        ("ftp://hooks.example.com/x", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("gopher://127.0.0.1:6379/_FLUSHALL", "scheme 'gopher'"),
        ("javascript:alert(1)", "scheme 'javascript'"),
        ("hooks.example.com/x", "no scheme"),
        ("//hooks.example.com/x", "no scheme"),
        ("https:hooks.example.com", "no host"),
        ("https:///x", "no host"),
        ("https://user:secret@hooks.example.com/x", "user name or password"),
        ("https://user@hooks.example.com/x", "user name or password"),
        ("https://hooks.example.com@127.0.0.1/x", "user name or password"),
        ("https://hooks.example.com/x#frag", "fragment"),
        ("https://hooks.example.com/x#", "fragment"),
        ("https://hooks.example.com:0/x", "port 0"),
        ("https://hooks.example.com:65536/x", "port 65536"),
        ("https://hooks.example.com:99999999999999/x", "a port is a number"),
        ("https://hooks.example.com:-1/x", "a port is a number"),
        ("https://hooks.example.com:http/x", "a port is a number"),
        ("https://hooks.example.com:/x", "a port is a number"),
        ("https://hooks.example.com:٤٤٣/x", "a port is a number"),  # Arabic-Indic digits
        ("https://hooks example.com/x", "spaces"),
        ("https://hooks.example.com/x\r\nHost: evil", "control characters"),
        ("https://hooks.example.com/\x00", "control characters"),
        ("https://hooks.example.com/é", "ASCII"),
        ("https://hooks.example.com/<script>", "percent-encode"),
        ("https://hooks.example.com/a%zz", "percent-encode"),
        ("https://::1/x", "without [brackets]"),
        ("https://[::1/x", "Invalid IPv6 URL"),
        ("https://[::1]x/x", "after its [IPv6] host"),
        ("https://[not-v6]/x", "does not appear to be an IPv4 or IPv6 address"),
        ("https://[fe80::1%25eth0]/x", "zone"),
        ("https://-bad-.example.com/x", "not a valid host name"),
        ("https://a..b/x", "not a valid host name"),
        ("https://" + "a" * 64 + ".example.com/x", "not a valid host name"),
        ("https://hooks.exa%6dple.com/x", "not a valid host name"),
        # Numeric forms the C resolver reads as 127.0.0.1: refused, not resolved.
        ("https://2130706433/x", "four decimal numbers"),
        ("https://0x7f000001/x", "four decimal numbers"),
        ("https://0x7f.0.0.1/x", "four decimal numbers"),
        ("https://127.1/x", "four decimal numbers"),
        ("https://0177.0.0.1/x", "four decimal numbers"),
        ("https://127.000.000.001/x", "four decimal numbers"),
        ("https://hooks.example.com/" + "a" * MAX_URL_LENGTH, "longer than 2000"),
    ],
)
def test_bad_urls_are_refused_saying_why(url: str, says: str) -> None:
    with pytest.raises(Invalid) as caught:
        check_url(url, allow_http=says.startswith("scheme"))
    assert caught.value.details == {"field": "url"}
    assert caught.value.message.startswith("url: ")
    assert says in caught.value.message


def test_the_longest_url_allowed_is_2000_characters() -> None:
    base = "https://hooks.example.com/"
    longest = base + "a" * (MAX_URL_LENGTH - len(base))
    assert check_url(longest, allow_http=False) == longest
    with pytest.raises(Invalid, match="longer than 2000"):
        check_url(longest + "a", allow_http=False)


def test_split_url_gives_the_client_what_it_connects_to() -> None:
    assert split_url("https://Hooks.Example.com/in?x=1", allow_http=False) == Target(
        "https", "hooks.example.com", 443, "/in?x=1"
    )
    assert split_url("http://[::1]:8080", allow_http=True) == Target("http", "::1", 8080, "/")


# -- address_refusal -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.5", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("fc00::1", "private"),
        ("fec0::1", "private"),
        ("64:ff9b:1::a00:1", "private"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("169.254.169.254", "metadata"),
        ("169.254.170.2", "metadata"),
        ("100.100.100.200", "metadata"),
        ("192.0.0.192", "metadata"),
        ("168.63.129.16", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("100.64.0.1", "shared address space"),
        ("100.127.255.255", "shared address space"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "unspecified"),
        ("::", "unspecified"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("192.0.2.1", "reserved"),
        ("198.18.0.1", "reserved"),
        ("198.51.100.7", "reserved"),
        ("203.0.113.9", "reserved"),
        ("2001:db8::1", "reserved"),
        ("2001::1", "reserved"),  # Teredo
        ("100::1", "reserved"),
        ("::7f00:1", "reserved"),  # IPv4-compatible (deprecated)
        ("4000::1", "reserved"),  # outside global unicast
        # IPv4 carried in IPv6 is judged as the IPv4 address it reaches.
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.1.2.3", "private"),
        ("::ffff:169.254.169.254", "metadata"),
        ("64:ff9b::7f00:1", "loopback"),  # NAT64 of 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "metadata"),  # NAT64 of 169.254.169.254
        ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
        ("2002:c0a8:101::1", "private"),  # 6to4 of 192.168.1.1
    ],
)
def test_non_public_addresses_are_named_by_class(address: str, kind: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize(
    "address",
    ["93.184.216.34", "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.32.0.1",
     "2606:2800:220:1:248:1893:25c8:1946", "2001:4860:4860::8888",
     "::ffff:93.184.216.34", "64:ff9b::808:808", "2002:5db8:d822::1"],
)  # fmt: skip
def test_public_addresses_pass(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16"]),
    st.integers(min_value=0, max_value=2**24 - 1),
)
def test_every_address_of_a_private_block_is_refused_also_when_mapped(block: str, offset: int) -> None:
    network = ipaddress.IPv4Network(block)
    ip = network[offset % network.num_addresses]
    kind = address_refusal(ip)
    assert kind is not None
    mapped = ipaddress.IPv6Address(f"::ffff:{ip}")
    nat64 = ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) + int(ip))
    assert address_refusal(mapped) == kind
    assert address_refusal(nat64) == kind


# -- check_resolved -------------------------------------------------------------------------------


def resolver(*addresses: str) -> tuple[list[tuple[str, int]], Resolver]:
    """A resolver answering ``addresses`` for any name, and the list of what it was asked."""
    asked: list[tuple[str, int]] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return list(addresses)

    return asked, resolve


def test_a_public_name_resolves_to_its_addresses() -> None:
    asked, resolve = resolver("93.184.216.34", "2606:2800:220:1::1")
    got = check_resolved("hooks.example.com", 443, allow_private=False, resolve=resolve)
    assert got == ["93.184.216.34", "2606:2800:220:1::1"]
    assert asked == [("hooks.example.com", 443)]


def test_a_name_resolving_to_a_private_address_is_refused_by_kind_never_naming_the_address(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 42: the refusal says which kind of address the name reached, never the address (else any
    app could map the operator's internal names); the operator's log has it."""
    _, resolve = resolver("10.0.0.5")
    with (
        caplog.at_level(logging.WARNING, logger="service.domain.webhooks.urls"),
        pytest.raises(Invalid) as caught,
    ):
        check_resolved("hooks.example.com", 443, allow_private=False, resolve=resolve)
    assert caught.value.message == (
        "url: host hooks.example.com resolves to a private address; webhooks may only call public addresses"
    )
    assert caught.value.details == {"field": "url"}
    assert "hooks.example.com resolves to 10.0.0.5 (private)" in caplog.text


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "a loopback"),
        ("::ffff:127.0.0.1", "a loopback"),
        ("10.20.30.40", "a private"),
        ("fd12:3456::1", "a private"),
        ("169.254.169.254", "a metadata"),
        ("169.254.10.1", "a link-local"),
        ("100.64.0.7", "a shared address space"),
        ("0.0.0.0", "an unspecified"),
        ("not-an-address", "an invalid"),
    ],
)
def test_no_refusal_names_a_resolved_address(address: str, kind: str) -> None:
    _, resolve = resolver("93.184.216.34", address)
    with pytest.raises(Invalid) as caught:
        check_resolved("internal.example.com", 443, allow_private=False, resolve=resolve)
    message = caught.value.message
    assert message == f"url: host internal.example.com resolves to {kind} address; " + (
        "webhooks may only call public addresses"
    )
    assert address not in message and "93.184.216.34" not in message


def test_one_private_address_among_public_ones_is_enough_to_refuse() -> None:
    """A name with a public and a private address would reach the private one part of the time."""
    _, resolve = resolver("93.184.216.34", "169.254.169.254")
    with pytest.raises(Invalid, match=r"resolves to a metadata address"):
        check_resolved("hooks.example.com", 443, allow_private=False, resolve=resolve)
    _, resolve = resolver("93.184.216.34", "::ffff:127.0.0.1")
    with pytest.raises(Invalid, match=r"resolves to a loopback address"):
        check_resolved("hooks.example.com", 443, allow_private=False, resolve=resolve)


def test_the_operator_may_allow_private_addresses() -> None:
    _, resolve = resolver("127.0.0.1", "10.0.0.5")
    got = check_resolved("localhost", 8080, allow_private=True, resolve=resolve)
    assert got == ["127.0.0.1", "10.0.0.5"]


def test_a_name_that_does_not_resolve_is_refused() -> None:
    def fails(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(
        Invalid, match=r"host nowhere\.invalid does not resolve \(Name or service not known\)"
    ):
        check_resolved("nowhere.invalid", 443, allow_private=False, resolve=fails)
    _, empty = resolver()
    with pytest.raises(Invalid, match="does not resolve"):
        check_resolved("nowhere.invalid", 443, allow_private=False, resolve=empty)


def test_resolve_host_asks_the_system_resolver() -> None:
    """The real resolver, on names that need no network: address literals and localhost."""
    assert resolve_host("127.0.0.1", 80) == ["127.0.0.1"]
    assert resolve_host("::ffff:127.0.0.1", 80) == ["::ffff:127.0.0.1"]
    local = resolve_host("localhost", 80)
    assert local and set(local) <= {"127.0.0.1", "::1"} and len(local) == len(set(local))
    with pytest.raises(Invalid, match=r"host 127\.0\.0\.1 is a loopback address"):
        check_resolved("127.0.0.1", 80, allow_private=False)
