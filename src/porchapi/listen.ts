import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { isIP } from "node:net";
import { type PorchApiOptions, porchApi } from "./server.js";

/** Where and how Porch's API listens. */
export interface ListenOptions {
  host: string;
  port: number;
  /** A certificate and its key (PEM): the API is served over TLS. Without one, plain HTTP. */
  tls?: { cert: string; key: string } | undefined;
  /**
   * Plain HTTP on an address other than loopback: the operator's explicit choice (tokens would cross the
   * network in clear; kubectl sends none over plain HTTP, so this is for a TLS-terminating proxy).
   */
  allowPlainHttp?: boolean;
}

export interface PorchApiServer {
  /** `http(s)://HOST:PORT`, as a kubeconfig's `server:`. */
  url: string;
  /**
   * Stops: no new connection is taken, every request in flight is cancelled and its connection closed,
   * and it resolves once they have ended, or after the API's `stopMs` with what is left let go.
   */
  close(): Promise<void>;
}

/** Whether `host` is this machine only (127.0.0.0/8, ::1, localhost). */
function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "[::1]";
}

/**
 * Starts the API. Callers send GitHub tokens, so over plain HTTP it listens on loopback only, unless the
 * operator allows it; elsewhere it is served over TLS.
 */
export async function listenPorchApi(listen: ListenOptions, api: PorchApiOptions): Promise<PorchApiServer> {
  if (!listen.tls && !isLoopback(listen.host) && !listen.allowPlainHttp)
    throw new Error(
      `Porch's API would listen on ${listen.host} over plain HTTP, where callers' GitHub tokens cross the network in clear: serve it over TLS (PORCHLIGHT_API_TLS_CERT and PORCHLIGHT_API_TLS_KEY, or no PORCHLIGHT_API_HTTP for a certificate of its own), listen on 127.0.0.1, or set PORCHLIGHT_API_HTTP=any to allow it`,
    );
  const served = porchApi(api);
  const handler = served.handle;
  const server: Server = listen.tls ? createHttpsServer(listen.tls, handler) : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : listen.port;
  const host = listen.host.includes(":") && !listen.host.startsWith("[") ? `[${listen.host}]` : listen.host;
  return {
    url: `${listen.tls ? "https" : "http"}://${host}:${port}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await served.stop();
      await closed;
    },
  };
}
