// What a coin's name says of its market, read by the service and its streams alike (a module of its own, so that
// streams.ts needs nothing of index.ts at run time).

/** A spot pair's coin name: "PURR/USDC" or "@N". */
export const isSpotCoin = (coin: string) => coin.startsWith('@') || coin.includes('/');
