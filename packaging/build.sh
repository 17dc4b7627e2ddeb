#!/usr/bin/env bash
# Build Verso's one-folder bundle (PyInstaller) and its Debian package.
#
#   packaging/build.sh            # bundle + .deb   -> dist/verso/, dist/verso_VERSION_amd64.deb
#   packaging/build.sh --bundle   # bundle only
#   packaging/build.sh --deb      # .deb from an existing dist/verso/
#
# Needs: a virtualenv with Verso and PyInstaller (pip install -e ".[bundle]"),
# dpkg-deb.  No downloads.  PYTHON=... picks the interpreter (default .venv/bin/python).
# Sizes of the bundle's large parts go to dist/size-report.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
DIST="$ROOT/dist"
WORK="$ROOT/build"
BUNDLE="$DIST/verso"
DO_BUNDLE=1
DO_DEB=1
case "${1:-}" in
    --bundle) DO_DEB=0 ;;
    --deb) DO_BUNDLE=0 ;;
    "") ;;
    *) echo "usage: $0 [--bundle|--deb]" >&2; exit 2 ;;
esac

VERSION="$("$PYTHON" -c 'import engine; print(engine.__version__)')"
ARCH="$(dpkg --print-architecture 2>/dev/null || echo amd64)"

if [ "$DO_BUNDLE" = 1 ]; then
    "$PYTHON" -c 'import PyInstaller' 2>/dev/null || {
        echo "build.sh: PyInstaller is missing: $PYTHON -m pip install -e '.[bundle]'" >&2; exit 1; }
    t0=$(date +%s)
    nice -n "${NICE:-10}" "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
        --distpath "$DIST" --workpath "$WORK/pyinstaller" packaging/verso.spec
    if [ "$(uname -s)" = Linux ] && [ "${VERSO_NO_STRIP:-0}" != 1 ] && command -v strip >/dev/null; then
        "$PYTHON" -c 'import sys; sys.path.insert(0, "packaging"); import bundle_config as c; from pathlib import Path
print("\n".join(map(str, c.strip_targets(Path(sys.argv[1])))))' "$BUNDLE/_internal" |
        while read -r lib; do strip --strip-unneeded "$lib" && echo "build.sh: stripped $lib"; done
    fi
    t1=$(date +%s)
    echo "build.sh: bundle built in $((t1 - t0)) s: $BUNDLE"
    {
        echo "# Verso bundle sizes (du -s, MB), $(date -u +%Y-%m-%dT%H:%MZ), build $((t1 - t0)) s"
        echo "total $(du -sm "$BUNDLE" | cut -f1)"
        I="$BUNDLE/_internal"
        for p in torch torch/lib PySide6 PySide6/Qt/lib PySide6/Qt/plugins numpy numpy.libs lxml rapidfuzz \
                 sentencepiece resources base_library.zip libpython3.11.so.1.0; do
            [ -e "$I/$p" ] && echo "$p $(du -sm "$I/$p" | cut -f1)"
        done
        echo "largest files:"
        find "$BUNDLE" -type f -size +4M -printf '%s %P\n' | sort -rn | awk '{printf "  %6.1f %s\n", $1/1048576, $2}'
    } > "$DIST/size-report.txt"
    cat "$DIST/size-report.txt"
fi

if [ "$DO_DEB" = 1 ]; then
    [ -x "$BUNDLE/verso" ] || { echo "build.sh: no bundle at $BUNDLE (run without --deb first)" >&2; exit 1; }
    STAGE="$WORK/deb/verso_${VERSION}_${ARCH}"
    rm -rf "$STAGE"
    mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
             "$STAGE/usr/share/mime/packages" "$STAGE/usr/share/icons/hicolor/scalable/apps" \
             "$STAGE/usr/share/doc/verso"
    cp -a "$BUNDLE" "$STAGE/opt/verso"
    # Relative, so that `dpkg -x` into any root gives a working launcher too.
    ln -s ../../opt/verso/verso "$STAGE/usr/bin/verso"
    install -m 644 packaging/linux/verso.desktop "$STAGE/usr/share/applications/verso.desktop"
    install -m 644 packaging/linux/verso-mime.xml "$STAGE/usr/share/mime/packages/verso.xml"
    install -m 644 packaging/icons/verso.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/verso.svg"
    for s in 16 32 48 64 128 256; do
        d="$STAGE/usr/share/icons/hicolor/${s}x${s}/apps"
        mkdir -p "$d" && install -m 644 "packaging/icons/verso-$s.png" "$d/verso.png"
    done
    install -m 644 README.md "$STAGE/usr/share/doc/verso/README.md"
    DEPENDS="$(grep -v '^\s*\(#\|$\)' packaging/debian-deps.txt | paste -sd, - | sed 's/,/, /g')"
    SIZE_KB="$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)"
    sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@DEPENDS@/libc6 (>= 2.36), $DEPENDS/" \
        -e "s/@SIZE@/$SIZE_KB/" packaging/linux/control.in > "$STAGE/DEBIAN/control"
    # shared-mime-info, desktop-file-utils and hicolor-icon-theme refresh their
    # caches through dpkg triggers: no maintainer scripts needed.
    chmod -R u+rwX,go+rX,go-w "$STAGE"
    DEB="$DIST/verso_${VERSION}_${ARCH}.deb"
    t0=$(date +%s)
    nice -n "${NICE:-10}" dpkg-deb --root-owner-group -Z"${DEB_COMPRESS:-xz}" --build "$STAGE" "$DEB"
    t1=$(date +%s)
    echo "build.sh: $DEB ($(du -m "$DEB" | cut -f1) MB, dpkg-deb $((t1 - t0)) s)"
fi
