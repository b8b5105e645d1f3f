#!/usr/bin/env python3
"""Fidelity check of our toggle renderer against the SwiftUI reference screenshots.

For each mode (light, dark) the script
  1. finds the upper ("Original") toggle in the reference screenshot: best component width
     and sub-pixel placement, by rendering ours supersampled (k x) with `darkmode-kiosk render`,
     box-downsampling (as the screenshot was downscaled) and minimising the MSE;
  2. estimates the ambient animation state of the screenshot (cloud group offsets by day,
     star group opacities by night), maps it to the ambient clock with the spec's timing
     curves and refines the clock with real renders;
  3. reports PSNR and SSIM (RGB, data_range 255) of ours against the reference crop, also
     with ours blurred by a small Gaussian and for a plain 1x render at the rounded width;
  4. prints diagnostic measurements (positions, colours, glow and shadow profiles);
  5. writes side-by-side images (reference | ours | amplified |difference|) and difference
     heat maps at 3x nearest-neighbour zoom.

Run from the repository root after `swift build`:
    python3 tools/fidelity/compare.py
See tools/fidelity/README.md for the options.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
from scipy.ndimage import gaussian_filter
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

REF_DIR = "/work/shared/reference"
MODES = {
    # mode: (progress, page colour of the screenshot)
    "light": (0.0, (236, 246, 255)),
    "dark": (1.0, (66, 66, 66)),
}
ROI = (40, 228, 330, 395)   # x0, y0, x1, y1 of the search area in the 368x800 screenshot
COARSE_MARGIN = 8          # page margin around the component in the coarse templates, px
MARGIN = 14                 # crop margin around the component box, px (covers glow and shadows)
ASPECT = 80 / 130


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------

class Renderer:
    """Calls `darkmode-kiosk render` and returns float RGB arrays (page is opaque)."""

    style = "original"

    def __init__(self, kiosk):
        if not os.path.isfile(kiosk) or not os.access(kiosk, os.X_OK):
            sys.exit(f"compare.py: renderer not found or not executable: {kiosk} (run `swift build` "
                     "first or pass --kiosk)")
        self.kiosk = kiosk
        self.tmp = tempfile.mkdtemp(prefix="fidelity-")
        self.count = 0

    def page(self, width, page_w, page_h, color, progress, time=None):
        out = os.path.join(self.tmp, "r.png")
        cmd = [self.kiosk, "render", "--out", out, "--width", str(int(width)),
               "--page", f"{int(page_w)}x{int(page_h)}", "--page-color", ",".join(map(str, color)),
               "--progress", str(progress)]
        if self.style != "original":
            cmd += ["--style", self.style]
        cmd += ["--static"] if time is None else ["--time", f"{time:.4f}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"compare.py: render failed ({' '.join(cmd)}): {res.stderr.strip()}")
        self.count += 1
        return np.asarray(Image.open(out).convert("RGB"), dtype=np.float64)


def box_down(a, k):
    h, w = a.shape[0] // k, a.shape[1] // k
    return a[:h * k, :w * k].reshape(h, k, w, k, -1).mean(axis=(1, 3))


def mse(a, b):
    return float(np.mean((a - b) ** 2))


class Placement:
    """Where the component sits in the reference: origin (x, y) of its box and its width, in
    reference pixels (fractional)."""

    def __init__(self, x, y, width):
        self.x, self.y, self.width = x, y, width

    @property
    def track_scale(self):
        return self.width / 173

    @property
    def track_origin_y(self):
        return self.y + (self.width * ASPECT - 69 * self.track_scale) / 2

    @property
    def celestial_scale(self):
        return self.width * 1.2 / 173

    def celestial_origin(self, position):
        cs = self.celestial_scale
        return (self.x + (-100 + 75 * position) * cs,
                self.y + (self.width * ASPECT - 84 * cs) / 2)

    def __repr__(self):
        return f"component origin ({self.x:.2f}, {self.y:.2f}) width {self.width:.2f}"


def render_crop(renderer, box, place, k, progress, color, time):
    """Ours, rendered at k x supersampling so that the component lands at `place` (to 1/k px),
    box-downsampled to the reference crop `box` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    wk = int(round(place.width * k))
    hk = int(round(wk * ASPECT))
    pad = 8 * k
    pw, ph = (x1 - x0) * k + 2 * pad + wk, (y1 - y0) * k + 2 * pad + hk
    img = renderer.page(wk, pw, ph, color, progress, time)
    ox, oy = (pw - wk) // 2, (ph - hk) // 2
    # crop start in the hi-res page so that the component origin maps to place.x/y
    cx = ox - int(round((place.x - x0) * k))
    cy = oy - int(round((place.y - y0) * k))
    crop = img[cy:cy + (y1 - y0) * k, cx:cx + (x1 - x0) * k]
    return box_down(crop, k)


