/**
 * A stand-in for Wistia's Aurora player, so lesson videos play on `npm start` and in the tests with
 * no network: `/_wistia/player.js` defines the `<wistia-player>` element and
 * `/_wistia/embed/<media id>.js` answers as the media's embed script does. It offers what the
 * lesson player uses of Wistia's documented API (docs.wistia.com: Aurora Player Events, Methods,
 * Attributes and Properties): the `media-id` attribute; the `currentTime` (settable) and
 * `duration` properties; `play()` and `pause()`; and the events `api-ready`, `play`, `pause`,
 * `time-update` and `ended` (at the end: `pause`, then `ended`, as a media element does). There is
 * no real footage: a clock plays the media's length, with a play button, a position slider and the
 * time. `npm start` builds the site with EMBED_WISTIA_PLAYER_URL pointing here
 * (packages/local-stack/src/site.ts); production loads https://fast.wistia.com/player.js. Dev and
 * test only.
 */

/** Where the stand-in answers, on the stack's own origin. */
export const WISTIA_PATH = "/_wistia";
export const WISTIA_PLAYER_PATH = `${WISTIA_PATH}/player.js`;

/** A media's length in seconds: from 5 to 12 minutes, fixed by its id. */
export function mediaDuration(mediaId: string): number {
  let hash = 0;
  for (const char of mediaId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return 300 + (hash % 421);
}

const PLAYER = `(() => {
  if (customElements.get("wistia-player")) return;
  const durationOf = ${mediaDuration.toString()};
  const clock = (s) => Math.floor(s / 60) + ":" + String(Math.floor(s % 60)).padStart(2, "0");
  const TICK = 250;
  class WistiaPlayer extends HTMLElement {
    #time = 0;
    #timer = 0;
    #ui = null;
    get duration() { return durationOf(this.getAttribute("media-id") || ""); }
    get currentTime() { return this.#time; }
    set currentTime(value) {
      this.#time = Math.max(0, Math.min(this.duration, Number(value) || 0));
      this.#render();
      this.#emit("time-update");
    }
    get state() { return this.#timer ? "playing" : this.#time >= this.duration ? "ended" : "paused"; }
    connectedCallback() {
      if (this.#ui) return;
      const root = this.attachShadow({ mode: "open" });
      root.innerHTML = \`<style>
        :host{display:block;color:#e2e8f0;font:14px/1.4 system-ui,sans-serif;background:#0f172a}
        .frame{position:absolute;inset:0;display:flex;flex-direction:column;justify-content:space-between;padding:16px}
        .label{opacity:.8}
        .bar{display:flex;align-items:center;gap:12px;background:rgba(2,6,23,.7);border-radius:12px;padding:8px 12px}
        button{min-width:44px;min-height:44px;border-radius:999px;border:0;background:#7c3aed;color:#fff;font-weight:600;cursor:pointer;padding:0 16px}
        button:focus-visible,input:focus-visible{outline:2px solid #38bdf8;outline-offset:2px}
        input{flex:1;min-width:0}
        output{font-variant-numeric:tabular-nums;white-space:nowrap}
      </style>
      <div class="frame" role="group" aria-label="Video player">
        <span class="label">Local video stand-in · media \${this.getAttribute("media-id")}</span>
        <div class="bar">
          <button type="button" data-toggle aria-label="Play video">Play</button>
          <input type="range" min="0" step="1" aria-label="Video position" data-seek>
          <output data-time></output>
        </div>
      </div>\`;
      this.#ui = {
        toggle: root.querySelector("[data-toggle]"),
        seek: root.querySelector("[data-seek]"),
        time: root.querySelector("[data-time]"),
      };
      this.#ui.seek.max = String(this.duration);
      this.#ui.toggle.addEventListener("click", () => (this.#timer ? this.pause() : this.play()));
      this.#ui.seek.addEventListener("input", () => (this.currentTime = Number(this.#ui.seek.value)));
      this.#render();
      queueMicrotask(() => this.#emit("api-ready"));
    }
    disconnectedCallback() { this.#stop(); }
    play() {
      if (this.#timer) return Promise.resolve();
      if (this.#time >= this.duration) this.#time = 0;
      this.#timer = setInterval(() => this.#tick(), TICK);
      this.#render();
      this.#emit("play");
      return Promise.resolve();
    }
    pause() {
      if (!this.#timer) return Promise.resolve();
      this.#stop();
      this.#render();
      this.#emit("pause");
      return Promise.resolve();
    }
    #tick() {
      this.#time = Math.min(this.duration, this.#time + TICK / 1000);
      this.#render();
      this.#emit("time-update");
      if (this.#time >= this.duration) {
        this.pause();
        this.#emit("ended");
      }
    }
    #stop() { clearInterval(this.#timer); this.#timer = 0; }
    #render() {
      if (!this.#ui) return;
      const playing = !!this.#timer;
      this.#ui.toggle.textContent = playing ? "Pause" : "Play";
      this.#ui.toggle.setAttribute("aria-label", playing ? "Pause video" : "Play video");
      this.#ui.seek.value = String(Math.floor(this.#time));
      this.#ui.time.textContent = clock(this.#time) + " / " + clock(this.duration);
    }
    #emit(type) { this.dispatchEvent(new CustomEvent(type, { detail: { currentTime: this.#time } })); }
  }
  customElements.define("wistia-player", WistiaPlayer);
})();
`;

const script = (body: string) =>
  new Response(body, {
    headers: {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "no-cache",
      // The site's pages load it from the stack's origin, which may differ from theirs (npm run dev).
      "access-control-allow-origin": "*",
    },
  });

/** Answers `/_wistia/*`, or null for a path that is not the stand-in's. */
export function handleWistia(request: Request): Response | null {
  const path = new URL(request.url).pathname;
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  if (path === WISTIA_PLAYER_PATH) return script(PLAYER);
  const embed = /^\/_wistia\/embed\/([a-z0-9]{10})\.js$/.exec(path);
  // The media's embed script registers its metadata; the stand-in's player needs none.
  if (embed) return script(`export const mediaId = ${JSON.stringify(embed[1])};\n`);
  return null;
}
