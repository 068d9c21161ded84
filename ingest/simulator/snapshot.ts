// A simulator's state as bytes, to go on from in another process (Simulator.saveState and Simulator.resume): the
// object graph of its exchange, random streams, clock and rate controller, serialized by V8 (which keeps shared
// references and cycles) with the class of each object beside it, so that the objects read back have their
// prototypes again.
import v8 from 'node:v8';
import { Account } from './account.ts';
import { TraderBehaviour } from './behaviour.ts';
import { Cascade } from './cascade.ts';
import { OrderChurn } from './churn.ts';
import { BlockClock, BlockGrid, IsoFormatter } from './clock.ts';
import { DustConversion } from './dust.ts';
import { BlockEvents } from './events.ts';
import { EvmChain } from './evm.ts';
import { Exchange } from './exchange.ts';
import { OutcomeRegistry } from './hip4.ts';
import { LedgerActivity } from './ledger.ts';
import { Market } from './market.ts';
import { MarketData } from './market-data.ts';
import { RiskEngine } from './risk.ts';
import { Rng } from './rng.ts';

/** The classes a simulator's state holds instances of (an instance of any other class is refused). */
// biome-ignore lint/suspicious/noExplicitAny: constructors of any signature
const CLASSES: readonly (abstract new (...args: any[]) => object)[] = [
  Account,
  TraderBehaviour,
  BlockClock,
  BlockGrid,
  IsoFormatter,
  BlockEvents,
  EvmChain,
  Exchange,
  OutcomeRegistry,
  LedgerActivity,
  MarketData,
  Market,
  RiskEngine,
  Rng,
  Cascade,
  DustConversion,
  OrderChurn,
];
const CLASS_INDEX = new Map<object, number>(CLASSES.map((c, i) => [c.prototype, i]));
/** Prototypes V8's serializer keeps by itself. */
const NATIVE = new Set<object | null>([
  null,
  Object.prototype,
  Array.prototype,
  Map.prototype,
  Set.prototype,
  Date.prototype,
]);

interface Saved {
  root: unknown;
  /** Every object of `root` that is an instance of CLASSES[index], with the index. */
  instances: [object, number][];
}

/** `root` as bytes; throws for a function or an instance of a class outside CLASSES anywhere in it. */
export function saveGraph(root: unknown): Buffer {
  const instances: [object, number][] = [];
  const seen = new Set<object>();
  // Each object with where it was found, for the error naming what cannot be saved.
  const pending: [object, string][] = [];
  const visit = (value: unknown, at: string) => {
    if (typeof value === 'function') throw new Error(`simulator state: a function at ${at}`);
    if (typeof value === 'object' && value !== null && !seen.has(value)) {
      seen.add(value);
      pending.push([value, at]);
    }
  };
  visit(root, 'state');
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, at] = next;
    if (ArrayBuffer.isView(value)) continue;
    const proto = Object.getPrototypeOf(value);
    if (!NATIVE.has(proto)) {
      const index = CLASS_INDEX.get(proto);
      if (index === undefined) {
        throw new Error(`simulator state: a ${proto?.constructor?.name} at ${at}, not in snapshot.ts CLASSES`);
      }
      instances.push([value, index]);
    }
    if (value instanceof Map) {
      for (const [k, v] of value) {
        visit(k, `${at} (a key)`);
        visit(v, `${at}.get(${String(k)})`);
      }
    } else if (value instanceof Set) {
      for (const v of value) visit(v, `${at} (an element)`);
    } else {
      for (const [k, v] of Object.entries(value)) visit(v, `${at}.${k}`);
    }
  }
  return v8.serialize({ root, instances } satisfies Saved);
}

/** The graph saveGraph saved, its class instances with their prototypes. */
export function loadGraph(bytes: Buffer): unknown {
  const saved = v8.deserialize(bytes) as Saved;
  for (const [object, index] of saved.instances) Object.setPrototypeOf(object, CLASSES[index]!.prototype);
  return saved.root;
}
