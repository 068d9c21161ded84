// The HIP-4 records byte for byte, keys in their published order (the route tests compare values only): each as
// REST and MCP answer it, and the fill also as /hip4/fills writes it from Postgres's text. Expected texts by hand.
import { describe, expect, it } from 'vitest';
import type { TextRow } from '../../platform/json-text.ts';
import {
  bucketRecord,
  deployerRecord,
  fillRecord,
  fillRowJson,
  marketRecord,
  providerRecord,
  questionRecord,
} from './records.ts';
import { FILL_COLUMN, type Hip4FillWithMarket } from './service/fills.ts';
import type { OutcomeRow } from './service/registry.ts';

const A1 = `0x${'a1'.repeat(20)}`;
const D0 = `0x${'d0'.repeat(20)}`;
const HASH = `0x${'11'.repeat(32)}`;
/** 2026-11-22T07:00:00.123Z. */
const T = 1_795_330_800_123;

/** A maker's sell of #201 on an oracle market (no name, no venue). */
const maker: Hip4FillWithMarket = {
  block_number: 900,
  time: T,
  address: A1,
  coin: '#201',
  outcome_id: 20,
  side_index: 1,
  px: '0.52',
  sz: '10',
  side: 'A',
  dir: 'Sell',
  closed_pnl: '0.0',
  hash: HASH,
  oid: 77,
  tid: 8,
  fee: '-0.001',
  fee_token: 'USDH',
  crossed: false,
  is_settlement: false,
  market_name: null,
  market_description: 'say "hi"',
  venue: '',
  deployer: '',
};
const taker: Hip4FillWithMarket = { ...maker, side: 'B', dir: 'Buy', crossed: true, market_name: 'BTC', venue: 'v' };
const settlement: Hip4FillWithMarket = { ...maker, crossed: true, is_settlement: true };

const fillJson = (side: string, dir: string, typeTrade: string, name: string, venue: string) =>
  `{"user":"${A1}","coin":"#201","outcome_id":20,"px":"0.52","sz":"10","side":"${side}","time_ms":${T},` +
  `"dir":"${dir}","closedPnl":"0.0","hash":"${HASH}","oid":77,"tid":8,"fee":"-0.001","feeToken":"USDH",` +
  `"fee_usdc":"-0.001","typeTrade":"${typeTrade}","market_name":${name},"market_description":"say \\"hi\\"",` +
  `"venue":"${venue}","deployer":""}`;
const MAKER = fillJson('A', 'Sell', 'maker', 'null', '');
const TAKER = fillJson('B', 'Buy', 'taker', '"BTC"', 'v');
const SETTLEMENT = fillJson('A', 'Sell', 'settlement', 'null', '');

/** A fill as Postgres prints the fill list's columns (at FILL_COLUMN): `t`/`f`, numbers as text. */
const textRow = (f: Hip4FillWithMarket): TextRow => {
  const row: TextRow = [];
  for (const [c, i] of Object.entries(FILL_COLUMN)) {
    const v = f[c as keyof Hip4FillWithMarket];
    row[i] = v === null ? null : typeof v === 'boolean' ? (v ? 't' : 'f') : String(v);
  }
  return row;
};

