// Block @key(number) and Transaction @key(hash), owned here (Query.block, latestBlocks and transaction are their
// capabilities', capabilities.ts). A transaction's sender is a User (owned by accounts), so a client goes from a
// transaction to its sender's fills through the router.
import type { EvmBlockRow, EvmTransactionRow } from '../../../db/rows/evm.ts';
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import { pageType } from './args.ts';
import { UserRef } from './user.ts';

export const BlockRef = builder.objectRef<EvmBlockRow>('Block');
export const TransactionRef = builder.objectRef<EvmTransactionRow>('Transaction');

BlockRef.implement({
  description: 'A HyperEVM block',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    number: t.exposeInt('number'),
    hash: t.exposeString('hash'),
    time: t.expose('time', { type: 'Timestamp' }),
    txCount: t.exposeInt('tx_count'),
    gasUsed: t.exposeInt('gas_used'),
    transactions: t.field({
      type: [TransactionRef],
      listSize: { assumedSize: 20 },
      resolve: (b, _a, ctx) => ctx.evm.blockTransactions(b.number),
    }),
  }),
});

TransactionRef.implement({
  description: 'A HyperEVM transaction (system transactions bridge value from HyperCore)',
  fields: (t) => ({
    hash: t.exposeString('hash'),
    blockNumber: t.exposeInt('block_number'),
    block: t.field({
      type: BlockRef,
      nullable: true,
      resolve: (tx, _a, ctx) => ctx.evm.block(tx.block_number),
    }),
    index: t.exposeInt('tx_index'),
    time: t.expose('time', { type: 'Timestamp' }),
    type: t.exposeInt('tx_type'),
    from: t.exposeString('from_addr'),
    sender: t.field({
      type: UserRef,
      description: 'The sender as an account',
      resolve: (tx) => ({ address: tx.from_addr }),
    }),
    to: t.exposeString('to_addr', { nullable: true }),
    value: t.field({ type: 'Decimal', description: 'In wei', resolve: (tx) => tx.value_wei }),
    gasLimit: t.exposeInt('gas_limit'),
    gasUsed: t.exposeInt('gas_used'),
    success: t.exposeBoolean('success'),
    inputLen: t.exposeInt('input_len'),
    isSystem: t.exposeBoolean('is_system'),
  }),
});

builder.asEntity(BlockRef, {
  key: builder.selection<{ number: number }>('number'),
  resolveReference: (ref, ctx) => ctx.evm.block(ref.number),
});
builder.asEntity(TransactionRef, {
  key: builder.selection<{ hash: string }>('hash'),
  resolveReference: (ref, ctx) => ctx.evm.transaction(ref.hash),
});

export const TransactionPageRef = pageType('TransactionPage', TransactionRef, 'transactions, newest first');
