// The EVM domain's path endpoints (spec §4.3, reference/service-details.md): `/evm/*` (transactions, ledger
// transfers, a user's ledger events, HIP-3 backstop transfers, summary, health and absorbed fills) and the token
// holders page `/<chain>/testnet/tokens/{address}/holders`, each in the data envelope. Bounds come from the
// service's constants; the service checks them again for its other doors.
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelope, HttpError } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { addressSchema, limitSchema, type TimeWindowQuery, timeWindow, timeWindowSchema } from '../../../kit/params.ts';
import {
  FILL_ROWS_DEFAULT_LIMIT,
  LEDGER_EVENT_TYPES,
  type LedgerEventType,
  MAX_FILL_ROWS,
} from '../../accounts/port.ts';
import {
  EVM_ROWS_DEFAULT,
  LEDGER_ACTION_TYPES,
  type LedgerActionType,
  MAX_EVM_OFFSET,
  MAX_EVM_ROWS,
  TOKEN_HOLDERS,
  TRANSACTIONS,
  toTransactionRecord,
} from '../service/index.ts';
import { EVM_ANSWERS } from './answers.ts';

/**
 * The `<chain>` values of the holders path: the one HyperEVM chain this service indexes, under its two usual names.
 * Any other answers 404.
 */
export const HOLDER_CHAINS = ['hyperevm', 'hyperliquid'] as const;

const pageSchema = {
  limit: limitSchema(MAX_EVM_ROWS, EVM_ROWS_DEFAULT),
  offset: { type: 'integer', minimum: 0, maximum: MAX_EVM_OFFSET, default: 0 },
} as const;

/** A dex name as the exchange spells them (`xyz`): short, no separator. */
const dexSchema = { type: 'string', minLength: 1, maxLength: 32 } as const;

/** The querystring of an offset-paged list over a time window, with its own filters. */
const listQuery = (filters: Record<string, unknown>) =>
  ({ type: 'object', properties: { ...pageSchema, ...timeWindowSchema, ...filters } }) as const;

interface PageQ {
  limit: number;
  offset: number;
}

const lower = (v: string | undefined) => v?.toLowerCase();

export function noBackstopActivity(dex: string): HttpError {
  return new HttpError(404, `No backstop activity recorded for dex '${dex}'`);
}

