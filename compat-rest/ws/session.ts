// One /ws connection: parses the client's frames, owns this connection's subscriptions and their teardowns,
// answers pings and `post` info requests, and enforces the per-connection limits (subscriptions, idle, backlog).
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { isStorageUnavailable, STORAGE_UNAVAILABLE } from '../../db/unavailable.ts';
import type { Channel, ChannelContext } from '../../kit/channel.ts';
import { rememberJsonSource } from '../../kit/json-source.ts';
import { codeOfBody, type ErrorCode } from '../../platform/error-codes.ts';
import { FieldError } from '../../platform/fields.ts';
import { nestsDeeper, tooDeep } from '../../platform/json-depth.ts';
import { jsonBytes } from '../../platform/json-text.ts';
import {
  braceFree,
  encodedPostFrame,
  encodeFrame,
  errorMessageOf,
  frameText,
  isRecord,
  PONG_FRAME,
  subscriptionKey,
} from './frames.ts';
import { type ResumeRequest, resumeKind, resumeOf, startResumed } from './resume.ts';
import type { WsAuth, WsServerOptions } from './types.ts';

/** The exchange's limit on in-flight posts per connection; more are refused with its own message. */
const MAX_PENDING_POSTS = 100;

/** How long a shutting-down client gets to answer our close frame before its socket is cut. */
const SHUTDOWN_GRACE_MS = 2_000;

export interface SessionSettings {
  channels: ReadonlyMap<string, Channel>;
  info: WsServerOptions['info'];
  maxSubscriptions: number;
  idleTimeoutMs: number;
  maxBufferedBytes: number;
  admitSubscribe: NonNullable<WsServerOptions['admitSubscribe']>;
  storedSnapshots: NonNullable<WsServerOptions['storedSnapshots']>;
  log: (line: string) => void;
}

interface Subscription {
  readonly channel: Channel;
  readonly normalized: Record<string, unknown>;
  /** What the channel's `read` made of the subscription. */
  readonly input: unknown;
  /** Its `after` / `positions` (ws/resume.ts): null when it asked for neither. */
  readonly resume: ResumeRequest | null;
  readonly dataChannel: string;
  /** False once unsubscribed, failed or the connection went away: sends are dropped, a late teardown runs at once. */
  live: boolean;
  teardown: (() => void) | null;
  /** How many subscriptions it counts as (its coins: Channel.weight). */
  readonly weight: number;
}

export class WsSession {
  /** Resolves when the socket has closed (for any reason). */
  readonly finished: Promise<void>;
  private readonly socket: WebSocket;
  private readonly auth: WsAuth;
  private readonly settings: SessionSettings;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly idleTimer: NodeJS.Timeout;
  private pendingPosts = 0;
  private disposed = false;
  /** Whether the socket is corked until the next tick (sendText). */
  private corked = false;
  /**
   * Subscribes and unsubscribes run one after another, in the order sent (a subscribe waits for its key's
   * admission, and one with a stored snapshot for that snapshot), so that an unsubscribe always finds the subscribe
   * sent before it.
   */
  private commands: Promise<void> = Promise.resolve();
  private queuedCommands = 0;
  /** The stored-snapshot token bucket (settings.storedSnapshots). */
  private snapshotTokens: number;
  private snapshotsCountedAt = Date.now();

  constructor(socket: WebSocket, auth: WsAuth, settings: SessionSettings) {
    this.socket = socket;
    this.auth = auth;
    this.settings = settings;
    this.snapshotTokens = settings.storedSnapshots.burst;
    this.finished = new Promise((resolve) => socket.once('close', () => resolve()));
    this.idleTimer = setTimeout(() => this.closeWith(1000, 'idle timeout'), settings.idleTimeoutMs);
    socket.on('message', (raw) => this.onMessage(raw));
    // A protocol-level ping is a sign of life too (the exchange's clients use the JSON ping, others may not).
    socket.on('ping', () => this.idleTimer.refresh());
    socket.on('error', (err) => settings.log(`ws: socket error: ${err.message}`));
    socket.on('close', () => this.dispose());
  }

