// The /info request schemas: every type declares one, the whole table is a schema Ajv compiles (what OpenAPI will
// publish), and an Ajv error becomes a 400 message naming the field and its rule.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { bodyValidator, NO_NUL_PATTERN, RULE } from '../../kit/request-schema.ts';
import { ADDRESS_PATTERN, FieldError, MAX_TIME_MS } from '../../platform/fields.ts';
import { INFO_TYPES, infoRequestSchemas } from './index.ts';

describe('the /info request schemas', () => {
  it('has a body schema of type object for every type', () => {
    for (const [type, entry] of Object.entries(INFO_TYPES)) {
      expect(entry.schema, type).toMatchObject({ type: 'object' });
      expect(typeof entry.handler, type).toBe('function');
    }
  });

  it('is one valid JSON Schema, a oneOf discriminated on type, that tells the types apart', () => {
    const schema = infoRequestSchemas();
    const validate = new Ajv({ strict: true, allowUnionTypes: true, discriminator: true, keywords: [RULE] }).compile(
      schema,
    );
    expect((schema.oneOf as unknown[]).length).toBe(Object.keys(INFO_TYPES).length);
    expect(validate({ type: 'l2Book', coin: 'BTC' })).toBe(true);
    // Clients send fields a type does not read: bodies stay open.
    expect(validate({ type: 'allMids', dex: '', vaultAddress: null })).toBe(true);
    expect(validate({ type: 'l2Book' })).toBe(false);
    expect(validate({ type: 'nope' })).toBe(false);
  });
});

describe('an Ajv error as a 400 message', () => {
  const nonEmpty = { type: 'string', minLength: 1, pattern: NO_NUL_PATTERN };
  const check = bodyValidator({
    type: 'object',
    properties: {
      user: { type: 'string', pattern: ADDRESS_PATTERN },
      coin: nonEmpty,
      limit: { type: ['integer', 'null'], minimum: 1, maximum: 1000 },
      token: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      side: { type: ['string', 'null'], enum: ['A', 'B', null] },
      req: {
        type: 'object',
        properties: {
          startTime: { type: 'integer', minimum: 0, maximum: MAX_TIME_MS, description: 'epoch milliseconds' },
        },
        required: ['startTime'],
      },
      coins: { type: 'array', items: nonEmpty },
    },
    required: ['user'],
  });
  const user = `0x${'1'.repeat(40)}`;
  const message = (body: Record<string, unknown>) => {
    try {
      check(body);
    } catch (e) {
      expect(e).toBeInstanceOf(FieldError);
      return (e as Error).message;
    }
    return null;
  };

  it.each([
    [{}, 'user: is required, must be a 0x address'],
    [{ user: '0x12' }, 'user: must be a 0x address, got "0x12"'],
    [{ user, coin: '' }, 'coin: must be a non-empty string, got ""'],
    [{ user, coin: 'B\u0000' }, 'coin: must not contain a NUL character (U+0000), got "B\\u0000"'],
    [{ user, limit: 0 }, 'limit: must be an integer from 1 to 1000, got 0'],
    [{ user, limit: 1.5 }, 'limit: must be an integer from 1 to 1000, got 1.5'],
    [{ user, token: -1 }, 'token: must be an integer >= 0, got -1'],
    [{ user, token: 2 ** 64 }, 'token: must be an integer >= 0, got 18446744073709552000'],
    [{ user, side: 'X' }, 'side: must be one of A, B, got "X"'],
    [
      { user, req: {} },
      'req.startTime: is required, must be an integer of epoch milliseconds from 0 to 8640000000000000',
    ],
    [{ user, coins: ['BTC', 1] }, 'coins[1]: must be a non-empty string, got 1'],
  ])('%j → %s', (body, expected) => {
    expect(message(body)).toBe(expected);
  });

  it('takes null for an optional field and keeps fields it does not name', () => {
    expect(message({ user, limit: null, side: null, extra: [1] })).toBeNull();
  });
});
