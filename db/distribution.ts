// Where each table goes on a Citus cluster (distributed Postgres: docs/scale.md), declared once: a test holds every
// table of the service to it (each one placed, every unique key of a distributed table holding its column), and the
// statements docs/scale.md gives are made from it.
//
// - `{ by }`: distributed, sharded by that column. A user's rows (by `address`) sit on one node with the rest of that
//   user's, so the per-user reads and the derivation's joins stay on one node; a coin's market rows (by `coin`)
//   likewise. Citus needs the column in every unique key, so no key can be enforced across shards.
// - `reference`: small and read by joins everywhere: copied whole to every node.
// - `coordinator`: bookkeeping, one writer's state, or not large enough yet to spread (EVM: ~0.3 M rows a day).

export type Placement = { by: string } | 'reference' | 'coordinator';

const byUser = { by: 'address' } as const;
const byCoin = { by: 'coin' } as const;

export const DISTRIBUTION: Readonly<Record<string, Placement>> = {
  // accounts: everything that happened to one address.
  'accounts.fills': byUser,
  'accounts.order_statuses': byUser,
  'accounts.twap_statuses': byUser,
  'accounts.funding_payments': byUser,
  'accounts.ledger_updates': byUser,
  'accounts.liquidations': { by: 'liquidated_user' },
  'accounts.perp_cash': byUser,
  'accounts.perp_positions': byUser,
  'accounts.account_state_fill': 'coordinator',
  // analytics: derived per address, ranked across them.
  'analytics.user_daily': byUser,
  'analytics.user_hourly': byUser,
  'analytics.user_totals': byUser,
  'analytics.round_trips': byUser,
  'analytics.account_snapshots': byUser,
  'analytics.account_state': byUser,
  'analytics.builder_hourly': byUser,
  'analytics.leaderboard': byUser,
  'analytics.live_leaderboard': 'reference',
  'analytics.live_boards': 'reference',
  'analytics.marks': 'reference',
  'analytics.derive_checkpoint': 'coordinator',
  'analytics.imports_derived': 'coordinator',
  // markets: per coin.
  'markets.trades': byCoin,
  'markets.candles': byCoin,
  'markets.asset_ctxs': byCoin,
  'markets.funding_rates': byCoin,
  'markets.history_bbo': byCoin,
  'markets.history_depth': byCoin,
  'markets.history_slippage': byCoin,
  'markets.history_book': byCoin,
  'markets.hip3_trade_hours': byCoin,
  'markets.hip3_trade_totals': byCoin,
  'markets.hip3_dexes': 'reference',
  'markets.reserve_samples': 'reference',
  'markets.history_coins': 'reference',
  'markets.hip3_trade_fill': 'coordinator',
  'markets.candle_refills': 'coordinator',
  // hip4: outcome markets, per coin (with markets' coins) where they grow.
  'hip4.fills': byCoin,
  'hip4.fill_hours': byCoin,
  'hip4.venues': 'reference',
  'hip4.questions': 'reference',
  'hip4.outcomes': 'reference',
  'hip4.settlements': 'reference',
  // evm: small next to the rest.
  'evm.blocks': 'coordinator',
  'evm.transactions': 'coordinator',
  'evm.tokens': 'reference',
  'evm.token_transfers': 'coordinator',
  'evm.token_holders': 'coordinator',
  'evm.ledger_transfers': 'coordinator',
  'evm.backstop_transfers': 'coordinator',
  // platform: keys, usage, ingest's bookkeeping.
  'platform.schema_migrations': 'coordinator',
  'platform.api_keys': 'coordinator',
  'platform.usage': 'coordinator',
  'platform.rate_windows': 'coordinator',
  'platform.ingest_checkpoints': 'coordinator',
  'platform.ingest_errors': 'coordinator',
  'platform.backfills': 'coordinator',
  'platform.thinned_partitions': 'coordinator',
  'platform.frozen_partitions': 'coordinator',
  'platform.time_bounds': 'coordinator',
};

/**
 * The statements that place the tables on a Citus cluster, once the migrations have run on its coordinator:
 * reference tables first, then each distributed table co-located with the others of its column.
 */
export function citusStatements(): string[] {
  const entries = Object.entries(DISTRIBUTION);
  return [
    ...entries.filter(([, p]) => p === 'reference').map(([t]) => `SELECT create_reference_table('${t}');`),
    ...entries.flatMap(([t, p]) =>
      typeof p === 'object' ? [`SELECT create_distributed_table('${t}', '${p.by}');`] : [],
    ),
  ];
}