  /** The connection's subscriptions as the cap counts them: each by its weight (a subscription of 50 coins is 50). */
  private held(): number {
    let n = 0;
    for (const s of this.subscriptions.values()) n += s.weight;
    return n;
  }

  /** The channel of each live subscription (for the metrics). */
  liveChannels(): string[] {
    return [...this.subscriptions.values()].filter((s) => s.live).map((s) => s.channel.type);
  }

  /** Closes with 1001 (server going away) and waits for the socket to be gone, cutting it after a grace period. */
  async shutdown(): Promise<void> {
    this.closeWith(1001, 'server shutting down');
    const cut = setTimeout(() => this.socket.terminate(), SHUTDOWN_GRACE_MS);
    await this.finished;
    clearTimeout(cut);
  }

  private onMessage(raw: RawData): void {
    this.idleTimer.refresh();
    let message: unknown;
    let text: string;
    try {
      text = frameText(raw);
      if (nestsDeeper(text)) {
        this.sendError(`Invalid message: ${tooDeep('message')}`, 'bad_input');
        return;
      }
      message = JSON.parse(text);
    } catch {
      this.sendError('Invalid message: not valid JSON', 'malformed_json');
      return;
    }
    if (!isRecord(message)) {
      this.sendError('Invalid message: expected a JSON object with a "method"', 'malformed_json');
      return;
    }
    switch (message.method) {
      case 'ping':
        this.sendText(PONG_FRAME);
        return;
      case 'subscribe':
        this.enqueue(() => this.subscribe(message.subscription));
        return;
      case 'unsubscribe':
        this.enqueue(async () => this.unsubscribe(message.subscription));
        return;
      case 'post':
        void this.post(message.id, message.request, text);
        return;
      default:
        this.sendError(`Unknown method: ${braceFree(String(JSON.stringify(message.method)))}`, 'unknown_type');
    }
  }

  private enqueue(command: () => Promise<void>): void {
    if (this.queuedCommands >= this.settings.maxSubscriptions) {
      this.sendError(
        `Too many pending subscription requests (at most ${this.settings.maxSubscriptions})`,
        'rate_limited',
      );
      return;
    }
    this.queuedCommands++;
    this.commands = this.commands
      .then(() => (this.disposed ? undefined : command()))
      .catch((err: unknown) => void this.failureOf(err, 'subscription request'))
      .finally(() => {
        this.queuedCommands--;
      });
  }

