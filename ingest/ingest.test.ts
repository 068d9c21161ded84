// Each node file format parses into the right rows, against real Postgres; rewinds, malformed and partial lines.
import fs from 'node:fs/promises';
import { compressFrameSync } from 'lz4-napi';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BusGap, InProcessBus, type Topics } from '../events/bus.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import {
  addr,
  appendBlocks,
  appendRaw,
  block,
  hash,
  nodeFill,
  nodeOrder,
  T0,
  tempDataDir,
} from '../test/node-files.ts';
import type {
  FillEvent,
  MiscEvent,
  NodeFill,
  NodeOrder,
  OrderStatusEvent,
  StreamName,
  TwapStatusEvent,
} from '../wire/node-lines.ts';
import { ZERO_HASH } from '../wire/node-lines.ts';
import { hourlyPath, isoNs } from './files.ts';
import { Ingest } from './pipeline.ts';

let db: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  dataDir = await tempDataDir();
  await db.pool.query(`TRUNCATE accounts.fills, accounts.order_statuses, accounts.twap_statuses,
    accounts.funding_payments, accounts.ledger_updates, accounts.liquidations, markets.trades, hip4.fills,
    evm.ledger_transfers, platform.ingest_checkpoints, platform.ingest_errors`);
});

async function ingestOnce(streams?: StreamName[], bus = new InProcessBus()) {
  const ingest = new Ingest({ dataDir, pool: db.pool, bus, streams, log: () => {} });
  await ingest.run();
  return ingest;
}

const ALICE = addr(0xa1);
const BOB = addr(0xb2);
const CAROL = addr(0xc3);
const BUILDER = addr(0xb111d);

const fill = (over: Partial<NodeFill>): NodeFill =>
  nodeFill({ sz: '0.01', time: T0 + 100, hash: hash(0x22), oid: 700001, fee: '0.405', tid: 123456789012345, ...over });

const order = (over: Partial<NodeOrder>): NodeOrder =>
  nodeOrder({ coin: 'ETH', side: 'A', limitPx: '2800.0', oid: 800002, ...over });

