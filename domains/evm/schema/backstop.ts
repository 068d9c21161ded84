// The backstop side of Dex @key(name) (the markets subgraph owns its snapshots): principal transfers, the principal
// summary, health, and the fills the backstop absorbed (each with its Market and the liquidated User); the Dex's
// fields and the Query fields that answer them are capabilities.ts's.

import type { BackstopTransferRow } from '../../../db/rows/evm.ts';
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import type { CompactFillRow } from '../../accounts/port.ts';
import { builder } from '../builder.ts';
import type { PrincipalSummary } from '../service/backstop.ts';
import type { BackstopHealth } from '../service/index.ts';
import { msOf, pageType } from './args.ts';
import { MarketRef, UserRef } from './user.ts';

export const BackstopTransferRef = builder.objectRef<BackstopTransferRow>('BackstopTransfer').implement({
  description: "A deposit or withdrawal of a HIP-3 dex's backstop principal",
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    time: t.expose('time', { type: 'Timestamp' }),
    blockNumber: t.exposeInt('block_number'),
    txHash: t.exposeString('tx_hash'),
    dex: t.exposeString('dex_id'),
    isDeposit: t.exposeBoolean('is_deposit'),
    signer: t.field({ type: UserRef, resolve: (r) => ({ address: r.signer }) }),
    amount: t.expose('amount', { type: 'Decimal', description: 'USDC' }),
  }),
});
export const BackstopTransferPageRef = pageType(
  'BackstopTransferPage',
  BackstopTransferRef,
  'backstop transfers, newest first',
);

export const PrincipalSummaryRef = builder.objectRef<PrincipalSummary>('BackstopPrincipalSummary').implement({
  description: "A dex's backstop principal over a window",
  fields: (t) => ({
    dex: t.exposeString('dex_id'),
    totalDepositedUsdc: t.expose('total_deposited_usdc', { type: 'Decimal' }),
    totalWithdrawnUsdc: t.expose('total_withdrawn_usdc', { type: 'Decimal' }),
    netPrincipalUsdc: t.expose('net_principal_usdc', { type: 'Decimal' }),
    uniqueSigners: t.exposeInt('unique_signers'),
    transferCount: t.exposeInt('transfer_count'),
  }),
});

export const BackstopHealthRef = builder.objectRef<BackstopHealth>('BackstopHealth').implement({
  description: "A dex's backstop: principal, and the fills its address absorbed",
  fields: (t) => ({
    dex: t.exposeString('dex_id'),
    backstopAddress: t.exposeString('backstop_address', { nullable: true }),
    dexIndex: t.exposeInt('dex_index', { nullable: true }),
    principalDepositedUsdc: t.expose('principal_deposited_usdc', { type: 'Decimal' }),
    principalWithdrawnUsdc: t.expose('principal_withdrawn_usdc', { type: 'Decimal' }),
    netPrincipalUsdc: t.expose('net_principal_usdc', { type: 'Decimal' }),
    fillCount: t.exposeInt('fill_count'),
    notionalTraded: t.expose('notional_traded', { type: 'Decimal' }),
    feesPaid: t.expose('fees_paid', { type: 'Decimal' }),
    fillsLast24h: t.exposeInt('fills_last_24h'),
    firstFillTime: t.field({
      type: 'Timestamp',
      nullable: true,
      resolve: (h) => (h.first_fill_time ? msOf(h.first_fill_time) : null),
    }),
    lastFillTime: t.field({
      type: 'Timestamp',
      nullable: true,
      resolve: (h) => (h.last_fill_time ? msOf(h.last_fill_time) : null),
    }),
    coinsActive: t.exposeStringList('coins_active'),
  }),
});

const AbsorbedFillRef = builder.objectRef<CompactFillRow>('AbsorbedFill').implement({
  description: "A fill on the backstop's side of a backstop liquidation",
  fields: (t) => ({
    market: t.field({ type: MarketRef, resolve: (f) => ({ coin: f.coin }) }),
    coin: t.exposeString('coin'),
    px: t.expose('px', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal' }),
    side: t.exposeString('side'),
    time: t.field({ type: 'Timestamp', resolve: (f) => msOf(f.time) }),
    dir: t.exposeString('dir'),
    closedPnl: t.expose('closedPnl', { type: 'Decimal' }),
    fee: t.expose('fee', { type: 'Decimal' }),
    hash: t.exposeString('hash'),
    tid: t.field({ type: 'Decimal', resolve: (f) => String(f.tid) }),
    backstop: t.field({
      type: UserRef,
      description: 'The backstop account (its fills in accounts)',
      resolve: (f) => ({ address: f.user }),
    }),
  }),
});

export const AbsorbedFillPageRef = builder
  .objectRef<{ rows: CompactFillRow[]; hasMore: boolean; nextCursor: string | null }>('AbsorbedFillPage')
  .implement({
    description: 'Absorbed fills newest first; `endCursor` resumes after the last',
    fields: (t) => ({
      nodes: t.field({ type: [AbsorbedFillRef], resolve: (p) => p.rows }),
      hasMore: t.exposeBoolean('hasMore'),
      endCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
  });

export const DexRef = builder.objectRef<{ name: string }>('Dex').implement({
  description: 'A HIP-3 perp dex; its coins are named `<dex>:<COIN>`',
  fields: (t) => ({ name: t.exposeString('name') }),
});

builder.asEntity(DexRef, {
  key: builder.selection<{ name: string }>('name'),
  resolveReference: (ref) => ({ name: ref.name }),
});
