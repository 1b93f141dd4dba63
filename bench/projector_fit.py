"""Where the step controls, the status line and the chart sit when a lecturer opens the page on a projector.

    python -m bench.projector_fit [--checkpoint checkpoints/tatoeba-en-de] [--old-ref REV] [--json OUT]

Starts `python app.py` (127.0.0.1, stopped by its PID) for this checkout, and with `--old-ref` for a git revision
checked out into a temporary worktree, and opens the page in Chromium at 1366x768, 1280x720 and 1920x1080, in
normal and presentation mode, on the opening example's heatmap. For each it measures element boxes: the step
controls' top and bottom, where the chart starts, and the share of the window's height the chart has in view
(issue 28's target: at least 55%, with the controls and the status line in view too).

Then, at 1366x768 in both modes on a 33-token sentence (issue 36), every view's chart: its size on screen and the
smallest label it draws (px; the canvas heatmap of old designs reports the font it painted), with how many of the
heatmap's row labels are drawn.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.app_latency import ROOT, free_port, start_app
from explorer.app import SHIPPED_CHECKPOINT

SIZES = [(1366, 768), (1280, 720), (1920, 1080)]
LONG = "Yesterday my old friend from school, who now lives in Berlin with his wife and two children, called me."
VIEWS = {
    "heatmap": ".ae-heat", "headview": ".ae-headview", "mosaic": ".ae-mosaic",
    "mask": ".ae-mask", "compare": ".ae-compare",
}  # fmt: skip
VIEW = """(sel) => {
  const c = document.querySelector(sel), r = c.getBoundingClientRect(), fonts = [];
  c.querySelectorAll('.ae-tick, svg text').forEach((e) => {
    const f = parseFloat(getComputedStyle(e).fontSize);
    if (f && e.textContent.trim() && e.getBoundingClientRect().width > 0) fonts.push(f);
  });
  const heat = c._heat && c._heat.geom;
  if (heat && heat.labels && heat.labels.rows) fonts.push(heat.labels.font); // an old design's canvas labels
  const rows = heat ? (heat.labels.rows ? heat.labels.rows.length : c.querySelectorAll('.ae-tick-row').length) : null;
  return { w: Math.round(r.width), h: Math.round(r.height), font: fonts.length ? Math.min(...fonts) : null,
           rows: rows, of: heat ? heat.queries.length : null };
}"""
MEASURE = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  const v = window.aeViewer;
  return { controls: box(v.buttons.next.parentNode), status: box(document.querySelector('.ae-status-line')),
           chart: box(document.querySelector('.ae-heat')) };
}"""


def measure(cwd: Path, checkpoint: str) -> list[dict]:
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc, _ = start_app(checkpoint, port, cwd=cwd)
    rows = []
    try:
        with sync_playwright() as p:
            args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
            views = []
            page = browser.new_page(viewport={"width": 1366, "height": 768})
            page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
            page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
            page.fill("#sentence textarea", LONG)
            page.press("#sentence textarea", "Enter")
            page.wait_for_function(f"window.aeViewer.trace.request.sentence === {LONG!r}")
            page.keyboard.press("End")
            page.evaluate("window.aeViewer.askCompare('', 'same')")
            page.wait_for_function("window.aeViewer.compareTrace !== null")
            for mode in ("normal", "presentation"):
                if mode == "presentation":
                    page.locator("#presentation input").check()
                    page.wait_for_timeout(400)
                for view, sel in VIEWS.items():
                    page.evaluate(f"window.aeViewer.select({{view: '{view}', kind: 'cross', head: 0}}, 'bench')")
                    page.evaluate("window.aeViewer.rendered")
                    page.wait_for_timeout(600 if view in ("mosaic", "mask") else 150)
                    views.append(dict(mode=mode, view=view, **page.evaluate(VIEW, sel)))
            page.close()
            for width, height in SIZES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
                page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
                for mode in ("normal", "presentation"):
                    if mode == "presentation":
                        page.locator("#presentation input").check()
                    page.wait_for_timeout(400)  # the page settles and the viewer draws again
                    page.evaluate("window.aeViewer.rendered")
                    m = page.evaluate(MEASURE)
                    seen = max(0.0, min(m["chart"][1], height) - max(m["chart"][0], 0.0))
                    rows.append({
                        "window": f"{width}x{height}", "mode": mode,
                        "controls_px": [round(x) for x in m["controls"]], "status_px": [round(x) for x in m["status"]],
                        "chart_top_px": round(m["chart"][0]), "chart_in_view_pct": round(100 * seen / height),
                    })  # fmt: skip
                page.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(30)
    return {"layout": rows, "views": views}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--old-ref", default=None, help="also measure the design at this git revision")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    designs = {"this checkout": measure(ROOT, args.checkpoint)}
    if args.old_ref:
        worktree = Path(tempfile.mkdtemp(prefix="projector-old-"))
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.old_ref], cwd=ROOT, check=True)
        try:
            designs[f"old ({args.old_ref[:7]})"] = measure(worktree, args.checkpoint)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
            shutil.rmtree(worktree, ignore_errors=True)
    print("| design | window | mode | step controls px | status px | chart starts px | chart in view |")
    print("|---|---|---|---|---|---|---|")
    for design, measured in designs.items():
        for r in measured["layout"]:
            controls, status = "–".join(map(str, r["controls_px"])), "–".join(map(str, r["status_px"]))
            print(f"| {design} | {r['window']} | {r['mode']} | {controls} | {status} | {r['chart_top_px']} | "
                  f"{r['chart_in_view_pct']}% |")  # fmt: skip
    print(f"\nEvery view at 1366x768 on a {len(LONG.split())}-word sentence (cross-attention, head 0):\n")
    print("| design | mode | view | chart px (w × h) | smallest label px | heatmap rows labelled |")
    print("|---|---|---|---|---|---|")
    for design, measured in designs.items():
        for v in measured["views"]:
            rows = f"{v['rows']} of {v['of']}" if v["rows"] is not None else "–"
            print(f"| {design} | {v['mode']} | {v['view']} | {v['w']} × {v['h']} | {v['font']} | {rows} |")
    if args.json:
        Path(args.json).write_text(json.dumps(designs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