describe('node_fills_by_block', () => {
  it('loads every field of both sides, pairs them into one trade and publishes both', async () => {
    const events: FillEvent[] = [
      [ALICE, fill({ cloid: '0x0000000000000000000000000000beef' })],
      [
        BOB,
        fill({
          side: 'A',
          crossed: false,
          oid: 699999,
          startPosition: '0.5',
          dir: 'Close Long',
          closedPnl: '12.3',
          fee: '-0.009',
          builder: BUILDER.toUpperCase().replace('0X', '0x'),
          builderFee: '0.001',
          deployerFee: '0.0002',
          priorityGas: '0.5',
        }),
      ],
    ];
    await appendBlocks(dataDir, 'node_fills_by_block', [block(1000, T0 + 100, events)]);
    const bus = new InProcessBus();
    const seen: Topics['trades'][] = [];
    bus.subscribe('trades', (items) => seen.push(...items));
    await ingestOnce(['node_fills_by_block'], bus);

    const { rows } = await db.pool.query('SELECT * FROM accounts.fills ORDER BY address');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      block_number: 1000,
      address: ALICE,
      coin: 'BTC',
      px: '90000.0',
      sz: '0.01',
      side: 'B',
      time: T0 + 100,
      start_position: '0.0',
      dir: 'Open Long',
      closed_pnl: '0.0',
      hash: hash(0x22),
      oid: 700001,
      crossed: true,
      fee: '0.405',
      tid: 123456789012345,
      fee_token: 'USDC',
      cloid: '0x0000000000000000000000000000beef',
      twap_id: null,
      builder: null,
      liquidated_user: null,
      event_index: 0,
    });
    expect(rows[1]).toMatchObject({
      address: BOB,
      event_index: 1,
      side: 'A',
      crossed: false,
      fee: '-0.009',
      builder: BUILDER,
      builder_fee: '0.001',
      deployer_fee: '0.0002',
      priority_gas: '0.5',
      closed_pnl: '12.3',
    });
    const trades = await db.pool.query('SELECT * FROM markets.trades');
    expect(trades.rows).toEqual([
      {
        block_number: 1000,
        seq: 0,
        time: T0 + 100,
        coin: 'BTC',
        side: 'B',
        px: '90000.0',
        sz: '0.01',
        hash: hash(0x22),
        tid: 123456789012345,
        buyer: ALICE,
        seller: BOB,
        fees: '0.396',
      },
    ]);
    expect(seen).toHaveLength(1);
  });

  it('keeps TWAP slice fills: zero hash on both sides, twapId on the owner side only', async () => {
    await appendBlocks(dataDir, 'node_fills_by_block', [
      block(1001, T0 + 200, [
        [ALICE, fill({ hash: ZERO_HASH, twapId: 5555, tid: 42 })],
        [BOB, fill({ hash: ZERO_HASH, side: 'A', crossed: false, tid: 42, oid: 9 })],
      ] satisfies FillEvent[]),
    ]);
    await ingestOnce(['node_fills_by_block']);
    const { rows } = await db.pool.query('SELECT address, hash, twap_id FROM accounts.fills ORDER BY address');
    expect(rows).toEqual([
      { address: ALICE, hash: ZERO_HASH, twap_id: 5555 },
      { address: BOB, hash: ZERO_HASH, twap_id: null },
    ]);
  });

  it('records a liquidation from the liquidator side, with its notional', async () => {
    const liquidation = { liquidatedUser: CAROL, markPx: '2990.5', method: 'market' as const };
    await appendBlocks(dataDir, 'node_fills_by_block', [
      block(1002, T0 + 300, [
        [
          CAROL,
          fill({
            coin: 'ETH',
            px: '2990.0',
            sz: '0.5',
            side: 'A',
            dir: 'Liquidated Isolated Long',
            liquidation,
            tid: 7,
          }),
        ],
        [BOB, fill({ coin: 'ETH', px: '2990.0', sz: '0.5', side: 'B', crossed: false, liquidation, tid: 7, oid: 3 })],
      ] satisfies FillEvent[]),
    ]);
    await ingestOnce(['node_fills_by_block']);
    const fills = await db.pool.query(
      'SELECT address, liquidated_user, liquidation_mark_px, liquidation_method FROM accounts.fills ORDER BY address',
    );
    expect(fills.rows).toEqual([
      { address: BOB, liquidated_user: CAROL, liquidation_mark_px: '2990.5', liquidation_method: 'market' },
      { address: CAROL, liquidated_user: CAROL, liquidation_mark_px: '2990.5', liquidation_method: 'market' },
    ]);
    const liq = await db.pool.query('SELECT liquidated_user, liquidator, notional, method FROM accounts.liquidations');
    expect(liq.rows).toEqual([{ liquidated_user: CAROL, liquidator: BOB, notional: '1495.00', method: 'market' }]);
  });

  it('copies outcome-coin fills into hip4.fills', async () => {
    await appendBlocks(dataDir, 'node_fills_by_block', [
      block(1003, T0 + 400, [[ALICE, fill({ coin: '#2901', px: '0.615', sz: '100', feeToken: 'USDH' })]]),
    ]);
    await ingestOnce(['node_fills_by_block']);
    const { rows } = await db.pool.query('SELECT coin, outcome_id, side_index, px FROM hip4.fills');
    expect(rows).toEqual([{ coin: '#2901', outcome_id: 290, side_index: 1, px: '0.615' }]);
  });
});

describe('a bus that keeps only recent events', () => {
  it('is given no backfill: older blocks are loaded, not published, and the gap is told before the next event', async () => {
    const now = Date.now();
    const old = now - 2 * 3_600_000;
    const oldFill = fill({ time: old, tid: 1 });
    const newFill = fill({ time: now - 1000, tid: 2, hash: hash(0x33) });
    await appendBlocks(dataDir, 'node_fills_by_block', [block(1000, old, [[ALICE, oldFill]])]);
    // A bus keeping one hour, as the JetStream bus says of itself (keepsMs).
    const bus = Object.assign(new InProcessBus(), { keepsMs: 3_600_000 });
    const published: (number | string)[] = [];
    bus.subscribe('fills', (items) => published.push(...items.map((f) => f.tid)));
    bus.subscribe('gaps', (gaps) => published.push(...gaps.map((g) => `gap ${g.topics.sort().join(',')} ${g.from}`)));
    await ingestOnce(['node_fills_by_block'], bus);
    await appendBlocks(dataDir, 'node_fills_by_block', [block(1001, now - 1000, [[ALICE, newFill]])]);
    await ingestOnce(['node_fills_by_block'], bus);
    const { rows } = await db.pool.query('SELECT tid FROM accounts.fills ORDER BY tid');
    expect(rows.map((r) => Number(r.tid))).toEqual([1, 2]);
    // The subscribers are told, before the first event after it, which topics had events they did not get.
    expect(published).toEqual([`gap fills,trades ${old}`, 2]);
  });
});

