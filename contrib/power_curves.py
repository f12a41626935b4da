#!/usr/bin/env python3
"""power_curves.py - draws docs/power-curves.svg, the power curves of
docs/rules.md, from the measured rates of the gate's calibration test:

    TG_CALIBRATION_CURVES=1 build/tests/test_calibration | grep '^curve' \\
        | python3 contrib/power_curves.py > docs/power-curves.svg

Input lines: curve<TAB>decide<TAB>setting<TAB>true change %<TAB>block rate<TAB>inconclusive rate.
Two panels (decide: likely, decide: surely), one line per setting: the
probability to block against the true change (500 simulated pairs a point).
No dependencies beyond the standard library.
"""
import sys

rows = [l.rstrip("\n").split("\t") for l in sys.stdin if l.startswith("curve\t")]
forms = ["likely", "surely"]
settings = []
for r in rows:
    if r[2] not in settings:
        settings.append(r[2])
colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
W, H, PAD_L, PAD_B, PAD_T, PW, PH = 900, 420, 60, 50, 40, 360, 280
xmax = max(float(r[3]) for r in rows)
out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>']
for p, form in enumerate(forms):
    x0 = PAD_L + p * (PW + 80)
    y0 = PAD_T + PH
    out.append('<text x="%d" y="%d" font-size="14" font-weight="bold">decide: %s (block_above: 5 %%)</text>' % (x0, PAD_T - 12, form))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (x0, PAD_T, PW, PH))
    for i in range(0, 11, 2):
        y = y0 - PH * i / 10
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (x0, y, x0 + PW, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d %%</text>' % (x0 - 4, y + 4, i * 10))
    for xv in range(0, int(xmax) + 1, 5):
        x = x0 + PW * xv / xmax
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (x, PAD_T, x, y0))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">+%d %%</text>' % (x, y0 + 16, xv))
    xt = x0 + PW * 5 / xmax
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-dasharray="4 3"/>' % (xt, PAD_T, xt, y0))
    out.append('<text x="%d" y="%d" text-anchor="middle">true change of the metric</text>' % (x0 + PW / 2, y0 + 34))
    for s, name in enumerate(settings):
        pts = [(float(r[3]), float(r[4])) for r in rows if r[1] == form and r[2] == name]
        pts.sort()
        path = " ".join("%.1f,%.1f" % (x0 + PW * x / xmax, y0 - PH * y) for x, y in pts)
        out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (path, colors[s % len(colors)]))
        for x, y in pts:
            out.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (x0 + PW * x / xmax, y0 - PH * y, colors[s % len(colors)]))
for s, name in enumerate(settings):
    y = H - 14 - 16 * (len(settings) - 1 - s) - 0
    x = PAD_L + (s % 2) * 420
    y = H - 30 + 16 * (s // 2) - 8
    out.append('<rect x="%d" y="%d" width="14" height="4" fill="%s"/>' % (x, y - 4, colors[s % len(colors)]))
    out.append('<text x="%d" y="%d">%s</text>' % (x + 20, y, name.replace("&", "&amp;")))
out.append('<text x="%d" y="%d" text-anchor="end" fill="#555">probability to block; 500 simulated pairs a point (tests/test_calibration.c)</text>' % (W - 10, 16))
out.append("</svg>")
print("\n".join(out))
