import { expect } from 'chai';
import type { V1Pod } from '@kubernetes/client-node';
import {
  computePhase,
  computeStatus,
  statusSignature,
  type ContainerState,
  type ContainerView,
  type PodView,
} from '../../../infra/local/kubelet/status.ts';

const running: ContainerState = { kind: 'running', startedAt: 1000 };
const waiting: ContainerState = { kind: 'waiting', reason: 'ContainerCreating' };
const exited = (exitCode: number): ContainerState => ({
  kind: 'terminated',
  exitCode,
  reason: exitCode === 0 ? 'Completed' : 'Error',
  startedAt: 1000,
  finishedAt: 2000,
});

function c(state: ContainerState, extra: Partial<ContainerView> = {}): ContainerView {
  return {
    name: 'c',
    image: 'redis:7',
    state,
    ready: false,
    started: state.kind === 'running',
    restartCount: 0,
    ...extra,
  };
}

function view(containers: ContainerView[], initContainers: ContainerView[] = []): PodView {
  return { podIP: '127.9.1.1', hostIP: '127.9.0.1', containers, initContainers };
}

describe('infra/local/kubelet/status', function () {
  const phases: [string, string, PodView, string][] = [
    ['nothing started', 'Always', view([c(waiting)]), 'Pending'],
    ['an init container still running', 'Always', view([c(waiting)], [c(running)]), 'Pending'],
    ['an init container failed under Never', 'Never', view([c(waiting)], [c(exited(1))]), 'Failed'],
    ['a container running', 'Always', view([c(running)], [c(exited(0))]), 'Running'],
    ['all exited 0 under Never', 'Never', view([c(exited(0))]), 'Succeeded'],
    ['one exited 1 under Never', 'Never', view([c(exited(0)), c(exited(1))]), 'Failed'],
    ['all exited 0 under OnFailure', 'OnFailure', view([c(exited(0))]), 'Succeeded'],
    ['exited 1 under OnFailure (restarting)', 'OnFailure', view([c(exited(1))]), 'Running'],
    [
      'in back-off after a crash',
      'Always',
      view([c({ kind: 'waiting', reason: 'CrashLoopBackOff' }, { restartCount: 2 })]),
      'Running',
    ],
    [
      'an image that cannot run',
      'Always',
      view([c({ kind: 'waiting', reason: 'ImageNotRunnableLocally' })]),
      'Pending',
    ],
  ];
  for (const [what, policy, v, phase] of phases) {
    it(`says ${phase} when ${what}`, function () {
      expect(computePhase(policy, v)).to.equal(phase);
    });
  }

  const pod: V1Pod = { metadata: { name: 'p' }, spec: { containers: [], restartPolicy: 'Always' } };

  it('reports Ready, addresses and container states of a ready pod', function () {
    const status = computeStatus(pod, view([c(running, { ready: true, containerID: 'local://42' })]), 5000, 1000);
    expect(status).to.deep.include({
      phase: 'Running',
      podIP: '127.9.1.1',
      hostIP: '127.9.0.1',
      startTime: '1970-01-01T00:00:01Z',
    });
    expect(status.conditions.map((x) => `${x.type}=${x.status}`)).to.deep.equal([
      'PodReadyToStartContainers=True',
      'Initialized=True',
      'ContainersReady=True',
      'Ready=True',
      'PodScheduled=True',
    ]);
    expect(status.containerStatuses[0]).to.deep.include({
      ready: true,
      containerID: 'local://42',
      state: { running: { startedAt: '1970-01-01T00:00:01Z' } },
    });
  });

  it('keeps lastTransitionTime of a condition that did not change and sets now on one that did', function () {
    const old: V1Pod = {
      ...pod,
      status: {
        conditions: [
          { type: 'Ready', status: 'True', lastTransitionTime: new Date(3000) },
          { type: 'Initialized', status: 'True', lastTransitionTime: '1970-01-01T00:00:02Z' as unknown as Date },
        ],
      },
    };
    const status = computeStatus(old, view([c(running)]), 9000, 1000);
    const at = (type: string) => status.conditions.find((x) => x.type === type);
    expect(at('Ready')).to.deep.include({
      status: 'False',
      reason: 'ContainersNotReady',
      lastTransitionTime: '1970-01-01T00:00:09Z',
    });
    expect(at('Initialized')?.lastTransitionTime).to.equal('1970-01-01T00:00:02Z');
  });

  it('reports the last termination of a restarted container', function () {
    const status = computeStatus(
      pod,
      view([
        c(running, {
          restartCount: 1,
          lastTerminated: {
            kind: 'terminated',
            exitCode: 137,
            signal: 9,
            reason: 'Error',
            startedAt: 0,
            finishedAt: 1000,
          },
        }),
      ]),
      2000,
      0,
    );
    expect(status.containerStatuses[0]).to.deep.include({
      restartCount: 1,
      lastState: {
        terminated: {
          exitCode: 137,
          signal: 9,
          reason: 'Error',
          startedAt: '1970-01-01T00:00:00Z',
          finishedAt: '1970-01-01T00:00:01Z',
        },
      },
    });
  });

  it('gives equal signatures to a status and the same status read back, and different ones when readiness changes', function () {
    const status = computeStatus(pod, view([c(running, { ready: true })]), 5000, 1000);
    const readBack = JSON.parse(JSON.stringify(status)) as V1Pod['status'];
    expect(statusSignature(readBack)).to.equal(statusSignature(status));
    const notReady = computeStatus(pod, view([c(running, { ready: false })]), 6000, 1000);
    expect(statusSignature(notReady)).to.not.equal(statusSignature(status));
  });
});
