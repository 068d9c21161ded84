// The exchange's coin names, as the node writes them and its API answers them: a HIP-3 dex's perp is `<dex>:<COIN>`.

/** Whether `coin` is a HIP-3 dex's perp (`<dex>:<COIN>`): what the HIP-3 snapshots and their rollup count. */
export const isHip3Coin = (coin: string): boolean => coin.includes(':');
