// The exchange's own client, @nktkas/hyperliquid, against compat-rest for every accounts /info type and channel,
// over a simulated node: answers and events in the shapes the SDK publishes (checked field by field).

import fs from 'node:fs/promises';
import path from 'node:path';
import { HttpTransport, InfoClient, SubscriptionClient, WebSocketTransport } from '@nktkas/hyperliquid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listHourlyFiles } from '../../ingest/simulator/writer.ts';
import { openRouterHere } from '../router-here.ts';
import { startTestStack, type TestStack } from '../stack.ts';
import { firstEvent } from './events.ts';
import { expectEventShape, expectInfoShape } from './schemas.ts';

let stack: TestStack;
let info: InfoClient;
let subs: SubscriptionClient;
let ws: WebSocketTransport;
/** Addresses picked from the simulated history. */
const who = {
  trader: '',
  twap: '',
  twapper: '',
  cloidUser: '',
  cloid: '',
  oid: 0,
  funded: '',
  ledger: '',
  maker: '',
};

async function one<T>(sql: string): Promise<T> {
  const { rows } = await stack.db.pool.query(sql);
  if (!rows[0]) throw new Error(`no row for ${sql}`);
  return rows[0] as T;
}

beforeAll(async () => {
  stack = await startTestStack({ historyMs: 2 * 3_600_000, openRouter: openRouterHere });
  info = new InfoClient({ transport: new HttpTransport({ apiUrl: stack.urls.compat, timeout: 10_000 }) });
  ws = new WebSocketTransport({ url: stack.urls.ws, timeout: 10_000 });
  subs = new SubscriptionClient({ transport: ws });
  who.trader = (
    await one<{ address: string }>('SELECT address FROM accounts.fills GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')
  ).address;
  who.twap = (
    await one<{ address: string }>('SELECT address FROM accounts.fills WHERE twap_id IS NOT NULL LIMIT 1')
  ).address;
  const c = await one<{ address: string; cloid: string; oid: number }>(
    'SELECT address, cloid, oid FROM accounts.order_statuses WHERE cloid IS NOT NULL ORDER BY time LIMIT 1',
  );
  Object.assign(who, { cloidUser: c.address, cloid: c.cloid, oid: c.oid });
  who.twapper = (
    await one<{ address: string }>(
      'SELECT address FROM accounts.twap_statuses GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
    )
  ).address;
  who.funded = (await one<{ address: string }>('SELECT address FROM accounts.funding_payments LIMIT 1')).address;
  who.ledger = (await one<{ address: string }>('SELECT address FROM accounts.ledger_updates LIMIT 1')).address;
  who.maker = (
    await one<{ address: string }>(
      'SELECT address FROM accounts.order_statuses GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
    )
  ).address;
}, 120_000);

afterAll(async () => {
  await ws?.close();
  await stack?.close();
});

const user = (address: string) => address as `0x${string}`;