def fit_placement(renderer, ref, progress, color, time, k, log):
    """Coarse 1x search over integer widths and offsets, then a k x sub-pixel refinement."""
    rx0, ry0, rx1, ry1 = VIVID_ROI if renderer.style == "vivid" else ROI
    best = None
    for w in range(214, 244, 2):
        h = int(round(w * ASPECT))
        m = COARSE_MARGIN
        tpl = renderer.page(w, w + 2 * m, h + 2 * m, color, progress, time)
        th, tw = tpl.shape[:2]
        for y in range(ry0, ry1 - th + 1):
            for x in range(rx0, rx1 - tw + 1):
                e = mse(ref[y:y + th, x:x + tw], tpl)
                if best is None or e < best[0]:
                    best = (e, w, x + m, y + m)
    e, w, x, y = best
    log(f"  coarse: width {w}, origin ({x}, {y}), MSE {e:.1f}")
    place = Placement(float(x), float(y), float(w))
    step = 1.0
    # coordinate descent on width, x, y with shrinking steps down to 1/k px
    while step >= 1.0 / k - 1e-9:
        improved = True
        while improved:
            improved = False
            box = crop_box(place)
            cur = mse(ref_crop(ref, box), render_crop(renderer, box, place, k, progress, color, time))
            for attr in ("width", "x", "y"):
                for d in (-step, step):
                    trial = Placement(place.x, place.y, place.width)
                    setattr(trial, attr, getattr(trial, attr) + d)
                    box_t = crop_box(trial)
                    e_t = mse(ref_crop(ref, box_t), render_crop(renderer, box_t, trial, k, progress, color, time))
                    if e_t < cur - 1e-6:
                        place, cur, improved = trial, e_t, True
                        break
                if improved:
                    break
        step /= 2
    log(f"  fine:   {place}, MSE {cur:.1f}")
    return place


def crop_box(place):
    """Reference crop: the track's frame (rounded outwards) plus MARGIN on every side (the
    component box itself has empty bands above and below the track)."""
    top = place.track_origin_y
    bottom = top + 69 * place.track_scale
    x0 = int(np.floor(place.x)) - MARGIN
    y0 = int(np.floor(top)) - MARGIN
    x1 = int(np.ceil(place.x + place.width)) + MARGIN
    y1 = int(np.ceil(bottom)) + MARGIN
    return x0, y0, x1, y1


def ref_crop(ref, box):
    x0, y0, x1, y1 = box
    return ref[y0:y1, x0:x1]


# ---------------------------------------------------------------------------------------------
# Ambient state: spec timing curves
# ---------------------------------------------------------------------------------------------

def bezier_value(x, x1, y1, x2, y2):
    """Vectorised CSS cubic-bezier y(x) by bisection on the parameter."""
    x = np.clip(np.asarray(x, dtype=np.float64), 0, 1)
    lo, hi = np.zeros_like(x), np.ones_like(x)
    for _ in range(40):
        t = (lo + hi) / 2
        xt = 3 * (1 - t) ** 2 * t * x1 + 3 * (1 - t) * t ** 2 * x2 + t ** 3
        less = xt < x
        lo = np.where(less, t, lo)
        hi = np.where(less, hi, t)
    t = (lo + hi) / 2
    return 3 * (1 - t) ** 2 * t * y1 + 3 * (1 - t) * t ** 2 * y2 + t ** 3


def autoreverse(t, duration, curve):
    u = np.mod(t, 2 * duration)
    leg = np.where(u <= duration, u, 2 * duration - u)
    return bezier_value(leg / duration, *curve)


CLOUD_CURVE = (0.25, 0.46, 0.45, 0.94)
EASE_IN_OUT = (0.42, 0, 0.58, 1)


def cloud_offsets(t, spec):
    durs = [g["duration"] for g in spec["dayScene"]["cloudGroups"]]
    return np.stack([5 + (-15) * autoreverse(t, d, CLOUD_CURVE) for d in durs], axis=-1)


STAR_DURATIONS = {1: 3, 2: 2, 3: 1, 4: 5}


def star_opacities(t):
    return np.stack([autoreverse(t, STAR_DURATIONS[g], EASE_IN_OUT) for g in (1, 2, 3, 4)], axis=-1)


# ---------------------------------------------------------------------------------------------
# Light: estimate cloud group offsets from the reference with a small cloud model
# ---------------------------------------------------------------------------------------------

def cloud_alpha(spec, place, box, offsets, ss=4):
    """Total white coverage of the four cloud groups (composited in spec order) per pixel of
    the crop, supersampled ss x ss."""
    x0, y0, x1, y1 = box
    s = place.track_scale
    ty = place.track_origin_y
    xs = (np.arange((x1 - x0) * ss) + 0.5) / ss + x0
    ys = (np.arange((y1 - y0) * ss) + 0.5) / ss + y0
    U = (xs[None, :] - place.x) / s
    V = (ys[:, None] - ty) / s
    r = spec["dayScene"]["cloudCircleRadius"]
    inv = np.ones((len(ys), len(xs)))
    for g, off in zip(spec["dayScene"]["cloudGroups"], offsets):
        cov = np.zeros_like(inv, dtype=bool)
        for cx, cy in g["circles"]:
            cov |= (U - cx) ** 2 + (V - cy - off) ** 2 <= r * r
        inv *= 1 - g["opacity"] * cov
    a = 1 - inv
    return a.reshape(y1 - y0, ss, x1 - x0, ss).mean(axis=(1, 3))


