"""A reviewer's pass, headless: Verso's own tracked changes (:mod:`.changes`, word-level :mod:`.diff`),
LQA errors and the quality report (:mod:`.lqa`, :mod:`.report`), and comparing two exports of one
document (:mod:`.compare`).  No torch, no Qt."""
