import type { ReadableAtom } from "nanostores";
import { useCallback, useSyncExternalStore } from "react";

/**
 * A nanostore's value in a React island. The server's HTML, and the first render that hydrates
 * it, use `serverValue` (the loading state the page was built with), so hydration always matches;
 * React then renders the store's current value.
 */
export function useAtom<T>(store: ReadableAtom<T>, serverValue: T): T {
  const subscribe = useCallback((onChange: () => void) => store.listen(onChange), [store]);
  const get = useCallback(() => store.get(), [store]);
  return useSyncExternalStore(subscribe, get, () => serverValue);
}
