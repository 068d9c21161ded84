// The row type of every table ingest writes, defined once: ingest builds these, COPY writes them (column lists
// below, in table order), the event bus carries them live, and the services read the same columns back.
// Decimal columns are strings; epoch-ms and id columns are numbers.

export interface TableSpec<R> {
  table: string;
  columns: readonly (keyof R & string)[];
  /** How a batch reaches the table: plain COPY (append-only tables) or staged with ON CONFLICT DO NOTHING. */
  conflict: 'append' | 'ignore';
}

function table<R>(name: string, columns: readonly (keyof R & string)[], conflict: TableSpec<R>['conflict']) {
  return { table: name, columns, conflict } satisfies TableSpec<R>;
}

// ---- accounts ----

export interface FillRow {
  block_number: number;
  address: string;
  coin: string;
  px: string;
  sz: string;
  side: 'A' | 'B';
  time: number;
  start_position: string;
  dir: string;
  closed_pnl: string;
  hash: string;
  oid: number;
  crossed: boolean;
  fee: string;
  tid: number;
  fee_token: string;
  cloid: string | null;
  twap_id: number | null;
  builder: string | null;
  builder_fee: string | null;
  deployer_fee: string | null;
  priority_gas: string | null;
  liquidated_user: string | null;
  liquidation_mark_px: string | null;
  liquidation_method: string | null;
}
export const fillsTable = table<FillRow>(
  'accounts.fills',
  [
    'block_number',
    'address',
    'coin',
    'px',
    'sz',
    'side',
    'time',
    'start_position',
    'dir',
    'closed_pnl',
    'hash',
    'oid',
    'crossed',
    'fee',
    'tid',
    'fee_token',
    'cloid',
    'twap_id',
    'builder',
    'builder_fee',
    'deployer_fee',
    'priority_gas',
    'liquidated_user',
    'liquidation_mark_px',
    'liquidation_method',
  ],
  'append',
);

export interface OrderStatusRow {
  block_number: number;
  time: number;
  address: string;
  status: string;
  hash: string | null;
  builder: string | null;
  builder_fee: number | null;
  oid: number;
  cloid: string | null;
  coin: string;
  side: 'A' | 'B';
  limit_px: string;
  sz: string;
  orig_sz: string;
  order_time: number;
  trigger_condition: string;
  is_trigger: boolean;
  trigger_px: string;
  is_position_tpsl: boolean;
  reduce_only: boolean;
  order_type: string;
  tif: string | null;
  children: unknown[];
}
export const orderStatusesTable = table<OrderStatusRow>(
  'accounts.order_statuses',
  [
    'block_number',
    'time',
    'address',
    'status',
    'hash',
    'builder',
    'builder_fee',
    'oid',
    'cloid',
    'coin',
    'side',
    'limit_px',
    'sz',
    'orig_sz',
    'order_time',
    'trigger_condition',
    'is_trigger',
    'trigger_px',
    'is_position_tpsl',
    'reduce_only',
    'order_type',
    'tif',
    'children',
  ],
  'append',
);

export interface TwapStatusRow {
  block_number: number;
  time: number;
  twap_id: number;
  address: string;
  coin: string;
  side: 'A' | 'B';
  sz: string;
  executed_sz: string;
  executed_ntl: string;
  minutes: number;
  reduce_only: boolean;
  randomize: boolean;
  started_at: number;
  status: string;
  error: string | null;
}
export const twapStatusesTable = table<TwapStatusRow>(
  'accounts.twap_statuses',
  [
    'block_number',
    'time',
    'twap_id',
    'address',
    'coin',
    'side',
    'sz',
    'executed_sz',
    'executed_ntl',
    'minutes',
    'reduce_only',
    'randomize',
    'started_at',
    'status',
    'error',
  ],
  'append',
);

export interface FundingPaymentRow {
  block_number: number;
  time: number;
  address: string;
  coin: string;
  usdc: string;
  szi: string;
  funding_rate: string;
}
export const fundingPaymentsTable = table<FundingPaymentRow>(
  'accounts.funding_payments',
  ['block_number', 'time', 'address', 'coin', 'usdc', 'szi', 'funding_rate'],
  'append',
);

export interface LedgerUpdateRow {
  block_number: number;
  time: number;
  hash: string;
  address: string;
  delta_type: string;
  delta: Record<string, unknown>;
}
export const ledgerUpdatesTable = table<LedgerUpdateRow>(
  'accounts.ledger_updates',
  ['block_number', 'time', 'hash', 'address', 'delta_type', 'delta'],
  'append',
);

