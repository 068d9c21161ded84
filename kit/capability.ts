// A capability declared once: its input definition (kit/input.ts), its service call answering a finished page
// (kit/page.ts), the record one row is answered as, its cost, and the doors it has. Each transport's adapter makes
// its door from the declaration: compat-rest the path route (compat-rest/capability-routes.ts), the MCP server the
// tool (mcp/capability-tools.ts), the domain's subgraph the GraphQL fields (kit/capability-fields.ts). A request is
// read once, by the definition, on every door; what a door adds is only its own form of the same page. An /info type
// is a door too (compat-rest/capability-info.ts): its body read by the definition, answered in the exchange's shape.
//
// A capability answers either a page of rows (`page`, each row answered as its `record`) or one whole answer
// (`answer`: an object, an unpaged list), which may be null when there is nothing to answer (`missing` says why: a
// path route answers it as a 404, a tool as a note beside an empty answer), or null as an answer in itself (`orNull`:
// a coin without a book). A page's `nextCursor` is stated on the REST and MCP doors when the capability's input takes
// a `cursor` (an offset-paged list states `hasMore` only).
//
// A live capability (`live`) answers no page but a stream of events: a stored stream (every event a stored row:
// resumed from the store after a position, replayed over a stored window), a stream resumed from the event bus's log,
// or a stream of states from now on. Its doors are the subscription field with its `<name>Replay`
// (kit/live-fields.ts), the /ws channel (compat-rest/capability-channels.ts) and the MCP tool collecting it for some
// seconds (mcp/capability-tools.ts).
import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { FieldError } from '../platform/fields.ts';
import type { RouteAnswer } from './answers.ts';
import type { ChannelContext, StoredFrames } from './channel.ts';
import type { SubgraphPlatform } from './domain.ts';
import type { ListPage } from './envelopes.ts';
import { type ArgOptions, type Edge, type Input, namedOnEdge } from './input.ts';
import type { LiveStream, ResumableStream } from './live.ts';
import type { Page } from './page.ts';
import type { JsonSchema } from './request-schema.ts';
import type { Hole, StoredStream } from './resume.ts';

// biome-ignore lint/suspicious/noExplicitAny: a capability list holds capabilities of any input and row
type Any = any;

/**
 * The paging a page states: its rows, whether more follow, where the next page starts (a cursor or an offset), and
 * how many rows the whole list holds where the service counts them.
 */
export type Paged<R> = Pick<Page<R>, 'rows' | 'hasMore' | 'nextCursor'> & { cursors?: string[]; totalCount?: number };

/** A capability of a domain whose service is `S`, its input fields `P`, its rows `R`, its answer `A` (a page). */
export interface Capability<S = Any, P extends TProperties = Any, R = Any, A = Any> {
  /** camelCase, unique within its domain (`questions`). */
  name: string;
  /** Its input, stated once: every door's schema and its one reading of a request. */
  input: Input<P>;
  /**
   * The service call: a finished page of rows (null: `missing`). `selected`: the field names a GraphQL selection
   * asks for (the service may read only their columns); undefined on the other doors, which answer every field.
   * `platform`: what the door's process assembles over every domain (dataCoverage), for a capability that answers
   * of more than its own domain.
   */
  page?(
    service: S,
    input: Static<TObject<P>>,
    selected: ReadonlySet<string> | undefined,
    platform: SubgraphPlatform,
  ): Promise<A | null>;
  /** Or the service call answering one whole answer, not a page (null: `missing`). */
  answer?(
    service: S,
    input: Static<TObject<P>>,
    selected: ReadonlySet<string> | undefined,
    platform: SubgraphPlatform,
  ): Promise<A | null>;
  /** Why a null answer is empty, worded for the caller (`No backstop activity recorded for dex 'abc'`). */
  missing?(input: Static<TObject<P>>): string;
  /** One row as REST and MCP answer it (the domain's described record); the row as it is when absent. */
  record?(row: R): unknown;
  /**
   * Answered as an envelope (`{ ...envelope(page), count, data }`) instead of a bare array: what the envelope states
   * beside the records.
   */
  envelope?(page: A): Record<string, unknown>;
  /** Credits a call costs (the cost table is access/costs.ts); CALL_CREDITS when absent. */
  credits?(input: Static<TObject<P>>): number;
  /**
   * Its whole answer may be null, and null is an answer (a coin without a book), not something missing: every door answers
   * it as null (a path route's `data`, a tool's key), none as `missing`.
   */
  orNull?: true;
  /**
   * Its answer is an object the service hands out unchanged for as long as its data is (the mids, a book): /info
   * sends its JSON encoded once per object (kit/info.ts `sharedJson`), and a tool marks it (`shared`) so that the tool
   * server copies those bytes.
   */
  shared?: true;
  rest?: RestDoor<S, P, A>;
  info?: InfoDoor<S, P, A>;
  mcp?: McpDoor;
  graphql?: GraphqlDoor<P>;
  live?: LiveDoor<S, P>;
}

