// `npm start` from nothing to its first live answer (issue 38's target: ≤ 10 s), on a fresh data dir and again after a
// restart over it: `start.ts` as a process of its own on the embedded defaults, `POST /info {"type":"allMids"}` polled
// until BTC has a mid. Beside it, its baseline: the simulator's own computation of the week, which the servers wait for
// (the line `history computed in N s` the process prints).
import fs from 'node:fs/promises';
import path from 'node:path';
import { ROOT, type Running, spawnRunning, stopRunning } from '../test/cli.ts';
import { type BenchSection, met, postJson, sleep } from './section.ts';

/** Every port the process listens on is its default + this (the simulator, Postgres, the servers). */
const PORT_OFFSET = Number(process.env.BENCH_STARTUP_PORT_OFFSET ?? 7000);
const TARGET_S = 10;
const GIVE_UP_MS = 120_000;

interface StartTimes {
  /** Seconds from the spawn to the first allMids holding BTC. */
  firstAnswerS: number;
  /** Seconds the simulator took to compute the history (its own line). */
  computedS: number;
}

/** Starts `start.ts` over `dir`, times its first live answer, then stops it (SIGTERM, as a service manager would). */
async function timeStart(dir: string): Promise<StartTimes> {
  const started = performance.now();
  const running: Running = spawnRunning(process.execPath, ['--import', 'tsx', path.join(ROOT, 'start.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT_OFFSET: String(PORT_OFFSET),
      PG_DATA_DIR: path.join(dir, 'pg'),
      PG_PORT: String(54329 + PORT_OFFSET),
      SIM_DATA_DIR: path.join(dir, 'hl'),
      DATABASE_URL: '',
      HL_DATA_DIR: '',
      UPSTREAM_INFO_URL: '',
    },
  });
  try {
    const url = `http://127.0.0.1:${8080 + PORT_OFFSET}/info`;
    for (;;) {
      if (running.child.exitCode !== null) throw new Error(`npm start exited: ${running.output().slice(-2000)}`);
      if (performance.now() - started > GIVE_UP_MS) throw new Error(`no live answer within ${GIVE_UP_MS / 1000} s`);
      const answer = await postJson(url, { type: 'allMids' }).catch(() => undefined);
      if (answer?.status === 200 && 'BTC' in JSON.parse(answer.text)) break;
      await sleep(50);
    }
    const firstAnswerS = (performance.now() - started) / 1000;
    const computed = /history computed in ([\d.]+) s/.exec(running.output());
    return { firstAnswerS, computedS: computed ? Number(computed[1]) : Number.NaN };
  } finally {
    await stopRunning(running);
  }
}

export async function benchStartup(): Promise<BenchSection> {
  const dir = path.join(ROOT, '.data', `bench-startup-${process.pid}`);
  await fs.rm(dir, { recursive: true, force: true });
  try {
    const fresh = await timeStart(dir);
    const restart = await timeStart(dir);
    const row = (name: string, t: StartTimes) => ({
      name,
      value: `${t.firstAnswerS.toFixed(1)} s`,
      baseline: `${t.computedS.toFixed(1)} s compute`,
      ratio: (t.firstAnswerS / t.computedS).toFixed(2),
      target: `<= ${TARGET_S} s: ${met(t.firstAnswerS <= TARGET_S)}`,
    });
    return {
      rows: [row('first live allMids, fresh data dir', fresh), row('first live allMids, restart', restart)],
      notes: [
        `start.ts on the embedded defaults (PORT_OFFSET ${PORT_OFFSET}), a data dir of its own under .data; the baseline is ` +
          "the simulator's computation of the week (a restart replays it), which the servers wait for",
      ],
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
