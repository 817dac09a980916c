// One object change -> the CloudEvent ApiServerSource would send for it (resource mode).
// A Secret's data never leaves: only its metadata is sent.
import { randomUUID } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import { eventAttributes, type KubeObjectLike, type Verb } from '../../shared/core/apiserver-events.ts';

export function toCloudEvent(object: KubeObjectLike, verb: Verb, source: string): CloudEvent<unknown> {
  const safe =
    object.kind === 'Secret' ? { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata } : object;
  const { data, ...attributes } = eventAttributes(safe, verb);
  return new CloudEvent({ id: randomUUID(), source, time: new Date().toISOString(), ...attributes, data });
}
