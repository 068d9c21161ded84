// `npm run bench`: every benchmark, each figure printed beside its baseline measured in the same run.
// BENCH_ONLY=startup,maintenance,export,coverage,resume,storage,ingest,books,candle,trade,hip3,scale-out,accounts,hip4,evm,analytics,scale,mcp (substrings of the section titles) runs
// just those sections; BENCH_HIP4_FILLS sets the hip4 data size (default 1 000 000), BENCH_HIP3_TRADES the HIP-3
// snapshots' (default 2 000 000). The scale-out sections need NATS JetStream (BENCH_NATS_URL, else NATS_URL, else
// nats://127.0.0.1:4222) and print SKIPPED without it.

import { benchAccountQueries, benchFillLatency, startAccountsBench } from './accounts.ts';
import {
  benchAnalyticsReads,
  benchDerivation,
  benchIngestWithJobs,
  benchLeaderboards,
  startAnalyticsBench,
  startLeaderboardBench,
} from './analytics.ts';
import { benchBooks } from './books.ts';
import { benchCoverage } from './coverage.ts';
import { benchServer } from './db.ts';
import { benchEvm, startEvmBench } from './evm.ts';
import { benchExport } from './export.ts';
import { benchHip4RouterCost, benchHip4Routes, startHip4Bench } from './hip4.ts';
import { benchIngest } from './ingest.ts';
import { benchMaintenance } from './maintenance.ts';
import { MARKETS_SECTIONS, startMarketsBench } from './markets.ts';
import { benchCreditCharging, benchMcpCalls, startMcpBench } from './mcp.ts';
import { benchResume } from './resume.ts';
import { benchScale } from './scale.ts';
import { SCALE_OUT_SECTIONS } from './scale-out.ts';
import type { BenchSection } from './section.ts';
import { benchStartup } from './startup.ts';
import { benchStorage } from './storage.ts';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function row(name: string, value: string, baseline: string, ratio: string, target: string) {
  console.log(`${name.padEnd(40)} ${value.padStart(16)} ${baseline.padStart(16)} ${ratio.padStart(8)}  ${target}`);
}

const only = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim().toLowerCase())
  .filter(Boolean);
/** `scale` names the scale section alone, not `scale-out` too (which holds it); any other word, every title with it. */
const wanted = (title: string) =>
  !only.length || only.some((o) => (o === 'scale' ? title.startsWith('scale:') : title.toLowerCase().includes(o)));

