// Tests give ingest's senders tokens the real way: the TokenRequest API of the local API
// server, for the event source's ServiceAccount (infra/local/sender-token.ts), in a file as a
// kubelet would project it. Ingest in a test checks them with the same API server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepTokenFile } from '../../infra/local/sender-token.ts';
import { tokenReviewSender, type CheckSender } from '../../functions/ingest/sender-auth.ts';
import { kubeTokenReview } from '../../functions/ingest/token-review.ts';
import { DEFAULT_REVIEW_LIMIT, defaultSenders, INGEST_AUDIENCE } from '../../functions/start-config.ts';
import type { LocalEnvironment } from './local-env.ts';

export interface SenderToken {
  /** Set EVENT_SOURCE_TOKEN_FILE to it. */
  readonly path: string;
  remove(): void;
}

export async function senderTokenFile(env: LocalEnvironment): Promise<SenderToken> {
  const dir = mkdtempSync(join(tmpdir(), 'knredis-sender-'));
  const file = await keepTokenFile(env.kubeConfig(), join(dir, 'token-dir'));
  return {
    path: file.path,
    remove: () => {
      file.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Ingest's production check, on the local API server, with the default senders. */
export function realSenderCheck(env: LocalEnvironment): CheckSender {
  return tokenReviewSender({
    review: kubeTokenReview(env.kubeConfig()),
    audience: INGEST_AUDIENCE,
    allowedSubjects: defaultSenders('knredis-system'),
    cacheTtlMs: 60_000,
    cacheSize: 100,
    reviewLimit: DEFAULT_REVIEW_LIMIT,
  });
}
