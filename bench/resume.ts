// Resume and replay (issue 42), over the real stack's /ws: a busy user's day of fills (BENCH_RESUME_FILLS, one a
// block, among BENCH_RESUME_OTHERS other users' fills of the same day) resumed from the day's start: the missed fills
// delivered per second before the live stream, beside the same rows read by one plain SQL query in the same run; then
// a live fill, which must come after them. A replay of 10 minutes of that user at 100×: each frame's lag behind its
// paced due time (sent + (data time - start) / speed), and the replay's length beside the 6 s it should take.
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { DAY_MS, makePartitions } from '../db/partitions.ts';
import { type FillRow, fillsTable } from '../db/rows/accounts.ts';
import { InProcessBus } from '../events/bus.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import type { BenchServer } from './db.ts';
import { type BenchSection, int, met, ms } from './section.ts';
import { mainnetFillsSql } from './storage.ts';

const FILLS = Number(process.env.BENCH_RESUME_FILLS ?? 200_000);
const OTHERS = Number(process.env.BENCH_RESUME_OTHERS ?? 500_000);
const BATCH = 20_000;
/** A Monday (a week's partition), well in the past. */
const DAY = Date.UTC(2026, 0, 5);
const USER = `0x${'b'.repeat(40)}`;
const REPLAY_MS = 10 * 60_000;
const SPEED = 100;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** A /ws client: every frame handed to `onFrame` with its arrival time. */
async function socket(url: string, onFrame: (frame: Record<string, unknown>, at: number) => void): Promise<WebSocket> {
  const ws = new WebSocket(url);
  ws.on('message', (raw) => onFrame(JSON.parse(raw.toString()) as Record<string, unknown>, performance.now()));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

export async function benchResume(server: BenchServer): Promise<BenchSection> {
  const { pool } = await server.freshDatabase('bench_resume');
  const step = Math.floor(DAY_MS / FILLS);
  await makePartitions(pool, new Map([['accounts.fills', { min: DAY, max: DAY + 2 * DAY_MS }]]));
  const others = mainnetFillsSql({ time: `${DAY} + g * ${Math.floor(DAY_MS / OTHERS)}::bigint` });
  for (let from = 1; from <= OTHERS; from += BATCH)
    await pool.query(others, [from, Math.min(OTHERS, from + BATCH - 1)]);
  // The busy user: one fill every `step` ms, each in a block of its own (mainnet's blocks are ~75 ms).
  const mine = `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir,
      closed_pnl, hash, oid, crossed, fee, tid, fee_token, event_index)
    SELECT ($3::bigint + g * $4::bigint) / 75, $5, 'COIN' || (g % 40), 100.5, 0.25,
      CASE WHEN g % 2 = 0 THEN 'B' ELSE 'A' END, $3::bigint + g * $4::bigint, 0.0, 'Open Long', 0.0,
      '0x' || md5(g::text) || md5((g + 1)::text), g, g % 3 = 0, 0.01, g, 'USDC', 0
    FROM generate_series($1::bigint, $2::bigint) g`;
  for (let from = 0; from < FILLS; from += BATCH)
    await pool.query(mine, [from, Math.min(FILLS, from + BATCH) - 1, DAY, step, USER]);
  await pool.query('ANALYZE accounts.fills');

  // Baseline: the same rows, in the same order, by one plain query.
  const sqlStart = performance.now();
  const { rowCount } = await pool.query(
    `SELECT ${fillsTable.columns.join(', ')} FROM accounts.fills WHERE address = $1 AND time >= $2
     ORDER BY time, block_number, event_index, tid`,
    [USER, DAY],
  );
  const sqlS = (performance.now() - sqlStart) / 1000;

  const bus = new InProcessBus();
  const stack = await startStackWithoutNode(pool, { bus });
  const notes: string[] = [];
  try {
    // The resume: from just before the day's first row.
    let fills = 0;
    let last = 0;
    let liveTid: number | null = null;
    let liveAfter = -1;
    const resumer = await socket(stack.urls.ws, (frame, at) => {
      if (frame.channel !== 'userFills') return;
      for (const f of (frame.data as { fills: { tid: number }[] }).fills) {
        if (f.tid === liveTid) liveAfter = fills;
        else fills++;
      }
      last = at;
    });
    const began = performance.now();
    resumer.send(
      JSON.stringify({ method: 'subscribe', subscription: { type: 'userFills', user: USER, after: `0-${DAY - 1}` } }),
    );
    const deadline = began + 600_000;
    while (fills < FILLS && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const resumeS = (last - began) / 1000;
    // Then a live fill, stored and published as ingest does: it must come after the stored ones.
    const { rows } = await pool.query<FillRow>(
      `INSERT INTO accounts.fills SELECT (json_populate_record(NULL::accounts.fills, $1)).* RETURNING *`,
      [
        JSON.stringify({
          ...(await pool.query(`SELECT * FROM accounts.fills WHERE address = $1 LIMIT 1`, [USER])).rows[0],
          block_number: 10 ** 12,
          time: DAY + DAY_MS + 1,
          tid: 10 ** 12,
        }),
      ],
    );
    liveTid = 10 ** 12;
    bus.publish(
      'fills',
      rows.map((r) => ({ ...r, block_number: Number(r.block_number), time: Number(r.time) })),
    );
    const liveBy = performance.now() + 10_000;
    while (liveAfter < 0 && performance.now() < liveBy) await new Promise((r) => setTimeout(r, 20));
    resumer.close();
    notes.push(
      `resume: ${int(fills)} of ${int(FILLS)} fills (${int(OTHERS)} other users' fills that day) in ${resumeS.toFixed(2)} s; ` +
        `the live fill published after them came ${liveAfter === FILLS ? 'after all of them' : liveAfter < 0 ? 'NOT (timed out)' : `after ${liveAfter} of them (WRONG)`}`,
    );

    // The replay at 100×: 10 minutes of the user's fills from noon.
    const start = DAY + DAY_MS / 2;
    const end = start + REPLAY_MS;
    const lags: number[] = [];
    let completeAt = 0;
    let sentAt = 0;
    const replayer = await socket(stack.urls.ws, (frame, at) => {
      if (frame.channel === 'userFills') {
        const t = (frame.data as { fills: { time: number }[] }).fills[0]?.time ?? start;
        lags.push(at - (sentAt + (t - start) / SPEED));
      } else if (frame.channel === 'replayComplete') completeAt = at;
    });
    sentAt = performance.now();
    replayer.send(
      JSON.stringify({
        method: 'subscribe',
        subscription: { type: 'replay', stream: { type: 'userFills', user: USER }, start, end, speed: SPEED },
      }),
    );
    const replayBy = sentAt + (REPLAY_MS / SPEED) * 3 + 10_000;
    while (!completeAt && performance.now() < replayBy) await new Promise((r) => setTimeout(r, 50));
    replayer.close();
    lags.sort((a, b) => a - b);
    const replayS = ((completeAt || performance.now()) - sentAt) / 1000;
    const p99 = quantile(lags, 0.99);
    const resumeRate = fills / resumeS;
    const sqlRate = (rowCount ?? 0) / sqlS;
    notes.push(
      `replay: ${int(lags.length)} frames of ${REPLAY_MS / 60_000} min of data at ${SPEED}×, done in ${replayS.toFixed(2)} s ` +
        `(due ${(REPLAY_MS / SPEED / 1000).toFixed(1)} s); lag behind each frame's due time p50 ${ms(quantile(lags, 0.5))}, ` +
        `p99 ${ms(p99)}, max ${ms(lags.at(-1) ?? 0)}`,
    );
    return {
      rows: [
        {
          name: `resume 24 h of a user's fills over /ws`,
          value: `${int(resumeRate)} rows/s`,
          baseline: `${int(sqlRate)} SQL`,
          ratio: (resumeRate / sqlRate).toFixed(2),
          target: `>= 20,000 rows/s before live: ${met(resumeRate >= 20_000 && fills === FILLS && liveAfter === FILLS)}`,
        },
        {
          name: `replay at ${SPEED}×: p99 lag behind due`,
          value: ms(p99),
          baseline: '0 ms due',
          ratio: '',
          target: `keeps pace (p99 < 100 ms, ends on time): ${met(p99 < 100 && completeAt > 0 && replayS < REPLAY_MS / SPEED / 1000 + 1)}`,
        },
      ],
      notes,
    };
  } finally {
    await stack.close();
    await pool.end().catch(() => {});
  }
}
