import { hostOf, listen } from "./registry-proxy.js";

export interface FileServer {
  /** Its address, http://127.0.0.1:PORT. */
  base: string;
  close(): Promise<void>;
}

/**
 * A web server on loopback answering each path `files` holds with its bytes, and 404 for any other (the
 * test adds and removes files as it goes).
 */
export async function serveFiles(files: Map<string, Buffer>): Promise<FileServer> {
  const server = await listen((req, res) => {
    const body = files.get(req.url ?? "");
    res.writeHead(body ? 200 : 404).end(body);
  });
  return {
    base: `http://${hostOf(server)}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
