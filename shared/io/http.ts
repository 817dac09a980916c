// The HTTP server every function shares: health probes, Prometheus /metrics, JSON errors,
// and a listen/close pair that drains connections on shutdown.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import express, { type Express, type Response } from 'express';
import type { Registry } from 'prom-client';

export interface Probe {
  /** Name shown in /readyz output. */
  readonly name: string;
  /** Resolves when the dependency is usable; rejects or resolves false when not. */
  check(): Promise<boolean>;
}

/** Replies `{ error, reason }`; `error` is a short machine word, `reason` a sentence. */
export function sendError(
  res: Response,
  status: number,
  error: string,
  reason: string,
  headers: Record<string, string> = {},
): void {
  res.status(status).set(headers).json({ error, reason });
}

export function createHttpApp(options: { registry?: Registry; probes?: () => readonly Probe[] }): Express {
  const app = express();
  app.disable('x-powered-by');
  // No conditional GETs are served: hashing every body for an ETag is wasted work.
  app.disable('etag');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const probes = options.probes?.() ?? [];
    const results = await Promise.all(probes.map(async (p) => [p.name, await p.check().catch(() => false)] as const));
    const failing = results.filter(([, ok]) => !ok).map(([name]) => name);
    res
      .status(failing.length === 0 ? 200 : 503)
      .json({ status: failing.length === 0 ? 'ready' : 'not ready', failing });
  });
  if (options.registry) {
    const registry = options.registry;
    app.get('/metrics', async (_req, res) => {
      res.set('Content-Type', registry.contentType).send(await registry.metrics());
    });
  }
  return app;
}

export interface Listening {
  readonly server: Server | HttpsServer;
  readonly port: number;
  readonly url: string;
  /** Stops accepting, lets requests in flight finish, then closes idle connections. */
  close(): Promise<void>;
}

/**
 * Routes a plain node:http handler serves before express sees the request, keyed
 * `METHOD /path` (the query is ignored): for a hot path, where express' routing and
 * per-request objects cost more than the work (ingest's POST /).
 */
export type DirectRoutes = ReadonlyMap<`${string} /${string}`, RequestListener>;

export function listen(app: Express, port: number, host = '127.0.0.1', direct?: DirectRoutes): Promise<Listening> {
  const handler: RequestListener =
    direct && direct.size > 0
      ? (req, res) => {
          const url = req.url ?? '/';
          const query = url.indexOf('?');
          const route = direct.get(`${req.method} ${query < 0 ? url : url.slice(0, query)}` as `${string} /${string}`);
          (route ?? app)(req, res);
        }
      : app;
  return serve(createServer(handler), port, host, 'http');
}

/** Listens with an HTTP or HTTPS server already built; the URL names the bound port. */
export async function serve<S extends Server | HttpsServer>(
  server: S,
  port: number,
  host: string,
  scheme: 'http' | 'https',
): Promise<Listening & { readonly server: S }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    port: bound,
    url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
