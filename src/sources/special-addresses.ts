import { BlockList, isIP } from "node:net";

/**
 * The addresses no user-named URL reaches: the ranges of IANA's IPv4 and IPv6 Special-Purpose Address
 * Registries (https://www.iana.org/assignments/iana-ipv4-special-registry,
 * https://www.iana.org/assignments/iana-ipv6-special-registry), multicast, and the deprecated ranges
 * still routed somewhere. One table, each range with the RFC that sets it aside and the word a refusal
 * uses for it. A range that carries an IPv4 address inside an IPv6 one (mapped, NAT64's well-known
 * prefix, 6to4) is not refused whole: the address it carries is judged as itself, so `::ffff:8.8.8.8`
 * is public and `2002:7f00:1::` loopback.
 */
interface SpecialRange {
  /** The range, as a CIDR. */
  cidr: string;
  /** What the range is, as a refusal says it (`… is a loopback address`). */
  kind: string;
  /** The RFC that sets the range aside. */
  rfc: string;
  /** The IPv4 address an address of the range carries (its sixteen bytes given): judged in its place. */
  carries?: (bytes: readonly number[]) => string;
}

const dotted = (b: readonly number[]) => b.join(".");
/** The last four bytes: where mapped, translated, compatible and NAT64 addresses keep theirs. */
const lastFour = (b: readonly number[]) => dotted(b.slice(12, 16));

/** Ranges are tried in this order, the first that holds an address deciding: narrower ones come first. */
const SPECIAL: readonly SpecialRange[] = [
  { cidr: "0.0.0.0/8", kind: "unspecified (this network)", rfc: "RFC 791" },
  { cidr: "10.0.0.0/8", kind: "private", rfc: "RFC 1918" },
  { cidr: "100.64.0.0/10", kind: "shared (carrier-grade NAT)", rfc: "RFC 6598" },
  { cidr: "127.0.0.0/8", kind: "loopback", rfc: "RFC 1122" },
  { cidr: "169.254.0.0/16", kind: "link-local (cloud metadata)", rfc: "RFC 3927" },
  { cidr: "172.16.0.0/12", kind: "private", rfc: "RFC 1918" },
  { cidr: "192.0.0.0/24", kind: "reserved (IETF protocol assignments)", rfc: "RFC 6890" },
  { cidr: "192.0.2.0/24", kind: "documentation (TEST-NET-1)", rfc: "RFC 5737" },
  { cidr: "192.88.99.0/24", kind: "reserved (6to4 relay anycast)", rfc: "RFC 7526" },
  { cidr: "192.168.0.0/16", kind: "private", rfc: "RFC 1918" },
  { cidr: "198.18.0.0/15", kind: "benchmarking", rfc: "RFC 2544" },
  { cidr: "198.51.100.0/24", kind: "documentation (TEST-NET-2)", rfc: "RFC 5737" },
  { cidr: "203.0.113.0/24", kind: "documentation (TEST-NET-3)", rfc: "RFC 5737" },
  { cidr: "224.0.0.0/4", kind: "multicast", rfc: "RFC 5771" },
  { cidr: "255.255.255.255/32", kind: "broadcast", rfc: "RFC 919" },
  { cidr: "240.0.0.0/4", kind: "reserved", rfc: "RFC 1112" },
  { cidr: "::/128", kind: "unspecified", rfc: "RFC 4291" },
  { cidr: "::1/128", kind: "loopback", rfc: "RFC 4291" },
  { cidr: "::ffff:0:0/96", kind: "IPv4-mapped", rfc: "RFC 4291", carries: lastFour },
  { cidr: "::ffff:0:0:0/96", kind: "IPv4-translated", rfc: "RFC 2765", carries: lastFour },
  { cidr: "::/96", kind: "IPv4-compatible (deprecated)", rfc: "RFC 4291", carries: lastFour },
  { cidr: "64:ff9b::/96", kind: "NAT64", rfc: "RFC 6052", carries: lastFour },
  // the operator's own translator, whatever it translates to
  { cidr: "64:ff9b:1::/48", kind: "local-use NAT64", rfc: "RFC 8215" },
  { cidr: "100::/64", kind: "discard-only", rfc: "RFC 6666" },
  { cidr: "100:0:0:1::/64", kind: "dummy", rfc: "RFC 9780" },
  // Teredo (2001::/32, RFC 4380), benchmarking (2001:2::/48, RFC 5180), ORCHID (2001:10::/28, RFC 4843),
  // ORCHIDv2 (2001:20::/28, RFC 7343) and the rest of the block
  { cidr: "2001::/23", kind: "reserved (IETF protocol assignments)", rfc: "RFC 2928" },
  { cidr: "2001:db8::/32", kind: "documentation", rfc: "RFC 3849" },
  { cidr: "2002::/16", kind: "6to4", rfc: "RFC 3056", carries: (b) => dotted(b.slice(2, 6)) },
  { cidr: "3fff::/20", kind: "documentation", rfc: "RFC 9637" },
  { cidr: "5f00::/16", kind: "segment routing (SRv6 SID)", rfc: "RFC 9602" },
  // unique local addresses: IPv6's private networks
  { cidr: "fc00::/7", kind: "private", rfc: "RFC 4193" },
  { cidr: "fe80::/10", kind: "link-local", rfc: "RFC 4291" },
  { cidr: "fec0::/10", kind: "site-local (deprecated)", rfc: "RFC 3879" },
  { cidr: "ff00::/8", kind: "multicast", rfc: "RFC 4291" },
];

type Family = "ipv4" | "ipv6";

const RANGES = SPECIAL.map((range) => {
  const [net = "", bits = ""] = range.cidr.split("/");
  const family: Family = isIP(net) === 4 ? "ipv4" : "ipv6";
  const list = new BlockList();
  list.addSubnet(net, Number(bits), family);
  return { ...range, family, list };
});

/** An IPv6 address's sixteen bytes (`::` expanded, a dotted IPv4 tail read), or undefined for any other text. */
function ipv6Bytes(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase().replace(/%.*$/, "");
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const hextets = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right].map((h) =>
    Number.parseInt(h, 16),
  );
  return hextets.flatMap((h) => [h >> 8, h & 255]);
}

/** What an address is, by the table: a special-purpose range (refused, or carrying an IPv4 address), or public. */
export type AddressClass =
  | { kind: "public" }
  | { kind: "special"; range: string; what: string; rfc: string }
  | { kind: "carrier"; range: string; carried: string };

/** `address` (an IP) classified by the first range of the table that holds it. */
export function classifyAddress(address: string): AddressClass {
  const family: Family = isIP(address) === 4 ? "ipv4" : "ipv6";
  const hit = RANGES.find((r) => r.family === family && r.list.check(address, family));
  if (!hit) return { kind: "public" };
  if (hit.carries) {
    const bytes = ipv6Bytes(address);
    if (bytes) return { kind: "carrier", range: hit.cidr, carried: hit.carries(bytes) };
  }
  return { kind: "special", range: hit.cidr, what: hit.kind, rfc: hit.rfc };
}