/** Runs sections over one fixture, started only when a section is wanted; a failing section does not hide the rest. */
async function runSections<F extends { close(): Promise<void> }>(
  sections: { title: string; run: (fixture: F) => Promise<BenchSection> }[],
  start: () => Promise<F>,
): Promise<void> {
  const chosen = sections.filter((s) => wanted(s.title));
  if (!chosen.length) return;
  const fixture = await start();
  try {
    for (const section of chosen) {
      console.log(`-- ${section.title}`);
      try {
        const { rows, notes } = await section.run(fixture);
        for (const m of rows) row(m.name, m.value, m.baseline, m.ratio, m.target);
        for (const note of notes) console.log(`   ${note}`);
      } catch (err) {
        console.log(`   FAILED: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    await fixture.close();
  }
}

const server = await benchServer();
try {
  console.log(`machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}`);
  row('benchmark', 'measured', 'baseline', 'ratio', 'target');
  await runSections([{ title: 'startup: npm start to its first live answer', run: benchStartup }], async () => ({
    close: async () => {},
  }));
  await runSections(
    [{ title: "maintenance: the partitions' upkeep (freeze, thin, drop)", run: () => benchMaintenance(server) }],
    async () => ({ close: async () => {} }),
  );
  await runSections(
    [{ title: 'export: a mainnet-shaped day of fills as Parquet', run: () => benchExport(server) }],
    async () => ({ close: async () => {} }),
  );
  await runSections(
    [{ title: 'coverage: dataCoverage over a mainnet-profile day of funding', run: () => benchCoverage(server) }],
    async () => ({ close: async () => {} }),
  );
  await runSections(
    [{ title: "resume: 24 h of a busy user's fills over /ws, and a replay at 100×", run: () => benchResume(server) }],
    async () => ({ close: async () => {} }),
  );
  await runSections(
    [{ title: 'storage: bytes per stored fill, mainnet-shaped', run: () => benchStorage(server) }],
    async () => ({
      close: async () => {},
    }),
  );
  if (wanted('ingest')) {
    const r = await benchIngest(server, Number(process.env.BENCH_FILLS ?? 500_000));
    row(
      `ingest node_fills (${fmt(r.fills)} fills)`,
      `${fmt(r.ingestFillsPerS)} fills/s`,
      `${fmt(r.rawCopyFillsPerS)} raw COPY`,
      (r.ingestFillsPerS / r.rawCopyFillsPerS).toFixed(2),
      `>= 50,000 fills/s and >= 0.50 of raw COPY: ${r.ingestFillsPerS >= 50_000 && r.ingestFillsPerS >= r.rawCopyFillsPerS / 2 ? 'met' : 'NOT met'}`,
    );
  }
  // BENCH_BOOKS_SECONDS: the seconds of mainnet-profile blocks published (default 30).
  await runSections(
    [{ title: 'books: mainnet-profile books every block to 1 000 /ws subscribers; an L4 snapshot', run: benchBooks }],
    async () => ({ close: async () => {} }),
  );
  await runSections(
    [...MARKETS_SECTIONS.map((s) => ({ ...s, title: `markets: ${s.title}` })), ...SCALE_OUT_SECTIONS],
    () => startMarketsBench(server),
  );
  const data = '10M fills / 2M order statuses (generated once, kept in .data/bench-pg)';
  await runSections(
    [
      { title: `accounts: queries over ${data}`, run: benchAccountQueries },
      { title: 'accounts: fill latency to /ws', run: benchFillLatency },
    ],
    () => startAccountsBench(server, (line) => console.log(`   ${line}`)),
  );
  await runSections(
    [
      { title: 'hip4: /hip4 routes and the router over generated fills', run: benchHip4Routes },
      { title: 'hip4: the router on tiny answers (compat, subgraph, router)', run: benchHip4RouterCost },
    ],
    () => startHip4Bench(server, (line) => console.log(`   ${line}`)),
  );
  await runSections(
    [{ title: 'evm: holders, transactions and backstop health (BENCH_EVM_HOLDERS, BENCH_EVM_TXS)', run: benchEvm }],
    () => startEvmBench(server, (line) => console.log(`   ${line}`)),
  );
  // BENCH_ANALYTICS_FILLS / BENCH_ANALYTICS_USERS size it (default 10M fills over 100k users).
  await runSections(
    [
      { title: 'analytics: derivation job', run: benchDerivation },
      { title: 'analytics: ingest with the derivation following it (jobs running)', run: benchIngestWithJobs },
      { title: 'analytics: reads end to end', run: benchAnalyticsReads },
    ],
    () => startAnalyticsBench(server, (line) => console.log(`   ${line}`)),
  );
  // BENCH_LEADERBOARD_ADDRESSES / BENCH_LEADERBOARD_ACTIVE size it (default 1.4M addresses, 60k active a day);
  // BENCH_LEADERBOARD_OLD=0 leaves the old way out.
  await runSections(
    [{ title: 'analytics: leaderboards over a mainnet-sized population, beside the old way', run: benchLeaderboards }],
    () => startLeaderboardBench(server, (line) => console.log(`   ${line}`)),
  );
  // BENCH_SCALE_DAYS / BENCH_SCALE_FILLS_PER_DAY size it (default 5 mainnet days of 6.5M fills; 0 days: only the
  // window of node files, its ingest, the derivation's lag and the fan-out at 10x); `scale-out` is apart.
  await runSections(
    [
      {
        title:
          'scale: mainnet days loaded one by one, reads at 1, 3 and 5 days; ingest, the derivation lag, fan-out at 10x',
        run: () => benchScale(server, (line) => console.log(`   ${line}`)),
      },
    ],
    async () => ({ close: async () => {} }),
  );
  await runSections(
    [
      { title: 'mcp: tools/call vs compat REST', run: benchMcpCalls },
      { title: 'mcp: credit charging under 50 concurrent callers', run: benchCreditCharging },
    ],
    () => startMcpBench(server),
  );
} finally {
  await server.stop();
}
