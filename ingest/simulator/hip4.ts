// HIP-4 outcome markets: three venues with deployers, price-bucket questions and binary outcomes listed every 6 hours
// per venue and settled at expiry with settlement fills, plus one legacy oracle question (venue ''). Registers and
// settles them in the exchange and writes the registry stream.
import type { Hip4Event, Hip4Inner } from '../../wire/node-lines.ts';
import { USDH_TOKEN } from './catalog.ts';
import { fmtNum } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { Market, OutcomeInfo, OutcomeOdds } from './market.ts';
import { Rng } from './rng.ts';

const HIP4_STREAM = 4;
const SIX_HOURS = 6 * 3600_000;
const DAY = 24 * 3600_000;
const MS_PER_YEAR = 365 * DAY;
const UNDERLYINGS = ['BTC', 'ETH', 'HYPE'];
const SIDE_SPECS = [{ name: 'Yes' }, { name: 'No' }];

interface Venue {
  venue: string;
  deployer: string;
  feeScale: string;
  subDeployers: [string, string[]][];
}

interface Outcome {
  id: number;
  sides: Market[];
  /** Bucket index (0 = below the first threshold), or -1 for the fallback outcome. */
  bucket: number;
}

interface Question {
  id: number | null;
  venue: string;
  deployer: string;
  expiry: number;
  underlying: Market | null;
  thresholds: number[];
  outcomes: Outcome[];
  fallback: Outcome | null;
}

export class OutcomeRegistry {
  private readonly x: Exchange;
  private readonly rng: Rng;
  private readonly venues: Venue[];
  private readonly open: Question[] = [];
  private nextQuestionId = 1;
  private nextOutcomeId = 100;
  private nextListingAt = Number.POSITIVE_INFINITY;
  private out: Hip4Event[] = [];

  constructor(exchange: Exchange, seed: number) {
    this.x = exchange;
    this.rng = new Rng(seed, HIP4_STREAM);
    const rng = this.rng;
    this.venues = [
      {
        venue: 'predict',
        deployer: rng.address(),
        feeScale: '1.0',
        subDeployers: [
          ['registerQuestion', [rng.address()]],
          ['settleOutcome', [rng.address(), rng.address()]],
        ],
      },
      {
        venue: 'oddsx',
        deployer: rng.address(),
        feeScale: '0.5',
        subDeployers: [['registerQuestion', [rng.address()]]],
      },
      { venue: 'hyperodds', deployer: rng.address(), feeScale: '0.8', subDeployers: [] },
    ];
  }

  /** First block: venues, the legacy question and a first listing per venue. */
  start(out: Hip4Event[]): void {
    this.out = out;
    const now = this.x.now;
    for (const v of this.venues) {
      this.emit({
        VenueRegistered: { venue: v.venue, deployer: v.deployer, fee_scale: v.feeScale, sub_deployers: v.subDeployers },
      });
    }
    this.listLegacyQuestion(now + 30 * DAY);
    const firstExpiry = Math.ceil(now / SIX_HOURS) * SIX_HOURS + 18 * 3600_000;
    for (const v of this.venues) this.listForVenue(v, firstExpiry);
    this.nextListingAt = Math.ceil((now + 1) / SIX_HOURS) * SIX_HOURS;
  }

  /** Each minute: settle expired questions, list new ones on the 6-hour marks. */
  minuteTick(out: Hip4Event[]): void {
    this.out = out;
    const now = this.x.now;
    for (let i = 0; i < this.open.length; i++) {
      const q = this.open[i]!;
      if (q.expiry <= now) {
        this.settle(q);
        this.open.splice(i, 1);
        i--;
      }
    }
    if (now >= this.nextListingAt) {
      for (const v of this.venues) this.listForVenue(v, this.nextListingAt + DAY);
      this.nextListingAt += SIX_HOURS;
    }
  }

  private listForVenue(v: Venue, expiry: number): void {
    const rng = this.rng;
    const underlying = this.x.byCoin.get(rng.pick(UNDERLYINGS))!;
    underlying.advance(this.x.now, this.x.rng);
    const spot = underlying.fair;
    const width = rng.range(0.015, 0.04);
    const thresholds = [roundSig(spot * (1 - width), 3), roundSig(spot * (1 + width), 3)];
    this.listBucketQuestion(v, underlying, thresholds, expiry);
    const target = roundSig(spot * (1 + rng.range(-0.03, 0.03)), 3);
    this.listBinary(v, underlying, target, expiry);
  }