describe('a backfill lane resumed after a restart', () => {
  it("tells a gap from its first file, so what its runs before loaded is refilled even if their gap's was cut short", async () => {
    const h9 = Date.UTC(2026, 10, 22, 9);
    const h10 = Date.UTC(2026, 10, 22, 10);
    const run = async (): Promise<BusGap[]> => {
      const bus = new InProcessBus();
      const gaps: BusGap[] = [];
      bus.subscribe('gaps', (told) => gaps.push(...told));
      await new Ingest({
        dataDir,
        pool: db.pool,
        bus,
        streams: ['node_fills_by_block'],
        lane: 'resumed',
        log: () => {},
      }).run();
      return gaps;
    };
    await appendBlocks(dataDir, 'node_fills_by_block', [
      block(900, h9 + 5_000, [[ALICE, fill({ time: h9 + 5_000, tid: 9 })]]),
    ]);
    expect((await run()).map((g) => [g.from, g.until])).toEqual([[h9 + 5_000, h9 + 5_000]]);
    // The process stopped before its subscribers refilled that gap; the next run loads the next hour.
    await appendBlocks(dataDir, 'node_fills_by_block', [
      block(901, h10 + 5_000, [[ALICE, fill({ time: h10 + 5_000, tid: 10 })]]),
    ]);
    expect(await run()).toEqual([
      { stream: 'resumed/node_fills_by_block', topics: ['fills', 'trades'], from: h9, until: h10 + 5_000 },
    ]);
    // A run that loads nothing tells nothing.
    expect(await run()).toEqual([]);

    // Following: its first gap starts at its first file, a later one at its own rows.
    const h11 = Date.UTC(2026, 10, 22, 11);
    await appendBlocks(dataDir, 'node_fills_by_block', [
      block(902, h11 + 5_000, [[ALICE, fill({ time: h11 + 5_000, tid: 11 })]]),
    ]);
    const bus = new InProcessBus();
    const gaps: BusGap[] = [];
    bus.subscribe('gaps', (told) => gaps.push(...told));
    const following = new Ingest({
      dataDir,
      pool: db.pool,
      bus,
      streams: ['node_fills_by_block'],
      lane: 'resumed',
      follow: true,
      pollMs: 25,
      log: () => {},
    });
    const running = following.run();
    try {
      const told = async (n: number) => {
        for (const until = Date.now() + 10_000; gaps.length < n && Date.now() < until; ) {
          await new Promise((r) => setTimeout(r, 25));
        }
      };
      await told(1);
      await appendBlocks(dataDir, 'node_fills_by_block', [
        block(903, h11 + 9_000, [[ALICE, fill({ time: h11 + 9_000, tid: 12 })]]),
      ]);
      await told(2);
      expect(gaps.map((g) => [g.from, g.until])).toEqual([
        [h9, h11 + 5_000],
        [h11 + 9_000, h11 + 9_000],
      ]);
    } finally {
      await following.stop();
      await running;
    }
  });
});

