// `npm run bench`: every benchmark, each figure printed beside its baseline measured in the same run.

import { benchAccountQueries, benchFillLatency, startAccountsBench } from './accounts.ts';
import { benchServer } from './db.ts';
import { benchIngest } from './ingest.ts';
import { MARKETS_SECTIONS, startMarketsBench } from './markets.ts';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function row(name: string, value: string, baseline: string, ratio: string, target: string) {
  console.log(`${name.padEnd(40)} ${value.padStart(16)} ${baseline.padStart(16)} ${ratio.padStart(8)}  ${target}`);
}

const server = await benchServer();
try {
  console.log(`machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}`);
  row('benchmark', 'measured', 'baseline', 'ratio', 'target');
  const fills = Number(process.env.BENCH_FILLS ?? 500_000);
  const r = await benchIngest(server, fills);
  row(
    `ingest node_fills (${fmt(r.fills)} fills)`,
    `${fmt(r.ingestFillsPerS)} fills/s`,
    `${fmt(r.rawCopyFillsPerS)} raw COPY`,
    (r.ingestFillsPerS / r.rawCopyFillsPerS).toFixed(2),
    `>= 50,000 fills/s and >= 0.50 of raw COPY: ${r.ingestFillsPerS >= 50_000 && r.ingestFillsPerS >= r.rawCopyFillsPerS / 2 ? 'met' : 'NOT met'}`,
  );

  const markets = await startMarketsBench(server);
  try {
    for (const section of MARKETS_SECTIONS) {
      console.log(`-- markets: ${section.title}`);
      // One failing section must not hide the figures of the others.
      try {
        const { rows, notes } = await section.run(markets);
        for (const m of rows) row(m.name, m.value, m.baseline, m.ratio, m.target);
        for (const note of notes) console.log(`   ${note}`);
      } catch (err) {
        console.log(`   FAILED: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    await markets.close();
  }

  console.log('-- accounts: 10M fills / 2M order statuses (generated once, kept in .data/bench-pg)');
  const accounts = await startAccountsBench(server, (line) => console.log(`   ${line}`));
  try {
    for (const run of [benchAccountQueries, benchFillLatency]) {
      const { rows, notes } = await run(accounts);
      for (const m of rows) row(m.name, m.value, m.baseline, m.ratio, m.target);
      for (const note of notes) console.log(`   ${note}`);
    }
  } catch (err) {
    console.log(`   FAILED: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await accounts.close();
  }
} finally {
  await server.stop();
}
