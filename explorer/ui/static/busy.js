// busy.js: whether the viewer is busy, said as aria-busy on its root (a screen reader hears it, a test waits for it):
// busy while anything it draws, or a trace it asked for, is pending.
export class Busy {
  constructor(element) {
    this.element = element;
    this.pending = 0;
  }

  // Busy until the function returned is called (once; again does nothing).
  hold() {
    this.pending += 1;
    this.element.setAttribute("aria-busy", "true");
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.pending -= 1;
      if (this.pending === 0) this.element.setAttribute("aria-busy", "false");
    };
  }

  // Busy until `promise` settles (and no other is pending); returns `promise`.
  during(promise) {
    const release = this.hold();
    promise.then(release, release);
    return promise;
  }
}
