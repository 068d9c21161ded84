// The EVM domain service, the one façade of this folder: HyperEVM blocks, transactions, tokens and holders, the
// core ledger's transfers between dexes, and HIP-3 backstops (principal from evm.*; absorbed fills and a user's
// ledger events from the accounts domain's service, which owns those tables). The evm subgraph, compat-rest and
// the MCP tools call only this class; the pool is its own.
import type pg from 'pg';
import type { EvmBlockRow, EvmTransactionRow } from '../../../db/rows/evm.ts';
import type { EventBus } from '../../../events/bus.ts';
import { trimDecimal } from '../../../platform/decimal.ts';
import type { Address } from '../../../platform/fields.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import type { Upstream } from '../../../platform/upstream.ts';
import type { AccountsPort, FillRowsPage } from '../../accounts/port.ts';
import { backstopTransfers, type PrincipalSummary, principalSummaries } from './backstop.ts';
import { blocks, blockTransactions, latestBlocks, transactions, transactionsByHash } from './chain.ts';
import type {
  BackstopFillsInput,
  BackstopTransfersQuery,
  LatestBlocksInput,
  LedgerTransfersQuery,
  SummaryQuery,
  TokenHoldersInput,
  TransactionsQuery,
  UserLedgerEventsInput,
} from './inputs.ts';
import { ledgerTransfers } from './ledger.ts';
import { EvmStreams } from './streams.ts';
import {
  type EvmToken,
  eachHolderJson,
  type HoldersPage,
  HolderTotals,
  tokenHolders,
  tokensByAddress,
} from './tokens.ts';

/** How long the node's perp dex list (names → indexes) is kept: dexes are deployed rarely. */
const PERP_DEXS_TTL_MS = 60_000;
const DAY_MS = 86_400_000;

/** A HIP-3 dex's backstop address: 0x4000…0000 plus the dex's index (reference/service-details.md). */
export function backstopAddress(dexIndex: number): Address {
  return `0x4${dexIndex.toString(16).padStart(39, '0')}` as Address;
}

/** `/evm/hip3/backstop/health`'s row for one dex. */
export interface BackstopHealth {
  dex_id: string;
  /** Null for a dex the node does not list (principal recorded, but no address to find absorbed fills by). */
  backstop_address: string | null;
  dex_index: number | null;
  /** Money as decimal text, exact. */
  principal_deposited_usdc: string;
  principal_withdrawn_usdc: string;
  net_principal_usdc: string;
  fill_count: number;
  notional_traded: string;
  fees_paid: string;
  fills_last_24h: number;
  first_fill_time: string | null;
  last_fill_time: string | null;
  coins_active: string[];
}

export interface EvmServiceOptions {
  pool: pg.Pool;
  bus: EventBus;
  upstream: Upstream;
  /** What it reads of the accounts domain (its port): the fills of a backstop address, a user's ledger events. */
  accounts: AccountsPort;
  now?: () => number;
}

export class EvmService {
  private readonly pool: pg.Pool;
  private readonly upstream: Upstream;
  private readonly accounts: AccountsPort;
  private readonly totals: HolderTotals;
  private readonly unsubscribe: () => void;
  readonly streams: EvmStreams;
  readonly now: () => number;

  constructor(opts: EvmServiceOptions) {
    this.pool = opts.pool;
    this.upstream = opts.upstream;
    this.accounts = opts.accounts;
    this.now = opts.now ?? Date.now;
    this.totals = new HolderTotals(opts.pool);
    const offTransfers = opts.bus.subscribe('evmTransfers', (rows) => this.totals.onTransfers(rows));
    const offGaps = opts.bus.subscribe('gaps', (gaps) => {
      if (gaps.some((g) => g.topics.includes('evmTransfers'))) this.totals.clear();
    });
    this.unsubscribe = () => {
      offTransfers();
      offGaps();
    };
    this.streams = new EvmStreams(opts.bus);
  }

  stop(): void {
    this.unsubscribe();
  }

  // ---- chain ----

  transactions(q: TransactionsQuery) {
    return transactions(this.pool, q);
  }

  async transaction(hash: string): Promise<EvmTransactionRow | null> {
    return (await transactionsByHash(this.pool, [hash.toLowerCase()]))[0] ?? null;
  }

  async block(number: number): Promise<EvmBlockRow | null> {
    return (await blocks(this.pool, [number]))[0] ?? null;
  }

  blockTransactions(number: number) {
    return blockTransactions(this.pool, number);
  }

  /** The newest blocks, newest first. */
  latestBlocks({ limit }: LatestBlocksInput) {
    return latestBlocks(this.pool, limit);
  }

  // ---- tokens ----

  async token(address: string) {
    return (await tokensByAddress(this.pool, [address.toLowerCase()]))[0] ?? null;
  }

  /** The registered tokens among `addresses` (any case), in one query; an unregistered one is left out. */
  tokens(addresses: readonly string[]): Promise<EvmToken[]> {
    return tokensByAddress(
      this.pool,
      addresses.map((a) => a.toLowerCase()),
    );
  }

