import { describe, expect, it } from "vitest";
import { egressPolicy } from "../../src/sources/egress.js";
import { judgeLocation } from "../../src/sources/location.js";

/**
 * What a clone or an upgrade may name as its upstream when a server fetches it: https to a public
 * address, or the endpoint the operator configured; judged from the text and the host's addresses alone
 * (the literal addresses here need no DNS; `localhost` is the resolver's).
 */
describe("a location a request names, judged by the egress policy before any connection", () => {
  const none = egressPolicy([]);
  const forge = egressPolicy(["127.0.0.1:3000"]);

  it.each([
    ["file:///srv/git/secretorg/private-pkgs.git", "a file:// URL (the server's own disk)"],
    ["/srv/git/secretorg/private-pkgs.git", "a local path (the server's own disk)"],
    ["../secretorg/private-pkgs.git", "a local path"],
    ["ext::sh", "git's remote-helper transport ext::"],
    ["ext::sh -c touch% /tmp/pwned", "whitespace"],
    ["fd::3", "git's remote-helper transport fd::"],
    ["--upload-pack=touch /tmp/pwned", 'starts with "-"'],
    ["-uhello.git", 'starts with "-"'],
    ["git@github.com:acme/pkgs.git", "an ssh address"],
    ["ssh://git@github.com/acme/pkgs.git", "a ssh:// URL"],
    ["git://127.0.0.1/pkgs.git", "a git:// URL"],
    ["http://example.com/pkgs.git", "plain http:// is spoken only to an endpoint the operator allows"],
    ["https://127.0.0.1/pkgs.git", "127.0.0.1 is a loopback address"],
    ["https://2130706433/pkgs.git", "127.0.0.1 is a loopback address"],
    ["https://0x7f.1/pkgs.git", "127.0.0.1 is a loopback address"],
    ["https://0177.0.0.1/pkgs.git", "127.0.0.1 is a loopback address"],
    ["https://[::1]/pkgs.git", "::1 is a loopback address"],
    ["https://[::ffff:127.0.0.1]/pkgs.git", "(127.0.0.1) is a loopback address"],
    ["https://localhost/pkgs.git", "is a loopback address"],
    // RFC 6761: every *.localhost name is loopback, as curl resolves it without asking DNS
    ["https://foo.localhost:8443/x.git", "foo.localhost (127.0.0.1) is a loopback address"],
    ["https://FOO.LOCALHOST./x.git", "foo.localhost (127.0.0.1) is a loopback address"],
    ["oci://registry.localhost/pkgs/web:v1", "registry.localhost (127.0.0.1) is a loopback address"],
    // a name with no address here is never handed to git to resolve on its own
    ["https://nothing.invalid/x.git", "nothing.invalid resolves to no address here"],
    ["https://[2001:db8::1]/x.git", "2001:db8::1 is a documentation address"],
    ["https://192.0.2.10/x.git", "192.0.2.10 is a documentation (TEST-NET-1) address"],
    ["https://10.1.2.3/pkgs.git", "10.1.2.3 is a private address"],
    ["https://192.168.0.10/pkgs.git", "192.168.0.10 is a private address"],
    ["https://169.254.169.254/latest/meta-data", "169.254.169.254 is a link-local (cloud metadata) address"],
    ["https://[fd00:ec2::254]/", "is a private address"],
    ["oci://127.0.0.1:5000/pkgs/web:v1", "127.0.0.1 is a loopback address"],
    ["https://127.0.0.1:5000/web.tar.gz", "127.0.0.1 is a loopback address"],
    ["https://example.com\\@127.0.0.1/pkgs.git", "a backslash"],
    ["https://example.com/pkgs.git\n", "a control character"],
  ])("refuses %s (%s)", async (location, why) => {
    const verdict = await judgeLocation(none, location);
    expect(verdict).toMatchObject({ ok: false });
    const refusal = verdict.ok ? "" : verdict.refusal;
    expect(refusal).toContain(`"${location}" is refused by the egress policy: `);
    expect(refusal).toContain(why);
  });

  it("lets a public https address by, the addresses checked given for git to keep to", async () => {
    expect(await judgeLocation(none, "https://93.184.216.34/acme/pkgs.git")).toEqual({
      ok: true,
      url: new URL("https://93.184.216.34/acme/pkgs.git"),
      addresses: ["93.184.216.34"],
    });
    expect(await judgeLocation(none, "oci://93.184.216.34/pkgs/web:v1")).toMatchObject({ ok: true });
  });

  it("allows the configured endpoint, over http too, because it is configured: no other port of its host", async () => {
    expect(await judgeLocation(forge, "http://127.0.0.1:3000/acme/pkgs.git")).toMatchObject({
      ok: true,
      addresses: [],
    });
    expect(await judgeLocation(forge, "oci://127.0.0.1:3000/pkgs/web:v1")).toMatchObject({ ok: true });
    const other = await judgeLocation(forge, "https://127.0.0.1:3001/acme/pkgs.git");
    expect(other).toMatchObject({ ok: false });
    expect(await judgeLocation(forge, "http://127.0.0.1:3001/acme/pkgs.git")).toMatchObject({
      ok: false,
      refusal: expect.stringContaining("PORCHLIGHT_EGRESS_ALLOW=127.0.0.1:3001"),
    });
    // the allow-list names what it allows; a file path is never an endpoint
    expect(await judgeLocation(forge, "file:///srv/git/pkgs.git")).toMatchObject({ ok: false });
  });

  it("judges a name by the addresses it resolves to, and gives those to git: the URL's host without a trailing dot", async () => {
    const dns = egressPolicy([], {
      lookup: async () => ["93.184.216.34", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    });
    expect(await judgeLocation(dns, "https://git.example./acme/pkgs.git")).toEqual({
      ok: true,
      url: new URL("https://git.example/acme/pkgs.git"),
      addresses: ["93.184.216.34", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    });
    // one refused address refuses the name (a second lookup could answer it)
    const split = egressPolicy([], { lookup: async () => ["93.184.216.34", "10.0.0.1"] });
    expect(await judgeLocation(split, "https://git.example/pkgs.git")).toMatchObject({
      ok: false,
      refusal: expect.stringContaining("git.example (10.0.0.1) is a private address"),
    });
  });

  it("lets a localhost name by only where the operator allows loopback, pinned to loopback", async () => {
    for (const allowed of [["127.0.0.0/8", "::1"], ["foo.localhost"]])
      expect(await judgeLocation(egressPolicy(allowed), "https://foo.localhost:8443/x.git")).toEqual({
        ok: true,
        url: new URL("https://foo.localhost:8443/x.git"),
        addresses: ["127.0.0.1", "::1"],
      });
    expect(
      await judgeLocation(egressPolicy(["127.0.0.0/8"]), "https://foo.localhost:8443/x.git"),
    ).toMatchObject({ ok: false, refusal: expect.stringContaining("(::1) is a loopback address") });
  });

  it("takes the operator's allowed ranges and hosts from the same policy", async () => {
    const corp = egressPolicy(["10.0.0.0/8"]);
    expect(await judgeLocation(corp, "https://10.1.2.3/pkgs.git")).toMatchObject({ ok: true });
    expect(await judgeLocation(corp, "https://192.168.0.10/pkgs.git")).toMatchObject({ ok: false });
  });
});
