/**
 * Where supabase-js keeps the session, decided by the login form's "Remember me":
 * checked, in localStorage (kept across browser restarts); unchecked, in sessionStorage (gone when
 * the tab's browsing session ends). Reads look in both, so a page finds the session wherever the
 * sign-in put it; a write goes to one place and clears the other, so one session never lives twice.
 */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface RememberMeStorage extends KeyValueStorage {
  /** Chooses where the next writes go: true for localStorage, false for sessionStorage. */
  remember(on: boolean): void;
  /** Whether writes go to localStorage. */
  readonly remembering: boolean;
}

/** A storage that keeps nothing: what a browser with storage blocked (privacy mode) offers. */
const nowhere: KeyValueStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };

/** The browser's storage of that name, or none where access throws (blocked cookies, sandboxed frames). */
export function browserStorage(name: "localStorage" | "sessionStorage"): KeyValueStorage {
  try {
    const storage = window[name];
    storage.getItem("");
    return storage;
  } catch {
    return nowhere;
  }
}

/**
 * @param sessionKey the key the session itself is stored under: if the tab already holds a
 *   not-remembered session there, writes keep going to sessionStorage (token refreshes included).
 */
export function rememberMeStorage(
  local: KeyValueStorage,
  session: KeyValueStorage,
  sessionKey: string,
): RememberMeStorage {
  let remembering = session.getItem(sessionKey) === null;
  const safely = (write: () => void) => {
    try {
      write();
    } catch {
      // A full or blocked storage: the session lives in memory for this page only.
    }
  };
  return {
    get remembering() {
      return remembering;
    },
    remember(on) {
      remembering = on;
    },
    getItem(key) {
      return session.getItem(key) ?? local.getItem(key);
    },
    setItem(key, value) {
      const [target, other] = remembering ? [local, session] : [session, local];
      safely(() => target.setItem(key, value));
      safely(() => other.removeItem(key));
    },
    removeItem(key) {
      safely(() => local.removeItem(key));
      safely(() => session.removeItem(key));
    },
  };
}
