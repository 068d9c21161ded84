// `npm run derive -- rebuild`: empties the analytics tables and derives them again from the stored fills, funding
// and ledger (the same job, the same numbers). Run it with the service stopped, or beside it: the job's lock keeps
// one writer, and the running service continues from the rebuilt checkpoint. Progress goes to stderr (rebuild.ts).
import { openDatabase } from '../../../db/pool.ts';
import { loadConfig } from '../../../platform/config.ts';
import { rebuildDerived } from './rebuild.ts';

const [command] = process.argv.slice(2);
if (command !== 'rebuild') {
  console.error('usage: npm run derive -- rebuild');
  process.exit(2);
}
const config = loadConfig();
const db = await openDatabase(config, (line) => console.error(line), { command: 'npm run derive', mode: 'guest' });
try {
  await rebuildDerived(db.pool);
} finally {
  await db.close();
}
