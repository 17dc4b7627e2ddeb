"""An untouched file comes back byte for byte; an edited segment changes only its unit.

The writer contract (issue 22 item 8, issue 36 item 3): a key absent from
``translations`` is a segment the translator never touched.  An export with
nothing edited is the original file, byte for byte (attribute order, quote
style, ``<a></a>``, ``&quot;``, CDATA, CRLF, encoding and BOM included).  An
export with one segment edited differs from the original only inside that
segment's unit: in its ``<target>`` and its status attributes
(tests/formats/xliffbytes.py says exactly what may change).

Every real XLIFF 1.2 (``.xlf``/``.xliff``, SDLXLIFF, mqxliff, txlf) and
XLIFF 2.0 sample (the OASIS suite's valid and in-out files included) under
``../shared/data/format-samples`` is exported with no translations; with
every segment passed back exactly as read (which changes nothing either);
with only its first segment confirmed under a new target; and with the first
segment that has no target translated (a new ``<target>`` is inserted).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from xmlcompare import element_c14n
from formats.xliffbytes import changes_outside_edited_units

from datafiles import SHARED_DATA, data_file
from engine.errors import FormatError
from engine.formats import xliff12, xliff20
from engine.formats.base import Translation
from engine.formats.xliffcommon import sniff_version
from engine.formats.xmlsafe import safe_parser
from engine.inline import TaggedText

SAMPLES_DIR = SHARED_DATA / "format-samples"
XLIFF_SUFFIXES = (".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".txlf")
# The OASIS suite's invalid files are meant to be refused or read leniently
# (tests/formats/test_xliff20.py); their export is not a contract.
_NOT_A_SAMPLE = ("/core/invalid/", "/modules/invalid/")


def _samples() -> list[Path]:
    if not SAMPLES_DIR.is_dir():
        return []
    return [p for p in sorted(SAMPLES_DIR.rglob("*"))
            if p.is_file() and p.suffix.lower() in XLIFF_SUFFIXES
            and not any(part in p.as_posix() for part in _NOT_A_SAMPLE)]


SAMPLES = _samples()


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(SAMPLES_DIR)) for p in paths]


def _format_of(path: Path):
    return xliff20.FORMAT if sniff_version(path.read_bytes()[:4096]) == "2" else xliff12.FORMAT


def _read_or_skip(fmt, path: Path):
    """The parsed sample, or a skip naming why the reader refused it."""
    try:
        return fmt.read(path)
    except FormatError as e:  # e.g. a control character that XML 1.0 cannot hold
        pytest.skip(f"the reader refuses this sample: {e}")


def _tree(path: Path) -> etree._ElementTree:
    return etree.parse(str(path), safe_parser())


def _units(path: Path, fmt) -> list:
    tree = _tree(path)
    name = "unit" if fmt is xliff20.FORMAT else "trans-unit"
    return [u for u in tree.getroot().iter() if isinstance(u.tag, str)
            and etree.QName(u).localname == name]


def test_samples_were_found(shared_data):
    assert len(SAMPLES) >= 100, "expected the okapi, OmegaT, translate-toolkit and OASIS samples"


@pytest.mark.data
@pytest.mark.parametrize("path", SAMPLES, ids=_ids(SAMPLES))
def test_untouched_export_is_byte_identical(path: Path, tmp_path: Path):
    path = data_file(*path.relative_to(SHARED_DATA).parts)
    fmt = _format_of(path)
    doc = _read_or_skip(fmt, path)
    out = tmp_path / path.name
    # the project passes its target language: it must not be stamped on an
    # untouched file either
    fmt.write(path, out, {}, tgt_lang=doc.tgt_lang or "de")
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.data
@pytest.mark.parametrize("path", SAMPLES, ids=_ids(SAMPLES))
def test_passing_back_what_was_read_changes_no_byte(path: Path, tmp_path: Path):
    path = data_file(*path.relative_to(SHARED_DATA).parts)
    fmt = _format_of(path)
    doc = _read_or_skip(fmt, path)
    same = {s.key: Translation(s.target, s.status) for s in doc.segments if s.target is not None}
    out = tmp_path / path.name
    fmt.write(path, out, same, tgt_lang=doc.tgt_lang or "de")
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.data
@pytest.mark.parametrize("path", SAMPLES, ids=_ids(SAMPLES))
def test_editing_one_segment_changes_only_its_unit(path: Path, tmp_path: Path):
    path = data_file(*path.relative_to(SHARED_DATA).parts)
    fmt = _format_of(path)
    doc = _read_or_skip(fmt, path)
    if not doc.segments:
        pytest.skip("the sample has nothing to translate")
    first = doc.segments[0]
    new = TaggedText("Verso " + first.source.text, first.source.tags)
    out = tmp_path / path.name
    fmt.write(path, out, {first.key: Translation(new, "confirmed")}, tgt_lang=doc.tgt_lang or "de")

    again = {s.key: s for s in fmt.read(out).segments}
    assert [s.key for s in fmt.read(out).segments] == [s.key for s in doc.segments]
    edited = again[first.key]
    assert edited.target is not None and edited.target.text == new.text
    assert edited.status == "confirmed"
    for seg in doc.segments[1:]:  # the other segments read back as they were
        assert again[seg.key].target == seg.target, seg.key
        assert again[seg.key].status == seg.status, seg.key

    before, after = _units(path, fmt), _units(out, fmt)
    assert len(before) == len(after)
    unit_id = first.meta.get("unit", "")
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if element_c14n(a) != element_c14n(b)]
    assert len(changed) <= 1, f"units other than the edited one changed: {changed}"
    if changed:
        assert (after[changed[0]].get("id") or "") == unit_id


def _edit_and_check_bytes(path: Path, fmt, doc, seg, tmp_path: Path) -> None:
    new = TaggedText("Verso " + seg.source.text, seg.source.tags)
    out = tmp_path / path.name
    fmt.write(path, out, {seg.key: Translation(new, "confirmed")}, tgt_lang=doc.tgt_lang or "de")
    again = {s.key: s for s in fmt.read(out).segments}
    assert again[seg.key].target is not None and again[seg.key].target.text == new.text
    units = _units(path, fmt)
    unit_id = seg.meta.get("unit", "")
    edited = {i for i, u in enumerate(units) if (u.get("id") or "") == unit_id}
    element = "unit" if fmt is xliff20.FORMAT else "trans-unit"
    assert changes_outside_edited_units(path.read_bytes(), out.read_bytes(), element, edited) == []


@pytest.mark.data
@pytest.mark.parametrize("path", SAMPLES, ids=_ids(SAMPLES))
def test_editing_one_segment_changes_bytes_only_in_its_target_and_status(path: Path, tmp_path: Path):
    path = data_file(*path.relative_to(SHARED_DATA).parts)
    fmt = _format_of(path)
    doc = _read_or_skip(fmt, path)
    if not doc.segments:
        pytest.skip("the sample has nothing to translate")
    _edit_and_check_bytes(path, fmt, doc, doc.segments[0], tmp_path)


@pytest.mark.data
@pytest.mark.parametrize("path", SAMPLES, ids=_ids(SAMPLES))
def test_translating_a_segment_without_target_changes_bytes_only_in_its_unit(path: Path,
                                                                             tmp_path: Path):
    path = data_file(*path.relative_to(SHARED_DATA).parts)
    fmt = _format_of(path)
    doc = _read_or_skip(fmt, path)
    seg = next((s for s in doc.segments if s.target is None), None)
    if seg is None:
        pytest.skip("every segment of the sample has a target")
    _edit_and_check_bytes(path, fmt, doc, seg, tmp_path)
