import { expect } from 'chai';
import { parseClusterNodes } from '../../../shared/core/cluster/parse-cluster-nodes.ts';
import { parseClusterInfo, parseReplicationInfo } from '../../../shared/core/cluster/parse-info.ts';

const NODES = `07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host-4 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383 [100->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1] [200-<-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca]
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5460
6ec23923021cf3ffec47632106199cb7f496ce01 :0@0 master,fail?,noaddr - 1426238316232 1426238316232 5 disconnected 17 20-21
`;

describe('parseClusterNodes', () => {
  it('reads ids, addresses, roles, epochs and slot ranges when given a 7.0 reply', () => {
    const entries = parseClusterNodes(NODES);
    expect(entries).to.have.length(5);
    expect(entries[0]).to.include({
      role: 'replica',
      masterId: 'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca',
      hostname: 'host-4',
      busPort: 31004,
      configEpoch: 4,
    });
    expect(entries[1]?.slots).to.deep.equal([{ start: 5461, end: 10922 }]);
    expect(entries[3]).to.include({ myself: true, role: 'master', masterId: null });
  });

  it('reads open slots when a node migrates and imports', () => {
    const e = parseClusterNodes(NODES)[2];
    expect(e?.migrating).to.deep.equal([{ slot: 100, to: '67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1' }]);
    expect(e?.importing).to.deep.equal([{ slot: 200, from: 'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca' }]);
    expect(e?.slots).to.deep.equal([{ start: 10923, end: 16383 }]);
  });

  it('marks pfail, noaddr and disconnected when the node is unreachable', () => {
    const e = parseClusterNodes(NODES)[4];
    expect(e).to.include({ failing: 'pfail', address: null, connected: false });
    expect(e?.slots).to.deep.equal([
      { start: 17, end: 17 },
      { start: 20, end: 21 },
    ]);
  });

  it('throws a parse error when a line is truncated', () => {
    expect(() => parseClusterNodes('abc 127.0.0.1:1@2 master')).to.throw(/8/);
  });
});

describe('parseReplicationInfo and parseClusterInfo', () => {
  it('reads a replica with its link state and offset', () => {
    const r = parseReplicationInfo(
      '# Replication\r\nrole:slave\r\nmaster_host:127.0.0.2\r\nmaster_port:6379\r\nmaster_link_status:up\r\nmaster_sync_in_progress:0\r\nslave_repl_offset:4242\r\n',
    );
    expect(r).to.deep.equal({
      role: 'replica',
      offset: 4242,
      masterHost: '127.0.0.2',
      masterPort: 6379,
      linkUp: true,
      syncInProgress: false,
    });
  });

  it('reads a master offset and the cluster state', () => {
    expect(parseReplicationInfo('role:master\nmaster_repl_offset:77\n')).to.deep.equal({ role: 'master', offset: 77 });
    expect(
      parseClusterInfo(
        'cluster_state:ok\ncluster_slots_assigned:16384\ncluster_known_nodes:6\ncluster_size:3\ncluster_current_epoch:6\ncluster_my_epoch:2\n',
      ),
    ).to.deep.equal({ state: 'ok', slotsAssigned: 16384, knownNodes: 6, size: 3, currentEpoch: 6, myEpoch: 2 });
  });
});
