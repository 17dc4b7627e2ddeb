"""Align old translations into a TM (issue 50): two documents, one the translation of the other,
become sentence pairs with a confidence each.

* :func:`docs.read_for_alignment` -- a document's sentences (every format Verso reads; PDF via pdftotext)
* :func:`aligner.align_documents` / :func:`aligner.align_texts` -- 1-1, 1-2, 2-1, 1-0, 0-1 links by
  dynamic programming (:mod:`dp`) over Gale-Church length, number/code anchors and, with a model,
  the chrF of the source's translation to the target (:mod:`scoring`, :mod:`chrf`)
* :mod:`model` -- the translations, through engine.nmt's Translator (the only module here that
  loads torch, and only when called)
* :func:`totm.add_to_tm` -- the chosen links into a TM, origin "aligned"

Headless: no Qt; nothing but :mod:`model` imports engine.nmt or torch.
"""