def cloud_region(place, box):
    """Track interior right of the sun's glow and away from the border strokes."""
    x0, y0, x1, y1 = box
    s = place.track_scale
    X = (np.arange(x0, x1) + 0.5 - place.x)[None, :] / s
    Y = (np.arange(y0, y1) + 0.5 - place.track_origin_y)[:, None] / s
    # inner rounded rect inset by 6 units, and x > 82 (sun + glow end near 75 units)
    cx = np.clip(X, 2 + 32.5, 171 - 32.5)
    inside = (X - cx) ** 2 + (Y - 34.5) ** 2 <= (32.5 - 6) ** 2
    return inside & (X > 82)


def estimate_cloud_offsets(spec, ref, place, log):
    box = crop_box(place)
    R = ref_crop(ref, box)[..., 0]
    region = cloud_region(place, box)
    offs = [0.0, 0.0, 0.0, 0.0]

    def err(o):
        a = cloud_alpha(spec, place, box, o, ss=3)[region]
        y = R[region]
        # model R = 255 a + sky (1 - a); closed-form best sky
        w = 1 - a
        sky = float(np.sum((y - 255 * a) * w) / max(np.sum(w * w), 1e-9))
        return float(np.mean((y - 255 * a - sky * w) ** 2)), sky

    grid = np.arange(-14, 9.01, 0.5)
    for _ in range(3):
        for g in (0, 2, 3, 1):
            best = min(grid, key=lambda v: err(offs[:g] + [v] + offs[g + 1:])[0])
            offs[g] = float(best)
    fine = np.arange(-0.5, 0.51, 0.125)
    for _ in range(2):
        for g in (0, 2, 3, 1):
            base = offs[g]
            offs[g] = float(min(base + fine, key=lambda v: err(offs[:g] + [v] + offs[g + 1:])[0]))
    e, sky = err(offs)
    log(f"  cloud offsets estimated from the reference (units, groups 0-3): "
        f"{', '.join(f'{o:+.2f}' for o in offs)}  (model RMS {np.sqrt(e):.1f} in R, sky R {sky:.1f})")
    return np.array(offs)


def best_cloud_time(spec, offsets, log):
    t = np.arange(0, 3465, 0.004)
    o = cloud_offsets(t, spec)
    # group 1 is mostly hidden by the sun: weight it down
    w = np.array([1.0, 0.3, 1.0, 1.0])
    e = np.sum(w * (o - offsets) ** 2, axis=1)
    order = np.argsort(e)
    picks = []
    for i in order:
        if all(abs(t[i] - p) > 1.0 for p in picks):
            picks.append(t[i])
        if len(picks) == 3:
            break
    for p in picks:
        oo = cloud_offsets(np.array([p]), spec)[0]
        log(f"  candidate ambient time {p:.3f} s: offsets {', '.join(f'{v:+.2f}' for v in oo)}")
    return picks


# ---------------------------------------------------------------------------------------------
# Dark: estimate star group opacities
# ---------------------------------------------------------------------------------------------

def star_peaks(img, place, box, spec):
    """Peak luminance above the local background at each star centre."""
    x0, y0, x1, y1 = box
    L = img.mean(axis=2)
    s = place.track_scale
    out = []
    for st in spec["nightScene"]["stars"]:
        px = place.x + st["x"] * s - x0
        py = place.track_origin_y + st["y"] * s - y0
        ix, iy = int(np.floor(px)), int(np.floor(py))
        win = L[iy - 1:iy + 2, ix - 1:ix + 2]
        ring = L[iy - 4:iy + 5, ix - 4:ix + 5]
        out.append(float(win.max() - np.median(ring)))
    return np.array(out)


def estimate_star_opacities(spec, ref, ours_static, place, log):
    box = crop_box(place)
    pr = star_peaks(ref_crop(ref, box), place, box, spec)
    po = star_peaks(ours_static, place, box, spec)
    groups = np.array([st["group"] for st in spec["nightScene"]["stars"]])
    ratio = pr / np.maximum(po, 1e-6)
    g0 = float(np.median(ratio[groups == 0]))
    est = []
    for g in (1, 2, 3, 4):
        est.append(float(np.clip(np.median(ratio[groups == g]) / max(g0, 1e-6), 0, 1)))
    log(f"  star peak ratio ref/ours, group 0 (static): {g0:.2f}; "
        f"estimated opacities groups 1-4: {', '.join(f'{v:.2f}' for v in est)}")
    return np.array(est), pr, po, groups


def best_star_time(est, log):
    t = np.arange(0, 30, 0.002)     # all star periods divide 30 s
    e = np.sum((star_opacities(t) - est) ** 2, axis=1)
    order = np.argsort(e)
    picks = []
    for i in order:
        if all(abs(t[i] - p) > 0.3 for p in picks):
            picks.append(t[i])
        if len(picks) == 3:
            break
    for p in picks:
        log(f"  candidate ambient time {p:.3f} s: opacities "
            f"{', '.join(f'{v:.2f}' for v in star_opacities(np.array([p]))[0])}")
    return picks



# ---------------------------------------------------------------------------------------------
# Vivid style (the lower toggle): art numbers from DarkModeToggle's VividArt
# ---------------------------------------------------------------------------------------------

