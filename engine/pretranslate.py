"""Batch pre-translation: fill a document's empty targets as drafts, as CAT tools do before
the translator starts (OmegaT's "Pre-translate", memoQ's "Pre-translate and statistics").

For each segment without a target, in document order:

1. the best match of the project's TMs (and any extra TMs); a 100 % match (score 1.0: same
   words, case and punctuation) gives its target, with the match's tags renumbered as the
   segment's (:func:`engine.tm.adapt.adapt_tags`), origin ``tm``;
2. otherwise, with a model, the machine translation of the source, reading the TM matches
   that score at least ``min_score`` when the model has a memory and the previous sources
   when it reads document context (as the editor's suggestion does), origin ``mt``;
3. otherwise the segment stays empty.

A model is used only for the pair it was trained for: one that translates another pair than the
project's (regional variants are one language) is set aside, the document is filled from the TM
only, and the result's ``note`` says why.

Targets are written as drafts, never confirmed, in batches of one transaction each, so an
interrupted run keeps what it wrote (a ``progress`` callback that returns False stops the run
after the batch it reports: the editor's Cancel).  Segments that already have a target are not
touched, nor are locked segments (``locked`` counts those left empty).  With
``overwrite_drafts`` (memoQ's "overwrite: unconfirmed") an unconfirmed target is filled again
too, the translator's own drafts included; a confirmed or locked segment never is, and a draft
with no match or translation, or the same one, stays as it was (``replaced`` counts the others,
within ``tm`` and ``mt``).
Nothing here imports torch until a model is given.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from engine.langs import pair_text
from engine.store.project import Project, Segment
from engine.tm import Match, TranslationMemory, open_tm, project_tms, tm_ref
from engine.tm.adapt import adapt_tags

BATCH = 16                 # sentences per model call and per transaction
CONTEXT_SENTENCES = 8      # previous sources a document-context model may read
MEMORY_PAIRS = 4           # best matches a memory-guided model reads (as the editor)


@dataclass
class PretranslateResult:
    tm: int = 0        # filled from a 100 % TM match
    mt: int = 0        # filled by the model
    empty: int = 0     # left empty (no 100 % match and no model)
    kept: int = 0      # already had a target: not touched (or a draft nothing replaced)
    locked: int = 0    # locked without a target (engine/store/locks.py): not filled
    note: str = ""     # why no model filled anything (one line), "" when one could
    stopped: bool = False  # the progress callback asked to stop: segments after the last batch not tried
    replaced: int | None = None  # drafts given a new target (None: overwrite_drafts was not asked)

    def to_json(self) -> dict:
        out = {"tm": self.tm, "mt": self.mt, "empty": self.empty, "kept": self.kept}
        out |= {"replaced": self.replaced} if self.replaced is not None else {}
        return out | ({"locked": self.locked} if self.locked else {}) | ({"note": self.note} if self.note else {})


def to_fill(seg: Segment, overwrite_drafts: bool = False) -> bool:
    """Whether pre-translation fills ``seg``: an unlocked segment with a source and no target, or
    (``overwrite_drafts``) one whose target is not confirmed."""
    if seg.locked or not seg.source.plain().strip():
        return False
    return not seg.target.text.strip() or (overwrite_drafts and seg.status != "confirmed")


def model_mismatch(translator, project: Project) -> str:
    """Why ``translator`` may not translate ``project`` (another pair, or none named), "" when it may."""
    from engine.resources import pair_served

    data = getattr(getattr(getattr(translator, "loaded", None), "cfg", None), "data", None)
    pair = (getattr(data, "src_lang", ""), getattr(data, "tgt_lang", "")) if data is not None else None
    if pair is None or pair_served(pair, project.src_lang, project.tgt_lang):
        return ""
    return wrong_pair_note(project, pair)


def wrong_pair_note(project: Project, pair: tuple[str, str] | None, why: str = "") -> str:
    """The one line saying the document is filled from the TM only, and why."""
    want = pair_text(project.src_lang, project.tgt_lang)
    if why:
        reason = why
    elif pair is not None and all(pair):
        reason = f"the model translates {pair_text(*pair)}, not {want}"
    else:
        reason = f"the model does not say which pair it translates (the project is {want})"
    return f"{reason}: filling from the TM only (train a model for {want} with `verso train --tm`, or pass --model)"


def _best(tms: Sequence[TranslationMemory], seg: Segment, k: int) -> list[Match]:
    found: list[Match] = []
    for tm in tms:
        found += tm.search(seg.source, k=k, min_score=0.3)
    found.sort(key=lambda m: (-m.score, -m.char_score))
    return found[:k]


def pretranslate(project: Project, document: int | str, *, tms: Sequence[TranslationMemory] = (),
                 translator=None, min_score: float | None = None, beam: int = 5,
                 progress: Callable[[int, int], bool | None] | None = None,
                 batch_size: int = BATCH, overwrite_drafts: bool = False) -> PretranslateResult:
    """Fill the empty targets of ``document``, and its drafts with ``overwrite_drafts`` (see the
    module doc).  ``progress(done, total)`` is called after each batch of ``batch_size``
    segments; when it returns False the run stops there, what it wrote kept (``stopped``)."""
    info = project.document(document)
    segments = project.segments(info.id)
    res = PretranslateResult(replaced=0 if overwrite_drafts else None)
    todo = [i for i, s in enumerate(segments) if to_fill(s, overwrite_drafts)]
    res.locked = sum(1 for s in segments if s.locked and not s.target.text.strip())
    res.kept = sum(1 for s in segments if s.target.text.strip()) - sum(
        1 for i in todo if segments[i].target.text.strip())
    if translator is not None:
        res.note = model_mismatch(translator, project)
        if res.note:
            translator = None
    reads_memory = reads_context = False
    if translator is not None:
        from engine.nmt.doccontext import find_doc_context
        from engine.nmt.finish import finish
        from engine.nmt.retrieval import MEMORY_MIN_SCORE

        reads_memory = translator.memory_kind() != "none"
        reads_context = find_doc_context(translator.model) is not None
        min_score = MEMORY_MIN_SCORE if min_score is None else min_score
    by_id = {segments[i].id: segments[i] for i in todo}
    done = 0
    for start in range(0, len(todo), batch_size):
        batch = todo[start:start + batch_size]
        tm_rows: list[tuple[int, str]] = []
        mt_rows: list[int] = []
        memories: list[list[tuple[str, str]]] = []
        for i in batch:
            seg = segments[i]
            found = _best(tms, seg, MEMORY_PAIRS) if tms else []
            if found and found[0].score >= 1.0:
                tm_rows.append((seg.id, adapt_tags(found[0], seg.source)))
            elif translator is not None:
                mt_rows.append(i)
                memories.append([(m.source.text, m.target.text) for m in found if m.score >= min_score])
            else:
                _not_filled(res, seg)
        tm_rows = _changed(res, by_id, tm_rows)
        if tm_rows:
            project.set_targets(tm_rows, status="draft", origin="tm", origin_score=1.0)
            res.tm += len(tm_rows)
        if mt_rows:
            kw: dict = {"beam": beam}
            if reads_memory:
                kw["memories"] = memories
            if reads_context:
                kw["context"] = [[segments[j].source.text for j in range(max(0, i - CONTEXT_SENTENCES), i)]
                                 for i in mt_rows]
            results = translator.translate([segments[i].source.text for i in mt_rows], **kw)
            # every source tag and menu separator put back by the alignment; what is still left out, QA names
            # (check "omission"): the demo model's draft of a menu path lost a tag, written as a tag error
            results = [finish(r, segments[i].source, tgt_lang=project.tgt_lang, every_tag=True)[0]
                       for i, r in zip(mt_rows, results)]
            rows = [(segments[i].id, r.text) for i, r in zip(mt_rows, results) if r.text.strip()]
            for i, r in zip(mt_rows, results):
                if not r.text.strip():
                    _not_filled(res, segments[i])
            rows = _changed(res, by_id, rows)
            if rows:
                project.set_targets(rows, status="draft", origin="mt")
            res.mt += len(rows)
        done += len(batch)
        if progress is not None and progress(done, len(todo)) is False and done < len(todo):
            res.stopped = True
            break
    return res


def _not_filled(res: PretranslateResult, seg: Segment) -> None:
    """Nothing for ``seg``: an empty one is left empty, a draft kept."""
    if seg.target.text.strip():
        res.kept += 1
    else:
        res.empty += 1


def _changed(res: PretranslateResult, by_id: dict[int, Segment], rows: list) -> list:
    """``rows`` (segment id, new target) less the drafts given their own text again (kept); the
    drafts left are counted as replaced."""
    out = []
    for sid, target in rows:
        old = by_id[sid].target.text
        new = target if isinstance(target, str) else target.text
        if old.strip() and new == old:
            res.kept += 1
            continue
        if old.strip():
            res.replaced = (res.replaced or 0) + 1
        out.append((sid, target))
    return out


def open_tms(project: Project, extra: Sequence[str | Path] = (), *, outside: str = "refuse") -> list[TranslationMemory]:
    """The project's TMs (folders that exist, and shared TMs' URLs) and ``extra`` TMs
    (folders or ``postgresql://`` URLs), opened for the project's language pair with
    :func:`engine.tm.open_tm`.  The caller closes them.  A folder the project lists outside
    itself: see :func:`engine.tm.project_tms` (``outside``)."""
    refs = [r.ref for r in project_tms(project, outside=outside) if r.shared or Path(r.ref).is_dir()]
    refs += [tm_ref(p) for p in extra]
    out = []
    try:
        for ref in refs:
            out.append(open_tm(ref, create=False, src_lang=project.src_lang, tgt_lang=project.tgt_lang))
    except BaseException:
        for tm in out:
            tm.close()
        raise
    return out
