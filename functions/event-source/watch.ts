// The event source watches through the one list-watch loop of shared/io/kube.
export { watchResource, type OnChange } from '../../shared/io/kube/watch-resource.ts';
