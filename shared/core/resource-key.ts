// The queue's payload: the key of one RedisCluster, "namespace/name" (client-go's
// MetaNamespaceKeyFunc). Everything downstream re-reads state from the key alone.

export interface ResourceRef {
  readonly namespace: string;
  readonly name: string;
}

// RFC 1123 subdomain (object names) and label (namespaces), as the API server checks them.
const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isValidRef(ref: { namespace?: unknown; name?: unknown }): ref is ResourceRef {
  return (
    typeof ref.namespace === 'string' &&
    ref.namespace.length <= 63 &&
    label.test(ref.namespace) &&
    typeof ref.name === 'string' &&
    ref.name.length <= 253 &&
    subdomain.test(ref.name)
  );
}

export function toKey(ref: ResourceRef): string {
  if (!isValidRef(ref)) throw new RangeError(`not a valid namespace/name: ${JSON.stringify(ref)}`);
  return `${ref.namespace}/${ref.name}`;
}

export function fromKey(key: string): ResourceRef {
  const [namespace, name, ...rest] = key.split('/');
  const ref = { namespace, name };
  if (rest.length > 0 || !isValidRef(ref))
    throw new RangeError(`not a valid key "namespace/name": ${JSON.stringify(key)}`);
  return ref;
}