describe('node_order_statuses_by_block', () => {
  it("keeps a stop order's open, triggered and filled rows", async () => {
    const stop = order({
      isTrigger: true,
      tif: null,
      triggerCondition: 'Price below 2850',
      triggerPx: '2850.0',
      orderType: 'Stop Market',
      reduceOnly: true,
      cloid: '0x000000000000000000000000000000aa',
    });
    const status = (time: number, s: string, o: NodeOrder): OrderStatusEvent => ({
      time: isoNs(time, 123456),
      user: ALICE,
      hash: s === 'open' ? hash(0x33) : null,
      builder: s === 'open' ? { b: BUILDER, f: 10 } : null,
      status: s,
      order: o,
    });
    await appendBlocks(dataDir, 'node_order_statuses_by_block', [
      block(2000, T0, [status(T0, 'open', stop)]),
      block(2001, T0 + 60_000, [status(T0 + 60_000, 'triggered', stop)]),
      block(2002, T0 + 60_001, [
        status(T0 + 60_001, 'filled', {
          ...stop,
          sz: '0.0',
          triggerPx: '0.0',
          timestamp: T0 + 60_000,
          triggerCondition: 'Triggered',
        }),
      ]),
    ]);
    await ingestOnce(['node_order_statuses_by_block']);
    const { rows } = await db.pool.query(
      `SELECT time, status, oid, cloid, trigger_px, trigger_condition, is_trigger, order_time, tif, builder, builder_fee, sz
       FROM accounts.order_statuses ORDER BY time`,
    );
    expect(rows).toEqual([
      {
        time: T0,
        status: 'open',
        oid: 800002,
        cloid: '0x000000000000000000000000000000aa',
        trigger_px: '2850.0',
        trigger_condition: 'Price below 2850',
        is_trigger: true,
        order_time: T0,
        tif: null,
        builder: BUILDER,
        builder_fee: 10,
        sz: '1.0',
      },
      expect.objectContaining({ time: T0 + 60_000, status: 'triggered', trigger_px: '2850.0' }),
      expect.objectContaining({ time: T0 + 60_001, status: 'filled', trigger_px: '0.0', order_time: T0 + 60_000 }),
    ]);
  });

  it('stores TP/SL children as JSON', async () => {
    const child = order({ oid: 11, isTrigger: true, tif: null, orderType: 'Take Profit Market', triggerPx: '3100.0' });
    await appendBlocks(dataDir, 'node_order_statuses_by_block', [
      block(2003, T0, [
        {
          time: isoNs(T0),
          user: BOB,
          hash: hash(1),
          builder: null,
          status: 'open',
          order: order({ children: [child] }),
        },
      ]),
    ]);
    await ingestOnce(['node_order_statuses_by_block']);
    const { rows } = await db.pool.query('SELECT children FROM accounts.order_statuses');
    expect(rows[0].children).toEqual([child]);
  });
});

describe('node_twap_statuses_by_block', () => {
  it('keeps lifecycle statuses and errors', async () => {
    const state = {
      coin: 'ETH',
      user: ALICE,
      side: 'B' as const,
      sz: '10.0',
      executedSz: '0.0',
      executedNtl: '0.0',
      minutes: 30,
      reduceOnly: false,
      randomize: true,
      timestamp: T0,
    };
    const events: TwapStatusEvent[] = [
      { time: isoNs(T0), twap_id: 5555, state, status: 'activated' },
      { time: isoNs(T0), twap_id: 5556, state, status: { error: 'Insufficient margin to place order.' } },
    ];
    await appendBlocks(dataDir, 'node_twap_statuses_by_block', [block(3000, T0, events)]);
    await ingestOnce(['node_twap_statuses_by_block']);
    const { rows } = await db.pool.query(
      'SELECT twap_id, status, error, started_at FROM accounts.twap_statuses ORDER BY twap_id',
    );
    expect(rows).toEqual([
      { twap_id: 5555, status: 'activated', error: null, started_at: T0 },
      { twap_id: 5556, status: 'error', error: 'Insufficient margin to place order.', started_at: T0 },
    ]);
  });
});

