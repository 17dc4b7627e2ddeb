"""XLIFF 2.0 validity (issue 36 item 6): a file that breaks the core structure or
its constraints is refused at import, naming file and line; every valid file of
the OASIS conformance suite imports."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from datafiles import SHARED_DATA
from engine.errors import FormatError
from engine.formats.xliff20 import FORMAT

FIXTURES = Path(__file__).parent / "fixtures"
SUITE = SHARED_DATA / "format-samples" / "xliff2-oasis-testsuite"
# measured (benchmarks/RESULTS.md, "Issue 36 item 6"): a regression fails here
REFUSED_AT_LEAST = {"core/invalid": 121, "modules/invalid": 9}


@pytest.mark.parametrize("name, message", [
    ("unit_without_id", "<unit> has no 'id' attribute"),
    ("duplicate_unit_id", "unit id 'menu.save' is not unique"),
    ("duplicate_segment_id", "segment id 's1' is not unique"),
    ("sc_without_ec", "<sc id='1'> has no <ec>"),
    ("ec_without_sc", "<ec startRef='7'> has no <sc> before it"),
    ("target_without_trglang", "a <target> needs trgLang"),
])
def test_invalid_fixture_is_refused_naming_file_and_line(name, message):
    path = FIXTURES / "xliff20_invalid" / f"{name}.xlf"
    with pytest.raises(FormatError) as e:
        FORMAT.read(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path))
    assert re.search(r", line \d+: not valid XLIFF 2.0: ", text) and message in text


def test_codes_paired_across_segments_and_a_partial_target_are_valid():
    doc = FORMAT.read(FIXTURES / "xliff20_valid_codes.xlf")
    assert [s.key for s in doc.segments] == ["u1/s1", "u1/s2"]


def _files(d: str) -> list[Path]:
    return sorted((SUITE / d).glob("*.xlf"))


def test_every_valid_suite_file_imports(shared_data):
    files = _files("core/valid") + _files("modules/valid")
    if not files:
        pytest.skip(f"OASIS XLIFF 2.0 suite not found at {SUITE}")
    for path in files:
        FORMAT.read(path)  # raises on a refusal


@pytest.mark.parametrize("folder", sorted(REFUSED_AT_LEAST))
def test_invalid_suite_files_are_refused(shared_data, folder):
    files = _files(folder)
    if not files:
        pytest.skip(f"OASIS XLIFF 2.0 suite not found at {SUITE / folder}")
    refused = 0
    for path in files:
        try:
            FORMAT.read(path)
        except FormatError as e:
            assert path.name in str(e) and "\n" not in str(e)
            refused += 1
    assert refused >= REFUSED_AT_LEAST[folder], f"{refused} of {len(files)} refused"
