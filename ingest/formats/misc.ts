// misc_events_by_block: funding payments (one row per user per settlement), non-funding ledger updates (one row
// per event and per address involved) and the ledger's transfers between accounts and dexes; what the first two do
// to the perp account state (migration 0028).

import { fundingPaymentsTable, ledgerUpdatesTable } from '../../db/rows/accounts.ts';
import type { LedgerTransferRow } from '../../db/rows/evm.ts';
import { ledgerTransfersTable } from '../../db/rows/evm.ts';
import { exactDecimal, isCashType, isPerpCoin, ledgerCash } from '../../domains/accounts/port.ts';
import { address, addressValue, array, dec, FieldError, isoTime, object, optDec, str } from '../../platform/fields.ts';
import type { Batch } from '../batch.ts';
import { parseIsoNs } from '../files.ts';
import type { BlockContext, StreamLoader } from './loader.ts';

/** Ledger delta types that move value from one address to another. */
const TRANSFER_TYPES = new Set(['send', 'spotTransfer', 'internalTransfer', 'subAccountTransfer']);

function transferOf(
  ctx: BlockContext,
  time: number,
  hash: string,
  delta: Record<string, unknown>,
  type: string,
): LedgerTransferRow {
  const isToken = delta.token !== undefined;
  return {
    block_number: ctx.blockNumber,
    time,
    hash,
    action_type: type,
    address: address(delta, 'user'),
    destination: address(delta, 'destination'),
    token: isToken ? str(delta, 'token') : 'USDC',
    amount: isToken ? dec(delta, 'amount') : dec(delta, 'usdc'),
    usdc_value: optDec(delta, 'usdcValue'),
    fee: optDec(delta, 'fee'),
    source_dex: typeof delta.sourceDex === 'string' ? delta.sourceDex : '',
    destination_dex: typeof delta.destinationDex === 'string' ? delta.destinationDex : '',
  };
}

/**
 * A batch's perp funding payments and its ledger's perp USDC moves added to the account state, in the transaction that
 * stores them, once per batch (Batch.collect), under the account state's lock (the fills' lanes add to the same rows).
 */
const ACCOUNT_FUNDING_SQL = 'SELECT accounts.apply_funding($1::text[], $2::text[], $3::int8[], $4::numeric[])';
const ACCOUNT_CASH_SQL = 'SELECT accounts.add_cash($1::text[], $2::numeric[])';

function loadEvent(ctx: BlockContext, event: unknown, batch: Batch): void {
  const e = object(event, 'event');
  const time = isoTime(e, 'time', parseIsoNs);
  const hash = str(e, 'hash');
  const inner = object(e.inner, 'inner');
  const kinds = Object.keys(inner);
  if (kinds.length !== 1) throw new FieldError('inner: must hold exactly one event kind');
  const kind = kinds[0] as string;
  const body = inner[kind];

  if (kind === 'Funding') {
    for (const d of array(object(body, 'Funding').deltas, 'deltas')) {
      const delta = object(d, 'delta');
      const row = {
        block_number: ctx.blockNumber,
        time,
        address: address(delta, 'user'),
        coin: str(delta, 'coin'),
        usdc: dec(delta, 'funding_amount'),
        szi: dec(delta, 'szi'),
        funding_rate: dec(delta, 'funding_rate'),
      };
      batch.add(fundingPaymentsTable, row);
      batch.publish('fundingPayments', row);
      if (isPerpCoin(row.coin)) batch.collect(ACCOUNT_FUNDING_SQL, [row.address, row.coin, row.time, row.usdc]);
    }
    return;
  }
  if (kind === 'LedgerUpdate') {
    const update = object(body, 'LedgerUpdate');
    const delta = object(update.delta, 'delta');
    const type = str(delta, 'type');
    const users = array(update.users, 'users').map((u) => addressValue(u, 'users'));
    for (const user of new Set(users)) {
      const row = { block_number: ctx.blockNumber, time, hash, address: user, delta_type: type, delta };
      batch.add(ledgerUpdatesTable, row);
      batch.publish('ledgerUpdates', row);
      if (isCashType(type)) batch.collect(ACCOUNT_CASH_SQL, [user, exactDecimal(ledgerCash(user, type, delta))]);
    }
    if (TRANSFER_TYPES.has(type)) {
      const transfer = transferOf(ctx, time, hash, delta, type);
      batch.add(ledgerTransfersTable, transfer);
      batch.publish('ledgerTransfers', transfer);
    }
    return;
  }
  batch.publish('otherMisc', { block_number: ctx.blockNumber, time, hash, kind, data: body });
}

export const miscEventsLoader: StreamLoader = {
  stream: 'misc_events_by_block',
  loadBlock(ctx, events, batch) {
    for (const event of events) loadEvent(ctx, event, batch);
  },
};
