"""The quality report of a document's LQA errors: errors by category and severity, penalty points
(the severity weights summed), points per 1,000 source words, and pass or fail against the
project's threshold -- as HTML (what a reviewer sends) or CSV (what a spreadsheet reads).

    penalty      = sum over errors of weight(severity)
    per_1000     = penalty * 1000 / words      (words: the document's source words, engine.stats)
    pass         = per_1000 <= threshold
"""
from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ProjectError
from engine.fsutil import atomic_write
from engine.review.lqa import CATEGORIES, SEVERITIES, Lqa, threshold, weights
from engine.stats import word_count


@dataclass
class Row:
    idx: int            # segment number, 1-based
    category: str
    severity: str
    span: str           # the marked target text, tags as their short form
    comment: str
    author: str


@dataclass
class QualityReport:
    document: str
    words: int
    weights: dict[str, float]
    threshold: float
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # category -> severity -> n
    rows: list[Row] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(sum(c.values()) for c in self.counts.values())

    @property
    def penalty(self) -> float:
        return sum(self.weights[s] * n for c in self.counts.values() for s, n in c.items())

    @property
    def per_1000(self) -> float:
        return self.penalty * 1000.0 / self.words if self.words else 0.0

    @property
    def passed(self) -> bool:
        return self.per_1000 <= self.threshold

    def summary(self) -> dict:
        return {"document": self.document, "words": self.words, "errors": self.errors,
                "penalty": self.penalty, "per_1000_words": round(self.per_1000, 2),
                "threshold": self.threshold, "result": "pass" if self.passed else "fail",
                "by_category": self.counts}


def build(project, document_id: int) -> QualityReport:
    info = project.document(document_id)
    segs = {s.id: s for s in project.segments(info.id)}
    rep = QualityReport(info.name, sum(word_count(s.source.text) for s in segs.values()),
                        weights(project), threshold(project),
                        {c: {s: 0 for s in SEVERITIES} for c in CATEGORIES})
    for e in Lqa(project).of_document(info.id):
        seg = segs[e.segment_id]
        rep.counts[e.category][e.severity] += 1
        span = seg.target.with_text(seg.target.text[e.start:e.end]).display()
        rep.rows.append(Row(seg.idx + 1, e.category, e.severity, span, e.comment, e.author))
    return rep


def to_csv(rep: QualityReport) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["category", *SEVERITIES, "errors", "penalty"])
    for c in CATEGORIES:
        row = rep.counts[c]
        w.writerow([c, *(row[s] for s in SEVERITIES), sum(row.values()),
                    _num(sum(rep.weights[s] * row[s] for s in SEVERITIES))])
    w.writerow([])
    for k, v in (("document", rep.document), ("words", rep.words), ("errors", rep.errors),
                 ("penalty", _num(rep.penalty)), ("per 1000 words", f"{rep.per_1000:.2f}"),
                 ("threshold", _num(rep.threshold)), ("result", "pass" if rep.passed else "fail")):
        w.writerow([k, v])
    w.writerow([])
    w.writerow(["segment", "category", "severity", "text", "comment", "author"])
    for r in rep.rows:
        w.writerow([r.idx, r.category, r.severity, _cell(r.span), _cell(r.comment), _cell(r.author)])
    return out.getvalue()


def to_html(rep: QualityReport) -> str:
    e = html.escape
    head = "".join(f"<th>{e(s)} ({_num(rep.weights[s])})</th>" for s in SEVERITIES)
    body = "".join(
        f"<tr><td>{e(c)}</td>" + "".join(f"<td>{rep.counts[c][s]}</td>" for s in SEVERITIES)
        + f"<td>{sum(rep.counts[c].values())}</td></tr>" for c in CATEGORIES)
    rows = "".join(f"<tr><td>{r.idx}</td><td>{e(r.category)}</td><td>{e(r.severity)}</td><td>{e(r.span)}</td>"
                   f"<td>{e(r.comment)}</td><td>{e(r.author)}</td></tr>" for r in rep.rows)
    verdict = "PASS" if rep.passed else "FAIL"
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Quality report: {e(rep.document)}</title>"
            "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}</style></head><body>"
            f"<h1>Quality report: {e(rep.document)}</h1>"
            f"<p id='result'><b>{verdict}</b>: {rep.per_1000:.2f} penalty points per 1,000 words "
            f"(threshold {_num(rep.threshold)}); {rep.errors} errors, {_num(rep.penalty)} points, "
            f"{rep.words} words.</p>"
            f"<table id='counts'><tr><th>category</th>{head}<th>errors</th></tr>{body}</table>"
            f"<h2>Errors</h2><table id='errors'><tr><th>segment</th><th>category</th><th>severity</th>"
            f"<th>text</th><th>comment</th><th>author</th></tr>{rows}</table></body></html>\n")


def write(rep: QualityReport, out: Path) -> Path:
    """HTML or CSV by ``out``'s extension."""
    ext = out.suffix.lower()
    if ext not in (".html", ".htm", ".csv"):
        raise ProjectError(f"{out}: a quality report is .html or .csv")
    with atomic_write(out, "w", encoding="utf-8", newline="") as f:
        f.write(to_csv(rep) if ext == ".csv" else to_html(rep))
    return out


def _cell(text: str) -> str:
    """A reviewer's text as a CSV cell a spreadsheet shows as text: one starting like a formula
    (= + - @, tab, CR) gets a leading apostrophe (OWASP's CSV injection advice)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _num(x: float) -> str:
    return f"{x:g}"
