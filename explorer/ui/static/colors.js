// colors.js: the fixed colours of every view: one 0..1 colour-blind-safe scale for every weight (Viridis, with
// Plotly's stops, and the same scale as 256 CSS colours for the canvases), the masked future's grey, the
// Okabe-Ito colours of the chosen token and of the heads, and signed values over white.
export const COLORS = {
  scale: [
    [0, "#440154"], [0.0627, "#48186a"], [0.1255, "#472d7b"], [0.1882, "#424086"], [0.251, "#3b528b"], [0.3137, "#33638d"],
    [0.3765, "#2c728e"], [0.4392, "#26828e"], [0.502, "#21918c"], [0.5647, "#1fa088"], [0.6275, "#28ae80"], [0.6902, "#3fbc73"],
    [0.7529, "#5ec962"], [0.8157, "#84d44b"], [0.8784, "#addc30"], [0.9412, "#d8e219"], [1, "#fde725"],
  ],
  masked: "#d0d0d0", // the masked future: grey, never a small weight
  chosen: "#D55E00", // Okabe-Ito vermillion: the chosen token, the current row, the best head
  other: "#0072B2", // Okabe-Ito blue
  forced: "#CC79A7",
  produced: "#56B4E9",
  start: "#999999",
  gold: ["#ffffff", "#000000"], // a hand-aligned link: white around black, seen on every colour of the scale
};

// 256 CSS colours along the scale, interpolated like Plotly does between its stops.
export const LUT = (function () {
  const stops = COLORS.scale.map(([at, hex]) => [at, [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))]);
  const out = [];
  for (let n = 0; n < 256; n++) {
    const v = n / 255;
    let k = 1;
    while (k < stops.length - 1 && stops[k][0] < v) k++;
    const [a, ca] = stops[k - 1], [b, cb] = stops[k];
    const f = b > a ? (v - a) / (b - a) : 0;
    out.push("rgb(" + ca.map((c, i) => Math.round(c + f * (cb[i] - c))).join(",") + ")");
  }
  return out;
})();

export function weightColor(v) { return LUT[Math.max(0, Math.min(255, Math.round(v * 255)))]; }

// A signed value as a colour over white: vermillion positive, blue negative, opacity |value| / peak.
export function signedFill(value, peak) {
  const a = Math.min(1, Math.abs(value) / (peak || 1));
  return (value >= 0 ? "rgba(213, 94, 0, " : "rgba(0, 114, 178, ") + a.toFixed(3) + ")";
}

// Okabe-Ito: told apart by colour-blind eyes too; more heads than colours reuse them.
export const HEAD_COLORS = ["#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442", "#000000"];
export function headColor(h) { return HEAD_COLORS[h % HEAD_COLORS.length]; }
