/** Loading an admin API answer into a component, again every `everyMs` while it is shown. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "./api.js";

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  reload(): void;
}

export function usePoll<T>(load: () => Promise<T>, everyMs: number | undefined, deps: unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(undefined);
      },
      (failure: unknown) => {
        if (live) setError(failure instanceof ApiError ? failure : new ApiError(0, "NETWORK", String(failure)));
      },
    );
    const timer = everyMs === undefined ? undefined : setTimeout(reload, everyMs);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [tick, ...deps]);
  return { data, error, reload };
}