describe('misc_events_by_block', () => {
  it('splits funding deltas per user and lists a ledger event once per address involved', async () => {
    const hour = T0 + 3_600_000;
    const events: MiscEvent[] = [
      {
        time: isoNs(hour, 50_000),
        hash: ZERO_HASH,
        inner: {
          Funding: {
            deltas: [
              { user: ALICE, coin: 'BTC', funding_amount: '-1.234567', szi: '0.5', funding_rate: '0.0000125' },
              { user: BOB, coin: 'BTC', funding_amount: '1.234567', szi: '-0.5', funding_rate: '0.0000125' },
            ],
          },
        },
      },
      {
        time: isoNs(hour),
        hash: hash(0x44),
        inner: {
          LedgerUpdate: {
            users: [ALICE, BOB],
            delta: {
              type: 'send',
              user: ALICE,
              destination: BOB,
              sourceDex: '',
              destinationDex: 'spot',
              token: 'USDC',
              amount: '25.0',
              usdcValue: '25.0',
              fee: '0.0',
              nativeTokenFee: '0.0',
              nonce: 1767326400000,
              feeToken: '',
            },
          },
        },
      },
      {
        time: isoNs(hour),
        hash: hash(0x55),
        inner: {
          LedgerUpdate: {
            users: [CAROL],
            delta: {
              type: 'liquidation',
              liquidatedNtlPos: '1500.0',
              accountValue: '12.5',
              leverageType: 'Isolated',
              liquidatedPositions: [{ coin: 'ETH', szi: '0.5' }],
            },
          },
        },
      },
      { time: isoNs(hour), hash: hash(0x66), inner: { CDeposit: { user: ALICE, amount: '10.0' } } },
    ];
    await appendBlocks(dataDir, 'misc_events_by_block', [block(4000, hour, events)]);
    const bus = new InProcessBus();
    const other: Topics['otherMisc'][] = [];
    bus.subscribe('otherMisc', (items) => other.push(...items));
    await ingestOnce(['misc_events_by_block'], bus);

    const funding = await db.pool.query(
      'SELECT time, address, coin, usdc, szi, funding_rate FROM accounts.funding_payments ORDER BY address',
    );
    expect(funding.rows).toEqual([
      { time: hour, address: ALICE, coin: 'BTC', usdc: '-1.234567', szi: '0.5', funding_rate: '0.0000125' },
      { time: hour, address: BOB, coin: 'BTC', usdc: '1.234567', szi: '-0.5', funding_rate: '0.0000125' },
    ]);
    const ledger = await db.pool.query(
      'SELECT address, delta_type, delta FROM accounts.ledger_updates ORDER BY delta_type, address',
    );
    expect(ledger.rows.map((r) => [r.address, r.delta_type])).toEqual([
      [CAROL, 'liquidation'],
      [ALICE, 'send'],
      [BOB, 'send'],
    ]);
    expect(ledger.rows[1].delta).toMatchObject({
      type: 'send',
      amount: '25.0',
      destinationDex: 'spot',
      nonce: 1767326400000,
    });
    const transfers = await db.pool.query(
      'SELECT action_type, address, destination, amount, source_dex, destination_dex FROM evm.ledger_transfers',
    );
    expect(transfers.rows).toEqual([
      {
        action_type: 'send',
        address: ALICE,
        destination: BOB,
        amount: '25.0',
        source_dex: '',
        destination_dex: 'spot',
      },
    ]);
    expect(other.map((o) => o.kind)).toEqual(['CDeposit']);
  });

  it("loads a top of hour's funding block written over many read chunks, every payment once", async () => {
    // One line per block: the mainnet profile's top-of-hour block is ~120 MB (every open position paid). Here 20 000
    // payments (~2.6 MB, three of ingest's 1 MiB reads), the line's head kept while the rest is read.
    const hour = T0 + 3_600_000;
    const deltas = Array.from({ length: 20_000 }, (_, i) => ({
      user: addr(0x100000 + i),
      coin: i % 2 ? 'ETH' : 'BTC',
      funding_amount: `-0.${String(i + 1).padStart(6, '0')}`,
      szi: '1.5',
      funding_rate: '0.0000125',
    }));
    const line = JSON.stringify(
      block(4100, hour, [{ time: isoNs(hour), hash: ZERO_HASH, inner: { Funding: { deltas } } }]),
    );
    expect(line.length).toBeGreaterThan(2 * (1 << 20));
    await appendRaw(dataDir, 'misc_events_by_block', hour, [line]);
    await ingestOnce(['misc_events_by_block']);
    const { rows } = await db.pool.query(
      'SELECT count(*)::int AS n, count(DISTINCT address)::int AS users, sum(usdc)::text AS usdc FROM accounts.funding_payments',
    );
    expect(rows[0]).toEqual({ n: 20_000, users: 20_000, usdc: '-200.010000' });
  });
});

