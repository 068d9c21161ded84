// The evm domain's MCP tools: each one capability of the EvmService, with the same rules (limits, defaults) the REST
// routes and GraphQL fields get from it. The tool server checks arguments against `input` before `call` runs.
import {
  address,
  arrayOf,
  intIn,
  NO_NUL_PATTERN,
  object,
  optBool,
  optNonEmpty,
  optOneOf,
  optTimeMs,
} from '../../compat-rest/info/request-schema.ts';
import { LEDGER_EVENT_TYPES, type LedgerEventType, MAX_FILL_ROWS } from '../accounts/service/index.ts';
import type { McpTool } from '../domain.ts';
import {
  EVM_ROWS_DEFAULT,
  LEDGER_ACTION_TYPES,
  type LedgerActionType,
  MAX_EVM_OFFSET,
  MAX_EVM_ROWS,
  toTransactionRecord,
} from './service/index.ts';

const page = { limit: intIn(1, MAX_EVM_ROWS), offset: intIn(0, MAX_EVM_OFFSET) };
const window = { startTime: optTimeMs, endTime: optTimeMs };

type Args = Record<string, unknown>;
const opt = <T>(args: Args, key: string): T | undefined => (args[key] ?? undefined) as T | undefined;
const lower = (v: string | undefined) => v?.toLowerCase();
const pageOf = (args: Args) => ({
  limit: opt<number>(args, 'limit') ?? EVM_ROWS_DEFAULT,
  offset: opt<number>(args, 'offset') ?? 0,
});
const windowOf = (args: Args) => ({ startTime: opt<number>(args, 'startTime'), endTime: opt<number>(args, 'endTime') });
const rowsSummary = (what: string) => (r: Record<string, unknown>) =>
  `${(r.rows as unknown[]).length} ${what}${r.hasMore ? ' (more follow: raise offset)' : ''}`;

