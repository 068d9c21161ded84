// Small pieces every channel module uses: parameter checks that become `Invalid subscription` errors, and a
// per-subscription throttle so a busy book sends at most one frame per interval (the last state wins).
import { SubscriptionError } from '../ws/protocol.ts';

export function requireString(sub: Record<string, unknown>, key: string): string {
  const v = sub[key];
  if (typeof v !== 'string' || v === '') throw new SubscriptionError(`${key}: must be a non-empty string`);
  return v;
}

export function optionalIn<T>(sub: Record<string, unknown>, key: string, allowed: readonly T[]): T | null {
  const v = sub[key];
  if (v === undefined || v === null) return null;
  if (!allowed.includes(v as T)) throw new SubscriptionError(`${key}: must be one of ${allowed.join(', ')}`);
  return v as T;
}

/** Calls `send` at most once per `ms`; a call inside the window schedules one trailing call. */
export function throttled(send: () => void, ms: number): { poke(): void; stop(): void } {
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    poke() {
      const now = Date.now();
      if (now - last >= ms) {
        last = now;
        send();
      } else {
        timer ??= setTimeout(
          () => {
            timer = undefined;
            last = Date.now();
            send();
          },
          ms - (now - last),
        );
      }
    },
    stop() {
      clearTimeout(timer);
    },
  };
}
