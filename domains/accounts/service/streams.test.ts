// The accounts streams' rules, held once where they live: whose rows a per-user stream carries, what a userEvents
// event holds (fills per block, one event per payment and liquidation, the exchange's cancels only), and
// aggregateByTime on live fills. Live only: the snapshots are storage reads tested with the /ws join.

import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { FillRow, FundingPaymentRow, LiquidationRow, OrderStatusRow } from '../../../db/rows/accounts.ts';
import { InProcessBus } from '../../../events/bus.ts';
import type { LiveStream } from '../../../kit/live.ts';
import { type Address, addressValue } from '../../../platform/fields.ts';
import { AccountStreams, type UserEvent } from './streams.ts';

const ALICE = `0x${'a'.repeat(40)}` as Address;
const BOB = `0x${'b'.repeat(40)}` as Address;

const fill = (address: string, tid: number, more: Partial<FillRow> = {}) =>
  ({
    block_number: 1,
    address,
    coin: 'BTC',
    px: '100.0',
    sz: '1.0',
    side: 'B',
    time: 1_000,
    start_position: '0.0',
    dir: 'Open Long',
    closed_pnl: '0.0',
    hash: '0x1',
    oid: tid,
    crossed: true,
    fee: '0.1',
    tid,
    fee_token: 'USDC',
    cloid: null,
    twap_id: null,
    builder: null,
    builder_fee: null,
    liquidated_user: null,
    liquidation_mark_px: null,
    liquidation_method: null,
    ...more,
  }) as FillRow;

const payment = (address: string, coin: string): FundingPaymentRow => ({
  block_number: 1,
  time: 3_600_000,
  address,
  coin,
  usdc: '-0.5',
  szi: '1.0',
  funding_rate: '0.0001',
});

const status = (address: string, oid: number, s: string) =>
  ({ address, oid, coin: 'ETH', status: s }) as OrderStatusRow;

const liquidation = (liquidated_user: string, liquidator: string, tid: number) =>
  ({ tid, coin: 'ETH', liquidated_user, liquidator, notional: '1500.0', account_value: '12.5' }) as LiquidationRow;

function setup() {
  const bus = new InProcessBus();
  return { bus, streams: new AccountStreams(bus, {} as pg.Pool) };
}

function collect<T>(stream: LiveStream<T>): { events: T[]; stop: () => void } {
  const events: T[] = [];
  return { events, stop: stream.subscribe((e) => events.push(e)) };
}

describe('userEvents', () => {
  it("composes the user's fills, payments, liquidations and the exchange's cancels, in publication order", () => {
    const { bus, streams } = setup();
    // A checksummed address is the same user.
    const { events } = collect<UserEvent>(
      streams.userEvents(addressValue(ALICE.toUpperCase().replace('0X', '0x'), 'user')),
    );
    bus.publish('fills', [fill(ALICE, 1), fill(BOB, 2), fill(ALICE, 3)]);
    bus.publish('fundingPayments', [payment(ALICE, 'BTC'), payment(BOB, 'BTC'), payment(ALICE, 'ETH')]);
    bus.publish('liquidations', [liquidation(BOB, ALICE, 7), liquidation(BOB, BOB, 8), liquidation(ALICE, BOB, 9)]);
    bus.publish('orderStatuses', [
      status(ALICE, 10, 'canceled'),
      status(ALICE, 11, 'marginCanceled'),
      status(ALICE, 12, 'filled'),
      status(BOB, 13, 'selfTradeCanceled'),
      status(ALICE, 14, 'liquidatedCanceled'),
    ]);
    bus.publish('fills', [fill(BOB, 20)]);
    bus.publish('orderStatuses', [status(ALICE, 21, 'open')]);
    expect(events.map((e) => Object.keys(e))).toEqual([
      ['fills'],
      ['funding'],
      ['funding'],
      ['liquidation'],
      ['liquidation'],
      ['nonUserCancel'],
    ]);
    expect(events[0]?.fills?.map((f) => f.tid)).toEqual([1, 3]);
    expect(events[1]?.funding).toEqual({
      time: 3_600_000,
      coin: 'BTC',
      usdc: '-0.5',
      szi: '1.0',
      fundingRate: '0.0001',
      nSamples: null,
    });
    expect(events[2]?.funding?.coin).toBe('ETH');
    expect(events[3]?.liquidation).toEqual({
      lid: 7,
      liquidator: ALICE,
      liquidated_user: BOB,
      liquidated_ntl_pos: '1500.0',
      liquidated_account_value: '12.5',
    });
    expect(events[4]?.liquidation?.lid).toBe(9);
    expect(events[5]?.nonUserCancel).toEqual([
      { coin: 'ETH', oid: 11, status: 'marginCanceled' },
      { coin: 'ETH', oid: 14, status: 'liquidatedCanceled' },
    ]);
  });

  it('stops at unsubscribe, on every topic', () => {
    const { bus, streams } = setup();
    const { events, stop } = collect(streams.userEvents(ALICE));
    stop();
    bus.publish('fills', [fill(ALICE, 1)]);
    bus.publish('fundingPayments', [payment(ALICE, 'BTC')]);
    bus.publish('liquidations', [liquidation(ALICE, BOB, 2)]);
    bus.publish('orderStatuses', [status(ALICE, 3, 'marginCanceled')]);
    expect(events).toEqual([]);
    for (const topic of ['fills', 'fundingPayments', 'liquidations', 'orderStatuses'] as const) {
      expect(bus.listeners(topic)).toBe(0);
    }
  });
});

describe('per-user batches', () => {
  it("carry the user's rows of each block only, and nothing for a block without any", () => {
    const { bus, streams } = setup();
    const { events } = collect(streams.orderUpdates(ALICE));
    bus.publish('orderStatuses', [status(BOB, 1, 'open')]);
    bus.publish('orderStatuses', [status(ALICE, 2, 'open'), status(BOB, 3, 'open'), status(ALICE, 4, 'filled')]);
    expect(events.map((batch) => batch.map((r) => r.oid))).toEqual([[2, 4]]);
  });

  it('merge the parts of a crossing order with aggregateByTime, and key them by order and time', () => {
    const { bus, streams } = setup();
    const aggregated = streams.userFills(ALICE, { aggregateByTime: true });
    const plain = streams.userFills(ALICE);
    const merged = collect(aggregated);
    const parts = collect(plain);
    bus.publish('fills', [fill(ALICE, 1, { oid: 5 }), fill(ALICE, 2, { oid: 5 }), fill(ALICE, 3, { oid: 6 })]);
    expect(merged.events[0]?.map((f) => [f.oid, f.sz])).toEqual([
      [5, '2.0'],
      [6, '1.0'],
    ]);
    expect(parts.events[0]?.map((f) => f.tid)).toEqual([1, 2, 3]);
    const first = merged.events[0]?.[0];
    expect(first && aggregated.key(first)).toBe('5 1000');
    expect(first && plain.key(first)).toBe('1 5');
  });

  // The filter's limits are LIQUIDATION_STREAM's (inputs.test.ts), checked before the stream is asked.
  it('liquidations: every given filter applies', () => {
    const { bus, streams } = setup();
    const { events } = collect(streams.liquidations({ user: BOB, amountDollars: '1000' }));
    bus.publish('liquidations', [liquidation(ALICE, BOB, 1), liquidation(ALICE, ALICE, 2)]);
    expect(events.map((batch) => batch.map((r) => r.tid))).toEqual([[1]]);
  });
});
