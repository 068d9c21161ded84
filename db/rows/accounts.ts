// Row types of the accounts schema: fills, order statuses, TWAP statuses, funding payments, ledger updates, liquidations (see db/rows/table.ts).
import { table } from './table.ts';

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
  /** The fill's index in its node line's `events`: with block_number, the order the node executed fills in. */
  event_index: number;
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
    'event_index',
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