describe('reading files', () => {
  const fillLine = (n: number, time = T0 + n) =>
    JSON.stringify(block(n, time, [[ALICE, fill({ tid: n, time })]] satisfies FillEvent[]));

  it('does not load a rewound block twice', async () => {
    await appendRaw(dataDir, 'node_fills_by_block', T0, [fillLine(10), fillLine(11), fillLine(12)]);
    await ingestOnce(['node_fills_by_block']);
    // The node restarts and re-emits blocks 11 and 12 into the same file, then continues with 13.
    await appendRaw(dataDir, 'node_fills_by_block', T0, [fillLine(11), fillLine(12), fillLine(13)]);
    const ingest = await ingestOnce(['node_fills_by_block']);
    const { rows } = await db.pool.query('SELECT block_number FROM accounts.fills ORDER BY block_number');
    expect(rows.map((r) => r.block_number)).toEqual([10, 11, 12, 13]);
    expect(ingest.stats[0]?.rewound).toBe(2);
  });

  it('reports malformed lines with file and line, and loads the rest', async () => {
    const lines = [
      fillLine(20),
      '{"block_number": 21, "block_time": "2026-11-22T07:00:00.0", "events": [',
      JSON.stringify(block(22, T0, [[ALICE, fill({ px: 'NaN' })]])),
      JSON.stringify(
        block(23, T0, [
          [ALICE, fill({})],
          ['not-an-address', fill({})],
        ]),
      ),
      fillLine(24),
    ];
    await appendRaw(dataDir, 'node_fills_by_block', T0, lines);
    const logged: string[] = [];
    const ingest = new Ingest({ dataDir, pool: db.pool, streams: ['node_fills_by_block'], log: (l) => logged.push(l) });
    await ingest.run();
    const { rows } = await db.pool.query('SELECT block_number FROM accounts.fills ORDER BY block_number');
    // Block 23 is rejected whole: half a block would be a partial write.
    expect(rows.map((r) => r.block_number)).toEqual([20, 24]);
    const errors = await db.pool.query('SELECT file, line_no, error FROM platform.ingest_errors ORDER BY line_no');
    expect(errors.rows).toEqual([
      { file: 'hourly/20261122/7', line_no: 2, error: 'not valid JSON' },
      { file: 'hourly/20261122/7', line_no: 3, error: 'px: must be a decimal string, got "NaN"' },
      { file: 'hourly/20261122/7', line_no: 4, error: 'user: must be a 0x address, got "not-an-address"' },
    ]);
    const cp = await db.pool.query('SELECT malformed, line_no FROM platform.ingest_checkpoints');
    expect(cp.rows).toEqual([{ malformed: 3, line_no: 5 }]);
    expect(logged).toHaveLength(3);
    expect(logged[0]).toBe('node_fills_by_block/hourly/20261122/7:2: malformed line skipped: not valid JSON');
  });

  it('waits for the end of a line still being written, then loads it once', async () => {
    const file = await appendRaw(dataDir, 'node_fills_by_block', T0, [fillLine(30)]);
    const next = fillLine(31);
    await fs.appendFile(file, next.slice(0, 40));
    await ingestOnce(['node_fills_by_block']);
    let count = await db.pool.query('SELECT count(*)::int AS n FROM accounts.fills');
    expect(count.rows[0].n).toBe(1);
    await fs.appendFile(file, `${next.slice(40)}\n`);
    await ingestOnce(['node_fills_by_block']);
    count = await db.pool.query('SELECT count(*)::int AS n FROM accounts.fills');
    expect(count.rows[0].n).toBe(2);
  });

  it('moves across hourly files in time order and reads .lz4 archives', async () => {
    const h10 = Date.UTC(2026, 10, 22, 10);
    const h9 = Date.UTC(2026, 10, 22, 9);
    await appendRaw(dataDir, 'node_fills_by_block', h10, [fillLine(51, h10)]);
    const archived = hourlyPath(dataDir, 'node_fills_by_block', h9);
    await fs.mkdir(archived.slice(0, archived.lastIndexOf('/')), { recursive: true });
    await fs.writeFile(`${archived}.lz4`, compressFrameSync(Buffer.from(`${fillLine(50, h9)}\n`)));
    await ingestOnce(['node_fills_by_block']);
    const { rows } = await db.pool.query('SELECT block_number FROM accounts.fills ORDER BY time');
    expect(rows.map((r) => r.block_number)).toEqual([50, 51]);
    const cp = await db.pool.query('SELECT file FROM platform.ingest_checkpoints');
    expect(cp.rows[0].file).toBe('hourly/20261122/10');
  });

  it('follows a growing file and publishes new rows after they commit', async () => {
    await appendRaw(dataDir, 'node_fills_by_block', T0, [fillLine(60)]);
    const bus = new InProcessBus();
    const live: number[] = [];
    bus.subscribe('fills', (items) => live.push(...items.map((f) => f.block_number)));
    const ingest = new Ingest({
      dataDir,
      pool: db.pool,
      bus,
      follow: true,
      pollMs: 20,
      streams: ['node_fills_by_block'],
    });
    const running = ingest.run();
    await ingest.caughtUp();
    await appendRaw(dataDir, 'node_fills_by_block', T0, [fillLine(61)]);
    const deadline = Date.now() + 5000;
    while (!live.includes(61) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await ingest.stop();
    await running;
    expect(live).toEqual([60, 61]);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM accounts.fills');
    expect(rows[0].n).toBe(2);
  });
});
