// Runs one planned migrate step in its own process and kills itself (SIGKILL) at a chosen
// stage of a chosen chunk, so the resume tests can interrupt the migrator anywhere.
// argv[2]: JSON { desired, killAt: { stage, count } }.
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import type { MigrationStage } from '../../../shared/io/redis/migrate-slots.ts';
import { applyStep } from '../../../shared/io/redis/apply.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';

const { desired, killAt } = JSON.parse(process.argv[2] ?? '{}') as {
  desired: DesiredCluster;
  killAt: { stage: MigrationStage; count: number };
};
const pool = new NodePool();
let seen = 0;
const plan = planCluster(desired, await observe(desired.pods, pool), Date.now());
const step = plan.steps.find((s) => s.kind === 'migrate');
if (!step) {
  console.log('no migrate step');
  process.exit(3);
}
await applyStep(pool, step, {
  migrate: {
    chunkSlots: 16,
    onStage: (stage) => {
      if (stage === killAt.stage && ++seen >= killAt.count) process.kill(process.pid, 'SIGKILL');
    },
  },
});
console.log('finished without being killed');
process.exit(0);
