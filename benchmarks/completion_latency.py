"""How long the ghost text takes to come back as the translator types (issue 47): each held-out
sentence's reference translation is typed one character at a time into a simulated target box, and
the completion is refreshed through the editor's engine process (``RemoteTranslator.suggest`` with
the typed prefix, as ``app/suggest.NMTService.complete`` asks it) wherever the box's logic asks for one:

    a keystroke along the ghost text         the ghost text follows (app/ghost.Ghost.follow): no request
    the suggestion continues what is typed   its rest is the ghost text: no request
    anything else                            one refresh, timed from the request to the answer (wall)

Before the first keystroke of each segment its plain suggestion is asked (entering the segment).
Held-out text: the last ``--docs`` manuals of the shared KDE corpus (benchmarks/completion_keystrokes.py).
Goal: refresh p95 <= 100 ms on the shared 2-core VM.  Run from the repository root:

    .venv/bin/python -m benchmarks.completion_latency --model resources/models/demo --docs 2 --max 40
    .venv/bin/python -m benchmarks.completion_latency --pace-ms 150   (typing at a pace, as the editor asks)
    .venv/bin/python -m benchmarks.completion_latency --model $PWD/resources/models/demo --tree /tmp/base  (interleaved)
    .venv/bin/python -m benchmarks.completion_latency --in-process   (CPU seconds a refresh, one thread: load-proof)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time

from benchmarks import compare
from benchmarks.completion_keystrokes import held_out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def type_segment(tr, src: str, ref: str, beam: int, cbeam: int,
                 clock=time.perf_counter) -> tuple[list[float], int, int, float]:
    """(refresh times in ms, keystrokes, keystrokes served without a request, suggestion ms); ``clock``:
    wall (perf_counter) or, in process, CPU time (process_time)."""
    from app.ghost import Ghost
    from engine.nmt.editorbeam import suggestion_beam
    from engine.nmt.results import TranslationRequest

    t0 = clock()  # the editor's beams: the suggestion's by length, the completion's COMPLETION_BEAM
    sug = tr.suggest(TranslationRequest(src, "", (), None, ()), beam=suggestion_beam(src, beam)).text
    sug_ms = 1000 * (clock() - t0)
    ghost, times, free = Ghost(), [], 0
    for i in range(1, len(ref) + 1):
        typed = ref[:i]
        if ghost.follow(typed):
            free += 1
            continue
        if not typed.strip():
            continue
        if sug.startswith(typed) and len(sug) > len(typed):
            ghost.set(typed, sug[len(typed):])
            free += 1
            continue
        t0 = clock()
        out = tr.suggest(TranslationRequest(src, typed, (), None, ()), beam=min(beam, cbeam)).text
        times.append(1000 * (clock() - t0))
        if out.startswith(typed) and len(out) > len(typed):
            ghost.set(typed, out[len(typed):])
    return times, len(ref), free, sug_ms


def type_paced(tr, src: str, ref: str, beam: int, cbeam: int, pace: float,
               keep: bool = False) -> tuple[list[float], int, int]:
    """The same typing at one keystroke every ``pace`` seconds, as the editor asks: a refresh runs on a
    thread of its own, a newer keystroke that needs one stops it (its search ends at its next step) and an
    answer for a text no longer typed is dropped.  ``keep``: a keystroke that continues the text under way
    lets it run; its answer is the ghost text where what is typed now continues along it, else what is
    typed now is asked at once.  (ms from each answered keystroke to its answer, refreshes stopped,
    answers dropped)."""
    from app.ghost import Ghost
    from engine.nmt.editorbeam import suggestion_beam
    from engine.nmt.results import Stopped, TranslationRequest

    sug = tr.suggest(TranslationRequest(src, "", (), None, ()), beam=suggestion_beam(src, beam)).text
    ghost, lock, now = Ghost(), threading.Lock(), {"typed": ""}
    shown: list[float] = []
    counts = {"stopped": 0, "dropped": 0}
    running: list[dict] = []

    def refresh(job: dict) -> None:
        try:
            if job["stop"]:  # superseded before it started (the editor's queued worker never runs)
                raise Stopped()
            out = tr.suggest(TranslationRequest(src, job["typed"], (), None, ()), beam=min(beam, cbeam),
                             stop=lambda: job["stop"]).text
        except Stopped:
            counts["stopped"] += 1
            return
        with lock:
            typed = now["typed"]
            if typed == job["typed"] or (keep and typed.startswith(job["typed"]) and out.startswith(typed)):
                shown.append(1000 * (time.perf_counter() - job["t"]))
                if out.startswith(typed):
                    ghost.set(typed, out[len(typed):])
            else:
                counts["dropped"] += 1
                if keep:  # typed on past it: asked again for what is typed now
                    ask(typed)

    def ask(typed: str) -> None:
        job = {"typed": typed, "t": time.perf_counter(), "stop": False}
        job["thread"] = threading.Thread(target=refresh, args=(job,))
        job["thread"].start()
        running[:] = [j for j in running if j["thread"].is_alive()] + [job]

    start = time.perf_counter()
    for i in range(1, len(ref) + 1):
        time.sleep(max(0.0, start + i * pace - time.perf_counter()))
        typed = ref[:i]
        with lock:
            now["typed"] = typed
            if ghost.follow(typed) or not typed.strip():
                continue
            if sug.startswith(typed) and len(sug) > len(typed):
                ghost.set(typed, sug[len(typed):])
                continue
        live = [j for j in running if j["thread"].is_alive() and not j["stop"]]
        if keep and live and typed.startswith(live[-1]["typed"]):
            continue  # typed on along it: its answer may still be the ghost text
        for job in running:
            job["stop"] = True
        ask(typed)
    while any(j["thread"].is_alive() for j in running):
        for job in list(running):
            job["thread"].join()
    return shown, counts["stopped"], counts["dropped"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resources/models/demo")
    ap.add_argument("--docs", type=int, default=2)
    ap.add_argument("--max", type=int, default=40, help="sentences")
    ap.add_argument("--beam", type=int, default=5, help="the editor's setting (default 5)")
    ap.add_argument("--threads", type=int, default=0, help="engine threads (0: automatic, as the editor)")
    ap.add_argument("--no-quantize", action="store_true", help="fp32 engine (the editor quantises by default)")
    ap.add_argument("--pace-ms", type=float, default=0,
                    help="type one character every N ms, refreshes superseded as in the editor (0: one after another)")
    ap.add_argument("--keep-running", action="store_true",
                    help="with --pace-ms: a keystroke along the text under way does not stop its refresh")
    ap.add_argument("--completion-beam", type=int, default=0, help="0: the editor's (app.suggest.COMPLETION_BEAM)")
    ap.add_argument("--in-process", action="store_true",
                    help="the engine in this process, one thread, each refresh timed in CPU seconds (load-proof)")
    if compare.run_if_asked("completion_latency"):  # --tree OTHER [--rounds N]: both checkouts, interleaved
        return
    args = ap.parse_args()
    from app.suggest import COMPLETION_BEAM
    from engine.nmt.remote import RemoteTranslator

    cbeam = args.completion_beam or COMPLETION_BEAM
    if args.pace_ms:
        return paced(args, cbeam)

    load0 = os.getloadavg()[0]
    clock = time.perf_counter
    if args.in_process:
        from engine.nmt.translator import Translator

        tr, clock = Translator.load(args.model, threads=1, quantize=not args.no_quantize), time.process_time
        tr.close = lambda: None
    else:
        tr = RemoteTranslator(args.model, threads=args.threads, quantize=not args.no_quantize)
    try:
        pairs = held_out(args.docs, args.max)
        times: list[float] = []
        sugs: list[float] = []
        firsts: list[float] = []
        later: list[float] = []
        keys = free = 0
        t0 = time.perf_counter()
        for src, ref in pairs:
            t, k, f, s = type_segment(tr, src, ref, args.beam, cbeam, clock)
            times += t
            firsts += t[:1]
            later += t[1:]
            sugs.append(s)
            keys, free = keys + k, free + f
        dt = time.perf_counter() - t0
    finally:
        tr.close()
    print(f"{len(pairs)} sentences, {keys} keystrokes: {len(times)} refreshes, {free} keystrokes served "
          f"by the ghost text or the suggestion ({free / max(keys, 1):.0%}); {dt:.0f} s")
    print(f"refresh ms: p50 {pct(times, .5):.0f}  p95 {pct(times, .95):.0f}  max {max(times):.0f}  "
          f"mean {statistics.fmean(times):.0f}")
    print(f"a segment's first refresh ms: p50 {pct(firsts, .5):.0f}  p95 {pct(firsts, .95):.0f}; "
          f"later ones: p50 {pct(later, .5):.0f}  p95 {pct(later, .95):.0f}")
    print(f"suggestion on entering ms: p50 {pct(sugs, .5):.0f}  p95 {pct(sugs, .95):.0f}")
    print(f"load average (1 min) before {load0:.1f}, after {os.getloadavg()[0]:.1f}; "
          f"quantized {tr.quantized}, beam {args.beam}, completion beam {min(args.beam, cbeam)}")
    print(json.dumps({"refreshes": len(times), "refresh_ms": {"p50": pct(times, .5), "p95": pct(times, .95),
                      "max": max(times), "mean": statistics.fmean(times)},
                      "first_ms": {"p50": pct(firsts, .5), "p95": pct(firsts, .95)},
                      "later_ms": {"p50": pct(later, .5), "p95": pct(later, .95)},
                      "load_before": load0, "load_after": os.getloadavg()[0]}))


def paced(args, cbeam: int) -> None:
    from engine.nmt.remote import RemoteTranslator

    load0 = os.getloadavg()[0]
    tr = RemoteTranslator(args.model, threads=args.threads, quantize=not args.no_quantize)
    shown: list[float] = []
    stopped = dropped = 0
    try:
        pairs = held_out(args.docs, args.max)
        for src, ref in pairs:
            t, st, dr = type_paced(tr, src, ref, args.beam, cbeam, args.pace_ms / 1000, args.keep_running)
            shown, stopped, dropped = shown + t, stopped + st, dropped + dr
    finally:
        tr.close()
    print(f"{len(pairs)} sentences typed at {args.pace_ms:.0f} ms a keystroke: {len(shown)} completions shown, "
          f"{stopped} stopped by a newer keystroke, {dropped} answered too late (dropped)")
    print(f"keystroke to ghost text ms: p50 {pct(shown, .5):.0f}  p95 {pct(shown, .95):.0f}  max {max(shown):.0f}")
    print(f"load average (1 min) before {load0:.1f}, after {os.getloadavg()[0]:.1f}; completion beam "
          f"{min(args.beam, cbeam)}{'; keystrokes along a refresh under way keep it' if args.keep_running else ''}")


if __name__ == "__main__":
    main()
