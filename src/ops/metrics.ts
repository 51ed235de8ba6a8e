import { Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The app's Prometheus metrics, on a registry of its own (no global state: two apps in one process,
 * as in tests, keep separate counts).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly webhooks = new Counter({
    name: "porchlight_webhooks_received_total",
    help: "Webhook deliveries received, by event",
    labelNames: ["event"] as const,
    registers: [this.registry],
  });
  readonly webhooksRefused = new Counter({
    name: "porchlight_webhooks_refused_total",
    help: "Webhook deliveries refused at the edge, by reason and HTTP status",
    labelNames: ["reason", "status"] as const,
    registers: [this.registry],
  });
  readonly jobs = new Counter({
    name: "porchlight_jobs_total",
    help: "Jobs run, by kind and outcome",
    labelNames: ["kind", "outcome"] as const,
    registers: [this.registry],
  });
  readonly sweeps = new Counter({
    name: "porchlight_sweeps_total",
    help: "Sweeps (every repository of every installation queued for reconcile), by outcome",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: "porchlight_job_duration_seconds",
    help: "Job duration, by kind",
    labelNames: ["kind"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly apiCalls = new Counter({
    name: "porchlight_github_api_calls_total",
    help: "GitHub REST calls, by method and status",
    labelNames: ["method", "status"] as const,
    registers: [this.registry],
  });
  readonly rateLimitRemaining = new Gauge({
    name: "porchlight_github_rate_limit_remaining",
    help: "x-ratelimit-remaining of the last GitHub response, by installation",
    labelNames: ["installation"] as const,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "porchlight_queue_depth",
    help: "Jobs waiting or running (render, checks, publish and fan-out)",
    registers: [this.registry],
  });

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
