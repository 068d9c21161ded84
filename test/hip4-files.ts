// A hand-written HIP-4 history for the hip4 tests: two venues, a legacy (oracle) question that settles with
// settlement fills, a venue question, a venue binary without question, and four matches placed on bucket edges.
// Written as hl-node files and loaded with the real ingest pipeline (test/accounts-files.ts NodeFiles).
import { isoNs } from '../ingest/files.ts';
import type { FillEvent, Hip4Event, Hip4Inner } from '../wire/node-lines.ts';
import { NodeFiles } from './accounts-files.ts';
import { addr, hash, nodeFill, T0 } from './node-files.ts';

export { T0 };
export const MIN = 60_000;
export const HOUR = 3_600_000;

export const DEPLOYER_PREDICT = addr(0xd1);
export const DEPLOYER_ODDSX = addr(0xd2);
export const SUB_DEPLOYER = addr(0xd3);
/** Traders. */
export const A1 = addr(0xa1);
export const A2 = addr(0xa2);
export const A3 = addr(0xa3);
export const A4 = addr(0xa4);

/** The time of each event of the history. */
export const AT = {
  registry: T0,
  match1: T0 + 10 * MIN, // #100 (oracle question, outcome 10)
  match2: T0 + HOUR, // #201 (predict, outcome 20): exactly on the 08:00 bucket edge
  match3: T0 + 75 * MIN, // #200 (predict, outcome 20)
  match4: T0 + 130 * MIN, // #300 (oddsx binary, outcome 30)
  settlement: T0 + 3 * HOUR, // question 1 settles to outcome 10, with settlement fills
};

const event = (time: number, n: number, inner: Hip4Inner): Hip4Event => ({ time: isoNs(time), hash: hash(n), inner });

export const BINARY_DESCRIPTION = 'class:priceBinary|underlying:BTC|expiry:20261123-0600|targetPrice:90000|period:1d';

function registry(): Hip4Event[] {
  const t = AT.registry;
  const outcome = (id: number, name: string, question: number | null, venue: string, deployer: string) =>
    event(t, id, {
      OutcomeRegistered: {
        outcome_id: id,
        name,
        description: id === 30 ? BINARY_DESCRIPTION : `class:event|option:${id}`,
        side_specs: [{ name: 'Yes' }, { name: 'No' }],
        question_id: question,
        quote_token: 'USDH',
        venue,
        deployer,
      },
    });
  return [
    event(t, 1, {
      VenueRegistered: {
        venue: 'predict',
        deployer: DEPLOYER_PREDICT,
        fee_scale: '1.0',
        sub_deployers: [['registerQuestion', [SUB_DEPLOYER]]],
      },
    }),
    event(t, 2, { VenueRegistered: { venue: 'oddsx', deployer: DEPLOYER_ODDSX, fee_scale: '0.5', sub_deployers: [] } }),
    event(t, 3, {
      QuestionRegistered: {
        question_id: 1,
        name: 'FOMC decision',
        description: 'class:event|topic:fomc',
        fallback_outcome: 12,
        named_outcomes: [10, 11],
        venue: '',
        deployer: '',
      },
    }),
    event(t, 4, {
      QuestionRegistered: {
        question_id: 2,
        name: 'Rain in Tokyo',
        description: 'class:event|topic:weather',
        fallback_outcome: 22,
        named_outcomes: [20, 21],
        venue: 'predict',
        deployer: DEPLOYER_PREDICT,
      },
    }),
    outcome(10, 'Cut', 1, '', ''),
    outcome(11, 'Hold', 1, '', ''),
    outcome(12, 'Other', 1, '', ''),
    outcome(20, 'Rain', 2, 'predict', DEPLOYER_PREDICT),
    outcome(21, 'Dry', 2, 'predict', DEPLOYER_PREDICT),
    outcome(22, 'Other', 2, 'predict', DEPLOYER_PREDICT),
    outcome(30, 'BTC above 90000', null, 'oddsx', DEPLOYER_ODDSX),
  ];
}

/** One match: the taker's fill (crossed) and the maker's. */
function match(
  tid: number,
  time: number,
  coin: string,
  taker: string,
  takerSide: 'A' | 'B',
  maker: string,
  px: string,
  sz: string,
  fees: [string, string],
): FillEvent[] {
  const common = { coin, px, sz, time, hash: hash(100 + tid), tid, feeToken: 'USDH' };
  const makerSide = takerSide === 'B' ? 'A' : 'B';
  const dir = (s: 'A' | 'B') => (s === 'B' ? 'Buy' : 'Sell');
  return [
    [taker, nodeFill({ ...common, side: takerSide, dir: dir(takerSide), oid: tid * 2, crossed: true, fee: fees[0] })],
    [
      maker,
      nodeFill({ ...common, side: makerSide, dir: dir(makerSide), oid: tid * 2 + 1, crossed: false, fee: fees[1] }),
    ],
  ];
}

/** Holders of #100 paid out at settlement: A1 (long 100) sells at 1, A2 (short 100) buys back at 1. */
function settlementFills(): FillEvent[] {
  const common = { coin: '#100', px: '1.0', sz: '100.0', time: AT.settlement, fee: '0.0', feeToken: 'USDH' };
  return [
    [A1, nodeFill({ ...common, side: 'A', dir: 'Settlement', hash: hash(900), oid: 90, tid: 90, crossed: false })],
    [A2, nodeFill({ ...common, side: 'B', dir: 'Settlement', hash: hash(901), oid: 91, tid: 91, crossed: false })],
  ];
}

/** The whole history as node files. */
export function hip4History(): NodeFiles {
  const files = new NodeFiles();
  files.add('hip4_registry_by_block', AT.registry, registry());
  files.add(
    'node_fills_by_block',
    AT.match1,
    match(1, AT.match1, '#100', A1, 'B', A2, '0.4', '100.0', ['0.04', '0.0']),
  );
  files.add('node_fills_by_block', AT.match2, match(2, AT.match2, '#201', A2, 'A', A3, '0.6', '50.0', ['0.03', '0.0']));
  files.add(
    'node_fills_by_block',
    AT.match3,
    match(3, AT.match3, '#200', A3, 'B', A1, '0.5', '10.0', ['0.005', '0.0']),
  );
  files.add(
    'node_fills_by_block',
    AT.match4,
    match(4, AT.match4, '#300', A1, 'B', A4, '0.25', '20.0', ['0.01', '-0.001']),
  );
  files.add('hip4_registry_by_block', AT.settlement, [
    event(AT.settlement, 50, { OutcomeSettled: { outcome_id: 10, settle_fraction: '1.0', details: 'decided' } }),
    event(AT.settlement, 51, { OutcomeSettled: { outcome_id: 11, settle_fraction: '0.0', details: 'decided' } }),
    event(AT.settlement, 52, { OutcomeSettled: { outcome_id: 12, settle_fraction: '0.0', details: 'decided' } }),
    event(AT.settlement, 53, { QuestionSettled: { question_id: 1, settled_named_outcomes: [10] } }),
  ]);
  files.add('node_fills_by_block', AT.settlement, settlementFills());
  return files;
}
