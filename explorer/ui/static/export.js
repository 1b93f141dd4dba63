// export.js: the current sentence as ONE self-contained HTML file (trace + viewer + plotly.js inlined)
// that opens and steps with the network off, for slides and course pages. Built in the browser from
// the bundle, stylesheet and plotly.js this page uses (SETTINGS.ASSETS, set by explorer/ui/viewer.py), fetched
// again from the browser's cache, so the server does no work and keeps no file.
import { SETTINGS } from "./settings.js";
import { escape } from "./dom.js";

// One of SETTINGS.ASSETS ("bundle", "css", "plotly"): inlined on an exported page, else fetched from its URL.
function sourceText(name) {
  const inline = document.querySelector('script[data-ae-source="' + name + '"], style[data-ae-source="' + name + '"]');
  if (inline) return Promise.resolve(inline.textContent);
  return fetch(SETTINGS.ASSETS[name]).then((r) => {
    if (!r.ok) throw new Error(name + ": HTTP " + r.status);
    return r.text();
  });
}

// "</script" inside inlined text would end the element early.
function safe(text) { return text.replace(/<\/(script|style)/gi, "<\\/$1"); }

export function standaloneHtml(wire, state) {
  const names = ["plotly", "bundle"];
  return Promise.all([sourceText("css")].concat(names.map(sourceText))).then(([css, ...scripts]) => {
    const title = "Attention Explorer: " + wire.request.sentence;
    const parts = [
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
      "<title>" + escape(title) + "</title>",
      "<style data-ae-source=\"css\">" + safe(css) + "</style>",
    ];
    parts.push("<script>window.AttentionExplorerSettings = " + JSON.stringify({ ASSETS: SETTINGS.ASSETS, FONT: SETTINGS.FONT, REQUEST: SETTINGS.REQUEST }) + ";</script>");
    names.forEach((name, i) => parts.push("<script data-ae-source=\"" + name + "\">" + safe(scripts[i]) + "</script>"));
    parts.push("</head><body class=\"ae-standalone\"><div id=\"ae-root\"></div>");
    parts.push("<script type=\"application/json\" id=\"ae-trace\">" + safe(JSON.stringify(wire)) + "</script>");
    parts.push("<script type=\"application/json\" id=\"ae-state\">" + JSON.stringify(state) + "</script>");
    parts.push("<script>AttentionExplorer.standalone(document.getElementById(\"ae-root\"));</script></body></html>");
    return parts.join("\n");
  });
}
