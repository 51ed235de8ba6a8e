/**
 * Porch's API as scripts/porch-api-e2e.ts's `--through=api` reaches it: porchlight's API server
 * (src/cli/api.ts's startPorchApi, as `porchlight api` starts it) over the stage's forge, and one HTTPS
 * request at a time to it as the stage's user (the token a kubeconfig would carry, the server's own
 * certificate trusted), as Porch's Go tests call their client: the object, or the metav1.Status of
 * the refusal.
 */
import { request } from "node:https";
import { startPorchApi } from "../src/cli/api.js";

export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: Porch's objects and metav1.Status as JSON
  body: any;
}

export interface PorchApiClient {
  call(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
  close(): Promise<void>;
}

export async function startPorchApiClient(apiUrl: string, token: string): Promise<PorchApiClient> {
  const server = await startPorchApi({
    host: "127.0.0.1",
    port: 0,
    apiUrl,
    env: { PORCHLIGHT_API_WATCH_POLL_MS: "200" },
  });
  const call = (method: string, path: string, body?: unknown) =>
    new Promise<ApiAnswer>((resolve, reject) => {
      const req = request(
        `${server.url}${path}`,
        {
          method,
          ...(server.caPem ? { ca: server.caPem } : {}),
          headers: {
            authorization: `Bearer ${token}`,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => {
            let parsed: unknown = text;
            try {
              parsed = text === "" ? {} : JSON.parse(text);
            } catch {
              parsed = { message: text };
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  return { call, close: () => server.close() };
}
