// A namespaced install (WATCH_NAMESPACE) takes events of its namespace only. Checked before the
// owner lookup: the operator's Role cannot read other namespaces, and a 403 turned into a 503
// would make the sender retry an event that can never succeed; a 400 says why and ends it.
import type { EventFields } from './to-keys.ts';

function namespaceOf(event: EventFields): string {
  const extension = event.extensions.namespace;
  if (typeof extension === 'string' && extension) return extension;
  const data = event.data as { metadata?: { namespace?: unknown } } | null | undefined;
  return typeof data?.metadata?.namespace === 'string' ? data.metadata.namespace : '';
}

/** Why the event is refused, or undefined when it is in the watched namespace (or all are watched). */
export function outsideWatchNamespace(event: EventFields, watchNamespace: string | undefined): string | undefined {
  if (!watchNamespace) return undefined;
  const namespace = namespaceOf(event);
  if (namespace === watchNamespace) return undefined;
  return `the event is about ${namespace ? `namespace ${namespace}` : 'no namespace'}, but this operator watches only ${watchNamespace} (WATCH_NAMESPACE)`;
}
