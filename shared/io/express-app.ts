// The express side of the HTTP server, for the functions that mount routes (the dashboard,
// the webhooks' own HTTPS app): an app with the same probes as the shared server, and the
// house's JSON error reply. Imported only by those functions, so that a process running
// ingest alone does not load express.
import express, { type Express, type Response } from 'express';
import { probeRoutes, type Probe } from './http.ts';
import type { Registry } from 'prom-client';

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

/** An express app answering /healthz, /readyz and (with a registry) /metrics. */
export function createHttpApp(options: { registry?: Registry; probes?: () => readonly Probe[] }): Express {
  const app = express();
  app.disable('x-powered-by');
  // No conditional GETs are served: hashing every body for an ETag is wasted work.
  app.disable('etag');
  for (const [route, handler] of probeRoutes(options)) {
    const [method, path] = route.split(' ') as [string, string];
    if (method === 'GET') app.get(path, (req, res) => handler(req, res));
  }
  return app;
}