export interface LiquidationRow {
  block_number: number;
  time: number;
  hash: string;
  tid: number;
  coin: string;
  liquidated_user: string;
  liquidator: string;
  side: 'A' | 'B';
  px: string;
  sz: string;
  notional: string;
  mark_px: string | null;
  method: string;
  builder: string | null;
  /**
   * Not a column: the liquidated account's value from the ledger's liquidation update of the same transaction, set
   * by LiquidationJoin on live events and by the queries that join the ledger; null when that update is not known.
   */
  account_value?: string | null;
}
export const liquidationsTable = table<LiquidationRow>(
  'accounts.liquidations',
  [
    'block_number',
    'time',
    'hash',
    'tid',
    'coin',
    'liquidated_user',
    'liquidator',
    'side',
    'px',
    'sz',
    'notional',
    'mark_px',
    'method',
    'builder',
  ],
  'append',
);

// ---- markets ----

export interface TradeRow {
  block_number: number;
  /** Execution order inside the block. */
  seq: number;
  time: number;
  coin: string;
  side: 'A' | 'B';
  px: string;
  sz: string;
  hash: string;
  tid: number;
  buyer: string | null;
  seller: string | null;
  /** Fees of both sides (maker rebates negative). */
  fees: string;
}
export const tradesTable = table<TradeRow>(
  'markets.trades',
  ['block_number', 'seq', 'time', 'coin', 'side', 'px', 'sz', 'hash', 'tid', 'buyer', 'seller', 'fees'],
  'append',
);

export interface AssetCtxRow {
  coin: string;
  time: number;
  funding: string | null;
  open_interest: string | null;
  prev_day_px: string | null;
  day_ntl_vlm: string | null;
  day_base_vlm: string | null;
  premium: string | null;
  oracle_px: string | null;
  mark_px: string | null;
  mid_px: string | null;
  impact_bid_px: string | null;
  impact_ask_px: string | null;
  circulating_supply: string | null;
  total_supply: string | null;
}
export const assetCtxsTable = table<AssetCtxRow>(
  'markets.asset_ctxs',
  [
    'coin',
    'time',
    'funding',
    'open_interest',
    'prev_day_px',
    'day_ntl_vlm',
    'day_base_vlm',
    'premium',
    'oracle_px',
    'mark_px',
    'mid_px',
    'impact_bid_px',
    'impact_ask_px',
    'circulating_supply',
    'total_supply',
  ],
  'ignore',
);

export interface FundingRateRow {
  coin: string;
  time: number;
  funding_rate: string;
  premium: string | null;
}
export const fundingRatesTable = table<FundingRateRow>(
  'markets.funding_rates',
  ['coin', 'time', 'funding_rate', 'premium'],
  'ignore',
);

export interface ReserveSampleRow {
  token: number;
  time: number;
  token_name: string;
  borrow_yearly_rate: string;
  supply_yearly_rate: string;
  balance: string;
  utilization: string;
  oracle_px: string;
  ltv: string;
  total_supplied: string;
  total_borrowed: string;
}
export const reserveSamplesTable = table<ReserveSampleRow>(
  'markets.reserve_samples',
  [
    'token',
    'time',
    'token_name',
    'borrow_yearly_rate',
    'supply_yearly_rate',
    'balance',
    'utilization',
    'oracle_px',
    'ltv',
    'total_supplied',
    'total_borrowed',
  ],
  'ignore',
);

/** A raw book diff; not stored, carried live for the order books. */
export interface BookDiffRow {
  block_number: number;
  time: number;
  address: string;
  oid: number;
  coin: string;
  side: 'A' | 'B';
  px: string;
  kind: 'new' | 'update' | 'remove';
  sz: string | null; // new: size; update: new size
  orig_sz: string | null; // update only
}

// ---- hip4 ----

export interface Hip4FillRow {
  block_number: number;
  time: number;
  address: string;
  coin: string;
  outcome_id: number;
  side_index: number;
  px: string;
  sz: string;
  side: 'A' | 'B';
  dir: string;
  closed_pnl: string;
  hash: string;
  oid: number;
  tid: number;
  fee: string;
  fee_token: string;
  crossed: boolean;
  is_settlement: boolean;
}
export const hip4FillsTable = table<Hip4FillRow>(
  'hip4.fills',
  [
    'block_number',
    'time',
    'address',
    'coin',
    'outcome_id',
    'side_index',
    'px',
    'sz',
    'side',
    'dir',
    'closed_pnl',
    'hash',
    'oid',
    'tid',
    'fee',
    'fee_token',
    'crossed',
    'is_settlement',
  ],
  'append',
);

export interface Hip4SettlementRow {
  outcome_id: number;
  time: number;
  block_number: number;
  settle_fraction: string;
  details: string | null;
}
export const hip4SettlementsTable = table<Hip4SettlementRow>(
  'hip4.settlements',
  ['outcome_id', 'time', 'block_number', 'settle_fraction', 'details'],
  'ignore',
);

// ---- evm ----

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
