// node_order_statuses_by_block (one row per status event) and node_twap_statuses_by_block.

import type { OrderStatusRow, TwapStatusRow } from '../../db/rows/accounts.ts';
import { orderStatusesTable, twapStatusesTable } from '../../db/rows/accounts.ts';
import { address, array, bool, dec, int, isoTime, object, optStr, side, str } from '../../platform/fields.ts';
import { parseIsoNs } from '../files.ts';
import type { StreamLoader } from './loader.ts';

export function parseOrderStatus(event: unknown, blockNumber: number): OrderStatusRow {
  const e = object(event, 'event');
  const o = object(e.order, 'order');
  const builder = e.builder === undefined || e.builder === null ? null : object(e.builder, 'builder');
  return {
    block_number: blockNumber,
    time: isoTime(e, 'time', parseIsoNs),
    address: address(e, 'user'),
    status: str(e, 'status'),
    hash: optStr(e, 'hash'),
    builder: builder ? address(builder, 'b') : null,
    builder_fee: builder ? int(builder, 'f') : null,
    oid: int(o, 'oid'),
    cloid: optStr(o, 'cloid'),
    coin: str(o, 'coin'),
    side: side(o, 'side'),
    limit_px: dec(o, 'limitPx'),
    sz: dec(o, 'sz'),
    orig_sz: dec(o, 'origSz'),
    order_time: int(o, 'timestamp'),
    trigger_condition: str(o, 'triggerCondition'),
    is_trigger: bool(o, 'isTrigger'),
    trigger_px: dec(o, 'triggerPx'),
    is_position_tpsl: bool(o, 'isPositionTpsl'),
    reduce_only: bool(o, 'reduceOnly'),
    order_type: str(o, 'orderType'),
    tif: optStr(o, 'tif'),
    children: o.children === undefined ? [] : array(o.children, 'children'),
  };
}

export const orderStatusesLoader: StreamLoader = {
  stream: 'node_order_statuses_by_block',
  loadBlock(ctx, events, batch) {
    for (const event of events) {
      const row = parseOrderStatus(event, ctx.blockNumber);
      batch.add(orderStatusesTable, row);
      batch.publish('orderStatuses', row);
    }
  },
};

export function parseTwapStatus(event: unknown, blockNumber: number): TwapStatusRow {
  const e = object(event, 'event');
  const s = object(e.state, 'state');
  const status = e.status;
  let name: string;
  let error: string | null = null;
  if (typeof status === 'string') name = status;
  else {
    name = 'error';
    error = str(object(status, 'status'), 'error');
  }
  return {
    block_number: blockNumber,
    time: isoTime(e, 'time', parseIsoNs),
    twap_id: int(e, 'twap_id'),
    address: address(s, 'user'),
    coin: str(s, 'coin'),
    side: side(s, 'side'),
    sz: dec(s, 'sz'),
    executed_sz: dec(s, 'executedSz'),
    executed_ntl: dec(s, 'executedNtl'),
    minutes: int(s, 'minutes'),
    reduce_only: bool(s, 'reduceOnly'),
    randomize: bool(s, 'randomize'),
    started_at: int(s, 'timestamp'),
    status: name,
    error,
  };
}

export const twapStatusesLoader: StreamLoader = {
  stream: 'node_twap_statuses_by_block',
  loadBlock(ctx, events, batch) {
    for (const event of events) {
      const row = parseTwapStatus(event, ctx.blockNumber);
      batch.add(twapStatusesTable, row);
      batch.publish('twapStatuses', row);
    }
  },
};
