// The shapes of hl-node output lines (see ingest/FORMATS.md), shared by the parsers and the simulator that
// writes them. Decimal values are strings, as on the node; times inside events are ISO-ns strings or epoch ms
// exactly where the node uses them.

/** The hash the node gives system events (funding) and both sides of TWAP slice fills. */
export const ZERO_HASH = `0x${'0'.repeat(64)}`;

/** Every `*_by_block` line: one block. */
export interface BlockLine<E> {
  local_time: string; // ISO-8601, no zone, 9 fractional digits (UTC)
  block_time: string;
  block_number: number;
  events: E[];
}

export type Side = 'A' | 'B';

export interface NodeFillLiquidation {
  liquidatedUser: string;
  markPx: string;
  method: 'market' | 'backstop';
}

export interface NodeFill {
  coin: string;
  px: string;
  sz: string;
  side: Side;
  time: number;
  startPosition: string;
  dir: string;
  closedPnl: string;
  hash: string;
  oid: number;
  crossed: boolean;
  fee: string;
  tid: number;
  feeToken: string;
  cloid?: string | null;
  twapId?: number | null;
  builderFee?: string;
  builder?: string;
  deployerFee?: string;
  priorityGas?: string;
  liquidation?: NodeFillLiquidation;
}

/** node_fills_by_block event: `[user, fill]`. */
export type FillEvent = [string, NodeFill];

export interface NodeOrder {
  coin: string;
  side: Side;
  limitPx: string;
  sz: string;
  oid: number;
  timestamp: number;
  triggerCondition: string;
  isTrigger: boolean;
  triggerPx: string;
  children: NodeOrder[];
  isPositionTpsl: boolean;
  reduceOnly: boolean;
  orderType: string;
  origSz: string;
  tif: string | null;
  cloid: string | null;
}

/** node_order_statuses_by_block event. */
export interface OrderStatusEvent {
  time: string;
  user: string;
  hash: string | null;
  builder: { b: string; f: number } | null;
  status: string;
  order: NodeOrder;
}

/** node_raw_book_diffs_by_block event. */
export interface BookDiffEvent {
  user: string;
  oid: number;
  coin: string;
  side: Side | 'Bid' | 'Ask';
  px: string;
  raw_book_diff: { new: { sz: string } } | { update: { origSz: string; newSz: string } } | 'remove';
}

export interface TwapState {
  coin: string;
  user: string;
  side: Side;
  sz: string;
  executedSz: string;
  executedNtl: string;
  minutes: number;
  reduceOnly: boolean;
  randomize: boolean;
  timestamp: number;
}

/** node_twap_statuses_by_block event. */
export interface TwapStatusEvent {
  time: string;
  twap_id: number;
  state: TwapState;
  status: 'activated' | 'finished' | 'terminated' | { error: string };
}

export interface FundingDelta {
  user: string;
  coin: string;
  funding_amount: string;
  szi: string;
  funding_rate: string;
}

/** A ledger delta: `type` plus the API's camelCase fields (an open set). */
export type LedgerDelta = { type: string } & Record<string, unknown>;

export type MiscInner =
  | { Funding: { deltas: FundingDelta[] } }
  | { LedgerUpdate: { users: string[]; delta: LedgerDelta } }
  | { CDeposit: { user: string; amount: string } }
  | { CWithdrawal: { user: string; amount: string; is_finalized: boolean } }
  | { Delegation: { user: string; validator: string; amount: string; is_undelegate: boolean } }
  | { ValidatorRewards: { validator_to_reward: [string, string][] } }
  | Record<string, unknown>;

/** misc_events_by_block event. */
export interface MiscEvent {
  time: string;
  hash: string;
  inner: MiscInner;
}

// ---- Streams of our own, for data no node file carries (ingest/FORMATS.md §2). Same envelope and layout. ----

/** asset_ctxs_by_block event: one per coin per minute (the archive's asset_ctxs CSV columns). */
export interface AssetCtxEvent {
  time: number;
  coin: string;
  funding: string;
  open_interest: string;
  prev_day_px: string;
  day_ntl_vlm: string;
  day_base_vlm: string;
  premium: string | null;
  oracle_px: string;
  mark_px: string;
  mid_px: string | null;
  impact_bid_px: string | null;
  impact_ask_px: string | null;
  /** Spot coins only. */
  circulating_supply?: string;
  total_supply?: string;
}

/** borrow_lend_reserves_by_block event: one per token per minute. */
export interface ReserveEvent {
  time: number;
  token: number;
  tokenName: string;
  borrowYearlyRate: string;
  supplyYearlyRate: string;
  balance: string;
  utilization: string;
  oraclePx: string;
  ltv: string;
  totalSupplied: string;
  totalBorrowed: string;
}

export type Hip4Inner =
  | { VenueRegistered: { venue: string; deployer: string; fee_scale: string; sub_deployers: [string, string[]][] } }
  | {
      QuestionRegistered: {
        question_id: number;
        name: string;
        description: string;
        fallback_outcome: number;
        named_outcomes: number[];
        venue: string;
        deployer: string;
      };
    }
  | {
      OutcomeRegistered: {
        outcome_id: number;
        name: string;
        description: string;
        side_specs: { name: string }[];
        question_id: number | null;
        quote_token: string;
        venue: string;
        deployer: string;
      };
    }
  | { OutcomeSettled: { outcome_id: number; settle_fraction: string; details: string } }
  | { QuestionSettled: { question_id: number; settled_named_outcomes: number[] } };

/** hip4_registry_by_block event. */
export interface Hip4Event {
  time: string;
  hash: string;
  inner: Hip4Inner;
}

export interface EvmTx {
  hash: string;
  index: number;
  type: number;
  from: string;
  to: string | null;
  value: string; // wei, decimal string
  gasLimit: number;
  gasUsed: number;
  success: boolean;
  inputLen: number;
  isSystem: boolean;
}

export interface EvmTransfer {
  txHash: string;
  logIndex: number;
  token: string;
  standard: 'erc20' | 'erc721' | 'erc1155';
  from: string;
  to: string;
  value: string; // raw units
  tokenId: string | null;
}

export interface BackstopTransfer {
  txHash: string;
  dex: string;
  isDeposit: boolean;
  signer: string;
  amount: string;
}

/** evm_blocks_by_block event: one HyperEVM block. */
export interface EvmBlockEvent {
  number: number;
  hash: string;
  time: number;
  gasUsed: number;
  txs: EvmTx[];
  transfers: EvmTransfer[];
  backstopTransfers: BackstopTransfer[];
  tokens?: { address: string; symbol: string; decimals: number; standard: EvmTransfer['standard'] }[];
}

/** Stream directory name → event type. */
export interface StreamEvents {
  node_fills_by_block: FillEvent;
  node_order_statuses_by_block: OrderStatusEvent;
  node_raw_book_diffs_by_block: BookDiffEvent;
  node_twap_statuses_by_block: TwapStatusEvent;
  misc_events_by_block: MiscEvent;
  asset_ctxs_by_block: AssetCtxEvent;
  borrow_lend_reserves_by_block: ReserveEvent;
  hip4_registry_by_block: Hip4Event;
  evm_blocks_by_block: EvmBlockEvent;
}

export type StreamName = keyof StreamEvents;

export const STREAMS: readonly StreamName[] = [
  'node_fills_by_block',
  'node_order_statuses_by_block',
  'node_raw_book_diffs_by_block',
  'node_twap_statuses_by_block',
  'misc_events_by_block',
  'asset_ctxs_by_block',
  'borrow_lend_reserves_by_block',
  'hip4_registry_by_block',
  'evm_blocks_by_block',
];
