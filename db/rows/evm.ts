// Row types of the evm schema: blocks, transactions, token transfers, ledger and backstop transfers (see db/rows/table.ts).
import { table } from './table.ts';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** HyperCore's system addresses (0x20…<token index>, and 0x2222…2222 for HYPE) bridge tokens in and out. */
const SYSTEM_ADDRESS = /^0x20{29}[0-9a-f]{10}$|^0x(22){20}$/;

/**
 * Whether a transfer from or to `address` mints or burns: the zero address and the system (bridge) addresses hold
 * no balance in `evm.token_holders`, so a transfer touching one changes the sum of the holders' balances.
 */
export function mintsOrBurns(address: string): boolean {
  return address === ZERO_ADDRESS || SYSTEM_ADDRESS.test(address);
}

export interface EvmBlockRow {
  number: number;
  hash: string;
  time: number;
  tx_count: number;
  gas_used: number;
}
export const evmBlocksTable = table<EvmBlockRow>(
  'evm.blocks',
  ['number', 'hash', 'time', 'tx_count', 'gas_used'],
  'ignore',
);

export interface EvmTransactionRow {
  block_number: number;
  tx_index: number;
  hash: string;
  time: number;
  tx_type: number;
  from_addr: string;
  to_addr: string | null;
  value_wei: string;
  gas_limit: number;
  gas_used: number;
  success: boolean;
  input_len: number;
  is_system: boolean;
}
export const evmTransactionsTable = table<EvmTransactionRow>(
  'evm.transactions',
  [
    'block_number',
    'tx_index',
    'hash',
    'time',
    'tx_type',
    'from_addr',
    'to_addr',
    'value_wei',
    'gas_limit',
    'gas_used',
    'success',
    'input_len',
    'is_system',
  ],
  'ignore',
);

export interface TokenTransferRow {
  block_number: number;
  log_index: number;
  tx_hash: string;
  time: number;
  token: string;
  from_addr: string;
  to_addr: string;
  value_raw: string;
  token_id: string | null;
}
export const tokenTransfersTable = table<TokenTransferRow>(
  'evm.token_transfers',
  ['block_number', 'log_index', 'tx_hash', 'time', 'token', 'from_addr', 'to_addr', 'value_raw', 'token_id'],
  'ignore',
);

export interface LedgerTransferRow {
  block_number: number;
  time: number;
  hash: string;
  action_type: string;
  address: string;
  destination: string;
  token: string;
  amount: string;
  usdc_value: string | null;
  fee: string | null;
  source_dex: string;
  destination_dex: string;
}
export const ledgerTransfersTable = table<LedgerTransferRow>(
  'evm.ledger_transfers',
  [
    'block_number',
    'time',
    'hash',
    'action_type',
    'address',
    'destination',
    'token',
    'amount',
    'usdc_value',
    'fee',
    'source_dex',
    'destination_dex',
  ],
  'append',
);

export interface BackstopTransferRow {
  block_number: number;
  time: number;
  tx_hash: string;
  dex_id: string;
  is_deposit: boolean;
  signer: string;
  amount: string;
}
export const backstopTransfersTable = table<BackstopTransferRow>(
  'evm.backstop_transfers',
  ['block_number', 'time', 'tx_hash', 'dex_id', 'is_deposit', 'signer', 'amount'],
  'append',
);
