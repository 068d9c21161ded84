// The /ws accounts channels over a running stack (domains/accounts/compat/compat.test.ts's): each channel's
// snapshot, then the live events the bus carries, and what a client that subscribes while events flow gets
// (nothing missed, nothing twice).
import { describe, expect, it } from 'vitest';
import { parseFill } from '../ingest/formats/fills.ts';
import { nodeFill } from './node-files.ts';
import type { FrozenTestStack } from './stack.ts';
import { openSocket } from './ws-client.ts';

export function describeWsChannels(stackOf: () => FrozenTestStack): void {
  describe('/ws accounts channels', () => {
    /** Waits until `check` holds, polling. */
    async function until(check: () => boolean) {
      while (!check()) await new Promise((r) => setTimeout(r, 5));
    }

    /**
     * Subscribes to `channel` while its table is locked, so that its snapshot waits; meanwhile publishes the stored
     * events (committed with the lock, so the snapshot holds them too) and one that is not stored. Returns the
     * snapshot's and the live frame's data.
     */
    async function raceTheSnapshot<R>(opts: {
      channel: 'userFundings' | 'userNonFundingLedgerUpdates' | 'userFills';
      table: string;
      topic: 'fundingPayments' | 'ledgerUpdates' | 'fills';
      user: string;
      subscription?: Record<string, unknown>;
      insert: string;
      stored: R | R[];
      live: R;
    }) {
      const ws = await openSocket(stackOf().urls.ws);
      const client = await stackOf().db.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`LOCK TABLE ${opts.table} IN ACCESS EXCLUSIVE MODE`);
        await client.query(opts.insert);
        const before = stackOf().bus.listeners(opts.topic);
        ws.send({ method: 'subscribe', subscription: { type: opts.channel, user: opts.user, ...opts.subscription } });
        await until(() => stackOf().bus.listeners(opts.topic) > before);
        stackOf().bus.publish(opts.topic, [opts.stored, opts.live].flat() as never[]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const frames = [await ws.next(), await ws.next(), await ws.next()] as { channel: string; data: never }[];
      await new Promise((r) => setTimeout(r, 300));
      expect(ws.unread()).toBe(0);
      ws.close();
      expect(frames[0]?.channel).toBe('subscriptionResponse');
      return frames.slice(1).map((f) => f.data as Record<string, unknown>);
    }

    it('sends userFundings events that arrive during the snapshot after it, each once', async () => {
      const user = `0x${'f1'.repeat(20)}`;
      const time = Date.now();
      const row = (coin: string, t: number) => ({
        block_number: 0,
        time: t,
        address: user,
        coin,
        usdc: '1.5',
        szi: '2.0',
        funding_rate: '0.0001',
      });
      const [snapshot, live] = await raceTheSnapshot({
        channel: 'userFundings',
        table: 'accounts.funding_payments',
        topic: 'fundingPayments',
        user,
        insert: `INSERT INTO accounts.funding_payments VALUES (0, ${time}, '${user}', 'BTC', 1.5, 2.0, 0.0001)`,
        stored: row('BTC', time),
        live: row('ETH', time + 1),
      });
      const item = (coin: string, t: number) => ({
        time: t,
        coin,
        usdc: '1.5',
        szi: '2.0',
        fundingRate: '0.0001',
        nSamples: null,
      });
      expect(snapshot).toEqual({ user, fundings: [item('BTC', time)], isSnapshot: true });
      expect(live).toEqual({ user, fundings: [item('ETH', time + 1)] });
    });

    it('sends ledger updates that arrive during the snapshot after it, each once', async () => {
      const user = `0x${'f2'.repeat(20)}`;
      const time = Date.now();
      // jsonb gives the stored delta back with its keys in another order than the live one.
      const delta = { type: 'deposit', usdc: '7.0', nonce: 5 };
      const row = (t: number, hash: string) => ({
        block_number: 0,
        time: t,
        hash,
        address: user,
        delta_type: 'deposit',
        delta,
      });
      const [snapshot, live] = await raceTheSnapshot({
        channel: 'userNonFundingLedgerUpdates',
        table: 'accounts.ledger_updates',
        topic: 'ledgerUpdates',
        user,
        insert: `INSERT INTO accounts.ledger_updates VALUES (0, ${time}, '0xaa', '${user}', 'deposit', '${JSON.stringify(delta)}')`,
        stored: row(time, '0xaa'),
        live: row(time + 1, '0xbb'),
      });
      expect(snapshot).toEqual({ user, nonFundingLedgerUpdates: [{ time, hash: '0xaa', delta }], isSnapshot: true });
      expect(live).toEqual({ user, nonFundingLedgerUpdates: [{ time: time + 1, hash: '0xbb', delta }] });
    });

    it('sends aggregated userFills that arrive during the snapshot after it, the merged parts once', async () => {
      const user = `0x${'f5'.repeat(20)}`;
      const time = Date.now();
      // Two parts of one crossing order (same oid, time and hash), stored; and a later fill, not stored.
      const part = (tid: number, sz: string, startPosition: string, oid = 77, t = time) =>
        parseFill(
          [user, nodeFill({ tid, sz, startPosition, oid, time: t, hash: `0x${'d'.repeat(64)}`, fee: '0.5' })],
          0,
          tid - 500,
        );
      const parts = [part(501, '0.1', '0.0'), part(502, '0.2', '0.1')];
      const [snapshot, live] = await raceTheSnapshot({
        channel: 'userFills',
        table: 'accounts.fills',
        topic: 'fills',
        user,
        subscription: { aggregateByTime: true },
        insert: `INSERT INTO accounts.fills SELECT * FROM json_populate_recordset(NULL::accounts.fills, '${JSON.stringify(parts)}')`,
        stored: parts,
        live: part(503, '0.3', '0.3', 78, time + 1),
      });
      expect(snapshot).toMatchObject({ user, isSnapshot: true, fills: [{ oid: 77, sz: '0.3', tid: 501 }] });
      expect(live).toEqual({ user, fills: [expect.objectContaining({ oid: 78, sz: '0.3', tid: 503 })] });
      await stackOf().db.pool.query('DELETE FROM accounts.fills WHERE address = $1', [user]);
    });

    it('snapshots the 100 most recent payments and ledger entries, oldest first (spec §8)', async () => {
      const user = `0x${'f3'.repeat(20)}`;
      const t0 = Date.now() - 200_000;
      await stackOf().db.pool.query(
        `INSERT INTO accounts.funding_payments
       SELECT 0, $2::bigint + i * 1000, $1, 'BTC', i, 1.0, 0.0001 FROM generate_series(1, 105) i`,
        [user, t0],
      );
      await stackOf().db.pool.query(
        `INSERT INTO accounts.ledger_updates
       SELECT 0, $2::bigint + i * 1000, '0x' || i, $1, 'deposit', jsonb_build_object('type', 'deposit', 'usdc', i::text)
       FROM generate_series(1, 105) i`,
        [user, t0],
      );
      try {
        const ws = await openSocket(stackOf().urls.ws);
        ws.send({ method: 'subscribe', subscription: { type: 'userFundings', user } });
        expect(await ws.next()).toMatchObject({ channel: 'subscriptionResponse' });
        const fundings = ((await ws.next()) as { data: { fundings: { time: number }[]; isSnapshot: boolean } }).data;
        expect(fundings.isSnapshot).toBe(true);
        expect(fundings.fundings.map((f) => f.time)).toEqual(
          Array.from({ length: 100 }, (_, i) => t0 + (i + 6) * 1000),
        );
        ws.send({ method: 'subscribe', subscription: { type: 'userNonFundingLedgerUpdates', user } });
        expect(await ws.next()).toMatchObject({ channel: 'subscriptionResponse' });
        const ledger = ((await ws.next()) as { data: { nonFundingLedgerUpdates: { hash: string }[] } }).data;
        expect(ledger.nonFundingLedgerUpdates.map((u) => u.hash)).toEqual(
          Array.from({ length: 100 }, (_, i) => `0x${i + 6}`),
        );
        ws.close();
      } finally {
        await stackOf().db.pool.query('DELETE FROM accounts.funding_payments WHERE address = $1', [user]);
        await stackOf().db.pool.query('DELETE FROM accounts.ledger_updates WHERE address = $1', [user]);
      }
    });

    it('sends each funding payment of a settlement as its own userEvents frame', async () => {
      const user = `0x${'f4'.repeat(20)}`;
      const ws = await openSocket(stackOf().urls.ws);
      ws.send({ method: 'subscribe', subscription: { type: 'userEvents', user } });
      expect(await ws.next()).toMatchObject({ channel: 'subscriptionResponse' });
      const time = Date.now();
      const payment = (coin: string, usdc: string) => ({
        block_number: 0,
        time,
        address: user,
        coin,
        usdc,
        szi: '1.0',
        funding_rate: '0.0001',
      });
      stackOf().bus.publish('fundingPayments', [payment('BTC', '-1.5'), payment('ETH', '0.25')] as never[]);
      const frames = [await ws.next(), await ws.next()];
      expect(frames).toEqual([
        {
          channel: 'user',
          data: { funding: { time, coin: 'BTC', usdc: '-1.5', szi: '1.0', fundingRate: '0.0001', nSamples: null } },
        },
        {
          channel: 'user',
          data: { funding: { time, coin: 'ETH', usdc: '0.25', szi: '1.0', fundingRate: '0.0001', nSamples: null } },
        },
      ]);
      ws.close();
    });

    it('takes up to 50 addresses in liquidations users, and refuses 51', async () => {
      const ws = await openSocket(stackOf().urls.ws);
      const users = (n: number) => Array.from({ length: n }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
      ws.send({ method: 'subscribe', subscription: { type: 'liquidations', users: users(50) } });
      expect(await ws.next()).toMatchObject({ channel: 'subscriptionResponse' });
      ws.send({ method: 'subscribe', subscription: { type: 'liquidations', users: users(51) } });
      expect(await ws.next()).toMatchObject({ channel: 'error', data: expect.stringContaining('at most 50') });
      ws.send({ method: 'subscribe', subscription: { type: 'liquidations', users: ['0x12'] } });
      expect(await ws.next()).toMatchObject({ channel: 'error', data: expect.stringContaining('users[0]') });
      ws.close();
    });

    it('gives a liquidation the same lid (its trade id) on every subscription, with the ledger account value', async () => {
      const victim = `0x${'a1'.repeat(20)}`;
      const liquidator = `0x${'b2'.repeat(20)}`;
      const ws = await openSocket(stackOf().urls.ws);
      const subscriptions = [
        { type: 'liquidations' },
        { type: 'liquidations', users: [victim], amount_dollars: '1000.5' },
        { type: 'userEvents', user: liquidator },
      ];
      for (const subscription of subscriptions) {
        ws.send({ method: 'subscribe', subscription });
        expect(await ws.next()).toMatchObject({ channel: 'subscriptionResponse' });
      }
      const row = (tid: number, notional: string) => ({
        block_number: 0,
        time: Date.now(),
        hash: `0x${'c'.repeat(64)}`,
        tid,
        coin: 'BTC',
        liquidated_user: victim,
        liquidator,
        side: 'B',
        px: '1.0',
        sz: notional,
        notional,
        mark_px: '1.0',
        method: 'market',
        builder: null,
      });
      stackOf().bus.publish('liquidations', [row(424242, '5000.0'), row(424243, '1000.0')] as never[]);
      // The ledger's update of the same transaction, read by ingest from another stream, may come after the fills.
      const update = { type: 'liquidation', liquidatedNtlPos: '6000.0', accountValue: '12.5', leverageType: 'Cross' };
      stackOf().bus.publish('ledgerUpdates', [
        {
          block_number: 0,
          time: 0,
          hash: `0x${'c'.repeat(64)}`,
          address: victim,
          delta_type: 'liquidation',
          delta: update,
        },
      ] as never[]);
      const frames = (await Promise.all([ws.next(), ws.next(), ws.next()])) as { channel: string; data: unknown }[];
      const lids = (data: unknown) =>
        (Array.isArray(data) ? data : [(data as { liquidation: unknown }).liquidation]).map(
          (l: { lid: number }) => l.lid,
        );
      expect(frames.map((f) => [f.channel, lids(f.data)])).toEqual([
        ['liquidations', [424242, 424243]],
        ['liquidations', [424242]],
        ['user', [424242]],
      ]);
      expect((frames[2]?.data as { liquidation: unknown }).liquidation).toEqual({
        lid: 424242,
        liquidator,
        liquidated_user: victim,
        liquidated_ntl_pos: '5000.0',
        liquidated_account_value: '12.5',
      });
      ws.close();
    });
  });
}
