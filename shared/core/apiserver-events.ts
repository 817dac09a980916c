// The CloudEvents Knative's ApiServerSource emits (pkg/adapter/apiserver/events in
// knative/eventing), which knredis' own event source emits too:
//   type        dev.knative.apiserver.resource.{add,update,delete}  data: the whole object
//               dev.knative.apiserver.ref.{add,update,delete}       data: an ObjectReference
//                 {kind, namespace, name, apiVersion} of the object, or of its controller
//                 when the source runs with an owner filter
//   subject     /apis/<apiVersion>/namespaces/<ns>/<kind lowercased>s/<name>
//   extensions  kind, name, namespace, apiversion of the object itself
//   datacontenttype application/json

export type Verb = 'add' | 'update' | 'delete';
export type EventMode = 'resource' | 'ref';

const apiServerEventPrefix = 'dev.knative.apiserver.';

export function eventType(mode: EventMode, verb: Verb): string {
  return `${apiServerEventPrefix}${mode}.${verb}`;
}

export function parseEventType(type: string): { mode: EventMode; verb: Verb } | undefined {
  const match = /^dev\.knative\.apiserver\.(resource|ref)\.(add|update|delete)$/.exec(type);
  return match ? { mode: match[1] as EventMode, verb: match[2] as Verb } : undefined;
}

export interface ObjectMetaLike {
  readonly name?: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly { apiVersion?: string; kind?: string; name?: string; controller?: boolean }[];
}

export interface KubeObjectLike {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMetaLike;
}

/** The attributes (besides id, source and time) of the event for one object change. */
export function eventAttributes(object: KubeObjectLike, verb: Verb, mode: EventMode = 'resource') {
  const apiVersion = object.apiVersion ?? '';
  const kind = object.kind ?? '';
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace ?? '';
  const data = mode === 'resource' ? object : { kind, namespace, name, apiVersion };
  return {
    type: eventType(mode, verb),
    subject: `/apis/${apiVersion}/namespaces/${namespace}/${kind.toLowerCase()}s/${name}`,
    datacontenttype: 'application/json',
    kind,
    name,
    namespace,
    apiversion: apiVersion,
    data,
  };
}
