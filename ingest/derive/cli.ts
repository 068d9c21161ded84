// `npm run derive -- rebuild`: empties the analytics tables and derives them again from the stored fills, funding
// and ledger (the same job, the same numbers). Run it with the service stopped, or beside it: the job's lock keeps
// one writer, and the running service continues from the rebuilt checkpoint.
import { openDatabase } from '../../db/pool.ts';
import { loadConfig } from '../../platform/config.ts';
import { deriveUntil, storedFrontier } from './index.ts';
import { resetDerived } from './job.ts';
import { type LeaderboardWindow, refreshLeaderboard, WINDOWS } from './leaderboard.ts';

const [command] = process.argv.slice(2);
if (command !== 'rebuild') {
  console.error('usage: npm run derive -- rebuild');
  process.exit(2);
}
const config = loadConfig();
const db = await openDatabase(config, (line) => console.error(line), { command: 'npm run derive', mode: 'guest' });
try {
  const started = Date.now();
  await resetDerived(db.pool);
  const upTo = await storedFrontier(db.pool);
  const cursor = upTo === null ? null : await deriveUntil(db.pool, upTo);
  for (const window of Object.keys(WINDOWS) as LeaderboardWindow[])
    await refreshLeaderboard(db.pool, window, Date.now());
  console.error(
    `rebuilt the analytics tables up to ${cursor === null ? 'nothing stored' : new Date(cursor).toISOString()} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
} finally {
  await db.close();
}
