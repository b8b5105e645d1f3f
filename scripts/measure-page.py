#!/usr/bin/env python3
"""Measures a rendered page against a SwiftUI screenshot: vertical bands (labels, toggles,
button capsule) below the status bar, their top/bottom and left/right pixel extents.
Usage: measure-page.py IMAGE [IMAGE...]   (pyenv python with Pillow + numpy)"""
import sys
import numpy as np
from PIL import Image

def bands(path, top=70, thr=int(__import__("os").environ.get("THR", "30"))):
    a = np.asarray(Image.open(path).convert("RGB")).astype(int)
    h, w, _ = a.shape
    bg = a[h - 40, 10]
    diff = np.abs(a - bg).sum(axis=2) > thr
    diff[:top] = False
    rows = diff.any(axis=1)
    out, y = [], 0
    while y < h:
        if rows[y]:
            y0 = y
            while y < h and rows[y]:
                y += 1
            cols = np.where(diff[y0:y].any(axis=0))[0]
            out.append((y0, y - 1, int(cols.min()), int(cols.max())))
        y += 1
    return [b for b in out if b[1] - b[0] >= 3]

names = ["label Original", "toggle Original", "label Vivid", "toggle Vivid", "button"]
results = {p: bands(p) for p in sys.argv[1:]}
for p, bs in results.items():
    print(p)
    prev = None
    for n, (y0, y1, x0, x1) in zip(names + ["?"] * 10, bs):
        gap = "" if prev is None else f" gap above {y0 - prev - 1}"
        print(f"  {n:16s} y {y0}-{y1} (h {y1 - y0 + 1}) x {x0}-{x1} (w {x1 - x0 + 1}){gap}")
        prev = y1
