import pytest

from engine.errors import FormatError
from engine.nmt.align import aer, parse_pharaoh, read_pharaoh, read_wpt
from datafiles import data_file


def test_aer_is_zero_for_the_sure_links_and_grows_with_errors():
    sure, possible = parse_pharaoh("0-0 1-2 2p1")
    assert possible == {(0, 0), (1, 2), (2, 1)} and sure == {(0, 0), (1, 2)}
    assert aer([sure], [(sure, possible)]) == 0.0
    assert aer([sure | {(2, 1)}], [(sure, possible)]) == 0.0  # possible links cost nothing
    assert aer([{(0, 0), (1, 1)}], [(sure, possible)]) == pytest.approx(50.0)
    assert aer([set()], [(sure, possible)]) == 100.0


def test_one_based_gold_and_bad_links(tmp_path):
    p = tmp_path / "g"
    p.write_text("1-1 2p3\n")
    assert read_pharaoh(p, one_based=True) == [({(0, 0)}, {(0, 0), (1, 2)})]
    p.write_text("1-1 x-2\n")
    with pytest.raises(FormatError, match="line 1"):
        read_pharaoh(p)


def test_reads_the_hansards_trial_gold():
    wa = data_file("word-alignment-gold", "wpt2003-hansards-enfr", "trial.wa")
    gold = read_wpt(wa, [1001, 1002])
    assert (0, 0) in gold[0][0] and gold[1][1]