describe('the HIP-4 records', () => {
  it('a fill, as an object and from Postgres text', () => {
    expect(JSON.stringify([maker, taker, settlement].map(fillRecord))).toBe(`[${MAKER},${TAKER},${SETTLEMENT}]`);
    expect([maker, taker, settlement].map((f) => fillRowJson(textRow(f)))).toEqual([MAKER, TAKER, SETTLEMENT]);
  });

  it('a question: updated_at spaced, an oracle question’s venue "oracle"', () => {
    const q = {
      question_id: 2,
      name: 'Q',
      description: 'd',
      fallback_outcome: 22,
      named_outcomes: [20, 21],
      settled_named_outcomes: [],
      updated_at: T,
      venue: '',
      deployer: '',
    };
    expect(JSON.stringify(questionRecord(q))).toBe(
      '{"question_id":2,"name":"Q","description":"d","fallback_outcome":22,"named_outcomes":[20,21],' +
        '"settled_named_outcomes":[],"updated_at":"2026-11-22 07:00:00.123","venue":"oracle","deployer":""}',
    );
  });

  it('a market: its description’s fields, side specs as JSON text, an oracle market without deployer', () => {
    const base: OutcomeRow = {
      outcome_id: 20,
      name: 'n',
      description: 'class:priceBinary|underlying:BTC|expiry:20261122|targetPrice:100000|period:1d',
      side_specs: [{ name: 'Yes' }, { name: 'No' }],
      question_id: 2,
      quote_token: 'USDH',
      block_time: T,
      venue: 'v',
      deployer: D0,
      settled: true,
      settle_fraction: '1',
      settled_at: T,
      question_name: 'q',
      question_description: null,
      fee_scale: '0.5',
      total_fills: 3,
      total_volume: '1.5',
      unique_users: 2,
    };
    const oracle = { ...base, description: 'plain', venue: '', fee_scale: null, settled: false, settle_fraction: null };
    const row = (description: string, fields: string, tail: string) =>
      `{"outcome_id":20,"coin":"#200","name":"n","description":"${description}",${fields},` +
      `"side_specs":"[{\\"name\\":\\"Yes\\"},{\\"name\\":\\"No\\"}]","question_id":2,"quote_token":"USDH",` +
      `"block_time":"2026-11-22T07:00:00.123",${tail}`;
    expect(JSON.stringify([base, oracle].map(marketRecord))).toBe(
      `[${row(
        base.description,
        '"class":"priceBinary","underlying":"BTC","expiry":"20261122","target_price":"100000","period":"1d"',
        '"settled":1,"settle_fraction":"1","question_name":"q","question_description":null,"total_fills":3,' +
          `"total_volume":"1.5","unique_users":2,"venue":"v","deployer":"${D0}","deployer_fee_scale":"0.5"}`,
      )},${row(
        'plain',
        '"class":null,"underlying":null,"expiry":null,"target_price":null,"period":null',
        '"settled":0,"settle_fraction":null,"question_name":"q","question_description":null,"total_fills":3,' +
          '"total_volume":"1.5","unique_users":2,"venue":"","deployer":"","deployer_fee_scale":"0"}',
      )}]`,
    );
  });

  it('a venue’s statistics, a deployer and analytics buckets (the coin only when split by coin)', () => {
    const provider = {
      venue: 'oracle',
      markets_traded: 2,
      fills: 5,
      volume_usdc: '12.5',
      unique_users: 3,
      fees: '0.01',
      last_trade: T,
    };
    expect(JSON.stringify(providerRecord(provider))).toBe(
      '{"venue":"oracle","markets_traded":2,"fills":5,"volume_usdc":"12.5","unique_users":3,"fees":"0.01",' +
        '"last_trade":"2026-11-22T07:00:00.123"}',
    );
    const venue = {
      venue: 'v',
      deployer: D0,
      fee_scale: '0.5',
      sub_deployers: [['add', [A1]]] as [string, string[]][],
    };
    expect(JSON.stringify(deployerRecord({ ...venue, updated_at: T }))).toBe(
      `{"deployer":"${D0}","venue":"v","fee_scale":"0.5","sub_deployers":"[[\\"add\\",[\\"${A1}\\"]]]",` +
        '"updated_at":"2026-11-22T07:00:00.123"}',
    );
    // As the analytics statements select them: the coin second, when split by coin.
    const sums = { fills: 3, volume: 1.5, buy_volume: 1, sell_volume: 0.5, fees_usdc: 0.01, unique_users: 2 };
    const buckets = [
      { bucket: T - 123, ...sums },
      { bucket: T - 123, coin: '#200', ...sums },
    ];
    const sumsJson = '"fills":3,"volume":1.5,"buy_volume":1,"sell_volume":0.5,"fees_usdc":0.01,"unique_users":2';
    expect(JSON.stringify(buckets.map(bucketRecord))).toBe(
      `[{"bucket":"2026-11-22T07:00:00",${sumsJson}},{"bucket":"2026-11-22T07:00:00","coin":"#200",${sumsJson}}]`,
    );
  });
});
