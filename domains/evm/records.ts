// The EVM records, each described once (kit/record-fields.ts): the row of `/evm/transactions`, of the ledger transfers and
// of the backstop principal transfers as the path routes and the tools answer them, and their OpenAPI schemas. The
// service answers the stored rows (db/rows/evm.ts), which the GraphQL types expose as they are.
import type { BackstopTransferRow, EvmTransactionRow, LedgerTransferRow } from '../../db/rows/evm.ts';
import { naiveTime } from '../../kit/answers.ts';
import { describeRecord } from '../../kit/record-fields.ts';
import * as R from '../../kit/response-schema.ts';
import { naiveIso } from '../../platform/naive-iso.ts';
import { actionTypeOf } from './service/ledger.ts';

const bit = { enum: [0, 1] };
const digits = { type: 'string', pattern: '^[0-9]+$' };
const dex = R.str;

/** A `/evm/transactions` row (reference/service-details.md). */
export const TRANSACTION = describeRecord<EvmTransactionRow>()({
  block_time: { schema: naiveTime, of: (r) => naiveIso(r.time) },
  block_number: { schema: R.int, of: (r) => r.block_number },
  tx_index: { schema: R.int, of: (r) => r.tx_index },
  tx_hash: { schema: R.txHash, of: (r) => r.hash },
  tx_type: { schema: R.int, of: (r) => r.tx_type },
  from_addr: { schema: R.address, of: (r) => r.from_addr },
  to_addr: { schema: R.orNull(R.address), of: (r) => r.to_addr },
  value_wei: { schema: digits, of: (r) => r.value_wei },
  gas_limit: { schema: R.int, of: (r) => r.gas_limit },
  gas_used: { schema: R.int, of: (r) => r.gas_used },
  success: { schema: bit, of: (r): 0 | 1 => (r.success ? 1 : 0) },
  input_len: { schema: R.int, of: (r) => r.input_len },
  is_system_tx: { schema: bit, of: (r): 0 | 1 => (r.is_system ? 1 : 0) },
});

/** A core-ledger transfer between accounts and dexes (`/evm/ledger/transfers`). */
export const LEDGER_TRANSFER = describeRecord<LedgerTransferRow>()({
  time: { schema: naiveTime, of: (r) => naiveIso(r.time) },
  block_number: { schema: R.int, of: (r) => r.block_number },
  hash: { schema: R.txHash, of: (r) => r.hash },
  action_type: { schema: R.str, of: actionTypeOf },
  user: { schema: R.address, of: (r) => r.address },
  destination: { schema: R.address, of: (r) => r.destination },
  token: { schema: R.str, of: (r) => r.token },
  amount: { schema: R.decimal, of: (r) => r.amount },
  usdc_value: { schema: R.orNull(R.decimal), of: (r) => r.usdc_value },
  fee: { schema: R.orNull(R.decimal), of: (r) => r.fee },
  /** '' = the native perp dex; `spot`; or a HIP-3 dex name. */
  source_dex: { schema: dex, of: (r) => r.source_dex },
  destination_dex: { schema: dex, of: (r) => r.destination_dex },
});

/** A deposit or withdrawal of a HIP-3 dex's backstop principal (`/evm/hip3/backstop/transfers`). */
export const BACKSTOP_TRANSFER = describeRecord<BackstopTransferRow>()({
  time: { schema: naiveTime, of: (r) => naiveIso(r.time) },
  block_number: { schema: R.int, of: (r) => r.block_number },
  tx_hash: { schema: R.txHash, of: (r) => r.tx_hash },
  dex_id: { schema: dex, of: (r) => r.dex_id },
  is_deposit: { schema: R.bool, of: (r) => r.is_deposit },
  signer: { schema: R.address, of: (r) => r.signer },
  amount: { schema: R.decimal, of: (r) => r.amount },
});
