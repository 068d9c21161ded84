// A described record as a GraphQL object type's fields: each key exposed, its type read from its JSON Schema. The
// expected SDL is written out by hand.
import { graphqlSync, printType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { subgraphBuilder } from './builder.ts';
import { describeRecord } from './record-fields.ts';
import { exposeRecord } from './record-type.ts';
import * as R from './response-schema.ts';

interface Row {
  id: number;
  at: number;
  px: string;
  side: 'A' | 'B';
  live: boolean;
  note: string | null;
}

const SAMPLE = describeRecord<Row>()({
  id: { columns: ['id'], schema: R.int },
  time: { columns: ['at'], schema: R.ms },
  px: { columns: ['px'], schema: R.decimal },
  side: { columns: ['side'], schema: R.side },
  live: { columns: ['live'], schema: R.bool },
  note: { columns: ['note'], schema: R.orNull(R.str) },
  tag: { columns: ['note'], schema: R.str, optional: true, of: (r) => r.note },
});

describe('exposeRecord', () => {
  it('exposes each key with the scalar its schema reads as, nullable where it takes null or may be absent', () => {
    const builder = subgraphBuilder<object>();
    const SampleRef = builder.objectRef<ReturnType<typeof SAMPLE.of>>('Sample').implement({
      fields: (t) => exposeRecord(t, SAMPLE),
    });
    const row: Row = { id: 7, at: 1_700_000_000_000, px: '90127.5', side: 'B', live: true, note: null };
    builder.queryType({ fields: (t) => ({ sample: t.field({ type: SampleRef, resolve: () => SAMPLE.of(row) }) }) });
    const schema = builder.toSchema({ sortSchema: false });
    expect(printType(schema.getType('Sample') as never)).toBe(
      [
        'type Sample {',
        '  id: Int!',
        '  time: Timestamp!',
        '  px: Decimal!',
        '  side: String!',
        '  live: Boolean!',
        '  note: String',
        '  tag: String',
        '}',
      ].join('\n'),
    );
    expect(graphqlSync({ schema, source: '{ sample { id time px side live note tag } }' })).toEqual({
      data: { sample: { id: 7, time: 1_700_000_000_000, px: '90127.5', side: 'B', live: true, note: null, tag: null } },
    });
  });

  it('refuses a field no scalar reads (an object, a list)', () => {
    const LEVELS = describeRecord<Row>()({ levels: { columns: ['px'], schema: R.list(R.decimal), of: (r) => [r.px] } });
    const builder = subgraphBuilder<object>();
    builder.objectRef<unknown>('Levels').implement({ fields: (t) => exposeRecord(t, LEVELS) });
    builder.queryType({ fields: (t) => ({ ok: t.boolean({ resolve: () => true }) }) });
    expect(() => builder.toSchema()).toThrow('exposeRecord: levels has no GraphQL scalar');
  });
});
