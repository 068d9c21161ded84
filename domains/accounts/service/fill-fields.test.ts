// A stored fill printed from its one description: the exchange's Fill (wire §2.1) as objects and as JSON written from
// Postgres's text, byte for byte in the wire's key order, and the compact row (spec §2.3) in its own order. The
// expected texts are written out by hand.
import { describe, expect, it } from 'vitest';
import { fillsTable } from '../../../db/rows/accounts.ts';
import type { TextRow } from '../../../platform/json-text.ts';
import {
  compactFillSchema,
  type StoredFill,
  toCompact,
  toWireFill,
  wireFillSchema,
  wireJsonWriter,
} from './fill-fields.ts';

const ALICE = `0x${'a1'.repeat(20)}`;
const BOB = `0x${'b2'.repeat(20)}`;
const BUILDER = `0x${'bd'.repeat(20)}`;
const HASH = `0x${'11'.repeat(32)}`;
const CLOID = '0x000000000000000000000000000000c1';

/** A taker's buy through a builder, with a cloid: 2026-11-22T07:00:00.123Z. */
const taker: StoredFill = {
  block_number: 900,
  address: ALICE,
  coin: 'BTC',
  px: '90000.5',
  sz: '0.10',
  side: 'B',
  time: 1_795_330_800_123,
  start_position: '-0.05',
  dir: 'Close Short',
  closed_pnl: '-1.25',
  hash: HASH,
  oid: 77,
  crossed: true,
  fee: '4.05',
  tid: 123_456_789,
  fee_token: 'USDC',
  cloid: CLOID,
  twap_id: null,
  builder: BUILDER,
  builder_fee: '0.9',
  deployer_fee: null,
  priority_gas: null,
  liquidated_user: null,
  liquidation_mark_px: null,
  liquidation_method: null,
  event_index: 3,
};

/** The backstop's side of a liquidation of Bob, a TWAP's slice, without builder or cloid. */
const liquidation: StoredFill = {
  ...taker,
  address: ALICE,
  side: 'A',
  dir: 'Open Short',
  crossed: false,
  fee: '-0.1',
  cloid: null,
  twap_id: 5555,
  builder: null,
  builder_fee: null,
  liquidated_user: BOB,
  liquidation_mark_px: '90010.0',
  liquidation_method: 'backstop',
};

const TAKER_WIRE =
  `{"coin":"BTC","px":"90000.5","sz":"0.10","side":"B","time":1795330800123,"startPosition":"-0.05",` +
  `"dir":"Close Short","closedPnl":"-1.25","hash":"${HASH}","oid":77,"crossed":true,"fee":"4.05",` +
  `"tid":123456789,"feeToken":"USDC","builderFee":"0.9","twapId":null,"cloid":"${CLOID}"}`;
const LIQUIDATION_WIRE =
  `{"coin":"BTC","px":"90000.5","sz":"0.10","side":"A","time":1795330800123,"startPosition":"-0.05",` +
  `"dir":"Open Short","closedPnl":"-1.25","hash":"${HASH}","oid":77,"crossed":false,"fee":"-0.1",` +
  `"tid":123456789,"feeToken":"USDC","twapId":5555,` +
  `"liquidation":{"liquidatedUser":"${BOB}","markPx":"90010.0","method":"backstop"}}`;

/** A stored fill as Postgres prints its columns in table order (`t`/`f`, numbers and decimals as text). */
const textRow = (f: StoredFill): TextRow =>
  fillsTable.columns.map((c) => {
    const v = f[c];
    return v === null ? null : typeof v === 'boolean' ? (v ? 't' : 'f') : String(v);
  });

describe("the exchange's Fill", () => {
  it('prints a stored fill in the wire key order, optional keys absent when null', () => {
    expect(JSON.stringify(toWireFill(taker))).toBe(TAKER_WIRE);
    expect(JSON.stringify(toWireFill(liquidation))).toBe(LIQUIDATION_WIRE);
  });

  it("writes the same bytes from Postgres's text", () => {
    const json = wireJsonWriter((c) => fillsTable.columns.indexOf(c));
    expect(json(textRow(taker))).toBe(TAKER_WIRE);
    expect(json(textRow(liquidation))).toBe(LIQUIDATION_WIRE);
  });
});

describe('the compact row', () => {
  it('prints the user, ISO time, crossed as 0/1 and every nullable key as null, in its order', () => {
    expect(JSON.stringify(toCompact(liquidation, false))).toBe(
      `{"user":"${ALICE}","coin":"BTC","px":"90000.5","sz":"0.10","side":"A","time":"2026-11-22T07:00:00.123",` +
        `"dir":"Open Short","closedPnl":"-1.25","hash":"${HASH}","oid":77,"tid":123456789,"fee":"-0.1",` +
        `"feeToken":"USDC","crossed":0,"cloid":null,"twapId":5555,"builder":null,"builderFee":null}`,
    );
  });

  it('adds the order type last when asked for, null when unknown', () => {
    expect(JSON.stringify(toCompact({ ...taker, order_type: 'Limit' }, true))).toBe(
      `{"user":"${ALICE}","coin":"BTC","px":"90000.5","sz":"0.10","side":"B","time":"2026-11-22T07:00:00.123",` +
        `"dir":"Close Short","closedPnl":"-1.25","hash":"${HASH}","oid":77,"tid":123456789,"fee":"4.05",` +
        `"feeToken":"USDC","crossed":1,"cloid":"${CLOID}","twapId":null,"builder":"${BUILDER}","builderFee":"0.9",` +
        `"orderType":"Limit"}`,
    );
    expect(toCompact(taker, true).orderType).toBeNull();
  });
});

describe('the OpenAPI schemas', () => {
  it('state the wire Fill in its order, builderFee, cloid and liquidation optional (wire §2.1)', () => {
    expect(Object.keys(wireFillSchema.properties as object)).toEqual(
      (
        'coin px sz side time startPosition dir closedPnl hash oid crossed fee tid feeToken builderFee twapId cloid ' +
        'liquidation'
      ).split(' '),
    );
    expect(wireFillSchema.required).toEqual(
      'coin px sz side time startPosition dir closedPnl hash oid crossed fee tid feeToken twapId'.split(' '),
    );
  });

  it('state the compact row in its order, orderType alone optional', () => {
    const keys =
      'user coin px sz side time dir closedPnl hash oid tid fee feeToken crossed cloid twapId builder builderFee';
    expect(Object.keys(compactFillSchema.properties as object)).toEqual([...keys.split(' '), 'orderType']);
    expect(compactFillSchema.required).toEqual(keys.split(' '));
  });
});
