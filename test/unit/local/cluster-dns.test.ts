import { expect } from 'chai';
import { corefile, podDnsFlags } from '../../../infra/local/kubelet/cluster-dns.ts';

describe('the cluster DNS of pods run as containers', () => {
  it("serves cluster.local and the reverse zones from the API server, on the network's gateway only", () => {
    const conf = corefile('10.101.0.1', '/env/kubelet.kubeconfig');
    expect(conf).to.match(/^cluster\.local:53 in-addr\.arpa:53 ip6\.arpa:53 \{/);
    expect(conf).to.contain('bind 10.101.0.1\n');
    expect(conf).to.contain('ready 10.101.0.1:8181\n');
    expect(conf).to.contain(
      'kubernetes cluster.local in-addr.arpa ip6.arpa {\n        kubeconfig /env/kubelet.kubeconfig\n',
    );
    // Nothing outside the cluster: no upstream to forward to here.
    expect(conf).to.not.contain('forward');
  });

  it("gives a pod the cluster's search path from its own namespace, with ndots 5", () => {
    expect(podDnsFlags('10.101.0.1', 'shop')).to.deep.equal([
      '--dns',
      '10.101.0.1',
      '--dns-search',
      'shop.svc.cluster.local',
      '--dns-search',
      'svc.cluster.local',
      '--dns-search',
      'cluster.local',
      '--dns-option',
      'ndots:5',
    ]);
  });
});
