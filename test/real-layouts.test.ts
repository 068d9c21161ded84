// Real node lines (test/fixtures/real, source in its README) loaded through every layout ingest reads — by-block,
// streaming, the legacy node_fills lines, each plain and LZ4 — answer /info userFills with what the lines say. The
// expected fills below are the lines' own fill objects, copied from the fixture (none is computed by the code).
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ingest } from '../ingest/pipeline.ts';
import type { StreamName } from '../wire/node-lines.ts';
import { startCompatApp, type TestCompatApp } from './compat-app.ts';
import { compressHourlyFiles, legacyLines, relayLines, streamingLines } from './layouts.ts';
import { tempDataDir } from './node-files.ts';

const REAL = path.join(import.meta.dirname, 'fixtures/real');
const FIXTURE = path.join(REAL, 'node_fills_by_block/hourly/20260315/0');
const USER = '0x31ca8395cf837de08b24da3f660e77761dfb974b';
const TWAP_USER = '0xfd81b27d9796a1ba7d7171ea70010c9befb2a62a';

// USER's 10 fills in the fixture, newest block first, a block's fills in the node's order (the service's rule).
const USER_FILLS = [
  {
    coin: 'HBAR',
    px: '0.093463',
    sz: '535.0',
    side: 'B',
    time: 1773532801283,
    startPosition: '-348541.0',
    dir: 'Close Short',
    closedPnl: '-0.543025',
    hash: '0xe9c09b2e8750ccbdeb3a0437125f110000fbb3142253eb8f8d8946814654a6a8',
    oid: 349162668192,
    crossed: true,
    fee: '0.0',
    tid: 837984033400928,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'HBAR',
    px: '0.093463',
    sz: '2067.0',
    side: 'B',
    time: 1773532801283,
    startPosition: '-348006.0',
    dir: 'Close Short',
    closedPnl: '-2.098005',
    hash: '0xe9c09b2e8750ccbdeb3a0437125f110000fbb3142253eb8f8d8946814654a6a8',
    oid: 349162668192,
    crossed: true,
    fee: '0.0',
    tid: 90806932400804,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'FIL',
    px: '0.88047',
    sz: '18.9',
    side: 'A',
    time: 1773532801283,
    startPosition: '-211883.4',
    dir: 'Open Short',
    closedPnl: '0.0',
    hash: '0x9c9411c9a0e20f399e0d0437125f1101010029af3be52e0b405cbd1c5fe5e924',
    oid: 349162668193,
    crossed: true,
    fee: '0.0',
    tid: 611675108834832,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'AAVE',
    px: '111.1',
    sz: '6.02',
    side: 'B',
    time: 1773532801283,
    startPosition: '1579.47',
    dir: 'Open Long',
    closedPnl: '0.0',
    hash: '0x4b36f7f43d3122914cb00437125f1101010101d9d8344163eeffa346fc34fc7b',
    oid: 349162668194,
    crossed: true,
    fee: '0.0',
    tid: 359526858626593,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'WCT',
    px: '0.05781',
    sz: '278.0',
    side: 'A',
    time: 1773532801206,
    startPosition: '378150.0',
    dir: 'Close Long',
    closedPnl: '-0.51569',
    hash: '0xd5c93609feaddc6fd7420437125f100102004def99a0fb417991e15cbda1b65a',
    oid: 349162668188,
    crossed: true,
    fee: '0.0',
    tid: 964687378208572,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'STBL',
    px: '0.035758',
    sz: '2953.0',
    side: 'B',
    time: 1773532801206,
    startPosition: '2954454.0',
    dir: 'Open Long',
    closedPnl: '0.0',
    hash: '0x889caca5183f1eeb8a160437125f10010300c48ab3323dbd2c6557f7d732f8d6',
    oid: 349162668189,
    crossed: true,
    fee: '0.0',
    tid: 343963163474556,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'STBL',
    px: '0.035759',
    sz: '11076.0',
    side: 'B',
    time: 1773532801206,
    startPosition: '2957407.0',
    dir: 'Open Long',
    closedPnl: '0.0',
    hash: '0x889caca5183f1eeb8a160437125f10010300c48ab3323dbd2c6557f7d732f8d6',
    oid: 349162668189,
    crossed: true,
    fee: '0.0',
    tid: 940707099910354,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'AAVE',
    px: '111.09',
    sz: '0.58',
    side: 'B',
    time: 1773532801071,
    startPosition: '1578.89',
    dir: 'Open Long',
    closedPnl: '0.0',
    hash: '0x0000000000000000000000000000000000000000000000000000000000000000',
    oid: 349162644275,
    crossed: false,
    fee: '0.0',
    tid: 841416863231977,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'BERA',
    px: '0.63584',
    sz: '371.7',
    side: 'A',
    time: 1773532800678,
    startPosition: '101861.0',
    dir: 'Close Long',
    closedPnl: '-0.810306',
    hash: '0xc6a73dce80ba6b47c8200437125f0d010d0101b41bbd8a196a6fe9213fbe4532',
    oid: 349162668099,
    crossed: true,
    fee: '0.0',
    tid: 214385502000240,
    feeToken: 'USDC',
    twapId: null,
  },
  {
    coin: 'AZTEC',
    px: '0.023368',
    sz: '749.0',
    side: 'B',
    time: 1773532799991,
    startPosition: '559008.0',
    dir: 'Open Long',
    closedPnl: '0.0',
    hash: '0xd35ebb1af35e5a11d4d80437125f090202e800008e5178e37727666db25233fc',
    oid: 349162446382,
    crossed: false,
    fee: '0.0',
    tid: 959380004243435,
    feeToken: 'USDC',
    twapId: null,
  },
];

