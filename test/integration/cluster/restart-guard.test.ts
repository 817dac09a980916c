// The restart guard on real redis-server processes. A master that was failed over and comes back
// with its nodes.conf believes it still owns its slots until gossip says otherwise; with its
// peers silent (frozen here, slow on a busy machine: 5 s measured) it takes writes that its
// demotion then throws away. The pods' start script (run by sh, paths mapped as the local
// kubelet maps them) starts such a node with min-replicas-to-write 1, so it refuses them; the
// reconcile lifts the guard once the node is a replica.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { keySlot } from '../../../shared/core/cluster/slots.ts';
import { myselfOf } from '../../../shared/core/cluster/topology.ts';
import { guardsToLift } from '../../../shared/core/cluster/write-guard.ts';
import { GUARD_CONF } from '../../../shared/core/resources/redis-command.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { converge } from '../../support/converge.ts';
import { runStartScript } from '../../support/start-script.ts';
import { waitFor } from '../../support/wait-for.ts';
import { ClusterHarness, type FakePod } from './cluster-harness.ts';

/** Runs the start script but its exec against `dataDir`; returns the guard include's path and text. */
async function runGuard(dataDir: string, redisConf = ''): Promise<{ path: string; text: string }> {
  const at = await runStartScript(await mkdtemp(join(tmpdir(), 'knredis-guard-')), {
    password: 'pw',
    dataDir,
    redisConf,
  });
  return { path: at(GUARD_CONF), text: await readFile(at(GUARD_CONF), 'utf8') };
}

const me = 'a'.repeat(40);
const other = 'b'.repeat(40);
const line = (id: string, flags: string, master: string, slots = '') =>
  `${id} 127.0.0.1:6379@16379 ${flags} ${master} 0 0 1 connected ${slots}`.trim();

