import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeper } from './json-depth.ts';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('nestsDeeper', () => {
  it('counts arrays and objects inside one another, up to the limit', () => {
    expect(nestsDeeper(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeper(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeper('{"a":{"b":[{"c":1}]}}', 3)).toBe(true);
    expect(nestsDeeper('{"a":{"b":[{"c":1}]}}', 4)).toBe(false);
  });

  it('counts siblings once and skips brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeper(`[${Array.from({ length: 500 }, () => '[1]').join(',')}]`, 2)).toBe(false);
    expect(nestsDeeper(JSON.stringify({ pad: '['.repeat(10_000) }), 2)).toBe(false);
    expect(nestsDeeper(JSON.stringify({ pad: `\\"${'{'.repeat(100)}` }), 2)).toBe(false);
    expect(nestsDeeper(`{"a":"\\"",${'['.repeat(3)}${']'.repeat(3)}}`, 3)).toBe(true);
  });

  it('reads a deep text in one pass (50 000 levels)', () => {
    expect(nestsDeeper(nested(50_000))).toBe(true);
  });
});
