// bull-board at /admin/queues (read-only unless configured otherwise), behind a bearer token
// when one is configured, and the queue's job counts as Prometheus gauges.
import { timingSafeEqual, createHash } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { NextFunction, Request, Response, Router } from 'express';
import express from 'express';
import { sendError } from '../../shared/io/http.ts';

export const dashboardPath = '/admin/queues';

export interface DashboardOptions {
  readonly queue: Queue;
  readonly readOnly: boolean;
  /** Required as `Authorization: Bearer <token>` when set. */
  readonly token: string | undefined;
}

export function dashboardRouter(options: DashboardOptions): Router {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(dashboardPath);
  createBullBoard({
    queues: [new BullMQAdapter(options.queue, { readOnlyMode: options.readOnly, allowRetries: !options.readOnly, description: 'one job per RedisCluster key (namespace/name)' })],
    // @bull-board/express and @bull-board/api are released apart; their typings drift.
    serverAdapter: adapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'knredis' } },
  });
  const router = express.Router();
  if (options.token) router.use(dashboardPath, bearer(options.token));
  router.use(dashboardPath, adapter.getRouter() as Router);
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
