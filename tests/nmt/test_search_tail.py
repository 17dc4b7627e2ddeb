"""A glossary term is not appended after the sentence: where the model would end with a term unmet,
the term is still forced (``enforce``), but that hypothesis ranks below any that placed its terms."""
import torch

from engine.nmt.constraints import FORCED, OWN, TAIL, ConstraintState, constrain_terms
from engine.nmt.vocab import EOS

TERMS = [[[7, 8]]]  # one term of two tokens


def _lp(best: int, V: int = 12) -> torch.Tensor:
    lp = torch.full((V,), -5.0, dtype=torch.float64)
    lp[best] = -0.1
    return lp


def test_a_term_forced_where_the_model_would_end_marks_the_hypothesis_as_tailed():
    st = ConstraintState()
    lp = _lp(EOS)
    assert constrain_terms(lp, st, TERMS, step=3, max_len=40) == TAIL
    assert lp.argmax().item() == 7 and lp[EOS] == float("-inf")
    st = st.advance(7, TERMS, TAIL)
    assert st.tail and st.cur == 0
    # the rest of the term is forced on (not a new tail) and the mark stays once the term is met
    lp = _lp(3)
    assert constrain_terms(lp, st, TERMS, step=4, max_len=40) == FORCED
    st = st.advance(8, TERMS, FORCED)
    assert st.met == 1 and st.tail


def test_a_term_written_inside_the_sentence_leaves_no_mark():
    st = ConstraintState().advance(7, TERMS, OWN).advance(8, TERMS, OWN)
    assert st.met == 1 and not st.tail
    assert constrain_terms(_lp(EOS), st, TERMS, step=3, max_len=40) == OWN