  private listBucketQuestion(v: Venue, underlying: Market, thresholds: number[], expiry: number): void {
    const qid = this.nextQuestionId++;
    const coin = underlying.coin;
    const tag = expiryTag(expiry);
    const base = `class:priceBucket|underlying:${coin}|expiry:${tag}|priceThresholds:${thresholds.join(',')}`;
    const q: Question = {
      id: qid,
      venue: v.venue,
      deployer: v.deployer,
      expiry,
      underlying,
      thresholds,
      outcomes: [],
      fallback: null,
    };
    const names = [
      `${coin} below ${thresholds[0]}`,
      `${coin} ${thresholds[0]}-${thresholds[1]}`,
      `${coin} above ${thresholds[1]}`,
    ];
    const ids = names.map(() => this.nextOutcomeId++);
    const fallbackId = this.nextOutcomeId++;
    this.emit({
      QuestionRegistered: {
        question_id: qid,
        name: `${coin} price at ${tag}`,
        description: `${base}|period:1d`,
        fallback_outcome: fallbackId,
        named_outcomes: ids,
        venue: v.venue,
        deployer: v.deployer,
      },
    });
    names.forEach((name, bucket) => {
      const outcome = this.listOutcome(ids[bucket]!, name, `${base}|bucket:${bucket}|period:1d`, qid, v, underlying, {
        kind: 'bucket',
        expiry,
        thresholds,
        bucket,
      });
      q.outcomes.push({ ...outcome, bucket });
    });
    q.fallback = {
      ...this.listOutcome(fallbackId, 'Other', `${base}|fallback:true|period:1d`, qid, v, underlying, {
        kind: 'fixed',
        p: 0.01,
      }),
      bucket: -1,
    };
    this.open.push(q);
  }

  private listBinary(v: Venue, underlying: Market, target: number, expiry: number): void {
    const id = this.nextOutcomeId++;
    const coin = underlying.coin;
    const tag = expiryTag(expiry);
    const outcome = this.listOutcome(
      id,
      `${coin} above ${target}`,
      `class:priceBinary|underlying:${coin}|expiry:${tag}|targetPrice:${target}|period:1d`,
      null,
      v,
      underlying,
      { kind: 'bucket', expiry, thresholds: [target], bucket: 1 },
    );
    this.open.push({
      id: null,
      venue: v.venue,
      deployer: v.deployer,
      expiry,
      underlying,
      thresholds: [target],
      outcomes: [{ ...outcome, bucket: 1 }],
      fallback: null,
    });
  }

  /** An event question without a price underlying, emitted by the protocol oracle (no venue). */
  private listLegacyQuestion(expiry: number): void {
    const qid = this.nextQuestionId++;
    const tag = expiryTag(expiry);
    const names = ['Cut 25bp', 'Hold', 'Hike 25bp'];
    const ids = names.map(() => this.nextOutcomeId++);
    const fallbackId = this.nextOutcomeId++;
    const base = `class:event|topic:fomc|expiry:${tag}`;
    const oracle: Venue = { venue: '', deployer: '', feeScale: '1.0', subDeployers: [] };
    this.emit({
      QuestionRegistered: {
        question_id: qid,
        name: 'FOMC decision',
        description: base,
        fallback_outcome: fallbackId,
        named_outcomes: ids,
        venue: '',
        deployer: '',
      },
    });
    const q: Question = {
      id: qid,
      venue: '',
      deployer: '',
      expiry,
      underlying: null,
      thresholds: [],
      outcomes: [],
      fallback: null,
    };
    const start = [0.3, 0.6, 0.1];
    names.forEach((name, bucket) => {
      const outcome = this.listOutcome(
        ids[bucket]!,
        name,
        `${base}|option:${bucket}`,
        qid,
        oracle,
        null,
        null,
        start[bucket],
      );
      q.outcomes.push({ ...outcome, bucket });
    });
    q.fallback = {
      ...this.listOutcome(fallbackId, 'Other', `${base}|fallback:true`, qid, oracle, null, null, 0.01),
      bucket: -1,
    };
    this.open.push(q);
  }

  private listOutcome(
    id: number,
    name: string,
    description: string,
    questionId: number | null,
    v: Venue,
    underlying: Market | null,
    odds: OutcomeOdds | null,
    startProbability = 0.5,
  ): { id: number; sides: Market[] } {
    this.emit({
      OutcomeRegistered: {
        outcome_id: id,
        name,
        description,
        side_specs: SIDE_SPECS,
        question_id: questionId,
        quote_token: 'USDH',
        venue: v.venue,
        deployer: v.deployer,
      },
    });
    const sides = [0, 1].map((side) =>
      this.x.listOutcome({
        coin: `#${10 * id + side}`,
        px: side === 0 ? startProbability : 1 - startProbability,
        weight: 1,
        quoteToken: USDH_TOKEN,
        underlying,
        vol: 1.5,
        outcome: { outcomeId: id, side, odds: odds ?? { kind: 'fixed', p: startProbability } },
      }),
    );
    return { id, sides };
  }

