import { Redis } from "ioredis";

/** The count and the message in one script: a key's notices are published in their numbers' order. */
const TELL_SEQUENCED = `local n = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2] .. n)
return n`;

/** One notice as a replica hears it: what was told, by whom, and its place in its key's sequence. */
export interface HeardNotice {
  body: unknown;
  /** The sequence the notice counts in (a namespace's), and its number there; none for a notice told unsequenced. */
  key?: string;
  seq?: number;
  /** Told by this replica (Redis gives a publisher's own messages back to its subscriber). */
  own: boolean;
}

export interface RedisNoticesOptions {
  url: string;
  /** Prefix of the fleet's keys and channel (replicas of one app share it). */
  prefix: string;
  /** This replica's name (PORCHLIGHT_REPLICA): its own notices are marked `own`. */
  replica: string;
  onError?: (err: unknown) => void;
}

/**
 * Notices every replica of a fleet hears, over the Redis the fleet already runs: one pub/sub channel,
 * and for a notice told under a key, a counter in Redis that the same script increments before it
 * publishes (`tell`), so that the notices of one key are numbered in the order every subscriber hears
 * them. A replica that reads a key's counter (`sequence`) knows how many notices of it were told before
 * that moment: once it has heard that many, it has heard every one. Redis's pub/sub keeps nothing for a
 * subscriber that was away, so a subscription that had to be made again (a reconnection) is told as a
 * gap (`listen`'s `onGap`): what was told meanwhile is lost, and the listener must read afresh.
 * Machinery only: the notices' bodies are the listener's.
 */
export class RedisNotices {
  readonly #commands: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #seqPrefix: string;
  readonly #replica: string;
  #listening = false;
  #subscribedOnce = false;
  #onNotice: ((n: HeardNotice) => void) | undefined;
  #onGap: (() => void) | undefined;
  #closed = false;

  constructor(readonly opts: RedisNoticesOptions) {
    const base = { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false } as const;
    this.#commands = new Redis(opts.url, base);
    // the subscriber waits for Redis as long as it takes; it subscribes again itself (below)
    this.#subscriber = new Redis(opts.url, {
      lazyConnect: true,
      autoResubscribe: false,
      // named, as Redis's CLIENT LIST shows it: whose subscription it is
      connectionName: `${opts.prefix}-notices-${opts.replica}`.replace(/[^\w.:-]/g, "_"),
    });
    this.#channel = `${opts.prefix}:api:notices`;
    this.#seqPrefix = `${opts.prefix}:api:seq:`;
    this.#replica = opts.replica;
    const report = (e: unknown) => opts.onError?.(e);
    this.#commands.on("error", report);
    this.#subscriber.on("error", report);
    this.#subscriber.on("close", () => {
      this.#listening = false;
    });
    this.#subscriber.on("ready", () => {
      if (!this.#subscribedOnce || this.#closed) return;
      // a connection made again: subscribed again, then told as a gap (what was told meanwhile was not
      // heard; what is told from now on is)
      this.#subscriber.subscribe(this.#channel).then(() => {
        this.#listening = true;
        this.#onGap?.();
      }, report);
    });
    this.#subscriber.on("message", (channel: string, text: string) => {
      if (channel !== this.#channel) return;
      const heard = this.#parse(text);
      if (heard) this.#onNotice?.(heard);
    });
  }

  /** The connection notices are told on, for the fleet's other small keys (answers shared: github/shared-answers.ts). */
  get client(): Redis {
    return this.#commands;
  }

  /** Whether notices are heard now (subscribed; false while the connection is lost). */
  get listening(): boolean {
    return this.#listening;
  }

  /**
   * Starts hearing notices: resolves once subscribed, so that nothing told after it resolves is missed.
   * `onGap`: the subscription was lost and made again (notices told meanwhile were not heard).
   */
  async listen(onNotice: (n: HeardNotice) => void, onGap: () => void): Promise<void> {
    this.#onNotice = onNotice;
    this.#onGap = onGap;
    await Promise.all([this.#commands.connect(), this.#subscriber.connect()]);
    await this.#subscriber.subscribe(this.#channel);
    this.#subscribedOnce = true;
    this.#listening = true;
  }

  /**
   * Tells every replica (this one too) `body`; under `key`, numbered in the key's sequence, which is
   * answered. Resolves once Redis published it.
   */
  async tell(body: unknown, key?: string): Promise<number | undefined> {
    const head = JSON.stringify({ from: this.#replica, body, ...(key === undefined ? {} : { key }) });
    if (key === undefined) {
      await this.#commands.publish(this.#channel, `${head}\n`);
      return undefined;
    }
    return Number(
      await this.#commands.eval(TELL_SEQUENCED, 1, this.#seqPrefix + key, this.#channel, `${head}\n`),
    );
  }

  /** How many notices were told under `key` so far (0 when none). */
  async sequence(key: string): Promise<number> {
    return Number((await this.#commands.get(this.#seqPrefix + key)) ?? 0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    this.#subscriber.disconnect();
    this.#commands.disconnect();
  }

  /** A message: its JSON head, a newline, then the number the script appended (none unsequenced). */
  #parse(text: string): HeardNotice | undefined {
    const cut = text.lastIndexOf("\n");
    if (cut < 0) return undefined;
    try {
      const head = JSON.parse(text.slice(0, cut)) as { from?: string; body?: unknown; key?: string };
      const number = text.slice(cut + 1);
      return {
        body: head.body,
        own: head.from === this.#replica,
        ...(typeof head.key === "string" && /^\d+$/.test(number)
          ? { key: head.key, seq: Number(number) }
          : {}),
      };
    } catch (e) {
      this.opts.onError?.(e);
      return undefined;
    }
  }
}
