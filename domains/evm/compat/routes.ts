// The EVM domain's path endpoints (spec §4.3, reference/service-details.md): `/evm/*` (transactions, ledger
// transfers, a user's ledger events, HIP-3 backstop transfers, summary, health and absorbed fills) and the token
// holders page `/<chain>/testnet/tokens/{address}/holders`, each in the data envelope. Bounds come from the
// service's constants; the service checks them again for its other doors.
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelope, dataEnvelopeAround, HttpError } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { routeInput } from '../../../kit/route-input.ts';
import { JsonArrayWriter } from '../../../platform/json-text.ts';
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

// Each route reads its capability's input definition before the call is charged (kit/route-input.ts).
const transactionsInput = routeInput(TRANSACTIONS);
const ledgerTransfersInput = routeInput(LEDGER_TRANSFERS);
const userLedgerEventsInput = routeInput(USER_LEDGER_EVENTS, (req) => ({
  ...(req.query as object),
  user: (req.params as { address: string }).address,
}));
const backstopTransfersInput = routeInput(BACKSTOP_TRANSFERS);
const backstopSummaryInput = routeInput(BACKSTOP_SUMMARY);
const backstopFillsInput = routeInput(BACKSTOP_FILLS);
const tokenHoldersInput = routeInput(TOKEN_HOLDERS, (req) => ({
  ...(req.query as object),
  token: (req.params as { address: string }).address,
}));

export function noBackstopActivity(dex: string): HttpError {
  return new HttpError('not_found', `No backstop activity recorded for dex '${dex}'`);
}

export const evmRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { evm } = services;

  app.get<{ Querystring: Record<string, unknown> }>(
    '/transactions',
    {
      schema: { answer: EVM_ANSWERS.transactions, querystring: transactionsInput.querystring() },
      config: transactionsInput.config,
    },
    async (req) => {
      const page = await evm.transactions(transactionsInput.of(req));
      return dataEnvelope(req, page.rows.map(toTransactionRecord), page);
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/ledger/transfers',
    {
      schema: { answer: EVM_ANSWERS.ledgerTransfers, querystring: ledgerTransfersInput.querystring() },
      config: ledgerTransfersInput.config,
    },
    async (req) => {
      const page = await evm.ledgerTransfers(ledgerTransfersInput.of(req));
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Params: { address: string }; Querystring: Record<string, unknown> }>(
    '/user/:address/ledger-events',
    {
      schema: {
        answer: EVM_ANSWERS.ledgerEvents,
        params: userLedgerEventsInput.params({ address: 'user' }),
        // `event_type` is repeatable (`?event_type=deposit&event_type=agent_send`).
        querystring: userLedgerEventsInput.querystring(['user']),
      },
      config: userLedgerEventsInput.config,
    },
    async (req) => {
      const page = await evm.userLedgerEvents(userLedgerEventsInput.of(req));
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/hip3/backstop/transfers',
    {
      schema: { answer: EVM_ANSWERS.backstopTransfers, querystring: backstopTransfersInput.querystring() },
      config: backstopTransfersInput.config,
    },
    async (req) => {
      const page = await evm.backstopTransfers(backstopTransfersInput.of(req));
      return dataEnvelope(req, page.rows, page);
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/hip3/backstop/transfers-summary',
    {
      schema: { answer: EVM_ANSWERS.backstopSummary, querystring: backstopSummaryInput.querystring() },
      config: backstopSummaryInput.config,
    },
    async (req) => dataEnvelope(req, await evm.backstopSummary(backstopSummaryInput.of(req))),
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
        querystring: backstopFillsInput.querystring(['dex']),
      },
      config: backstopFillsInput.config,
    },
    async (req) => {
      const page = await evm.backstopFills(backstopFillsInput.of(req));
      if (!page) throw noBackstopActivity(req.params.dex);
      return dataEnvelope(req, page.rows, page);
    },
  );
};

const JSON_TYPE = 'application/json; charset=utf-8';

export const tokenHolderRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { evm } = services;
  app.get<{ Params: { chain: string; address: string }; Querystring: Record<string, unknown> }>(
    '/:chain/testnet/tokens/:address/holders',
    {
      schema: {
        answer: EVM_ANSWERS.holders,
        params: tokenHoldersInput.params({ address: 'token' }, { chain: { type: 'string' } }),
        // `cursor` (next_cursor of a page) beside `offset`: deep pages at the cost of the first (bench/evm.ts).
        querystring: tokenHoldersInput.querystring(['token']),
      },
      config: tokenHoldersInput.config,
    },
    async (req, reply) => {
      const { chain } = req.params;
      if (!(HOLDER_CHAINS as readonly string[]).includes(chain)) {
        throw new HttpError('not_found', `Unknown chain '${chain}': served are ${HOLDER_CHAINS.join(', ')}`);
      }
      // Up to 1000 holders (about 130 kB): written as JSON from the statement's rows as they arrive, the same JSON
      // as dataEnvelope(req, page.rows, page) without a holder object per row or a stringify of the page.
      const input = tokenHoldersInput.of(req);
      const json = new JsonArrayWriter(input.limit * 160, undefined, dataEnvelopeAround(req).before);
      const page = await evm.eachHolderJson(input, (holder) => json.push(holder));
      return reply.type(JSON_TYPE).send(json.end(dataEnvelopeAround(req, page).after));
    },
  );
};
