import { expect } from 'chai';
import { addressesUnder, apiServiceIp, clusterIpPrefix } from '../../../infra/local/kubelet/cluster-ips.ts';
import { containerServiceCidr, loopbackServiceCidr } from '../../../infra/local/control-plane.ts';
import { apiServiceEnv } from '../../../infra/local/kubelet/pod-worker.ts';

describe('the ClusterIPs of a container environment', () => {
  it('take a /24 of their own for the environment, outside the pods and the loopback range', () => {
    expect(containerServiceCidr('127.101')).to.equal('172.16.101.0/24');
    expect(clusterIpPrefix(containerServiceCidr('127.254'))).to.equal('172.16.254');
    expect(() => clusterIpPrefix('10.0.0.0/16')).to.throw(/a \/24, got "10\.0\.0\.0\/16"/);
  });

  it("give the `kubernetes` Service the range's first address, and every container its variables", () => {
    expect(apiServiceIp(containerServiceCidr('127.101'))).to.equal('172.16.101.1');
    expect(apiServiceIp(loopbackServiceCidr('127.101'))).to.equal('127.99.101.1');
    expect(apiServiceEnv('172.16.101.1')).to.deep.equal({
      KUBERNETES_SERVICE_HOST: '172.16.101.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://172.16.101.1:443',
      KUBERNETES_PORT_443_TCP: 'tcp://172.16.101.1:443',
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443',
      KUBERNETES_PORT_443_TCP_ADDR: '172.16.101.1',
    });
  });

  it("finds only the range's /32 addresses among lo's, to remove what an earlier kubelet left", () => {
    const listed = [
      '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever',
      '1: lo    inet 172.16.101.1/32 scope global lo\\       valid_lft forever preferred_lft forever',
      '1: lo    inet 172.16.101.17/32 scope global lo\\       valid_lft forever preferred_lft forever',
      '1: lo    inet 172.16.102.5/32 scope global lo\\       valid_lft forever preferred_lft forever',
    ].join('\n');
    expect(addressesUnder(listed, '172.16.101')).to.deep.equal(['172.16.101.1', '172.16.101.17']);
  });
});