describe('restart guard: a failed-over master that comes back takes no write before it knows', function () {
  this.timeout(300_000);

  describe("the start script's guard (nodes.conf as the node left it)", () => {
    const cases: [string, string | undefined, string, string][] = [
      [
        'a master with slots and a replica: guarded',
        [line(me, 'myself,master', '-', '0-5460'), line(other, 'slave', me)].join('\n'),
        '',
        'min-replicas-to-write 1\n',
      ],
      ['a first start (no nodes.conf): not guarded', undefined, '', ''],
      [
        'a replica: not guarded',
        [line(me, 'myself,slave', other), line(other, 'master', '-', '0-5460')].join('\n'),
        '',
        '',
      ],
      [
        'a master with no replica (nobody could have replaced it): not guarded',
        [line(me, 'myself,master', '-', '0-5460'), line(other, 'master', '-', '5461-16383')].join('\n'),
        '',
        '',
      ],
      [
        'a master with no slot: not guarded',
        [line(me, 'myself,master', '-'), line(other, 'slave', me)].join('\n'),
        '',
        '',
      ],
      [
        "the user's min-replicas-to-write 2 already guards: left alone",
        [line(me, 'myself,master', '-', '0-5460'), line(other, 'slave', me)].join('\n'),
        'min-replicas-to-write 2\n',
        '',
      ],
    ];
    for (const [name, nodesConf, redisConf, expected] of cases)
      it(name, async () => {
        const data = await mkdtemp(join(tmpdir(), 'knredis-guard-data-'));
        try {
          if (nodesConf !== undefined)
            await writeFile(join(data, 'nodes.conf'), `${nodesConf}\nvars currentEpoch 3 lastVoteEpoch 0\n`);
          expect((await runGuard(data, redisConf)).text).to.equal(expected);
        } finally {
          await rm(data, { recursive: true, force: true });
        }
      });
  });

  describe('on a real cluster', () => {
    let harness: ClusterHarness | undefined;
    let pool: NodePool | undefined;
    after(async () => {
      for (const p of harness?.pods ?? []) p.server?.process.kill('SIGCONT');
      await pool?.close();
      await harness?.stopAll();
    });

    it('refuses writes while it still believes it owns its slots, and the reconcile lifts the guard once it follows its replica', async () => {
      // A long node timeout: the frozen peers stay "reachable" to the returning node, so it
      // declares the cluster ok (after Redis' own 2 s hold) and would serve its old slots.
      harness = new ClusterHarness({ suite: 16, nodes: 3, zones: 3, nodeTimeoutMs: 60_000 });
      await harness.addPods(6);
      pool = new NodePool();
      const desired = harness.desired(3, 1);
      await converge(pool, desired);
      const before = await observe(desired.pods, pool);
      const masterView = before.views.find((v) => myselfOf(v).role === 'master')!;
      const replicaView = before.views.find((v) => myselfOf(v).masterId === masterView.id)!;
      const podOf = (name: string) => harness!.pods.find((p) => p.placement.name === name) as FakePod;
      const master = podOf(masterView.pod);
      const replica = podOf(replicaView.pod);
      const first = myselfOf(masterView).slots[0]!.start;
      let key = 'k';
      for (let i = 0; keySlot(key) !== first; i++) key = `k${i}`;
      await command(pool, master.placement.address, 'SET', ['SET', key, 'before']);
      await waitFor(
        async () =>
          (await observe(desired.pods, pool!)).views.some(
            (v) => v.pod === replica.placement.name && v.replication.linkUp === true,
          ),
        { what: `${replica.placement.name} linked to its master` },
      );

      // The master's node fails; its replica takes over (FORCE: no one waits for a node timeout).
      await master.server?.kill('SIGKILL');
      // On a loaded machine a failover can miss Redis' own deadline and be dropped: asked again.
      let asked = 0;
      await waitFor(
        async () => {
          if (Date.now() - asked > 10_000) {
            asked = Date.now();
            await command(pool!, replica.placement.address, 'CLUSTER FAILOVER FORCE', ['CLUSTER', 'FAILOVER', 'FORCE']);
          }
          return (
            ((await command<unknown[]>(pool!, replica.placement.address, 'ROLE', ['ROLE']))[0] as string) === 'master'
          );
        },
        { what: `${replica.placement.name} promoted`, timeout: 120_000 },
      );
      await command(pool, replica.placement.address, 'SET', ['SET', key, 'after the failover']);

      // The old master comes back, as the pod's start script starts it, while its peers are silent.
      const guard = await runGuard(master.dir);
      expect(guard.text, "the start script's guard").to.equal('min-replicas-to-write 1\n');
      for (const p of harness.pods) if (p !== master) p.server?.process.kill('SIGSTOP');
      await harness.restart(master, { args: ['--include', guard.path] });
      const back = master.placement.address;
      const client = new Redis({ host: back.ip, port: 6379, maxRetriesPerRequest: 0 });
      try {
        await waitFor(async () => (await client.cluster('INFO')).includes('cluster_state:ok'), {
          what: 'the returning node declares its cluster ok',
        });
        const mine = myselfOf((await observe([{ ...master.placement }], pool)).views[0]!);
        expect(mine.role, 'it still believes it is a master').to.equal('master');
        let refused = '';
        await client.set(key, 'lost if acknowledged').catch((error: Error) => (refused = error.message));
        expect(refused, 'a write to the returning master').to.match(/^NOREPLICAS/);
        // Without the guard, that write is acknowledged, and gone once the node learns the truth:
        await client.config('SET', 'min-replicas-to-write', '0');
        expect(await client.set(key, 'acknowledged, then lost')).to.equal('OK');
        await client.config('SET', 'min-replicas-to-write', '1');
      } finally {
        client.disconnect();
        for (const p of harness.pods) p.server?.process.kill('SIGCONT');
      }

      await waitFor(async () => ((await command<unknown[]>(pool!, back, 'ROLE', ['ROLE']))[0] as string) === 'slave', {
        what: `${master.placement.name} turned replica`,
      });
      expect(await command(pool, replica.placement.address, 'GET', ['GET', key])).to.equal('after the failover');
      const lifts = guardsToLift(await observe(harness.desired(3, 1).pods, pool), 0);
      expect(lifts.map((l) => `${l.pod}: ${l.why}`)).to.deep.equal([`${master.placement.name}: it is a replica`]);
    });
  });
});
