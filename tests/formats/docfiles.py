"""Tiny DOCX/ODT packages written by the tests, and LibreOffice's check (a module of its own, as datafiles)."""
from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

_CT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
       '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
       '<Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/word/document.xml" ContentType="application/'
       'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
       '{overrides}</Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
         '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
         'relationships/officeDocument" Target="word/document.xml"/></Relationships>')
_PART_TYPES = {
    "footnotes": "footnotes", "endnotes": "endnotes", "comments": "comments",
    "header1": "header", "footer1": "footer",
}


def wxml(root: str, body: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<w:{root} xmlns:w="{W_NS}" xmlns:r="{R_NS}">{body}</w:{root}>')


def make_docx(path: Path, body: str, parts: dict[str, str] | None = None,
              doc_rels: str = "") -> Path:
    """A DOCX whose ``w:body`` is ``body``; ``parts``: ``{"footnotes": "<w:footnote>..."}``
    (root element added), other members given whole by a name with a slash."""
    parts = parts or {}
    overrides = "".join(
        f'<Override PartName="/word/{n}.xml" ContentType="application/vnd.openxmlformats-'
        f'officedocument.wordprocessingml.{_PART_TYPES[n]}+xml"/>' for n in parts if n in _PART_TYPES)
    roots = {"footnotes": "footnotes", "endnotes": "endnotes", "comments": "comments",
             "header1": "hdr", "footer1": "ftr"}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CT.format(overrides=overrides))
        z.writestr("_rels/.rels", _RELS)
        z.writestr("word/document.xml", wxml("document", f"<w:body>{body}</w:body>"))
        if doc_rels:
            z.writestr("word/_rels/document.xml.rels", doc_rels)
        for name, content in parts.items():
            if "/" in name:
                z.writestr(name, content)
            else:
                z.writestr(f"word/{name}.xml", wxml(roots[name], content))
    return path


def soffice() -> str | None:
    return shutil.which("soffice") or shutil.which("libreoffice")


def convert_to_pdf(path: Path, outdir: Path) -> Path:
    """LibreOffice headless converts ``path`` to PDF; returns the PDF (asserts it exists)."""
    exe = soffice()
    profile = outdir / "lo-profile"
    proc = subprocess.run(
        [exe, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "pdf",
         "--outdir", str(outdir), str(path)],
        capture_output=True, text=True, timeout=180)
    pdf = outdir / (path.stem + ".pdf")
    assert proc.returncode == 0 and pdf.exists() and pdf.stat().st_size > 1000, proc.stdout + proc.stderr
    return pdf


ODF_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "xlink": "http://www.w3.org/1999/xlink",
    "dc": "http://purl.org/dc/elements/1.1/",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
}
_ODF_DECL = " ".join(f'xmlns:{k}="{v}"' for k, v in ODF_NS.items())


def make_odt(path: Path, body: str, auto_styles: str = "", master: str = "") -> Path:
    """An ODT whose ``office:text`` is ``body``; ``master``: content of a master page (header/footer)."""
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_ODF_DECL} office:version="1.2">'
               f"<office:automatic-styles>{auto_styles}</office:automatic-styles>"
               f"<office:body><office:text>{body}</office:text></office:body></office:document-content>")
    styles = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-styles {_ODF_DECL} office:version="1.2">'
              f'<office:master-styles><style:master-page style:name="Standard">{master}</style:master-page>'
              f"</office:master-styles></office:document-styles>")
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
                '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                '<manifest:file-entry manifest:full-path="/" manifest:media-type='
                '"application/vnd.oasis.opendocument.text"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
                "</manifest:manifest>")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        z.writestr("styles.xml", styles, zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    return path


def soffice_convert(path: Path, outdir: Path, fmt: str) -> Path:
    """LibreOffice headless converts ``path`` to ``fmt`` (pdf, odt, ods, ...); asserts it did."""
    exe = soffice()
    profile = outdir / "lo-profile"
    proc = subprocess.run(
        [exe, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", fmt,
         "--outdir", str(outdir), str(path)],
        capture_output=True, text=True, timeout=180)
    out = outdir / (path.stem + "." + fmt.split(":")[0])
    assert proc.returncode == 0 and out.exists() and out.stat().st_size > 500, proc.stdout + proc.stderr
    return out
