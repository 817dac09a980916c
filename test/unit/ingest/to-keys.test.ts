import { expect } from 'chai';
import { eventAttributes, eventType } from '../../../shared/core/apiserver-events.ts';
import { LABEL_CLUSTER, LABEL_INSTANCE, LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../../../shared/core/api/group.ts';
import { namePrefixes, toKeys, type ObjectRef, type OwnerLookup } from '../../../functions/ingest/to-keys.ts';

const childLabels = (name: string) => ({
  [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
  [LABEL_INSTANCE]: name,
  [LABEL_CLUSTER]: name,
});
const cluster = {
  apiVersion: 'cache.redis.io/v1beta1',
  kind: 'RedisCluster',
  metadata: { namespace: 'prod', name: 'cache' },
};
const ownedPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    namespace: 'prod',
    name: 'cache-0-1',
    ownerReferences: [{ apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', name: 'cache', controller: true }],
  },
};
const labelledService = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'prod', name: 'cache-headless', labels: childLabels('cache') },
};
const strangerPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'prod', name: 'web-1', labels: { app: 'web' } },
};

const asEvent = (
  object: object,
  verb: 'add' | 'update' | 'delete' = 'update',
  mode: 'resource' | 'ref' = 'resource',
) => {
  const a = eventAttributes(object, verb, mode);
  return {
    type: a.type,
    data: a.data,
    extensions: { kind: a.kind, name: a.name, namespace: a.namespace, apiversion: a.apiversion },
  };
};

function fakeLookup(
  objects: Record<string, object>,
  clusters: string[],
  secretUsers: Record<string, string[]> = {},
): OwnerLookup & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async readObject(ref: ObjectRef) {
      asked.push(`${ref.kind} ${ref.namespace}/${ref.name}`);
      return objects[`${ref.kind} ${ref.namespace}/${ref.name}`] ?? null;
    },
    async existingClusters(_ns: string, names: readonly string[]) {
      return names.filter((n) => clusters.includes(n));
    },
    async clustersUsingSecret(namespace: string, secret: string) {
      return secretUsers[`${namespace}/${secret}`] ?? [];
    },
  };
}

