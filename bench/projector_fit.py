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

Then the lecture on one screen (issue 50): presentation mode at 1366x768 and 1280x720, the opening example at step 6,
every view and every panel (Heads that matter, Attention vs attribution, Beam tree, Explain a cell): how far the
viewer's two columns reach below the window (0: nothing needs the page scrolled), the smallest text on the chart's
side (px; the target is 16), whether a panel scrolls inside itself, and whether Lesson and the questions' buttons
are in the window.
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
from bench.common import viewer_page
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
  const heat = c._heat && c._heat.geom; // the designs before session 31 kept the grid's geometry on its element
  if (heat && heat.labels && heat.labels.rows) fonts.push(heat.labels.font); // an old design's canvas labels
  let rows = heat ? (heat.labels.rows ? heat.labels.rows.length : c.querySelectorAll('.ae-tick-row').length) : null;
  let of = heat ? heat.queries.length : null;
  if (!heat && c.matches('.ae-heat')) { // since: the labels on the page, against the trace's rows
    const v = window.aeViewer;
    rows = c.querySelectorAll('.ae-tick-row').length;
    of = v.trace.labels(v.state.kind, v.state.step)[0].length;
  }
  return { w: Math.round(r.width), h: Math.round(r.height), font: fonts.length ? Math.min(...fonts) : null,
           rows: rows, of: of };
}"""
MEASURE = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  return { controls: box(document.querySelector('.ae-toolbar')), status: box(document.querySelector('.ae-status-line')),
           chart: box(document.querySelector('.ae-heat')) };
}"""


ASKING = {"lens": ".ae-lens .main-svg", "valuepath": ".ae-valuepath-plot .main-svg", "qkspace": ".ae-qkspace .main-svg",
          "nopos": ".ae-nopos-plot .main-svg", "maskless": ".ae-maskless-plot .main-svg"}  # fmt: skip
PANELS = {"heads": ".ae-heads-grid", "attribution": ".ae-attr", "beam_tree": ".ae-beamtree canvas",
          "explain": ".ae-explain-row"}  # fmt: skip
ONE_SCREEN = """() => {
  const shown = (e) => e && e.offsetParent !== null && e.getBoundingClientRect().width > 0;
  const bottom = (sel) => document.querySelector(sel).getBoundingClientRect().bottom;
  const own = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const sizes = [...document.querySelectorAll('.ae-right *')]
    .filter((e) => (e.tagName === 'text' ? e.textContent.trim() : own(e)) && e.getBoundingClientRect().width > 0)
    .filter((e) => !e.closest('details:not([open]) > :not(summary), .ae-tip, .modebar'))
    .map((e) => parseFloat(getComputedStyle(e).fontSize));
  const panel = document.querySelector('.ae-panel');
  const buttons = [...document.querySelectorAll('.ae-tools button')]
    .filter((b) => /Lesson|Heads that matter/.test(b.textContent));
  return { below: Math.max(0, bottom('.ae-left') - innerHeight, bottom('.ae-right') - innerHeight),
           smallest: sizes.length ? Math.min(...sizes) : null,
           panelScrolls: shown(panel) ? panel.scrollHeight > panel.clientHeight + 1 : null,
           toolsInWindow: buttons.length > 0 && buttons.every((b) => { const r = b.getBoundingClientRect();
             return r.top >= 0 && r.bottom <= innerHeight; }) };
}"""


# B of Compare two, the same sentence and model: asked through the viewer of either design (before session 30 its
# askCompare and compareTrace; since, Compare's question in its store and the answer there)
COMPARE_SAME = """() => { const v = window.aeViewer;
  if (v.askCompare) v.askCompare('', 'same');
  else v.store.set({ compare: { what: 'compare', sentence: '', model: 'same' }, view: 'compare' }, 'bench'); }"""
COMPARED = """() => { const v = window.aeViewer;
  return v.askCompare ? v.compareTrace !== null
    : Object.keys(v.state.answers).some((key) => key.includes('"compare"')); }"""


def one_screen(browser, port: int) -> list[dict]:
    """Issue 50's lecture on one projector screen: every view and panel in presentation mode, as ONE_SCREEN reads it."""
    rows = []
    for width, height in SIZES[:2]:
        page = viewer_page(browser, viewport={"width": width, "height": height})
        page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
        page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
        page.locator("#presentation input").check()
        page.wait_for_timeout(400)
        page.evaluate("window.aeViewer.go(6, 'bench')")
        page.evaluate(COMPARE_SAME)
        page.wait_for_function(COMPARED)
        for view in [*VIEWS, *ASKING, *PANELS]:
            if view in PANELS:
                page.evaluate("window.aeViewer.select({view: 'heatmap'}, 'bench')")
                cell = "{row: 2, column: 1, head: window.aeViewer.state.head}" if view == "explain" else "null"
                page.evaluate(f"(v => (v.openPanel || v.ask).call(v, '{view}', {cell}))(window.aeViewer)")
                page.wait_for_selector(PANELS[view], timeout=60_000)
            else:
                page.evaluate(f"window.aeViewer.select({{view: '{view}', panel: null}}, 'bench')")
                if view in ASKING:
                    page.wait_for_selector(ASKING[view], timeout=60_000)
            page.evaluate("window.aeViewer.rendered")  # the designs before session 30; since, aria-busy:
            page.wait_for_function("document.querySelector('.ae-root').getAttribute('aria-busy') !== 'true'")
            page.wait_for_timeout(500)  # Plotly lays its text out after the promise
            rows.append(dict(window=f"{width}x{height}", what=view, **page.evaluate(ONE_SCREEN)))
        page.close()
    return rows


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
            page = viewer_page(browser, viewport={"width": 1366, "height": 768})
            page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
            page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
            page.fill("#sentence textarea", LONG)
            page.press("#sentence textarea", "Enter")
            page.wait_for_function(f"window.aeViewer.trace.request.sentence === {LONG!r}")
            page.keyboard.press("End")
            page.evaluate(COMPARE_SAME)
            page.wait_for_function(COMPARED)
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
            screens = one_screen(browser, port)
            for width, height in SIZES:
                page = viewer_page(browser, viewport={"width": width, "height": height})
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
    return {"layout": rows, "views": views, "one_screen": screens}


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
    print("\nThe lecture on one screen: presentation mode, the opening example at step 6 (issue 50):\n")
    print("| design | window | view or panel | px below the window | smallest text px | panel scrolls inside | "
          "Lesson and questions in the window |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for design, measured in designs.items():
        for r in measured["one_screen"]:
            scrolls = "–" if r["panelScrolls"] is None else ("yes" if r["panelScrolls"] else "no")
            print(f"| {design} | {r['window']} | {r['what']} | {r['below']:.0f} | {r['smallest']} | {scrolls} | "
                  f"{'yes' if r['toolsInWindow'] else 'no'} |")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(designs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
