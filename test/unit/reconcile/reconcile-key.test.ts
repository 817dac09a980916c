import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { createReconcile } from '../../../functions/reconcile/reconcile.ts';
import { TerminalError } from '../../../shared/core/outcome.ts';
import { soleOwner } from '../../../shared/io/queue/queue-worker.ts';
import { createLogger } from '../../../shared/io/log.ts';

describe('reconcile (the key)', () => {
  it('fails a malformed key for good, before any request, so the queue never retries it', async () => {
    const kubeConfig = new KubeConfig();
    // Never contacted: the key is refused first.
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:9' }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const requests: string[] = [];
    const reconcile = createReconcile({
      kubeConfig,
      counter: { count: (verb, what) => requests.push(`${verb} ${what}`) },
    });
    const context = {
      signal: new AbortController().signal,
      log: createLogger({ level: 'silent' }),
      reconcileId: 'r1',
      failures: 0,
      assertOwner: soleOwner,
    };
    for (const key of ['no-slash', 'a/b/c', 'UPPER/name', '/name']) {
      const error = await reconcile(key, context).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, key).to.be.instanceOf(TerminalError);
    }
    expect(requests).to.deep.equal([]);
  });
});
