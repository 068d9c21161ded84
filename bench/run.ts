// `npm run bench`: every benchmark, each figure printed beside its baseline measured in the same run.
import { benchServer } from './db.ts';
import { benchIngest } from './ingest.ts';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function row(name: string, value: string, baseline: string, ratio: string, target: string) {
  console.log(`${name.padEnd(34)} ${value.padStart(16)} ${baseline.padStart(16)} ${ratio.padStart(8)}  ${target}`);
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
} finally {
  await server.stop();
}
