import { expect } from 'chai';
import { inspect } from 'node:util';
import { Writable } from 'node:stream';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy } from './cluster-checks.ts';
import { bulkLoad, ClientLoad } from './client-load.ts';
import type { RotationRecord } from '../../../shared/core/reconcile/rotation.ts';
import { applyRotationStep, passwordHash, resolvePasswords } from '../../../shared/io/redis/auth.ts';
import { describeRotationStep, rotatePassword } from '../../../shared/io/redis/auth-rotate.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { acceptsPassword, startRedis, type RedisServer } from '../../support/redis-server.ts';
import { waitFor } from '../../support/wait-for.ts';

const OLD = 'old-secret-pw-1';
const NEW = 'new-secret-pw-2';
const GRACE_MS = 5_000;

describe('cluster engine: password rotation', function () {
  this.timeout(120_000);
  let harness: ClusterHarness | undefined;
  const loads: ClientLoad[] = [];
  let server: RedisServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    for (const load of loads.splice(0)) {
      await load.stop();
      await load.close();
    }
    await harness?.stopAll();
  });

  it('rolls a 3x1 cluster under load to a new password: no client error, a restarted node brought forward, no password in logs or events', async () => {
    harness = new ClusterHarness({ suite: 15, password: OLD, nodes: 3, zones: 3 });
    await harness.addPods(6);
    const desired = harness.desired(3, 1);
    const setup = new NodePool({ auth: { password: OLD } });
    await converge(setup, desired);
    const topology = await expectHealthy(setup, desired);
    await setup.close();
    await bulkLoad(topology, 'rot-old', 2_000, OLD);
    await bulkLoad(topology, 'rot-new', 2_000, OLD);
    const seeds = harness.pods.map((p) => p.placement.address);
    const old = new ClientLoad(seeds, 'rot-old', 2_000, OLD);
    loads.push(old);
    old.start(4);

    const lines: string[] = [];
    const log = createLogger({
      destination: new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    });
    const told: string[] = [];
    let record: RotationRecord = { activeHash: passwordHash(OLD) };
    let active = OLD;
    let now = 0;
    let restarted = false;
    let fresh: ClientLoad | undefined;
    for (let pass = 0; pass < 40; pass++) {
      const nodes = harness.pods.map((p) => ({ name: p.placement.name, address: p.placement.address }));
      // As the reconciler does: each node is reached with the password it accepts.
      const passwordOf = await resolvePasswords(
        nodes.map((n) => n.address),
        [NEW, active],
      );
      const pool = new NodePool({ auth: { password: NEW }, passwordOf });
      const result = await rotatePassword(
        pool,
        nodes,
        {
          desired: NEW,
          record,
          graceMs: GRACE_MS,
          save: async (step, at) => {
            if (step === 'markAccepted') {
              record = { ...record, accepted: { hash: passwordHash(NEW), at } };
              // Told: the application switches, and new connections come with the new password.
              old.usePassword(NEW);
              fresh = new ClientLoad(seeds, 'rot-new', 2_000, NEW);
              loads.push(fresh);
              fresh.start(2);
            } else {
              record = { activeHash: passwordHash(NEW) };
              active = NEW;
            }
          },
        },
        now,
      ).finally(() => pool.close());
      log.info({ steps: result.applied.map((s) => s.kind) }, result.plan.progress ?? 'settled');
      told.push(...result.applied.map(describeRotationStep), result.plan.progress ?? '');
      if (!result.plan.rotating) break;
      // A replica restarted mid-rotation comes up with the password in force only.
      if (!restarted && result.applied.some((s) => s.kind === 'addPassword')) {
        restarted = true;
        const replica = harness.pods[5]!;
        await harness.restart(replica);
        await waitFor(() => acceptsPassword(replica.placement.address.ip, OLD), { what: 'the restarted replica' });
      }
      now += result.plan.requeueAfterMs ?? 200;
    }
    expect(record.activeHash).to.equal(passwordHash(NEW));
    for (const { placement } of harness.pods) {
      expect(await acceptsPassword(placement.address.ip, NEW), placement.name).to.equal(true);
      expect(await acceptsPassword(placement.address.ip, OLD), placement.name).to.equal(false);
    }
    // Replication links authenticate with the new masterauth after a resync.
    const pool = new NodePool({ auth: { password: NEW } });
    try {
      await expectHealthy(pool, desired);
    } finally {
      await pool.close();
    }
    for (const load of [old, fresh!]) {
      const report = await load.stop();
      expect(report.errors, report.samples.join('; ')).to.equal(0);
      expect(report.ops).to.be.greaterThan(0);
      expect(await load.verify()).to.deep.equal([]);
    }
    const said = [...lines, ...told].join('\n');
    expect(said).to.contain('rotating password');
    for (const secret of [OLD, NEW]) expect(said).not.to.contain(secret);
  });

  it('reports a refused rotation step without the password it carried', async () => {
    // ACL renamed away: Redis refuses the step, and ioredis' reply error carries its arguments.
    server = await startRedis({ args: ['--requirepass', OLD, '--rename-command', 'ACL', ''] });
    const pool = new NodePool({ auth: { password: OLD } });
    const address = { ip: server.host, port: server.port };
    const error = await applyRotationStep(pool, { kind: 'addPassword', nodes: ['n'] }, () => address, NEW).then(
      () => undefined,
      (e: unknown) => e,
    );
    await pool.close();
    expect(error).to.be.instanceOf(Error);
    expect(inspect(error, { depth: 10 })).not.to.contain(NEW);
    expect(JSON.stringify(error)).not.to.contain(NEW);
  });
});
