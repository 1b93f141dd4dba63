// upload.js: the Train tab's own TSV, sent to the server's API (POST /ae/api/uploads), which keeps it under an id it
// makes from the content. Train (train.js) sends that id, never a path (explorer/app/uploads.py). Choosing a file
// uploads it at once and says what the server answered; a click on Train while it is on its way waits for it.
import { api } from "./api.js";
import { el } from "./dom.js";

class Upload {
  // Build the picker in `element` (tabs.js: the context).
  constructor(element, context) {
    this.signal = context.signal;
    this.pending = Promise.resolve(""); // the id of the chosen file ("" for none, or when its upload was refused)
    const input = el("input");
    input.type = "file";
    input.accept = ".tsv,.txt,text/tab-separated-values,text/plain";
    input.id = "train-file";
    const label = el("label", "ae-upload-label", "TSV file (English TAB German per line)");
    label.htmlFor = input.id;
    this.said = el("output", "ae-upload-said", "No file chosen yet.");
    this.said.id = "train-file-said";
    element.replaceChildren(label, input, this.said);
    input.addEventListener("change", () => {
      const file = input.files && input.files[0];
      this.pending = file ? this.send(file) : Promise.resolve("");
      if (!file) this.said.textContent = "No file chosen.";
    }, { signal: this.signal });
  }

  send(file) {
    this.said.textContent = "Uploading " + file.name + " …";
    return api.upload(file, this.signal).then((body) => {
      this.said.textContent = "Uploaded " + file.name + " (" + body.bytes.toLocaleString("en") + " bytes). Choose “my uploaded TSV” above and press Train.";
      return body.upload;
    }, (error) => { this.said.textContent = file.name + ": " + error.message; return ""; });
  }

  // The id of the chosen file once its upload is done ("" for none, or when its upload was refused): what Train sends.
  chosen() { return this.pending; }
}

export const TAB = { id: "upload", create: (element, context) => new Upload(element, context) };
