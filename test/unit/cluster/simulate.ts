// A small simulator for planner tables: applies each planned step to a hand-built topology as
// Redis would (roles, slots, epochs), pass after pass, so a test shows where the plan ends and
// that it never plans the same step twice.
import { assertNever } from '../../../shared/core/assert-never.ts';
import { expect } from 'chai';
import type { DesiredCluster, PodPlacement } from '../../../shared/core/cluster/desired.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import type { ClusterPlan } from '../../../shared/core/cluster/plan-types.ts';
import { formatRanges, toRanges } from '../../../shared/core/cluster/slots.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import { aTopology, type NodeSpec } from './builders.ts';

export interface SimNode {
  pod: number;
  role: 'master' | 'replica';
  of?: number;
  slots: number[];
  epoch: number;
}

export interface Simulation {
  nodes: SimNode[];
  plans: ClusterPlan[];
  steps: Step[];
}

const podOf = (id: string) => Number(id.replace(/^a+/, '') || '0');

export function fromSpecs(specs: readonly NodeSpec[]): SimNode[] {
  return specs.map((s) => ({
    pod: s.pod,
    role: s.role ?? 'master',
    of: s.of,
    epoch: s.epoch ?? s.pod + 1,
    slots: (s.slots ?? '')
      .split(' ')
      .filter(Boolean)
      .flatMap((r) => {
        const [a, b] = r.split('-').map(Number) as [number, number?];
        return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
      }),
  }));
}

export function toSpecs(nodes: readonly SimNode[]): NodeSpec[] {
  return nodes.map((n) => ({
    pod: n.pod,
    role: n.role,
    epoch: n.epoch,
    ...(n.of !== undefined ? { of: n.of } : {}),
    slots: formatRanges(toRanges(n.slots)),
  }));
}

/** What Redis does when the step runs (the apply of shared/io/redis, in miniature). */
export function applyTo(nodes: SimNode[], step: Step): SimNode[] {
  const find = (id: string) => {
    const n = nodes.find((x) => x.pod === podOf(id));
    if (!n) throw new Error(`step ${step.kind} names a node the simulation does not hold: ${id}`);
    return n;
  };
  switch (step.kind) {
    case 'replicate': {
      const n = find(step.node.id);
      if (n.slots.length > 0) throw new Error(`REPLICATE on ${n.pod}, a master with slots`);
      return nodes.map((x) => (x === n ? { ...x, role: 'replica', of: podOf(step.master.id) } : x));
    }
    case 'failover': {
      const r = find(step.replica.id);
      const m = find(step.master.id);
      if (r.role !== 'replica' || r.of !== m.pod) throw new Error(`FAILOVER on ${r.pod}, not a replica of ${m.pod}`);
      const epoch = Math.max(...nodes.map((x) => x.epoch)) + 1;
      return nodes.map((x) =>
        x === r
          ? { ...x, role: 'master', of: undefined, slots: m.slots, epoch }
          : x === m
            ? { ...x, role: 'replica', of: r.pod, slots: [] }
            : x.role === 'replica' && x.of === m.pod
              ? { ...x, of: r.pod }
              : x,
      );
    }
    case 'migrate': {
      let next = nodes;
      for (const move of step.moves) {
        const moving = new Set(move.slots);
        next = next.map((x) =>
          x.pod === podOf(move.source.id)
            ? { ...x, slots: x.slots.filter((s) => !moving.has(s)) }
            : x.pod === podOf(move.target.id)
              ? { ...x, slots: [...x.slots, ...move.slots].sort((a, b) => a - b) }
              : x,
        );
      }
      return next;
    }
    case 'forget':
    case 'reset':
      return nodes.filter((x) => x.pod !== podOf(step.kind === 'forget' ? step.id : step.node.id));
    case 'setConfigEpoch':
    case 'addSlots':
    case 'meet':
    case 'announce':
    case 'closeSlots':
      throw new Error(`the simulation does not model ${step.kind}`);
    default:
      return assertNever(step);
  }
}

/** Plans and applies until a plan has no step (or `maxPasses`); throws if a step repeats. */
export function simulate(
  desired: DesiredCluster,
  specs: readonly NodeSpec[],
  maxPasses = 40,
  now = 1_000_000,
): Simulation {
  let nodes = fromSpecs(specs);
  const plans: ClusterPlan[] = [];
  const steps: Step[] = [];
  const seen = new Set<string>();
  for (let pass = 0; pass < maxPasses; pass++) {
    const plan = planCluster(desired, aTopology([...desired.pods], toSpecs(nodes)), now);
    plans.push(plan);
    if (plan.steps.length === 0) return { nodes, plans, steps };
    for (const step of plan.steps) {
      const key = JSON.stringify(step);
      if (seen.has(key)) throw new Error(`pass ${pass} plans again: ${key}`);
      seen.add(key);
      steps.push(step);
      nodes = applyTo(nodes, step);
    }
  }
  throw new Error(`no plan without steps after ${maxPasses} passes: ${plans.at(-1)?.progress.message}`);
}

/** The asked shape: `masters` masters on staying pods, each with its replicas on other nodes. */
export function expectShape(
  desired: DesiredCluster,
  nodes: readonly SimNode[],
  options: { zones?: boolean } = {},
): void {
  const podOf = (i: number) => desired.pods[i] as PodPlacement;
  const masters = nodes.filter((n) => n.slots.length > 0);
  expect(masters.length, 'masters').to.equal(desired.masters);
  expect(masters.reduce((n, m) => n + m.slots.length, 0)).to.equal(16384);
  for (const m of masters) {
    expect(podOf(m.pod).removing, `master on leaving ${podOf(m.pod).name}`).to.equal(undefined);
    const replicas = nodes.filter((n) => n.role === 'replica' && n.of === m.pod && !podOf(n.pod).removing);
    expect(replicas.length, `replicas of ${podOf(m.pod).name}`).to.equal(desired.replicasPerMaster);
    for (const r of replicas) {
      expect(podOf(r.pod).nodeName, `${podOf(r.pod).name} beside its master`).not.to.equal(podOf(m.pod).nodeName);
      if (options.zones)
        expect(podOf(r.pod).zone, `${podOf(r.pod).name} in its master's zone`).not.to.equal(podOf(m.pod).zone);
    }
  }
}
