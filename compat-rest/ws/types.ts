// What the /ws server needs from its host (info handler, upgrade authentication); what a channel module implements
// is kit/channel.ts's.
import type { IncomingMessage } from 'node:http';
import type { Channel } from '../../kit/channel.ts';
import type { ErrorCode } from '../../platform/error-codes.ts';
import type { ReplaySettings } from './resume.ts';

/**
 * What a connection authenticated with: the key it presented at the upgrade (null: none). Each `post` is checked
 * with it again, so that posts count against the key's rate limit and a revoked key stops being served.
 */
export type WsAuth = { key: string | null };

export type InfoAnswer = { status: number; body: unknown; encoded?: undefined } | { status: 200; encoded: Buffer };

/** An upgrade or subscribe refused; `retryAfter` (seconds) goes out as `Retry-After` on a refused upgrade. */
export type WsRefusal = { status: number; code: ErrorCode; error: string; retryAfter?: number };

/** A subscribe admitted for its key (and charged): `refund` gives the charge back if the channel then refuses it. */
export type WsAdmission = { ok: true; refund(): Promise<void> } | ({ ok: false } & WsRefusal);

export interface WsServerOptions {
  channels: readonly Channel[];
  /**
   * Answers a `post` request of type "info": the same handler as POST /info. Returns status + JSON body, or, for an
   * answer the service wrote as JSON itself, its bytes (embedded in the post frame without parsing them back).
   */
  info(payload: unknown, auth: WsAuth): Promise<InfoAnswer>;
  /**
   * Decides whether an upgrade is allowed (API key from `Authorization: Bearer`, `X-API-Key` or `?api_key=`);
   * returns WsAuth or an {status, error} refusal.
   */
  authenticate(req: IncomingMessage): Promise<WsAuth | WsRefusal>;
  /**
   * Admits (and charges) one subscribe with the connection's key, as a post is: counted in the key's rate limit,
   * refused for a revoked key or one without credits. Called once the subscription is valid. `count`: how many
   * subscriptions it stands for (its coins), counted and charged as that many; `credits`, when given, its price
   * instead. Default: all admitted.
   */
  admitSubscribe?(auth: WsAuth, credits?: number, count?: number): Promise<WsAdmission>;
  /** The `replay` subscription (ws/resume.ts): where the store has holes; without it, no replay channel. */
  replay?: ReplaySettings;
  /**
   * Subscribes whose snapshot is read from storage, per connection: `burst` at once, then `perMinute` (a token
   * bucket). Default 60 and 60.
   */
  storedSnapshots?: { burst: number; perMinute: number };
  /** Default 1000, the exchange's own limit. */
  maxSubscriptionsPerConnection?: number;
  /** Default 60_000: close a connection that sent nothing (not even a ping) for that long. */
  idleTimeoutMs?: number;
  /** Default 8 MiB: a connection whose unsent backlog grows past this is closed with 1013 (slow consumer). */
  maxBufferedBytes?: number;
  log?: (line: string) => void;
}
