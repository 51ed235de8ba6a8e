import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Buckets of the GitHub call timings: a paced write may wait a minute. */
const API_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

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
  readonly sweepActions = new Counter({
    name: "porchlight_sweep_actions_total",
    help: "What sweeps did that events had not (zero in a healthy run), by kind: publish, answer, render, check, catalog, pull-request, merge, dashboard, failure",
    labelNames: ["kind"] as const,
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
  readonly apiSeconds = new Histogram({
    name: "porchlight_github_api_seconds",
    help: "Time of a GitHub REST call as the job sees it: waiting for the installation's write pacing, then the request",
    buckets: API_SECONDS,
    registers: [this.registry],
  });
  readonly pacingWait = new Histogram({
    name: "porchlight_github_pacing_wait_seconds",
    help: "Time a mutating GitHub call waited for its installation's pacing, by group: write (every write), notifications (those that notify people)",
    labelNames: ["group"] as const,
    buckets: API_SECONDS,
    registers: [this.registry],
  });
  readonly rateLimitRemaining = new Gauge({
    name: "porchlight_github_rate_limit_remaining",
    help: "x-ratelimit-remaining of the last GitHub response, by installation",
    labelNames: ["installation"] as const,
    registers: [this.registry],
  });
  readonly jobsParked = new Counter({
    name: "porchlight_jobs_parked_total",
    help: "Jobs taken off the queue until a GitHub rate limit resets, by kind and reason",
    labelNames: ["kind", "reason"] as const,
    registers: [this.registry],
  });
  readonly parkedJobs = new Gauge({
    name: "porchlight_parked_jobs",
    help: "Jobs parked now, waiting for a GitHub rate limit to reset",
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "porchlight_queue_depth",
    help: "Jobs waiting or running (render, checks, publish and fan-out)",
    registers: [this.registry],
  });

  /** Distributed mode: jobs of the fleet's queue, by state (read from Redis at each scrape). */
  readonly queueJobs = new Gauge({
    name: "porchlight_queue_jobs",
    help: "Jobs of the fleet's shared queue (Redis), by queue and state",
    labelNames: ["queue", "state"] as const,
    registers: [this.registry],
  });
  readonly queueWait = new Histogram({
    name: "porchlight_queue_wait_seconds",
    help: "Time from a job being queued to its start on this replica, by queue",
    labelNames: ["queue"] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [this.registry],
  });
  readonly queueRetries = new Counter({
    name: "porchlight_queue_retries_total",
    help: "Jobs started again, by queue and reason: stalled (its replica died), busy (its repository was running another job)",
    labelNames: ["queue", "reason"] as const,
    registers: [this.registry],
  });
  private readonly beforeScrape: (() => Promise<void>)[] = [];

  /**
   * `replica`: the name every series carries (distributed mode), so a fleet's scrapes stay apart.
   */
  constructor(opts: { replica?: string } = {}) {
    if (opts.replica) this.registry.setDefaultLabels({ replica: opts.replica });
  }

  /** Runs `refresh` before every scrape (a gauge read from elsewhere); a failing one keeps the last values. */
  refreshOnScrape(refresh: () => Promise<void>): void {
    this.beforeScrape.push(refresh);
  }

  async text(): Promise<string> {
    await Promise.all(this.beforeScrape.map((r) => r().catch(() => {})));
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
