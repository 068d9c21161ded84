// The markets domain's writer (its definition's `writer`), on the writer thread of the role that ingests: the fill of
// the HIP-3 rollup from the trades stored before it (hip3-fill.ts), step by step until it is done. The /hip3 answers
// sum the trades themselves until then (service/hip3.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { isStorageUnavailable } from '../../../db/unavailable.ts';
import type { DomainWriter, WriterDeps } from '../../../kit/domain.ts';
import { stoppableWriter } from '../../../kit/stoppable-writer.ts';
import { fillStep } from './hip3-fill.ts';

const FAILURE_RETRY_MS = 30_000;

interface Hip3FillStats {
  coins: number;
  trades: number;
}

/** Fills until done or `stopped()`; a storage outage is waited out, a failed step tried again. */
async function fill(
  deps: Pick<WriterDeps, 'pool' | 'log'>,
  stats: Hip3FillStats,
  stopped: () => boolean = () => false,
  pause: (ms: number) => Promise<void> = (ms) => sleep(ms),
): Promise<void> {
  const started = Date.now();
  let backoffMs = 250;
  let announced = false;
  while (!stopped()) {
    try {
      const step = await fillStep(deps.pool);
      backoffMs = 250;
      if (!step) break;
      if (!announced) {
        deps.log(
          'markets: summing the HIP-3 trades stored before their rollup (migration 0024), a few hours of a coin at a time; /hip3 answers sum the trades until it is done',
        );
        announced = true;
      }
      stats.trades += step.trades;
      if (step.trades === 0) stats.coins++;
    } catch (err) {
      const storage = isStorageUnavailable(err);
      const retryMs = storage ? backoffMs : FAILURE_RETRY_MS;
      deps.log(
        `markets: HIP-3 rollup fill ${storage ? 'waits for storage' : `failed (${err instanceof Error ? err.message : String(err)})`}; resuming in ${retryMs / 1000} s from where it got`,
      );
      await pause(retryMs);
      if (storage) backoffMs = Math.min(5000, backoffMs * 2);
    }
  }
  if (announced && !stopped()) {
    deps.log(
      `markets: HIP-3 rollup filled: ${stats.trades.toLocaleString('en-US')} trades of ${stats.coins} coins in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
}

/** The domain's writer: the fill, then nothing until it is stopped (ingest keeps the rollup from then on). */
export function startWriter(deps: WriterDeps): DomainWriter {
  const stats: Hip3FillStats = { coins: 0, trades: 0 };
  return stoppableWriter(
    (stopped, pause) => fill(deps, stats, stopped, pause),
    () => stats.trades,
  );
}

/** `npm run import` with no service beside it: the fill, to its end (a failure ends the command, saying why). */
export async function catchUp(deps: WriterDeps): Promise<void> {
  let trades = 0;
  for (let step = await fillStep(deps.pool); step; step = await fillStep(deps.pool)) trades += step.trades;
  if (trades) deps.log(`markets: HIP-3 rollup filled with ${trades.toLocaleString('en-US')} trades stored before it`);
}
