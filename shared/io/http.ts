// The HTTP server every function shares: health probes and Prometheus /metrics as plain
// node:http handlers, routes served before anything else (ingest's POST /), and a listen/close
// pair that drains connections on shutdown. Express is not loaded here: a process that runs
// ingest alone never needs it, and loading it was a fifth of ingest's cold start
// (./express-app.ts has the express side, for the functions that mount routes).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Registry } from 'prom-client';

export interface Probe {
  /** Name shown in /readyz output. */
  readonly name: string;
  /** Resolves when the dependency is usable; rejects or resolves false when not. */
  check(): Promise<boolean>;
}

/** Writes `body` as JSON with the status (and headers) given, unless a reply already went out. */
export function replyJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Routes a plain node:http handler serves before any app sees the request, keyed
 * `METHOD /path` (the query is ignored): the probes, /metrics, and a hot path where express'
 * routing and per-request objects cost more than the work (ingest's POST /).
 */
export type DirectRoutes = ReadonlyMap<`${string} /${string}`, RequestListener>;

/** GET (and HEAD) /healthz, /readyz and, with a registry, /metrics. */
export function probeRoutes(options: {
  registry?: Registry;
  probes?: () => readonly Probe[];
}): Map<`${string} /${string}`, RequestListener> {
  const routes = new Map<`${string} /${string}`, RequestListener>();
  const get = (path: `/${string}`, handler: RequestListener) => {
    routes.set(`GET ${path}`, handler);
    routes.set(`HEAD ${path}`, handler);
  };
  get('/healthz', (_req, res) => replyJson(res, 200, { status: 'ok' }));
  get('/readyz', (_req, res) => {
    const probes = options.probes?.() ?? [];
    // A check that throws, even before it returns a promise, counts as failing.
    const passes = (p: Probe) =>
      Promise.resolve()
        .then(() => p.check())
        .catch(() => false);
    void Promise.all(probes.map(async (p) => [p.name, await passes(p)] as const)).then((results) => {
      const failing = results.filter(([, ok]) => !ok).map(([name]) => name);
      replyJson(res, failing.length === 0 ? 200 : 503, {
        status: failing.length === 0 ? 'ready' : 'not ready',
        failing,
      });
    });
  });
  const registry = options.registry;
  if (registry)
    get('/metrics', (_req, res) => {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) });
          res.end(text);
        },
        (error: unknown) =>
          replyJson(res, 500, { error: 'metrics-failed', reason: error instanceof Error ? error.message : 'unknown' }),
      );
    });
  return routes;
}

/** What answers a request no route takes: 404 with the house's JSON error. */
export const notFound: RequestListener = (req, res) =>
  replyJson(res, 404, { error: 'not-found', reason: `no route for ${req.method ?? 'GET'} ${pathOf(req)}` });

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

export interface Listening {
  readonly server: Server | HttpsServer;
  readonly port: number;
  readonly url: string;
  /** Stops accepting, lets requests in flight finish, then closes idle connections. */
  close(): Promise<void>;
}

/** Listens on port and host: the direct routes first, then `fallback` (an express app, or notFound). */
export function listen(
  fallback: RequestListener,
  port: number,
  host = '127.0.0.1',
  direct?: DirectRoutes,
): Promise<Listening> {
  const handler: RequestListener =
    direct && direct.size > 0
      ? (req, res) => {
          const route = direct.get(`${req.method} ${pathOf(req)}` as `${string} /${string}`);
          (route ?? fallback)(req, res);
        }
      : fallback;
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
