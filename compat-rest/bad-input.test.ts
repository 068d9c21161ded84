// Every /info type (proxied ones are checked before the node) and every /ws channel, sent a wrongly typed value in
// each field it or its neighbours read: /info answers 200 or 400 with an `error` string, never a 500; /ws acks or
// sends an error frame, and the connection keeps working. The generated run over every door:
// test/bad-input.fuzz.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';
import { openSocket } from '../test/ws-client.ts';
import { INFO_TYPES } from './info/index.ts';

let compat: TestCompatApp;
let user = '';

beforeAll(async () => {
  // /info through inject(); /ws on the listening server.
  compat = await startCompatApp({ listen: true });
  const { rows } = await compat.db.pool.query('SELECT address FROM accounts.fills LIMIT 1');
  user = rows[0].address;
}, 120_000);
afterAll(async () => {
  await compat?.close();
});

const FIELDS = [
  'user',
  'users',
  'coin',
  'dex',
  'req',
  'interval',
  'startTime',
  'endTime',
  'limit',
  'cursor',
  'order',
  'side',
  'nSigFigs',
  'mantissa',
  'token',
  'oid',
  'cloid',
  'twapId',
  'lookbackDays',
  'aggregateByTime',
  'includeOrderType',
  'include_order_type',
];

const BAD: unknown[] = [null, -1, 1.5, 2 ** 64, 'x', '', {}, [], [1], true];

describe('POST /info with wrongly typed fields', () => {
  it.each(Object.keys(INFO_TYPES))('%s answers 200 or 400, never 500', async (type) => {
    const now = Date.now();
    const base: Record<string, unknown> = { type, user, coin: 'BTC', startTime: now - 60_000, endTime: now };
    if (type === 'candleSnapshot') base.req = { coin: 'BTC', interval: '1m', startTime: now - 60_000, endTime: now };
    if (type === 'clearinghouseState') base.users = [user];
    const failures: string[] = [];
    for (const field of FIELDS) {
      for (const value of BAD) {
        const body = JSON.stringify({ ...base, [field]: value });
        const res = await compat.info(null, {}, body);
        const answer = res.body;
        const ok = res.status === 200 || (res.status === 400 && typeof answer?.error === 'string');
        if (!ok) failures.push(`${field}=${JSON.stringify(value)}: ${res.status} ${JSON.stringify(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('/ws subscribe with wrongly typed fields', () => {
  const CHANNELS = [
    'allMids',
    'l2Book',
    'trades',
    'bbo',
    'candle',
    'allCandles',
    'activeAssetCtx',
    'userFills',
    'userFundings',
    'userNonFundingLedgerUpdates',
    'userEvents',
    'orderUpdates',
    'liquidations',
  ];
  const WS_FIELDS = ['coin', 'user', 'users', 'interval', 'nSigFigs', 'mantissa', 'dex', 'aggregateByTime'];
  const LIQUIDATION_FIELDS = ['amount_dollars', 'builder'];

  it.each(CHANNELS)('%s acks or answers an error frame, and the connection stays usable', async (type) => {
    const ws = await openSocket(compat.urls.ws);
    const base: Record<string, unknown> = { type, coin: 'BTC', user, interval: '1m' };
    const failures: string[] = [];
    for (const field of type === 'liquidations' ? [...WS_FIELDS, ...LIQUIDATION_FIELDS] : WS_FIELDS) {
      for (const value of BAD) {
        const subscription = { ...base, [field]: value };
        ws.send({ method: 'subscribe', subscription });
        // Data frames of subscriptions that were accepted may come first.
        let reply: { channel: string; data: unknown };
        do reply = (await ws.next()) as typeof reply;
        while (reply.channel !== 'subscriptionResponse' && reply.channel !== 'error');
        if (reply.channel === 'error' && typeof reply.data !== 'string')
          failures.push(`${field}: ${JSON.stringify(reply)}`);
        if (reply.channel === 'subscriptionResponse') {
          ws.send({ method: 'unsubscribe', subscription: (reply.data as { subscription: unknown }).subscription });
        }
      }
    }
    expect(failures).toEqual([]);
    ws.send({ method: 'ping' });
    let pong: { channel: string };
    do pong = (await ws.next()) as typeof pong;
    while (pong.channel !== 'pong');
    ws.close();
  });
});
