// What the EVM routes answer, for the OpenAPI document (kit/answers.ts): every route in the data envelope, its rows
// as the service makes them (the described records' schemas, records.ts). Money is decimal text; a holder's `balance`
// and `share` are JSON numbers, as spec §2.3 shows the balance.
import { dataEnvelopeOf, naiveTime, type RouteAnswer } from '../../../kit/answers.ts';
import type { JsonSchema } from '../../../kit/request-schema.ts';
import * as R from '../../../kit/response-schema.ts';
import { compactFillSchema } from '../../accounts/port.ts';
import { BACKSTOP_TRANSFER, LEDGER_TRANSFER, TRANSACTION } from '../records.ts';

const num: JsonSchema = { type: 'number' };
const dex = R.str;

const ledgerEvent = R.record(
  {
    time: naiveTime,
    time_ms: R.ms,
    hash: R.txHash,
    event_type: R.str,
    delta_type: R.str,
    delta: { type: 'object' },
    source_dex: dex,
    destination_dex: dex,
  },
  ['source_dex', 'destination_dex'],
);

const principalSummary = R.record({
  dex_id: dex,
  total_deposited_usdc: R.decimal,
  total_withdrawn_usdc: R.decimal,
  net_principal_usdc: R.decimal,
  unique_signers: R.int,
  transfer_count: R.int,
});

const health = R.record({
  dex_id: dex,
  backstop_address: R.orNull(R.address),
  dex_index: R.orNull(R.int),
  principal_deposited_usdc: R.decimal,
  principal_withdrawn_usdc: R.decimal,
  net_principal_usdc: R.decimal,
  fill_count: R.int,
  notional_traded: R.decimal,
  fees_paid: R.decimal,
  fills_last_24h: R.int,
  first_fill_time: R.orNull(naiveTime),
  last_fill_time: R.orNull(naiveTime),
  coins_active: R.list(R.str),
});

const holder = R.record({
  address: R.address,
  balance_raw: { type: 'string', pattern: '^[0-9]+$' },
  balance: num,
  share: { type: 'number', minimum: 0, maximum: 1 },
});

const envelope = (data: JsonSchema, errors?: RouteAnswer['errors']): RouteAnswer => ({
  body: dataEnvelopeOf(data),
  ...(errors ? { errors } : {}),
});

export const EVM_ANSWERS = {
  transactions: envelope(R.list(TRANSACTION.schema)),
  ledgerTransfers: envelope(R.list(LEDGER_TRANSFER.schema)),
  ledgerEvents: envelope(R.list(ledgerEvent)),
  backstopTransfers: envelope(R.list(BACKSTOP_TRANSFER.schema)),
  backstopSummary: envelope(R.list(principalSummary)),
  // The node names each dex's backstop address.
  backstopHealth: envelope(R.list(health), [502]),
  dexHealth: envelope(health, [404, 502]),
  backstopFills: envelope(R.list(compactFillSchema), [404, 502]),
  holders: envelope(R.list(holder), [404]),
} satisfies Record<string, RouteAnswer>;
