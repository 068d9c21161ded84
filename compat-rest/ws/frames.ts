// Wire texts of the /ws protocol: server frames, error messages, and the identity key of a subscription.
import type { RawData } from 'ws';
import { jsonBytes, sortedJson, utf8 } from '../../platform/json-text.ts';

/** The one frame without `data`; clients match it byte for byte. */
export const PONG_FRAME = '{"channel":"pong"}';

/**
 * Frames already encoded, as UTF-8 bytes, per payload object: a payload fanned out to many subscribers is serialized
 * and encoded once (sending a string would encode it again for every socket).
 */
const encoded = new WeakMap<object, Map<string, Buffer>>();

export function encodeFrame(channel: string, data: unknown): Buffer {
  if (typeof data !== 'object' || data === null) return jsonBytes({ channel, data });
  let byChannel = encoded.get(data);
  if (!byChannel) {
    byChannel = new Map();
    encoded.set(data, byChannel);
  }
  let bytes = byChannel.get(channel);
  if (bytes === undefined) {
    bytes = jsonBytes({ channel, data });
    byChannel.set(channel, bytes);
  }
  return bytes;
}

/**
 * The post frame of an info answer whose JSON is already written: the bytes encodeFrame would give for the parsed
 * answer, without parsing it (a 2 000-fill answer is ~600 KB).
 */
export function encodedPostFrame(id: number, infoType: unknown, data: Buffer): Buffer {
  const frame = JSON.stringify({
    channel: 'post',
    data: { id, response: { type: 'info', payload: { type: infoType, data: 0 } } },
  });
  const end = '0}}}}';
  return Buffer.concat([utf8(frame.slice(0, -end.length)), data, utf8(end.slice(1))]);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of a client frame; clients send text, but a binary frame carrying JSON is accepted as well. */
export function frameText(raw: RawData): string {
  if (Array.isArray(raw)) return Buffer.concat(raw).toString('utf8');
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  return Buffer.from(raw).toString('utf8');
}

/**
 * Identity of a normalised subscription: JSON with object keys sorted at every level, so that key order in the
 * client's frame does not make `{coin, type}` and `{type, coin}` two subscriptions.
 */
export function subscriptionKey(sub: Record<string, unknown>): string {
  return sortedJson(sub);
}

/**
 * Free text inside an error frame must not contain braces: the nktkas SDK takes the greedy `{.*}` of every error
 * message and JSON.parses it (to find the request it belongs to), and a parse failure there is an uncaught
 * exception in the client. Only a JSON object we embed on purpose may carry braces.
 */
export function braceFree(text: string): string {
  return text.replace(/[{]/g, '(').replace(/[}]/g, ')');
}

/** `{"error": "..."}`'s message, or the body itself when it is a string (the 422 text), for a post error. */
export function errorMessageOf(body: unknown): string {
  if (isRecord(body) && typeof body.error === 'string') return body.error;
  if (typeof body === 'string') return body;
  return JSON.stringify(body) ?? 'no body';
}
