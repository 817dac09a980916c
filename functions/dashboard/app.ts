// bull-board at /admin/queues (read-only unless configured otherwise) and the cluster view at
// /admin/clusters (always read-only), both behind a bearer token when one is configured.
import { timingSafeEqual, createHash } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, Response, Router } from 'express';
import express from 'express';
import { sendError } from '../../shared/io/express-app.ts';
import { renderClusterPage } from './cluster-page.ts';
import { readClusterView, type QueueSource } from './cluster-view.ts';

export const dashboardPath = '/admin/queues';
export const clustersPath = '/admin/clusters';

export interface DashboardOptions extends QueueSource {
  readonly readOnly: boolean;
  /** Required as `Authorization: Bearer <token>` when set. */
  readonly token: string | undefined;
  /** Seconds between reloads of the cluster view. */
  readonly refreshS?: number;
  readonly clock?: () => number;
}

export function dashboardRouter(options: DashboardOptions): Router {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(dashboardPath);
  createBullBoard({
    queues: [
      new BullMQAdapter(options.queue, {
        readOnlyMode: options.readOnly,
        allowRetries: !options.readOnly,
        description: 'one job per RedisCluster key (namespace/name)',
      }),
    ],
    // @bull-board/express and @bull-board/api are released apart; their typings drift.
    serverAdapter: adapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'knredis', miscLinks: [{ text: 'RedisClusters', url: clustersPath }] } },
  });
  const router = express.Router();
  if (options.token) router.use([dashboardPath, clustersPath], bearer(options.token));
  router.use(dashboardPath, adapter.getRouter() as Router);
  const clock = options.clock ?? Date.now;
  router.get(clustersPath, async (req, res, next) => {
    try {
      const all = await readClusterView(options, clock());
      // ?key=namespace/name shows that one cluster (a link to send to someone).
      const only = typeof req.query.key === 'string' ? req.query.key : undefined;
      const view = only === undefined ? all : { ...all, rows: all.rows.filter((row) => row.key === only) };
      const page = renderClusterPage(view, {
        queues: dashboardPath,
        queueName: options.names.queue,
        refreshS: options.refreshS ?? 15,
      });
      res
        .set({
          'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
          'Cache-Control': 'no-store',
        })
        .type('html')
        .send(page);
    } catch (error) {
      next(error);
    }
  });
  return router;
}

function bearer(token: string) {
  const expected = digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
    // Compare digests in constant time: the token's length leaks nothing either.
    if (match && timingSafeEqual(digest(match[1]!), expected)) return next();
    res.set('WWW-Authenticate', 'Bearer realm="knredis"');
    return sendError(res, 401, 'unauthorized', 'a bearer token is required for the dashboard');
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();
