// The EVM domain's path endpoints (spec §4.3, reference/service-details.md): `/evm/*` (transactions, ledger
// transfers, a user's ledger events, HIP-3 backstop transfers, summary, health and absorbed fills) and the token
// holders page `/<chain>/testnet/tokens/{address}/holders`, each in the data envelope. Bounds come from the
// service's constants; the service checks them again for its other doors.
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelope, HttpError } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { addressSchema } from '../../../kit/params.ts';
import {
  BACKSTOP_FILLS,
  BACKSTOP_SUMMARY,
  BACKSTOP_TRANSFERS,
  LEDGER_TRANSFERS,
  TOKEN_HOLDERS,
  TRANSACTIONS,
  toTransactionRecord,
  USER_LEDGER_EVENTS,
} from '../service/index.ts';
import { EVM_ANSWERS } from './answers.ts';

/**
 * The `<chain>` values of the holders path: the one HyperEVM chain this service indexes, under its two usual names.
 * Any other answers 404.
 */
export const HOLDER_CHAINS = ['hyperevm', 'hyperliquid'] as const;

/** A dex name as the exchange spells them (`xyz`): short, no separator. */
const dexSchema = { type: 'string', minLength: 1, maxLength: 32 } as const;

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

  app.get<{ Querystring: Record<string, unknown> }>(
    '/ledger/transfers',
    { schema: { answer: EVM_ANSWERS.ledgerTransfers, querystring: LEDGER_TRANSFERS.query() } },
    async (req) => {
      const page = await evm.ledgerTransfers(LEDGER_TRANSFERS.fromQuery(req.query));
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Params: { address: string }; Querystring: Record<string, unknown> }>(
    '/user/:address/ledger-events',
    {
      schema: {
        answer: EVM_ANSWERS.ledgerEvents,
        params: { type: 'object', properties: { address: addressSchema } },
        // `event_type` is repeatable (`?event_type=deposit&event_type=agent_send`).
        querystring: USER_LEDGER_EVENTS.query(['user']),
      },
    },
    async (req) => {
      const page = await evm.userLedgerEvents(USER_LEDGER_EVENTS.fromQuery({ ...req.query, user: req.params.address }));
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/hip3/backstop/transfers',
    { schema: { answer: EVM_ANSWERS.backstopTransfers, querystring: BACKSTOP_TRANSFERS.query() } },
    async (req) => {
      const page = await evm.backstopTransfers(BACKSTOP_TRANSFERS.fromQuery(req.query));
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/hip3/backstop/transfers-summary',
    { schema: { answer: EVM_ANSWERS.backstopSummary, querystring: BACKSTOP_SUMMARY.query() } },
    async (req) => dataEnvelope(req, await evm.backstopSummary(BACKSTOP_SUMMARY.fromQuery(req.query))),
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

  app.get<{ Params: { dex: string }; Querystring: Record<string, unknown> }>(
    '/hip3/backstop/:dex/fills',
    {
      schema: {
        answer: EVM_ANSWERS.backstopFills,
        params: { type: 'object', properties: { dex: dexSchema } },
        querystring: BACKSTOP_FILLS.query(['dex']),
      },
    },
    async (req) => {
      const page = await evm.backstopFills(BACKSTOP_FILLS.fromQuery({ ...req.query, dex: req.params.dex }));
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
