// The NATS JetStream adapter of the event bus (being built: issue 23).
import type { OpenBus } from './open.ts';

export async function openJetStreamBus(opts: { url: string; log?: (line: string) => void }): Promise<OpenBus> {
  throw new Error(`NATS_URL=${opts.url}: the JetStream event bus is not built yet`);
}
