// The core ledger's transfers between accounts and dexes (agentSendAsset with its source and destination dex).
import { builder } from '../builder.ts';
import { LEDGER_ACTION_TYPES, LEDGER_TRANSFERS, type LedgerActionType, type LedgerTransfer } from '../service/index.ts';
import { msOf, PAGE_LIST_SIZE, pageType } from './args.ts';

const LedgerActionTypeRef = builder.enumType('LedgerActionType', {
  description: 'A ledger transfer action (agentSendAsset carries the source and destination dex)',
  values: Object.keys(LEDGER_ACTION_TYPES) as LedgerActionType[],
});

export const LedgerTransferRef = builder.objectRef<LedgerTransfer>('LedgerTransfer').implement({
  description: 'A transfer on the core ledger, between accounts and dexes',
  fields: (t) => ({
    time: t.field({ type: 'Timestamp', resolve: (r) => msOf(r.time) }),
    hash: t.exposeString('hash'),
    actionType: t.exposeString('action_type'),
    user: t.exposeString('user'),
    destination: t.exposeString('destination'),
    token: t.exposeString('token'),
    amount: t.expose('amount', { type: 'Decimal' }),
    usdcValue: t.expose('usdc_value', { type: 'Decimal', nullable: true }),
    fee: t.expose('fee', { type: 'Decimal', nullable: true }),
    sourceDex: t.exposeString('source_dex', { description: "'' = the native perp dex; `spot`; or a HIP-3 dex" }),
    destinationDex: t.exposeString('destination_dex'),
  }),
});

export const LedgerTransferPageRef = pageType(
  'LedgerTransferPage',
  LedgerTransferRef,
  'ledger transfers, newest first',
);

builder.queryFields((t) => ({
  ledgerTransfers: t.field({
    type: LedgerTransferPageRef,
    args: LEDGER_TRANSFERS.args(t, { types: { actionType: LedgerActionTypeRef } }),
    listSize: PAGE_LIST_SIZE,
    resolve: (_r, a, ctx) => ctx.evm.ledgerTransfers(LEDGER_TRANSFERS.parse(a, 'graphql')),
  }),
}));