export const evmTools: readonly McpTool[] = [
  {
    name: 'evm_transactions',
    title: 'HyperEVM transactions',
    description:
      'HyperEVM transactions newest first, filtered by block number, recipient address and time window (epoch ms). ' +
      'System (HyperCore bridge) transactions are left out unless includeSystem is true. Paged by limit/offset.',
    input: object({
      blockNumber: intIn(0),
      to: { ...address, type: ['string', 'null'] },
      includeSystem: optBool,
      ...window,
      ...page,
    }),
    async call(args, { services }) {
      const p = await services.evm.transactions({
        blockNumber: opt(args, 'blockNumber'),
        toAddr: lower(opt(args, 'to')),
        includeSystem: opt<boolean>(args, 'includeSystem') ?? false,
        ...windowOf(args),
        ...pageOf(args),
      });
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
    input: object(
      { token: address, ...page, cursor: { type: ['string', 'null'], maxLength: 128, pattern: NO_NUL_PATTERN } },
      ['token'],
    ),
    async call(args, { services }) {
      const p = await services.evm.tokenHolders(args.token as string, { ...pageOf(args), cursor: opt(args, 'cursor') });
      return { rows: p.rows, hasMore: p.hasMore, nextCursor: p.nextCursor, totalRaw: p.totalRaw };
    },
    summary: rowsSummary('holders'),
  },
  {
    name: 'evm_ledger_transfers',
    title: 'Ledger transfers between dexes',
    description:
      'Core-ledger transfers newest first, with source_dex and destination_dex ("" = the native perp dex). Filter by ' +
      'actionType (agentSendAsset moves value between dexes), token, user (either side), dexes and time window.',
    input: object({
      actionType: optOneOf(Object.keys(LEDGER_ACTION_TYPES)),
      token: optNonEmpty,
      user: { ...address, type: ['string', 'null'] },
      sourceDex: { type: ['string', 'null'], maxLength: 32, pattern: NO_NUL_PATTERN },
      destinationDex: { type: ['string', 'null'], maxLength: 32, pattern: NO_NUL_PATTERN },
      ...window,
      ...page,
    }),
    async call(args, { services }) {
      const p = await services.evm.ledgerTransfers({
        actionType: opt<LedgerActionType>(args, 'actionType'),
        token: opt(args, 'token'),
        user: lower(opt(args, 'user')),
        sourceDex: opt(args, 'sourceDex'),
        destinationDex: opt(args, 'destinationDex'),
        ...windowOf(args),
        ...pageOf(args),
      });
      return { rows: p.rows, hasMore: p.hasMore };
    },
    summary: rowsSummary('transfers'),
  },
  {
    name: 'evm_user_ledger_events',
    title: "A user's ledger events",
    description:
      "An account's non-funding ledger events newest first, each classified (deposit, withdrawal, transfer_in, " +
      'transfer_out, class_transfer, sub_account, vault, agent_send with its source and destination dex, other).',
    input: object(
      {
        user: address,
        eventTypes: {
          ...arrayOf({ type: 'string', enum: [...LEDGER_EVENT_TYPES] }),
          maxItems: LEDGER_EVENT_TYPES.length,
        },
        ...window,
        ...page,
      },
      ['user'],
    ),
    async call(args, { services }) {
      const p = await services.evm.userLedgerEvents({
        user: args.user as string,
        eventTypes: opt<LedgerEventType[]>(args, 'eventTypes'),
        ...windowOf(args),
        ...pageOf(args),
      });
      return { rows: p.rows, hasMore: p.hasMore };
    },
    summary: rowsSummary('events'),
  },
  {
    name: 'evm_backstop_transfers',
    title: 'HIP-3 backstop principal transfers',
    description:
      "Deposits and withdrawals of HIP-3 dexes' backstop principal, newest first; filter by dex, signer, direction and time.",
    input: object({
      dex: { type: ['string', 'null'], minLength: 1, maxLength: 32, pattern: NO_NUL_PATTERN },
      signer: { ...address, type: ['string', 'null'] },
      isDeposit: optBool,
      ...window,
      ...page,
    }),
    async call(args, { services }) {
      const p = await services.evm.backstopTransfers({
        dex: opt(args, 'dex'),
        signer: lower(opt(args, 'signer')),
        isDeposit: opt(args, 'isDeposit'),
        ...windowOf(args),
        ...pageOf(args),
      });
      return { rows: p.rows, hasMore: p.hasMore };
    },
    summary: rowsSummary('transfers'),
  },
  {
    name: 'evm_backstop_summary',
    title: 'HIP-3 backstop principal summary',
    description:
      'Per dex: total deposited, total withdrawn and net backstop principal (USDC), unique signers, over an optional window.',
    input: object({
      dex: { type: ['string', 'null'], minLength: 1, maxLength: 32, pattern: NO_NUL_PATTERN },
      ...window,
    }),
    async call(args, { services }) {
      return { dexes: await services.evm.backstopSummary({ dex: opt(args, 'dex'), ...windowOf(args) }) };
    },
    summary: (r) => `${(r.dexes as unknown[]).length} dexes`,
  },
  {
    name: 'evm_backstop_health',
    title: 'HIP-3 backstop health',
    description:
      'Backstop health of every HIP-3 dex with activity (or of one dex): principal, fills its backstop absorbed, ' +
      'notional, fees, fills in the last 24 h, first and last fill, active coins.',
    input: object({ dex: { type: ['string', 'null'], minLength: 1, maxLength: 32, pattern: NO_NUL_PATTERN } }),
    async call(args, { services }) {
      const dex = opt<string>(args, 'dex');
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
      "The fills a dex's backstop absorbed in backstop liquidations, newest first; `cursor` resumes after a page.",
    input: object(
      {
        dex: { type: 'string', minLength: 1, maxLength: 32, pattern: NO_NUL_PATTERN },
        coin: optNonEmpty,
        side: optOneOf(['A', 'B']),
        ...window,
        limit: intIn(1, MAX_FILL_ROWS),
        cursor: { type: ['string', 'null'], maxLength: 64, pattern: NO_NUL_PATTERN },
      },
      ['dex'],
    ),
    async call(args, { services }) {
      const p = await services.evm.backstopFills(args.dex as string, {
        coin: opt(args, 'coin'),
        side: opt(args, 'side'),
        ...windowOf(args),
        limit: opt<number>(args, 'limit') ?? EVM_ROWS_DEFAULT,
        cursor: opt(args, 'cursor'),
      });
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
