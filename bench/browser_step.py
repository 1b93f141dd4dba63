"""Key press to repainted heatmap in headless Chromium: 30 steps and 30 head switches, all drawn in the browser.

    python -m bench.browser_step [--checkpoint checkpoints/tatoeba-en-de] [--old-ref REV ...] [--json OUT]

Starts `python app.py`, opens the page at 1366x768 on the long example, and for each key press measures
in the page from the keydown event to the end of the first animation frame after the viewer's redraw
resolved (heatmap on a canvas, candidates as HTML bars; until this session both were Plotly.react charts,
which took 62-87 ms a step) — what a person sees. The reference measured in the same run is an empty
requestAnimationFrame after a key press (the frame floor of this browser). Also counts the requests the
page sends while stepping (target: none). Targets: median <= 16 ms, p95 <= 33 ms. In normal and presentation mode;
with `--old-ref`, the design at that git revision too (served from a temporary worktree), in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from bench.app_latency import free_port, start_app, stop_app
from bench.common import checkouts, viewer_page
from bench.lecture_load import q
from explorer.app import SHIPPED_CHECKPOINT

LONG = "When I was a child, I often went to school by bus because my parents did not have a car."
MEASURE = """async (key) => {
  const v = window.aeViewer, root = document.querySelector('.ae-root');
  const t0 = performance.now();
  document.dispatchEvent(new KeyboardEvent('keydown', {key: key, bubbles: true}));
  if (v.rendered) await v.rendered;  // the designs before session 30: the promise of the last redraw
  else await new Promise((drawn) => {  // since: the viewer is busy (aria-busy) until its redraw resolved
    if (root.getAttribute('aria-busy') === 'false') return drawn();
    new MutationObserver((_, seen) => {
      if (root.getAttribute('aria-busy') === 'false') { seen.disconnect(); drawn(); }
    }).observe(root, { attributes: true, attributeFilter: ['aria-busy'] });
  });
  await new Promise((r) => requestAnimationFrame(() => r()));
  return performance.now() - t0;
}"""
FLOOR = """async () => {
  const t0 = performance.now();
  await new Promise((r) => requestAnimationFrame(() => r()));
  return performance.now() - t0;
}"""


def measure(cwd: Path, checkpoint: str, presentation: bool) -> dict:
    """One design (the app served from `cwd`), normal or presentation mode: 30 steps and 30 head switches."""
    from urllib.parse import urlencode

    from playwright.sync_api import sync_playwright

    proc, _ = start_app(checkpoint, free_port(), cwd=cwd)
    url = f"http://127.0.0.1:{proc.args[-1]}/?" + urlencode({"sentence": LONG, "step": 0})
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            page = viewer_page(browser, viewport={"width": 1366, "height": 768})
            page.goto(url, wait_until="load")
            page.wait_for_selector(".ae-heat canvas[aria-label]")
            page.wait_for_function(f"window.aeViewer && window.aeViewer.trace.request.sentence === {json.dumps(LONG)}")
            if presentation:
                page.locator("#presentation input").check()
                page.wait_for_timeout(400)
            page.wait_for_function("document.querySelector('.ae-root').getAttribute('aria-busy') !== 'true'")
            page.evaluate("window.aeViewer.rendered")  # the designs before session 30 (since: aria-busy, above)
            T = page.evaluate("window.aeViewer.trace.T")
            requests = []
            page.on("request", lambda r: requests.append(r.url))
            steps, heads, floor = [], [], []
            for _ in range(3):  # warm-up
                page.evaluate(MEASURE, "ArrowRight")
            page.evaluate(MEASURE, "Home")
            for i in range(30):
                floor.append(page.evaluate(FLOOR))
                steps.append(page.evaluate(MEASURE, "ArrowRight" if (i // T) % 2 == 0 else "ArrowLeft"))
            for i in range(30):
                floor.append(page.evaluate(FLOOR))
                heads.append(page.evaluate(MEASURE, str(i % 4)))
            browser.close()
    finally:
        stop_app(proc)
    return {
        "target_tokens": T,
        "step_median_ms": round(statistics.median(steps), 1),
        "step_p95_ms": round(q(steps, 0.95), 1),
        "head_median_ms": round(statistics.median(heads), 1),
        "head_p95_ms": round(q(heads, 0.95), 1),
        "frame_floor_median_ms": round(statistics.median(floor), 1),
        "requests_while_stepping": len(requests),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--old-ref", action="append", default=[], help="also measure the design at this git revision")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    results = {}
    with checkouts(args.old_ref) as designs:
        for mode in ("normal", "presentation"):
            for name, cwd in designs:  # the designs one after the other in each mode: drift hits them alike
                results[f"{name} · {mode}"] = measure(cwd, args.checkpoint, mode == "presentation")
    print("| design · mode (headless Chromium, 1366x768, long example) | → key: median / p95 | digit key: median / p95 "
          "| empty frame | requests |\n|---|---|---|---|---|")  # fmt: skip
    for name, r in results.items():
        step, head = f"{r['step_median_ms']} / {r['step_p95_ms']} ms", f"{r['head_median_ms']} / {r['head_p95_ms']} ms"
        print(f"| {name} | {step} | {head} | {r['frame_floor_median_ms']} ms | {r['requests_while_stepping']} |")
    print("\nTargets: a step or a head switch repainted in ≤ 16 ms (median), ≤ 33 ms (p95); no request while stepping.")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
