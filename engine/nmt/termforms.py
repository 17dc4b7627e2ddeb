"""The target forms of glossary terms as the search reads them: per term its alternative token
sequences (after a space, after a tag, inflected) and the source pieces of its source term; and the
target vocabulary's word starts, glue and pieces as text, which the search's rules read."""
from __future__ import annotations

from engine.inline import is_tag_char, tag_char
from engine.nmt import casing
from engine.nmt.checkpoint import LoadedModel
from engine.nmt.completion import PieceTexts
from engine.nmt.repeats import WordKeys
from engine.nmt.results import Term
from engine.nmt.vocab import WORD_START, word_spans


class TermForms:
    """The term and word-start tables of one loaded model, each built on first use."""

    def __init__(self, loaded: LoadedModel):
        self.loaded = loaded
        self._starts: tuple | None = None  # target pieces that begin a word, glue, cases (see word_starts)
        self._forms: dict[str, list[str]] | None = None  # stem -> target-vocabulary words (inflected terms)
        self._texts: PieceTexts | None = None
        self._pieces: list[str] | None = None

    def pieces(self) -> list[str]:
        """The target pieces as text, by id (one call into sentencepiece for all 8,000: 0.9 ms, not 2)."""
        if self._pieces is None:
            sp = self.loaded.tgt_vocab.sp
            self._pieces = sp.id_to_piece(list(range(sp.get_piece_size())))
        return self._pieces

    def constraints(self, text: str, src_ids: list[int], items: list, caps: bool
                     ) -> tuple[list[list[list[int]]], list[tuple[int, int] | None]]:
        """The search's constraints of one sentence: per term (each once) its alternative token
        sequences and the source positions of its source term (None: not known)."""
        alts, spans, seen = [], [], set()
        for t in map(Term.of, items):
            forms = [casing.fold(x) if caps else x for x in t.targets if x.strip()]
            if not forms or tuple(forms) in seen:
                continue
            seen.add(tuple(forms))
            if t.inflect:
                forms += [f for x in forms for f in self.inflections(x) if f not in forms]
            alts.append([seq for f in dict.fromkeys(forms) for seq in self.term_variants(f)])
            spans.append(self.source_span(text, src_ids, t.span) if t.span else None)
        return alts, spans

    def piece_texts(self) -> PieceTexts:
        """The target pieces as text, for completing a word typed half way (built once)."""
        if self._texts is None:
            self._texts = PieceTexts(self.pieces())
        return self._texts

    def word_starts(self) -> tuple[frozenset[int], frozenset[int], WordKeys]:
        """The target pieces that begin a word ("▁..."), the *glue*: the tag symbols and the lone
        "▁" (a term is proposed as ``▁Datei``, right after glue as ``Datei``), and the pieces as
        text (:class:`WordKeys`: the search's repeat rule, a word cut two ways included); built once."""
        if self._starts is None:
            pieces = self.pieces()
            self._starts = (frozenset(i for i, p in enumerate(pieces) if p.startswith(WORD_START)),
                            frozenset(i for i, p in enumerate(pieces) if p == WORD_START
                                      or len(p) == 1 and is_tag_char(p)),
                            WordKeys(pieces, WORD_START))
        return self._starts

    def source_span(self, text: str, src_ids: list[int], span: tuple[int, int]) -> tuple[int, int] | None:
        """The source positions (subword pieces) of the words ``text[span[0]:span[1]]`` touches, or
        None where the pieces do not line up with the text's whitespace-separated words."""
        start, end = span
        words = word_spans(self.loaded.src_vocab.pieces(src_ids[:-1]))
        if len(words) != len(text.split()) or not 0 <= start < end <= len(text):
            return None
        first = len(text[:start].split()) - (0 if start == 0 or text[start - 1].isspace() else 1)
        last = len(text[:end].split()) - 1
        if not 0 <= first <= last < len(words):
            return None
        return words[first][0], words[last][1]

    def inflections(self, term: str) -> list[str]:
        """``term`` with its last word in each other form of the target vocabulary that shares its
        Snowball stem (a whole-word piece, same first letter; at most 8): the forms the search may
        write for a term whose glossary entry allows inflection."""
        from engine.glossary import stemmer_for

        stem = stemmer_for(self.loaded.cfg.data.tgt_lang)
        words = term.split()
        if stem is None or not words:
            return []
        if self._forms is None:  # stem -> whole-word pieces of the target vocabulary, built once
            self._forms = {}
            sp = self.loaded.tgt_vocab.sp
            for i in range(sp.get_piece_size()):
                p = sp.id_to_piece(i)
                if p.startswith(WORD_START) and len(p) > 2 and p[1:].isalpha():
                    self._forms.setdefault(stem(p[1:].casefold()), []).append(p[1:])
        last = words[-1]
        out = [f for f in self._forms.get(stem(last.casefold()), []) if f != last and f[0] == last[0]]
        return [" ".join(words[:-1] + [f]) for f in out[:8]]

    def term_variants(self, term: str) -> list[list[int]]:
        """The token sequences a target term may take: as after a space (``▁Datei``) and as after a
        tag or at a word start without one (``Datei``; the pieces the vocabulary gives the term
        right after a tag symbol, ``D ar stellung`` for ``▁Darstellung``) -- the model writes both,
        and a term it wrote one way must count (measured on KDE: without the second form the search
        kept writing past a term it had already written after a tag)."""
        v = self.loaded.tgt_vocab
        ids = v.encode(term)
        out = [ids]
        if ids:
            first = v.sp.id_to_piece(ids[0])
            if first == WORD_START and len(ids) > 1:
                out.append(ids[1:])
            elif first.startswith(WORD_START) and len(first) > 1:
                pid = v.sp.piece_to_id(first[1:])
                if pid != v.sp.unk_id():
                    out.append([pid] + ids[1:])
            glued = v.encode(tag_char(1) + term)
            tag = v.sp.piece_to_id(tag_char(1))
            if tag in glued:
                bare = glued[glued.index(tag) + 1:]
                if bare and bare not in out:
                    out.append(bare)
        return out
