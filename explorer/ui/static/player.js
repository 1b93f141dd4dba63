// player.js: autoplay. One step every `pace` seconds through the viewer's go(), until the last step, then stop;
// any other step taken (a key, a click, the slider) stops it.
export class Player {
  constructor(viewer) {
    this.viewer = viewer;
    this.timer = null;
  }

  playing() { return this.timer !== null; }

  start(pace) {
    this.stop();
    const v = this.viewer;
    if (v.store.get().step >= v.trace.T) v.go(0, "play");
    this.timer = setInterval(() => {
      if (v.store.get().step < v.trace.T) v.go(v.store.get().step + 1, "play");
      else {
        this.stop();
        v.showPlaying(); // the play button says so
      }
    }, pace * 1000);
  }

  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