  private settle(q: Question): void {
    let winner: Outcome | null = null;
    let details: string;
    if (q.underlying) {
      q.underlying.advance(this.x.now, this.x.rng);
      const px = q.underlying.markPx();
      const bucket = q.thresholds.filter((t) => px >= t).length;
      winner = q.outcomes.find((o) => o.bucket === bucket) ?? null;
      details = `${q.underlying.coin} mark ${px} at ${expiryTag(q.expiry)}`;
    } else {
      for (const o of q.outcomes) o.sides[0]!.advance(this.x.now, this.x.rng);
      // The oracle resolves to an outcome with the odds the market was pricing.
      const weights = q.outcomes.map((o) => o.sides[0]!.fair);
      let pick = this.rng.next() * weights.reduce((a, b) => a + b, 0);
      winner = q.outcomes[q.outcomes.length - 1]!;
      for (let i = 0; i < q.outcomes.length; i++) {
        pick -= weights[i]!;
        if (pick < 0) {
          winner = q.outcomes[i]!;
          break;
        }
      }
      details = `oracle resolved ${expiryTag(q.expiry)}`;
    }
    const all = q.fallback ? [...q.outcomes, q.fallback] : q.outcomes;
    for (const o of all) {
      const fraction = o === winner ? 1 : 0;
      this.emit({ OutcomeSettled: { outcome_id: o.id, settle_fraction: fraction === 1 ? '1.0' : '0.0', details } });
      this.settleSides(o, fraction);
    }
    if (q.id !== null) {
      this.emit({
        QuestionSettled: { question_id: q.id, settled_named_outcomes: winner && winner.bucket >= 0 ? [winner.id] : [] },
      });
    }
  }

  /**
   * Pays holders the settlement value in USDH and delists both side coins. Each holding is closed by a settlement
   * fill (dir `Settlement`): the holder sells its whole size to the exchange at the side's value, fee-free.
   */
  private settleSides(o: Outcome, fraction: number): void {
    const hash = this.rng.txHash();
    o.sides.forEach((m, side) => {
      const value = side === 0 ? fraction : 1 - fraction;
      this.x.delist(m, 'outcomeSettledCanceled');
      for (const acct of this.x.accounts) {
        const h = acct.outcomes.get(m);
        if (!h) continue;
        acct.holding(USDH_TOKEN).total += h.total * value;
        acct.outcomes.delete(m);
        if (h.total <= 1e-12) continue;
        const size = fmtNum(h.total, m.szDecimals);
        this.x.ev.fills.push([
          acct.address,
          {
            coin: m.coin,
            px: fmtNum(value, m.pxDecimals),
            sz: size,
            side: 'A',
            time: this.x.now,
            startPosition: size,
            dir: 'Settlement',
            closedPnl: fmtNum(h.total * value - h.entryNtl, 6),
            hash,
            oid: this.x.newOid(),
            crossed: false,
            fee: '0.0',
            tid: this.x.rng.tid(),
            feeToken: 'USDH',
            cloid: null,
            twapId: null,
          },
        ]);
      }
    });
  }

  private emit(inner: Hip4Inner): void {
    this.out.push({ time: this.x.ev.iso, hash: this.rng.txHash(), inner });
  }
}

/** The probability of `outcome`'s side winning, its underlying `m` at its fair price at `now`. */
export function sideProbability(outcome: OutcomeInfo, m: Market, now: number): number {
  const odds = outcome.odds;
  const p =
    odds.kind === 'fixed' ? odds.p : bucketProbability(m.fair, now, odds.expiry, m, odds.thresholds, odds.bucket);
  return outcome.side === 0 ? p : 1 - p;
}

/** Probability that the underlying ends in bucket `bucket` of `thresholds` (lognormal, the market's own vol). */
function bucketProbability(
  px: number,
  now: number,
  expiry: number,
  m: Market,
  thresholds: readonly number[],
  bucket: number,
): number {
  const tau = Math.max(60_000, expiry - now);
  const sigma = m.annualVol * Math.sqrt(tau / MS_PER_YEAR);
  const cdf = (k: number): number => normalCdf(Math.log(k / px) / sigma);
  const lower = bucket === 0 ? 0 : cdf(thresholds[bucket - 1]!);
  const upper = bucket >= thresholds.length ? 1 : cdf(thresholds[bucket]!);
  return upper - lower;
}

/** Abramowitz–Stegun 7.1.26. */
function normalCdf(z: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(z) / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(z * z) / 2);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

function roundSig(value: number, digits: number): number {
  return Number(value.toPrecision(digits));
}

/** 20261122-0600 */
function expiryTag(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}`;
}
