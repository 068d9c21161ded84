// The evm domain's capabilities, each declared once (kit/capability.ts): its input (service/inputs.ts), its service
// call, its record (records.ts) and its doors. The `/evm/*` and token-holder path routes (each in the data envelope),
// the MCP tools and the subgraph's Query fields (block, latestBlocks, transaction, evmTransactions, ...) and entity
// fields (User.ledgerEvents, Dex.backstopTransfers, EvmToken.holders, ...) are made from this list.
import type { Capabilities } from '../../kit/capability.ts';
import { capability, lookupCapability, wholeCapability } from '../../kit/capability.ts';
import { HttpError } from '../../kit/envelopes.ts';
import { EVM_ANSWERS } from './compat/answers.ts';
import { LIVE_CAPABILITIES } from './live-capabilities.ts';
import { BACKSTOP_TRANSFER, LEDGER_TRANSFER, TRANSACTION } from './records.ts';
import { PAGE_LIST_SIZE } from './schema/args.ts';
import {
  AbsorbedFillPageRef,
  BackstopHealthRef,
  BackstopTransferPageRef,
  DexRef,
  PrincipalSummaryRef,
} from './schema/backstop.ts';
import { BlockRef, TransactionPageRef, TransactionRef } from './schema/chain.ts';
import { LedgerActionTypeRef, LedgerTransferPageRef } from './schema/ledger.ts';
import { EvmTokenRef, HoldersRef } from './schema/token.ts';
import { LedgerEventPageRef, LedgerEventTypeRef, UserRef } from './schema/user.ts';
import type { EvmService } from './service/index.ts';
import {
  BACKSTOP_DEX,
  BACKSTOP_FILLS,
  BACKSTOP_HEALTH,
  BACKSTOP_SUMMARY,
  BACKSTOP_TRANSFERS,
  BLOCK,
  DEX_HEALTH,
  EVM_TOKEN,
  LATEST_BLOCKS,
  LEDGER_TRANSFERS,
  TOKEN_HOLDERS,
  TRANSACTION_HASH,
  TRANSACTIONS,
  USER_LEDGER_EVENTS,
} from './service/inputs.ts';

/**
 * The `<chain>` values of the holders path: the one HyperEVM chain this service indexes, under its two usual names.
 * Any other answers 404.
 */
export const HOLDER_CHAINS = ['hyperevm', 'hyperliquid'] as const;

const noBackstopActivity = ({ dex }: { dex?: string }) => `No backstop activity recorded for dex '${dex}'`;

const rowsSummary = (what: string) => (r: Record<string, unknown>) =>
  `${(r.rows as unknown[]).length} ${what}${r.hasMore ? ' (more follow: raise offset)' : ''}`;
const dexesSummary = (r: Record<string, unknown>) => `${(r.dexes as unknown[]).length} dexes`;

/** A Dex's backstop fields: the dex is the parent's. */
const fromDex = { dex: (d: { name: string }) => d.name };
/** A User's fields: the account is the parent's. */
const fromUser = { user: (u: { address: string }) => u.address };

