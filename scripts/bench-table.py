#!/usr/bin/env python3
"""The markdown table of a `scripts/bench-rounds` log: per round the base, ours on two threads
and on one, with the ratios issue 17 sets its targets in (theme p50 and tap/theme p99 over the
yardstick, the page from scratch over ThorVG from scratch, the cached drag over Blend2D from
scratch), then the targets' counts over all rounds.

Usage: scripts/bench-table.py ROUNDS.log [--base-label LABEL]   (python3, standard library only)"""
import re
import signal
import statistics
import sys

# Piped into `head`, stop quietly when the reader goes away (no traceback).
signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def fail(message):
    sys.exit(f"bench-table: {message}")


def yardstick(section, where):
    m = re.search(r"yardstick: .*p50 ([\d.]+) ms", section)
    if not m:
        fail(f"{where}: no yardstick line")
    return float(m.group(1))


def scenario(section, name, where):
    for line in section.split("\n"):
        if line.startswith(name + " ") or line.startswith(name + "*"):
            f = line.split()
            try:
                return dict(p50=float(f[2]), p99=float(f[4]), r50=float(f[6]), r99=float(f[7]),
                            cpu=float(f[8]), share=f[-1])
            except (IndexError, ValueError):
                fail(f"{where}: cannot read the {name} row: {line!r}")
    fail(f"{where}: no {name} row")


def peak_rss(section):
    m = re.search(r"peak RSS ([\d.]+)", section)
    return m.group(1) if m else "—"


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        fail("usage: scripts/bench-table.py ROUNDS.log [--base-label LABEL]")
    label = "base"
    if "--base-label" in argv:
        i = argv.index("--base-label")
        if i + 1 >= len(argv):
            fail("--base-label needs a value")
        label = argv[i + 1]
    try:
        text = open(argv[1], encoding="utf-8").read()
    except OSError as e:
        fail(f"{argv[1]}: {e.strerror}")
    rounds = text.split("=== round ")[1:]
    if not rounds:
        fail(f"{argv[1]}: no '=== round' in it (a scripts/bench-rounds log?)")
    print("| round | build | yd p50 | theme p50 (×yd) | theme p99/yd | tap p99/yd | ambient p50 / p99 "
          "| drag p50 / p99 | cpu@60 Hz theme | from scratch p50 (cpu) | ThorVG | Blend2D | scratch/ThorVG "
          "| drag/Blend2D | peak RSS |")
    print("|" + "---|" * 15)
    new = {"p50": [], "theme99": [], "tap99": [], "scratch": [], "drag": []}
    for r in rounds:
        head = r.split("\n")[0]
        number, load = head.split()[0], head.split()[-1]
        where = f"round {number}"
        sections = {part.split("\n")[0]: part for part in r.split("--- ")[1:]}
        for needed in ("base bench", "new bench (2 threads)", "new bench --threads 1", "base full-redraw",
                       "new full-redraw (2 threads)", "peers"):
            if needed not in sections:
                fail(f"{where}: no '--- {needed}' section")
        peers = {}
        for line in sections["peers"].split("\n"):
            f = line.split()
            if f and f[0] in ("thorvg", "blend2d"):
                peers[f[0]] = float(f[1])
        if set(peers) != {"thorvg", "blend2d"}:
            fail(f"{where}: the peers' thorvg and blend2d lines are missing")
        for key, build, full in (("base bench", label, "base full-redraw"),
                                 ("new bench (2 threads)", "now, 2 threads", "new full-redraw (2 threads)"),
                                 ("new bench --threads 1", "now, 1 thread", None)):
            s = sections[key]
            w = f"{where}, {key}"
            y = yardstick(s, w)
            theme, tap = scenario(s, "theme", w), scenario(s, "tap", w)
            ambient, drag = scenario(s, "ambient", w), scenario(s, "drag", w)
            if full:
                fr = scenario(sections[full], "drag", f"{where}, {full}")
                scratch = f"{fr['p50']:.2f} ({fr['cpu']:.2f})"
                ratio = fr["p50"] / peers["thorvg"]
                ratio_text = f"{ratio:.2f}"
            else:
                scratch, ratio, ratio_text = "—", None, "—"
            drag_ratio = drag["p50"] / peers["blend2d"]
            print(f"| {number} (load {load}) | {build} | {y:.3f} | {theme['p50']:.3f} ({theme['r50']:.2f}) "
                  f"| {theme['r99']:.2f} | {tap['r99']:.2f} | {ambient['p50']:.3f} / {ambient['p99']:.3f} "
                  f"| {drag['p50']:.3f} / {drag['p99']:.3f} | {theme['share']} | {scratch} | {peers['thorvg']:.2f} "
                  f"| {peers['blend2d']:.3f} | {ratio_text} | {drag_ratio:.3f} | {peak_rss(s)} |")
            if build == "now, 2 threads":
                new["p50"].append(theme["r50"])
                new["theme99"].append(theme["r99"])
                new["tap99"].append(tap["r99"])
                new["scratch"].append(ratio)
                new["drag"].append(drag_ratio)
    n = len(rounds)
    print()
    print(f"Ours on two threads, {n} rounds:")
    for name, values, limit in (("theme p50 ≤ 2× yd", new["p50"], 2), ("theme p99 ≤ 3× yd", new["theme99"], 3),
                                ("tap p99 ≤ 3× yd", new["tap99"], 3), ("from scratch ≤ 0.18× ThorVG", new["scratch"], 0.18),
                                ("cached drag ≤ 0.1× Blend2D", new["drag"], 0.1)):
        print(f"- {name}: {min(values):.3f}–{max(values):.3f}, median {statistics.median(values):.3f}, "
              f"within the target in {sum(v <= limit for v in values)} of {n}")


if __name__ == "__main__":
    main(sys.argv)
