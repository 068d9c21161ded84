// A record described once, printed as an object, as JSON from Postgres's text and as its JSON Schema. The expected
// texts are written out by hand.
import { describe, expect, it } from 'vitest';
import { describeRecord } from './record-fields.ts';
import * as R from './response-schema.ts';

interface Row {
  id: number;
  name: string;
  price: string;
  live: boolean;
  note: string | null;
  tag: string | null;
  lo: string | null;
  hi: string | null;
}

const TRADE = describeRecord<Row>()({
  id: { columns: ['id'], schema: R.int },
  name: { columns: ['name'], schema: R.str },
  price: { columns: ['price'], schema: R.decimal },
  live: { columns: ['live'], schema: R.bool },
  note: { columns: ['note'], schema: R.orNull(R.str) },
  tag: { columns: ['tag'], schema: R.str, optional: true },
  state: { columns: ['live', 'id'], schema: R.str, of: (r) => (r.live ? `open #${r.id}` : 'closed') },
  range: {
    columns: ['lo', 'hi'],
    schema: R.record({ lo: R.decimal, hi: R.decimal }),
    optional: true,
    of: (r) => (r.lo === null ? null : { lo: r.lo, hi: r.hi }),
  },
});

const open: Row = { id: 7, name: 'say "hi"', price: '1.50', live: true, note: null, tag: 'x', lo: '1', hi: '2' };
const closed: Row = { ...open, live: false, note: 'n', tag: null, lo: null, hi: null };

/** The columns in a text row's order, as Postgres prints them: `t`/`f`, numbers as text. */
const ORDER = ['hi', 'lo', 'tag', 'note', 'live', 'price', 'name', 'id'] as const;
const textRow = (r: Row) =>
  ORDER.map((c) => (r[c] === null ? null : typeof r[c] === 'boolean' ? (r[c] ? 't' : 'f') : String(r[c])));
const fromText = { live: (t: string) => t === 't', id: Number };

const OPEN =
  '{"id":7,"name":"say \\"hi\\"","price":"1.50","live":true,"note":null,"tag":"x","state":"open #7",' +
  '"range":{"lo":"1","hi":"2"}}';
const CLOSED = '{"id":7,"name":"say \\"hi\\"","price":"1.50","live":false,"note":"n","state":"closed"}';

describe('describeRecord', () => {
  it('makes the record in the fields order: an optional field absent when null, any other null kept', () => {
    expect(JSON.stringify(TRADE.of(open))).toBe(OPEN);
    expect(JSON.stringify(TRADE.of(closed))).toBe(CLOSED);
    expect(Object.keys(TRADE.of(closed))).toEqual(['id', 'name', 'price', 'live', 'note', 'state']);
  });

  it("writes the same bytes from Postgres's text, reading the columns an `of` reads by fromText", () => {
    const json = TRADE.jsonWriter((c) => ORDER.indexOf(c), fromText);
    expect(json(textRow(open))).toBe(OPEN);
    expect(json(textRow(closed))).toBe(CLOSED);
  });

  it('writes a first field that may be absent, and refuses a column the text row lacks', () => {
    const TAGGED = describeRecord<Row>()({
      tag: { columns: ['tag'], schema: R.str, optional: true },
      id: { columns: ['id'], schema: R.int },
    });
    const json = TAGGED.jsonWriter((c) => ORDER.indexOf(c));
    expect(json(textRow(open))).toBe('{"tag":"x","id":7}');
    expect(json(textRow(closed))).toBe('{"id":7}');
    expect(JSON.stringify(TAGGED.of(closed))).toBe('{"id":7}');
    expect(() => TAGGED.jsonWriter((c) => (c === 'tag' ? 0 : -1))).toThrow('describeRecord: no text column id');
  });

  it('takes a field read by its `of` alone, and then writes no JSON text; refuses a field read by neither', () => {
    const NAMED = describeRecord<Row>()({ label: { schema: R.str, of: (r) => `${r.name}: ${r.price}` } });
    expect(NAMED.of(open)).toEqual({ label: 'say "hi": 1.50' });
    expect(NAMED.columnsByField.label).toEqual([]);
    expect(() => NAMED.jsonWriter((c) => ORDER.indexOf(c))).toThrow(
      'describeRecord: label names no columns, so no JSON text is written from them',
    );
    expect(() => describeRecord<Row>()({ both: { columns: ['lo', 'hi'], schema: R.str } })).toThrow(
      'describeRecord: both has neither one column nor an of',
    );
  });

  it('states its schema, its columns and each field’s columns', () => {
    expect(TRADE.schema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        price: R.decimal,
        live: { type: 'boolean' },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        tag: { type: 'string' },
        state: { type: 'string' },
        range: {
          type: 'object',
          properties: { lo: R.decimal, hi: R.decimal },
          required: ['lo', 'hi'],
        },
      },
      required: ['id', 'name', 'price', 'live', 'note', 'state'],
    });
    expect([...TRADE.columns]).toEqual(['id', 'name', 'price', 'live', 'note', 'tag', 'lo', 'hi']);
    expect(TRADE.columnsByField.state).toEqual(['live', 'id']);
  });
});
