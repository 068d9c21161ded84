// The cost table of spec §5: what a call costs in credits, on every interface (REST, /ws posts, GraphQL operations,
// MCP tool calls). One credit a call unless stated here. Each capability that costs more names its rule from here
// once: a fastify route in its `config.credits`, an MCP tool in its `credits`, a GraphQL field in
// GRAPHQL_FIELD_CREDITS.

/** What a call costs unless stated otherwise. */
export const CALL_CREDITS = 1;

/** The two batch calls (batch performance, builder external activity) cost this much per submitted wallet. */
export const CREDITS_PER_WALLET = 3;

/** A batch call's cost: CREDITS_PER_WALLET per wallet submitted (a malformed list counts as one call). */
export function perWalletCredits(wallets: unknown): number {
  return Array.isArray(wallets) ? CREDITS_PER_WALLET * Math.max(1, wallets.length) : CALL_CREDITS;
}

/**
 * GraphQL fields that cost more than one credit: `Type.field` → the argument whose list is charged per wallet.
 * The router charges an operation CALL_CREDITS plus, for each listed field it selects at any depth, perWalletCredits
 * of that argument minus CALL_CREDITS (so one batch field alone costs exactly what the REST call costs).
 */
export const GRAPHQL_FIELD_CREDITS: Readonly<Record<string, { perWalletArg: string }>> = {
  'Query.batchPerformance': { perWalletArg: 'addresses' },
  // Reached through Query.builder (router/credits.ts finds it with the supergraph's types).
  'Builder.externalActivity': { perWalletArg: 'addresses' },
};
