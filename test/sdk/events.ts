// Waiting for a subscription's first event through the SDK, with a deadline.

export async function firstEvent<T>(
  subscribe: (listener: (e: T) => void) => Promise<{ unsubscribe(): Promise<void> }>,
  timeoutMs = 20_000,
): Promise<T> {
  let resolve!: (e: T) => void;
  const got = new Promise<T>((r) => {
    resolve = r;
  });
  const sub = await subscribe((e) => resolve(e));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([got, timeout]);
  } finally {
    clearTimeout(timer);
    await sub.unsubscribe();
  }
}