export const EVM_CAPABILITIES: Capabilities<EvmService> = {
  prefix: '',
  list: [
    // The chain's blocks and a transaction by hash, as the graph reaches them (GraphQL doors only: REST and MCP list
    // the transactions, `transactions`). First: the subgraph's first Query fields.
    lookupCapability('block', BLOCK, BlockRef, (evm: EvmService, { number }) => evm.block(number)),
    wholeCapability({
      name: 'latestBlocks',
      input: LATEST_BLOCKS,
      answer: (evm, input) => evm.latestBlocks(input),
      graphql: {
        type: [BlockRef],
        description: 'The newest blocks, newest first',
        answer: 'latestBlocks',
        listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
      },
    }),
    lookupCapability('transaction', TRANSACTION_HASH, TransactionRef, (evm: EvmService, { hash }) =>
      evm.transaction(hash),
    ),
    capability({
      name: 'transactions',
      input: TRANSACTIONS,
      page: (evm, input) => evm.transactions(input),
      record: TRANSACTION.of,
      rest: { paths: ['/evm/transactions'], answer: EVM_ANSWERS.transactions, data: true },
      mcp: {
        name: 'evm_transactions',
        title: 'HyperEVM transactions',
        description:
          'HyperEVM transactions newest first (hash, block, from, to, value, gas), filtered by block, recipient and ' +
          'time window. System (HyperCore bridge) transactions are left out unless includeSystem is true. Paged by ' +
          'limit/offset. For moves between HyperCore dexes use evm_ledger_transfers.',
        summary: rowsSummary('transactions'),
      },
      graphql: {
        type: TransactionPageRef,
        description: 'Transactions newest first; system transactions only with includeSystem',
        answer: 'evmTransactions',
        listSize: PAGE_LIST_SIZE,
      },
    }),
    capability({
      name: 'ledgerTransfers',
      input: LEDGER_TRANSFERS,
      page: (evm, input) => evm.ledgerTransfers(input),
      record: LEDGER_TRANSFER.of,
      rest: { paths: ['/evm/ledger/transfers'], answer: EVM_ANSWERS.ledgerTransfers, data: true },
      mcp: {
        name: 'evm_ledger_transfers',
        title: 'Ledger transfers between dexes',
        description:
          'Core-ledger transfers of every user newest first, with source_dex and destination_dex ("" = the native ' +
          'perp dex). Filter by actionType (agentSendAsset moves value between dexes), token, user (either side), ' +
          "dexes and time window. For one user's classified ledger use evm_user_ledger_events.",
        summary: rowsSummary('transfers'),
      },
      graphql: {
        type: LedgerTransferPageRef,
        description: '',
        answer: 'ledgerTransfers',
        types: { actionType: LedgerActionTypeRef },
        listSize: PAGE_LIST_SIZE,
        fields: [
          {
            on: UserRef,
            name: 'ledgerTransfers',
            description: 'Core-ledger transfers the account sent or received, newest first',
            given: fromUser,
            omit: ['actionType', 'sourceDex', 'destinationDex'],
            listSize: PAGE_LIST_SIZE,
          },
        ],
      },
    }),
    capability({
      name: 'userLedgerEvents',
      input: USER_LEDGER_EVENTS,
      // An offset-paged list of the accounts domain's (its port): no cursor to resume after.
      page: async (evm, input) => ({ ...(await evm.userLedgerEvents(input)), nextCursor: null }),
      rest: {
        paths: ['/evm/user/:address/ledger-events'],
        answer: EVM_ANSWERS.ledgerEvents,
        data: true,
        // `event_type` is repeatable (`?event_type=deposit&event_type=agent_send`).
        params: { address: 'user' },
      },
      mcp: {
        name: 'evm_user_ledger_events',
        title: "A user's ledger events",
        description:
          "An account's non-funding ledger events newest first, each classified (deposit, withdrawal, transfer_in, " +
          'transfer_out, class_transfer, sub_account, vault, agent_send with its source and destination dex, other). ' +
          'accounts_ledger_updates answers the same events as the exchange writes them, unclassified.',
        summary: rowsSummary('events'),
      },
      graphql: {
        type: LedgerEventPageRef,
        description: '',
        types: { eventTypes: [LedgerEventTypeRef] },
        fields: [
          {
            on: UserRef,
            name: 'ledgerEvents',
            description: 'Ledger events newest first, of the given types (all when none)',
            given: fromUser,
            listSize: PAGE_LIST_SIZE,
          },
        ],
      },
    }),
    capability({
      name: 'backstopTransfers',
      input: BACKSTOP_TRANSFERS,
      page: (evm, input) => evm.backstopTransfers(input),
      record: BACKSTOP_TRANSFER.of,
      rest: { paths: ['/evm/hip3/backstop/transfers'], answer: EVM_ANSWERS.backstopTransfers, data: true },
      mcp: {
        name: 'evm_backstop_transfers',
        title: 'HIP-3 backstop principal transfers',
        description:
          "Each deposit and withdrawal of HIP-3 dexes' backstop principal, newest first; filter by dex, signer, " +
          'direction and time. For totals per dex use evm_backstop_summary.',
        summary: rowsSummary('transfers'),
      },
      graphql: {
        type: BackstopTransferPageRef,
        description: '',
        fields: [{ on: DexRef, name: 'backstopTransfers', given: fromDex, listSize: PAGE_LIST_SIZE }],
      },
    }),
    wholeCapability({
      name: 'backstopSummary',
      input: BACKSTOP_SUMMARY,
      answer: (evm, input) => evm.backstopSummary(input),
      rest: { paths: ['/evm/hip3/backstop/transfers-summary'], answer: EVM_ANSWERS.backstopSummary, data: true },
      mcp: {
        name: 'evm_backstop_summary',
        title: 'HIP-3 backstop principal summary',
        description:
          'Per dex: total deposited, total withdrawn and net backstop principal (USDC), unique signers, over an ' +
          'optional window. For the fills a backstop absorbed use evm_backstop_health.',
        key: 'dexes',
        summary: dexesSummary,
      },
      graphql: {
        type: PrincipalSummaryRef,
        description: '',
        fields: [
          {
            on: DexRef,
            name: 'backstopSummary',
            nullable: true,
            given: fromDex,
            of: (summaries: unknown[]) => summaries[0] ?? null,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'backstopHealth',
      input: BACKSTOP_HEALTH,
      // Every dex with activity, or the one asked for (none: `missing`).
      answer: async (evm, { dex }) => {
        if (dex === undefined) return evm.backstopHealth();
        const health = await evm.backstopHealth(dex);
        return health ? [health] : null;
      },
      missing: noBackstopActivity,
      // Every dex: the path takes no parameter (one dex is /{dex}/health).
      rest: {
        paths: ['/evm/hip3/backstop/health'],
        answer: EVM_ANSWERS.backstopHealth,
        data: true,
        querystring: () => null,
      },
      mcp: {
        name: 'evm_backstop_health',
        title: 'HIP-3 backstop health',
        description:
          'Backstop health of every HIP-3 dex with activity (or of one dex): principal, fills its backstop absorbed, ' +
          'notional, fees, fills in the last 24 h, first and last fill, active coins. The fills themselves: ' +
          'evm_backstop_fills.',
        key: 'dexes',
        summary: dexesSummary,
      },
      graphql: {
        type: [BackstopHealthRef],
        description: 'One row per HIP-3 dex with backstop activity ever observed',
        answer: 'backstopHealth',
        omit: ['dex'],
        listSize: { assumedSize: 5 },
      },
    }),
    wholeCapability({
      name: 'dexBackstopHealth',
      input: DEX_HEALTH,
      answer: (evm, { dex }) => evm.backstopHealth(dex),
      missing: noBackstopActivity,
      rest: {
        paths: ['/evm/hip3/backstop/:dex/health'],
        answer: EVM_ANSWERS.dexHealth,
        data: true,
        params: { dex: 'dex' },
        querystring: () => null,
      },
      graphql: {
        type: BackstopHealthRef,
        description: '',
        fields: [
          {
            on: DexRef,
            name: 'backstopHealth',
            nullable: true,
            description: 'Null when no backstop activity was ever observed',
            given: fromDex,
          },
        ],
      },
    }),
    capability({
      name: 'backstopFills',
      input: BACKSTOP_FILLS,
      page: (evm, input) => evm.backstopFills(input),
      missing: noBackstopActivity,
      rest: {
        paths: ['/evm/hip3/backstop/:dex/fills'],
        answer: EVM_ANSWERS.backstopFills,
        data: true,
        params: { dex: 'dex' },
      },
      mcp: {
        name: 'evm_backstop_fills',
        title: 'Fills absorbed by a HIP-3 backstop',
        description:
          "The fills a dex's backstop absorbed in backstop liquidations, newest first; `cursor` resumes after a " +
          "page. For the dex's totals use evm_backstop_health.",
        summary: rowsSummary('fills'),
      },
      graphql: {
        type: AbsorbedFillPageRef,
        description: '',
        fields: [
          {
            on: DexRef,
            name: 'absorbedFills',
            nullable: true,
            description: 'Null when the node lists no such dex',
            given: fromDex,
            omit: ['offset'],
            listSize: { slicingArguments: ['first'], sizedFields: ['nodes'], requireOneSlicingArgument: false },
          },
        ],
      },
    }),
    // Last: its path is outside /evm, after the /evm routes in the OpenAPI document.
    capability({
      name: 'tokenHolders',
      input: TOKEN_HOLDERS,
      page: (evm, input) => evm.tokenHolders(input),
      rest: {
        paths: ['/:chain/testnet/tokens/:address/holders'],
        answer: EVM_ANSWERS.holders,
        data: true,
        params: { address: 'token' },
        otherParams: { chain: { type: 'string' } },
        check(req) {
          const { chain } = req.params as { chain: string };
          if (!(HOLDER_CHAINS as readonly string[]).includes(chain)) {
            throw new HttpError('not_found', `Unknown chain '${chain}': served are ${HOLDER_CHAINS.join(', ')}`);
          }
        },
        // Up to 1000 holders (about 130 kB): written as JSON from the statement's rows as they arrive, without a
        // holder object per row or a stringify of the page. `cursor` beside `offset`: deep pages at the cost of the
        // first (bench/evm.ts).
        text: (evm, input, push) => evm.eachHolderJson(input, push),
        rowBytes: 160,
      },
      mcp: {
        name: 'evm_token_holders',
        title: 'Token holders',
        description:
          "A HyperEVM token's holders by balance, largest first, each with its share of all holdings (0 to 1); for " +
          'NFTs the balance is the number of tokens held. Paged by limit/offset, or by cursor (nextCursor) for deep ' +
          'pages.',
        beside: (page) => ({ totalRaw: page.totalRaw }),
        summary: rowsSummary('holders'),
      },
      graphql: {
        type: HoldersRef,
        description: '',
        fields: [
          {
            on: EvmTokenRef,
            name: 'holders',
            description: 'Largest first; page by `offset`, or by `after` (an endCursor) at any depth',
            given: { token: (t: { address: string }) => t.address },
            listSize: PAGE_LIST_SIZE,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'token',
      input: EVM_TOKEN,
      // An unregistered token still has its holders.
      answer: async (evm, { address }) => (await evm.token(address)) ?? { address },
      graphql: {
        type: EvmTokenRef,
        description: 'A token by contract address (its holders even when it was never registered)',
        answer: 'evmToken',
      },
    }),
    wholeCapability({
      name: 'backstopDex',
      input: BACKSTOP_DEX,
      answer: async (_evm, { name }) => ({ name }),
      graphql: { type: DexRef, description: 'A HIP-3 dex by name, for its backstop fields', answer: 'backstopDex' },
    }),
    ...LIVE_CAPABILITIES,
  ],
};
