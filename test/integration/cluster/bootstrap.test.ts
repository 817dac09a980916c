import { expect } from 'chai';
import { Writable } from 'node:stream';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy } from './cluster-checks.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { createLogger } from '../../../shared/io/log.ts';

describe('cluster engine: bootstrap', function () {
  this.timeout(90_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  afterEach(async () => {
    await pool?.close();
    await harness?.stopAll();
  });

  it('forms a 3x1 cluster with requirepass, replicas never beside their master, no password in logs', async () => {
    const password = 'pw-3x1-secret';
    harness = new ClusterHarness({ suite: 1, password, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool({ auth: { password } });
    const lines: string[] = [];
    const log = createLogger({
      destination: new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    });
    const desired = harness.desired(3, 1);
    await converge(pool, desired, { log });
    await expectHealthy(pool, desired);
    expect(lines.length).to.be.greaterThan(0);
    expect(lines.join('')).not.to.contain(password);
  });

  it('forms a 6x1 cluster over 4 nodes in 2 zones', async () => {
    harness = new ClusterHarness({ suite: 2, nodes: 4, zones: 2 });
    await harness.addPods(12);
    pool = new NodePool();
    const desired = harness.desired(6, 1);
    await converge(pool, desired);
    await expectHealthy(pool, desired);
  });
});
