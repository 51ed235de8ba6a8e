import type { Redis } from "ioredis";

/**
 * Webhook deliveries already accepted, by `X-GitHub-Delivery`, kept in Redis so that any replica
 * drops a delivery another one took (GitHub's redelivery, or a proxy that sends it twice).
 *
 * A delivery is first *claimed* (briefly: a replica that dies while handling it frees it soon), then,
 * once its jobs are in the queue, *accepted* for `keepS` seconds. A delivery whose handling failed is
 * released, so its redelivery is taken. Any Redis error is thrown: the edge answers 503.
 */
export class DeliveryLedger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly keepS = 7 * 24 * 3600,
    private readonly claimS = 60,
  ) {}

  private key(id: string): string {
    return `${this.prefix}:delivery:${id}`;
  }

  /** True when this replica may handle the delivery: nobody has claimed or accepted it. */
  async claim(id: string): Promise<boolean> {
    return (await this.redis.set(this.key(id), "claimed", "EX", this.claimS, "NX")) === "OK";
  }

  async accept(id: string): Promise<void> {
    await this.redis.set(this.key(id), "accepted", "EX", this.keepS);
  }

  async release(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }
}
