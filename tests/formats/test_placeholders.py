"""Software placeholders as codes: which strings are codes and which are prose."""
from __future__ import annotations

import pytest

from engine.formats.placeholders import protect_software, protect_target


@pytest.mark.parametrize("text,codes", [
    ("Delete %1$s and %2$d files", ["%1$s", "%2$d"]),
    ("Hello, %@! You have %ld items (%1$@, %lld, %zu)", ["%@", "%ld", "%1$@", "%lld", "%zu"]),
    ("%#@files@ selected", ["%#@files@"]),
    ("Welcome, {{name}} ({{- raw}}, {{count, number}})", ["{{name}}", "{{- raw}}", "{{count, number}}"]),
    ("See $t(common.title) first", ["$t(common.title)"]),
    ("Hi {0}, {name} and {1:N2}", ["{0}", "{name}", "{1:N2}"]),
    ("Qt %1 of %L2, line%n", ["%1", "%L2", "%n"]),
    ("Rails %{count} and %<total>.2f", ["%{count}", "%<total>.2f"]),
    ("Saved $COUNT$ tabs for $5", ["$COUNT$"]),
])
def test_platform_placeholders_are_codes(text, codes):
    assert [t.original for t in protect_software(text).tags] == codes


@pytest.mark.parametrize("text", ["We give 50% off to 100% of users", "A literal %% sign", "Price: 5 % d"])
def test_percent_signs_in_prose_are_not_codes(text):
    assert protect_software(text).tags == ()


def test_html_tags_are_paired_codes_and_can_be_left_as_text():
    tt = protect_software("Click <b>here</b> or <br/>")
    assert [(t.kind, t.original) for t in tt.tags] == [("open", "<b>"), ("close", "</b>"), ("ph", "<br/>")]
    assert protect_software("Click <b>here</b>", markup=False).tags == ()


def test_target_codes_take_the_numbers_of_the_same_codes_in_the_source():
    src = protect_software("%1$s of %2$s")
    tgt = protect_target(src, "%2$s von %1$s {extra}")
    by_original = {t.original: t.n for t in tgt.tags}
    assert by_original == {"%1$s": 1, "%2$s": 2, "{extra}": 3}
    assert tgt.original() == "%2$s von %1$s {extra}"