/**
 * The capability as a stream of events `E` (its input `P` read on every door by the definition): the streams the
 * service follows it by, and its doors.
 */
export interface LiveDoor<S, P extends TProperties, E = Any> {
  /** The stream's name: its subscription field (`userFills`), its replay's (`userFillsReplay`), its /ws type. */
  name: string;
  /** Its events from now on as the service follows them: what /ws sends and a tool collects (default `resumable`). */
  live?(service: S, input: Static<TObject<P>>): LiveStream<E> | Promise<LiveStream<E>>;
  /**
   * Its events read back from the store (kit/resume.ts): resumed after a position (the subscription's `after`, /ws
   * `after`) and replayed over a stored window (`<name>Replay`, /ws `replay`).
   */
  stored?(service: S, input: Static<TObject<P>>): StoredStream<E>;
  /** Whether the service has stored streams (markets' without an event bus has none); always when absent. */
  storing?(service: S): boolean;
  /** Or its events resumed from the event bus's log after a cursor (the subscription's `after`). */
  resumable?(service: S, input: Static<TObject<P>>): ResumableStream<E>;
  subscription?: SubscriptionDoor<P, E>;
  channel?: ChannelDoor<S, P, E>;
  collect?: CollectDoor<S, E>;
}

/**
 * The capability as a field of the subgraph's Subscription named as its stream, with `after` where its stream
 * resumes, and `<name>Replay` where it is stored (kit/replay-fields.ts).
 */
export interface SubscriptionDoor<P extends TProperties, E> {
  /** The object type of an item (a Pothos ref of the domain's builder). */
  type: unknown;
  description: string;
  /** An event is a batch of items, sized as the router's cost analysis assumes it (`@listSize(assumedSize)`). */
  batch?: number;
  /** The arguments' types where the domain declares its own (an enum). */
  types?: ArgOptions<P>['types'];
  /** Arguments left out (the field's input takes the definition's default). */
  omit?: readonly (keyof P & string)[];
  /**
   * An event as the field sends it, with its cursor where the stream resumes (default: a batch's items each given
   * the cursor, `withCursor`; one event given it, `cursorOn`; a live state as it is).
   */
  of?(event: E, cursor?: string): unknown;
  /** A stored stream followed from now with each frame's cursor only when asked: this argument's description. */
  positions?: string;
  /** The replay field's description (a stored stream's). */
  replay?: string;
  /** The events a slow reader may lag by before the oldest are dropped (a live state's); 1000 when absent. */
  queue?: number;
  /** A stream of state's recorded states, replayed over a window as `<name>Replay` (l2Book's recorded books). */
  recorded?: RecordedReplay<P>;
}

/**
 * The replay of a stream of state's recorded states (`<name>Replay`, its arguments the subscription's): each state
 * sent as it is, one frame's data; a gap frame where a window holds none. Never resumed, only replayed.
 */
export interface RecordedReplay<P extends TProperties> {
  /** The object type of a recorded state (a Pothos ref of the domain's builder). */
  type: unknown;
  description: string;
  /** The recorded states an input asks for, and where a window holds none (a FieldError refuses the input). */
  states(
    service: Any,
    input: Static<TObject<P>>,
  ): { stream: StoredStream<unknown>; holes(start: number, end: number): Promise<Hole[]> };
}

/**
 * The capability as a /ws channel: its subscription read by the definition as an /info body, acknowledged as sent with
 * what was read over it, resumed (`after`) and replayed from its stored stream, each stored event framed as a live one.
 */
export interface ChannelDoor<S, P extends TProperties, E> {
  /** `subscription.type` where not the stream's name (hip4Registry's channel: `hip4Events`). */
  type?: string;
  /**
   * Reads the subscription where not by the capability's definition (a selection of coins: `coin`, `coins` or `dex`,
   * by the channel's own definition): what `normalize`, `weight`, `start` and `frame` get as `input`.
   */
  read?(sub: Record<string, unknown>): Any;
  /** The data channel's name where not the type (userEvents → "user"). */
  channelName?(sub: Record<string, unknown>): string;
  /** The subscription as acknowledged, where not as sent with what was read over it. */
  normalize?(sub: Record<string, unknown>, input: Static<TObject<P>>): Record<string, unknown>;
  /** Its snapshot is read from storage (limited per connection). */
  storedSnapshot?: boolean;
  /** How many subscriptions it counts as (its coins). */
  weight?(service: S, input: Static<TObject<P>>): number | Promise<number>;
  /** Starts delivery, where not the live stream's snapshot then each event, framed (`sendStream`). */
  start?(service: S, input: Static<TObject<P>>, ctx: ChannelContext): (() => void) | Promise<() => void>;
  /** An event's frame data, where not the event itself. */
  frame?(event: E, input: Static<TObject<P>>): unknown;
  /** Recorded states a `replay` plays, for a channel of state (l2Book's book samples), where the service `storing`. */
  replay?(service: S, input: Static<TObject<P>>): StoredFrames;
}

