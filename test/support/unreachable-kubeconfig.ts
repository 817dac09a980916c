// A kubeconfig naming an API server that is not there (port 1 of loopback), for a function
// started where no API server runs: ingest and reconcile read a kubeconfig at start, and
// neither a resource-mode event nor a start with its health probes calls the API server.
export const unreachableKubeconfig = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
  'users: [{name: u, user: {token: none}}]',
  'contexts: [{name: c, context: {cluster: c, user: u}}]',
  'current-context: c',
].join('\n');
