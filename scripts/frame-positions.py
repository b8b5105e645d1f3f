#!/usr/bin/env python3
"""Where in a page redraw the slow frames fall: reads a `bench --frames-json FILE` document and,
for each scenario, groups the frames that redraw most of the page (a cross-fade: at least half
its pixels) by their position in the run of such frames (1 = the first frame of a fade), and
prints each position's median wall and CPU time; then the other frames, and the slowest frames
with their positions.

Usage: scripts/frame-positions.py FRAMES.json   (python3, standard library only)

Example (the cross-fades of `tap`, two threads):
    .build/release/darkmode-kiosk bench --size 1920x1080 --scale 2 --scenario tap --frames 1200 \\
        --frames-json /tmp/frames.json
    scripts/frame-positions.py /tmp/frames.json"""
import json
import signal
import statistics
import sys

# Piped into `head`, stop quietly when the reader goes away (no traceback).
signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def fail(message):
    sys.exit(f"frame-positions: {message}")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read it ({e.strerror})")
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg})")
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        fail(f"{path}: no \"scenarios\" list: is it a `bench --frames-json` document?")
    size = doc.get("size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) and v > 0 for v in size)):
        fail(f"{path}: \"size\" must be [width, height]")
    return doc, int(size[0]) * int(size[1])


def columns(scenario, index, path):
    name = scenario.get("name", f"#{index}")
    lists = [scenario.get(k) for k in ("wall_ms", "cpu_ms", "pixels")]
    if not all(isinstance(v, list) and all(isinstance(x, (int, float)) for x in v) for v in lists):
        fail(f"{path}: scenario {name}: wall_ms, cpu_ms and pixels must be lists of numbers")
    if len({len(v) for v in lists}) != 1:
        fail(f"{path}: scenario {name}: wall_ms, cpu_ms and pixels differ in length")
    return name, lists


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    path = argv[1]
    doc, page = load(path)
    print(f"{path}: {doc['size'][0]}x{doc['size'][1]}, {doc.get('threads', '?')} thread(s); "
          f"a page redraw = a frame that changes at least half of its {page} pixels")
    for index, scenario in enumerate(doc["scenarios"]):
        name, (wall, cpu, pixels) = columns(scenario, index, path)
        positions, run = [], 0
        for px in pixels:
            run = run + 1 if px * 2 >= page else 0
            positions.append(run)
        print(f"\n{name}: {len(wall)} frames, {sum(1 for p in positions if p == 1)} page redraws begun")
        print(f"{'position':>9} {'frames':>7} {'wall p50 ms':>12} {'cpu p50 ms':>11} {'pixels p50':>11}")
        for p in sorted(set(positions)):
            at = [i for i, q in enumerate(positions) if q == p]
            label = "other" if p == 0 else str(p)
            print(f"{label:>9} {len(at):>7} {statistics.median(wall[i] for i in at):>12.3f} "
                  f"{statistics.median(cpu[i] for i in at):>11.3f} {int(statistics.median(pixels[i] for i in at)):>11}")
        slowest = sorted(range(len(wall)), key=lambda i: -wall[i])[:max(1, len(wall) // 100)]
        print("slowest 1 %: " + ", ".join(f"frame {i} (position {positions[i] or 'other'}) {wall[i]:.3f} ms"
                                          for i in slowest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
