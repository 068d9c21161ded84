// `npm run db:migrate`: brings the database (DATABASE_URL, or the embedded cluster) to the latest schema.
import { loadConfig } from '../platform/config.ts';
import { openDatabase } from './pool.ts';

const [command] = process.argv.slice(2);
if (command !== 'migrate') {
  console.error('usage: db/cli.ts migrate');
  process.exit(2);
}
const db = await openDatabase(loadConfig(), (line) => console.error(line), {
  command: 'npm run db:migrate',
  mode: 'guest',
}).catch((err: Error) => {
  console.error(`db:migrate: ${err.message}`);
  process.exit(1);
});
const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM platform.schema_migrations');
console.log(`database is at the latest schema (${rows[0]?.n} migrations applied)`);
await db.close();