describe('POST /info accounts types through the SDK', () => {
  it('answers userFills and userFillsByTime, newest first', async () => {
    const fills = await info.userFills({ user: user(who.trader) });
    expectInfoShape('userFills', fills);
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.every((f, i) => i === 0 || (fills[i - 1]?.time ?? 0) >= f.time)).toBe(true);
    const byTime = await info.userFillsByTime({ user: user(who.trader), startTime: Date.now() - 3_600_000 });
    expectInfoShape('userFillsByTime', byTime);
    expectInfoShape('userFills', await info.userFills({ user: user(who.trader), aggregateByTime: true }));
  });

  it("takes the SDK's reversed: true newest first (the exchange's order), false the same fills oldest first", async () => {
    const q = { user: user(who.trader), startTime: 0, endTime: Date.now() - 60_000 };
    const plain = await info.userFillsByTime(q);
    const newest = await info.userFillsByTime({ ...q, reversed: true });
    const oldest = await info.userFillsByTime({ ...q, reversed: false });
    expectInfoShape('userFillsByTime', oldest);
    expect(newest).toEqual(plain);
    expect(oldest).toEqual([...plain].reverse());
    expect(oldest.length).toBeGreaterThan(1);
  });

  it('answers userFillsByTime posted over the socket as over HTTP', async () => {
    // A window that has closed, so that live fills do not come between the two answers.
    const q = { user: user(who.trader), startTime: 0, endTime: Date.now() - 60_000 };
    const overWs = await new InfoClient({ transport: ws }).userFillsByTime(q);
    expect(overWs.length).toBeGreaterThan(0);
    expect(overWs).toEqual(await info.userFillsByTime(q));
  });

  it('answers userTwapSliceFills', async () => {
    const slices = await info.userTwapSliceFills({ user: user(who.twap) });
    expectInfoShape('userTwapSliceFills', slices);
    expect(slices.length).toBeGreaterThan(0);
  });

  it('answers historicalOrders and orderStatus by oid and by cloid', async () => {
    const orders = await info.historicalOrders({ user: user(who.cloidUser) });
    expectInfoShape('historicalOrders', orders);
    expect(orders.length).toBeGreaterThan(0);
    const byOid = await info.orderStatus({ user: user(who.cloidUser), oid: who.oid });
    expectInfoShape('orderStatus', byOid);
    expect(byOid).toMatchObject({ status: 'order', order: { order: { oid: who.oid } } });
    const byCloid = await info.orderStatus({ user: user(who.cloidUser), oid: who.cloid as `0x${string}` });
    expect(byCloid).toMatchObject({ status: 'order', order: { order: { cloid: who.cloid } } });
    expect(await info.orderStatus({ user: user(who.cloidUser), oid: 1 })).toEqual({ status: 'unknownOid' });
  });

  it('relays the node state of a user', async () => {
    expectInfoShape('openOrders', await info.openOrders({ user: user(who.maker) }));
    expectInfoShape('frontendOpenOrders', await info.frontendOpenOrders({ user: user(who.maker) }));
    expectInfoShape('clearinghouseState', await info.clearinghouseState({ user: user(who.trader) }));
    expectInfoShape('spotClearinghouseState', await info.spotClearinghouseState({ user: user(who.trader) }));
  });

  it('answers userFunding (with its documented additions) and userNonFundingLedgerUpdates', async () => {
    const funding = await info.userFunding({ user: user(who.funded), startTime: 0 });
    expectInfoShape('userFunding', funding);
    expect(funding.length).toBeGreaterThan(0);
    // The spec's top-level fields beside the exchange's delta: the SDK parses the answer all the same.
    expect(funding[0]).toMatchObject({ coin: funding[0]?.delta.coin, usdc: funding[0]?.delta.usdc });
    expectInfoShape('userFunding', await info.userFunding({ user: user(who.funded), startTime: null, endTime: null }));
    const ledger = await info.userNonFundingLedgerUpdates({ user: user(who.ledger), startTime: 0 });
    expectInfoShape('userNonFundingLedgerUpdates', ledger);
    expect(ledger.length).toBeGreaterThan(0);
  });

  it('answers borrowLendUserState', async () => {
    expectInfoShape('borrowLendUserState', await info.borrowLendUserState({ user: user(who.trader) }));
  });

  it('answers orderStatus by an oid the SDK sends as a decimal string', async () => {
    // The SDK takes a string oid and sends it as a number; a raw string is taken as well (see client-forms.test).
    const r = await info.orderStatus({ user: user(who.cloidUser), oid: String(who.oid) as unknown as number });
    expect(r).toMatchObject({ status: 'order', order: { order: { oid: who.oid } } });
  });
});

