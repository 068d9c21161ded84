// A capability declared once: its input definition (kit/input.ts), its service call answering a finished page
// (kit/page.ts), the record one row is answered as, its cost, and the doors it has. Each transport's adapter makes
// its door from the declaration: compat-rest the path route (compat-rest/capability-routes.ts), the MCP server the
// tool (mcp/capability-tools.ts), the domain's subgraph the GraphQL fields (kit/capability-fields.ts). A request is
// read once, by the definition, on every door; what a door adds is only its own form of the same page.
import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteAnswer } from './answers.ts';
import type { ArgOptions, Input } from './input.ts';
import type { Page } from './page.ts';

// biome-ignore lint/suspicious/noExplicitAny: a capability list holds capabilities of any input and row
type Any = any;

/** A capability of a domain whose service is `S`, its input fields `P`, its rows `R`, its answer `A` (a page). */
export interface Capability<S = Any, P extends TProperties = Any, R = Any, A extends Page<R> = Page<R>> {
  /** camelCase, unique within its domain (`questions`). */
  name: string;
  /** Its input, stated once: every door's schema and its one reading of a request. */
  input: Input<P>;
  /** The service call: a finished page of rows. */
  page(service: S, input: Static<TObject<P>>): Promise<A>;
  /** One row as REST and MCP answer it (the domain's described record). */
  record(row: R): unknown;
  /**
   * Answered as an envelope (`{ ...envelope(page), count, data }`) instead of a bare array: what the envelope states
   * beside the records.
   */
  envelope?(page: A): Record<string, unknown>;
  /** Credits a call costs (the cost table is access/costs.ts); CALL_CREDITS when absent. */
  credits?(input: Static<TObject<P>>): number;
  rest?: RestDoor<S, P>;
  mcp?: McpDoor;
  graphql?: GraphqlDoor<P>;
}

/** The capability as path routes under its domain's prefix. */
export interface RestDoor<S, P extends TProperties> {
  /** Its paths under the prefix (an alias beside the first: `/markets`, `/outcomes`). */
  paths: readonly string[];
  /** What it answers, for the OpenAPI document. */
  answer: RouteAnswer;
  /** The query string's schema where it is not the definition's (`coin` as one comma-separated text). */
  querystring?(definition: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
  /** The definition's fields from a request whose query names them otherwise (`coin=290,291` for `coins`). */
  fields?(request: FastifyRequest): Readonly<Record<string, unknown>>;
  /**
   * Writes each row of the page as JSON text itself (a large list printed from Postgres's text, no object per row),
   * instead of `record`: resolves to the page's paging.
   */
  text?(
    service: S,
    input: Static<TObject<P>>,
    push: (json: string) => void,
  ): Promise<{ hasMore: boolean; nextCursor: string | null }>;
  /** Bytes to reserve per row for `text`. */
  rowBytes?: number;
}

/** The capability as an MCP tool. */
export interface McpDoor {
  /** snake_case, prefixed with the domain: `hip4_questions`. */
  name: string;
  /** A short human title. */
  title: string;
  /** What it answers and when to choose it, written for a model choosing among tools. */
  description: string;
  /** The answer's key of the records (a list: `{ questions: [...], hasMore, nextCursor }`). */
  key?: string;
  /** A one-line text of an answer, sent beside the structured content. */
  summary?(answer: Record<string, unknown>): string;
}

/** The capability as fields of the subgraph's Query. */
export interface GraphqlDoor<P extends TProperties> {
  /** The object type of a row (a Pothos ref of the domain's builder). */
  type: unknown;
  /** What the fields answer. */
  description: string;
  /** A list field of the page's rows (the page asked by limit and offset). */
  list?: string;
  /** A Relay connection field of the page (asked `after` a cursor). */
  connection?: string;
  /** A field answering the call's whole answer, as the type `type` describes (an envelope). */
  answer?: string;
  /** The arguments' types where the domain declares its own (an enum). */
  types?: ArgOptions<P>['types'];
}

/** A domain's capabilities: the list, and the prefix of their path routes. */
export interface Capabilities<S = Any> {
  prefix: string;
  list: readonly Capability<S>[];
}

/** Declares a capability (its input and rows inferred from `input` and `page`). */
export const capability = <S, P extends TProperties, R, A extends Page<R> = Page<R>>(
  c: Capability<S, P, R, A>,
): Capability<S, P, R, A> => c;