  /**
   * A page of the token's holders, largest balance first; an unknown token has none. ERC-721/1155 balances count
   * tokens held; ERC-20 balances are scaled by the token's decimals. Paged by offset, or by `cursor` (keyset) at
   * any depth for the cost of a first page.
   */
  async tokenHolders({ token, ...page }: TokenHoldersInput): Promise<HoldersPage> {
    const info = await this.token(token);
    return tokenHolders(this.pool, this.totals, token, info?.standard === 'erc20' ? info.decimals : 0, page);
  }

  /**
   * The same page, each holder handed to `onHolder` as its JSON as its row is read (for an answer written as JSON
   * text); resolves to the page without its rows.
   */
  async eachHolderJson(
    { token, ...page }: TokenHoldersInput,
    onHolder: (json: string) => void,
  ): Promise<Omit<HoldersPage, 'rows' | 'cursors'>> {
    const info = await this.token(token);
    const decimals = info?.standard === 'erc20' ? info.decimals : 0;
    return eachHolderJson(this.pool, this.totals, token, decimals, page, onHolder);
  }

  // ---- ledger ----

  ledgerTransfers(q: LedgerTransfersQuery) {
    return ledgerTransfers(this.pool, q);
  }

  /** A page of the user's ledger events by type, newest first. */
  userLedgerEvents(q: UserLedgerEventsInput) {
    return this.accounts.ledgerEvents(q);
  }

  // ---- HIP-3 backstops ----

  backstopTransfers(q: BackstopTransfersQuery) {
    return backstopTransfers(this.pool, q);
  }

  backstopSummary(q: SummaryQuery): Promise<PrincipalSummary[]> {
    return principalSummaries(this.pool, q);
  }

  /** The node's HIP-3 dexes: name → index (the native dex, index 0, is none). */
  private async dexIndexes(): Promise<Map<string, number>> {
    const list = await this.upstream.json<unknown[]>({ type: 'perpDexs' }, PERP_DEXS_TTL_MS);
    const out = new Map<string, number>();
    if (!Array.isArray(list)) return out;
    list.forEach((d, i) => {
      const name = (d as { name?: unknown } | null)?.name;
      if (i > 0 && typeof name === 'string') out.set(name, i);
    });
    return out;
  }

  private async healthOf(dex: string, index: number | undefined, principal: PrincipalSummary | undefined) {
    const address = index === undefined ? null : backstopAddress(index);
    const fills = address === null ? null : await this.accounts.fillSummary(address, this.now() - DAY_MS);
    const health: BackstopHealth = {
      dex_id: dex,
      backstop_address: address,
      dex_index: index ?? null,
      principal_deposited_usdc: principal?.total_deposited_usdc ?? '0.0',
      principal_withdrawn_usdc: principal?.total_withdrawn_usdc ?? '0.0',
      net_principal_usdc: principal?.net_principal_usdc ?? '0.0',
      fill_count: fills?.fill_count ?? 0,
      notional_traded: trimDecimal(fills?.notional_traded ?? '0'),
      fees_paid: trimDecimal(fills?.fees_paid ?? '0'),
      fills_last_24h: fills?.fills_since ?? 0,
      first_fill_time: fills?.first_fill_time == null ? null : naiveIso(fills.first_fill_time),
      last_fill_time: fills?.last_fill_time == null ? null : naiveIso(fills.last_fill_time),
      coins_active: fills?.coins ?? [],
    };
    // Observed: principal moved, or the backstop absorbed a fill.
    return principal || health.fill_count > 0 ? health : null;
  }

  /**
   * One row per dex with backstop activity ever observed (a principal transfer or an absorbed fill), by dex name;
   * with `dex`, that dex's row, or null when none was ever observed.
   */
  async backstopHealth(): Promise<BackstopHealth[]>;
  async backstopHealth(dex: string): Promise<BackstopHealth | null>;
  async backstopHealth(dex?: string): Promise<BackstopHealth[] | BackstopHealth | null> {
    const [indexes, summaries] = await Promise.all([this.dexIndexes(), principalSummaries(this.pool, { dex })]);
    const principal = new Map(summaries.map((s) => [s.dex_id, s]));
    if (dex !== undefined) return this.healthOf(dex, indexes.get(dex), principal.get(dex));
    const names = [...new Set([...principal.keys(), ...indexes.keys()])].sort();
    const rows = await Promise.all(names.map((name) => this.healthOf(name, indexes.get(name), principal.get(name))));
    return rows.filter((r) => r !== null);
  }

  /**
   * The fills the dex's backstop address absorbed, newest first, keyset-paged as `/fills/` rows; null when the node
   * lists no such dex (no backstop address to read).
   */
  async backstopFills({ dex, ...q }: BackstopFillsInput): Promise<FillRowsPage | null> {
    const index = (await this.dexIndexes()).get(dex);
    if (index === undefined) return null;
    return this.accounts.fillRows({
      ...q,
      user: backstopAddress(index),
      order: 'desc',
      includeOrderType: false,
      withTotal: false,
    });
  }
}
