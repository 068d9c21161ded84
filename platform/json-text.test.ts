import { describe, expect, it } from 'vitest';
import { jsonArrayBytes, jsonBytes, jsonString, utf8 } from './json-text.ts';

describe('json text', () => {
  it('quotes strings exactly as JSON.stringify does', () => {
    for (const s of ['', 'BTC', 'xyz:TSLA', '@107', 'Open Long', 'a"b', 'back\\slash', 'tab\there', '\u0000', 'é€😀'])
      expect(jsonString(s)).toBe(JSON.stringify(s));
  });

  it('writes an array as UTF-8 bytes', () => {
    expect(jsonArrayBytes([], String).toString()).toBe('[]');
    const items = [{ a: 'é' }, { a: 'x"y' }];
    expect(jsonArrayBytes(items, (i) => `{"a":${jsonString(i.a)}}`).toString('utf8')).toBe(JSON.stringify(items));
  });

  it('grows its buffer for items longer than it guessed, multi-byte characters included', () => {
    const items = ['x'.repeat(5000), 'é€😀'.repeat(3000), '', 'tail'];
    expect(jsonArrayBytes(items, jsonString).toString('utf8')).toBe(JSON.stringify(items));
    const many = Array.from({ length: 3000 }, (_, i) => ({ i, s: `€${i}` }));
    expect(jsonArrayBytes(many, (m) => `{"i":${m.i},"s":${jsonString(m.s)}}`).toString('utf8')).toBe(
      JSON.stringify(many),
    );
  });

  it('writes any value as the bytes of JSON.stringify', () => {
    const orders = Array.from({ length: 3000 }, (_, i) => ({ order: { oid: i, coin: i % 2 ? 'BTC' : 'é€😀' }, t: i }));
    const values: unknown[] = [
      [],
      {},
      orders,
      { data: orders, next: null },
      { a: { b: { c: [1, { d: [2] }] } }, e: [[1], [2, [3]]] },
      // Keys and items without JSON: left out of objects, null in arrays, at every level.
      { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('s')], e: { f: undefined, g: 1 } },
      // toJSON is honoured wherever it is.
      { when: new Date(0), nested: { at: new Date(1) }, list: [new Date(2)], own: { toJSON: () => 'mine' } },
      // Not plain objects: left to JSON.stringify whole, as they are.
      {
        boxed: [new Number(1), new String('s'), Object(false)],
        num: new Number(2),
        str: new String('t'),
        map: new Map([[1, 2]]),
        made: new (class {
          a = 1;
        })(),
      },
      { bare: Object.assign(Object.create(null), { a: [1, { b: 2 }] }), zero: -0 },
      [null, true, 0, -1.5, 'x"y\\z\n', '\u0000', 'é€😀'],
      'top-level string',
      42,
      null,
    ];
    for (const value of values) expect(jsonBytes(value).toString('utf8')).toBe(JSON.stringify(value));
    expect(() => jsonBytes(undefined)).toThrow(TypeError);
  });

  it('encodes text as UTF-8 exactly as Buffer.from does', () => {
    for (const text of ['', '{}', 'é€😀'.repeat(1000), JSON.stringify({ a: 'x'.repeat(100_000) })]) {
      expect(utf8(text).equals(Buffer.from(text))).toBe(true);
    }
  });
});
