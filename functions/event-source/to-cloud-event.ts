// One object change -> the CloudEvent ApiServerSource would send for it (resource mode).
// A Secret's data never leaves: it is sent as a reference (ref mode), as Knative's
// ApiServerSource in Reference mode sends it; ingest maps it to the clusters that use it.
import { randomUUID } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import { eventAttributes, type KubeObjectLike, type Verb } from '../../shared/core/apiserver-events.ts';

export function toCloudEvent(object: KubeObjectLike, verb: Verb, source: string): CloudEvent<unknown> {
  const { data, ...attributes } = eventAttributes(object, verb, object.kind === 'Secret' ? 'ref' : 'resource');
  return new CloudEvent({ id: randomUUID(), source, time: new Date().toISOString(), ...attributes, data });
}
