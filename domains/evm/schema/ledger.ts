// The core ledger's transfers between accounts and dexes (agentSendAsset with its source and destination dex), as
// stored (db/rows/evm.ts).
import type { LedgerTransferRow } from '../../../db/rows/evm.ts';
import { builder } from '../builder.ts';
import { actionTypeOf, LEDGER_ACTION_TYPES, type LedgerActionType } from '../service/ledger.ts';
import { pageType } from './args.ts';

export const LedgerActionTypeRef = builder.enumType('LedgerActionType', {
  description: 'A ledger transfer action (agentSendAsset carries the source and destination dex)',
  values: Object.keys(LEDGER_ACTION_TYPES) as LedgerActionType[],
});

export const LedgerTransferRef = builder.objectRef<LedgerTransferRow>('LedgerTransfer').implement({
  description: 'A transfer on the core ledger, between accounts and dexes',
  fields: (t) => ({
    time: t.expose('time', { type: 'Timestamp' }),
    hash: t.exposeString('hash'),
    actionType: t.string({ resolve: actionTypeOf }),
    user: t.exposeString('address'),
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
