// The evm domain's MCP tools: each one capability of the EvmService, with the same rules (limits, defaults) the REST
// routes and GraphQL fields get from it. The tool server checks arguments against `input` before `call` runs.
import type { McpTool } from '../../kit/domain.ts';
import {
  BACKSTOP_FILLS,
  BACKSTOP_HEALTH,
  BACKSTOP_SUMMARY,
  BACKSTOP_TRANSFERS,
  LEDGER_TRANSFERS,
  TOKEN_HOLDERS,
  TRANSACTIONS,
  toTransactionRecord,
  USER_LEDGER_EVENTS,
} from './service/index.ts';

const rowsSummary = (what: string) => (r: Record<string, unknown>) =>
  `${(r.rows as unknown[]).length} ${what}${r.hasMore ? ' (more follow: raise offset)' : ''}`;

export const evmTools: readonly McpTool[] = [
  {
    name: 'evm_transactions',
    title: 'HyperEVM transactions',
    description:
      'HyperEVM transactions newest first (hash, block, from, to, value, gas), filtered by block, recipient and time ' +
      'window. System (HyperCore bridge) transactions are left out unless includeSystem is true. Paged by ' +
      'limit/offset. For moves between HyperCore dexes use evm_ledger_transfers.',
    input: TRANSACTIONS.schema,
    async call(args, { services }) {
      const p = await services.evm.transactions(TRANSACTIONS.parse(args));
      return { rows: p.rows.map(toTransactionRecord), hasMore: p.hasMore };
    },
    summary: rowsSummary('transactions'),
  },
  {
    name: 'evm_token_holders',
    title: 'Token holders',
    description:
      "A HyperEVM token's holders by balance, largest first, each with its share of all holdings (0 to 1); for " +
      'NFTs the balance is the number of tokens held. Paged by limit/offset, or by cursor (nextCursor) for deep pages.',
    input: TOKEN_HOLDERS.schema,
    async call(args, { services }) {
      const p = await services.evm.tokenHolders(TOKEN_HOLDERS.parse(args));
      return { rows: p.rows, hasMore: p.hasMore, nextCursor: p.nextCursor, totalRaw: p.totalRaw };
    },
    summary: rowsSummary('holders'),
  },
  {
    name: 'evm_ledger_transfers',
    title: 'Ledger transfers between dexes',
    description:
      'Core-ledger transfers of every user newest first, with source_dex and destination_dex ("" = the native perp ' +
      'dex). Filter by actionType (agentSendAsset moves value between dexes), token, user (either side), dexes and ' +
      "time window. For one user's classified ledger use evm_user_ledger_events.",
    input: LEDGER_TRANSFERS.schema,
    async call(args, { services }) {
      const p = await services.evm.ledgerTransfers(LEDGER_TRANSFERS.parse(args));
      return { rows: p.rows, hasMore: p.hasMore };
    },
    summary: rowsSummary('transfers'),
  },
  {
    name: 'evm_user_ledger_events',
    title: "A user's ledger events",
    description:
      "An account's non-funding ledger events newest first, each classified (deposit, withdrawal, transfer_in, " +
      'transfer_out, class_transfer, sub_account, vault, agent_send with its source and destination dex, other). ' +
      'accounts_ledger_updates answers the same events as the exchange writes them, unclassified.',
    input: USER_LEDGER_EVENTS.schema,
    async call(args, { services }) {
      const p = await services.evm.userLedgerEvents(USER_LEDGER_EVENTS.parse(args));
      return { rows: p.rows, hasMore: p.hasMore };
    },
    summary: rowsSummary('events'),
  },
  {
    name: 'evm_backstop_transfers',
    title: 'HIP-3 backstop principal transfers',
    description:
      "Each deposit and withdrawal of HIP-3 dexes' backstop principal, newest first; filter by dex, signer, " +
      'direction and time. For totals per dex use evm_backstop_summary.',
    input: BACKSTOP_TRANSFERS.schema,
    async call(args, { services }) {
      const p = await services.evm.backstopTransfers(BACKSTOP_TRANSFERS.parse(args));
      return { rows: p.rows, hasMore: p.hasMore };
    },
    summary: rowsSummary('transfers'),
  },
  {
    name: 'evm_backstop_summary',
    title: 'HIP-3 backstop principal summary',
    description:
      'Per dex: total deposited, total withdrawn and net backstop principal (USDC), unique signers, over an optional ' +
      'window. For the fills a backstop absorbed use evm_backstop_health.',
    input: BACKSTOP_SUMMARY.schema,
    async call(args, { services }) {
      return { dexes: await services.evm.backstopSummary(BACKSTOP_SUMMARY.parse(args)) };
    },
    summary: (r) => `${(r.dexes as unknown[]).length} dexes`,
  },
  {
    name: 'evm_backstop_health',
    title: 'HIP-3 backstop health',
    description:
      'Backstop health of every HIP-3 dex with activity (or of one dex): principal, fills its backstop absorbed, ' +
      'notional, fees, fills in the last 24 h, first and last fill, active coins. The fills themselves: ' +
      'evm_backstop_fills.',
    input: BACKSTOP_HEALTH.schema,
    async call(args, { services }) {
      const { dex } = BACKSTOP_HEALTH.parse(args);
      if (dex === undefined) return { dexes: await services.evm.backstopHealth() };
      const health = await services.evm.backstopHealth(dex);
      return {
        dexes: health ? [health] : [],
        ...(health ? {} : { note: `No backstop activity recorded for dex '${dex}'` }),
      };
    },
    summary: (r) => `${(r.dexes as unknown[]).length} dexes`,
  },
  {
    name: 'evm_backstop_fills',
    title: 'Fills absorbed by a HIP-3 backstop',
    description:
      "The fills a dex's backstop absorbed in backstop liquidations, newest first; `cursor` resumes after a page. " +
      "For the dex's totals use evm_backstop_health.",
    input: BACKSTOP_FILLS.schema,
    async call(args, { services }) {
      const p = await services.evm.backstopFills(BACKSTOP_FILLS.parse(args));
      if (!p)
        return {
          rows: [],
          hasMore: false,
          nextCursor: null,
          note: `No backstop activity recorded for dex '${args.dex}'`,
        };
      return { rows: p.rows, hasMore: p.hasMore, nextCursor: p.nextCursor };
    },
    summary: rowsSummary('fills'),
  },
];
