// EvmToken @key(address): a HyperEVM token contract and its holders, largest balance first. (Named EvmToken: the
// markets subgraph's Token is a HyperCore spot token keyed by index.)
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { TokenTransferRow } from '../../../db/rows/evm.ts';
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder, type EvmContext } from '../builder.ts';
import type { EvmToken, TokenHolder } from '../service/tokens.ts';

export const TokenHolderRef = builder.objectRef<TokenHolder>('TokenHolder').implement({
  description: 'A holder of a token and its balance',
  fields: (t) => ({
    address: t.exposeString('address'),
    balanceRaw: t.expose('balance_raw', { type: 'Decimal', description: 'In raw units' }),
    balance: t.exposeFloat('balance', { description: 'Whole tokens (ERC-20) or the count of tokens held (NFTs)' }),
    share: t.exposeFloat('share', { description: 'Fraction of all holdings, 0 to 1' }),
  }),
});

export const HoldersRef = builder
  .objectRef<{ rows: TokenHolder[]; hasMore: boolean; nextCursor: string | null; totalRaw: string }>('TokenHolderPage')
  .implement({
    description: 'A page of holders, largest balance first; `hasMore` when more follow',
    fields: (t) => ({
      nodes: t.field({ type: [TokenHolderRef], resolve: (p) => p.rows }),
      hasMore: t.exposeBoolean('hasMore'),
      endCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as `after` for the next page' }),
      totalRaw: t.expose('totalRaw', { type: 'Decimal', description: 'Sum of all holders’ raw balances' }),
    }),
  });

export const EvmTokenRef = builder.objectRef<{ address: string } & Partial<EvmToken>>('EvmToken');

EvmTokenRef.implement({
  description: 'A HyperEVM token contract (ERC-20, ERC-721 or ERC-1155)',
  fields: (t) => ({
    address: t.exposeString('address'),
    symbol: t.exposeString('symbol', { nullable: true }),
    decimals: t.exposeInt('decimals', { nullable: true }),
    standard: t.exposeString('standard', { nullable: true }),
  }),
});

/** One query for the tokens a request references (the router sends a list of them, e.g. from Token.evmToken). */
const tokenLoader = createContextCache(
  (ctx: EvmContext) =>
    new DataLoader<string, { address: string } & Partial<EvmToken>>(async (addresses) => {
      const found = new Map((await ctx.evm.tokens(addresses)).map((t) => [t.address, t]));
      return addresses.map((address) => found.get(address) ?? { address });
    }),
);

builder.asEntity(EvmTokenRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref, ctx) => tokenLoader(ctx).load(ref.address.toLowerCase()),
});

export const TokenTransferRef = builder.objectRef<TokenTransferRow>('TokenTransfer').implement({
  description: 'A token transfer log (from or to the zero address: a mint or a burn)',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    blockNumber: t.exposeInt('block_number'),
    logIndex: t.exposeInt('log_index'),
    txHash: t.exposeString('tx_hash'),
    time: t.expose('time', { type: 'Timestamp' }),
    token: t.exposeString('token'),
    from: t.exposeString('from_addr'),
    to: t.exposeString('to_addr'),
    valueRaw: t.expose('value_raw', { type: 'Decimal' }),
    tokenId: t.expose('token_id', { type: 'Decimal', nullable: true }),
  }),
});