// The other side of USER's AAVE fill at 1773532801071: a TWAP slice (twapId on the owner's side only).
const TWAP_FILL = {
  coin: 'AAVE',
  px: '111.09',
  sz: '0.58',
  side: 'A',
  time: 1773532801071,
  startPosition: '-651.81',
  dir: 'Open Short',
  closedPnl: '0.0',
  hash: '0x0000000000000000000000000000000000000000000000000000000000000000',
  oid: 349162668183,
  crossed: true,
  fee: '0.021906',
  tid: 841416863231977,
  feeToken: 'USDC',
  twapId: 1670968,
};

/** The fixture's legacy form: one `[user, fill]` a line, without `twapId` (FORMATS.md §3). */
const legacyWithoutTwapId = (line: string) =>
  legacyLines(line).map((l) => {
    const [user, { twapId: _, ...fill }] = JSON.parse(l);
    return JSON.stringify([user, fill]);
  });

interface Layout {
  name: string;
  /** Lays the fixture (copied into the stream's `_by_block` dir) out in this layout. */
  lay(dataDir: string): Promise<void>;
  legacy?: boolean;
}

/** A stream's fixture as by-block, streaming (one event a line) and `extra` layouts, each plain and LZ4. */
function layoutsOf(stream: StreamName, extra: Layout[] = []): Layout[] {
  const base = stream.replace(/_by_block$/, '');
  const plain: Layout[] = [
    { name: stream, lay: async () => {} },
    {
      name: `${base}_streaming (one event a line)`,
      lay: async (dir) => void (await relayLines(dir, stream, (l) => streamingLines(l))),
    },
    ...extra,
  ];
  return plain.flatMap((l) => [
    l,
    {
      ...l,
      name: `${l.name}, LZ4`,
      async lay(dir: string) {
        await l.lay(dir);
        for (const d of await fs.readdir(dir)) await compressHourlyFiles(dir, d);
      },
    },
  ]);
}

/** A compat app over its own database, with `fixture` loaded into it through `layout`. */
async function loaded(fixture: string, stream: StreamName, layout: Layout): Promise<TestCompatApp> {
  const compat = await startCompatApp({ data: 'empty', node: 'down' });
  const dataDir = await tempDataDir();
  const target = path.join(dataDir, stream, path.relative(path.join(REAL, stream), fixture));
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.copyFile(fixture, target);
  await layout.lay(dataDir);
  await new Ingest({ dataDir, pool: compat.db.pool, streams: [stream], log: () => {} }).run();
  return compat;
}

const LAYOUTS = layoutsOf('node_fills_by_block', [
  {
    name: 'legacy node_fills',
    legacy: true,
    lay: async (dir) => void (await relayLines(dir, 'node_fills_by_block', legacyWithoutTwapId, 'node_fills')),
  },
]);

describe.each(LAYOUTS)('real fills laid out as $name', (layout) => {
  let compat: TestCompatApp;
  beforeAll(async () => {
    compat = await loaded(FIXTURE, 'node_fills_by_block', layout);
  });
  afterAll(async () => {
    await compat?.close();
  });

  it('loads the 44 fills and pairs them into 22 trades', async () => {
    const { rows } = await compat.db.pool.query(
      `SELECT (SELECT count(*)::int FROM accounts.fills) AS fills, (SELECT count(*)::int FROM markets.trades) AS trades,
              (SELECT array_agg(DISTINCT block_number::int ORDER BY block_number::int) FROM accounts.fills) AS blocks`,
    );
    expect(rows[0]).toEqual({
      fills: 44,
      trades: 22,
      // The legacy lines carry no block number.
      blocks: layout.legacy ? [0] : [923950857, 923950861, 923950863, 923950864, 923950865],
    });
  });

  it('answers userFills with the fills the lines hold', async () => {
    const answer = await compat.info({ type: 'userFills', user: USER });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(USER_FILLS);
  });

  it("keeps a TWAP slice's twapId (the legacy lines carry none) and pairs it with its counterparty", async () => {
    const answer = await compat.info({ type: 'userFills', user: TWAP_USER });
    expect(answer.body).toEqual([{ ...TWAP_FILL, twapId: layout.legacy ? null : 1670968 }]);
    const { rows } = await compat.db.pool.query(
      `SELECT side, px::text, sz::text, buyer, seller, fees::text FROM markets.trades WHERE tid = 841416863231977`,
    );
    // The taker (crossed) sold; fees 0.0 + 0.021906.
    expect(rows).toEqual([{ side: 'A', px: '111.09', sz: '0.58', buyer: USER, seller: TWAP_USER, fees: '0.021906' }]);
  });
});

