import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";

/**
 * A self-signed certificate for the API when the operator gives none: kubectl sends a bearer token only
 * over TLS, so the API is served over HTTPS even on a laptop, and the kubeconfigs porchlight writes carry
 * this certificate as their CA. An ECDSA P-256 key and an X.509 v3 certificate (server auth, the names
 * and addresses it is reached at), written in DER here: node:crypto signs, but makes no certificates.
 */
export interface Certificate {
  cert: string;
  key: string;
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 + n, inner);
const bits = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
const octets = (b: Buffer) => tlv(0x04, b);

/**
 * A non-negative INTEGER in DER's one encoding: no leading zero byte but the one a high bit needs (a
 * random serial starting with a zero byte and then one below 0x80, one in 512, was otherwise refused
 * by OpenSSL as "illegal padding", and the API did not start).
 */
function integer(b: Buffer): Buffer {
  let start = 0;
  while (start < b.length - 1 && b[start] === 0) start++;
  const minimal = b.subarray(start);
  const first = minimal[0] ?? 0;
  return tlv(0x02, first & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split(".").map(Number);
  const out = [a * 40 + b];
  for (const n of rest) {
    const bytes = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) bytes.unshift((v & 0x7f) | 0x80);
    out.push(...bytes);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime, YYMMDDHHMMSSZ (years 1950-2049). */
function utcTime(d: Date): Buffer {
  const iso = d.toISOString();
  return tlv(
    0x17,
    Buffer.from(
      `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`,
    ),
  );
}

const ECDSA_SHA256 = "1.2.840.10045.4.3.2";
const name = (cn: string) => seq(set(seq(oid("2.5.4.3"), tlv(0x0c, Buffer.from(cn)))));
const extension = (id: string, critical: boolean, value: Buffer) =>
  seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), octets(value));

/** The subject alternative names: IPv4 addresses as such, anything else as a DNS name. */
function altNames(hosts: readonly string[]): Buffer {
  return seq(
    ...hosts.map((h) =>
      isIP(h) === 4 ? tlv(0x87, Buffer.from(h.split(".").map(Number))) : tlv(0x82, Buffer.from(h)),
    ),
  );
}

/**
 * A certificate for `hosts` (with localhost and 127.0.0.1), valid from a day before `now` for ten years;
 * `serial`: its serial number's bytes (random).
 */
export function selfSignedCertificate(
  hosts: readonly string[],
  now: Date,
  serial: Buffer = randomBytes(16),
): Certificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const names = [...new Set(["localhost", "127.0.0.1", ...hosts.filter((h) => isIP(h) !== 6)])];
  const day = 24 * 3600 * 1000;
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    seq(oid(ECDSA_SHA256)),
    name("porchlight"),
    seq(utcTime(new Date(now.getTime() - day)), utcTime(new Date(now.getTime() + 3650 * day))),
    name("porchlight"),
    publicKey.export({ type: "spki", format: "der" }),
    explicit(
      3,
      seq(
        extension("2.5.29.19", true, seq(tlv(0x01, Buffer.from([0xff])))),
        // digitalSignature and keyCertSign
        extension("2.5.29.15", true, tlv(0x03, Buffer.from([2, 0x84]))),
        extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"))),
        extension("2.5.29.17", false, altNames(names)),
      ),
    ),
  );
  const signature = sign("sha256", tbs, { key: privateKey, dsaEncoding: "der" });
  const der = seq(tbs, seq(oid(ECDSA_SHA256)), bits(signature));
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`,
    key: String(privateKey.export({ type: "pkcs8", format: "pem" })),
  };
}