export const evmRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { evm } = services;

  app.get<{ Querystring: Record<string, unknown> }>(
    '/transactions',
    { schema: { answer: EVM_ANSWERS.transactions, querystring: TRANSACTIONS.query() } },
    async (req) => {
      const page = await evm.transactions(TRANSACTIONS.fromQuery(req.query));
      return dataEnvelope(req, page.rows.map(toTransactionRecord), page);
    },
  );

  app.get<{
    Querystring: PageQ &
      TimeWindowQuery & {
        action_type?: LedgerActionType;
        token?: string;
        user?: string;
        source_dex?: string;
        destination_dex?: string;
      };
  }>(
    '/ledger/transfers',
    {
      schema: {
        answer: EVM_ANSWERS.ledgerTransfers,
        querystring: listQuery({
          action_type: { type: 'string', enum: Object.keys(LEDGER_ACTION_TYPES) },
          token: { type: 'string', minLength: 1, maxLength: 64 },
          user: addressSchema,
          // '' is the native perp dex.
          source_dex: { type: 'string', maxLength: 32 },
          destination_dex: { type: 'string', maxLength: 32 },
        }),
      },
    },
    async (req) => {
      const q = req.query;
      const page = await evm.ledgerTransfers({
        actionType: q.action_type,
        token: q.token,
        user: lower(q.user),
        sourceDex: q.source_dex,
        destinationDex: q.destination_dex,
        ...timeWindow(q),
        limit: q.limit,
        offset: q.offset,
      });
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Params: { address: string }; Querystring: PageQ & TimeWindowQuery & { event_type?: LedgerEventType[] } }>(
    '/user/:address/ledger-events',
    {
      schema: {
        answer: EVM_ANSWERS.ledgerEvents,
        params: { type: 'object', properties: { address: addressSchema } },
        querystring: listQuery({
          // Repeatable (`?event_type=deposit&event_type=agent_send`).
          event_type: {
            type: 'array',
            items: { type: 'string', enum: [...LEDGER_EVENT_TYPES] },
            maxItems: LEDGER_EVENT_TYPES.length,
          },
        }),
      },
    },
    async (req) => {
      const q = req.query;
      const page = await evm.userLedgerEvents({
        ...timeWindow(q),
        user: req.params.address.toLowerCase(),
        eventTypes: q.event_type,
        limit: q.limit,
        offset: q.offset,
      });
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Querystring: PageQ & TimeWindowQuery & { dex?: string; signer?: string; is_deposit?: boolean } }>(
    '/hip3/backstop/transfers',
    {
      schema: {
        answer: EVM_ANSWERS.backstopTransfers,
        querystring: listQuery({
          dex: dexSchema,
          signer: addressSchema,
          is_deposit: { type: 'boolean' },
        }),
      },
    },
    async (req) => {
      const q = req.query;
      const page = await evm.backstopTransfers({
        dex: q.dex,
        signer: lower(q.signer),
        isDeposit: q.is_deposit,
        ...timeWindow(q),
        limit: q.limit,
        offset: q.offset,
      });
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Querystring: TimeWindowQuery & { dex?: string } }>(
    '/hip3/backstop/transfers-summary',
    {
      schema: {
        answer: EVM_ANSWERS.backstopSummary,
        querystring: { type: 'object', properties: { ...timeWindowSchema, dex: dexSchema } },
      },
    },
    async (req) => dataEnvelope(req, await evm.backstopSummary({ dex: req.query.dex, ...timeWindow(req.query) })),
  );

  app.get('/hip3/backstop/health', { schema: { answer: EVM_ANSWERS.backstopHealth } }, async (req) =>
    dataEnvelope(req, await evm.backstopHealth()),
  );

  app.get<{ Params: { dex: string } }>(
    '/hip3/backstop/:dex/health',
    { schema: { answer: EVM_ANSWERS.dexHealth, params: { type: 'object', properties: { dex: dexSchema } } } },
    async (req) => {
      const health = await evm.backstopHealth(req.params.dex);
      if (!health) throw noBackstopActivity(req.params.dex);
      return dataEnvelope(req, health);
    },
  );

  app.get<{
    Params: { dex: string };
    Querystring: TimeWindowQuery & { coin?: string; side?: 'A' | 'B'; limit: number; cursor?: string; offset?: number };
  }>(
    '/hip3/backstop/:dex/fills',
    {
      schema: {
        answer: EVM_ANSWERS.backstopFills,
        params: { type: 'object', properties: { dex: dexSchema } },
        querystring: {
          type: 'object',
          properties: {
            ...timeWindowSchema,
            coin: { type: 'string', minLength: 1, maxLength: 64 },
            side: { type: 'string', enum: ['A', 'B'] },
            limit: limitSchema(MAX_FILL_ROWS, FILL_ROWS_DEFAULT_LIMIT),
            cursor: { type: 'string', maxLength: 64 },
            // The reference's offset paging, beside the cursor (not both).
            offset: { type: 'integer', minimum: 0, maximum: MAX_EVM_OFFSET },
          },
        },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await evm.backstopFills(req.params.dex, {
        ...timeWindow(q),
        coin: q.coin,
        side: q.side,
        limit: q.limit,
        cursor: q.cursor,
        offset: q.offset,
      });
      if (!page) throw noBackstopActivity(req.params.dex);
      return dataEnvelope(req, page.rows, page);
    },
  );
};

export const tokenHolderRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { evm } = services;
  app.get<{ Params: { chain: string; address: string }; Querystring: Record<string, unknown> }>(
    '/:chain/testnet/tokens/:address/holders',
    {
      schema: {
        answer: EVM_ANSWERS.holders,
        params: { type: 'object', properties: { chain: { type: 'string' }, address: addressSchema } },
        // `cursor` (next_cursor of a page) beside `offset`: deep pages at the cost of the first (bench/evm.ts).
        querystring: TOKEN_HOLDERS.query(['token']),
      },
    },
    async (req) => {
      const { chain, address } = req.params;
      if (!(HOLDER_CHAINS as readonly string[]).includes(chain)) {
        throw new HttpError(404, `Unknown chain '${chain}': served are ${HOLDER_CHAINS.join(', ')}`);
      }
      const page = await evm.tokenHolders(TOKEN_HOLDERS.fromQuery({ ...req.query, token: address }));
      return dataEnvelope(req, page.rows, page);
    },
  );
};
