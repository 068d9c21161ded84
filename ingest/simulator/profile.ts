// Simulator profiles: `default` is the light demo market every test pins (300 traders, ~40 fills/s, 5 blocks/s); the
// `mainnet` profile has the shape of Hyperliquid mainnet (../shared/reference/mainnet-volumes.md §1), each parameter
// below with its source: M = stated or measured by the source, E = an estimate (the reasoning beside it).
// ingest/simulator/README.md "The mainnet profile" lists them with the measured result.

export const PROFILES = ['default', 'mainnet'] as const;
export type ProfileName = (typeof PROFILES)[number];

export interface MainnetProfile {
  /** M: 12–14.5 blocks/s (14.4/s in an hour of 2026-05-24, 12.2/s averaged over Jan–Mar 2026): ~74 ms a block. */
  blocksPerSecond: number;
  /** E: ~6.5 M fills/day (4.5–9 M), from 0.6–1.0 GiB/day of compressed node_fills_by_block ÷ 110–150 B a fill. */
  fillsPerSecond: number;
  /**
   * Traders: 30–100 k distinct traders a day (M weak / E), of ~1.4 M accounts in state. At mainnet's rate nearly
   * every trader of the pool trades within a day (a few hundred fills a day even for the quietest), so the pool is
   * the day's distinct traders. Each is created when it first acts, so memory follows the traders that did.
   */
  traderPool: number;
  /** A trader is `floor(pool × u^skew)` for a uniform u: a few very active, a long tail trading now and then. */
  traderSkew: number;
  /** E: the 1-day mainnet-shaped import of issue 39 had 20; together they carry about half of all fills (M weak). */
  marketMakers: number;
  /**
   * Share of actions in which a maker takes liquidity (hedging, E): makers are on the passive side of most trades,
   * and these trades between makers bring their share of fills to about half.
   */
  makerTakeShare: number;
  /**
   * Mean trader actions per burst: actions come in bursts (a sweep, a bot's batch), so that with ~5 fills a block on
   * average about half of the blocks carry no fill (M: 4 of the fixture's 10 blocks are empty).
   */
  actionsPerBurst: number;
  /** M: 228 main-dex perps (SetGlobalAction, 2026-01). */
  perps: number;
  /** E: spot pairs up to `@230`+ (~250–300). */
  spotPairs: number;
  /** M: HIP-3 since 2025-10-13, at least 6 dexes (xyz, flx, vntl, hyna, km, cash); perps per dex: E. */
  hip3Dexes: readonly string[];
  hip3PerpsPerDex: number;
  /**
   * Share of trader actions on HIP-3 markets, set so that ~25 % of fills are HIP-3 (M: 11 of 45 trades in the
   * fixture's ten blocks; record $5.2 B/day in 2026-01).
   */
  hip3ActionShare: number;
  /** Share of trader actions on spot pairs (E: spot is a small part of fills beside perps). */
  spotActionShare: number;
  /** Chance a trader funds each HIP-3 dex (E). */
  hip3FundingChance: number;
  /**
   * Chances per order, set so that the fills carry cloids, builders and TWAP ids at the fixture's shares (M: 51 %,
   * 7 %, 9 % of its fills, mainnet-volumes.md §2). A maker's quote carries a cloid as often as a trader's order.
   */
  cloidChance: number;
  builderChance: number;
  /** Target share of fills that are TWAP slices (owner's side): the running TWAPs are kept at what gives it. */
  twapShare: number;
  /** Builders taking fees (E: a dozen front-ends and bots). */
  builders: number;
  /** M: the daily 00:00 UTC "Spot Dust Conversion" block held 1 344 fills (fixture, 2026-03-15). */
  dustFills: number;
  /** E: 1.5–4 k fills/s sustained over a minute in a cascade (2025-10-10: 98 620 liquidation+ADL events, ~$10 B). */
  cascadeFillsPerSecond: number;
  /** E: how far perps fall over the cascade minute (majors fell ~10–15 % on 2025-10-10, alts far more). */
  cascadeDrop: number;
  /** Share of the cascade's actions that are liquidations (the rest: panic market orders). E. */
  cascadeLiquidationShare: number;
  /**
   * Order statuses per second (E: the node writes ~10 k/s, 5–30 k; not in the public buckets). Default a tenth of
   * it: 1 000/s is already ~86 M rows and ~35 GB of files a day. Makers' post-only churn (placed, cancelled a second
   * or two later) tops the statuses of the block's orders up to it.
   */
  orderStatusesPerSecond: number;
  /**
   * History before real time on a fresh data dir when none is asked for: a week of mainnet (45 M fills, ~600 M
   * statuses) cannot be computed and loaded at a start on 2 cores; an hour is ~270 k fills (README "The mainnet
   * profile" for the measured rates).
   */
  defaultHistory: string;
  /** Its last part written with every stream; before it no order statuses or book diffs (the files' bulk). */
  defaultDetailedHistory: string;
}

export const MAINNET: MainnetProfile = {
  blocksPerSecond: 13.5,
  fillsPerSecond: 75,
  traderPool: 70_000,
  traderSkew: 3,
  marketMakers: 20,
  makerTakeShare: 0.1,
  actionsPerBurst: 5,
  perps: 230,
  spotPairs: 250,
  hip3Dexes: ['xyz', 'flx', 'vntl', 'hyna', 'km', 'cash'],
  hip3PerpsPerDex: 10,
  hip3ActionShare: 0.38,
  spotActionShare: 0.12,
  hip3FundingChance: 0.5,
  cloidChance: 0.6,
  builderChance: 0.24,
  twapShare: 0.09,
  builders: 12,
  dustFills: 1300,
  cascadeFillsPerSecond: 2500,
  cascadeDrop: 0.08,
  cascadeLiquidationShare: 0.3,
  orderStatusesPerSecond: 1000,
  defaultHistory: '1h',
  defaultDetailedHistory: '15m',
};

export function parseProfile(text: string | undefined): ProfileName {
  const name = text === undefined || text === '' ? 'default' : text;
  if (!(PROFILES as readonly string[]).includes(name)) {
    throw new Error(`unknown simulator profile ${JSON.stringify(name)}: expected one of ${PROFILES.join(', ')}`);
  }
  return name as ProfileName;
}

/**
 * Cascade start times from `--cascade-at` / SIM_CASCADE_AT: comma-separated ISO times (`2026-12-02T15:30:00Z`) or
 * offsets from `nowMs` (`+10m`, `-2h`: a cascade inside the history).
 */
export function parseCascadeAt(
  text: string | undefined,
  nowMs: number,
  parseDuration: (d: string) => number,
): number[] {
  if (text === undefined || text.trim() === '') return [];
  return text
    .split(',')
    .map((part) => part.trim())
    .map((part) => {
      const offset = /^([+-])(.+)$/.exec(part);
      const at = offset ? nowMs + (offset[1] === '-' ? -1 : 1) * parseDuration(offset[2]!) : Date.parse(part);
      if (!Number.isFinite(at)) throw new Error(`cascade time ${JSON.stringify(part)}: an ISO time or +/-duration`);
      return at;
    })
    .sort((a, b) => a - b);
}
