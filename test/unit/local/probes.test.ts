import { expect } from 'chai';
import { judge, portNumber, scaleProbes, type ProbeCounts } from '../../../infra/local/kubelet/probes.ts';

function run(
  results: boolean[],
  kind: 'readiness' | 'liveness',
  probe: { successThreshold?: number; failureThreshold?: number },
): boolean[] {
  let counts: ProbeCounts = { successes: 0, failures: 0, verdict: kind === 'liveness' };
  return results.map((ok) => (counts = judge(counts, ok, kind, probe)).verdict);
}

describe('infra/local/kubelet/probes', function () {
  it('makes a pod ready after successThreshold successes in a row', function () {
    expect(run([true, false, true, true], 'readiness', { successThreshold: 2 })).to.deep.equal([
      false,
      false,
      false,
      true,
    ]);
  });

  it('takes readiness away after failureThreshold failures in a row, not before', function () {
    expect(run([true, false, false, true, false, false, false], 'readiness', { failureThreshold: 3 })).to.deep.equal([
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('declares a container dead after failureThreshold liveness failures (default 3)', function () {
    expect(run([false, false, false], 'liveness', {})).to.deep.equal([true, true, false]);
  });

  it('looks named ports up in the container', function () {
    const container = { name: 'c', ports: [{ name: 'redis', containerPort: 6379 }] };
    expect([
      portNumber('redis', container),
      portNumber(7000, container),
      portNumber('7001', container),
      portNumber('nope', container),
    ]).to.deep.equal([6379, 7000, 7001, -1]);
  });

  it('runs every probe of a container that many times less often, with that many times its timeout, when scaled, and leaves the rest', function () {
    const container = {
      name: 'redis',
      readinessProbe: { exec: { command: ['true'] }, periodSeconds: 2, timeoutSeconds: 2 },
      livenessProbe: { tcpSocket: { port: 6379 as never } },
    };
    const scaled = scaleProbes(container, 5);
    expect(scaled.readinessProbe).to.deep.equal({ exec: { command: ['true'] }, periodSeconds: 10, timeoutSeconds: 10 });
    // Kubernetes' defaults are scaled too: period 10 s, timeout 1 s.
    expect(scaled.livenessProbe).to.deep.equal({ tcpSocket: { port: 6379 }, periodSeconds: 50, timeoutSeconds: 5 });
    expect(scaled).to.not.have.property('startupProbe');
    expect(scaleProbes(container, 1)).to.equal(container);
  });
});