const MISC_FIXTURE = path.join(REAL, 'misc_events_by_block/hourly/20260611/1');
const FUNDED = '0x00000000000dfd47d200dc26e4e5c79b7e6de984';
const SENDER = '0x8b1c0722a978599bb254c2bdd75992fa605073f6';
const MISC_LAYOUTS = layoutsOf('misc_events_by_block');

describe.each(MISC_LAYOUTS)('real misc events laid out as $name', (layout) => {
  let compat: TestCompatApp;
  beforeAll(async () => {
    compat = await loaded(MISC_FIXTURE, 'misc_events_by_block', layout);
  });
  afterAll(async () => {
    await compat?.close();
  });

  it('answers userFunding with the Funding delta of block 1030773830', async () => {
    const answer = await compat.info({ type: 'userFunding', user: FUNDED, startTime: 0 });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      // The spec's funding payment (data-api.md §2.3): coin, usdc and szi at the top level too.
      {
        time: 1781139600039,
        hash: '0x0000000000000000000000000000000000000000000000000000000000000000',
        coin: 'ZEC',
        usdc: '9.330246',
        szi: '280.0',
        delta: {
          type: 'funding',
          coin: 'ZEC',
          usdc: '9.330246',
          szi: '280.0',
          fundingRate: '-0.0000810249',
          nSamples: null,
        },
      },
    ]);
  });

  it('answers userNonFundingLedgerUpdates with the send of block 1030773868, for both its users', async () => {
    const send = {
      time: 1781139602896,
      hash: '0x5a44d83dc07d168a5bbe043d705c6c02055b00235b70355cfe0d83907f70f074',
      delta: {
        type: 'send',
        user: SENDER,
        destination: '0x2000000000000000000000000000000000000000',
        sourceDex: 'spot',
        destinationDex: 'spot',
        token: 'USDC',
        amount: '500.008953',
        usdcValue: '500.008953',
        fee: '0.0',
        nativeTokenFee: '0.00002',
        nonce: 1781139594371,
        feeToken: '',
      },
    };
    for (const user of [SENDER, '0x2000000000000000000000000000000000000000']) {
      const answer = await compat.info({ type: 'userNonFundingLedgerUpdates', user, startTime: 0 });
      expect(answer.body).toEqual([send]);
    }
  });
});

const ORDERS_FIXTURE = path.join(REAL, 'node_order_statuses_by_block/hourly/20260602/10');
const ORDER_LAYOUTS = layoutsOf('node_order_statuses_by_block');

describe.each(ORDER_LAYOUTS)('real order statuses laid out as $name', (layout) => {
  let compat: TestCompatApp;
  /** The `order` objects of the fixture's status events, by oid (the answers carry them as the node wrote them). */
  const orders = new Map<number, unknown>();
  beforeAll(async () => {
    for (const line of (await fs.readFile(ORDERS_FIXTURE, 'utf8')).trim().split('\n')) {
      for (const e of JSON.parse(line).events) orders.set(e.order.oid, e.order);
    }
    compat = await loaded(ORDERS_FIXTURE, 'node_order_statuses_by_block', layout);
  });
  afterAll(async () => {
    await compat?.close();
  });

  it('answers historicalOrders with each status event: its order, status and time (ms)', async () => {
    const cases = [
      // A cancel with a null hash (block 1019927125).
      ['0x31ca8395cf837de08b24da3f660e77761dfb974b', 452916385917, 'canceled', 1780394399398],
      // An order with a builder {b, f}; its status time (09:59:59.457) precedes its block's (09:59:59.678).
      ['0x8f308355ce0604dd4fd872309d5761167655b07c', 452916386246, 'open', 1780394399457],
      // An order with a stop-market child (TP/SL bracket).
      ['0x55684b989f23978dc2ad4926736c463e225ea5cc', 452916388462, 'open', 1780394399678],
    ] as const;
    for (const [user, oid, status, statusTimestamp] of cases) {
      const answer = await compat.info({ type: 'historicalOrders', user });
      expect(answer.body).toEqual([{ order: orders.get(oid), status, statusTimestamp }]);
    }
  });
});
