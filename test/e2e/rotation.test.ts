// Password rotation end to end, with the operator running as separate processes
// (infra/local/operator-stack.ts): a cluster whose password is in the user's Secret is rolled
// to a changed value, then to another Secret named by the spec, under a client load that
// switches password when the status tells it to. The change reaches the operator by the
// Secret's own event, which carries no data (the resync is set an hour away), and neither
// password appears in a log line, an Event or the status.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { ClientLoad } from '../integration/cluster/client-load.ts';
import { acceptsPassword } from '../support/redis-server.ts';
import type { LocalEnvironment } from '../support/local-env.ts';
import { isReady, type ClusterView } from './observe.ts';
import { startStackFixture, type StackFixture } from './stack-fixture.ts';

const NAME = 'rotated';
const KEYS = 5_000;
const FIRST = 'first-password-of-the-user-1';
const SECOND = 'second-password-of-the-user-2';
const THIRD = 'third-password-in-another-secret-3';

describe('knredis end to end: password rotation (functions as separate processes, on the local Kubernetes)', function () {
  this.timeout(900_000);
  let fixture: StackFixture | undefined;
  let env: LocalEnvironment;
  let ns: string;
  let view: ClusterView;
  let load: ClientLoad | undefined;
  const secret = (name: string, password: string) =>
    env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: ns },
        stringData: { password },
      }),
    });

  /** Waits for the status to tell clients to switch, switches the load, then waits for the end. */
  const rotateTo = async (password: string) => {
    const progress: string[] = [];
    await view.until('clients told to switch', (rc) => {
      progress.push(rc?.status?.operation?.progress ?? '');
      return (rc?.status?.operation?.progress ?? '').includes('clients switch now');
    });
    load!.usePassword(password);
    await view.until('Ready, the rotation done', (rc) => isReady(rc) && !rc?.status?.operation);
    return progress;
  };

  before(async () => {
    fixture = await startStackFixture('rotation', NAME);
    ({ env, ns, view } = fixture);
  });
  after(async function () {
    this.timeout(240_000);
    await load?.stop();
    await load?.close();
    await fixture?.stop();
  });

  it("rolls a live cluster to the user's changed Secret under load with zero errors and no restart", async () => {
    await secret('app-redis', FIRST);
    load = await fixture!.createLoaded({
      spec: { auth: { secretRef: { name: 'app-redis' } } },
      prefix: 'r',
      keys: KEYS,
      password: FIRST,
    });
    const before = (await view.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort();

    await secret('app-redis', SECOND);
    const progress = await rotateTo(SECOND);
    expect(progress.some((p) => /^rotating password: \d\/6 nodes accept the new password/.test(p))).to.equal(true);
    expect((await view.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort()).to.deep.equal(before);
    for (const pod of await view.pods()) {
      expect(await acceptsPassword(pod.ip, SECOND), pod.name).to.equal(true);
      expect(await acceptsPassword(pod.ip, FIRST), pod.name).to.equal(false);
    }
    const report = await load.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(report.ops).to.be.greaterThan(0);
    expect(await load.verify()).to.deep.equal([]);
    load.start(4);
  });

  it('rolls to another Secret named by the spec, and says neither password anywhere', async () => {
    await secret('app-redis-next', THIRD);
    await env.kubectl([
      'patch',
      'rediscluster',
      NAME,
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { auth: { secretRef: { name: 'app-redis-next' } } } }),
    ]);
    await rotateTo(THIRD);
    for (const pod of await view.pods()) expect(await acceptsPassword(pod.ip, THIRD), pod.name).to.equal(true);
    const report = await load!.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(await load!.verify()).to.deep.equal([]);

    const events = JSON.parse(await env.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as {
      items: { reason: string; message: string }[];
    };
    expect(events.items.filter((e) => e.reason === 'PasswordRotation').length).to.be.greaterThan(0);
    const logs = await Promise.all(Object.values(fixture!.stack.logs).map((path) => readFile(path, 'utf8')));
    const said = [...logs, ...events.items.map((e) => e.message), JSON.stringify((await view.get())?.status)].join(
      '\n',
    );
    for (const password of [FIRST, SECOND, THIRD]) expect(said).not.to.contain(password);
  });
});
