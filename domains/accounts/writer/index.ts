// The accounts domain's writer (its definition's `writer`), on the writer thread of the role that ingests: the fill of
// the perp account state from rows stored before ingest kept it (state-fill.ts), address by address until it is done,
// then the positions a late fill made stale (a backfill lane loading the past), walked again once no backfill loads. The
// account state reads the rows themselves for what is not done yet (service/state.ts).
import { isStorageUnavailable } from '../../../db/unavailable.ts';
import type { DomainWriter, WriterDeps } from '../../../kit/domain.ts';
import { stoppableWriter } from '../../../kit/stoppable-writer.ts';
import { fillStep, refoldStale } from './state-fill.ts';

const FAILURE_RETRY_MS = 30_000;
/** How often stale positions are looked for, and whether a backfill still loads. */
const STALE_POLL_MS = 2_000;

interface Stats {
  addresses: number;
  refolded: number;
}

async function run(
  deps: Pick<WriterDeps, 'pool' | 'log' | 'backfillLoading'>,
  stats: Stats,
  stopped: () => boolean,
  pause: (ms: number) => Promise<void>,
): Promise<void> {
  const started = Date.now();
  let filling = true;
  let announced = false;
  let backoffMs = 250;
  while (!stopped()) {
    try {
      if (filling) {
        const step = await fillStep(deps.pool);
        if (step) {
          if (!announced) {
            deps.log(
              'accounts: computing the account state of rows stored before ingest kept it (migration 0028), an address at a time; account state reads those rows until it is done',
            );
            announced = true;
          }
          stats.addresses++;
        } else {
          filling = false;
          if (announced) {
            deps.log(
              `accounts: account state filled for ${stats.addresses.toLocaleString('en-US')} addresses in ${((Date.now() - started) / 1000).toFixed(1)} s`,
            );
          }
        }
      } else if (await deps.backfillLoading?.()) {
        // A backfill loading the past behind the present makes the same positions stale batch after batch: each
        // walk would be undone by its next batch, and a market maker's walk reads all its fills since the open
        // (quadratic over the backfill). The positions wait, read from their fills meanwhile, and are walked once.
        await pause(STALE_POLL_MS);
      } else {
        const n = await refoldStale(deps.pool);
        stats.refolded += n;
        if (n === 0) await pause(STALE_POLL_MS);
      }
      backoffMs = 250;
    } catch (err) {
      const storage = isStorageUnavailable(err);
      const retryMs = storage ? backoffMs : FAILURE_RETRY_MS;
      deps.log(
        `accounts: account state ${storage ? 'waits for storage' : `failed (${err instanceof Error ? err.message : String(err)})`}; resuming in ${retryMs / 1000} s from where it got`,
      );
      await pause(retryMs);
      if (storage) backoffMs = Math.min(5000, backoffMs * 2);
    }
  }
}

/** The domain's writer: the fill, then stale positions until it is stopped (ingest keeps the rest). */
export function startWriter(deps: WriterDeps): DomainWriter {
  const stats: Stats = { addresses: 0, refolded: 0 };
  return stoppableWriter(
    (stopped, pause) => run(deps, stats, stopped, pause),
    () => stats.addresses + stats.refolded,
  );
}

/** `npm run import` with no service beside it: the fill and the stale positions, to their end. */
export async function catchUp(deps: WriterDeps): Promise<void> {
  let addresses = 0;
  while (await fillStep(deps.pool)) addresses++;
  let refolded = 0;
  for (let n = await refoldStale(deps.pool); n; n = await refoldStale(deps.pool)) refolded += n;
  if (addresses || refolded) {
    deps.log(
      `accounts: account state of ${addresses.toLocaleString('en-US')} addresses filled, ${refolded.toLocaleString('en-US')} positions walked again`,
    );
  }
}
