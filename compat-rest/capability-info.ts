// The /info door of a domain's capabilities (kit/capability.ts): each capability with an `info` door becomes one or
// more /info types of the dispatcher's table (compat-rest/info/index.ts, shared by POST /info and /ws `post`). Its
// body's schema is the definition's (`body()`, less what the door omits, with its extra fields), and the body is
// checked against it and read by the definition in one pass (`infoReader`) before the call is charged; the handler
// calls the service with what was read and answers in the shape the door declares (bare, the result envelope, or
// JSON text streamed), a page with its paging headers; or relays the body to the node (`relay`).
import { type Capabilities, type Capability, callOf, type Paged } from '../kit/capability.ts';
import { pagingHeaders, resultEnvelope } from '../kit/envelopes.ts';
import {
  type CompatServices,
  encodedJson,
  type InfoEntry,
  type InfoReply,
  json,
  readInfo,
  sharedJson,
  streamedJson,
} from '../kit/info.ts';
import { nestedBody } from '../kit/input.ts';
import { relay } from '../kit/proxy.ts';
import { clientExtras } from '../kit/request-schema.ts';

type Info = NonNullable<Capability['info']>;
type Body = Readonly<Record<string, unknown>>;

/** The /info types of `domain`'s capabilities that have an /info door, in the list's order. */
export function capabilityInfo(domain: string, capabilities: Capabilities): Record<string, InfoEntry> {
  const types: Record<string, InfoEntry> = {};
  for (const c of capabilities.list) {
    const door = c.info;
    if (!door) continue;
    // /info charges CALL_CREDITS a call, whatever the type: a dearer capability would be undercharged there.
    if (c.credits) throw new Error(`capability ${c.name}: one with credits has no /info door (it charges one call)`);
    const entry = infoEntry(domain, c, door);
    for (const type of [door.type].flat()) types[type] = entry(type);
  }
  return types;
}

/** The entry of each of the door's types (each takes its clients' extra fields). */
function infoEntry(domain: string, c: Capability, door: Info): (type: string) => InfoEntry {
  const omit = door.omit ?? [];
  const definition = door.nested === undefined ? c.input.body(omit) : nestedBody(door.nested, c.input, omit);
  const withExtra = door.extra
    ? { ...definition, properties: { ...(definition.properties as object), ...door.extra } }
    : definition;
  const extra = Object.keys(door.extra ?? {});
  /** The body without what the definition does not read (the omitted fields, the extra ones, the type). */
  const readable = (body: Body): Body => {
    const named = door.body ? door.body(body) : body;
    if (!omit.length && !extra.length) return named;
    const kept = { ...named };
    for (const key of [...omit, ...extra]) delete kept[key];
    return kept;
  };
  const relayed = door.relay === undefined ? undefined : relay(door.relay, c.input);
  const schema = door.schema ? door.schema(withExtra) : withExtra;
  const handler = async (
    input: unknown,
    services: CompatServices,
    body: Record<string, unknown>,
  ): Promise<InfoReply> => {
    if (relayed && (door.relayWhen?.(input as never) ?? true)) return relayed(body, services);
    const service = (services as unknown as Record<string, unknown>)[domain];
    if (door.stream) {
      const { write, paging } = await door.stream(service, input as never);
      return streamedJson(write, paging && pagingHeaders(paging));
    }
    const answer = await callOf(c, service, input, 'info', undefined, services);
    if (door.bytes) return encodedJson(door.bytes(answer));
    if (answer === null || !c.page) {
      const value = door.of ? door.of(answer) : answer;
      return c.shared ? sharedJson(value as object | null) : json(value);
    }
    const page = answer as Paged<unknown>;
    const records = c.record ? page.rows.map((row) => c.record?.(row)) : page.rows;
    return json(door.result ? resultEnvelope(records) : records, pagingHeaders(page));
  };
  return (type) =>
    readInfo({
      schema,
      read: c.input.infoReader({ schema, extras: clientExtras(type), nested: door.nested, fields: readable }),
      handler,
      response: door.response,
    });
}
