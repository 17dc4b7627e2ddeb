"""A translated sheet name written into an XLSX package, byte for byte elsewhere.

The sheet's ``name`` in workbook.xml, the defined names, the formulas of every sheet (cells, data
validations, conditional formats) and the chart and pivot-cache references naming the sheet are
rewritten through :mod:`engine.formats.partsplice`: only those attributes and elements' bytes
change, every other byte of those parts (declaration, namespace declarations, other sheets' names)
stays as it was, and a part that names no renamed sheet is not touched.  Serialising the parts whole
instead rewrote workbook.xml's declaration and every sheet with a formula naming the sheet.
"""
from __future__ import annotations

from lxml import etree

from engine.formats import xmlsafe
from engine.formats.partsplice import PartSplice
from engine.formats.xlsx_text import s
from engine.formats.xlsxnames import check_name, rename_refs

#: the elements whose text is a formula that may name a sheet
FORMULAS = {"f", "formula", "formula1", "formula2", "definedName"}


def _local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _renamed_text(el, renames: dict[str, str], splice: PartSplice) -> bool:
    """Rename the references in ``el``'s formula text (naming the edit to ``splice``); True if any."""
    new = rename_refs(el.text, renames)
    if new == el.text:
        return False
    splice.edit(el)
    el.text = new
    return True


def rename_sheets(book, renames: dict[str, str], trees: dict, changed: set[str], replaced: dict, xml_of) -> None:
    """Write ``renames`` (old sheet name -> new) into ``book`` (:class:`engine.formats.xlsx._Book`):
    workbook.xml into ``replaced``, the sheets whose formulas change into ``changed`` (their splices
    in ``book.splices``), charts and pivot caches into ``replaced``."""
    pkg, splices = book.pkg, book.splices
    wb = splices.of(book.main, book.workbook)
    taken = {el.get("name", "").lower() for el, _ in book.sheets if el.get("name", "") not in renames}
    for el, _ in book.sheets:
        old = el.get("name", "")
        if old in renames:
            check_name(pkg.path, renames[old], old, taken)
            taken.add(renames[old].lower())
            wb.edit_attrs(el)
            el.set("name", renames[old])
    for el in book.workbook.getroot().iter(s("definedName")):
        if el.text:
            _renamed_text(el, renames, wb)
    replaced[book.main] = splices.data(book.main, book.workbook)
    for part, tree in trees.items():
        for el in tree.getroot().iter():
            if _local(el) in FORMULAS and el.text and _renamed_text(el, renames, splices.of(part, tree)):
                changed.add(part)
    olds = [o.encode() for o in renames] + [o.replace("&", "&amp;").encode() for o in renames]
    for name in pkg.names():
        if not (name.startswith(("xl/charts/chart", "xl/pivotCache/")) and name.endswith(".xml")):
            continue
        if not any(o in pkg.read(name) for o in olds):
            continue
        if name in replaced:  # a chart whose title was translated: spliced again over those bytes
            tree = etree.fromstring(replaced[name], xmlsafe.safe_parser()).getroottree()
            splice = PartSplice(pkg, name, tree)
            splice.raw = replaced[name]
        else:
            splice = PartSplice(pkg, name, xml_of(pkg, name))
        for el in splice.tree.getroot().iter():
            if _local(el) == "f" and el.text:
                _renamed_text(el, renames, splice)
            if _local(el) == "worksheetSource" and el.get("sheet") in renames:
                splice.edit_attrs(el)
                el.set("sheet", renames[el.get("sheet")])
        if splice.changed:
            replaced[name] = splice.data()
