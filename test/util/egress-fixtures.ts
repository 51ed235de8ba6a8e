import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { join } from "node:path";

/** What the egress tests of rpkg and Porch's API share: a secret on disk, a listener, the locations refused. */

/** A git repository on this machine's disk holding another organisation's package (and its secret). */
export function secretRepository(root: string): string {
  const dir = join(root, "secretorg", "private-pkgs");
  mkdirSync(join(dir, "app"), { recursive: true });
  writeFileSync(
    join(dir, "app", "Kptfile"),
    "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
  );
  writeFileSync(
    join(dir, "app", "secret.yaml"),
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: SECRETORG-PASSWORD\n",
  );
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "secret");
  return dir;
}

/** A TCP listener on loopback that counts every connection made to it (and answers none). */
export async function connectionCounter(): Promise<{
  port: number;
  connections(): number;
  close(): Promise<void>;
}> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (one just closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What a clone or an upgrade may name, refused before anything connects: port is the listener's. */
export function refusedLocations(secret: string, port: number): string[] {
  return [
    `file://${secret}`,
    `file://${secret}/.git`,
    secret,
    `${secret}/.git`,
    "ext::sh",
    `git@127.0.0.1:${port}/pkgs.git`,
    `ssh://127.0.0.1:${port}/pkgs.git`,
    `git://127.0.0.1:${port}/pkgs.git`,
    `http://127.0.0.1:${port}/pkgs.git`,
    `https://127.0.0.1:${port}/pkgs.git`,
    `https://localhost:${port}/pkgs.git`,
    // RFC 6761: curl resolves every *.localhost name to loopback on its own, asking no DNS
    `https://foo.localhost:${port}/x.git`,
    `https://foo.localhost.:${port}/x.git`,
    // a name the server cannot resolve is not handed to git to resolve
    `https://nothing.invalid:${port}/x.git`,
    "https://[2001:db8::1]/pkgs.git",
    `https://2130706433:${port}/pkgs.git`,
    `https://0x7f.1:${port}/pkgs.git`,
    `https://0177.0.0.1:${port}/pkgs.git`,
    `https://[::ffff:127.0.0.1]:${port}/pkgs.git`,
    `https://[::ffff:7f00:1]:${port}/pkgs.git`,
    `https://[::1]:${port}/pkgs.git`,
    "https://10.0.0.1/pkgs.git",
    "https://192.168.1.1/pkgs.git",
    "https://169.254.169.254/latest/meta-data.git",
    `oci://127.0.0.1:${port}/pkgs/web:v1`,
    `oci://2130706433:${port}/pkgs/web:v1`,
    `https://127.0.0.1:${port}/web.tar.gz`,
    `http://127.0.0.1:${port}/web.tar.gz`,
    `https://0x7f.1:${port}/web.tar.gz`,
    "https://169.254.169.254/web.tar.gz",
  ];
}
