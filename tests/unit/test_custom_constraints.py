"""Named custom constraints: the built-ins, the registry, and names Hearth cannot check yet."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.template import custom_constraints as cc
from hearth.template.constraints import CustomConstraint


def message(name: str, value: Any, description: str | None = None) -> str | None:
    """The failure message for ``value`` under the named constraint (None when it passes)."""
    try:
        CustomConstraint(name, description).validate(value)
    except StackValidationFailed as exc:
        return str(exc)
    return None


# --- addresses -------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1.2.3.4", "::1", "2001:db8::1", "0.0.0.0"])
def test_ip_addr_accepts(value: str) -> None:
    assert message("ip_addr", value) is None


@pytest.mark.parametrize(
    "value", ["1.2.3", "01.2.3.4", "abc", "1.2.3.4 ", "1.2.3.256", "fe80::1%eth0", "", 5]
)
def test_ip_addr_refuses(value: Any) -> None:
    assert message("ip_addr", value) == f"Error validating value '{value}': Invalid IP address"


@pytest.mark.parametrize(
    "value", ["00:11:22:33:44:55", "00-11-22-33-44-55", "001122334455", "0011.2233.4455"]
)
def test_mac_addr_accepts(value: str) -> None:
    assert message("mac_addr", value) is None


def test_mac_addr_refuses() -> None:
    assert message("mac_addr", "zz") == "Error validating value 'zz': Invalid MAC address."
    assert message("mac_addr", 5) == "Error validating value '5': Invalid MAC address."


@pytest.mark.parametrize("value", ["10.0.0.0/24", "10.0.0.1/24", "::/0", "2001:db8::/32"])
def test_net_cidr_accepts(value: str) -> None:
    assert message("net_cidr", value) is None


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("10.0.0.0", "'10.0.0.0' is not a valid IP subnet"),
        ("10/8", "'10/8' is not a valid IP subnet"),
        ("10.0.0.0/024", "'10.0.0.0/024' is not a valid IP subnet"),
        ("abc", "Invalid net cidr invalid IPNetwork abc "),
        ("10.0.0.0/33", "Invalid net cidr invalid IPNetwork 10.0.0.0/33 "),
    ],
)
def test_net_cidr_refuses(value: str, reason: str) -> None:
    assert message("net_cidr", value) == f"Error validating value '{value}': {reason}"


def test_ip_or_cidr() -> None:
    assert message("ip_or_cidr", "10.0.0.0/24") is None
    assert message("ip_or_cidr", "1.2.3.4") is None
    assert message("ip_or_cidr", "abc") == (
        "Error validating value 'abc': 'abc' is not a valid IP address"
    )
    assert message("ip_or_cidr", "a/b") == (
        "Error validating value 'a/b': 'a/b' is not a valid IP subnet"
    )
    assert message("ip_or_cidr", "") == "Error validating value '': '' is not a valid IP address"
    assert message("ip_or_cidr", 5) == "Error validating value '5': 5 is not a valid IP or CIDR"


def test_leading_zeros_get_a_recommendation() -> None:
    assert cc.ip_address_problem("01.2.3.4") == (
        "'01.2.3.4' is not an accepted IP address, '1.2.3.4' is recommended"
    )


# --- DNS -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["a.b.c", "a.b.c.", "", "x" * 63, "my-host.example.org"])
def test_dns_name_accepts(value: str) -> None:
    assert message("dns_name", value) is None


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("-a.b", "Name '-a' must not start or end with a hyphen."),
        ("a..b", "Encountered an empty component."),
        (
            "A.b",
            "Name 'A' must be 1-63 characters long, each of which can only be alphanumeric "
            "or a hyphen.",
        ),
        ("a.123.", "TLD '123' must not be all numeric."),
        ("x" * 256, f"'{'x' * 256}' exceeds the 255 character FQDN limit"),
    ],
)
def test_dns_name_refuses(value: str, reason: str) -> None:
    assert message("dns_name", value) == (
        f"Error validating value '{value}': '{value}' not in valid format. Reason: {reason}"
    )


def test_dns_domain_must_be_fully_qualified() -> None:
    assert message("dns_domain", "a.b.") is None
    assert message("dns_domain", "") is None
    assert message("dns_domain", "a.b") == "Error validating value 'a.b': 'a.b' must end with '.'."
    assert message("dns_domain", "a..b.") == (
        "Error validating value 'a..b.': 'a..b.' not in valid format. "
        "Reason: Encountered an empty component."
    )


def test_rel_dns_name_must_be_relative_and_leave_room_for_a_domain() -> None:
    assert message("rel_dns_name", "a.b") is None
    assert message("rel_dns_name", "") is None
    assert message("rel_dns_name", "a.b.") == (
        "Error validating value 'a.b.': 'a.b.' is a FQDN. It should be a relative domain name."
    )
    long_name = "x" * 253
    assert message("rel_dns_name", long_name) == (
        f"Error validating value '{long_name}': '{long_name}' contains '253' characters. "
        "Adding a domain name will cause it to exceed the maximum length of a FQDN of '255'."
    )


def test_dns_name_given_a_number_fails_without_crashing() -> None:
    assert message("dns_name", 5) is not None


# --- time ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["2020-01-01T00:00:00Z", "2020-01-01", "20200101"])
def test_iso_8601_accepts(value: str) -> None:
    assert message("iso_8601", value) is None


@pytest.mark.parametrize("value", ["abc", "2020-13-01", "", 5])
def test_iso_8601_refuses_without_detail(value: Any) -> None:
    assert message("iso_8601", value) == f"Error validating value '{value}'"


def test_expiration() -> None:
    assert message("expiration", "2099-01-01T00:00:00Z") is None
    assert message("expiration", " 2099-01-01T00:00:00 ") is None
    assert message("expiration", "") is None
    assert message("expiration", "2000-01-01T00:00:00Z") == (
        "Error validating value '2000-01-01T00:00:00Z': Expiration 2000-01-01T00:00:00Z is "
        "invalid: Expiration time is out of date."
    )
    assert message("expiration", "abc") == (
        "Error validating value 'abc': Expiration abc is invalid: Unable to parse date string 'abc'"
    )


def test_cron_expression() -> None:
    assert message("cron_expression", "* * * * *") is None
    assert message("cron_expression", "") is None
    assert message("cron_expression", "bad") == (
        "Error validating value 'bad': Invalid CRON expression: Exactly 5, 6 or 7 columns has "
        "to be specified for iterator expression."
    )
    assert message("cron_expression", "61 * * * *") == (
        "Error validating value '61 * * * *': Invalid CRON expression: [61 * * * *] is not "
        "acceptable, out of range"
    )


def test_timezone() -> None:
    assert message("timezone", "Europe/Paris") is None
    assert message("timezone", "UTC") is None
    assert message("timezone", "") is None
    assert message("timezone", "Mars/Base") == (
        "Error validating value 'Mars/Base': Invalid timezone: "
        "'No time zone found with key Mars/Base'"
    )


# --- other -----------------------------------------------------------------------------


def test_json_string() -> None:
    assert message("json_string", '{"a": 1}') is None
    assert message("json_string", "") is None
    assert message("json_string", "{bad") == (
        "Error validating value '{bad': JSON string {bad is invalid: Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1)"
    )


def test_test_constr_accepts_numbers() -> None:
    assert message("test_constr", 0) is None
    assert message("test_constr", "0") is None
    assert message("test_constr", "soon") is not None


def test_list_values_are_checked_whole() -> None:
    # A comma_delimited_list parameter hands the whole list to the checker, as Heat does.
    assert message("ip_addr", ["1.2.3.4"]) == (
        "Error validating value '['1.2.3.4']': Invalid IP address"
    )


def test_description_replaces_a_builtin_failure_message() -> None:
    assert message("ip_addr", "x", "bad ip") == "bad ip"


# --- unknown and unavailable names -----------------------------------------------------


def test_unknown_name_is_a_validation_error() -> None:
    assert message("nope", "x") == '"x" does not validate nope (constraint not found)'
    assert message("nope", "x", "custom desc") == "custom desc"


# Service-backed names Hearth has no checker for (the OpenStack types register theirs).
@pytest.mark.parametrize("name", ["barbican.secret", "manila.share_type", "octavia.flavor"])
def test_service_backed_names_say_they_are_not_available(name: str) -> None:
    expected = f'"m1" does not validate {name} (constraint not available in Hearth yet)'
    assert message(name, "m1") == expected
    # The template's description would hide the real reason, so it does not apply here.
    assert message(name, "m1", f"Must be a known {name}") == expected


def test_builtin_names() -> None:
    assert set(cc.global_registry().names()) >= {
        "cron_expression",
        "dns_domain",
        "dns_name",
        "rel_dns_name",
        "expiration",
        "ip_addr",
        "iso_8601",
        "mac_addr",
        "net_cidr",
        "ip_or_cidr",
        "timezone",
        "json_string",
        "test_constr",
    }
    assert not cc.SERVICE_CONSTRAINTS & set(cc.BUILTIN_CHECKERS)


# --- registry --------------------------------------------------------------------------


def test_registering_a_checker_makes_the_name_usable() -> None:
    def even(value: Any, context: Any) -> str | None:
        return None if int(value) % 2 == 0 else "odd"

    cc.register_constraint("test.even", even)
    try:
        assert message("test.even", "4") is None
        assert message("test.even", "3") == "Error validating value '3': odd"
        assert cc.get_constraint("test.even") is even
    finally:
        cc.global_registry().unregister("test.even")
    assert message("test.even", "4") == '"4" does not validate test.even (constraint not found)'


def test_a_registered_checker_can_take_over_a_service_name() -> None:
    registry = cc.global_registry().child()
    registry.register("nova.flavor", lambda value, context: None if value == "m1" else "")
    constraint = CustomConstraint("nova.flavor", registry=registry)
    constraint.validate("m1")
    with pytest.raises(StackValidationFailed, match="^Error validating value 'm2'$"):
        constraint.validate("m2")


def test_child_registry_sees_parent_and_keeps_its_own() -> None:
    parent = cc.ConstraintRegistry()
    parent.register("a", lambda v, c: None)
    child = parent.child()
    child.register("b", lambda v, c: None)
    assert "a" in child and "b" in child
    assert "b" not in parent
    assert child.names() == ["a", "b"]
    assert list(child) == ["a", "b"]


def test_checkers_receive_the_context() -> None:
    seen: list[Any] = []
    registry = cc.ConstraintRegistry()
    registry.register("spy", lambda value, context: seen.append(context))
    CustomConstraint("spy", registry=registry).validate("v", context="ctx")
    assert seen == ["ctx"]