/**
 * The capability as an MCP tool collecting its live stream for some seconds (kit/mcp-tool.ts `collect`): its input is
 * the stream's and `seconds`; its answer the items under `key` and their count (or the door's `answer` of them), then
 * why it stopped and the seconds taken.
 */
export interface CollectDoor<S, E> {
  /** snake_case, prefixed with the domain: `accounts_collect_liquidations`. */
  name: string;
  title: string;
  description: string;
  /** Its input: the stream's definition's fields, and `seconds`. */
  // biome-ignore lint/suspicious/noExplicitAny: a collect tool's input is its own definition
  input: Input<any>;
  /** The answer's key of the items. */
  key?: string;
  /** The most items it gathers: a number, or the input's (`maxTrades`). */
  // biome-ignore lint/suspicious/noExplicitAny: a collect tool's input is its own definition
  max: number | ((input: any) => number);
  /** An event's items (default: the event is one). */
  items?(event: E): readonly unknown[];
  /** The items start with the stream's state when the collection starts (its snapshot). */
  snapshot?: true;
  /** The stream collected, where not the capability's live one (every coin's mids), of the tool's input. */
  // biome-ignore lint/suspicious/noExplicitAny: a collect tool's input is its own definition
  stream?(service: S, input: any): LiveStream<E> | Promise<LiveStream<E>>;
  /** The answer made of the items, where not `{ [key]: items, count }`. */
  // biome-ignore lint/suspicious/noExplicitAny: a collect tool's input is its own definition
  answer?(items: any[], input: any): Record<string, unknown>;
  /** A one-line text of an answer, sent beside the structured content. */
  summary?(answer: Record<string, unknown>): string;
}

/** What a path route answers in the data envelope: its `data`, its paging, and keys stated beside them. */
export interface DataAnswer {
  data: unknown;
  page?: ListPage;
  beside?: Readonly<Record<string, unknown>>;
}

