// The evm live streams' definitions, which the GraphQL subscriptions derive their arguments from and read them
// through: each address lowercased or refused by name, a backstop dex a HIP-3 dex name of 1 to 32 characters.
import { describe, expect, it } from 'vitest';
import { BACKSTOP_TRANSFER_STREAM, LEDGER_EVENT_STREAM, TOKEN_TRANSFER_STREAM } from './inputs.ts';

const ADDRESS = `0x${'Ab'.repeat(20)}`;
const address = ADDRESS.toLowerCase();

describe('evm live streams', () => {
  it("a token's transfers and a user's ledger events: one 0x address, lowercased", () => {
    expect(TOKEN_TRANSFER_STREAM.parse({ token: ADDRESS }, 'graphql')).toEqual({ token: address });
    expect(LEDGER_EVENT_STREAM.parse({ user: ADDRESS }, 'graphql')).toEqual({ user: address });
    expect(() => TOKEN_TRANSFER_STREAM.parse({ token: '0x12' }, 'graphql')).toThrow(
      'token: must be a 0x address, got "0x12"',
    );
    expect(() => LEDGER_EVENT_STREAM.parse({}, 'graphql')).toThrow('user: is required, must be a 0x address');
  });

  it('backstop transfers: every filter optional, the signer lowercased, the dex 1 to 32 characters', () => {
    expect(BACKSTOP_TRANSFER_STREAM.parse({}, 'graphql')).toEqual({});
    expect(BACKSTOP_TRANSFER_STREAM.parse({ dex: 'xyz', signer: ADDRESS, isDeposit: false }, 'graphql')).toEqual({
      dex: 'xyz',
      signer: address,
      isDeposit: false,
    });
    expect(() => BACKSTOP_TRANSFER_STREAM.parse({ dex: 'x'.repeat(33) }, 'graphql')).toThrow(
      'dex: must be a non-empty string',
    );
    expect(() => BACKSTOP_TRANSFER_STREAM.parse({ dex: 'x\u0000' }, 'graphql')).toThrow(
      'dex: must not contain a NUL character (U+0000)',
    );
    expect(() => BACKSTOP_TRANSFER_STREAM.parse({ signer: 'bob' }, 'graphql')).toThrow(
      'signer: must be a 0x address, got "bob"',
    );
  });
});
