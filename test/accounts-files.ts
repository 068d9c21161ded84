// Test data for the accounts service tests: node events collected in memory, written as hand-made hl-node files
// (block numbers assigned in time order, as the node does) and loaded with the real ingest pipeline.
import { graphql } from 'graphql';
import type pg from 'pg';
import { accountsSchema } from '../domains/accounts/schema/index.ts';
import { AccountsService } from '../domains/accounts/service/index.ts';
import { InProcessBus } from '../events/bus.ts';
import { isoNs } from '../ingest/files.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { Upstream } from '../platform/upstream.ts';
import type { MiscEvent, NodeOrder, OrderStatusEvent, StreamName } from '../wire/node-lines.ts';
import type { TestDatabase } from './db.ts';
import { appendBlocks, block, hash, tempDataDir } from './node-files.ts';

export class NodeFiles {
  private readonly blocks = new Map<StreamName, { time: number; events: unknown[] }[]>();

  /** One block of `stream` at `time`. */
  add(stream: StreamName, time: number, events: unknown[]): this {
    const list = this.blocks.get(stream) ?? [];
    list.push({ time, events });
    this.blocks.set(stream, list);
    return this;
  }

  /** The time of the newest block of any stream (null: none). */
  get newest(): number | null {
    const times = [...this.blocks.values()].flatMap((list) => list.map((b) => b.time));
    return times.length ? Math.max(...times) : null;
  }

  /** Writes every stream's blocks in time order into a new node data dir; returns it and the streams written. */
  async write(): Promise<{ dataDir: string; streams: StreamName[] }> {
    const dataDir = await tempDataDir();
    let blockNumber = 1;
    for (const [stream, list] of this.blocks) {
      const sorted = [...list].sort((a, b) => a.time - b.time);
      await appendBlocks(
        dataDir,
        stream,
        sorted.map((b) => block(blockNumber++, b.time, b.events)),
      );
    }
    return { dataDir, streams: [...this.blocks.keys()] };
  }

  /** Writes the files and ingests them, publishing on `bus` when given. */
  async load(db: TestDatabase, bus?: InProcessBus): Promise<void> {
    const { dataDir, streams } = await this.write();
    await new Ingest({ dataDir, pool: db.pool, bus, streams, log: () => {} }).run();
  }
}

export function statusEvent(user: string, time: number, status: string, order: NodeOrder): OrderStatusEvent {
  return {
    time: isoNs(time, 250_000),
    user,
    hash: status === 'open' ? hash(order.oid) : null,
    builder: null,
    status,
    order,
  };
}

export function ledgerEvent(time: number, txHash: string, users: string[], delta: Record<string, unknown>): MiscEvent {
  return {
    time: isoNs(time),
    hash: txHash,
    inner: { LedgerUpdate: { users, delta: { type: String(delta.type), ...delta } } },
  };
}

/**
 * An accounts service over `pool` for a test of its stored history: a fresh bus, and a node that is never reached
 * (nothing asks it; a request would fail at once).
 */
export function accountsOver(pool: pg.Pool, now?: () => number): AccountsService {
  return new AccountsService({ pool, upstream: new Upstream('http://127.0.0.1:9'), bus: new InProcessBus(), now });
}

export interface ConnectionPage {
  edges: { cursor: string; node: Record<string, unknown> }[];
  pageInfo: unknown;
}

/**
 * A connection field of a user (`fills`, `orders`) run on the accounts schema, without a server: its edges (cursor
 * and node) and pageInfo, as JSON (graphql-js builds results without a prototype). Errors throw.
 */
export async function userConnection(
  accounts: AccountsService,
  user: string,
  field: string,
  args: string,
  selection: string,
): Promise<ConnectionPage> {
  const result = await graphql({
    schema: accountsSchema,
    source: `{ user(address: "${user}") { ${field}(${args}) { edges { cursor node { ${selection} } } pageInfo { hasNextPage endCursor } } } }`,
    contextValue: { accounts },
  });
  if (result.errors) throw new Error(result.errors.map((e) => e.message).join('; '));
  return JSON.parse(JSON.stringify(result.data)).user[field];
}
