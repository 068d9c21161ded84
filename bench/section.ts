// What every bench section shares: its printed rows and notes, and the figures' formatting.
import { performance } from 'node:perf_hooks';

export interface BenchRow {
  name: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
}

export interface BenchSection {
  rows: BenchRow[];
  notes: string[];
}

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;
export const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
export const sleep = (msecs: number) => new Promise((r) => setTimeout(r, msecs));

export async function until(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

export const percent = (share: number | undefined) => `${Math.round((share ?? 0) * 100)} %`;
