// The exporter sidecars of a real RedisCluster (the local kubelet runs redis_exporter) keep
// answering redis_up 1 through and after a password rotation, with no pod restarted: they log
// in as the monitoring user, whose password the rotation never touches. redis_exporter reads
// its password once at start, so an exporter logged in with the cluster's password says
// redis_up 0 on every pod once the old password is removed, until each pod restarts.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { EXPORTER_PORT } from '../../../shared/core/resources/statefulset.ts';
import { passwordHash } from '../../../shared/io/redis/auth.ts';
import { counter, isReady, type ClusterView, type PodInfo } from '../../e2e/observe.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { waitFor } from '../../support/wait-for.ts';
import { exporterCluster, stopExporterCluster, type Started } from './exporter-cluster.ts';

const NAME = 'scraped';
const NEW = 'rotated-under-the-exporter-7';

describe('exporter: redis_up stays 1 through a password rotation (on the local Kubernetes)', function () {
  this.timeout(600_000);
  let env: LocalEnvironment;
  let view: ClusterView;
  let pods: PodInfo[];
  const started: Started = {};
  /** redis_up of every pod's exporter, read now (a failed read counts as down). */
  const redisUp = () =>
    Promise.all(
      pods.map(async (p) => ({
        pod: p.name,
        up: await counter(`http://${p.ip}:${EXPORTER_PORT}/metrics`, 'redis_up').catch(() => -1),
      })),
    );

  before(async function () {
    env = await localEnvironment();
    view = await exporterCluster(env, 'exporter-rotation', NAME, started);
    pods = await view.pods();
    await waitFor(async () => (await redisUp()).every((r) => r.up === 1), { what: 'redis_up 1 on every pod' });
  });
  after(async function () {
    this.timeout(240_000);
    await stopExporterCluster(env, started);
  });

  it("keeps redis_up 1 on every pod's exporter while the password rotates and after, no pod restarted", async () => {
    const before = pods.map((p) => `${p.name}=${p.uid}/${p.restarts}`).sort();
    const old = await view.password();
    await env.kubectl([
      'patch',
      'secret',
      `${NAME}-auth`,
      '-n',
      view.namespace,
      '-p',
      JSON.stringify({ stringData: { password: NEW } }),
    ]);
    const down: string[] = [];
    let samples = 0;
    const activeHash = async () =>
      JSON.parse(await env.kubectl(['get', 'secret', `${NAME}-auth-active`, '-n', view.namespace, '-o', 'json']))
        .metadata.annotations['cache.redis.io/password-hash'];
    // Every pod's exporter read again and again until the new password is the one in force (the
    // old one is removed from every node before that), then once more.
    await waitFor(
      async () => {
        for (const r of await redisUp()) if (r.up !== 1) down.push(`${r.pod}: ${r.up}`);
        samples++;
        return (await activeHash()) === passwordHash(NEW) && isReady(await view.get());
      },
      { what: 'the rotation done (the new password in force)', timeout: 300_000, interval: 500 },
    );
    for (const r of await redisUp()) if (r.up !== 1) down.push(`${r.pod} after: ${r.up}`);
    expect(samples).to.be.greaterThan(1);
    expect(down, 'redis_up other than 1').to.deep.equal([]);
    expect((await view.pods()).map((p) => `${p.name}=${p.uid}/${p.restarts}`).sort()).to.deep.equal(before);
    // The exporters log in without the cluster's password, old or new.
    const template = JSON.parse(await env.kubectl(['get', 'statefulset', NAME, '-n', view.namespace, '-o', 'json']));
    const exporter = template.spec.template.spec.containers.find((c: { name: string }) => c.name === 'exporter');
    expect(JSON.stringify(exporter.env)).not.to.contain(`${NAME}-auth`);
    expect(old).not.to.equal(NEW);
    // The monitoring password is in no Event, no status and no line of the operator's logs.
    const monitor = JSON.parse(
      await env.kubectl(['get', 'secret', `${NAME}-monitor`, '-n', view.namespace, '-o', 'json']),
    );
    const password = Buffer.from(monitor.data.password, 'base64').toString();
    const logs = await Promise.all(Object.values(started.stack!.logs).map((f) => readFile(f, 'utf8')));
    const events = await env.kubectl(['get', 'events', '-n', view.namespace, '-o', 'json']);
    for (const said of [...logs, events, JSON.stringify((await view.get())?.status)])
      expect(said.includes(password)).to.equal(false);
  });
});
