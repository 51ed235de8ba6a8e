import { createPrivateKey, X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import { describe, expect, it } from "vitest";
import { selfSignedCertificate } from "../../src/porchapi/self-signed.js";

/** The API's own certificate: one Node (and kubectl, in the kubectl tests) reads and trusts. */
describe("the API's self-signed certificate", () => {
  it("names localhost, 127.0.0.1 and the host asked for, is signed by its own key, and is valid around now", () => {
    const now = new Date("2030-06-01T12:00:00Z");
    const made = selfSignedCertificate(["10.1.2.3", "porch.example"], now);
    const cert = new X509Certificate(made.cert);
    expect(cert.subjectAltName).toBe(
      "DNS:localhost, IP Address:127.0.0.1, IP Address:10.1.2.3, DNS:porch.example",
    );
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(new Date(cert.validFrom).getTime()).toBeLessThan(now.getTime());
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(now.getTime() + 365 * 24 * 3600 * 1000);
  });

  it("serves with any serial number, those starting with zero bytes too (one start in 512 failed to)", () => {
    const now = new Date("2030-06-01T12:00:00Z");
    for (const serial of [
      `00${"7f".repeat(15)}`,
      `0000${"80".repeat(14)}`,
      "ff".repeat(16),
      "00".repeat(16),
    ]) {
      const made = selfSignedCertificate([], now, Buffer.from(serial, "hex"));
      // what an HTTPS server does with it first: OpenSSL reads the certificate and its key
      expect(() => createSecureContext(made)).not.toThrow();
      expect(new X509Certificate(made.cert).serialNumber.replace(/^0+/, "")).toBe(
        serial.replace(/^0+/, "").toUpperCase() || "",
      );
    }
  });
});
