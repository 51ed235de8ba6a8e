import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/ops/logger.js";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, log: createLogger({ level: "debug", destination }) };
}

describe("logger", () => {
  const token = "ghs_abcdefghijklmnopqrstuvwxyz0123456789";
  const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";

  it("never writes a token, private key or secret, wherever it sits", () => {
    const { lines, log } = capture();
    log.info({ token, repo: "o/r" }, "job done");
    log.info(
      { auth: { token, privateKey: pem }, req: { headers: { authorization: `token ${token}` } } },
      "request",
    );
    log.warn(`push failed for https://x-access-token:${token}@github.com/o/r.git`);
    log.error({ err: new Error(`bad credentials: Bearer ${token}`) }, "job failed");
    log.info({ env: { PRIVATE_KEY: pem, WEBHOOK_SECRET: "s3cret-value" } }, "config");
    const all = lines.join("");
    expect(all).not.toContain(token);
    expect(all).not.toContain("MIIEowIBAAKCAQEA");
    expect(all).not.toContain("s3cret-value");
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[0]!)).toMatchObject({ repo: "o/r", token: "[REDACTED]", msg: "job done" });
  });

  it("keeps the fields that make logs searchable", () => {
    const { lines, log } = capture();
    log
      .child({ deliveryId: "d-1", repo: "o/r", installation: 7 })
      .info({ outcome: "published" }, "job finished");
    expect(JSON.parse(lines[0]!)).toMatchObject({
      deliveryId: "d-1",
      repo: "o/r",
      installation: 7,
      outcome: "published",
      msg: "job finished",
    });
  });
});