/** The node's TWAP status events of `user` written before `beforeMs`, as the simulator wrote its files. */
async function twapLines(user: string, beforeMs: number): Promise<Record<string, unknown>[]> {
  // In time order (hour 9 before hour 10: not the names' text order).
  const files = listHourlyFiles(path.join(stack.dataDir, 'node_twap_statuses_by_block'));
  const events: Record<string, unknown>[] = [];
  for (const file of files) {
    for (const line of (await fs.readFile(file, 'utf8')).split('\n')) {
      if (!line) continue;
      for (const e of (JSON.parse(line) as { events: Record<string, unknown>[] }).events) {
        const state = e.state as { user: string };
        // Node times are UTC without a zone, to the nanosecond.
        const ms = Date.parse(`${String(e.time).slice(0, 23)}Z`);
        if (state.user.toLowerCase() === user && ms < beforeMs) events.push({ ...e, ms });
      }
    }
  }
  return events;
}

describe("TWAP history and the node's other user types through the SDK", () => {
  it('answers twapHistory from the index: each record what the node line says, time in seconds', async () => {
    // A whole second a minute ago: every line before it is ingested, and seconds compare exactly.
    const before = Math.floor((Date.now() - 60_000) / 1000) * 1000;
    const history = await info.twapHistory({ user: user(who.twapper) });
    expectInfoShape('twapHistory', history);
    const lines = await twapLines(who.twapper, before);
    expect(lines.length).toBeGreaterThan(0);
    const answered = history.filter((h) => h.time * 1000 < before);
    expect(answered.map((h) => [h.twapId, h.time, h.state, h.status])).toEqual(
      lines.map((e) => {
        const s = e.state as Record<string, unknown>;
        const status = e.status as string | { error: string };
        return [
          e.twap_id,
          Math.floor((e.ms as number) / 1000),
          { ...s, user: who.twapper, stopPx: null, trigger: null },
          typeof status === 'string' ? { status } : { status: 'error', description: status.error },
        ];
      }),
    );
  });

  it('relays userFees, subAccounts, delegations and vaultSummaries from the node', async () => {
    const fees = await info.userFees({ user: user(who.trader) });
    expectInfoShape('userFees', fees);
    expect(fees.userCrossRate).toMatch(/^0\.\d+$/);
    expectInfoShape('subAccounts', await info.subAccounts({ user: user(who.trader) }));
    expectInfoShape('delegations', await info.delegations({ user: user(who.trader) }));
    const vaults = await info.vaultSummaries();
    expectInfoShape('vaultSummaries', vaults);
    expect(vaults.length).toBeGreaterThan(0);
  });
});

describe('/ws accounts channels through the SDK', () => {
  it('snapshots userFills from storage, marked isSnapshot', async () => {
    const e = await firstEvent<{ user: string; fills: unknown[]; isSnapshot?: true }>((l) =>
      subs.userFills({ user: user(who.trader) }, l),
    );
    expectEventShape('userFills', e);
    expect(e).toMatchObject({ user: who.trader, isSnapshot: true });
    expect(e.fills.length).toBeGreaterThan(0);
  });

  it('snapshots userFundings and userNonFundingLedgerUpdates', async () => {
    const f = await firstEvent<{ fundings: unknown[]; isSnapshot?: true }>((l) =>
      subs.userFundings({ user: user(who.funded) }, l),
    );
    expectEventShape('userFundings', f);
    expect(f.isSnapshot).toBe(true);
    expect(f.fundings.length).toBeGreaterThan(0);
    const l = await firstEvent<{ isSnapshot?: true }>((cb) =>
      subs.userNonFundingLedgerUpdates({ user: user(who.ledger) }, cb),
    );
    expectEventShape('userNonFundingLedgerUpdates', l);
    expect(l.isSnapshot).toBe(true);
  });

  it('delivers userEvents and orderUpdates live', async () => {
    const update = await firstEvent((l) => subs.orderUpdates({ user: user(who.maker) }, l));
    expectEventShape('orderUpdates', update);
    const event = await firstEvent((l) => subs.userEvents({ user: user(who.maker) }, l));
    expectEventShape('userEvents', event);
  });
});
