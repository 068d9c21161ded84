// Progress output: a bar with the rate and ETA on a terminal, one plain line per interval elsewhere.
import { describe, expect, it } from 'vitest';
import { capturedStream as sink } from '../test/terminal.ts';
import { progress } from './progress.ts';

describe('progress', () => {
  it('writes one line per interval when not on a terminal, with the rate and the ETA', () => {
    const s = sink(false);
    const p = progress({ label: 'load', total: 1000, unit: 'rows', out: s.out, intervalMs: 60_000 });
    p.update(100);
    p.update(200); // within the interval: no line
    p.stop('done');
    const lines = s.text().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^load: 100\/1,000 rows \(10%\), [\d,]+ rows\/s, ETA \d/);
    expect(lines[1]).toBe('load: done');
  });

  it('draws a bar on a terminal', () => {
    const s = sink(true);
    const p = progress({ label: 'load', total: 1000, unit: 'rows', out: s.out });
    p.update(500, { detail: 'lag 3 s' });
    p.stop();
    expect(s.text()).toMatch(/load \[[█░]+\] 50% \| 500\/1,000 rows \| [\d,]+ rows\/s \| ETA \S+ lag 3 s/);
  });
});