VIVID_ROI = (40, 418, 330, 590)
VIVID_SCENE = 169 / 173          # scene units -> track units; scene origin at track (2, 2)
VIVID_CLOUDS = [  # (circles (x, y, r) in scene units, opacity, duration)
    ([(96, 57, 18), (116, 49, 19), (137, 54, 22), (157, 43, 23), (177, 53, 25), (194, 43, 22)], 0.48, 4.8),
    ([(73, 75, 25), (98, 67, 23), (122, 74, 28), (148, 64, 26), (174, 73, 30), (198, 61, 27)], 1.0, 6.2),
]
VIVID_STARS = [(1, 27, 18, 7.5), (2, 83, 45, 7.5), (3, 15, 38, 5), (4, 61, 35, 5), (5, 72, 18, 3), (6, 38, 52, 3)]
VIVID_STAR_DURATIONS = [3.5, 4.1, 4.9, 5.3, 3, 2.2]
VIVID_DAY_SKY_R = 70.0


def vivid_cloud_offsets(t):
    return np.stack([5 - 8 * autoreverse(t, d, EASE_IN_OUT) for _, _, d in VIVID_CLOUDS], axis=-1)


def vivid_star_scales(t):
    return np.stack([0.2 + 0.8 * autoreverse(t, d, (0, 0, 1, 1)) for d in VIVID_STAR_DURATIONS], axis=-1)


def vivid_scene_grid(place, box, ss):
    x0, y0, x1, y1 = box
    s = place.track_scale
    xs = (np.arange((x1 - x0) * ss) + 0.5) / ss + x0
    ys = (np.arange((y1 - y0) * ss) + 0.5) / ss + y0
    U = ((xs[None, :] - place.x) / s - 2) / VIVID_SCENE
    V = ((ys[:, None] - place.track_origin_y) / s - 2) / VIVID_SCENE
    return U, V


def vivid_cloud_red(place, box, offsets, ss=3):
    """Red channel of the day scene right of the halos: day sky, the back bank (white 0.48),
    the front bank (white), each bank a union of circles moved by its float offset."""
    x0, y0, x1, y1 = box
    U, V = vivid_scene_grid(place, box, ss)
    R = np.full(np.broadcast(U, V).shape, VIVID_DAY_SKY_R)
    for (circles, opacity, _), off in zip(VIVID_CLOUDS, offsets):
        cov = np.zeros(R.shape, dtype=bool)
        for cx, cy, r in circles:
            cov |= (U - cx) ** 2 + (V - cy - off) ** 2 <= r * r
        R = R + opacity * cov * (255 - R)
    return R.reshape(y1 - y0, ss, x1 - x0, ss).mean(axis=(1, 3))


def vivid_cloud_region(place, box):
    """Capsule interior inset by 7 track units, right of the largest halo (x > 124 units)."""
    x0, y0, x1, y1 = box
    s = place.track_scale
    X = (np.arange(x0, x1) + 0.5 - place.x)[None, :] / s
    Y = (np.arange(y0, y1) + 0.5 - place.track_origin_y)[:, None] / s
    cx = np.clip(X, 2 + 32.5, 171 - 32.5)
    inside = (X - cx) ** 2 + (Y - 34.5) ** 2 <= (32.5 - 7) ** 2
    return inside & (X > 124)


def estimate_vivid_cloud_offsets(ref, place, log):
    box = crop_box(place)
    R = ref_crop(ref, box)[..., 0]
    region = vivid_cloud_region(place, box)
    offs = [0.0, 0.0]

    def err(o):
        return float(np.mean((vivid_cloud_red(place, box, o)[region] - R[region]) ** 2))

    grid = np.arange(-5, 7.01, 0.25)
    for _ in range(3):
        for g in (0, 1):
            offs[g] = float(min(grid, key=lambda v: err(offs[:g] + [v] + offs[g + 1:])))
    fine = np.arange(-0.25, 0.26, 0.0625)
    for g in (0, 1):
        base = offs[g]
        offs[g] = float(min(base + fine, key=lambda v: err(offs[:g] + [v] + offs[g + 1:])))
    log(f"  vivid cloud offsets estimated from the reference (scene units, banks 0-1): "
        f"{', '.join(f'{o:+.2f}' for o in offs)}  (model RMS {np.sqrt(err(offs)):.1f} in R)")
    return np.array(offs)


def pick_times(t, e, n, sep):
    picks = []
    for i in np.argsort(e):
        if all(abs(t[i] - p) > sep for p in picks):
            picks.append(float(t[i]))
        if len(picks) == n:
            break
    return picks


def best_vivid_cloud_time(offsets, log):
    t = np.arange(0, 297.6, 0.002)    # joint period of 2 x 4.8 s and 2 x 6.2 s
    e = np.sum((vivid_cloud_offsets(t) - offsets) ** 2, axis=1)
    picks = pick_times(t, e, 3, 0.5)
    for p in picks:
        log(f"  candidate ambient time {p:.3f} s: offsets "
            f"{', '.join(f'{v:+.2f}' for v in vivid_cloud_offsets(np.array([p]))[0])}")
    return picks


