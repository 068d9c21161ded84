// Token @key(index): a borrow/lend reserve's latest state and its history (spec §4.2; the history field, the
// `tokens` list and `token` are their capabilities', history-capabilities.ts), and its HyperEVM contract
// (EvmToken @key(address), the evm subgraph's; here it gains the spot token it is the contract of).
import { exposeRecord } from '../../../kit/record-type.ts';
import { builder } from '../builder.ts';
import { RESERVE_INTERVALS, RESERVE_SAMPLE, type ReserveSample } from '../service/reserves.ts';

export const ReserveRef = builder.objectRef<ReserveSample>('ReserveSample').implement({
  fields: (t) => exposeRecord(t, RESERVE_SAMPLE),
});

export const ReserveIntervalEnum = builder.enumType('ReserveInterval', {
  values: Object.fromEntries(RESERVE_INTERVALS.map((i) => [`_${i}`, { value: i }])) as Record<
    string,
    { value: (typeof RESERVE_INTERVALS)[number] }
  >,
});

/** EvmToken @key(address): owned by the evm subgraph (symbol, decimals, holders). */
const EvmTokenRef = builder.objectRef<{ address: string }>('EvmToken');
const toEvmToken = (address: string | null) => (address === null ? null : { address });

export const TokenRef = builder.objectRef<{ index: number; latest?: ReserveSample }>('Token').implement({
  fields: (t) => ({
    index: t.exposeInt('index'),
    reserve: t.field({
      type: ReserveRef,
      nullable: true,
      description: 'The latest borrow/lend reserve sample',
      resolve: async (tok, _a, ctx) => tok.latest ?? (await ctx.markets.latestReserve(tok.index)),
    }),
    evmToken: t.loadable({
      type: EvmTokenRef,
      nullable: true,
      description: "The token's HyperEVM contract, as the node's spotMeta names it (null when it has none)",
      // A list of tokens asks spotMeta once (cached), not once per token.
      load: async (indexes: number[], ctx) => (await ctx.markets.evmContracts(indexes)).map(toEvmToken),
      resolve: (tok) => tok.index,
    }),
  }),
});

builder.asEntity(TokenRef, {
  key: builder.selection<{ index: number }>('index'),
  resolveReference: (ref) => ({ index: ref.index }),
});

EvmTokenRef.implement({
  fields: (t) => ({
    address: t.exposeString('address'),
    spotToken: t.loadable({
      type: TokenRef,
      nullable: true,
      description: "The HyperCore spot token whose contract this is (per the node's spotMeta), if any",
      load: async (addresses: string[], ctx) =>
        (await ctx.markets.spotTokensOfContracts(addresses)).map((index) => (index === null ? null : { index })),
      resolve: (tk) => tk.address,
    }),
  }),
});

builder.asEntity(EvmTokenRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});
