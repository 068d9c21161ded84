// A rebuild shows its progress: one line per interval off a terminal (fills derived of the total, fills/s, ETA),
// from rebuildDerived and from the real `npm run derive -- rebuild` command, whose stderr is not a terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAnalyticsHistory } from '../../../test/analytics-history.ts';
import { runCli } from '../../../test/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { capturedStream } from '../../../test/terminal.ts';
import { perpFillsBefore, storedEventsEnd } from '../../accounts/port.ts';
import { rebuildDerived } from './rebuild.ts';

let db: TestDatabase;
let total = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadAnalyticsHistory(db);
  total = await perpFillsBefore(db.pool, (await storedEventsEnd(db.pool)) as number);
});
afterAll(() => db?.drop());

const LINE = /^derive: ([\d,]+)\/([\d,]+) fills \((\d+)%\), [\d,]+ fills\/s, ETA \S+( \S+)?, up to \d{4}-/;
const count = (text: string) => Number(text.replace(/,/g, ''));

describe('npm run derive -- rebuild', () => {
  it('writes a progress line per interval off a terminal, up to every fill, then its summary', async () => {
    expect(total).toBeGreaterThan(3);
    const s = capturedStream(false);
    // One-fill batches, a line for each: the lines count the fills up to the total.
    await rebuildDerived(db.pool, { out: s.out, intervalMs: 0, maxFills: 1 });
    const lines = s.text().trim().split('\n');
    const progressLines = lines.slice(0, -1);
    expect(progressLines.length).toBeGreaterThan(3);
    for (const line of progressLines) expect(line).toMatch(LINE);
    const done = progressLines.map((line) => count(LINE.exec(line)?.[1] as string));
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBe(total);
    expect(count(LINE.exec(progressLines.at(-1) as string)?.[2] as string)).toBe(total);
    expect(progressLines.at(-1)).toContain('(100%)');
    expect(lines.at(-1)).toMatch(
      new RegExp(`^derive: rebuilt the analytics tables up to \\d{4}-.*: ${total} fills in`),
    );
  });

  it('prints progress lines when run as the command', async () => {
    const r = await runCli('domains/analytics/writer/cli.ts', ['rebuild'], { DATABASE_URL: db.url });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('derive: '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(LINE);
    expect(lines.at(-1)).toMatch(/^derive: rebuilt the analytics tables up to /);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM analytics.round_trips');
    expect(rows[0].n).toBeGreaterThan(0);
  });
});
