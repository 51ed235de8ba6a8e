import { describe, expect, it } from "vitest";
import { Metrics } from "../../src/ops/metrics.js";

describe("Metrics", () => {
  it("exposes counts in Prometheus text format, separately per instance", async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.webhooks.inc({ event: "push" });
    a.webhooks.inc({ event: "push" });
    a.jobs.inc({ kind: "render", outcome: "ok" });
    a.rateLimitRemaining.set({ installation: "7" }, 4999);
    const text = await a.text();
    expect(text).toContain('porchlight_webhooks_received_total{event="push"} 2');
    expect(text).toContain('porchlight_jobs_total{kind="render",outcome="ok"} 1');
    expect(text).toContain('porchlight_github_rate_limit_remaining{installation="7"} 4999');
    expect(await b.text()).not.toContain('event="push"');
  });
});
