// upload.js: the Train tab's own TSV, sent to the server's API (POST /ae/api/uploads), which keeps it under an id it
// makes from the content. Train (train.js) sends that id, never a path (explorer/app/uploads.py). Choosing
// a file uploads it at once and says what the server answered; a click on Train while it is on its way waits for it.
import { SETTINGS } from "./settings.js";
import { clientHeaders } from "./api.js";
import { el } from "./dom.js";

let pending = Promise.resolve(""); // the id of the chosen file ("" for none, or when its upload was refused)

// Build the picker in `element` (the gr.HTML's js_on_load).
export function mount(element) {
  const input = el("input");
  input.type = "file";
  input.accept = ".tsv,.txt,text/tab-separated-values,text/plain";
  input.id = "train-file";
  const label = el("label", "ae-upload-label", "TSV file (English TAB German per line)");
  label.htmlFor = input.id;
  const said = el("output", "ae-upload-said", "No file chosen yet.");
  said.id = "train-file-said";
  element.replaceChildren(label, input, said);
  input.addEventListener("change", () => {
    const file = input.files && input.files[0];
    pending = file ? send(file, said) : Promise.resolve("");
    if (!file) said.textContent = "No file chosen.";
  });
}

function send(file, said) {
  said.textContent = "Uploading " + file.name + " …";
  return fetch(SETTINGS.API + "/uploads", { method: "POST", headers: clientHeaders({ "content-type": "text/tab-separated-values" }), body: file })
    .then((response) => response.json().catch(() => ({ error: "The server answered " + response.status + "." }))
      .then((body) => {
        if (!response.ok || body.error) throw new Error(body.error || "HTTP " + response.status);
        said.textContent = "Uploaded " + file.name + " (" + body.bytes.toLocaleString("en") + " bytes). Choose “my uploaded TSV” above and press Train.";
        return body.upload;
      }))
    .catch((error) => { said.textContent = file.name + ": " + error.message; return ""; });
}

// The id of the chosen file once its upload is done ("" for none, or when its upload was refused): what Train sends.
export function chosenUpload() {
  return pending;
}
