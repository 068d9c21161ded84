// `npm run keys -- create --scope data|mcp [--credits N] [--rate-limit N] [--label TEXT]` prints the new key alone
// on stdout; `list` prints the keys (never the secrets) with their remaining credits and the last week's usage per
// UTC day and interface; `revoke ID|PREFIX`.
import { parseArgs } from 'node:util';
import { openDatabase } from '../db/pool.ts';
import { loadConfig } from '../platform/config.ts';
import { usageOf } from './credits.ts';
import { createKey, type KeyScope, listKeys, revokeKey } from './keys.ts';

const USAGE = `usage: npm run keys -- create --scope data|mcp [--credits N] [--rate-limit N] [--label TEXT]
       npm run keys -- list
       npm run keys -- revoke ID|PREFIX`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function positiveInt(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) fail(`${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  return n;
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      scope: { type: 'string' },
      credits: { type: 'string' },
      'rate-limit': { type: 'string' },
      label: { type: 'string' },
    },
  });
}
try {
  parsed = parse();
} catch (err) {
  fail((err as Error).message);
}
const { values, positionals } = parsed;
const [command, arg] = positionals;

if (command === 'create') {
  if (values.scope !== 'data' && values.scope !== 'mcp') fail('--scope must be data or mcp');
} else if (command === 'revoke') {
  if (!arg) fail('revoke needs a key id or prefix');
} else if (command !== 'list') {
  fail(command ? `unknown command ${command}` : 'missing command');
}
const credits = positiveInt(values.credits, '--credits', 0);
const rateLimit = positiveInt(values['rate-limit'], '--rate-limit', 1);

// Start-up chatter goes to stderr: stdout carries only the answer (the key, for `create`).
// With `npm start` running, its Postgres is used (never stopped); otherwise the embedded cluster runs for this command.
const db = await openDatabase(loadConfig(), (line) => console.error(line), {
  command: 'npm run keys',
  mode: 'guest',
}).catch((err: Error) => {
  console.error(`keys: ${err.message}`);
  process.exit(1);
});
let code = 0;
try {
  if (command === 'create') {
    const { key } = await createKey(db.pool, {
      scope: values.scope as KeyScope,
      credits: credits ?? null,
      label: values.label ?? null,
      ...(rateLimit ? { rateLimitPerMin: rateLimit } : {}),
    });
    process.stdout.write(`${key}\n`);
  } else if (command === 'list') {
    const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    const usage = await usageOf(db.pool, weekAgo);
    for (const k of await listKeys(db.pool)) {
      const credit = k.credits === null ? 'unlimited' : String(k.credits);
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
      console.log(
        `${k.id}\t${k.prefix}…\t${k.scope}\t${k.rateLimitPerMin}/min\tcredits ${credit}\t${state}\t${k.label ?? ''}`,
      );
      for (const u of usage.filter((row) => row.keyId === k.id)) {
        const refused = u.refused ? `, ${u.refused} refused for credits` : '';
        console.log(`\tusage ${u.day} ${u.endpoint}: ${u.requests} calls, ${u.creditsUsed} credits${refused}`);
      }
    }
  } else {
    const n = await revokeKey(db.pool, arg as string);
    if (n === 0) {
      console.error(`no active key matches ${arg}`);
      code = 1;
    } else console.log(`revoked ${n} key${n > 1 ? 's' : ''}`);
  }
} finally {
  await db.close();
}
process.exit(code);