def vivid_star_flux(img, place, box):
    """Summed luminance above the local median around each star centre (window ~ the star)."""
    L = img.mean(axis=2)
    s = place.track_scale
    out = []
    for _, x, y, r in VIVID_STARS:
        px = place.x + (2 + x * VIVID_SCENE) * s - box[0]
        py = place.track_origin_y + (2 + y * VIVID_SCENE) * s - box[1]
        ix, iy = int(px), int(py)
        h = int(np.ceil(r * s)) + 1
        w = L[iy - h:iy + h + 1, ix - h:ix + h + 1]
        bg = np.median(L[iy - h - 3:iy + h + 4, ix - h - 3:ix + h + 4])
        out.append(float(np.clip(w - bg, 0, None).sum()))
    return np.array(out)


def estimate_vivid_star_scales(ref, ours_static, place, log):
    box = crop_box(place)
    fr = vivid_star_flux(ref_crop(ref, box), place, box)
    fo = vivid_star_flux(ours_static, place, box)
    est = np.clip(np.sqrt(fr / np.maximum(fo, 1e-6)), 0.2, 1)
    log(f"  vivid star flux ref/ours (static) -> scales groups 1-6: {', '.join(f'{v:.2f}' for v in est)}")
    return est


def best_vivid_star_time(est, log):
    t = np.arange(0, 2000, 0.004)
    # the small stars' flux is noisy: weight by star area
    w = np.array([r * r for *_, r in VIVID_STARS]) / 56.25
    e = np.zeros_like(t)
    for g in range(6):
        e += w[g] * (0.2 + 0.8 * autoreverse(t, VIVID_STAR_DURATIONS[g], (0, 0, 1, 1)) - est[g]) ** 2
    picks = pick_times(t, e, 3, 0.3)
    for p in picks:
        log(f"  candidate ambient time {p:.3f} s: scales "
            f"{', '.join(f'{v:.2f}' for v in vivid_star_scales(np.array([p]))[0])}")
    return picks


def vivid_diagnose(mode, R, O, box, place, log):
    """Mean colours at a few art points, reference vs ours."""
    pos = 0.0 if mode == "light" else 1.0
    if mode == "light":
        pts = {"sun centre": (134.3, 43.1, "celestial", 6), "sky top right (x150,y12)": (150, 12, "track", 2),
               "halo inner (x70,y10)": (70, 10, "track", 2), "front cloud (x130,y60)": (130, 60, "track", 2),
               "back cloud (x160,y30)": (160, 30, "track", 2)}
    else:
        pts = {"moon (x118,y55 cel.)": (118, 55, "celestial", 2), "crater big (x126,y46 cel.)": (126, 46, "celestial", 2),
               "sky left (x12,y30)": (12, 30, "track", 2), "halo inner (x100,y12)": (100, 12, "track", 2)}
    for name, (u, v, frame, rad) in pts.items():
        cr = region_mean(R, box, place, (u, v), rad, frame, pos)
        co = region_mean(O, box, place, (u, v), rad, frame, pos)
        log(f"    {name:30s} ref {fmt(cr)}  ours {fmt(co)}  diff {fmt(co - cr)}")

# ---------------------------------------------------------------------------------------------
# Output images
# ---------------------------------------------------------------------------------------------

def heat(d):
    """Black -> red -> yellow -> white for 0 -> 1."""
    d = np.clip(d, 0, 1)
    r = np.clip(d * 3, 0, 1)
    g = np.clip(d * 3 - 1, 0, 1)
    b = np.clip(d * 3 - 2, 0, 1)
    return np.stack([r, g, b], axis=-1) * 255


def zoom(a, z):
    return np.repeat(np.repeat(a, z, axis=0), z, axis=1)


def save_images(outdir, mode, ref, ours, amp, zoom_factor):
    diff = np.abs(ref - ours)
    gap = np.full((ref.shape[0], 2, 3), 128.0)
    side = np.concatenate([ref, gap, ours, gap, np.clip(diff * amp, 0, 255)], axis=1)
    Image.fromarray(zoom(side, zoom_factor).round().astype(np.uint8)).save(
        os.path.join(outdir, f"{mode}-side-by-side.png"), optimize=True)
    # heat map: max channel difference, 0..40 levels -> 0..1
    h = heat(diff.max(axis=2) / 40.0)
    Image.fromarray(zoom(h, zoom_factor).round().astype(np.uint8)).save(
        os.path.join(outdir, f"{mode}-diff-heat.png"), optimize=True)


# ---------------------------------------------------------------------------------------------
# Diagnostics
# ---------------------------------------------------------------------------------------------

def region_mean(img, box, place, pts_units, radius, frame="track", position=0.0):
    """Mean colour in a disc of `radius` px around a point given in track or celestial units."""
    x0, y0, _, _ = box
    if frame == "track":
        s = place.track_scale
        px, py = place.x + pts_units[0] * s, place.track_origin_y + pts_units[1] * s
    else:
        cx, cy = place.celestial_origin(position)
        s = place.celestial_scale
        px, py = cx + pts_units[0] * s, cy + pts_units[1] * s
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    m = (xx + 0.5 + x0 - px) ** 2 + (yy + 0.5 + y0 - py) ** 2 <= radius ** 2
    return img[m].mean(axis=0)


def fmt(c):
    return "(" + ", ".join(f"{v:5.1f}" for v in c) + ")"


