// Trigger orders (stop loss / take profit): placed and cancelled as reduce-only orders; when the mark price
// reaches one it fires as a market execution under the same oid.
import type { NodeOrder } from '../../wire/node-lines.ts';
import type { Account } from './account.ts';
import { fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { Market, TriggerOrder } from './market.ts';
import { executeTaker } from './matching.ts';
import { emitStatus, triggerNodeOrder } from './statuses.ts';

export function placeTrigger(
  x: Exchange,
  user: Account,
  m: Market,
  isBuy: boolean,
  lots: number,
  triggerPx: number,
  isTakeProfit: boolean,
  isPositionTpsl: boolean,
  cloid: string | null,
): void {
  // A buy stop fires on the way up; a buy take-profit on the way down (and the reverse for sells).
  const below = isBuy === isTakeProfit;
  const trigger: TriggerOrder = {
    oid: x.newOid(),
    user,
    market: m,
    isBuy,
    sz: lots,
    triggerPx,
    below,
    isTakeProfit,
    limitPx: isBuy ? Math.ceil(triggerPx * 1.1) : Math.max(1, Math.floor(triggerPx * 0.9)),
    timestamp: x.now,
    cloid,
    isPositionTpsl,
    slot: 0,
  };
  m.triggers.push(trigger);
  user.addTrigger(trigger);
  m.refreshTriggerBounds();
  emitStatus(x, user, x.rng.txHash(), null, 'open', triggerNodeOrder(trigger));
}

export function cancelTrigger(x: Exchange, trigger: TriggerOrder, status: string, hash: string | null): void {
  const m = trigger.market;
  const at = m.triggers.indexOf(trigger);
  if (at >= 0) m.triggers.splice(at, 1);
  trigger.user.removeTrigger(trigger);
  m.refreshTriggerBounds();
  emitStatus(x, trigger.user, hash, null, status, triggerNodeOrder(trigger));
}

export function checkTriggers(x: Exchange, m: Market): void {
  const mark = m.markTicks();
  if (mark > m.triggerBelowMax && mark < m.triggerAboveMin) return;
  const due = m.triggers.filter((t) => (t.below ? mark <= t.triggerPx : mark >= t.triggerPx));
  for (const t of due) fireTrigger(x, t);
}

/** `triggered`, then a market execution under the same oid, then `filled` as a plain (no longer trigger) order. */
function fireTrigger(x: Exchange, t: TriggerOrder): void {
  const m = t.market;
  const pos = t.user.positions.get(m);
  const posLots = pos ? pos.szi : 0;
  const reducible = t.isBuy ? Math.max(0, -posLots) : Math.max(0, posLots);
  const lots = Math.min(t.sz, reducible);
  if (lots === 0) {
    cancelTrigger(x, t, 'reduceOnlyCanceled', null);
    return;
  }
  const at = m.triggers.indexOf(t);
  if (at >= 0) m.triggers.splice(at, 1);
  t.user.removeTrigger(t);
  m.refreshTriggerBounds();
  emitStatus(x, t.user, null, null, 'triggered', triggerNodeOrder(t));
  const hash = x.rng.txHash();
  const result = executeTaker(x, {
    user: t.user,
    market: m,
    isBuy: t.isBuy,
    sz: lots,
    limitPx: t.limitPx,
    oid: t.oid,
    hash,
    cloid: t.cloid,
    builder: null,
    twapId: null,
    liquidation: null,
    liquidatedDir: null,
  });
  const remaining = lots - result.lots;
  const order: NodeOrder = {
    ...triggerNodeOrder(t),
    sz: fmtUnits(remaining, m.szDecimals),
    timestamp: x.now,
    triggerCondition: 'Triggered',
    isTrigger: false,
    triggerPx: '0.0',
    tif: 'Gtc',
  };
  emitStatus(x, t.user, hash, null, remaining === 0 ? 'filled' : 'canceled', order);
}
