// presenting.js: presentation mode survives a reload. The header's checkbox (Gradio's, `#presentation`) switches the
// body's class; the class is remembered in this tab's sessionStorage whenever it changes, and on the next load the
// checkbox is ticked again (its own change event puts the class back), so a lecturer's reload keeps the projector's
// layout, as the room and the address keep the rest.
import { presenting } from "./dom.js";

const KEY = "ae-presenting";
const TRIES = 100; // animation frames to wait for Gradio to render the checkbox

export function keepPresenting() {
  let on = false;
  try { on = sessionStorage.getItem(KEY) === "1"; } catch (e) { /* storage off: nothing to restore */ }
  new MutationObserver(() => {
    try { sessionStorage.setItem(KEY, presenting() ? "1" : "0"); } catch (e) { /* storage off */ }
  }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
  if (!on || presenting()) return;
  let tries = 0;
  const tick = () => {
    const box = document.querySelector("#presentation input[type=checkbox]");
    if (box && !box.checked) box.click(); // Gradio's change event adds the class
    else if (!box && ++tries < TRIES) window.requestAnimationFrame(tick);
    else if (!box) document.body.classList.add("presentation"); // no checkbox to tick: the class alone
  };
  tick();
}
