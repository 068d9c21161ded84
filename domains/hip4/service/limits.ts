// The hip4 lists' caps and defaults (spec §8, service-details.md): the input definitions (inputs.ts) state them.

/** The question id filter's cap (spec §8). */
export const MAX_QUESTION_ID = 10_000;
/** Outcome ids are Postgres integers. */
export const MAX_OUTCOME_ID = 2_147_483_647;
/** Rows per page of the registry lists and the fill list (service-details: `limit` ≤ 1000). */
export const MAX_HIP4_ROWS = 1000;
/** The registry lists answer every row up to the cap unless asked for fewer. */
export const REGISTRY_DEFAULT_LIMIT = 1000;
export const FILLS_DEFAULT_LIMIT = 100;
export const PROVIDERS_DEFAULT_LIMIT = 100;
/** Rows of one analytics answer (spec §8: max buckets 2000); also the default. */
export const MAX_ANALYTICS_BUCKETS = 2000;
/** Coins one analytics request may name. */
export const MAX_ANALYTICS_COINS = 50;
/** The deepest offset: a deeper page re-reads everything before it, so a caller should narrow the window instead. */
export const MAX_HIP4_OFFSET = 100_000;
/** Analytics without `start`: the week before `end`. */
export const ANALYTICS_DEFAULT_WINDOW_MS = 7 * 86_400_000;
/** The deployer registry is read again at most this often (the reference's refresh, ~10 s). */
export const DEPLOYERS_REFRESH_MS = 10_000;