def blob(img, box, mask):
    x0, y0, _, _ = box
    yy, xx = np.nonzero(mask)
    if len(xx) == 0:
        return None
    return (xx.mean() + 0.5 + x0, yy.mean() + 0.5 + y0, np.sqrt(len(xx) / np.pi), xx.min() + x0,
            xx.max() + 1 + x0, yy.min() + y0, yy.max() + 1 + y0)


def edges(img, box, place, page):
    """Track outer edges: first/last pixel along the track's middle row/column that differs
    from the page colour by more than 20 levels (sum of channels)."""
    x0, y0, _, _ = box
    d = np.abs(img - np.array(page, float)).sum(axis=2)
    row = int(round(place.track_origin_y + 34.5 * place.track_scale)) - y0
    col = int(round(place.x + 120 * place.track_scale)) - x0
    xs = np.nonzero(d[row] > 20)[0]
    ys = np.nonzero(d[:, col] > 20)[0]
    return xs.min() + x0, xs.max() + 1 + x0, ys.min() + y0, ys.max() + 1 + y0


def profile(img, box, start, direction, n, ref_color):
    """Distance (px) at which |img - ref_color| (sum of channels) last exceeds 3 levels
    walking from start along direction; plus the profile values."""
    x0, y0, _, _ = box
    vals = []
    for i in range(n):
        x = int(round(start[0] + direction[0] * i)) - x0
        y = int(round(start[1] + direction[1] * i)) - y0
        if not (0 <= y < img.shape[0] and 0 <= x < img.shape[1]):
            break
        vals.append(float(np.abs(img[y, x] - ref_color).sum()))
    return vals