  /**
   * Takes one stored snapshot from the connection's bucket: 0 when there was one, else the seconds until there is.
   */
  private takeSnapshot(): number {
    const { burst, perMinute } = this.settings.storedSnapshots;
    const now = Date.now();
    this.snapshotTokens = Math.min(burst, this.snapshotTokens + ((now - this.snapshotsCountedAt) * perMinute) / 60_000);
    this.snapshotsCountedAt = now;
    if (this.snapshotTokens >= 1) {
      this.snapshotTokens--;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.snapshotTokens) * 60) / perMinute));
  }

  private async subscribe(sent: unknown): Promise<void> {
    if (!isRecord(sent)) {
      this.sendError('Invalid subscription: expected an object with a "type"', 'bad_input');
      return;
    }
    // Errors quote the subscription as sent: the SDK finds its pending request by that echo.
    const sentJson = JSON.stringify(sent);
    const channel = typeof sent.type === 'string' ? this.settings.channels.get(sent.type) : undefined;
    if (!channel) {
      this.sendError(`Invalid subscription ${sentJson}`, 'unknown_type');
      return;
    }
    let input: unknown;
    let normalized: Record<string, unknown>;
    let dataChannel: string;
    let resume: ResumeRequest | null;
    let sub: Record<string, unknown>;
    try {
      // `after` / `positions` are the resume layer's, not the channel's: its identity is the subscription without them.
      ({ sub, resume } = resumeOf(sent));
      input = channel.read?.(sub);
      normalized = channel.normalize(sub, input);
      dataChannel = channel.channelName?.(normalized) ?? channel.type;
    } catch (err) {
      const { reason, code } = this.failureOf(err, `normalize ${channel.type}`);
      this.sendError(`Invalid subscription ${sentJson}: ${reason}`, code);
      return;
    }
    const key = subscriptionKey(normalized);
    if (this.subscriptions.has(key)) {
      this.sendError(`Already subscribed: ${sentJson}`, 'bad_input');
      return;
    }
    // A subscription of many coins counts each (an unknown dex is refused here, as bad parameters are).
    let weight: number;
    try {
      weight = (await channel.weight?.(input)) ?? 1;
    } catch (err) {
      const { reason, code } = this.failureOf(err, `weigh ${channel.type}`);
      this.sendError(`Invalid subscription ${sentJson}: ${reason}`, code);
      return;
    }
    const held = this.held();
    if (held + weight > this.settings.maxSubscriptions) {
      // Embedding the whole request envelope lets the SDK reject the matching pending subscribe.
      const request = JSON.stringify({ method: 'subscribe', subscription: sent });
      const cap = `at most ${this.settings.maxSubscriptions} per connection`;
      const counted = weight === 1 ? '' : `, a coin counting as one: ${held} held, this one ${weight}`;
      this.sendError(`Too many subscriptions (${cap}${counted}): ${request}`, 'too_many_subscriptions');
      return;
    }
    // Refusals from here on echo the whole request envelope, which the SDK matches to its pending subscribe.
    const request = JSON.stringify({ method: 'subscribe', subscription: sent });
    if (channel.storedSnapshot) {
      const wait = this.takeSnapshot();
      if (wait > 0) {
        const { burst, perMinute } = this.settings.storedSnapshots;
        const limit = `at most ${burst} at once and ${perMinute} a minute per connection`;
        this.sendError(
          `Subscription refused (stored snapshots: ${limit}; retry in ${wait} s): ${request}`,
          'rate_limited',
        );
        return;
      }
    }
    const admitted = await this.settings.admitSubscribe(this.auth, channel.credits?.(input), weight);
    if (!admitted.ok) {
      if (channel.storedSnapshot) this.snapshotTokens++;
      this.sendError(
        `Subscription refused (${admitted.status} ${braceFree(admitted.error)}): ${request}`,
        admitted.code,
      );
      return;
    }
    if (this.disposed) return;
    const subscription: Subscription = {
      channel,
      normalized,
      input,
      resume,
      dataChannel,
      live: true,
      teardown: null,
      weight,
    };
    this.subscriptions.set(key, subscription);
    if (resume) {
      const { after: _a, positions: _p, ...keys } = sent;
      const echo = { ...normalized, ...(sent.after === undefined ? {} : { after: sent.after }), ...keys };
      this.sendFrame('subscriptionResponse', {
        method: 'subscribe',
        subscription: { ...echo, ...('positions' in sent ? { positions: sent.positions } : {}) },
        resume: resumeKind(channel),
      });
    } else this.sendFrame('subscriptionResponse', { method: 'subscribe', subscription: normalized });
    const started = this.start(key, subscription, admitted.refund);
    // One stored snapshot read at a time per connection: the next request waits for it.
    if (channel.storedSnapshot) await started;
  }

  /** Starts delivery; resolves once the channel started or failed (a refusal of its input gives the charge back). */
  private async start(key: string, subscription: Subscription, refund: () => Promise<void>): Promise<void> {
    // The ack itself may have tripped the backlog limit and closed the connection.
    if (!subscription.live) return;
    const ctx: ChannelContext = {
      send: (data) => {
        if (subscription.live) this.sendFrame(subscription.dataChannel, data);
      },
      sendAt: (data, position, channel = subscription.dataChannel) => {
        if (subscription.live && !this.disposed) {
          this.sendText(jsonBytes(position === undefined ? { channel, data } : { channel, data, position }));
        }
      },
      ready: () => this.drained(subscription),
      fail: (err) => this.startFailed(key, subscription, err),
    };
    try {
      const { channel, normalized, input, resume } = subscription;
      this.adoptTeardown(
        subscription,
        await (resume ? startResumed(channel, normalized, input, resume, ctx) : channel.start(normalized, ctx, input)),
      );
    } catch (err) {
      if (err instanceof FieldError) await refund().catch((e: unknown) => void this.failureOf(e, 'refund'));
      this.startFailed(key, subscription, err);
    }
  }

  /**
   * Resolves once this connection's unsent backlog is under half its limit (a resumed stream's stored rows are read no
   * faster than the client takes them); false once the subscription is gone.
   */
  private async drained(subscription: Subscription): Promise<boolean> {
    while (subscription.live && !this.disposed && this.socket.bufferedAmount > this.settings.maxBufferedBytes / 2) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return subscription.live && !this.disposed;
  }

  private adoptTeardown(subscription: Subscription, teardown: () => void): void {
    if (subscription.live) subscription.teardown = teardown;
    else this.runTeardown(subscription.channel, teardown);
  }

  private startFailed(key: string, subscription: Subscription, err: unknown): void {
    const { reason, code } = this.failureOf(err, `start ${subscription.channel.type}`);
    if (!subscription.live) return;
    subscription.live = false;
    this.subscriptions.delete(key);
    // No recognised prefix, so the SDK (whose subscribe already resolved on the ack) does not match it to a request.
    this.sendError(`Subscription failed and was removed: ${JSON.stringify(subscription.normalized)}: ${reason}`, code);
  }

  private unsubscribe(sent: unknown): void {
    if (!isRecord(sent)) {
      this.sendError('Invalid subscription: expected an object with a "type"', 'bad_input');
      return;
    }
    const sentJson = JSON.stringify(sent);
    const channel = typeof sent.type === 'string' ? this.settings.channels.get(sent.type) : undefined;
    let normalized: Record<string, unknown> | undefined;
    try {
      const { sub } = resumeOf(sent);
      normalized = channel?.normalize(sub, channel.read?.(sub));
    } catch {
      // A subscription that does not normalise was never accepted, so it is not subscribed either; saying so
      // (rather than "Invalid subscription") makes the SDK reject the pending unsubscribe, not a subscribe.
    }
    const key = normalized && subscriptionKey(normalized);
    const subscription = key === undefined ? undefined : this.subscriptions.get(key);
    if (!normalized || key === undefined || !subscription) {
      this.sendError(`Already unsubscribed: ${sentJson}`, 'bad_input');
      return;
    }
    this.subscriptions.delete(key);
    subscription.live = false;
    this.sendFrame('subscriptionResponse', { method: 'unsubscribe', subscription: normalized });
    if (subscription.teardown) this.runTeardown(subscription.channel, subscription.teardown);
  }

  private async post(id: unknown, request: unknown, text: string): Promise<void> {
    if (typeof id !== 'number' || !Number.isFinite(id)) {
      this.sendError('Invalid post request: "id" must be a number', 'bad_input');
      return;
    }
    if (!isRecord(request)) {
      this.sendPostError(id, 'invalid post request: expected "request" with a "type" and a "payload"', 'bad_input');
      return;
    }
    if (request.type === 'action') {
      this.sendPostError(id, 'action requests are not supported: this is a read-only data service', 'unknown_type');
      return;
    }
    if (request.type !== 'info') {
      this.sendPostError(id, `unsupported request type: ${String(JSON.stringify(request.type))}`, 'unknown_type');
      return;
    }
    if (this.pendingPosts >= MAX_PENDING_POSTS) {
      // The exchange's wording; the SDK rejects the request named by the trailing id.
      this.sendError(`too many pending post requests id=${id}`, 'rate_limited');
      return;
    }
    const payload = request.payload;
    // The handler may read a number JSON.parse rounded (a u64 oid) from the frame's text.
    rememberJsonSource(payload, text);
    this.pendingPosts++;
    try {
      const answer = await this.settings.info(payload, this.auth);
      const infoType = isRecord(payload) ? payload.type : undefined;
      if (answer.encoded) this.sendText(encodedPostFrame(id, infoType, answer.encoded));
      else if (answer.status === 200) {
        this.sendFrame('post', { id, response: { type: 'info', payload: { type: infoType, data: answer.body } } });
      } else {
        // A status other than 200 without an error body of ours is the node's answer, relayed.
        const code = codeOfBody(answer.body) ?? 'upstream_error';
        this.sendPostError(id, `${answer.status} ${errorMessageOf(answer.body)}`, code);
      }
    } catch (err) {
      this.settings.log(`ws: post info failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      this.sendPostError(id, '500 internal error', 'internal_error');
    } finally {
      this.pendingPosts--;
    }
  }

  /** The exchange's post error (its payload the message), with the error code beside the payload. */
  private sendPostError(id: number, message: string, code: ErrorCode): void {
    this.sendFrame('post', { id, response: { type: 'error', payload: message, code } });
  }

  /** The exchange's error frame (its data the message), with the error code beside the data. */
  private sendError(message: string, code: ErrorCode): void {
    if (this.disposed) return;
    this.sendText(jsonBytes({ channel: 'error', data: message, code }));
  }

  private sendFrame(channel: string, data: unknown): void {
    if (this.disposed) return;
    this.sendText(encodeFrame(channel, data));
  }

  /**
   * Sends one text frame (bytes are UTF-8 text, not a binary frame). The frames sent in one turn of the event loop
   * (a block's diffs of a subscription's coins, say) leave in one write: the socket is corked until the next tick.
   */
  private sendText(text: string | Buffer): void {
    if (this.disposed || this.socket.readyState !== this.socket.OPEN) return;
    if (!this.corked) {
      // ws has no cork of its own; its frames go to this socket, whose cork counts (ws corks it per frame too).
      const raw = (this.socket as unknown as { _socket?: Duplex })._socket;
      if (raw) {
        this.corked = true;
        raw.cork();
        process.nextTick(() => {
          this.corked = false;
          raw.uncork();
        });
      }
    }
    this.socket.send(text, { binary: false });
    // A client that does not read would otherwise make us buffer its feed without bound.
    if (this.socket.bufferedAmount > this.settings.maxBufferedBytes) {
      this.settings.log(`ws: closing slow consumer (${this.socket.bufferedAmount} bytes unsent)`);
      this.closeWith(1013, 'slow consumer');
    }
  }

  /** Stops all delivery at once (not when the close handshake ends), then starts the close handshake. */
  private closeWith(code: number, reason: string): void {
    if (this.disposed) return;
    this.dispose();
    this.socket.close(code, reason);
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.idleTimer);
    const subscriptions = [...this.subscriptions.values()];
    this.subscriptions.clear();
    for (const subscription of subscriptions) {
      subscription.live = false;
      if (subscription.teardown) this.runTeardown(subscription.channel, subscription.teardown);
    }
  }

  private runTeardown(channel: Channel, teardown: () => void): void {
    try {
      teardown();
    } catch (err) {
      this.settings.log(`ws: teardown of ${channel.type} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * The client-facing reason for a channel failure, and its code: the message of bad input (a FieldError, which
   * SubscriptionError is); anything else but storage is our bug, logged, not shown.
   */
  private failureOf(err: unknown, what: string): { reason: string; code: ErrorCode } {
    if (err instanceof FieldError) return { reason: braceFree(err.message), code: err.code };
    if (isStorageUnavailable(err)) return { reason: STORAGE_UNAVAILABLE, code: 'storage_unavailable' };
    this.settings.log(`ws: ${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return { reason: 'internal error', code: 'internal_error' };
  }
}
