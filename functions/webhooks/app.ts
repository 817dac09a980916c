// The webhook endpoints, served over HTTPS to the API server:
//   POST /convert   ConversionReview (apiextensions.k8s.io/v1): v1alpha1 <-> v1beta1
//   POST /validate  AdmissionReview (admission.k8s.io/v1): the checks the schema cannot make
//                   (a review of redisclusters/scale reads the RedisCluster it scales)
//   GET  /healthz, /readyz
// Replies 200 with the review's response; 400 { error, reason } for a body that is not JSON or
// not a review; 413 for a body over the limit; 415 for a body that is not JSON. Never crashes:
// anything unexpected (the RedisCluster of a scale cannot be read) is logged and answered 500,
// which the API server turns into a refusal (failurePolicy Fail).
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { createHttpApp, sendError } from '../../shared/io/express-app.ts';
import type { Logger } from '../../shared/io/log.ts';
import type { JsonObject } from '../../shared/core/api/json.ts';
import type { StorageClassInfo } from '../../shared/core/api/validate-spec.ts';
import {
  admissionScaleTarget,
  admissionStorageTarget,
  reviewAdmission,
  reviewConversion,
  type HttpReply,
} from '../../shared/core/api/review.ts';
import { CONVERT_PATH, VALIDATE_PATH } from '../../shared/core/api/webhook-client.ts';

export interface WebhookAppOptions {
  readonly maxBodyBytes: number;
  readonly log: Logger;
  /**
   * The stored RedisCluster (v1beta1), undefined when there is none: a review of the scale
   * subresource carries only replicas, and is checked as the edit it amounts to.
   */
  readonly readCluster: (namespace: string, name: string) => Promise<JsonObject | undefined>;
  /**
   * A StorageClass by name ('' = the default class), undefined when there is none: growing
   * spec.storage.size is refused when the class does not allow volume expansion.
   */
  readonly readStorageClass?: (name: string) => Promise<StorageClassInfo | undefined>;
}

function summary(body: unknown): Record<string, unknown> {
  const review = body as {
    response?: {
      uid?: string;
      allowed?: boolean;
      result?: { status?: string; message?: string };
      status?: { message?: string };
      warnings?: string[];
    };
  };
  const r = review.response ?? {};
  return {
    uid: r.uid,
    allowed: r.allowed,
    result: r.result?.status,
    message: r.result?.message ?? r.status?.message,
    warnings: r.warnings?.length,
  };
}

export function webhookApp(options: WebhookAppOptions): Express {
  const { log } = options;
  const app = createHttpApp({});
  const json = express.json({ limit: options.maxBodyBytes, strict: false, type: () => true });
  const route = (path: string, review: (body: unknown) => HttpReply | Promise<HttpReply>) => {
    app.post(path, json, async (req: Request, res: Response) => {
      const reply = await review(req.body);
      if (reply.status === 200) log.debug({ path, ...summary(reply.body) }, 'review answered');
      else log.warn({ path, status: reply.status, reply: reply.body }, 'malformed review');
      if (reply.status === 200) res.status(200).json(reply.body);
      else sendError(res, reply.status, 'bad-review', (reply.body as { error: string }).error);
    });
  };
  route(CONVERT_PATH, reviewConversion);
  route(VALIDATE_PATH, async (body) => {
    const target = admissionScaleTarget(body);
    const growth = admissionStorageTarget(body);
    return reviewAdmission(
      body,
      target && (await options.readCluster(target.namespace, target.name)),
      growth && (await options.readStorageClass?.(growth.className)),
    );
  });
  app.use((_req: Request, res: Response) =>
    sendError(res, 404, 'not-found', `POST ${CONVERT_PATH} (ConversionReview) or ${VALIDATE_PATH} (AdmissionReview)`),
  );
  app.use(
    (
      error: { status?: number; type?: string; message?: string },
      _req: Request,
      res: Response,
      _next: NextFunction,
    ) => {
      if (error.type === 'entity.too.large')
        return sendError(res, 413, 'too-large', `the body exceeds ${options.maxBodyBytes} bytes`);
      if (error.type === 'entity.parse.failed')
        return sendError(res, 400, 'bad-review', `the body is not JSON: ${error.message ?? ''}`.trim());
      if (error.status && error.status >= 400 && error.status < 500)
        return sendError(res, error.status, 'bad-request', error.message ?? 'bad request');
      log.error({ err: error }, 'webhook failed');
      return sendError(res, 500, 'internal', 'internal error');
    },
  );
  return app;
}