def diagnose(mode, ref, ours, box, place, page, log):
    log(f"  diagnostics ({mode}), reference vs ours:")
    pos = 0.0 if mode == "light" else 1.0
    er, eo = edges(ref, box, place, page), edges(ours, box, place, page)
    log(f"    track outer edges L/R/T/B (>20 levels from page)   ref {tuple(int(v) for v in er)}   "
        f"ours {tuple(int(v) for v in eo)}")
    if mode == "light":
        sun = lambda im: (im[..., 0] > 225) & (im[..., 1] > 160) & (im[..., 1] < 215) & (im[..., 2] < 175)
        br, bo = blob(ref, box, sun(ref)), blob(ours, box, sun(ours))
        log(f"    sun disc (R>225, 160<G<215, B<175): centre/radius/x-range/y-range")
        log(f"      ref  ({br[0]:.2f}, {br[1]:.2f}) r {br[2]:.2f}  x {br[3]}-{br[4]}  y {br[5]}-{br[6]}")
        log(f"      ours ({bo[0]:.2f}, {bo[1]:.2f}) r {bo[2]:.2f}  x {bo[3]}-{bo[4]}  y {bo[5]}-{bo[6]}")
        pts = {"sun centre": ((111.55 + 157) / 2, 42.2, "celestial", 6),
               "sky top middle (x90,y10)": (90, 10, "track", 2),
               "sky left of clouds (x80,y25)": (80, 25, "track", 2),
               "front cloud (x120,y62)": (120, 62, "track", 2),
               "back cloud (x150,y30)": (150, 30, "track", 2)}
        sun_c = ((br[0] + bo[0]) / 2, (br[1] + bo[1]) / 2, (br[2] + bo[2]) / 2)
    else:
        moon = lambda im: im.mean(axis=2) > 170
        br, bo = blob(ref, box, moon(ref)), blob(ours, box, moon(ours))
        log(f"    bright crescent (mean>170): centroid/x-range/y-range")
        log(f"      ref  ({br[0]:.2f}, {br[1]:.2f}) area-r {br[2]:.2f}  x {br[3]}-{br[4]}  y {br[5]}-{br[6]}")
        log(f"      ours ({bo[0]:.2f}, {bo[1]:.2f}) area-r {bo[2]:.2f}  x {bo[3]}-{bo[4]}  y {bo[5]}-{bo[6]}")
        pts = {"occlusion centre": (128, 38, "celestial", 5),
               "crescent (x150,y50)": (149, 52, "celestial", 1.2),
               "sky left (x60,y45)": (60, 45, "track", 3),
               "sky near moon (x100,y35)": (100, 35, "track", 2)}
        sun_c = None
    for name, (u, v, frame, rad) in pts.items():
        cr = region_mean(ref, box, place, (u, v), rad, frame, pos)
        co = region_mean(ours, box, place, (u, v), rad, frame, pos)
        log(f"    {name:30s} ref {fmt(cr)}  ours {fmt(co)}  diff {fmt(co - cr)}")
    # page just outside the track: below middle, below the sun/moon, left, right, above
    s = place.track_scale
    ty0, ty1 = place.track_origin_y + 0.7 * s, place.track_origin_y + 68.3 * s
    cxm = place.x + 86.5 * s
    for name, (px, py) in {"page 3px above track, middle": (cxm, ty0 - 3),
                           "page 3px below track, middle": (cxm, ty1 + 3),
                           "page 3px below track, x=30u": (place.x + 30 * s, ty1 + 3),
                           "page 3px below track, x=140u": (place.x + 140 * s, ty1 + 3),
                           "page 6px below track, x=30u": (place.x + 30 * s, ty1 + 6),
                           "page 3px left of track": (place.x - 3, (ty0 + ty1) / 2),
                           "page 3px right of track": (place.x + place.width + 3, (ty0 + ty1) / 2)}.items():
        x, y = int(px) - box[0], int(py) - box[1]
        cr, co = ref[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(0), ours[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(0)
        log(f"    {name:30s} ref {fmt(cr)}  ours {fmt(co)}  diff {fmt(co - cr)}")
    if mode == "dark":
        stars_report(ref, ours, box, place, log)
    if sun_c is not None:
        # glow: walk up from the sun's top edge at its centre column (above the track: page)
        skyc = region_mean(ref, box, place, (90, 10), 2)
        for name, d in {"up-right 45deg (sky)": (0.7071, -0.7071), "up (sky then page)": (0, -1)}.items():
            start = (sun_c[0] + d[0] * (sun_c[2] + 1), sun_c[1] + d[1] * (sun_c[2] + 1))
            pr = profile(ref, box, start, d, 24, skyc)
            po = profile(ours, box, start, d, 24, skyc)
            log(f"    glow profile {name} from sun edge, |img - sky| per px:")
            log(f"      ref  {' '.join(f'{v:3.0f}' for v in pr)}")
            log(f"      ours {' '.join(f'{v:3.0f}' for v in po)}")


def stars_report(ref, ours, box, place, log, spec_path=os.path.join(REF_DIR, "toggle-art.json")):
    """Peak and flux (summed luminance above the local median, 7x7 window) of every star, and
    the mean centroid offset of the reference stars from ours."""
    with open(spec_path) as f:
        stars = json.load(f)["nightScene"]["stars"]
    Lr, Lo = ref.mean(axis=2), ours.mean(axis=2)
    s = place.track_scale
    ratios, offs = {}, []
    for st in stars:
        px = place.x + st["x"] * s - box[0]
        py = place.track_origin_y + st["y"] * s - box[1]
        ix, iy = int(px), int(py)
        res = []
        for L in (Lr, Lo):
            w = L[iy - 3:iy + 4, ix - 3:ix + 4]
            e = np.clip(w - np.median(L[iy - 6:iy + 7, ix - 6:ix + 7]), 0, None)
            yy, xx = np.mgrid[-3:4, -3:4]
            f = e.sum()
            res.append((e.max(), f, (e * xx).sum() / max(f, 1e-6), (e * yy).sum() / max(f, 1e-6)))
        (pr, fr, xr, yr), (po, fo, xo, yo) = res
        if fo > 40 and fr > 40:
            ratios.setdefault(st["group"], []).append((pr / po, fr / fo))
            offs.append((xr - xo, yr - yo))
    for g in sorted(ratios):
        a = np.array(ratios[g])
        log(f"    stars group {g}: ref/ours peak ratio {np.median(a[:, 0]):.2f}, flux ratio {np.median(a[:, 1]):.2f} "
            f"({len(a)} stars)")
    o = np.array(offs)
    log(f"    star centroids: ref - ours = ({o[:, 0].mean():+.2f}, {o[:, 1].mean():+.2f}) px (mean of {len(o)})")


# ---------------------------------------------------------------------------------------------

def metrics(ref, ours):
    return (peak_signal_noise_ratio(ref, ours, data_range=255),
            structural_similarity(ref, ours, channel_axis=2, data_range=255))


def run_mode(mode, args, renderer, spec, log):
    progress, page = MODES[mode]
    path = os.path.join(REF_DIR, f"swiftui-{mode}.png")
    try:
        ref = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    except OSError as e:
        sys.exit(f"compare.py: cannot read reference {path}: {e}")
    log(f"== {mode} ({path})")
    place = fit_placement(renderer, ref, progress, page, None, args.k, log)
    time = None
    if not args.static_only:
        box = crop_box(place)
        vivid = renderer.style == "vivid"
        if mode == "light":
            if vivid:
                cands = best_vivid_cloud_time(estimate_vivid_cloud_offsets(ref, place, log), log)
            else:
                offs = estimate_cloud_offsets(spec, ref, place, log)
                cands = best_cloud_time(spec, offs, log)
        else:
            ours_static = render_crop(renderer, box, place, args.k, progress, page, None)
            if vivid:
                cands = best_vivid_star_time(estimate_vivid_star_scales(ref, ours_static, place, log), log)
            else:
                est, *_ = estimate_star_opacities(spec, ref, ours_static, place, log)
                cands = best_star_time(est, log)
        scored = []
        for c in cands:
            for dt in (-0.1, -0.05, 0, 0.05, 0.1):
                t = max(0.0, c + dt)
                o = render_crop(renderer, box, place, args.k, progress, page, t)
                scored.append((mse(ref_crop(ref, box), o), t))
        scored.sort()
        e_static = mse(ref_crop(ref, box), render_crop(renderer, box, place, args.k, progress, page, None))
        log(f"  ambient time chosen {scored[0][1]:.3f} s (MSE {scored[0][0]:.1f}; --static MSE {e_static:.1f})")
        if scored[0][0] < e_static:
            time = scored[0][1]
            place = fit_placement_refine(renderer, ref, place, progress, page, time, args.k, log)
    box = crop_box(place)
    R = ref_crop(ref, box)
    O = render_crop(renderer, box, place, args.k, progress, page, time)
    p, s = metrics(R, O)
    log(f"  crop {box} ({box[2] - box[0]}x{box[3] - box[1]}), {place}, time "
        f"{'static' if time is None else f'{time:.3f} s'}")
    log(f"  PSNR {p:.2f} dB   SSIM {s:.4f}   (ours supersampled {args.k}x, box-downsampled)")
    best_blur = (p, s, 0.0)
    for sigma in (0.3, 0.5, 0.7, 1.0):
        Ob = gaussian_filter(O, sigma=(sigma, sigma, 0))
        pb, sb = metrics(R, Ob)
        log(f"    ours blurred sigma {sigma:.1f}px: PSNR {pb:.2f} dB  SSIM {sb:.4f}")
        if pb > best_blur[0]:
            best_blur = (pb, sb, sigma)
    # plain 1x render at the rounded width and integer placement (what the kiosk draws)
    p1 = Placement(round(place.x), round(place.y), round(place.width))
    O1 = render_crop(renderer, box, p1, 1, progress, page, time)
    q, t1 = metrics(R, O1)
    log(f"    ours plain 1x render (width {p1.width:.0f}, origin {p1.x:.0f},{p1.y:.0f}): PSNR {q:.2f} dB  SSIM {t1:.4f}")
    if args.diagnose:
        if renderer.style == "vivid":
            vivid_diagnose(mode, R, O, box, place, log)
        else:
            diagnose(mode, R, O, box, place, page, log)
    os.makedirs(args.out, exist_ok=True)
    save_images(args.out, mode if renderer.style == "original" else f"{renderer.style}-{mode}", R, O,
                args.amplify, args.zoom)
    return {"mode": mode, "place": [place.x, place.y, place.width], "time": time, "box": box,
            "psnr": p, "ssim": s, "best_blur": best_blur, "psnr_1x": q, "ssim_1x": t1}


def fit_placement_refine(renderer, ref, place, progress, color, time, k, log):
    step = 0.5
    box = crop_box(place)
    cur = mse(ref_crop(ref, box), render_crop(renderer, box, place, k, progress, color, time))
    while step >= 1.0 / k - 1e-9:
        improved = True
        while improved:
            improved = False
            for attr in ("width", "x", "y"):
                for d in (-step, step):
                    trial = Placement(place.x, place.y, place.width)
                    setattr(trial, attr, getattr(trial, attr) + d)
                    bt = crop_box(trial)
                    e = mse(ref_crop(ref, bt), render_crop(renderer, bt, trial, k, progress, color, time))
                    if e < cur - 1e-6:
                        place, cur, improved = trial, e, True
                        break
                if improved:
                    break
        step /= 2
    log(f"  refined with ambient time: {place}, MSE {cur:.1f}")
    return place


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiosk", default=os.path.join(root, ".build", "debug", "darkmode-kiosk"),
                    help="path of the darkmode-kiosk executable (default: .build/debug/darkmode-kiosk)")
    ap.add_argument("--out", default=os.path.join(here, "out"), help="output folder for the PNGs")
    ap.add_argument("--modes", nargs="+", default=["light", "dark"], choices=list(MODES))
    ap.add_argument("-k", type=int, default=4, help="supersampling factor for the fine fit (default 4)")
    ap.add_argument("--zoom", type=int, default=3, help="zoom of the output PNGs (default 3)")
    ap.add_argument("--amplify", type=float, default=4.0, help="gain of the difference panel (default 4)")
    ap.add_argument("--static-only", action="store_true", help="skip the ambient-time search (use --static)")
    ap.add_argument("--no-diagnose", dest="diagnose", action="store_false", help="skip the measurements")
    ap.add_argument("--json", help="also write the numbers to this JSON file")
    ap.add_argument("--style", choices=["original", "vivid"], default="original",
                    help="which toggle to fit: the upper (original, default) or the lower (vivid)")
    args = ap.parse_args()
    if args.k < 1 or args.zoom < 1:
        sys.exit("compare.py: -k and --zoom must be at least 1")
    spec_path = os.path.join(REF_DIR, "toggle-art.json")
    try:
        with open(spec_path) as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare.py: cannot read the art spec {spec_path}: {e}")
    renderer = Renderer(args.kiosk)
    renderer.style = args.style
    results = [run_mode(m, args, renderer, spec, lambda s: print(s, flush=True)) for m in args.modes]
    print("== summary")
    for r in results:
        print(f"  {r['mode']:5s}  PSNR {r['psnr']:.2f} dB  SSIM {r['ssim']:.4f}   "
              f"best blur sigma {r['best_blur'][2]:.1f}: PSNR {r['best_blur'][0]:.2f} SSIM {r['best_blur'][1]:.4f}   "
              f"plain 1x: PSNR {r['psnr_1x']:.2f} SSIM {r['ssim_1x']:.4f}")
    print(f"  ({renderer.count} renders; images in {args.out})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2, default=float)


if __name__ == "__main__":
    main()
