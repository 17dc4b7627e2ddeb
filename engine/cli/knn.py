"""``verso knn calibrate``: the nearest-neighbour memory's T_lambda for a model folder.

torch is imported inside the handler, so other command groups start fast.
"""
from __future__ import annotations

from engine.cli import print_json


def register(sub) -> None:
    g = sub.add_parser("knn", help="the nearest-neighbour memory over retrieved TM pairs (every model)")
    gs = g.add_subparsers(dest="knn_command", metavar="COMMAND")
    p = gs.add_parser("calibrate", help="measure T_lambda on a dev set with a TM and save it in the model folder "
                                        "(knn.json); `verso train` and `verso finetune` do this themselves")
    p.add_argument("--model", required=True, metavar="DIR")
    p.add_argument("--tm", required=True, metavar="TM", help="the TM the dev sentences' pairs come from "
                                                              "(e.g. of the training data, never the dev set)")
    p.add_argument("--src", required=True, metavar="FILE", help="dev sources, one a line")
    p.add_argument("--ref", required=True, metavar="FILE", help="dev references, one a line")
    p.add_argument("--k", type=int, default=2, help="retrieved pairs per sentence (default 2)")
    p.add_argument("--min-score", type=float, default=None, metavar="S",
                   help="minimum match of a pair read (default: the editor's, retrieval.MEMORY_MIN_SCORE)")
    p.add_argument("--max-sentences", type=int, default=1000, metavar="N")
    p.add_argument("--no-compare", action="store_true",
                   help="do not decode the dev set with the learned memory to choose what --memory auto reads")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: automatic, engine/nmt/threads.py)")
    p.set_defaults(handler=cmd_calibrate)


def cmd_calibrate(args) -> int:
    from engine.cli.nmt import _open_tm, _read_parallel
    from engine.nmt import threads
    from engine.nmt.knn_calibrate import calibrate_folder

    threads.use(args.threads)  # kept by the model's load below (an explicit count outlives it)
    srcs, refs = _read_parallel(args.src, args.ref)
    tm = _open_tm(args)
    settings = calibrate_folder(args.model, srcs, refs, tm, k=args.k, min_score=args.min_score,
                                max_sentences=args.max_sentences, compare_learned=not args.no_compare,
                                where=str(args.src))
    print_json({"model": args.model, "t_lambda": settings.t_lambda, "k": settings.k, "auto": settings.auto,
                "calibration": settings.calibration})
    return 0
