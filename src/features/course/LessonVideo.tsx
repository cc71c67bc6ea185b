/**
 * A lesson's video in Wistia's player (the `<wistia-player>` element of its Aurora player, the
 * host the site already embeds). Its scripts load only here, on a lesson that has a video, and the
 * page's Content-Security-Policy allows them only on such pages (src/integrations/
 * security-headers.mjs). It uses the player's documented API: the `api-ready`, `play`, `pause`,
 * `time-update` and `ended` events and the `currentTime` and `duration` properties. Locally the
 * stack serves a stand-in with the same API (packages/local-stack/src/wistia.ts).
 *
 * The video resumes where the customer left it: the position is saved every ten seconds of
 * playback, on pause and when the page is hidden; at the end it is reset, so the next visit
 * starts from the beginning.
 */
import { useEffect, useRef, useState } from "react";
import type { LessonVideo as Video } from "~/lib/database";
import { SampleBadge } from "~/components/ui/sample";
import { useAtom } from "~/lib/useAtom";
import { $progress, LOADING } from "~/features/portal/store";
import { resumeAt, SAVE_POSITION_EVERY } from "./logic";
import { saveVideoPosition } from "./store";

/** The part of Wistia's `<wistia-player>` this component uses. */
interface WistiaPlayer extends HTMLElement {
  currentTime: number;
  readonly duration: number;
}

const scripts = new Map<string, Promise<boolean>>();

/**
 * Loads a script once per page; answers whether it loaded. The OS page's player
 * (src/pages/advisor-os/_components/WistiaVideo.astro) keeps a loader of its own inline: one
 * module shared with this island would be a script request more on that marketing page.
 */
function loadScript(src: string, module: boolean): Promise<boolean> {
  let loading = scripts.get(src);
  if (!loading) {
    loading = new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = src;
      script.async = true;
      if (module) script.type = "module";
      script.onload = () => resolve(true);
      script.onerror = () => resolve(false);
      document.head.append(script);
    });
    scripts.set(src, loading);
  }
  return loading;
}

/** "3:05". */
function clock(seconds: number): string {
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

export default function LessonVideo({
  lessonId,
  video,
  playerScript,
}: {
  lessonId: string;
  video: Video;
  /** The player script's URL: the embed script of the media is beside it (`embed/<id>.js`). */
  playerScript: string;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const player = useRef<WistiaPlayer | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const [resumed, setResumed] = useState<number | null>(null);
  const played = useRef(false);
  const progress = useAtom($progress, LOADING);
  const saved =
    progress.status === "ready"
      ? (progress.data.find((row) => row.lesson_id === lessonId)?.video_position ?? 0)
      : progress.status === "error"
        ? 0
        : null;

  useEffect(() => {
    let cancelled = false;
    const element = document.createElement("wistia-player") as WistiaPlayer;
    element.setAttribute("media-id", video.id);
    element.className = "absolute inset-0 size-full";
    let lastSaved = 0;
    const save = () => {
      const at = element.currentTime;
      if (!played.current || !Number.isFinite(at) || Math.abs(at - lastSaved) < 1) return;
      lastSaved = at;
      void saveVideoPosition(lessonId, at);
    };
    const onTime = () => {
      if (Math.abs(element.currentTime - lastSaved) >= SAVE_POSITION_EVERY) save();
    };
    const onEnded = () => {
      lastSaved = 0;
      void saveVideoPosition(lessonId, 0);
    };
    const onPlay = () => {
      played.current = true;
    };
    player.current = element;
    const onReady = () => !cancelled && setReady(true);
    const onHidden = () => document.visibilityState === "hidden" && save();
    element.addEventListener("api-ready", onReady);
    element.addEventListener("play", onPlay);
    element.addEventListener("time-update", onTime);
    element.addEventListener("pause", save);
    element.addEventListener("ended", onEnded);
    document.addEventListener("visibilitychange", onHidden);
    window.addEventListener("pagehide", save);

    void Promise.all([
      loadScript(playerScript, false),
      loadScript(new URL(`embed/${encodeURIComponent(video.id)}.js`, playerScript).href, true),
    ]).then(([playerLoaded, embedLoaded]) => {
      if (cancelled) return;
      if (!playerLoaded) console.warn("Failed to load Wistia player script");
      if (!embedLoaded) console.warn("Failed to load Wistia embed script");
      if (!playerLoaded || !embedLoaded) return setFailed(true);
      holder.current?.append(element);
    });
    return () => {
      cancelled = true;
      save();
      element.remove();
      player.current = null;
      setReady(false);
      document.removeEventListener("visibilitychange", onHidden);
      window.removeEventListener("pagehide", save);
    };
  }, [lessonId, video.id, playerScript]);

  // Once the player is ready and the saved position known: resume there, unless already playing.
  useEffect(() => {
    const element = player.current;
    if (!ready || !element || saved === null || played.current || resumed !== null) return;
    const at = resumeAt(saved, Number.isFinite(element.duration) ? element.duration : null);
    if (at > 0) element.currentTime = at;
    setResumed(at);
  }, [ready, saved, resumed]);

  return (
    <figure>
      <div
        ref={holder}
        className="relative aspect-video w-full overflow-hidden rounded-2xl border border-white/10 bg-slate-900"
      >
        {failed && (
          <p className="absolute inset-0 flex items-center justify-center p-6 text-center text-slate-300">
            The video could not be loaded just now. The lesson&rsquo;s text is below; please refresh the page to try the
            video again.
          </p>
        )}
      </div>
      <figcaption className="mt-2 text-sm text-slate-300" aria-live="polite">
        {video.sample && (
          <span className="mr-2">
            Sample video: the lesson&rsquo;s recording goes here.
            <SampleBadge />
          </span>
        )}
        {resumed ? `Resuming where you left off, at ${clock(resumed)}.` : ""}
      </figcaption>
    </figure>
  );
}
