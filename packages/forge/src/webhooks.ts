import { createHmac, randomUUID } from "node:crypto";
import { isoTime } from "./http.js";
import type { Signal } from "./signal.js";
import type { Store } from "./state.js";
import type { AppRec, DeliveryRec } from "./types.js";

export interface WebhookMeta {
  installationId: number | null;
  repositoryId: number | null;
}

/** `sha256=<hex>` HMAC of a body, GitHub's `X-Hub-Signature-256`. */
function signBody(secret: string, body: string, algo: "sha256" | "sha1" = "sha256"): string {
  return `${algo}=${createHmac(algo, secret).update(body).digest("hex")}`;
}

/**
 * Users in webhook payloads follow @octokit/webhooks-schemas, which has no `user_view_type`
 * (the REST API's simple-user has it): drop it everywhere in a payload.
 */
function stripUserViewType(node: unknown): void {
  if (Array.isArray(node)) {
    for (const x of node) stripUserViewType(x);
  } else if (node && typeof node === "object") {
    const o = node as Record<string, unknown>;
    delete o.user_view_type;
    for (const v of Object.values(o)) stripUserViewType(v);
  }
}

/**
 * Webhook deliveries: recorded (with or without a URL to send to), signed, sent in order per
 * repository, listable and redeliverable like GitHub's app hook deliveries.
 */
export class Webhooks {
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    readonly options: { timeoutMs: number; changed?: Signal },
  ) {}

  /** Every delivery recorded so far, oldest first (redeliveries included). */
  get deliveries(): DeliveryRec[] {
    return this.store.data.deliveries;
  }

  /** Deliveries of one event (and action), for assertions in tests. */
  find(event: string, action?: string): DeliveryRec[] {
    return this.deliveries.filter((d) => d.event === event && (action === undefined || d.action === action));
  }

  /** Resolves once every delivery queued so far (and any queued meanwhile) has been sent or has failed. */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  /** Records a delivery to `app` and queues it behind earlier deliveries with the same key. */
  emit(app: AppRec, event: string, payload: Record<string, unknown>, meta: WebhookMeta): DeliveryRec {
    stripUserViewType(payload);
    const d: DeliveryRec = {
      id: this.store.nextId(),
      guid: randomUUID(),
      appId: app.id,
      hookId: app.hookId,
      event,
      action: typeof payload.action === "string" ? payload.action : null,
      installationId: meta.installationId,
      repositoryId: meta.repositoryId,
      payload,
      requestHeaders: {},
      deliveredAt: isoTime(this.store.now()),
      redelivery: false,
      ...unsent(),
    };
    return this.record(d);
  }

  /** Sends a past delivery again (same GUID, new id), as GitHub's "Redeliver" does. */
  redeliver(id: number): DeliveryRec | undefined {
    const past = this.deliveries.find((d) => d.id === id);
    if (!past) return undefined;
    const d: DeliveryRec = {
      ...past,
      id: this.store.nextId(),
      redelivery: true,
      deliveredAt: isoTime(this.store.now()),
      ...unsent(),
    };
    return this.record(d);
  }

  /** Keeps a new delivery in the log and queues it for sending. */
  private record(d: DeliveryRec): DeliveryRec {
    this.store.data.deliveries.push(d);
    this.queue(d);
    return d;
  }

  private queue(d: DeliveryRec): void {
    const key = d.repositoryId !== null ? `repo:${d.repositoryId}` : `app:${d.appId}`;
    const prev = this.chains.get(key) ?? Promise.resolve();
    const next = prev.then(() => this.send(d));
    this.chains.set(key, next);
    void next.then(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
  }

  private async send(d: DeliveryRec): Promise<void> {
    const app = this.store.app(d.appId);
    const body = JSON.stringify(d.payload);
    const headers: Record<string, string> = {
      accept: "*/*",
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/porchlight",
      "x-github-delivery": d.guid,
      "x-github-event": d.event,
      "x-github-hook-id": String(d.hookId),
      "x-github-hook-installation-target-id": String(d.appId),
      "x-github-hook-installation-target-type": "integration",
    };
    if (app?.webhookSecret) {
      headers["x-hub-signature"] = signBody(app.webhookSecret, body, "sha1");
      headers["x-hub-signature-256"] = signBody(app.webhookSecret, body);
    }
    d.requestHeaders = headers;
    if (!app?.webhookUrl) {
      d.status = "No webhook URL configured";
      return;
    }
    const started = Date.now();
    try {
      const res = await fetch(app.webhookUrl, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      d.statusCode = res.status;
      d.responseBody = (await res.text()).slice(0, 8192);
      d.responseHeaders = Object.fromEntries(res.headers.entries());
      d.status = res.ok ? "OK" : `Invalid HTTP Response: ${res.status}`;
    } catch (err) {
      d.status =
        err instanceof Error && err.name === "TimeoutError" ? "timed out" : "failed to connect to host";
    } finally {
      d.duration = (Date.now() - started) / 1000;
      this.options.changed?.notify();
    }
  }
}

/** The response fields of a delivery not sent yet. */
function unsent(): Pick<
  DeliveryRec,
  "status" | "statusCode" | "duration" | "responseBody" | "responseHeaders"
> {
  return { status: "pending", statusCode: 0, duration: 0, responseBody: "", responseHeaders: {} };
}