/** The capability as path routes under its domain's prefix (`A`: its answer). */
export interface RestDoor<S, P extends TProperties, A = Any> {
  /** Its paths under the prefix (an alias beside the first: `/markets`, `/outcomes`). */
  paths: readonly string[];
  /** A prefix of its own under the list's (`/fills`: its path `/` answers `/fills` and `/fills/`). */
  prefix?: string;
  /** GET (default), or POST: the input is then the JSON body's (its fields named as a query string names them). */
  method?: 'POST';
  /** What it answers, for the OpenAPI document (none: the data envelope). */
  answer?: RouteAnswer;
  /**
   * Path parameters, each the definition's field it gives (`{ address: 'token' }`; a refusal names the parameter);
   * left out of the query string.
   */
  params?: Readonly<Record<string, keyof P & string>>;
  /** Path parameters that are not the definition's (`chain`), by their schema: `check` reads them. */
  otherParams?: Readonly<Record<string, unknown>>;
  /** Refuses a request for what the definition does not read (an unknown `chain`: an HttpError), before the call. */
  check?(request: FastifyRequest): void;
  /**
   * Answered in the data envelope (`{success, message, data, execution_time_ms, has_more, ...}`), not as a bare
   * array with paging headers: `true` for a page's records (or an answer as it is); a function shapes an answer.
   */
  data?: true | ((answer: A) => DataAnswer);
  /** The query string's schema where it is not the definition's (`coin` as one comma-separated text); null: none. */
  querystring?(definition: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | null;
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

/**
 * The capability as /info types (POST /info, and /ws `post` through the same table): the body's schema is the
 * definition's (`body()`), checked and read in one pass by its `infoReader` before the call is charged, and answered
 * as the exchange answers the type: bare (a whole answer as it is; a page's records, with the paging headers
 * X-Has-More, X-Next-Cursor, X-Total-Count), in the result envelope (`{result, cursor}`, with the paging headers), or
 * as JSON text the service writes in chunks (`stream`). An /info call costs CALL_CREDITS: a capability with
 * `credits` has none.
 */
export interface InfoDoor<S, P extends TProperties, A = Any> {
  /** Its type (`userFills`), or several types answered alike (`userFunding`, `accountFunding`). */
  type: string | readonly string[];
  /** Fields a body does not give (left out of its schema and not read: the definition's default). */
  omit?: readonly (keyof P & string)[];
  /**
   * The key a body nests the definition's fields under (candleSnapshot's `{type, req: {coin, ...}}`): the schema holds
   * them there, and a refusal names them under it (`req.startTime: ...`).
   */
  nested?: string;
  /** Body fields beside the definition's, by their schema (a spelling or a type the exchange's clients send). */
  extra?: Readonly<Record<string, JsonSchema>>;
  /**
   * The body's schema where not the definition's (a bound the definition words better, left out of it): the body is
   * checked against it alone, so a rule it leaves out is the definition's `check`'s.
   */
  schema?(definition: JsonSchema): JsonSchema;
  /**
   * The body as the definition reads it, where it names a field otherwise (`include_order_type`); what it makes is
   * not checked again (the body's schema states each field's rule).
   */
  body?(body: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
  /** A page answered in the result envelope `{result, cursor: null}` (the paging in the headers). */
  result?: true;
  /**
   * The answer as JSON text the service writes in chunks (a user's fills), instead of the call's answer: its writer,
   * and the paging it states in the headers where it has one (known before the rows are written).
   */
  stream?(service: S, input: Static<TObject<P>>): Promise<StreamedAnswer>;
  /** The answer as the exchange words it, where not the call's (`time` in seconds). */
  of?(answer: A): unknown;
  /** The answer as JSON text the door writes itself (answers whose bytes are shared across callers, in one answer). */
  bytes?(answer: A): Buffer;
  /**
   * Relayed to the node instead, for a type the node answers itself (kit/proxy.ts `relay`): the body as sent, once
   * the definition has read it, cached this many ms (0: not cached), and the node's answer sent as it is. The call
   * then serves the capability's other doors.
   */
  relay?: number;
  /** With `relay`: relayed for these inputs only (clearinghouseState of one `user`, not of several `users`). */
  relayWhen?(input: Static<TObject<P>>): boolean;
  /** The JSON Schema of the 200 answer (OpenAPI; pinned against real answers by openapi-answers.test.ts). */
  response: JsonSchema;
}

/** An answer the service writes as JSON text in chunks (`write` hands each to `out`, resolving with the last). */
export interface StreamedAnswer {
  write(out: (chunk: Buffer) => void): Promise<Buffer>;
  paging?: { hasMore: boolean; nextCursor: string | null };
}

/** The capability as an MCP tool. */
export interface McpDoor {
  /** snake_case, prefixed with the domain: `hip4_questions`. */
  name: string;
  /** A short human title. */
  title: string;
  /** What it answers and when to choose it, written for a model choosing among tools. */
  description: string;
  /**
   * The answer's key of the records (a list: `{ questions: [...], hasMore, nextCursor }`), or of a whole answer (an
   * unpaged list: `{ dexes: [...] }`); without it a whole answer is the tool's answer as it is.
   */
  key?: string;
  /** A whole answer as the tool states it (under `key`), where not the call's as it is (a map as an object). */
  of?(answer: Any): unknown;
  /** What a page's answer states after its paging (a holders page's `totalRaw`). */
  beside?(answer: Any): Record<string, unknown>;
  /** A one-line text of an answer, sent beside the structured content. */
  summary?(answer: Record<string, unknown>): string;
}

/** How a GraphQL field answers: its type where not the door's, its cost, and what it makes of the answer. */
export interface FieldForm<P extends TProperties> {
  type?: unknown;
  description?: string;
  /** Whether the field may be null: by default, when its capability's answer may be (`orNull`) and no `of` maps it. */
  nullable?: boolean;
  /** Arguments left out (the field's input takes the definition's default). */
  omit?: readonly (keyof P & string)[];
  /** The field's cost directive (router/credits.ts): `listSize`. */
  listSize?: Readonly<Record<string, unknown>>;
  /**
   * The field's value from the call's answer (and the input, and the parent of a field of another type), where not
   * the answer itself (the first of a list; a question's outcomes in the question's order).
   */
  of?(answer: Any, input: Any, parent?: Any): unknown;
  /**
   * The arguments as the definition reads them, where this door's differ (an ID's digits as a number), or a rule of
   * this door's own (a FieldError naming the argument).
   */
  args?(args: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
}

/** The capability as a field of an object type (an entity's: `User.ledgerEvents`), its parent giving some input. */
export interface ParentField<P extends TProperties> extends FieldForm<P> {
  /** The object type (a Pothos ref of the domain's builder), or `Query`. */
  on: unknown;
  /** The field's name. */
  name: string;
  /** The input fields the parent gives (left out of the arguments), each from the parent. */
  given: Partial<Record<keyof P & string, (parent: Any) => unknown>>;
  /**
   * The page as a Relay connection (asked `after` a cursor, each edge's cursor its row's, the end cursor the page's
   * next), of the connection type `type` (default: one made and named after the row's type); the connection also
   * holds the `page` itself, for fields of its own (a lazy total).
   */
  connection?: true;
  /** A row as the connection's node, where not the row itself (the parent's user attached). */
  node?(row: Any, input: Any): unknown;
  /**
   * The answers of every parent the field is asked of in one response, one per input in their order (a page of
   * fills' builders, each one's revenue: one statement), instead of a call per parent. The field is loaded per field
   * path, so the inputs share the path's arguments and differ only in what each parent gives. Its type is no list.
   */
  batch?(service: Any, inputs: readonly Any[]): Promise<readonly unknown[]>;
}

/** The capability as fields of the subgraph's Query (and of other object types). */
export interface GraphqlDoor<P extends TProperties> extends FieldForm<P> {
  /** The object type of a row (a Pothos ref of the domain's builder), or of the whole answer. */
  type: unknown;
  /** What the fields answer. */
  description: string;
  /** A list field of the page's rows (the page asked by limit and offset). */
  list?: string;
  /** A Relay connection field of the page (asked `after` a cursor). */
  connection?: string;
  /** A Query field answering the call's whole answer (a page object, an envelope), as the type `type` describes. */
  answer?: string;
  /** The arguments' types where the domain declares its own (an enum). */
  types?: ArgOptions<P>['types'];
  /** Fields of other object types. */
  fields?: readonly ParentField<P>[];
}

/** A domain's capabilities: the list, and the prefix of their path routes. */
export interface Capabilities<S = Any> {
  prefix: string;
  list: readonly Capability<S>[];
}

/** Declares a capability of a page (its input and rows inferred from `input` and `page`). */
export const capability = <S, P extends TProperties, R, A extends Paged<R> = Page<R>>(
  c: Capability<S, P, R, A> & {
    page(
      service: S,
      input: Static<TObject<P>>,
      selected: ReadonlySet<string> | undefined,
      platform: SubgraphPlatform,
    ): Promise<A | null>;
  },
): Capability<S, P, R, A> => c;

/** Declares a capability of one whole answer (its input and answer inferred from `input` and `answer`). */
export const wholeCapability = <S, P extends TProperties, A>(
  c: Capability<S, P, unknown, A> & {
    answer(
      service: S,
      input: Static<TObject<P>>,
      selected: ReadonlySet<string> | undefined,
      platform: SubgraphPlatform,
    ): Promise<A | null>;
  },
): Capability<S, P, unknown, A> => c;

/**
 * Declares a lookup of the graph: one thing by its key (`input`), null when there is none, answered only as the Query
 * field `name` of type `type` (REST and MCP filter their lists by the same key).
 */
export const lookupCapability = <S, P extends TProperties, A>(
  name: string,
  input: Input<P>,
  type: unknown,
  answer: (service: S, input: Static<TObject<P>>) => Promise<A | null>,
): Capability<S, P, unknown, A> =>
  wholeCapability({ name, input, answer, orNull: true, graphql: { type, description: '', answer: name } });

/** Declares a live capability (its input and events inferred from `input` and `live`). */
export const liveCapability = <S, P extends TProperties, E>(
  c: Pick<Capability<S, P>, 'name' | 'input'> & { live: LiveDoor<S, P, E> },
): Capability<S, P> => c as Capability<S, P>;

/** Whether a capability's input takes a cursor: its pages then state the next page's cursor on REST and MCP. */
export const takesCursor = (c: Capability): boolean => Object.hasOwn(c.input.fields, 'cursor');

/** The call: the page or the whole answer, `platform` what the door's process assembles over every domain. */
export async function callOf(
  c: Capability,
  service: unknown,
  input: unknown,
  edge?: Edge,
  selected?: ReadonlySet<string>,
  platform?: SubgraphPlatform,
): Promise<unknown> {
  try {
    const call = c.page ?? (c.answer as NonNullable<Capability['answer']>);
    return await call(service, input as never, selected, platform as SubgraphPlatform);
  } catch (err) {
    // The service names a field by the definition's name; the caller hears it by the edge's.
    throw edge && err instanceof FieldError ? namedOnEdge(c.input, err, edge) : err;
  }
}
