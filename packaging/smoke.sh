#!/usr/bin/env bash
# Smoke-test a built Verso bundle and its .deb, as a translator's machine would run them:
# an empty environment (env -i: no PATH with Python on it, a fresh HOME).
#
#   packaging/smoke.sh [BUNDLE_DIR] [DEB]     # defaults: dist/verso, dist/verso_*.deb
#
# For the bundle, then for the .deb unpacked with `dpkg -x` into a temporary root:
#   verso --help; verso doc import of a small file; verso translate with the demo
#   model; the editor without a display (must explain, not crash); the editor on
#   the demo project for 20 s under Xvfb (+ openbox), with a screenshot.
# Needs Xvfb, and ImageMagick's `import` for the screenshot (apt-get install xvfb
# imagemagick openbox).  Screenshots: dist/smoke-*.png.  Exit status 0 = all passed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUNDLE="${1:-$ROOT/dist/verso}"
DEB="${2:-$(ls "$ROOT"/dist/verso_*.deb 2>/dev/null | tail -1)}"
STAY="${SMOKE_STAY:-20}"
OUTDIR="$ROOT/dist"
FAIL=0
TMP="$(mktemp -d /tmp/verso-smoke.XXXXXX)"
EMPTYBIN="$TMP/emptybin"   # PATH holds nothing: no python, no shell tools
mkdir -p "$EMPTYBIN"
XVFB_PID=""
cleanup() { [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
ok() { echo "  ok    $*"; }
bad() { echo "  FAIL  $*"; FAIL=1; }

run_clean() {  # run_clean HOME [VAR=VAL...] -- CMD...: env -i with a fresh HOME and an empty PATH
    local home="$1"; shift
    local vars=()
    while [ "$1" != "--" ]; do vars+=("$1"); shift; done
    shift
    env -i HOME="$home" PATH="$EMPTYBIN" LANG=C.UTF-8 "${vars[@]}" "$@"
}

start_xvfb() {
    local n
    for n in $(seq 91 120); do
        [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] && continue
        Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
        XVFB_PID=$!
        DISPLAY_NUM=":$n"
        for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
        if command -v openbox >/dev/null; then DISPLAY=":$n" openbox >/dev/null 2>&1 & fi
        return 0
    done
    return 1
}

smoke() {  # smoke LABEL VERSO_EXECUTABLE MODEL_DIR
    local label="$1" verso="$2" model="$3"
    local home="$TMP/home-$label" work="$TMP/work-$label"
    mkdir -p "$home" "$work"
    echo "== $label: $verso"
    local t0 t1 out

    t0=$(date +%s.%N)
    if out=$(run_clean "$home" -- "$verso" --help 2>&1) && grep -q "usage: verso" <<<"$out"; then
        ok "verso --help ($(since "$t0") s)"
    else bad "verso --help: $out"; fi

    printf 'Open the file.\nSave your work before you close the window.\n' > "$work/sample.txt"
    t0=$(date +%s.%N)
    if out=$(run_clean "$home" -- "$verso" doc import "$work/sample.txt" --project "$work/proj" \
                --src-lang en --tgt-lang de 2>&1) && [ -f "$work/proj/project.verso" ]; then
        ok "verso doc import ($(since "$t0") s): $(tr -d '\n' <<<"$out" | cut -c1-100)"
    else bad "verso doc import: $out"; fi
    if out=$(run_clean "$home" -- "$verso" doc list --project "$work/proj" 2>&1) && grep -q sample <<<"$out"; then
        ok "verso doc list"
    else bad "verso doc list: $out"; fi

    t0=$(date +%s.%N)
    if out=$(printf 'Open the file.\nSave your work.\n' | run_clean "$home" -- "$verso" translate --model "$model" \
                2>"$work/translate.err") && [ "$(grep -c . <<<"$out")" -ge 2 ]; then
        ok "verso translate ($(since "$t0") s): $(tr '\n' '|' <<<"$out")"
    else bad "verso translate: $out $(cat "$work/translate.err")"; fi
    if grep -qi "warning\|traceback" "$work/translate.err"; then
        bad "verso translate wrote warnings: $(head -3 "$work/translate.err")"; fi

    if out=$(run_clean "$home" -- "$verso" 2>&1); [ $? -eq 1 ] && grep -q "cannot open the editor" <<<"$out" \
            && ! grep -q Traceback <<<"$out"; then
        ok "editor without a display explains: $(head -1 <<<"$out" | cut -c1-90)"
    else bad "editor without a display: $out"; fi

    if [ -z "$XVFB_PID" ]; then bad "no Xvfb: editor not tested"; return; fi
    run_clean "$home" DISPLAY="$DISPLAY_NUM" -- "$verso" > "$work/editor.log" 2>&1 &
    local pid=$!
    sleep "$STAY"
    if kill -0 "$pid" 2>/dev/null; then
        local shot="$OUTDIR/smoke-$label.png"
        if command -v import >/dev/null; then
            DISPLAY="$DISPLAY_NUM" import -window root "$shot" 2>/dev/null
            local colors
            colors=$(/usr/bin/convert "$shot" -format %k info: 2>/dev/null || echo 0)
            if [ "${colors:-0}" -gt 50 ]; then ok "editor up ${STAY} s under Xvfb; screenshot $shot ($colors colours)"
            else bad "editor up but the screenshot looks blank ($colors colours): $shot"; fi
        else ok "editor up ${STAY} s under Xvfb (no ImageMagick: no screenshot)"; fi
        kill "$pid"; wait "$pid" 2>/dev/null
    else
        wait "$pid"; bad "editor exited within ${STAY} s (status $?): $(tail -5 "$work/editor.log")"
    fi
    if grep -q Traceback "$work/editor.log"; then bad "editor log has a traceback: $(tail -5 "$work/editor.log")"; fi
    [ -f "$home/.local/share/verso/demo-project/project.verso" ] && ok "demo project created in the fresh HOME" \
        || bad "no demo project in the fresh HOME"
}

command -v Xvfb >/dev/null && start_xvfb || echo "smoke.sh: Xvfb not found (apt-get install xvfb)"

if [ -x "$BUNDLE/verso" ]; then
    smoke bundle "$BUNDLE/verso" "$BUNDLE/_internal/resources/models/demo"
else bad "no bundle at $BUNDLE (packaging/build.sh)"; fi

if [ -n "$DEB" ] && [ -f "$DEB" ]; then
    R="$TMP/root"
    dpkg -x "$DEB" "$R" && ok "dpkg -x $(basename "$DEB")" || bad "dpkg -x $DEB"
    for f in usr/bin/verso usr/share/applications/verso.desktop usr/share/mime/packages/verso.xml \
             usr/share/icons/hicolor/scalable/apps/verso.svg usr/share/icons/hicolor/48x48/apps/verso.png; do
        [ -e "$R/$f" ] || bad "the .deb lacks /$f"
    done
    if command -v desktop-file-validate >/dev/null; then
        desktop-file-validate "$R/usr/share/applications/verso.desktop" && ok "desktop-file-validate"
    fi
    dpkg-deb -f "$DEB" Depends | grep -q libxcb-cursor0 && ok "Depends: $(dpkg-deb -f "$DEB" Depends | cut -c1-80)..." \
        || bad "Depends lacks the Qt xcb libraries"
    smoke deb "$R/usr/bin/verso" "$R/opt/verso/_internal/resources/models/demo"
else bad "no .deb (packaging/build.sh)"; fi

[ "$FAIL" = 0 ] && echo "smoke.sh: all passed" || echo "smoke.sh: FAILED"
exit "$FAIL"
