"""The row the editor enters when a document opens -- the first neither confirmed nor locked,
else the first -- read without loading the document's rows: the editor asks the TM for it while
the document loads (loading 2,000 segments took 0.2-0.7 s wall on the 2-core VM at load 5-12,
during which the TM thread sat idle)."""
from __future__ import annotations

from engine.store.project import Project, Segment


def first_open_row(project: Project, document_id: int) -> tuple[int, Segment] | None:
    """(row, segment) the document opens on (rows in document order from 0); None when it has none."""
    conn = project._conn  # the project's own connection: read as Project.segments reads
    r = conn.execute("SELECT * FROM segments WHERE document_id = ? AND status != 'confirmed' AND locked = 0"
                     " ORDER BY idx LIMIT 1", (document_id,)).fetchone()
    if r is None:
        r = conn.execute("SELECT * FROM segments WHERE document_id = ? ORDER BY idx LIMIT 1", (document_id,)).fetchone()
    if r is None:
        return None
    (row,) = conn.execute("SELECT count(*) FROM segments WHERE document_id = ? AND idx < ?",
                          (document_id, r["idx"])).fetchone()
    return row, Segment.from_row(dict(r))