describe('ingest to-keys', () => {
  const table: [string, object, string[]][] = [
    ['the RedisCluster itself', asEvent(cluster, 'add'), ['prod/cache']],
    ['a deleted RedisCluster', asEvent(cluster, 'delete'), ['prod/cache']],
    ['a pod through its owner reference', asEvent(ownedPod), ['prod/cache']],
    ['a service through the cluster label', asEvent(labelledService, 'delete'), ['prod/cache']],
    ['a ref event of the RedisCluster', asEvent(cluster, 'update', 'ref'), ['prod/cache']],
  ];
  for (const [what, event, keys] of table) {
    it(`maps ${what} to its RedisCluster key`, async () => {
      expect(await toKeys(event as never)).to.deep.equal({ keys });
    });
  }

  it('calls an event unrelated when the object belongs to no RedisCluster, is of another kind, or is of an unknown type', async () => {
    expect(await toKeys(asEvent(strangerPod)))
      .to.have.property('unrelated')
      .that.matches(/belongs to no RedisCluster/);
    expect(
      await toKeys(
        asEvent({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { namespace: 'prod', name: 'x', labels: childLabels('cache') },
        }),
      ),
    )
      .to.have.property('unrelated')
      .that.matches(/not watched/);
    expect(await toKeys({ type: 'dev.knative.apiserver.resource.patch', data: cluster, extensions: {} }))
      .to.have.property('unrelated')
      .that.matches(/unsupported event type/);
    expect(await toKeys({ type: eventType('resource', 'add'), data: 'text', extensions: {} })).to.have.property(
      'unrelated',
    );
    expect(await toKeys(asEvent({ ...cluster, apiVersion: 'other.io/v1' }))).to.have.property('unrelated');
    // A Secret's event would carry its data: knredis never takes one, even a labelled one.
    expect(
      await toKeys(
        asEvent({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { namespace: 'prod', name: 'cache-auth', labels: childLabels('cache') },
        }),
      ),
    )
      .to.have.property('unrelated')
      .that.matches(/not watched/);
  });

  it('reads a ref-mode child from the API server to find its owner', async () => {
    const lookup = fakeLookup({ 'Pod prod/cache-0-1': ownedPod }, ['cache']);
    expect(await toKeys(asEvent(ownedPod, 'update', 'ref'), lookup)).to.deep.equal({ keys: ['prod/cache'] });
    expect(lookup.asked).to.deep.equal(['Pod prod/cache-0-1']);
  });

  it('maps a ref-mode child that is gone to the existing clusters its name starts with', async () => {
    const lookup = fakeLookup({}, ['cache', 'cache-0']);
    expect(await toKeys(asEvent(ownedPod, 'delete', 'ref'), lookup)).to.deep.equal({
      keys: ['prod/cache-0', 'prod/cache'],
    });
    expect(await toKeys(asEvent(strangerPod, 'delete', 'ref'), lookup)).to.have.property('unrelated');
  });

  it('refuses a ref-mode child when no lookup is configured', async () => {
    expect(await toKeys(asEvent(ownedPod, 'update', 'ref')))
      .to.have.property('unrelated')
      .that.matches(/lookup/);
  });

  it('maps a ref-mode Secret to every RedisCluster whose password it holds, with no data read', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'prod', name: 'shared-pw' } };
    const lookup = fakeLookup({}, [], { 'prod/shared-pw': ['cache', 'sessions'] });
    expect(await toKeys(asEvent(secret, 'update', 'ref'), lookup)).to.deep.equal({
      keys: ['prod/cache', 'prod/sessions'],
    });
    expect(lookup.asked).to.deep.equal([]);
    const other = { ...secret, metadata: { namespace: 'prod', name: 'tls-web' } };
    expect(await toKeys(asEvent(other, 'update', 'ref'), lookup))
      .to.have.property('unrelated')
      .that.matches(/is read by no RedisCluster/);
    expect(await toKeys(asEvent(secret, 'update', 'resource'), lookup))
      .to.have.property('unrelated')
      .that.matches(/not watched/);
  });

  it('maps a backup to the cluster its spec names (ref mode: read from the live one), or by name prefix once gone', async () => {
    const userBackup = {
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisClusterBackup',
      metadata: { namespace: 'prod', name: 'before-upgrade' },
      spec: { clusterName: 'cache' },
    };
    expect(await toKeys(asEvent(userBackup, 'add'))).to.deep.equal({ keys: ['prod/cache'] });
    expect(await toKeys(asEvent({ ...userBackup, spec: {} }, 'add')))
      .to.have.property('unrelated')
      .that.matches(/names no RedisCluster/);
    const scheduled = {
      ...userBackup,
      metadata: {
        namespace: 'prod',
        name: 'cache-202612040300',
        ownerReferences: [{ apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', name: 'cache' }],
      },
    };
    const lookup = fakeLookup(
      { 'RedisClusterBackup prod/cache-202612040300': scheduled, 'RedisClusterBackup prod/before-upgrade': userBackup },
      ['cache'],
    );
    expect(await toKeys(asEvent(scheduled, 'update', 'ref'), lookup)).to.deep.equal({ keys: ['prod/cache'] });
    // a user's backup has no owner and a name of its own: its spec says which cluster
    expect(await toKeys(asEvent(userBackup, 'add', 'ref'), lookup)).to.deep.equal({ keys: ['prod/cache'] });
    expect(await toKeys(asEvent(scheduled, 'delete', 'ref'), fakeLookup({}, ['cache']))).to.deep.equal({
      keys: ['prod/cache'],
    });
  });

  it('lists the candidate cluster names of a child name, longest first', () => {
    expect(namePrefixes('a-b-0')).to.deep.equal(['a-b-0', 'a-b', 'a']);
  });
});
