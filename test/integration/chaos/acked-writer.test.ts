// The chaos suite's client and checker on a real 3x1 Redis Cluster: the writer logs each
// acknowledged write as it happens (a SIGKILL loses no line), WAIT-acked writes are told apart,
// and the checker finds exactly the acknowledged writes that are gone.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { AckedWriter } from '../../chaos/support/acked-writer.ts';
import { checkAckLog, parseAckLog } from '../../chaos/support/ack-log.ts';
import { waitFor } from '../../support/wait-for.ts';
import { ClusterHarness } from '../cluster/cluster-harness.ts';

describe('chaos/support: acked writer and checker', function () {
  this.timeout(120_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  let writer: AckedWriter | undefined;
  let dir = '';

  after(async () => {
    writer?.kill();
    await pool?.close();
    await harness?.stopAll();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('logs plain and WAIT-acknowledged writes up to a SIGKILL, and the checker finds the ones deleted since', async () => {
    harness = new ClusterHarness({ suite: 8, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool();
    await converge(pool, harness.desired(3, 1));
    dir = await mkdtemp(join(tmpdir(), 'knredis-acked-'));
    const log = join(dir, 'acked.log');
    const seeds = harness.pods.map((p) => p.placement.address);
    writer = await AckedWriter.start({ seeds, log, prefix: 'chaos', ratePerLane: 100 });
    await waitFor(
      async () => {
        const { writes } = parseAckLog(await readFile(log, 'utf8'));
        return writes.filter((w) => w.waited).length >= 50 && writes.filter((w) => !w.waited).length >= 50;
      },
      { what: '50 acknowledged writes of each kind', timeout: 60_000 },
    );
    writer.kill();
    const { writes, errors } = parseAckLog(await readFile(log, 'utf8'));
    expect(errors).to.equal(0);
    // Every replica is linked, so every WAIT 1 reached one.
    expect(writes.filter((w) => w.key.includes(':w:')).every((w) => w.waited)).to.equal(true);

    const before = await checkAckLog(log, seeds, undefined, Date.now());
    expect(before).to.include({ lostAcked: 0, lostAckedWithWait: 0, lostBeforeFault: 0, clientErrors: 0 });
    expect(before.acked + before.ackedWithWait).to.equal(writes.length);

    // The first plain write (before the "fault") is deleted, the last WAIT-acked one overwritten.
    const plain = writes.find((w) => !w.waited)!;
    const waited = writes.filter((w) => w.waited).at(-1)!;
    const cluster = new Cluster(seeds.map((s) => ({ host: s.ip, port: s.port })));
    try {
      await cluster.del(plain.key);
      await cluster.set(waited.key, 'another value');
    } finally {
      cluster.disconnect();
    }
    const after = await checkAckLog(log, seeds, undefined, plain.at + 1);
    expect(after).to.include({ lostAcked: 1, lostAckedWithWait: 1, lostBeforeFault: 1 });
  });
});
