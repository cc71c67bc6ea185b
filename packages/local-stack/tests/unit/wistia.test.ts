/**
 * The Wistia stand-in's routes (packages/local-stack/src/wistia.ts): the player script and a
 * media's embed script, as the lesson player loads them from the URL beside the player's
 * (`embed/<media id>.js`). What the player does is driven in a real browser by
 * tests/e2e/member-area.spec.ts.
 */
import { describe, expect, it } from "vitest";
import { handleWistia, mediaDuration, WISTIA_PLAYER_PATH } from "../../src/wistia.ts";

const get = (path: string, method = "GET") => handleWistia(new Request(`http://localhost:4321${path}`, { method }));

describe("the Wistia stand-in", () => {
  it("serves the player script, which defines <wistia-player> with the events and properties the lesson player uses", async () => {
    const answer = get(WISTIA_PLAYER_PATH)!;
    expect(answer.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const script = await answer.text();
    expect(script).toContain('customElements.define("wistia-player"');
    for (const event of ["api-ready", "play", "pause", "time-update", "ended"]) expect(script).toContain(`"${event}"`);
    expect(script).toMatch(/set currentTime\(/);
    expect(() => new Function(script)).not.toThrow();
  });

  it("answers a media's embed script beside the player, as new URL('embed/<id>.js', player) finds it", async () => {
    const url = new URL("embed/h3m9pz6c2d.js", `http://localhost:4321${WISTIA_PLAYER_PATH}`);
    const answer = get(url.pathname)!;
    expect(await answer.text()).toContain('"h3m9pz6c2d"');
    expect(get("/_wistia/embed/not-a-media-id.js")).toBeNull();
    expect(get("/_wistia/other.js")).toBeNull();
    expect(get(WISTIA_PLAYER_PATH, "POST")).toBeNull();
  });

  it("gives each media a length of 5 to 12 minutes, the same every time", () => {
    expect(mediaDuration("h3m9pz6c2d")).toBe(mediaDuration("h3m9pz6c2d"));
    for (const id of ["h3m9pz6c2d", "j6w2qs8t4e", "q8t2vx4m1a", "0000000000"]) {
      expect(mediaDuration(id)).toBeGreaterThanOrEqual(300);
      expect(mediaDuration(id)).toBeLessThanOrEqual(720);
    }
  });
});
